# nncert build.  `make` builds bin/nncert and build/libnncert.{a,so}, and with
# CUDA the plugin build/libnncert-gpu.so (loaded only when a GPU path is used).
#   make GPU=0      leave the CUDA unit out (default: built when nvcc is found)
#   make SAN=1      AddressSanitizer + UndefinedBehaviorSanitizer build (in build-san/)
#   make test       install what is missing, build, run every test suite
#   make demo       run nncert on the shipped zoo model
#   make bench      benchmark against onnxruntime-node, write results/runtime.csv
#   make bench-verify   VNN-COMP instances against the official results (results/verify-vnncomp*.csv)
#   make bench-crown    CROWN margins against auto_LiRPA (results/crown-mnist.csv)
#   make bench-verify-mpi  one verification over 2 MPI ranks vs one process (results/verify-mpi.csv)
#   make bench-prove-mpi   Groth16 proving over 2 MPI ranks vs one process (results/prove-mpi.csv)
#   make bench-acas-leaves  ACAS Xu leaf throughput: CROWN vs symbolic bounds (results/verify-acas-leaves.csv)
#   make bench-alpha    alpha-CROWN margins against CROWN and auto_LiRPA (results/alpha-mnist.csv)
#   make bench-prove    Groth16 proving time and peak memory against snarkjs, 2^12..2^20 (results/prove.csv)
#   make bench-msm      G1 MSM and NTT up to 2^20 (results/msm.csv)
#   make bench-gnn      GCN aggregation (SpMM) vs scipy and torch.sparse, bandwidth bound (results/gnn.csv)
#   make bench-dlrm     embedding bags vs torch, DLRM planner vs table/row-wise (results/dlrm.csv)
#   make bench-dlrm-bounds  DLRM linear vs interval bounds, verify vs --ibp (results/dlrm-bounds.csv)
#   make bench-zk       proofs of inference: constraints per MAC, prove time, accuracy (results/zk*.csv)
#   make fuzz       run the libFuzzer targets for a bounded time
#   make test-arm64 cross-build for aarch64 and run the unit suites under qemu-user
CC       ?= gcc
NVCC     ?= nvcc
SAN      ?= 0
GPU      ?= $(if $(shell command -v $(NVCC) 2>/dev/null),1,0)
FUZZ_SECONDS ?= 60

# Separate build folders per configuration, so objects built with other
# flags are never mixed: build/ (default), build-cpu/ (GPU=0), build-san[-cpu]/.
ifeq ($(SAN),1)
BUILD    := build-san$(if $(filter 0,$(GPU)),-cpu)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT      := -O1
else
BUILD    := build$(if $(filter 0,$(GPU)),-cpu)
SANFLAGS :=
OPT      := -O2
endif

ONNX_PROTO ?= /usr/include/onnx/onnx.proto
GEN      := $(BUILD)/gen
CPPFLAGS += -I. -Iinclude -I$(GEN) -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE
CFLAGS   ?= $(OPT) -g
CFLAGS   += -std=c11 -Wall -Wextra -Wno-unused-parameter -fPIC -pthread $(SANFLAGS)
LDFLAGS  += -pthread $(SANFLAGS)
# No instruction-set flag is set for the whole build: every AVX2, AVX-512,
# IFMA and BMI2/ADX path is compiled per function (target attributes or
# assembly text) and chosen at run time (common/isa.h, NNC_ISA=generic|avx2|
# avx512), so one binary runs on any x86-64 CPU.
BASELIBS := -lprotobuf-c -lopenblas -lsodium -lmpfr -lgmp -lm
LIBS     := $(BASELIBS) -fopenmp

# MPI (Open MPI from Debian) for the multi-process runs: built in when mpicc is
# found (MPI=0 leaves it out); the code lives in dist/*.c (the team that
# runs one verification over ranks, the DLRM's distributed run, the GNN
# aggregation's halo exchange, each over the caller's communicator) and
# cli/mpi.c (MPI_Init: only the command line initialises MPI), compiled with
# mpicc's flags.
MPI      ?= $(if $(shell command -v mpicc 2>/dev/null),1,0)
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell mpicc --showme:compile) -DNNC_HAVE_MPI=1
MPI_LIBS   := $(shell mpicc --showme:link)
# every C file sees the MPI headers: dist/comm.h's communicator type is an
# MPI_Comm in the headers of the library's multi-process parts
CPPFLAGS   += $(MPI_CFLAGS)
LIBS       += $(MPI_LIBS)
endif

# The library's modules, one folder each, lowest layer first: a module calls
# only modules before it (tests/tools/deps_check.py --layers checks every
# call between the folders' objects against this order, tests/e2e/layers.sh).
# Each module is an archive, $(BUILD)/mod/libnncert_<module>.a (models' holds
# the generated ONNX bindings too), and programs link them in the reverse
# order, so that the linker meets a module's callers before it: a call from a
# lower module into one above it, to an object nothing else pulled in, fails
# to link.  libnncert.a and libnncert.so hold all of them (what is installed).
#   make <module>        its archive, the archives below it, its unit suites
#   make check-<module>  and runs those suites (under the caller's NNC_ISA, if set)
MODULES  := common models specs prover dist gpu verifier zk gate
reverse   = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
MOD_OBJ   = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(1)/*.c))$(if $(filter models,$(1)), $(BUILD)/obj/gen/onnx.pb-c.o)
LAYER_LIBS := $(foreach m,$(strip $(call reverse,$(MODULES))),$(BUILD)/mod/libnncert_$(m).a)
LIB_SRC  := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
LIB_OBJ  := $(foreach m,$(MODULES),$(call MOD_OBJ,$(m)))
CLI_SRC  := $(wildcard cli/*.c)
CLI_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRC))

# The CUDA unit (gpu/*.cu) and the CUDA libraries go into a plugin,
# $(BUILD)/libnncert-gpu.so, that libnncert loads with dlopen on the first GPU
# call (gpu/plugin.c); nncert and libnncert.{a,so} link no CUDA library.
ifeq ($(GPU),1)
CU_SRC   := $(wildcard gpu/*.cu)
CU_OBJ   := $(patsubst %.cu,$(BUILD)/obj/%.o,$(CU_SRC))
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
CPPFLAGS += -DNNC_HAVE_CUDA=1
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcurand -lnccl -lcudart -lstdc++
NVFLAGS  ?= -O2 -std=c++17 -arch=sm_90 -Xcompiler -fPIC -I. -DNNC_HAVE_CUDA=1
GPU_PLUGIN := $(BUILD)/libnncert-gpu.so
else
CU_OBJ   :=
GPU_PLUGIN :=
endif

TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC))
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRC))
REPLAY_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz-replay/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: test-arm64 all lib test check demo bench bench-verify bench-verify-mpi bench-prove-mpi bench-acas-leaves bench-crown bench-alpha bench-prove bench-sampling bench-msm bench-dlrm bench-dlrm-bounds bench-gnn bench-isa bench-zk fuzz setup clean install
all: bin/nncert $(BUILD)/libnncert.a $(BUILD)/libnncert.so $(GPU_PLUGIN)

$(GEN)/onnx.pb-c.c $(GEN)/onnx.pb-c.h: $(ONNX_PROTO)
	@mkdir -p $(GEN)
	protoc-c --c_out=$(GEN) -I$(dir $(ONNX_PROTO)) $(ONNX_PROTO)

$(BUILD)/obj/gen/onnx.pb-c.o: $(GEN)/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -w -c $< -o $@

$(BUILD)/obj/%.o: %.c $(GEN)/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The direct convolution splits a large image's channel blocks over the
# runtime's threads (OpenMP), in every build.
$(BUILD)/obj/models/kernels_f32.o $(BUILD)/obj/models/kernels_f64.o: CFLAGS += -fopenmp
# The reference kernels are loops over contiguous tensors: let the compiler
# vectorise them (and if-convert the activations) outside sanitizer builds.
ifneq ($(SAN),1)
$(BUILD)/obj/models/kernels_f32.o $(BUILD)/obj/models/kernels_f64.o: CFLAGS += -O3 -ffp-contract=off
# zk/quant.o: the quantiser's float twin and the integer runtime's layer
# sums (each output's terms in the window's order, so vectorising along a
# row changes no value; no contraction into fused multiply-adds)
$(BUILD)/obj/zk/quant.o: CFLAGS += -O3 -ffp-contract=off
# symfwd.o: -fno-trapping-math lets the back-substitution's sign splits
# (v > 0 ? v : 0) be if-converted and vectorised; it changes no value (only
# which floating-point exception flags may be raised), so the rounding
# analysis of symfwd_impl.h is unaffected.
$(BUILD)/obj/verifier/symfwd.o: CFLAGS += -O3 -fno-trapping-math
endif
# vrf_leaf.o: branch-and-bound leaves bounded on OpenMP threads
$(BUILD)/obj/verifier/vrf_leaf.o $(BUILD)/obj/verifier/relusplit.o $(BUILD)/obj/verifier/babdense.o: CFLAGS += -fopenmp
# babdense's sparse products have AVX2/AVX-512 twins that must equal the
# generic ones bit for bit: no fused multiply-adds.  -O3 vectorises its
# elementwise loops (Adam's update: sqrtf needs -fno-math-errno); neither
# changes a result (no reassociation, IEEE sqrt and division either way)
# -fno-trapping-math (as symfwd.o) lets its selects between products be
# if-converted and vectorised (the neuron loops of the float32 estimates).
$(BUILD)/obj/verifier/babdense.o: CFLAGS += -ffp-contract=off $(if $(filter 1,$(SAN)),,-O3) -fno-math-errno -fno-trapping-math
# msm.c instantiates the bucket method for G1 and G2 over always-inlined
# field arithmetic: GCC 12's points-to analysis (-ftree-pta) took 390 of the
# 460 s its -O2 build took on one core, the longest step of the whole build.
# Without it: 65 s, and the MSMs as fast or faster (bench_prover on an
# AVX-512 EPYC, AVX2 path, 2^16 points, 1 thread: G2 0.84-0.89 s against
# 1.08-1.09 s, G1 0.28-0.34 s either way).  The flag drops an analysis only:
# the generated code computes the same values.
$(BUILD)/obj/prover/msm.o: CFLAGS += $(if $(findstring clang,$(CC)),,-fno-tree-pta)
# the packed GEMM splits its row blocks over OpenMP's persistent threads
$(BUILD)/obj/models/sgemm.o $(BUILD)/obj/models/runtime.o: CFLAGS += -fopenmp
# sampling: Philox blocks vectorised across lanes (-O3), samples over two threads
$(BUILD)/obj/verifier/sample.o $(BUILD)/obj/verifier/sample_run.o: CFLAGS += -fopenmp $(if $(filter 1,$(SAN)),,-O3)
# the embedding-bag kernel splits its bags the same way
$(BUILD)/obj/models/embbag.o: CFLAGS += -fopenmp -O3
# so does the sparse product (models/spmm.c) with its row blocks
$(BUILD)/obj/models/spmm.o: CFLAGS += -fopenmp
$(BUILD)/obj/prover/mpc.o: CFLAGS += -fopenmp

# (with its header dependencies, like the C objects: a changed field or
# curve header rebuilds the CUDA units that include it)
$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -Iinclude -MMD -MP -MF $(@:.o=.d) -c $< -o $@

$(BUILD)/libnncert.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

define module_archive
$$(BUILD)/mod/libnncert_$(1).a: $$(call MOD_OBJ,$(1))
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	ar rcs $$@ $$^
endef
$(foreach m,$(MODULES),$(eval $(call module_archive,$(m))))

# Each unit suite belongs to the module it tests (layers.sh checks that every
# tests/unit/test_*.c is listed once).
TESTS_common   :=
TESTS_models   := test_loader test_runtime test_sgemm test_embbag
TESTS_specs    := test_specs
TESTS_prover   := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_prover_*.c))
TESTS_dist     := test_dlrm_plan
TESTS_gpu      := test_gpu test_gpu_dlrm test_gpu_embbag test_gpu_prover test_gpu_spmm test_spmm
TESTS_verifier := test_attack test_bounds test_dlrm_bounds test_exact test_gpu_bab test_gpu_verify test_refine test_sample \
                  test_stats test_symfwd test_verifier
TESTS_zk       := test_circuit test_poseidon
TESTS_gate     := test_gate test_release
# a module's suites link its archive and those below it only (callers
# first), so a suite builds without the modules above its own
acc :=
$(foreach m,$(MODULES),$(eval acc := $(BUILD)/mod/libnncert_$(m).a $(acc))$(eval MOD_LIBS_$(m) := $(acc)))
$(foreach m,$(MODULES),$(foreach t,$(TESTS_$(m)),$(eval TEST_LIBS_$(t) := $(MOD_LIBS_$(m)))))
MODULE_TESTS := $(foreach m,$(MODULES),$(TESTS_$(m)))
.PHONY: $(MODULES) $(addprefix check-,$(MODULES))
# make -s print-VAR: a variable of this build (tests/e2e/layers.sh reads
# MODULES, MODULE_TESTS, LAYER_LIBS and the link flags so, not copies)
print-%:
	@echo $($*)
$(foreach m,$(MODULES),$(eval $(m): $(BUILD)/mod/libnncert_$(m).a $(addprefix $(BUILD)/tests/,$(TESTS_$(m)))))
$(addprefix check-,$(MODULES)): check-%: %
	@rc=0; for t in $(addprefix $(BUILD)/tests/,$(TESTS_$*)); do echo "== $$t"; CK_FORK=yes $$t || { s=$$?; [ $$s -eq 77 ] || rc=1; }; done; exit $$rc

# The shared library exports the API only: the functions the public
# headers mark NNC_API (nncert/nnc.h).  The library's objects are compiled
# with hidden visibility (which changes no code, only which symbols a
# shared object may export; the static archive links as before), the link
# keeps nnc_* symbols global and everything else local (common/libnncert.map),
# and tests/tools/api_check.py (tests/e2e/layers.sh) checks that the dynamic
# symbol table equals the declared API.  The SONAME carries the major version.
NNC_VERSION := $(shell sed -n 's/^\#define NNC_VERSION_STRING "\(.*\)"/\1/p' include/nncert/nnc.h)
SO_MAJOR := $(firstword $(subst ., ,$(NNC_VERSION)))
$(LIB_OBJ): CFLAGS += -fvisibility=hidden
$(BUILD)/libnncert.so: $(LIB_OBJ) common/libnncert.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libnncert.so.$(SO_MAJOR) -Wl,--version-script=common/libnncert.map -o $@ \
	  $(LIB_OBJ) $(LIBS)

# The plugin: the CUDA objects, the library's members they call (its own
# copies), the CUDA libraries; only the table symbol is exported (gpu/plugin.map).
$(BUILD)/libnncert-gpu.so: $(CU_OBJ) $(LAYER_LIBS) gpu/plugin.map
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=gpu/plugin.map -Wl,--no-undefined -o $@ \
	  $(CU_OBJ) $(LAYER_LIBS) $(LIBS) $(CUDA_LIBS)

# bin/nncert is the default build's binary; other configurations keep theirs
# in their build folder.
ifeq ($(BUILD),build)
NNCERT := bin/nncert
else
NNCERT := $(BUILD)/nncert
bin/nncert: $(NNCERT)
	@true
endif

$(NNCERT): $(CLI_OBJ) $(LAYER_LIBS) | $(GPU_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LAYER_LIBS) $(LIBS)

# (the prerequisites expand twice: a suite's archives are named by its stem)
.SECONDEXPANSION:
$(BUILD)/tests/%: tests/unit/%.c $$(TEST_LIBS_$$*) | $(GPU_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(TEST_LIBS_$*) $(LDFLAGS) $$(pkg-config --cflags --libs check) $(LIBS)

$(BUILD)/tools/%: tests/tools/%.c $(LAYER_LIBS) | $(GPU_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LAYER_LIBS) $(LDFLAGS) $(LIBS)

$(BUILD)/fuzz-replay/%: tests/fuzz/%.c tests/fuzz/replay_main.c $(LAYER_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< tests/fuzz/replay_main.c $(LAYER_LIBS) $(LDFLAGS) $(LIBS)

setup:
	@tests/setup.sh

# The whole suite: unit suites (Check), ONNX conformance, differential tests
# against onnxruntime, CLI end-to-end and bad-input tests, fuzz-corpus replay.
test: setup
	@$(MAKE) --no-print-directory -j$$(nproc) check

check: $(NNCERT) $(BUILD)/libnncert.so $(TEST_BIN) $(TOOL_BIN) $(REPLAY_BIN) $(GPU_PLUGIN)
	@NNCERT=$(NNCERT) BUILD=$(BUILD) tests/run_all.sh

# the CPU-only tree cross-built for aarch64, unit suites under qemu-user
# (not part of make test: emulation takes far longer than the suite)
test-arm64:
	@tests/arm64.sh

demo: setup
	@$(MAKE) --no-print-directory bin/nncert
	@tests/demo.sh

bench: setup
	@$(MAKE) --no-print-directory bin/nncert
	@NNCERT=$(NNCERT) tests/bench/run_bench.sh

# nncert verify on the VNN-COMP instances in ../shared/data/verification,
# scored against the consensus and the published results of the other tools:
# results/verify-vnncomp*.  BENCH_FAMILIES, BENCH_LIMIT, BENCH_TIMEOUT: see the script.
bench-verify: setup
	@$(MAKE) --no-print-directory bin/nncert
	@NNCERT=$(NNCERT) tests/bench/bench_verify.sh

# Groth16 proving over 2 MPI ranks against 1 process of 1 and of 2 threads:
# results/prove-mpi.csv
bench-prove-mpi: setup
	@$(MAKE) --no-print-directory $(NNCERT) $(BUILD)/tools/gen_chain
	@NNCERT=$(NNCERT) BUILD=$(BUILD) tests/bench/bench_prove_mpi.sh

# one verification over 2 MPI ranks against 1 process of 1 and of 2 threads:
# results/verify-mpi.csv
bench-verify-mpi: setup
	@$(MAKE) --no-print-directory $(NNCERT)
	@NNCERT=$(NNCERT) tests/bench/bench_verify_mpi.sh

# ACAS Xu branch-and-bound leaves per CPU second and time to a result, full
# CROWN against the symbolic leaf bounds, same run: results/verify-acas-leaves.csv
bench-acas-leaves: setup
	@$(MAKE) --no-print-directory bin/nncert
	@NNCERT=$(NNCERT) tests/bench/run_bench_acas_leaves.sh

# CROWN margins and time per image on mnist_fc 256x2 against auto_LiRPA's
# recorded numbers: results/crown-mnist.csv
bench-crown: setup
	@$(MAKE) --no-print-directory $(BUILD)/bench/bench_crown
	@BUILD=$(BUILD) tests/bench/run_bench_crown.sh

# alpha-CROWN margins against CROWN on the same images, next to auto_LiRPA's
# recorded alpha-CROWN figures: results/alpha-mnist.csv
bench-alpha: setup
	@$(MAKE) --no-print-directory $(BUILD)/bench/bench_alpha
	@BUILD=$(BUILD) tests/bench/run_bench_alpha.sh

# Sampling throughput of the verifier against the runtime, and samples
# needed with and without the certified-volume reduction: results/sampling-*.csv
bench-sampling: setup
	@$(MAKE) --no-print-directory $(NNCERT) $(BUILD)/bench/bench_sampling
	@BUILD=$(BUILD) NNCERT=$(NNCERT) tests/bench/run_bench_sampling.sh

# MSM and NTT kernels up to 2^20 (points per second from the medians): results/msm.csv
# and beside them the published gnark / rapidsnark figures: results/msm-peers.csv
bench-msm:
	@$(MAKE) --no-print-directory $(BUILD)/bench/bench_prover
	@mkdir -p results
	@$(BUILD)/bench/bench_prover --max-log 20 --reps 3 | tee results/msm.csv
	@awk -F, '$$1 == "g1_msm" { printf "g1_msm n=%s threads=%s: %.0f points/s\n", $$2, $$3, $$2 / $$4 }' results/msm.csv
	@{ echo "machine: $$(nproc) cores, $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"; echo "date: $$(date -u +%Y-%m-%dT%H:%M:%SZ)"; } >results/msm-machine.txt
	@tests/bench/msm_compare.sh

# GCN aggregation (SpMM) on Cora and PubMed against scipy and torch.sparse,
# with the bandwidth bound: results/gnn.csv
$(BUILD)/bench/bench_gnn: CFLAGS += -fopenmp
bench-gnn: setup
	@$(MAKE) --no-print-directory $(BUILD)/bench/bench_gnn
	@BUILD=$(BUILD) tests/bench/run_bench_gnn.sh

# Embedding-bag throughput against torch.nn.EmbeddingBag and the DLRM
# planner against table-/row-wise placement: results/dlrm.csv
bench-dlrm: setup
	@$(MAKE) --no-print-directory $(NNCERT) $(BUILD)/bench/bench_embbag
	@BUILD=$(BUILD) NNCERT=$(NNCERT) tests/bench/run_bench_dlrm.sh

# The instruction-set-specific kernels (prover field and MSM, SpMM, embedding
# bags, sampling and sgemm) on every path this CPU runs, NNC_ISA=generic,
# avx2, avx512: results/isa-paths.csv
bench-isa:
	@$(MAKE) --no-print-directory $(NNCERT) $(BUILD)/bench/bench_prover $(BUILD)/bench/bench_gnn $(BUILD)/bench/bench_embbag $(BUILD)/bench/bench_sampling
	@BUILD=$(BUILD) NNCERT=$(NNCERT) tests/bench/run_bench_isa.sh

# DLRM output bounds with fixed ids: interval against linear (McCormick)
# widths, and nncert verify with linear bounds against --ibp:
# results/dlrm-bounds.csv
bench-dlrm-bounds:
	@$(MAKE) --no-print-directory $(NNCERT)
	@NNCERT=$(NNCERT) tests/bench/run_bench_dlrm_bounds.sh

# Proofs of inference: constraints, witness/prove/verify time, proof size and
# peak memory per model and privacy setting, constraints per MAC, quantised
# accuracy: results/zk.csv, zk.svg, zk-accuracy.csv, zk-published.csv
bench-zk:
	@$(MAKE) --no-print-directory $(BUILD)/bench/bench_zk
	@BUILD=$(BUILD) tests/bench/run_bench_zk.sh

# Groth16 proving time and peak memory against snarkjs on the same keys,
# 2^12, 2^16 and 2^20 constraints (BENCH_PROVE_* in the script): results/prove.csv
bench-prove: setup
	@$(MAKE) --no-print-directory $(NNCERT) $(BUILD)/tools/gen_chain
	@BUILD=$(BUILD) NNCERT=$(NNCERT) tests/bench/run_bench_prove.sh

$(BUILD)/bench/%: tests/bench/%.c $(LAYER_LIBS) | $(GPU_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LAYER_LIBS) $(LDFLAGS) $(LIBS)

FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,build-fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
# fuzz targets are host-only builds: the library without the CUDA and MPI
# paths (gpu/*.c then compile to their CPU-only forms), and without the
# BN254 MULX/ADX assembly (under ASan clang 14 runs out of registers for it
# and crashes; the C field products compute the same values)
FUZZ_SRC := $(filter-out cli/%,$(LIB_SRC))
FUZZ_CPPFLAGS := $(filter-out -DNNC_HAVE_CUDA=1 -DNNC_HAVE_MPI=1,$(CPPFLAGS)) -DNNC_FE4_NO_ASM
build-fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(GEN)/onnx.pb-c.c
	@mkdir -p build-fuzz
	clang -g -O1 -fsanitize=fuzzer,address,undefined $(FUZZ_CPPFLAGS) -std=c11 -o $@ $< $(FUZZ_SRC) $(GEN)/onnx.pb-c.c $(BASELIBS)

fuzz: setup $(FUZZ_TARGETS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run_fuzz.sh

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, both libraries,
# the CUDA plugin with CUDA (found in ../lib from bin/nncert),
# the public headers under include/nncert/ (included as <nncert/model.h>, or all
# of them as <nncert.h>),
# a pkg-config file (pkg-config --cflags --libs nncert; --static adds the
# dependencies of libnncert.a), the man page and the Python package (it finds
# the library in PREFIX/lib, beside its own folder).
PREFIX   ?= /usr/local
# the Python package (python/nncert): Debian's python3 reads PREFIX/lib/pythonX.Y/dist-packages
PYTHON_SITE ?= $(PREFIX)/lib/python$(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)/dist-packages
# (tests/tools/api_check.py reads this list)
PUBLIC_HEADERS := $(wildcard include/nncert/*.h)
install: $(NNCERT) $(BUILD)/libnncert.a $(BUILD)/libnncert.so $(GPU_PLUGIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(NNCERT) $(DESTDIR)$(PREFIX)/bin/nncert
	install -m 644 $(BUILD)/libnncert.a $(DESTDIR)$(PREFIX)/lib/libnncert.a
	install -m 755 $(BUILD)/libnncert.so $(DESTDIR)$(PREFIX)/lib/libnncert.so.$(NNC_VERSION)
	ln -sf libnncert.so.$(NNC_VERSION) $(DESTDIR)$(PREFIX)/lib/libnncert.so.$(SO_MAJOR)
	ln -sf libnncert.so.$(SO_MAJOR) $(DESTDIR)$(PREFIX)/lib/libnncert.so
	$(if $(GPU_PLUGIN),install -m 755 $(GPU_PLUGIN) $(DESTDIR)$(PREFIX)/lib/libnncert-gpu.so)
	@# the public headers (they include only each other: gate.sh compiles each alone against the install)
	install -d $(DESTDIR)$(PREFIX)/include/nncert
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(PREFIX)/include/nncert/
	install -m 644 include/nncert.h $(DESTDIR)$(PREFIX)/include/nncert.h
	install -m 644 man/nncert.1 $(DESTDIR)$(PREFIX)/share/man/man1/nncert.1
	install -D -m 644 python/nncert/__init__.py $(DESTDIR)$(PYTHON_SITE)/nncert/__init__.py
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: nncert' 'Description: robustness certificates and proofs of inference for neural networks' \
	  'Version: $(NNC_VERSION)' \
	  'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lnncert' 'Libs.private: $(strip $(LIBS))' \
	  >$(DESTDIR)$(PREFIX)/lib/pkgconfig/nncert.pc

clean:
	rm -rf build build-cpu build-san build-san-cpu build-fuzz bin

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
