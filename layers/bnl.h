/*
 * bnl.h - the basic neural layer (BNL) engine: H = act(dist(W, X)).
 *
 * One operation for m neurons (rows of W, n values each) over a batch X of
 * N samples, computed into caller memory, on a backend chosen at run time
 * through a context (no global backend state).
 *
 * Layouts (all row-major):
 *   W: m x n, element type op->dtype   (centroids or weight rows)
 *   X: N x n, element type op->dtype   (samples)
 *   H: N x m with leading dimension ldh >= m; float for u8/f32, double for f64
 *
 * Distances: L1 = sum_k |x_k - w_k|; L2 = sqrt(sum_k (x_k - w_k)^2) (the
 * kernels below take care of the square); dot = sum_k x_k * w_k.
 * Activations, r = op->radius:
 *   triangular h = max(0, 1 - d / (2.5066 r))
 *   Gaussian   h = exp(-d^2 / (2 r^2))
 *   tanh       h = tanh(d)          (the MUL neuron with dist = dot)
 *   identity   h = d                (raw distances or dot products)
 * u8 distances are exact integers (L1 sums of |a-b|, L2 sums of squares).
 *
 * The activation, exactly (so that every backend gives the same bits from
 * the same distances; layers/act.h has the code):
 *   f64 outputs: double arithmetic with libm, v = the distance (L1), the
 *     squared distance (L2) or the dot product:
 *       tri   max(0, 1 - d / (2.5066 r))       d = v (L1) or sqrt(v) (L2)
 *       gauss exp(-d2 / (2 r^2))               d2 = v*v (L1) or v (L2)
 *       tanh  tanh(v)      ident d (L1, dot) or sqrt(v) (L2)
 *   float outputs (u8, f32): float arithmetic, no FMA contraction, with
 *     a = (float)(1 / (2.5066 r)) and g = (float)(1 / (2 r^2)):
 *       tri   h = 1 - d * a; h = h > 0 ? h : 0 d = v or sqrtf(v) (L2)
 *       gauss h = bnl_expf(-(d2 * g))          d2 = v*v (L1) or v (L2)
 *       tanh  h = bnl_tanhf(v)                 ident as for f64
 *     where bnl_expf / bnl_tanhf are the float polynomials of act.h
 *     (within 2e-7 of libm). u8 distances enter as (float)(int32).
 * u8 limits: L2 and dot need n <= 33025 (int32 sums of 255^2 terms).
 */
#ifndef FSVC_BNL_H
#define FSVC_BNL_H

#include "bnl_types.h" /* bnl_op, the enums and their names */

#ifdef __cplusplus
extern "C" {
#endif


/* Opens a context. backend "ref", "cpu" or "cuda"; threads <= 0 means all
 * cores. A "cuda" request with no usable device prints one line and falls
 * back to "cpu" unless strict, in which case it fails with FSVC_ERESOURCE.
 * A failed open holds nothing: there is no context to close.
 * FSVC_ARCH=ref|scalar|avx2|avxvnni|avx512|avx512vnni|avx512bf16|onednn|amx in the environment overrides cpuid
 * (ref: the CPU backend runs the oracle loops of layers/ref.c).
 * Threads: ctx->threads is the one thread count of everything fsvc runs on
 * the context: the CPU backend's OpenMP teams (num_threads(ctx->threads),
 * never the OpenMP default) and every OpenBLAS/LAPACK call, which the
 * engine brackets with bnl_blas_threads_push/pop (1 thread inside a team,
 * ctx->threads outside one). OpenBLAS's count is process-wide: do not run
 * GEMM ops from several threads of the caller at once. On a "cuda"
 * context bnl_forward and bnl_actsum run u8, f32 and f64 on the device;
 * bnl_scores computes H and Y = H R there for u8 and f32 (only Y comes
 * back), f64 scores on the CPU. */
int bnl_ctx_open(bnl_ctx *ctx, const char *backend, int threads, int strict,
                 fsvc_error *err);
void bnl_ctx_close(bnl_ctx *ctx);
/* As bnl_ctx_open(ctx, "cuda", ...) on the device backend dev (its table,
 * layers/bnl_backend_ops.h; NULL: the built-in CUDA one): e.g. a host-emulated
 * device in tests (tests/util/emu_device.c). The context holds the table;
 * nothing is process-wide. */
int bnl_ctx_open_device(bnl_ctx *ctx, const bnl_backend_ops *dev, int threads, int strict,
                        fsvc_error *err);
/* As bnl_ctx_open, with dev the device table a "cuda" backend opens
 * (NULL: the built-in; ignored for ref and cpu): fsvc_param.device. */
int bnl_ctx_open_with(bnl_ctx *ctx, const char *backend, const bnl_backend_ops *dev,
                      int threads, int strict, fsvc_error *err);
/* A copy of ctx that runs on the host: the CPU table (a ref context stays
 * ref), no device state, threads (<= 0: ctx's). For small host work next
 * to a device session (fsvc/novelty.c's resolves); never closed. */
bnl_ctx bnl_ctx_host(const bnl_ctx *ctx, int threads);

/* H = act(dist(W, X)). */
int bnl_forward(const bnl_ctx *ctx, const bnl_op *op,
                void *H, int64_t ldh,               /* N x m */
                const void *W, int64_t m,           /* m x n */
                const void *X, int64_t N, int n,    /* N x n */
                fsvc_error *err);

/* W (m x n) held unchanged by the caller until bnl_weights_release: the
 * CPU backend keeps what its f32 L2 / dot layers derive from W (|w|^2,
 * the bf16 copy of --precision bf16, oneDNN's packed W) for every call on
 * ctx with this W, m and n, instead of making it per call (a pcg solve's
 * chunks, predict's chunks). Holds nest (counted); the kept copies go
 * with the last release (or bnl_ctx_close). W must not change while held:
 * calls would use the old W's copies. 0, or -1 when nothing can be kept
 * (no room, a ref context): calls then work as without a hold. */
int bnl_weights_hold(const bnl_ctx *ctx, const void *W, int64_t m, int n);
void bnl_weights_release(const bnl_ctx *ctx, const void *W, int64_t m, int n);

/* Activation sums S[i] += sum_{j=0..m-1} h(x_i, w_j), accumulated in
 * float64 in increasing j for each sample (the FSVC novelty test). H is
 * not materialised. Exactly: s = S[i]; for j = 0..m-1: s += (double)h_ij;
 * S[i] = s. Threads split the samples, never the neurons, so the sums are
 * the same bits for any thread count. */
int bnl_actsum(const bnl_ctx *ctx, const bnl_op *op,
               double *S,                            /* N */
               const void *W, int64_t m,
               const void *X, int64_t N, int n,
               fsvc_error *err);

/* How many samples a caller should give each bnl_scores call: all N on a
 * device (W and R go up once, only Y comes back), host_rows on the host. */
int64_t bnl_scores_rows(const bnl_ctx *ctx, int64_t N, int64_t host_rows);

/* Readout scores Y = H R without materialising all of H:
 * Y: N x K (float64), R: m x K (float64), Y is overwritten. */
int bnl_scores(const bnl_ctx *ctx, const bnl_op *op,
               double *Y,                            /* N x K */
               const void *W, int64_t m,
               const void *X, int64_t N, int n,
               const double *R, int K,               /* m x K */
               fsvc_error *err);

/* Y (N x K, overwritten) = H R for an f32 H (N x m) already in host
 * memory (the sparse layer's): on ctx's threads by row blocks, each with
 * the tier's score kernel (bnl_scores_cpu_path; a fixed fma order per
 * row, the same bits for any thread count) or a dgemm on the block
 * widened to double. FSVC_ERESOURCE when out of memory. */
int bnl_scores_host(const bnl_ctx *ctx, double *Y, const float *H, int64_t N, int64_t m,
                    const double *R, int K, fsvc_error *err);

/* ---- the ridge normal equations ----
 * (H^T H + lam I) R = H^T T. On a device that offers them (u8 and f32
 * layers) H is computed and consumed there (f64 products, Cholesky by the
 * device's solver); only diag(H^T H), H^T T and R come back. Else the CPU
 * table's (layers/cpu_normal.c: class-ordered chunks of H, syrk of the
 * active columns, bnl_chol). A device that cannot (FSVC_ERESOURCE) says
 * so in one line and the CPU accumulates instead. open: opt as
 * bnl_normal_opt says (NULL: defaults). accum: G = H^T H and B = H^T T
 * over all samples, T one-hot of cls (K columns) or y (K = 1); diag: m,
 * B: m x K column-major; cw: class weights (K doubles, with cls; NULL:
 * none), then G = H^T D H and B = H^T D T with D = diag(cw[cls_i]).
 * times: the seconds of H and of its products in the last accum (a
 * device: all in t_g). gram: with host_gram, the host G (m x m, both
 * triangles, dtype *t) for the caller to change in place (the sum over
 * processes), then diag: diag(G) again into dg and for the solve. solve:
 * R (m x K column-major) from G + lam I; *info > 0 when not positive
 * definite at that column (then call again with a larger lam: G is
 * kept), < 0 LAPACK's refusal, BNL_CHOL_NOMEM out of memory. */
int bnl_normal_open(const bnl_ctx *ctx, const bnl_op *op, const bnl_normal_opt *opt,
                    bnl_normal **out, fsvc_error *err);
int bnl_normal_accum(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                     const void *X, int64_t N, int n, const int *cls, const double *y,
                     const double *cw, int K, double *diag, double *B, fsvc_error *err);
void bnl_normal_times(const bnl_normal *s, double *t_h, double *t_g);
int bnl_normal_gram(bnl_normal *s, void **G, fsvc_dtype *t, fsvc_error *err);
void bnl_normal_diag(bnl_normal *s, double *dg);
int bnl_normal_solve(bnl_normal *s, double lam, double *R, int *info, fsvc_error *err);
void bnl_normal_close(bnl_normal *s); /* NULL is fine */
/* The block products of an iterative solver (the PCG of the issue "a
 * readout that scales") on the device, one pass over the samples each,
 * nothing N x m back: B = H^T T (m x K column-major, T as in accum) with
 * *sumsq = trace(H^T H); Y = H^T (H V) (V, Y: m x K column-major). */
int bnl_normal_rhs(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                   const void *X, int64_t N, int n, const int *cls, const double *y,
                   int K, double *B, double *sumsq, fsvc_error *err);
int bnl_normal_apply(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                     const void *X, int64_t N, int n, const double *V, int K, double *Y,
                     fsvc_error *err);

/* ---- the block products of an iterative ridge solver (fsvc/pcg.c) ----
 * On the problem pb (bnl_types.h bnl_hprod_problem): rhs B = H^T T (m x
 * K column-major) with *sumsq = trace(H^T H); apply Y = H^T (H V) (V, Y
 * m x K column-major), one pass over the samples each; kmm K_mm =
 * act(dist(C, C)) (m x m row-major, float with f32 == 1, else double);
 * stats: bnl_hprod_stats. Where: the context's table's own products
 * (the CPU table's, layers/cpu_hprod.c: H chunks by bnl_forward, GEMM on
 * each, float sums over groups of chunks); a device that lists none but
 * offers the normal products for the layer gets the engine's over them
 * (layers/dev_hprod.c: one bnl_normal handle, each product one
 * bnl_normal_rhs / _apply pass per batch, nothing N x m back; class
 * weights as per-class batches), except with sample weights (sw) or a
 * CSR source (pb->csr: H chunks by bnl_sparse_forward, then the same
 * loop), which only the CPU's take; else, or when the device cannot open its products
 * (FSVC_ERESOURCE: one line with opt->notes), the CPU table's. opt NULL:
 * all 0. The results do not depend on the thread count. */
int bnl_hprod_open(const bnl_ctx *ctx, const bnl_hprod_problem *pb, const bnl_hprod_opt *opt,
                   bnl_hprod **out, fsvc_error *err);
int bnl_hprod_rhs(bnl_hprod *h, double *B, double *sumsq, fsvc_error *err);
int bnl_hprod_apply(bnl_hprod *h, double *Y, const double *V, fsvc_error *err);
int bnl_hprod_kmm(bnl_hprod *h, void *Kmm, int f32, fsvc_error *err);
void bnl_hprod_stats_get(const bnl_hprod *h, bnl_hprod_stats *st);
void bnl_hprod_close(bnl_hprod *h); /* NULL is fine */
/* How the CPU table's products run on ctx's tier for a cached H of
 * bnl_hfmt h16 (bf16, f16 or float): "fused" (*tier: the kernel table with
 * kernels.h hgram), else "gemm" (two sgemm calls a block, a 16-bit H
 * widened first; *tier: onednn-sgemm or openblas-sgemm). */
const char *bnl_hprod_cpu_path(const bnl_ctx *ctx, int h16, const char **tier);
/* How bnl_scores adds a u8 / f32 layer's H tiles times R on ctx's tier:
 * "fused" (*tier: the kernel table with kernels.h hscore), else "gemm"
 * (*tier: openblas-dgemm, H widened to double). */
const char *bnl_scores_cpu_path(const bnl_ctx *ctx, const char **tier);
/* The ridge solver "auto" picks on ctx for op (bnl_types.h
 * bnl_ridge_plan): the table's rule where it offers the normal products
 * for op (cuda: direct while the float64 Gram fits the device's free
 * memory, pcg across processes), else the CPU table's (pcg from p->pcg_m
 * centroids). Prints nothing: p->why has the words. */
void bnl_plan_ridge(const bnl_ctx *ctx, const bnl_op *op, bnl_ridge_plan *p);

/* ---- the online LMS readout ----
 * One epoch of fsvc/readout.c's LMS: the samples in order, targets
 * one-hot of cls (K classes), per sample e = t - z.R, then R += eta z e
 * (R: m x K row-major float64, in and out). *bad: -1, or the first sample
 * (0-based) whose e is not finite (the pass stops there). On a device that
 * offers it (u8 and f32 layers) H is computed and consumed there, only R
 * and the status come back; else the CPU table's epoch (H from
 * bnl_forward per chunk, the update on the host). */
int bnl_lms_epoch(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                  const void *X, const int *cls, int64_t N, int n, int K, double eta,
                  int64_t *bad, fsvc_error *err);
/* The same with per-sample weights sw (N values > 0, or NULL: all 1):
 * sample i's step is eta sw[i] (a weight of w counts as w steps of one
 * for small eta). Weights run the CPU table's epoch on any context. */
int bnl_lms_epoch_w(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                    const void *X, const int *cls, const double *sw, int64_t N, int n, int K,
                    double eta, int64_t *bad, fsvc_error *err);
/* ---- the novelty pass's centroids (issue 10) ----
 * open: a session of centroids of n elements (cap a hint: stores grow by
 * doubling), on the context's device when it offers the session for op
 * (then each row is uploaded once), with a host store always (the CPU
 * table's session: the sums when no device runs them, and the rows a
 * device store that cannot grow falls back to). add: append rows (rows x
 * n of op->dtype). sums: S[i] += sum_j h(x_i, c_j) over all centroids
 * added so far, float64 in increasing j (bnl_actsum's rule and bits); on
 * a device only X's rows and S go up, only S comes back. one: T[i] +=
 * h(x_i, c) for one row c (a centroid just accepted, not added yet), on
 * one host thread while a device session runs (else as small sums). */
int bnl_novelty_open(const bnl_ctx *ctx, const bnl_op *op, int n, int64_t cap,
                     bnl_novelty **out, fsvc_error *err);
int bnl_novelty_add(bnl_novelty *s, const void *C, int64_t rows, fsvc_error *err);
int bnl_novelty_sums(bnl_novelty *s, double *S, const void *X, int64_t N, fsvc_error *err);
int bnl_novelty_one(bnl_novelty *s, double *T, const void *c, const void *X, int64_t N,
                    fsvc_error *err);
void bnl_novelty_close(bnl_novelty *s); /* NULL is fine */
/* ---- k-means++ seeding's min distances (issue 10) ----
 * open: X (N x n of op->dtype, kept by the caller until close), D2 (N) at
 * +inf, on the context's device when it offers the session for op and X
 * fits its memory (uploaded once), else the CPU table's. update: D2[i] =
 * min(D2[i], d(x_i, c_j)^2) over the B rows of C (B x n), d the layer's
 * distance (op's activation is ignored: identity), squared in float64
 * from the float distance; D2 (N, out) is the session's after the
 * update. On a device per update only C goes up and D2 comes back. */
int bnl_mind_open(const bnl_ctx *ctx, const bnl_op *op, const void *X, int64_t N, int n,
                  bnl_mind **out, fsvc_error *err);
int bnl_mind_update(bnl_mind *s, const void *C, int64_t B, double *D2, fsvc_error *err);
void bnl_mind_close(bnl_mind *s); /* NULL is fine */

/* The tiling the planner would use for this call on ctx. */
bnl_plan bnl_plan_for(const bnl_ctx *ctx, const bnl_op *op,
                      int64_t m, int64_t N, int n);

/* ---- the measured peak of a CPU kernel (layers/peak.c) ----
 * plan_mix: the instruction mix plan's kernel runs per synapse for op (an
 * id > 0), 0 when none is probed (ref, scalar, cuda, an OpenBLAS core
 * without FMA). mix_peak: synapses per CPU second summed over `threads`
 * threads running a register-only probe of the mix at once (tens of ms),
 * 0 when the CPU lacks the mix. mix_rate: units of the mix per CPU second
 * of the calling thread; mix_syn: synapses per unit. */
int bnl_plan_mix(const bnl_plan *plan, const bnl_op *op);
const char *bnl_mix_name(int mix);
int bnl_mix_syn(int mix);
int bnl_mix_supported(int mix);
double bnl_mix_rate(int mix);
double bnl_mix_peak(int mix, int threads);

/* ---- CPU architecture selection ---- */
/* The arch cpuid gives, or FSVC_ARCH when set and runnable; why (may be
 * NULL) gets one line saying which and why. */
bnl_arch bnl_arch_detect(char *why, size_t len);
/* Sets the CPU kernels of an open context (tests, bench); FSVC_EUSAGE if
 * this CPU cannot run them. */
int bnl_ctx_set_arch(bnl_ctx *ctx, bnl_arch arch, fsvc_error *err);
/* What arch runs on the CPU backend: "ref" (layers/ref.c) or the name of
 * the kernel table (an arch the CPU lacks falls back to the best below). */
const char *bnl_arch_kernels(bnl_arch arch);
/* The distance kernels of arch alone, single-threaded, for benchmarks:
 * D (N x m, ldd) = dist(X rows, W rows) with op->dist L1 (any dtype) or
 * L2 squared or dot (u8: the dot kernel, or where a tier has none the L2
 * kernel it is derived from), D float, double or int32 by dtype. FSVC_EUSAGE for
 * another op. */
int bnl_kernel_dist(bnl_arch arch, const bnl_op *op, void *D, int64_t ldd,
                    const void *W, int64_t m, const void *X, int64_t N, int n,
                    fsvc_error *err);

/* ---- the dense kernels of the ridge solves (layers/chol.c) ----
 * Results that do not depend on the thread count.
 *
 * OpenBLAS's threaded dsyrk and dpotrf split the work by the thread count
 * and round differently for each count, so a model trained with --threads
 * 1 and --threads 2 differed in its bytes (issue 14, point 11). These
 * functions cut the work into fixed blocks of BNL_CHOL_NB columns, whatever
 * the thread count, run each block as one single-threaded BLAS/LAPACK call
 * and spread the blocks over ctx->threads OpenMP threads: every block is
 * computed the same way in the same order of updates, so the bits are
 * those of one thread. The Cholesky factor is right-looking blocked
 * (potrf of the diagonal block, trsm of the panel below it, syrk/gemm of
 * the trailing columns), which also gives it progress per panel.
 *
 * Matrices are column-major lower (the same memory as row-major upper);
 * f32: float, else double. */
#ifndef BNL_CHOL_NB
#define BNL_CHOL_NB 256
#endif

/* Progress of a factorisation, printed through fsvc_printf when non-NULL
 * and the factorisation has run for more than `after` seconds (the
 * solvers: 0.5): "\r<label>: Cholesky NN% of M columns, ETA S s", at most
 * every 0.25 s, then "<label>: Cholesky done in S s" and a newline. */
typedef struct bnl_chol_progress {
    const char *label;
    double after;
} bnl_chol_progress;

/* A (m x m, lda) = L L^T in place (lower triangle; the upper one is not
 * touched). Returns LAPACK's info: 0, > 0 the column (1-based) where A is
 * not positive definite, < 0 a NaN/argument refusal of LAPACKE, or
 * BNL_CHOL_NOMEM. */
#define BNL_CHOL_NOMEM (-1000)
int bnl_chol(const bnl_ctx *ctx, void *A, int64_t m, int64_t lda, int f32,
              const bnl_chol_progress *pr);

/* B (m x K column-major, ldb) := A^{-1} B with the factor of bnl_chol:
 * the forward and backward triangular solves by blocks of BNL_CHOL_NB
 * columns, the updates in fixed chunks spread over the team (the factor
 * streamed once per solve by all threads; f32 on the tier's kernels.h
 * tri_fwd / tri_back where it has them). 0, or -1 for a bad size or
 * leading dimension (as LAPACK's argument refusals). */
int bnl_chol_solve(const bnl_ctx *ctx, const void *L, int64_t m, int64_t lda, int f32,
                    void *B, int K, int64_t ldb);
/* How bnl_chol_solve updates an f32 solve's blocks on ctx's tier:
 * "kernels" (*tier: the kernel table with kernels.h tri_fwd / tri_back),
 * else "gemm" (*tier: onednn-sgemm or openblas-sgemm). */
const char *bnl_chol_solve_path(const bnl_ctx *ctx, const char **tier);

/* G (ma x ma, ldg, lower) := beta G + Ht Ht^T with Ht ma x b column-major
 * (ld ldh): a row-major b x ma block of H gives Ht with ldh = ma, and a
 * row-major upper G. Only the lower triangle of G is written. */
void bnl_syrk_acc(const bnl_ctx *ctx, void *G, int64_t ldg, const void *Ht, int64_t ldh,
                   int64_t ma, int64_t b, double beta, int f32);

/* ---- threads of the libraries fsvc calls ---- */
/* Sets OpenBLAS to `threads` (<= 0: ctx->threads) and returns the count it
 * had, for bnl_blas_threads_pop. Brackets BLAS/LAPACK calls made on a
 * context's behalf outside the engine (fsvc/ridge.c). */
int bnl_blas_threads_push(const bnl_ctx *ctx, int threads);
void bnl_blas_threads_pop(int saved);
/* The count OpenBLAS would use now, and its build configuration. */
int bnl_blas_threads(void);
const char *bnl_blas_config(void);
/* OpenBLAS's core type: on the first bnl_ctx_open, a core weaker than the
 * CPU's ISA is replaced by the ISA's (layers/blas_core.c), process-wide.
 * status: why the core that runs was chosen; gemm_ok: 1 when a small
 * sgemm/dgemm matches a plain loop. */
void bnl_blas_core_fix(void);
const char *bnl_blas_core_status(void);
const char *bnl_blas_core_name(void);
int bnl_blas_gemm_ok(void);

/* ---- device backends: description and tuning (fsvc info, fsvc tune) ---- */
/* One line on backend b's device, or why there is none; 1 if usable, 0 if
 * not (ref and cpu: always 1, their name). buf always NUL-terminated. */
int bnl_backend_describe(bnl_backend b, char *buf, size_t len);
/* On a context whose backend is "cuda": the device properties and the
 * tune file read at open ("" if none; -1 on any other context); the device
 * name as a file-name tag ("none" without a device); the planner limits
 * (get and/or set, either may be NULL; without a device set is ignored);
 * the default tune-file path for a tag (-1 if no home folder is known);
 * writing a tune file (folders created, temporary file then rename). */
int bnl_gpu_props(const bnl_ctx *ctx, bnlc_device *d, char *tune_path, size_t len);
void bnl_gpu_device_tag(const bnl_ctx *ctx, char *buf, size_t len);
void bnl_gpu_limits(const bnl_ctx *ctx, bnlc_limits *get, const bnlc_limits *set);
int bnl_gpu_tune_path(char *buf, size_t len, const char *tag);
/* Kernel-only seconds of bnl_forward on the device with W, X and H
 * resident (best of reps, device events; u8, f32 and f64 layers);
 * FSVC_EUSAGE without a device. */
int bnl_gpu_time_forward(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
                         const void *X, int64_t N, int n, int reps, double *sec,
                         fsvc_error *err);
int bnl_gpu_tune_write(const char *path, const char *device, const bnlc_limits *lim,
                       const char *comment, fsvc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_BNL_H */
