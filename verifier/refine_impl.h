/* Bound refinement for branch-and-bound leaves (internal to the verifier):
 * optimised relaxation slopes (alpha-CROWN, verifier/alpha.c) and ReLU
 * splitting (BaB over unstable neurons, verifier/relusplit.c).
 *
 * Both only ever produce sound lower bounds: any slope in [leak, 1] gives a
 * valid relaxation, and a ReLU split covers its parent (pre-activation >= 0
 * or <= 0), so a leaf whose every ReLU sub-problem is certified (or proved
 * empty) is certified as a whole.  ReLU splits do not cut the input box into
 * measurable pieces: they can only certify an entire input leaf safe, never
 * a fraction of it, so the certified volumes stay those of input leaves. */
#ifndef NNC_REFINE_IMPL_H
#define NNC_REFINE_IMPL_H

#include "nncert/gpu.h"
#include "nncert/team.h"
#include "verifier/bounds_impl.h"

/* The unsafe set of one case: a disjunction of conjunctions of rows
 * C[r] . y <= d[r]; disjunct j owns rows [dstart[j], dstart[j+1]). */
typedef struct nnc_rfn_problem {
    int nrows, ndisj, n_out;
    const double *C, *d;
    const int *dstart;
    /* optional: called by nnc_rsp_certify after each round of sub-problems
     * with the count so far (progress reports), from the calling thread */
    void (*tick)(void *ctx, uint64_t nodes);
    void *tick_ctx;
} nnc_rfn_problem;

/* The variables alpha optimises, one vector: ReLU lower slopes (n_relu),
 * split multipliers (n_relu), sigmoid/tanh line slopes (2 n_smooth, see
 * nnc_bnd_set_smooth_slopes).  init fills it with CROWN's slopes (after
 * nnc_bnd_compute) and zero multipliers. */
int64_t nnc_alpha_param_count(const nnc_bnd *b);
void nnc_alpha_params_init(const nnc_bnd *b, double *a);

/* Optimise the slopes (ReLU lower lines, sigmoid/tanh both lines) and split
 * multipliers for each objective o with lower[o] <= target[o]
 * (projected Adam on the gradient of nnc_bnd_objective_grad, iters steps,
 * stopping once lower[o] > target[o] or at the deadline, a CLOCK_MONOTONIC
 * time in seconds).  In/out: lower[o] (raised to the best bound found, each
 * one sound); lam (n_in per objective, may be NULL) follows the best bound.
 * The slopes are CROWN's again on return.  Call after nnc_bnd_compute. */
nnc_status nnc_alpha_lower(nnc_bnd *b, int nobj, const double *C, const double *target, double *lower, double *lam,
                           int iters, double deadline);
/* The same, each objective o starting from the variables in
 * ab[o * nnc_alpha_param_count ..] instead of CROWN's slopes and zero
 * multipliers (nnc_alpha_params_init), and leaving there those of its best
 * bound (unchanged when none beat lower[o]); ab NULL: nnc_alpha_lower. */
nnc_status nnc_alpha_lower_from(nnc_bnd *b, int nobj, const double *C, const double *target, double *lower,
                                double *lam, int iters, double deadline, double *ab);

/* alpha-CROWN on the hidden layers: the pre-activation bounds of every
 * unstable ReLU neuron and every sigmoid/tanh neuron, in topological order, raised (lower) and lowered
 * (upper) by iters projected Adam steps on the slopes of the layers before
 * it (nnc_bnd_pre_grad), and narrowed in b (nnc_bnd_pre_narrow), so that
 * later neurons, the objectives and saved states see the tighter
 * relaxations.  Stops at the deadline (the neurons left keep CROWN's
 * bounds) or when the problem proves empty.  Out: *narrowed, the neurons
 * whose interval shrank.  Call after nnc_bnd_compute; the slopes are then
 * CROWN's adaptive ones for the new bounds. */
nnc_status nnc_alpha_intermediate(nnc_bnd *b, int iters, double deadline, int64_t *narrowed);

/* Branch and bound over ReLU splits of the box [lo, hi]: certifies that no
 * point of the box reaches the unsafe set.  Depth-first, in rounds: the top
 * nb sub-problems of the stack are bounded in parallel, one per engine
 * bs[0..nb) (engines of the same model, each used by one thread), and their
 * children pushed in batch order, so the tree depends on nb and never on
 * timing.  Each sub-problem is bounded with CROWN (a child warm-started from
 * its parent's bounds, CROWN re-run only after the new split:
 * nnc_bnd_compute_warm), then alpha (alpha_iters steps) on its open rows;
 * the neuron split is chosen by filtered smart branching on the open row
 * closest to certification: among the unstable neurons with the largest
 * BaBSR-style scores |coef| * (-l u / (u - l)), the one whose worse child's
 * bound (nnc_bnd_split_lower) is highest.
 * Out: *certified (1 only when every sub-problem was certified or empty),
 * *nodes (sub-problems bounded).  Stops uncertified at the deadline, after
 * max_nodes sub-problems, or at a sub-problem without unstable neurons.
 * Leaves no splits set in the engines.  Returns ARG when nb < 1. */
nnc_status nnc_rsp_certify(nnc_bnd *const *bs, int nb, const double *lo, const double *hi, const nnc_rfn_problem *p,
                           int alpha_iters, double deadline, uint64_t max_nodes, int *certified, uint64_t *nodes);

/* ---- batched beta-CROWN for ReLU chains (verifier/babdense.c) ----
 *
 * The same certificate as nnc_rsp_certify (every ReLU sub-problem of the box
 * shown to leave each disjunct of the unsafe set impossible), for models
 * that are chains of affine layers with a ReLU after each but the last
 * (nnc_smp_chain_extract_from with NNC_SMP_CHAIN_LINEAR: Gemm, MatMul, Conv,
 * and AveragePool, BatchNormalization, bias and zero Pad composed into
 * them; convolutions stay sparse), perhaps behind an input normalisation
 * and with a ReLU on the output (nnc_bbd_create); or such a chain with
 * residual connections (ResNets: an Add of two branches from the same ReLU
 * output), extracted as a chain that carries the earlier ReLU outputs
 * through the ReLU layers between as extra, always active neurons
 * (nnc_smp_chain_extract_res: relu(h) = h for h >= 0, so CROWN through the
 * carried neurons is CROWN through the residual graph; they are never
 * split, and a split of the original fixes its copy too, since the copy
 * only passes the original's relaxed output on), computed for many
 * sub-problems at once:
 * each round takes the top `batch` sub-problems of a depth-first stack and
 * bounds one objective row per disjunct still open in each (an "item"),
 * the items of a round stacked as the rows of one matrix product per layer
 * (OpenBLAS, chunks of items on the threads).
 *
 * Bounds.  Each sub-problem carries its own ReLU pre-activation bounds:
 * the root's are the caller's (rl, rh), with root_iters first tightened
 * by alpha-CROWN on the hidden layers, layer by layer, every unstable
 * neuron's two bounds an item of the same batched optimisation as the
 * objectives (below).  With root_splits, where the root's rows stay open
 * after that, the hidden layers are tightened again, and after each
 * layer's alpha its neurons still unstable get a branch and bound of
 * their own: each bound sgn z >= t over splits of the layers before it,
 * every tree's worst leaf split per round (the trees batched together,
 * a child warm-started from its parent, a few Adam steps), a leaf closed
 * once its bound passes 0, the tree's bound the least over its leaves
 * (they cover the box), up to root_splits splits per bound and within
 * the root's time (a quarter, at most root_max_s), shared equally by the
 * layers left.  It stands in for the MILP of the first layers in
 * alpha-beta-CROWN's bab-refine: on MNIST 256x4 prop_0 eps 0.05, the
 * unstable neurons of the second and last hidden layers are 86 and 67
 * after alpha, 62 and 25 after 32 splits per bound (20 steps per child),
 * and the instance is certified in 5.7 s, open after 60 s without.  A
 * child takes its parent's bounds with the
 * split neuron clamped at 0 and, before it is bounded, every unstable,
 * unsplit neuron of the layers after the split gets CROWN's lower and upper
 * bound with the child's splits and bounds (one batched product per layer
 * over the round's sub-problems), intersected with what it had; bounds that
 * cross prove the child empty.  With interm_iters, those bounds are
 * optimised instead, each with its own slopes and the child's split
 * multipliers (alpha-beta-CROWN's enable_opt_interm_bounds), started from
 * the variables the child inherited for its first open objective: a split
 * then narrows the later layers' bounds, where CROWN's rarely improves on
 * what the root's refinement left (MNIST 256x4 prop_7 eps 0.05, 300 s: the
 * share of the root's ReLU-split space closed by the end was 0.73 with
 * CROWN, 0.93 with 5 steps from CROWN's slopes, 0.99 from the warm start,
 * at a ninth of the sub-problems per second).  With interm_share, the
 * search's first share of its time keeps CROWN's bounds, so what they
 * settle quickly is not slowed.  With interm_loss_share, a layer's bounds
 * are optimised only for the fewest neurons that carry that share of the
 * relaxation loss of the parent's hardest objective (BaBSR's score, from
 * the coefficients that chose the split), the others keeping theirs: a
 * sub-problem then optimises fewer bounds (MNIST 256x4 prop_7 eps 0.05,
 * share 0.4: 2.2 to 4 times the sub-problems per second, and more of the
 * split space closed by 150 s; see verify.c).  Every item's bound is then CROWN's
 * back-substitution with its own lower slopes alpha in [0, 1] and split
 * multipliers beta >= 0 (beta-CROWN: on s z >= 0, f >= f - beta s z),
 * optimised by projected Adam in float32 (gradient from the relaxed
 * network's forward values at the minimising input), the best estimate's
 * variables then bounded soundly in float64.  A child starts from its
 * parent's variables (the new split's multiplier at 0).
 *
 * Soundness in floating point: round to nearest, every error bounded.  A
 * product lambda = mu W^T of sums of at most N terms errs by gamma |mu| |W|
 * (Higham 3.5, any order, FMA or not), so the bound errs by at most
 * gamma |mu| . (|W| hmax) with hmax >= |h| on the leaf (its ReLU bounds);
 * mu . b by gamma |mu| . |b|; each coefficient mu_j = lambda_j alpha_j,
 * lambda_j au_j or lambda_j - beta_j by 2 eps |mu_j| zmax_j; intercept sums
 * and the box's concretisation by gamma times their absolute sums; the
 * upper lines (nnc_bnd_relax_relu) hold in exact arithmetic.  A layer's
 * stored weights may themselves differ from the model's exact ones (a
 * composition, an average's 1/count; bounds werr, berr per weight, see
 * chain_lin.c): that adds |mu_j| (sum_i werr_ij hmax_i + berr_j).  The sum of
 * these, inflated, is subtracted from the computed bound.  Sparse layers
 * sum fewer terms than the dense bound counts, in another order: gamma
 * holds for them too.
 *
 * Wide layers (convolutions): Adam touches only the variables with a
 * gradient (unstable neurons' slopes, split neurons' multipliers), and the
 * forward pass computes only their neurons on the last layer it needs.
 *
 * Branching: filtered smart branching on the item of the hardest open
 * disjunct: the `fsb` unstable, unsplit neurons with the best BaBSR-style
 * score |coef| (-l u / (u - l)), coef the item's coefficients with CROWN's
 * slopes and no multipliers; each tried on both sides by one float32
 * back-substitution from the item's optimised variables, the one whose
 * worse side bounds highest split.  (MNIST, sub-problems to certify,
 * without root alpha: 256x4 prop_8 eps 0.03 683, 256x2 prop_10 eps 0.05
 * 217; candidates by the
 * optimised coefficients instead leave both open past 40000, as they favour
 * the last layers, whose splits the multipliers already hold; trials with
 * CROWN's slopes too leave the second open.)  A disjunct an item kills
 * stays dead in the sub-problem's children.
 *
 * The tree depends on the batch and on OpenBLAS's rounding (the CPU's
 * kernels), never on the thread count; with root_splits, the root's bounds
 * also depend on how many splits the refinement fitted into its time
 * (refinement that stops on a budget alone, as in the unit tests, gives
 * the same tree on every run), and with interm_share on when the search
 * reached its switch to optimised hidden bounds. */
/*
 * Teams (nnc_bbd_opts.team, mpirun -np N nncert verify): the ranks of a
 * team each hold the whole search (its stack, bounds and warm starts, as
 * one process would) and split every pass: the pass's chunks of items are
 * cut into size contiguous ranges in rank order (nnc_team_share), each rank
 * bounds its own range on its threads (or device), and one all-gather gives
 * every rank every item's bound, variables and coefficients.  What a pass
 * writes is thus the same bytes on every rank, and every decision taken
 * between passes (splits, candidates, children, memory) is taken alike, so
 * that the tree is the one a single process grows, with the same chunks.
 * The variables a pass optimised travel as a diff against the pass's
 * input (which every rank holds), and not at all where nothing reads them
 * after the pass.  The decisions by time use an agreed clock: the slowest
 * rank's time since the search began as of the last exchange (each
 * exchange carries it), counted from the same epoch on every rank, and the
 * deadline the earliest rank's, so that every rank compares the same
 * doubles; a chunk's own skip past the deadline is local, its bound (-inf)
 * exchanged like any other.  The first exchange compares a digest of the
 * box, the bounds, the problem and the options: a rank that searches
 * something else ends the search with INVALID, naming it, as does a rank
 * out of step (every exchange carries its number).  Every rank's last
 * exchange carries the status it ends with, so that a rank that failed on
 * its own (out of memory) ends the others' search too, named; an exchange
 * that fails (a rank died or stalled: the team's time-out) ends the search
 * with its status on the ranks that see it. */
#define NNC_BBD_FSB_CANDIDATES 8
/* Memory of the stacked sub-problems (bounds, warm starts): past the first
 * children start cold; past the second the search ends uncertified.  The
 * stack holds about depth x batch sub-problems: batch 256 at depth 80 is
 * 20000, about 1.5 GB of bounds on MNIST 256x6 (75 KB each).  The two
 * children of a split share one copy of their warm start, and of their
 * bounds when the split is in the last hidden layer (nothing to re-tighten). */
#define NNC_BBD_WARM_BYTES ((size_t)2 << 30)
#define NNC_BBD_MAX_BYTES ((size_t)8 << 30)

typedef struct nnc_bbd nnc_bbd;

/* Out: *out, read-only afterwards (one may serve several threads); it
 * borrows m's constants (destroy it first).  Leading elementwise maps of
 * the input by constants (Sub, Add, Mul, Div: a normalisation) are applied
 * to the box, outward-rounded; a ReLU on the output becomes one more ReLU
 * layer (an identity layer after it).
 * Returns OK; UNSUPPORTED (err says why) for a model that is not such a
 * chain; NOMEM. */
nnc_status nnc_bbd_create(nnc_bbd **out, const nnc_model *m, char *err, size_t errlen);
void nnc_bbd_destroy(nnc_bbd *e);
/* The chain's ReLU neurons (the bounds' order inside the search, and of
 * nnc_bbd_opts.root_rl, root_rh), and the model's (nnc_bnd's order, that
 * of the bounds nnc_bbd_certify takes): equal, and the same neurons, but
 * for a residual net, whose chain carries earlier ReLU outputs through the
 * ReLU layers after them as extra neurons (nnc_smp_chain_extract_res). */
int64_t nnc_bbd_relu_count(const nnc_bbd *e);
/* 1 when every layer of the chain is a dense product (no convolution or
 * other sparse layer), else 0. */
int nnc_bbd_is_dense(const nnc_bbd *e);
int64_t nnc_bbd_model_relu_count(const nnc_bbd *e);
/* 1 when the search's passes can run on the GPU (nncert/gpu.h: a dense chain
 * without Anderson's variables). */
int nnc_bbd_gpu_ok(const nnc_bbd *e);
/* Out: *out, a device context for e's passes (nnc_bbd_opts.gpu), freed with
 * nnc_gpu_bab_destroy.  Returns OK; UNSUPPORTED where !nnc_bbd_gpu_ok or
 * without CUDA; DEVICE without a device or plugin (err says which). */
nnc_status nnc_bbd_gpu_create(const nnc_bbd *e, nnc_gpu_bab **out, char *err, size_t errlen);

/* Test hooks (tests/unit/test_gpu_bab.c): one pass of the search over the
 * box [lo, hi] (after the chain's input maps) with ReLU bounds rl, rh (nr
 * each, the chain's neurons; not for residual chains) and splits split (nr,
 * or NULL: none) on one thread, on the CPU (gpu NULL) or the device: items
 * the objective rows of p (ktop = L - 1) or both bounds of every neuron of
 * layer ktop (item 2j: the lower bound of z_j, 2j + 1: minus its upper);
 * mode as a pass's (>= 0: that many Adam steps, then sound; -1: the float32
 * estimate; -2: sound with CROWN's slopes).  ab: per item 2 nr variables
 * (mode != -2; optimised in place); out: lower (per item), coef (per item nr,
 * or NULL; filled for mode -1).  Returns OK, ARG, NOMEM, DEVICE (the device
 * failed). */
nnc_status nnc_bbd_test_pass(const nnc_bbd *e, const double *lo, const double *hi, const double *rl, const double *rh,
                             const signed char *split, const nnc_rfn_problem *p, int ktop, int mode,
                             nnc_gpu_bab *gpu, float *ab, double *lower, float *coef, char *err, size_t errlen);
/* CROWN's adaptive slopes and zero multipliers for the bounds rl, rh into
 * ab (2 nr floats; the search's start). */
void nnc_bbd_test_init_vars(const nnc_bbd *e, const double *rl, const double *rh, float *ab);
/* Items per chunk of e's passes from now on (the model's by default):
 * small ones give small nets passes of many chunks, for the teams' tests;
 * diff_copy 1: a team's passes find the variables they changed from a copy
 * of the rank's range taken before the pass, as passes on the device do
 * (0: per chunk, as on the CPU).  Returns 0, or -1 with chunk outside
 * [1, 256] (nothing changed). */
int nnc_bbd_test_tune(nnc_bbd *e, int chunk, int diff_copy);

typedef struct nnc_bbd_opts {
    int threads;        /* chunks of items bounded in parallel */
    int batch;          /* sub-problems per round */
    int iters;          /* Adam steps per item and round */
    int fsb;            /* branching candidates, 1 .. NNC_BBD_FSB_CANDIDATES */
    int root_iters;     /* > 0: alpha-CROWN on the root's hidden layers first (this many
                           steps per neuron bound, within a quarter of the time, at most
                           root_max_s) */
    double deadline;    /* nnc_rfn_now() seconds */
    uint64_t max_nodes; /* sub-problems */
    int root_splits;    /* > 0 (with root_iters), where alpha leaves the root open: ReLU splits
                           for the root's hidden neurons that alpha leaves unstable, up to this
                           many per bound (see Bounds above) */
    double *root_rl, *root_rh; /* optional out (nr each): the root's bounds the search starts from */
    double root_max_s;  /* > 0: the root's tightening (alpha, splits) ends within this many seconds
                           even where a quarter of the time is more */
    size_t root_split_bytes; /* > 0: memory for the root splits' open leaves (default 256 MB);
                                where their trees would not have room, only the neurons with the
                                widest relaxations get one */
    int interm_iters;   /* > 0: the hidden-layer bounds a sub-problem re-tightens after its
                           split get this many Adam steps of their own slopes and multipliers,
                           warm-started from the sub-problem's (see Bounds above); 0: CROWN's */
    double interm_share; /* with interm_iters: CROWN's bounds for this share of the time the
                            search has after the root (0: none), optimised ones after it */
    double interm_loss_share; /* with interm_iters, in (0, 1): in each layer only the neurons
                                 that carry this share of the parent's hardest objective's
                                 relaxation loss are re-tightened (see Bounds above); else all */
    nnc_gpu_bab *gpu;   /* or NULL: the passes run on this device context (nnc_bbd_gpu_create;
                           where nnc_bbd_gpu_ok); calls from several searches are serialised */
    char *gpu_err;      /* with gpu: where the device failed, why (gpu_errlen bytes); the search
                           then finishes on the CPU and returns DEVICE, nothing certified */
    size_t gpu_errlen;
    const nnc_team *team; /* or NULL: every rank of the team searches the same box together
                             (see Teams below); each rank calls with the same arguments but
                             its own threads, gpu and deadline */
    char *team_err;     /* with team: why an exchange failed (team_errlen bytes) */
    size_t team_errlen;
} nnc_bbd_opts;

/* Certify the box [lo, hi] with ReLU pre-activation bounds rl, rh (the
 * nnc_bnd ReLU order, nnc_bbd_model_relu_count each) against the unsafe
 * set p.
 * Out: *certified (1 only when every sub-problem was certified), *nodes
 * (sub-problems bounded).  Stops uncertified at the deadline (checked
 * before each round and between the chunks of a round's main pass, whose
 * sub-problems then do not count, and of its re-tightening and the root's
 * alpha passes, whose bounds not computed stay as they were), after max_nodes, past
 * NNC_BBD_MAX_BYTES, or at an open sub-problem without unstable neurons
 * (after 10 x iters more steps).
 * Returns OK, ARG (p's output count is not the model's), NOMEM; with a
 * team, INVALID or the team's status where the ranks disagree or an
 * exchange failed (team_err says which rank). */
nnc_status nnc_bbd_certify(nnc_bbd *e, const double *lo, const double *hi, const double *rl, const double *rh,
                           const nnc_rfn_problem *p, const nnc_bbd_opts *o, int *certified, uint64_t *nodes);

/* CLOCK_MONOTONIC seconds. */
double nnc_rfn_now(void);

#endif
