# Sourced by the benchmark scripts (from the repository root): facts about
# this machine for their *-machine.txt files.

# The CPU flags that choose nncert's instruction-set paths (AVX2 kernels,
# AVX-512 and IFMA kernels, the BMI2/ADX field products), in one order,
# each followed by a space.
nnc_bench_cpu_flags() {
    local f
    for f in avx2 fma avx512f avx512ifma bmi2 adx; do
        grep -qw "$f" /proc/cpuinfo && printf '%s ' "$f"
    done
    return 0
}

# One line for a machine file: cores, CPU model and the flags above.
nnc_bench_machine() {
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), CPU flags: $(nnc_bench_cpu_flags)"
}
