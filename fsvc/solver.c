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
 *           iterations only when it fits in half of what is left.
 * On a device context (bnl_normal_products) pcg runs its products there
 * (fsvc/hdev.c) and auto picks direct while the device's float64 Gram
 * fits its free memory (device_direct_bytes), else pcg. */
#include "solver.h"
#include "dist.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SOLVER_F64_MAX_M 24000   /* as BNL_RIDGE_F64_MAX_M in layers/cpu_normal.c */
#define SOLVER_CHUNK (1 << 27)   /* bytes of one H chunk (ridge.c: 2^27) */
#define SOLVER_RAM_USE 0.9       /* share of the physical memory we plan on */
#define PCG_MAX_ITER 500
#define DEVICE_MEM_USE 0.9       /* share of the device's free memory we plan on */

/* Device bytes of the direct solve (cuda/ridge.cu): G = H^T H in float64
 * (m^2) and as much again for the Cholesky workspace, the upper triangle
 * it mirrors and the tile buffers (a bound), + B, its copy, diag. */
static double device_direct_bytes(int64_t m, int K)
{
    return 2.0 * 8 * (double)m * (double)m + 2.0 * 8 * (double)m * K + 8.0 * m;
}

/* auto on a device: direct (whole on the device) while its Gram fits the
 * device memory and the direct solve runs there (one process, class
 * weights or not: fsvc_readout_ridge_dist), else pcg with the device's
 * products; the choice and why through fsvc_printf when progress. */
static fsvc_solver device_auto(const bnl_ctx *ctx, int64_t m, int K, int ranks, int progress)
{
    bnlc_device d;
    memset(&d, 0, sizeof d);
    double need = device_direct_bytes(m, K);
    double have = bnl_gpu_props(ctx, &d, NULL, 0) == 0 && d.mem_free > 0
                      ? (double)d.mem_free * DEVICE_MEM_USE : -1;
    fsvc_solver s = ranks > 1 || (have >= 0 && need > have) ? FSVC_SOLVER_PCG
                                                            : FSVC_SOLVER_DIRECT;
    if (progress) {
        if (ranks > 1)
            fsvc_printf("ridge: solver auto on the device: pcg (across processes the direct "
                        "solve brings each rank's m x m Gram to the host)\n");
        else if (have >= 0)
            fsvc_printf("ridge: solver auto on the device: %s (the float64 Gram of %lld "
                        "centroids needs %.3g GB, %.3g GB of the device's memory usable)\n",
                        fsvc_solver_name(s), (long long)m, need / 1e9, have / 1e9);
        else
            fsvc_printf("ridge: solver auto on the device: direct (its free memory is "
                        "unknown)\n");
    }
    return s;
}

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
    fsvc_ridge_problem pb = {ctx, op, C, m, X, cls, y, NULL, N, N, n, K, fsvc_dist_one()};
    fsvc_ridge_opt o = {lambda, s, tol, aug, rows, cols, ram, progress};
    return fsvc_readout_solve_dist(R, &pb, &o, info, err);
}

int fsvc_readout_solve_w(double *R, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                         int64_t m, const void *X, const int *cls, const double *y,
                         const double *cw, int64_t N, int n, int K, double lambda,
                         fsvc_solver s, double tol, fsvc_augment aug, int rows, int cols,
                         double ram, int progress, fsvc_train_info *info, fsvc_error *err)
{
    fsvc_ridge_problem pb = {ctx, op, C, m, X, cls, y, cw, N, N, n, K, fsvc_dist_one()};
    fsvc_ridge_opt o = {lambda, s, tol, aug, rows, cols, ram, progress};
    return fsvc_readout_solve_dist(R, &pb, &o, info, err);
}

static int check_args(double lambda, double tol, int64_t m, int64_t N, int nv,
                      fsvc_solver s, int rows, int cols, int n, fsvc_augment aug,
                      fsvc_error *err)
{
    int rc = fsvc_lambda_check(lambda, err);
    if (rc)
        return rc;
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

/* Class weights that are all 1 are no weights: the unweighted path, so
 * the same model bits by construction (weighted pcg takes K_mm from the
 * engine, unweighted from the cached H: other GEMM tiles, other bits). */
static const double *real_weights(const double *cw, int K)
{
    for (int k = 0; cw && k < K; k++)
        if (cw[k] != 1.0) return cw;
    return NULL;
}

int fsvc_readout_solve_dist(double *R, const fsvc_ridge_problem *pb, const fsvc_ridge_opt *o,
                            fsvc_train_info *info, fsvc_error *err)
{
    const fsvc_dist *dist = pb->dist;
    const bnl_ctx *ctx = pb->ctx;
    const bnl_op *op = pb->op;
    const void *C = pb->C, *X = pb->X;
    const int *cls = pb->cls;
    const double *y = pb->y, *cw = pb->cw;
    int64_t m = pb->m, N = pb->N, N_total = pb->N_total;
    int n = pb->n, K = pb->K;
    double lambda = o->lambda, tol = o->tol, ram = o->ram;
    fsvc_solver s = o->solver;
    fsvc_augment aug = o->aug;
    int rows = o->rows, cols = o->cols, progress = o->progress;
    int nv = fsvc_augment_count(aug);
    cw = real_weights(cw, K);
    /* the arguments are the same on every rank, but the check sees N_total:
     * a rank with an empty slice is no error */
    int rc = check_args(lambda, tol, m, N_total, nv, s, rows, cols, n, aug, err);
    if (rc) return rc;
    /* auto: pcg with augmentation; else on the CPU pcg from FSVC_PCG_AUTO_M
     * centroids, on a device by its memory (device_auto) */
    int dev = bnl_normal_products(ctx, op), rule = FSVC_AUTO_NONE;
    if (s == FSVC_SOLVER_AUTO && nv > 1)
        s = FSVC_SOLVER_PCG, rule = FSVC_AUTO_AUGMENT;
    else if (s == FSVC_SOLVER_AUTO && dev)
        s = device_auto(ctx, m, K, dist->size, progress), rule = FSVC_AUTO_DEVICE_MEM;
    else if (s == FSVC_SOLVER_AUTO)
        s = m >= FSVC_PCG_AUTO_M ? FSVC_SOLVER_PCG : FSVC_SOLVER_DIRECT, rule = FSVC_AUTO_BY_M;
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
    if ((rc = fsvc_dist_agreed(dist, rc, err))) /* each rank checks its own machine */
        return rc;
    if (info) {
        info->solver = s;
        info->solver_rule = rule;
        info->cg_iter = 0;
        info->cg_res = 0;
        info->cg_converged = 0;
    }
    int bars = progress == FSVC_PROGRESS_ALL; /* progress lines; any progress: messages */
    if (s == FSVC_SOLVER_DIRECT) {
        fsvc_ridge_problem q = *pb;
        q.cw = cw;
        return fsvc_readout_ridge_dist(R, &q, lambda, -1, bars, info ? info->t_ridge : NULL, err);
    }

    int blas_saved = bnl_blas_threads_push(ctx, 0); /* GEMM, potrf: ctx->threads */
    int cache = ram > 0 && (double)N * nv * m * hs <= (budget - need) / 2;
    fsvc_hsrc loc, all, *src = &loc; /* this rank's products; across ranks: their sum */
    memset(&loc, 0, sizeof loc);
    memset(&all, 0, sizeof all);
    double *W = NULL;
    rc = N > 0 ? FSVC_OK : fsvc_fail(err, FSVC_EINPUT, "ridge: a process holds no samples "
                                     "(more processes than samples)");
    if (!rc && dev) { /* the products on the device: nothing N x m comes back */
        rc = fsvc_hsrc_device(&loc, ctx, op, C, m, X, cls, y, cw, N, n, K, aug, rows, cols, err);
        if (rc == FSVC_ERESOURCE) { /* the device could not open them: the CPU can */
            if (progress)
                fsvc_printf("pcg: %s; computing on the CPU\n", err ? err->msg : "device failed");
            dev = 0;
            rc = FSVC_OK;
        }
    }
    if (!rc && !dev)
        rc = fsvc_hsrc_cpu(&loc, ctx, op, C, m, X, cls, y, N, n, K, aug, rows, cols, cache, err);
    if (!rc && !dev) {
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
    if (!(rc = fsvc_dist_agreed(dist, rc, err)))
        rc = fsvc_pcg_readout(R, W, src, &loc, op, &opt, progress, info, err);
    free(W);
    fsvc_hsrc_close(&all);
    fsvc_hsrc_close(&loc);
    bnl_blas_threads_pop(blas_saved);
    return rc;
}
