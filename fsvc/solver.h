/* solver.h - the ridge readout's solvers (internal to fsvc/).
 *
 * Both solve the same system, (H^T H + lam I) W = H^T T with lam = lambda
 * x mean(diag(H^T H)), H = act(dist(C, X)) (N x m), T one-hot (K columns)
 * or the regression targets (1 column):
 *   direct: H^T H by syrk, Cholesky (fsvc/ridge.c);
 *   pcg:    preconditioned conjugate gradient (fsvc/pcg.c) that sees H only
 *           through block products (fsvc_hops): the engine's (bnl.h
 *           bnl_hprod_*, on the CPU or the context's device, through
 *           fsvc_hsrc_open; dense or CSR samples, fsvc/sparse_ridge.c) or
 *           their sum across processes (fsvc/hcomm.c).
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
    /* the source whose t_h and t_prod the train info reports (this
     * process's products under a sum or a memo); NULL: this one */
    const struct fsvc_hsrc *times;
    double h_err2;        /* after rhs: trace of E^T E, E the bf16 rounding of
                             the cached H (0: not rounded); pcg.c's shift */
} fsvc_hsrc;

/* The ridge problem of one rank: the engine (ctx, op), the centroids C
 * (m x n), this rank's slice of the samples (X, cls, y: N of N_total; T
 * one-hot of cls, K columns, or y, K = 1), class weights cw (K values or
 * NULL: all 1), the ranks (comm; fsvc_comm_one() for one process) and
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
    const struct fsvc_comm *comm;
    /* sample weights of this rank's slice (N values > 0) or NULL: all 1;
     * a sample's row of H and T is scaled by sqrt(cw[cls] * sw[i]) */
    const double *sw;
    /* pcg's products only (fsvc_hsrc_open): a sparse source (C and X
     * NULL, n the features; fsvc/sparse_ridge.c), or NULL */
    const bnl_hprod_csr *csr;
} fsvc_ridge_problem;

/* The readout's settings. ram: the memory limit in bytes (<= 0:
 * fsvc_phys_ram()). progress: as fsvc_param.progress (the progress lines
 * with FSVC_PROGRESS_ALL; the warning of a CG short of tol and the
 * choices' words, through fsvc_printf, with any non-zero value). */
typedef struct fsvc_ridge_opt {
    double lambda;
    fsvc_solver solver;
    double tol;
    fsvc_augment aug;
    int rows, cols;
    double ram;
    int progress;
    int h16;          /* pcg: the cached H's bnl_hfmt (f32, bf16, f16), or
                         auto (-1: fsvc_pcg_h_pick; fsvc_param.pcg_h) */
} fsvc_ridge_opt;

/* auto keeps H in f16 from this lambda up: its rounding floor (about
 * 4e-8 x mean diag(H^T H) a column, 64x less than bf16's) is then at most
 * ~5 % of the ridge */
#define FSVC_PCG_F16_MIN_LAMBDA 1e-6
/* 1 when op's activations lie in [-1, 1] and no row weight passes 2^16:
 * every value of H (rows scaled by sqrt(weight)) is far inside f16's range */
int fsvc_h_bounded(const bnl_op *op, const double *cw, int K, const double *sw, int64_t N);
/* FSVC_EUSAGE for an asked f16 (h16) where H is not bounded
 * (fsvc_h_bounded) and not double, else FSVC_OK. */
int fsvc_pcg_h_check(int h16, int f64, int bounded, fsvc_error *err);
/* pcg's cached H: *cache whether H (values, N x m) is kept after the
 * first pass, within room bytes; returns its bnl_hfmt (h16 >= 0: that one;
 * f64: BNL_H_F32, a double H stays double). auto (h16 < 0): f16 when
 * bounded (fsvc_h_bounded) and lambda >= FSVC_PCG_F16_MIN_LAMBDA, else
 * f32, and with progress says when only a 16-bit H would be kept, or
 * that auto keeps it in f16. */
int fsvc_pcg_h_pick(int h16, int f64, int bounded, double lambda, double values, double room,
                    int progress, int *cache);
/* fsvc_ridge_opt.h16 from fsvc_param.pcg_h (0 auto, 1 f32, 2 bf16, 3 f16) */
static inline int fsvc_pcg_h_arg(int pcg_h)
{
    return pcg_h == 3 ? BNL_H_F16 : pcg_h == 2 ? BNL_H_BF16 : pcg_h == 1 ? BNL_H_F32 : -1;
}

/* How the engine's products run (bnl_hprod_opt): aug, rows, cols: the
 * virtual samples (src->N = N x fsvc_augment_count(aug); rows x cols == n,
 * else FSVC_EINPUT); cache: the CPU keeps all of H (N x m) after the
 * first pass (K_mm then from its rows where no row is weighted);
 * progress: the first pass's progress line; notes: one line when the
 * device's products fall back to the CPU. */
typedef struct fsvc_hsrc_opt {
    fsvc_augment aug;
    int rows, cols;
    int cache;
    int progress;
    int notes;
    int h16;          /* the cached H's bnl_hfmt (bnl_hprod_opt.h16) */
} fsvc_hsrc_opt;

/* The engine's block products (bnl_hprod_open: the context's table
 * picks the CPU's or the device's) over pb's local samples (pb->N; cw,
 * sw and the targets as pb says; N_total and comm are not read) as a
 * source. src must stay where it is until closed. */
int fsvc_hsrc_open(fsvc_hsrc *src, const fsvc_ridge_problem *pb, const fsvc_hsrc_opt *o,
                   fsvc_error *err);
void fsvc_hsrc_close(fsvc_hsrc *src);

/* The products of `inner` (this rank's slice of the samples) summed over
 * the ranks of comm in rank order (comm->sum: the same bytes on every rank
 * and in every run with the same size), as one source with inner's m and
 * K whose N (the preconditioner's: the ranks' N summed, so weighted and
 * augmented counts as one process counts them) is known after the first
 * product, the right-hand side; every product
 * is collective, and a rank whose own product failed makes all fail (the
 * others with FSVC_COMM_ELSEWHERE). K_mm is computed by each rank from the
 * centroids all of them hold. out must stay where it is until closed;
 * closing it does not close inner. */
struct fsvc_comm;
int fsvc_hsrc_sum(fsvc_hsrc *out, fsvc_hsrc *inner, const struct fsvc_comm *comm,
                  fsvc_error *err);

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
    double t_pre;     /* seconds: K_mm (less its engine and product passes, booked
                         as H and products), its factor, the solves */
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
 * info's CG figures with the times of src->times (this process's
 * products; NULL: src's). */
int fsvc_pcg_readout(double *R, double *W, fsvc_hsrc *src, const bnl_op *op,
                     const fsvc_pcg_opt *opt, int progress, fsvc_train_info *info,
                     fsvc_error *err);

/* Memory (bytes) the ridge solve needs beyond the model and the data, and
 * the largest m that fits in `ram` bytes with the same N, n, K (0: none).
 * hs: bytes of an H value (4 float, 8 double). */
double fsvc_solver_bytes(fsvc_solver s, int64_t m, int64_t N, int K, size_t hs);
int64_t fsvc_solver_max_m(fsvc_solver s, int64_t N, int K, size_t hs, double ram);
/* Physical memory of the machine in bytes (sysconf), 0 when unknown. */
double fsvc_phys_ram(void);

/* The solver o->solver names, auto resolved: pcg with augmentation,
 * else the engine's rule for pb's context and layer (bnl_plan_ridge: on
 * the host pcg from FSVC_PCG_AUTO_M centroids, on a device by its memory
 * and pb->comm's size); *rule: the FSVC_AUTO_* that chose (NONE when not
 * auto); the device's words through fsvc_printf with o->progress. */
fsvc_solver fsvc_solver_resolve(const fsvc_ridge_problem *pb, const fsvc_ridge_opt *o,
                                int *rule);

/* The ridge readout on this rank's slice of the ranks of pb->comm,
 * collective, through the solver o->solver (auto: fsvc_solver_resolve;
 * pcg when aug is not none, which direct refuses: FSVC_EUSAGE): R m x K
 * row-major as fsvc_readout_ridge. The direct solve sums the partial H^T
 * H (fsvc_readout_ridge), pcg sums the partial products of every
 * iteration (fsvc_hsrc_sum); every rank gets the same R. info may be
 * NULL; its solver, solver_rule, cg_iter, cg_res, cg_converged and
 * t_ridge are filled. One process: fsvc_comm_one() and N_total == N. */
int fsvc_readout_solve(double *R, const fsvc_ridge_problem *pb, const fsvc_ridge_opt *o,
                       fsvc_train_info *info, fsvc_error *err);

#endif
