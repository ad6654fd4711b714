/* solver.c - the ridge readout's one entry: picks direct or pcg (auto: by
 * m), checks the memory the solve needs against the machine before
 * anything big is allocated (a clear error naming the largest m that
 * fits, never an OOM kill), runs it and fills the train info.
 *
 * Memory model (bytes, beyond the model and the data):
 *   direct: G (m^2, double up to 24000 centroids or for f64 inputs, else
 *           float) + its Gram block (m^2, double with a double G, else
 *           float) + 2 chunks;
 *   pcg:    the preconditioner factor (m^2 in H's precision) + 1 chunk +
 *           ~8 m x K double vectors. H (N x m) is cached for the
 *           iterations only when it fits in half of what is left. */
#include "solver.h"
#include "dist.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SOLVER_F64_MAX_M 24000   /* as RIDGE_F64_MAX_M in ridge.c */
#define SOLVER_CHUNK (1 << 27)   /* bytes of one H chunk (ridge.c: 2^27) */
#define SOLVER_RAM_USE 0.9       /* share of the physical memory we plan on */
#define PCG_MAX_ITER 500

double fsvc_phys_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && psz > 0 ? (double)pages * (double)psz : 0;
}

double fsvc_solver_bytes(fsvc_solver s, int64_t m, int64_t N, int K, size_t hs)
{
    double mm = (double)m * (double)m;
    (void)N;
    if (s == FSVC_SOLVER_DIRECT) {
        double gs = hs == 8 || m <= SOLVER_F64_MAX_M ? 8 : 4;
        double bs = gs == 8 ? 8 : hs; /* a double G takes its Gram block in double (ridge.c) */
        return mm * (gs + bs) + 2.0 * SOLVER_CHUNK + 2.0 * m * K * 8;
    }
    return mm * hs + SOLVER_CHUNK / 4 + 8.0 * m * K * 8;
}

int64_t fsvc_solver_max_m(fsvc_solver s, int64_t N, int K, size_t hs, double ram)
{
    int64_t lo = 0, hi = 1;
    while (hi < ((int64_t)1 << 40) && fsvc_solver_bytes(s, hi, N, K, hs) <= ram) hi *= 2;
    while (hi - lo > 1) { /* largest lo with bytes(lo) <= ram */
        int64_t mid = lo + (hi - lo) / 2;
        if (fsvc_solver_bytes(s, mid, N, K, hs) <= ram) lo = mid;
        else hi = mid;
    }
    return lo;
}

int fsvc_readout_solve(double *R, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                       int64_t m, const void *X, const int *cls, const double *y,
                       int64_t N, int n, int K, double lambda, fsvc_solver s, double tol,
                       fsvc_augment aug, int rows, int cols, double ram, int progress,
                       fsvc_train_info *info, fsvc_error *err)
{
    return fsvc_readout_solve_dist(R, fsvc_dist_one(), N, ctx, op, C, m, X, cls, y, NULL, N, n,
                                   K, lambda, s, tol, aug, rows, cols, ram, progress, info, err);
}

int fsvc_readout_solve_w(double *R, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                         int64_t m, const void *X, const int *cls, const double *y,
                         const double *cw, int64_t N, int n, int K, double lambda,
                         fsvc_solver s, double tol, fsvc_augment aug, int rows, int cols,
                         double ram, int progress, fsvc_train_info *info, fsvc_error *err)
{
    return fsvc_readout_solve_dist(R, fsvc_dist_one(), N, ctx, op, C, m, X, cls, y, cw, N, n,
                                   K, lambda, s, tol, aug, rows, cols, ram, progress, info, err);
}

/* Across processes: the worst status of the ranks, the others' failure
 * named FSVC_DIST_ELSEWHERE (one process: rc). */
static int agreed(const fsvc_dist *dist, int rc, fsvc_error *err)
{
    if (dist->size <= 1) return rc;
    int any = dist->agree(dist->self, rc);
    if (any && !rc) rc = fsvc_fail(err, any, FSVC_DIST_ELSEWHERE);
    return rc;
}

static int check_args(double lambda, double tol, int64_t m, int64_t N, int nv,
                      fsvc_solver s, int rows, int cols, int n, fsvc_augment aug,
                      fsvc_error *err)
{
    if (!(lambda > 0) || lambda > 1e300)
        return fsvc_fail(err, FSVC_EUSAGE, "ridge: lambda must be a finite number > 0");
    if (!(tol > 0) || tol >= 1)
        return fsvc_fail(err, FSVC_EUSAGE, "ridge: the pcg tolerance must be in (0, 1)");
    if (m < 1 || N < 1)
        return fsvc_fail(err, FSVC_EINPUT, "ridge: no %s to fit (m = %lld, N = %lld)",
                         m < 1 ? "centroids" : "samples", (long long)m, (long long)N);
    if (nv > 1 && s == FSVC_SOLVER_DIRECT)
        return fsvc_fail(err, FSVC_EUSAGE, "ridge: --augment %s needs --solver pcg (or auto)",
                         fsvc_augment_name(aug));
    if (nv > 1 && (rows < 1 || cols < 1 || (int64_t)rows * cols != n))
        return fsvc_fail(err, FSVC_EINPUT, "--augment %s needs images (rows x cols); these "
                         "samples of %d values have no image geometry", fsvc_augment_name(aug), n);
    return FSVC_OK;
}

int fsvc_readout_solve_dist(double *R, const fsvc_dist *dist, int64_t N_total,
                            const bnl_ctx *ctx, const bnl_op *op, const void *C, int64_t m,
                            const void *X, const int *cls, const double *y, const double *cw,
                            int64_t N, int n, int K, double lambda, fsvc_solver s, double tol, fsvc_augment aug,
                            int rows, int cols, double ram, int progress,
                            fsvc_train_info *info, fsvc_error *err)
{
    int nv = fsvc_augment_count(aug);
    /* the arguments are the same on every rank, but the check sees N_total:
     * a rank with an empty slice is no error */
    int rc = check_args(lambda, tol, m, N_total, nv, s, rows, cols, n, aug, err);
    if (rc) return rc;
    /* auto: pcg from FSVC_PCG_AUTO_M centroids on the CPU; on a device
     * context the direct solve, which runs whole on the device
     * (bnl_normal_*), while the pcg products are CPU-only (hblock.c) */
    if (s == FSVC_SOLVER_AUTO)
        s = nv > 1 || (m >= FSVC_PCG_AUTO_M && ctx->backend != BNL_CUDA) ? FSVC_SOLVER_PCG
                                                                         : FSVC_SOLVER_DIRECT;
    size_t hs = op->dtype == FSVC_F64 ? sizeof(double) : sizeof(float);
    if (!(ram > 0)) ram = fsvc_phys_ram();
    double budget = ram * SOLVER_RAM_USE;
    double need = fsvc_solver_bytes(s, m, N, K, hs);
    rc = FSVC_OK;
    if (ram > 0 && need > budget) {
        int64_t mfit = fsvc_solver_max_m(s, N, K, hs, budget);
        int64_t mpcg = fsvc_solver_max_m(FSVC_SOLVER_PCG, N, K, hs, budget);
        rc = fsvc_fail(err, FSVC_ERESOURCE,
                       "ridge (%s): %lld centroids need %.1f GB, this machine has %.1f GB; "
                       "the largest that fits is %lld (--max-neurons)%s",
                       fsvc_solver_name(s), (long long)m, need / 1e9, ram / 1e9,
                       (long long)mfit,
                       s == FSVC_SOLVER_DIRECT && mpcg > mfit ? ", or use --solver pcg" : "");
    }
    if ((rc = agreed(dist, rc, err))) /* each rank checks its own machine */
        return rc;
    if (info) {
        info->solver = s;
        info->cg_iter = 0;
        info->cg_res = 0;
        info->cg_converged = 0;
    }
    int bars = progress == FSVC_PROGRESS_ALL; /* progress lines; any progress: messages */
    if (s == FSVC_SOLVER_DIRECT)
        return fsvc_readout_ridge_dist(R, dist, ctx, op, C, m, X, cls, y, cw, N, n, K, lambda,
                                       -1, bars, info ? info->t_ridge : NULL, err);

    int blas_saved = bnl_blas_threads_push(ctx, 0); /* GEMM, potrf: ctx->threads */
    int cache = ram > 0 && (double)N * nv * m * hs <= (budget - need) / 2;
    fsvc_hsrc loc, all, *src = &loc; /* this rank's products; across ranks: their sum */
    memset(&loc, 0, sizeof loc);
    memset(&all, 0, sizeof all);
    double *W = NULL;
    rc = N > 0 ? fsvc_hsrc_cpu(&loc, ctx, op, C, m, X, cls, y, N, n, K, aug, rows, cols,
                               cache, err)
               : fsvc_fail(err, FSVC_EINPUT, "ridge: a process holds no samples (more "
                           "processes than samples)");
    if (!rc) {
        fsvc_hsrc_weights(&loc, y ? NULL : cw);
        fsvc_hsrc_progress(&loc, bars);
    }
    if (!rc && dist->size > 1) {
        rc = fsvc_hsrc_dist(&all, &loc, N_total * nv, dist, err);
        src = &all;
    }
    if (!rc && !(W = malloc((size_t)m * K * sizeof *W)))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    fsvc_pcg_opt opt = {lambda, tol, PCG_MAX_ITER, 0, bars};
    if (!(rc = agreed(dist, rc, err)))
        rc = fsvc_pcg_readout(R, W, src, &loc, op, &opt, progress, info, err);
    free(W);
    fsvc_hsrc_close(&all);
    fsvc_hsrc_close(&loc);
    bnl_blas_threads_pop(blas_saved);
    return rc;
}
