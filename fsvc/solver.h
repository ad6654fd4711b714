/* solver.h - the ridge readout's solvers (internal to fsvc/).
 *
 * Both solve the same system, (H^T H + lam I) W = H^T T with lam = lambda
 * x mean(diag(H^T H)), H = act(dist(C, X)) (N x m), T one-hot (K columns)
 * or the regression targets (1 column):
 *   direct: H^T H by syrk, Cholesky (fsvc/ridge.c);
 *   pcg:    preconditioned conjugate gradient (fsvc/pcg.c) that sees H only
 *           through block products (fsvc_hops), so a device backend can
 *           supply the same products (issue 10) without touching the
 *           algorithm. The CPU products are fsvc/hblock.c.
 */
#ifndef FSVC_SOLVER_H
#define FSVC_SOLVER_H

#include "internal.h"

/* Block products over the samples. Vectors are column-major m x K double
 * (column k = class k). Every function returns an fsvc status. */
typedef struct fsvc_hops {
    /* B = H^T T; *sumsq = sum of H_ij^2 (the trace of H^T H) */
    int (*rhs)(void *self, double *B, double *sumsq, fsvc_error *err);
    /* Y = H^T (H V), one pass over the samples */
    int (*gram_apply)(void *self, double *Y, const double *V, fsvc_error *err);
    /* Kmm = act(dist(C, C)), m x m row-major, float (f32 == 1) or double */
    int (*kmm)(void *self, void *Kmm, int f32, fsvc_error *err);
    void (*close)(void *self);
    /* Across processes (NULL for one process): the worst status over the
     * ranks, collective; pcg.c calls it where every rank must take the same
     * branch (after its own allocations and preconditioner, and on every
     * stop decision). */
    int (*agree)(void *self, int status);
} fsvc_hops;

typedef struct fsvc_hsrc {
    const fsvc_hops *ops;
    void *self;
    int64_t m, N;
    int K;
    double t_h, t_prod;   /* seconds in the engine (H) and in the products */
    const bnl_ctx *ctx;   /* threads of the preconditioner's factor and solves */
    int kmm_cached;       /* the last kmm: rows of the cached H, no engine pass */
} fsvc_hsrc;

/* The CPU products: H chunks from bnl_forward, GEMM on the chunk. cache:
 * keep all of H (N x m) after the first pass instead of recomputing it;
 * then K_mm is taken from H's rows of the samples the centroids are (the
 * same bits as the engine's K_mm), found by content, unless rows are
 * class-weighted or a centroid is no sample.
 * T: one-hot of cls, or y (K = 1) when y != NULL. aug: every sample also
 * as its variants (src->N = N x fsvc_augment_count(aug), virtual sample v
 * = variant v % count of sample v / count), made per chunk; needs rows x
 * cols == n (else FSVC_EINPUT). src must stay where it is until closed. */
int fsvc_hsrc_cpu(fsvc_hsrc *src, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                  int64_t m, const void *X, const int *cls, const double *y, int64_t N,
                  int n, int K, fsvc_augment aug, int rows, int cols, int cache,
                  fsvc_error *err);
/* The same products on ctx's device (fsvc/hdev.c, issue 10): one open
 * bnl_normal handle, each product one bnl_normal_rhs / bnl_normal_apply
 * pass per batch of samples, nothing N x m back (m x K per call), K_mm by
 * bnl_forward on the device. Class weights cw (K values or NULL; ignored
 * with y) as fsvc_hsrc_weights: the samples grouped by class (a host copy
 * of X), each class's products scaled by its weight. aug: the virtual
 * samples made on the host per chunk and uploaded. FSVC_EUSAGE when the
 * context has no device products for op (bnl_normal_products); an error of
 * bnl_normal_open as it came. src must stay where it is until closed. */
int fsvc_hsrc_device(fsvc_hsrc *src, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                     int64_t m, const void *X, const int *cls, const double *y,
                     const double *cw, int64_t N, int n, int K, fsvc_augment aug, int rows,
                     int cols, fsvc_error *err);
/* Variants per sample of an augmentation (1 for none), and variant v of
 * one rows x cols image of es-byte values (0: the image itself; then the
 * shifts in the order (dy, dx) = (0,1) (0,-1) (1,0) (-1,0), for shift2
 * (0,+-2) (+-2,0) (1,1) (1,-1) (-1,1) (-1,-1); mirror variants follow the
 * plain ones, mirrored after the shift). Vacated pixels are 0. */
int fsvc_augment_count(fsvc_augment a);
void fsvc_augment_apply(void *dst, const void *src, int rows, int cols, size_t es,
                        fsvc_augment a, int v);
/* Class weights for the CPU products (K values, kept by pointer, or NULL:
 * all 1): H's and T's rows of a sample of class k scaled by sqrt(cw[k]) as
 * they are made. Set before the first product. */
void fsvc_hsrc_weights(fsvc_hsrc *src, const double *cw);
/* on: the CPU products' first pass (it makes H) prints a progress line
 * with a time estimate through fsvc_printf once it runs over 0.5 s. */
void fsvc_hsrc_progress(fsvc_hsrc *src, int on);
void fsvc_hsrc_close(fsvc_hsrc *src);

/* The products of `inner` (this rank's slice of the samples) summed over
 * the ranks of dist in rank order (dist->sum: the same bytes on every rank
 * and in every run with the same size), as one source of N_total samples
 * (virtual samples with augmentation) with inner's m and K; every product
 * is collective, and a rank whose own product failed makes all fail (the
 * others with FSVC_DIST_ELSEWHERE). K_mm is computed by each rank from the
 * centroids all of them hold. out must stay where it is until closed;
 * closing it does not close inner. */
struct fsvc_dist;
int fsvc_hsrc_dist(fsvc_hsrc *out, fsvc_hsrc *inner, int64_t N_total,
                   const struct fsvc_dist *dist, fsvc_error *err);

/* PCG settings and outcome. */
typedef struct fsvc_pcg_opt {
    double lambda;    /* relative, > 0 */
    double tol;       /* relative residual per column */
    int max_iter;
    int warm;         /* 1: start from the W given (a warm start), 0: from 0 */
    int progress;
} fsvc_pcg_opt;
typedef struct fsvc_pcg_out {
    int iter;
    double res;       /* the largest column residual, recomputed from W */
    int converged;
    double t_pre;     /* seconds: K_mm, its factor, the preconditioner solves */
    int restarts;     /* restarts from the true residual (pcg.c) */
} fsvc_pcg_out;

/* W: m x K column-major (in: the warm start when opt->warm). Returns
 * FSVC_OK also when not converged (out->converged = 0); the caller decides
 * (fsvc_pcg_verdict). Degenerate systems as the direct solve words them. */
int fsvc_pcg_solve(double *W, fsvc_hsrc *src, const bnl_op *op, const fsvc_pcg_opt *opt,
                   fsvc_pcg_out *out, fsvc_error *err);

/* The documented rule for a CG that stops short of tol: a residual up to
 * max(100 tol, 1e-2) is kept with a warning (FSVC_OK, *warn = 1, the
 * words in warn_msg), beyond that it is an error (FSVC_EINPUT in err). */
int fsvc_pcg_verdict(const fsvc_pcg_out *out, double tol, int *warn, char *warn_msg,
                     size_t len, fsvc_error *err);

/* The readout by pcg, as the dense and sparse solvers end: fsvc_pcg_solve
 * into W (m x K column-major, the caller's), the verdict (its warning
 * through fsvc_printf when progress), R (m x K row-major) := W^T, and
 * info's CG figures with the times of tsrc (this process's products). */
int fsvc_pcg_readout(double *R, double *W, fsvc_hsrc *src, const fsvc_hsrc *tsrc,
                     const bnl_op *op, const fsvc_pcg_opt *opt, int progress,
                     fsvc_train_info *info, fsvc_error *err);

/* Memory (bytes) the ridge solve needs beyond the model and the data, and
 * the largest m that fits in `ram` bytes with the same N, n, K (0: none).
 * hs: bytes of an H value (4 float, 8 double). */
double fsvc_solver_bytes(fsvc_solver s, int64_t m, int64_t N, int K, size_t hs);
int64_t fsvc_solver_max_m(fsvc_solver s, int64_t N, int K, size_t hs, double ram);
/* Physical memory of the machine in bytes (sysconf), 0 when unknown. */
double fsvc_phys_ram(void);

/* The ridge readout through the solver s (auto resolved by m; pcg when
 * aug is not none, which direct refuses: FSVC_EUSAGE): R m x K
 * row-major as fsvc_readout_ridge. info may be NULL; its solver, cg_iter,
 * cg_res, cg_converged and t_ridge are filled. ram: the memory limit in
 * bytes (<= 0: fsvc_phys_ram()). progress: as fsvc_param.progress (the
 * progress lines with FSVC_PROGRESS_ALL; the warning of a CG short of tol,
 * through fsvc_printf, with any non-zero value). */
int fsvc_readout_solve(double *R, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                       int64_t m, const void *X, const int *cls, const double *y,
                       int64_t N, int n, int K, double lambda, fsvc_solver s, double tol,
                       fsvc_augment aug, int rows, int cols, double ram, int progress,
                       fsvc_train_info *info, fsvc_error *err);
/* The same with class weights cw (K values or NULL: all 1), both solvers
 * (fsvc_readout_ridge_dist, fsvc_hsrc_weights). */
int fsvc_readout_solve_w(double *R, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                         int64_t m, const void *X, const int *cls, const double *y,
                         const double *cw, int64_t N, int n, int K, double lambda,
                         fsvc_solver s, double tol, fsvc_augment aug, int rows, int cols,
                         double ram, int progress, fsvc_train_info *info, fsvc_error *err);
/* The ridge problem of one rank: the engine (ctx, op), the centroids C
 * (m x n), this rank's slice of the samples (X, cls, y: N of N_total; T
 * one-hot of cls, K columns, or y, K = 1), class weights cw (K values or
 * NULL: all 1), the ranks (dist; fsvc_dist_one() for one process) and
 * the sample weights (sw). */
typedef struct fsvc_ridge_problem {
    const bnl_ctx *ctx;
    const bnl_op *op;
    const void *C;
    int64_t m;
    const void *X;
    const int *cls;
    const double *y;
    const double *cw;
    int64_t N, N_total;
    int n, K;
    const struct fsvc_dist *dist;
    /* sample weights of this rank's slice (N values > 0) or NULL: all 1;
     * a sample's row of H and T is scaled by sqrt(cw[cls] * sw[i]) */
    const double *sw;
} fsvc_ridge_problem;

/* The readout's settings, as fsvc_readout_solve's arguments. */
typedef struct fsvc_ridge_opt {
    double lambda;
    fsvc_solver solver;
    double tol;
    fsvc_augment aug;
    int rows, cols;
    double ram;
    int progress;
} fsvc_ridge_opt;

/* fsvc_readout_solve on this rank's slice of the ranks of pb->dist,
 * collective: the direct solve sums the partial H^T H
 * (fsvc_readout_ridge_dist), pcg sums the partial products of every
 * iteration (fsvc_hsrc_dist); auto chooses as one process does (by m, the
 * same on every rank). Every rank gets the same R. With fsvc_dist_one()
 * and N_total == N it is fsvc_readout_solve. */
int fsvc_readout_solve_dist(double *R, const fsvc_ridge_problem *pb, const fsvc_ridge_opt *o,
                            fsvc_train_info *info, fsvc_error *err);

#endif
