/* solver.c - the ridge readout's one entry: picks direct or pcg (auto:
 * the engine's rule, fsvc_solver_resolve), checks the memory the solve
 * needs against the machine before anything big is allocated (a clear
 * error naming the largest m that fits, never an OOM kill), runs it and
 * fills the train info.
 *
 * Memory model (bytes, beyond the model and the data):
 *   direct: G (m^2, double up to 24000 centroids or for f64 inputs, else
 *           float) + its Gram block (m^2, double with a double G, else
 *           float) + 2 chunks;
 *   pcg:    the preconditioner factor (m^2 in H's precision) + 1 chunk +
 *           ~8 m x K double vectors. H (N x m) is cached for the
 *           iterations only when it fits in half of what is left.
 * pcg's products are the engine's (fsvc_hsrc_open: on the context's
 * device when it offers them, else on the CPU). */
#include "solver.h"
#include "comm.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SOLVER_F64_MAX_M 24000   /* as BNL_RIDGE_F64_MAX_M in layers/cpu_normal.c */
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

fsvc_solver fsvc_solver_resolve(const fsvc_ridge_problem *pb, const fsvc_ridge_opt *o,
                                int *rule)
{
    *rule = FSVC_AUTO_NONE;
    if (o->solver != FSVC_SOLVER_AUTO)
        return o->solver;
    if (fsvc_augment_count(o->aug) > 1) {
        *rule = FSVC_AUTO_AUGMENT;
        return FSVC_SOLVER_PCG;
    }
    bnl_ridge_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.m = pb->m;
    pl.K = pb->K;
    pl.ranks = pb->comm ? pb->comm->size : 1;
    pl.pcg_m = FSVC_PCG_AUTO_M;
    bnl_plan_ridge(pb->ctx, pb->op, &pl);
    *rule = pl.by_device ? FSVC_AUTO_DEVICE_MEM : FSVC_AUTO_BY_M;
    if (o->progress && pl.why[0])
        fsvc_printf("%s\n", pl.why);
    return pl.pcg ? FSVC_SOLVER_PCG : FSVC_SOLVER_DIRECT;
}

/* The memory check of solver s on this rank's machine (FSVC_ERESOURCE
 * naming the largest m that fits); *budget, *need: the bytes planned on
 * and needed (budget 0: the machine's memory is unknown). */
static int memory_check(fsvc_solver s, const fsvc_ridge_problem *pb, double ram, double *budget,
                        double *need, fsvc_error *err)
{
    int64_t m = pb->m, N = pb->N;
    int K = pb->K;
    size_t hs = pb->op->dtype == FSVC_F64 ? sizeof(double) : sizeof(float);
    *budget = ram * SOLVER_RAM_USE;
    *need = fsvc_solver_bytes(s, m, N, K, hs);
    if (!(ram > 0) || *need <= *budget)
        return FSVC_OK;
    int64_t mfit = fsvc_solver_max_m(s, N, K, hs, *budget);
    int64_t mpcg = fsvc_solver_max_m(FSVC_SOLVER_PCG, N, K, hs, *budget);
    return fsvc_fail(err, FSVC_ERESOURCE,
                     "ridge (%s): %lld centroids need %.1f GB, this machine has %.1f GB; "
                     "the largest that fits is %lld (--max-neurons)%s",
                     fsvc_solver_name(s), (long long)m, *need / 1e9, ram / 1e9, (long long)mfit,
                     s == FSVC_SOLVER_DIRECT && mpcg > mfit ? ", or use --solver pcg" : "");
}

/* The pcg readout: this rank's products (the engine's), their sum across
 * the ranks, the solve. cache: keep H after the first pass. */
static int solve_pcg(double *R, const fsvc_ridge_problem *pb, const fsvc_ridge_opt *o,
                     int cache, fsvc_train_info *info, fsvc_error *err)
{
    const fsvc_comm *comm = pb->comm;
    int64_t m = pb->m;
    int K = pb->K;
    int bars = o->progress == FSVC_PROGRESS_ALL; /* progress lines; any progress: messages */
    int blas_saved = bnl_blas_threads_push(pb->ctx, 0); /* GEMM, potrf: ctx->threads */
    fsvc_hsrc loc, all, *src = &loc; /* this rank's products; across ranks: their sum */
    memset(&loc, 0, sizeof loc);
    memset(&all, 0, sizeof all);
    double *W = NULL;
    int rc = pb->N > 0 ? FSVC_OK : fsvc_fail(err, FSVC_EINPUT, "ridge: a process holds no "
                                             "samples (more processes than samples)");
    fsvc_hsrc_opt ho = {o->aug, o->rows, o->cols, cache, bars, o->progress != 0, o->h16};
    if (!rc)
        rc = fsvc_hsrc_open(&loc, pb, &ho, err);
    if (!rc && comm->size > 1) {
        rc = fsvc_hsrc_sum(&all, &loc, comm, err);
        all.times = &loc;
        src = &all;
    }
    if (!rc && !(W = malloc((size_t)m * K * sizeof *W)))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    fsvc_pcg_opt opt = {o->lambda, o->tol, PCG_MAX_ITER, 0, bars};
    if (!(rc = fsvc_comm_agreed(comm, rc, err)))
        rc = fsvc_pcg_readout(R, W, src, pb->op, &opt, o->progress, info, err);
    free(W);
    fsvc_hsrc_close(&all);
    fsvc_hsrc_close(&loc);
    bnl_blas_threads_pop(blas_saved);
    return rc;
}

/* Weights of 1, class or sample, are no weights (fsvc_weights_or_null): the
 * unweighted path, so the same model bits by construction. */
int fsvc_readout_solve(double *R, const fsvc_ridge_problem *pb, const fsvc_ridge_opt *o,
                       fsvc_train_info *info, fsvc_error *err)
{
    const fsvc_comm *comm = pb->comm;
    const bnl_op *op = pb->op;
    const double *cw = pb->cw;
    int64_t m = pb->m, N = pb->N;
    int n = pb->n, K = pb->K;
    double lambda = o->lambda, ram = o->ram;
    int nv = fsvc_augment_count(o->aug);
    fsvc_ridge_problem p = *pb;
    p.cw = cw = fsvc_weights_or_null(cw, K);
    p.sw = fsvc_weights_or_null(pb->sw, N);
    /* the arguments are the same on every rank, but the check sees N_total:
     * a rank with an empty slice is no error */
    int rc = check_args(lambda, o->tol, m, pb->N_total, nv, o->solver, o->rows, o->cols, n,
                        o->aug, err);
    if (rc) return rc;
    int rule;
    fsvc_solver s = fsvc_solver_resolve(&p, o, &rule);
    if (!(ram > 0)) ram = fsvc_phys_ram();
    double budget, need;
    rc = memory_check(s, &p, ram, &budget, &need, err);
    if ((rc = fsvc_comm_agreed(comm, rc, err))) /* each rank checks its own machine */
        return rc;
    if (info) {
        info->solver = s;
        info->solver_rule = rule;
        info->cg_iter = 0;
        info->cg_res = 0;
        info->cg_converged = 0;
    }
    int bars = o->progress == FSVC_PROGRESS_ALL; /* progress lines; any progress: messages */
    if (s == FSVC_SOLVER_DIRECT)
        return fsvc_readout_ridge(R, &p, lambda, -1, bars, info ? info->t_ridge : NULL, err);
    fsvc_ridge_opt po = *o;
    int cache;
    int bounded = fsvc_h_bounded(op, p.cw, K, p.sw, N), f64 = op->dtype == FSVC_F64;
    if ((rc = fsvc_comm_agreed(comm, fsvc_pcg_h_check(o->h16, f64, bounded, err), err)))
        return rc;
    po.h16 = fsvc_pcg_h_pick(o->h16, f64, bounded, lambda, (double)N * nv * m,
                             ram > 0 ? (budget - need) / 2 : 0, o->progress, &cache);
    return solve_pcg(R, &p, &po, cache, info, err);
}

int fsvc_h_bounded(const bnl_op *op, const double *cw, int K, const double *sw, int64_t N)
{
    if (op->act != BNL_TRI && op->act != BNL_GAUSS && op->act != BNL_TANH) return 0;
    for (int k = 0; cw && k < K; k++)
        if (!(cw[k] <= 65536.0)) return 0;
    for (int64_t i = 0; sw && i < N; i++)
        if (!(sw[i] <= 65536.0)) return 0;
    return 1;
}

int fsvc_pcg_h_check(int h16, int f64, int bounded, fsvc_error *err)
{
    if (h16 == BNL_H_F16 && !bounded && !f64)
        return fsvc_fail(err, FSVC_EUSAGE, "--pcg-h f16 needs activations within [-1, 1] (tri, "
                         "gauss, tanh) and row weights up to 65536; use bf16 or f32");
    return FSVC_OK;
}

int fsvc_pcg_h_pick(int h16, int f64, int bounded, double lambda, double values, double room,
                    int progress, int *cache)
{
    /* auto: f16 where its floor is small against the ridge (the header);
     * a bf16 H's floor acts as a larger ridge (about 0.3x a lambda of 1e-5,
     * 25x one of 1e-7), so bf16 only when asked */
    int fmt = f64 ? BNL_H_F32 : h16 >= 0 ? h16
              : bounded && lambda >= FSVC_PCG_F16_MIN_LAMBDA ? BNL_H_F16 : BNL_H_F32;
    *cache = room > 0 && values * (f64 ? 8 : fmt ? 2 : 4) <= room;
    if (h16 < 0 && progress && !*cache && !fmt && !f64 && values * 2 <= room)
        fsvc_printf("pcg: H (%.1f GB as float) is over half the free memory (%.1f GB), so it "
                    "is made anew every pass; --pcg-h %s keeps it (half the bytes; its "
                    "rounding acts as a larger ridge)\n", values * 4 / 1e9, room / 1e9,
                    bounded ? "f16" : "bf16");
    if (h16 < 0 && progress && *cache && fmt == BNL_H_F16) /* a new default: say so */
        fsvc_printf("pcg: H kept in f16 (%.1f GB); its rounding adds under 5 %% to the ridge; "
                    "--pcg-h f32 keeps it in floats\n", values * 2 / 1e9);
    return fmt;
}
