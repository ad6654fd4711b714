/* bench_run.c - one measured configuration of `fsvc bench`: the forward
 * pass on the chosen backend (min and median of repeats), `ref` on a
 * sub-sample of N scaled to the full shape, the bare sgemm/dgemm of the same
 * shape, and the distance kernels alone over the planner's tiles. */
#include "tools/bench.h"
#include "tools/cli.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *bench_op_name(bench_opk k)
{
    return k == BENCH_RBF_L1 ? "rbf-l1" : k == BENCH_RBF_L2 ? "rbf-l2" : "mul";
}

int bench_op_parse(const char *s, bench_opk *out)
{
    if (!strcmp(s, "rbf-l1")) *out = BENCH_RBF_L1;
    else if (!strcmp(s, "rbf-l2")) *out = BENCH_RBF_L2;
    else if (!strcmp(s, "mul")) *out = BENCH_MUL;
    else return -1;
    return 0;
}

bnl_op bench_make_op(const bench_cfg *c)
{
    bnl_op op;
    double maxv = c->dtype == FSVC_U8 ? 255.0 : 1.0;
    op.dtype = c->dtype;
    op.act = c->act;
    op.precision = c->precision;
    if (c->opk == BENCH_RBF_L1) {
        op.dist = BNL_L1;
        op.radius = maxv * c->n / 3.0 / BNL_TRI_SCALE; /* about half the pairs inside */
    } else if (c->opk == BENCH_RBF_L2) {
        op.dist = BNL_L2;
        op.radius = maxv * sqrt(c->n / 6.0) / (c->act == BNL_TRI ? BNL_TRI_SCALE : 1.0);
    } else {
        op.dist = BNL_DOT;
        op.radius = 0.0;
    }
    return op;
}

/* A: rows x n of dtype, uniform: u8 0..255, floats [0, 1) / sqrt(n) for dot
 * (keeps tanh off saturation), [0, 1) otherwise. */
static void *make_data(fsvc_dtype dt, int64_t rows, int n, int dot, uint64_t seed)
{
    size_t es = fsvc_dtype_size(dt);
    void *A = malloc((size_t)(rows * n) * es);
    if (!A)
        return NULL;
    double sc = dot ? 1.0 / sqrt((double)n) : 1.0;
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < rows; i++) {
        uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
        for (int k = 0; k < n; k++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            size_t at = (size_t)(i * n + k);
            if (dt == FSVC_U8) ((uint8_t *)A)[at] = (uint8_t)(s >> 56);
            else if (dt == FSVC_F32) ((float *)A)[at] = (float)((s >> 11) * 0x1p-53 * sc);
            else ((double *)A)[at] = (s >> 11) * 0x1p-53 * sc;
        }
    }
    return A;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The distance kernels alone over the plan's tiles (no activation). */
static void kernel_pass(const bnl_ctx *ctx, const bnl_op *op, const bnl_plan *pl, void *H,
                        const void *W, int64_t m, const void *X, int64_t N, int n, int threads)
{
    const int64_t tm = pl->tile_m, tN = pl->tile_N, mt = (m + tm - 1) / tm;
    const int64_t tiles = mt * ((N + tN - 1) / tN);
    size_t es = fsvc_dtype_size(op->dtype);
    #pragma omp parallel num_threads(threads)
    {
        int32_t *scr = op->dtype == FSVC_U8 ? malloc((size_t)(tN * tm) * 4) : NULL;
        #pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < tiles; t++) {
            int64_t i0 = t / mt * tN, j0 = t % mt * tm;
            int64_t rows = N - i0 < tN ? N - i0 : tN, cols = m - j0 < tm ? m - j0 : tm;
            const char *Wt = (const char *)W + (size_t)(j0 * n) * es;
            const char *Xt = (const char *)X + (size_t)(i0 * n) * es;
            if (op->dtype == FSVC_U8) {
                if (!scr)
                    continue;
                bnl_kernel_dist(ctx->arch, op, scr, cols, Wt, cols, Xt, rows, n, NULL);
            } else {
                bnl_kernel_dist(ctx->arch, op, (char *)H + (size_t)(i0 * m + j0) * es, m, Wt,
                                cols, Xt, rows, n, NULL);
            }
        }
        free(scr);
    }
}

int bench_run(bench_res *r, const bench_cfg *c, fsvc_error *err)
{
    memset(r, 0, sizeof *r);
    bnl_op op = bench_make_op(c);
    int rc = bnl_op_check(&op, err);
    if (rc)
        return rc;
    const int64_t m = c->m, N = c->N;
    const int n = c->n, dot = op.dist == BNL_DOT;
    size_t hs = op.dtype == FSVC_F64 ? 8 : 4;
    /* W, X and H must fit in RAM: refuse before allocating (and before the
     * kernel's overcommitted pages meet the OOM killer) */
    double need = ((double)m * n + (double)N * n) * fsvc_dtype_size(op.dtype) + (double)N * m * hs;
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (ram > 0 && need > ram)
        return fsvc_fail(err, FSVC_ERESOURCE, "bench: m=%lld N=%lld n=%d needs %.1f GiB, more "
                         "than this machine's %.1f GiB of RAM", (long long)m, (long long)N, n,
                         need / (1 << 30), ram / (1 << 30));
    void *W = make_data(op.dtype, m, n, dot, 1);
    void *X = make_data(op.dtype, N, n, dot, 2);
    void *H = malloc((size_t)(N * m) * hs);
    if (!W || !X || !H) {
        free(W); free(X); free(H);
        return fsvc_fail(err, FSVC_ERESOURCE, "bench: out of memory for m=%lld N=%lld n=%d",
                         (long long)m, (long long)N, n);
    }
    memset(H, 0, (size_t)(N * m) * hs);
    bnl_ctx ctx;
    rc = bnl_ctx_open(&ctx, c->backend, c->threads, c->strict, err);
    if (rc)
        goto out;
    bnl_arch want;
    if (c->arch && (bnl_arch_parse(c->arch, &want) ||
                    (rc = bnl_ctx_set_arch(&ctx, want, err)) != FSVC_OK)) {
        rc = rc ? rc : fsvc_fail(err, FSVC_EUSAGE, "bench: unknown CPU tier '%s'", c->arch);
        bnl_ctx_close(&ctx);
        goto out;
    }
    ctx.tile_m = c->tile_m;
    ctx.tile_N = c->tile_N;
    ctx.verbose = c->verbose;
    snprintf(r->backend_used, sizeof r->backend_used, "%s", bnl_backend_name(ctx.backend));
    snprintf(r->arch, sizeof r->arch, "%s", bnl_arch_name(ctx.arch));
    r->plan = bnl_plan_for(&ctx, &op, m, N, n);
    int reps = c->repeats > 0 ? c->repeats : 3;
    double *ts = calloc((size_t)reps, sizeof *ts);
    r->load1 = bench_loadavg();
    r->cpu_min = 1e30;
    /* warm-up (page faults, thread pools), then the repeats */
    rc = bnl_forward(&ctx, &op, H, m, W, m, X, N, n, err);
    for (int i = 0; !rc && i < reps; i++) {
        double c0 = bench_cpu_seconds(), t0 = cli_now();
        rc = bnl_forward(&ctx, &op, H, m, W, m, X, N, n, err);
        ts[i] = cli_now() - t0;
        double cs = bench_cpu_seconds() - c0;
        r->cpu_min = cs < r->cpu_min ? cs : r->cpu_min;
    }
    if (rc) {
        free(ts);
        bnl_ctx_close(&ctx);
        goto out;
    }
    qsort(ts, (size_t)reps, sizeof *ts, cmp_d);
    r->t_min = ts[0];
    r->t_med = reps % 2 ? ts[reps / 2] : 0.5 * (ts[reps / 2 - 1] + ts[reps / 2]);
    free(ts);
    double syn = (double)m * (double)N * n;
    r->t_syn = r->t_min / syn * 1e9;
    r->t_syn_cpu = r->cpu_min / (ctx.backend == BNL_REF ? 1 : ctx.threads) / syn * 1e9;
    r->gsyn = syn / r->t_min / 1e9;
    if (ctx.backend == BNL_CPU) {
        /* the peak of the very instructions the plan's kernel runs, on its
         * threads: wall clock (other jobs only lower it) and per CPU second
         * on both sides (the probe's rate is per CPU second of each thread:
         * contention cancels out); neither can pass ~100 % */
        r->probe_peak = bench_probe_peak(&r->plan, &op, &r->probe_what);
        if (r->probe_peak > 0) {
            r->peak_frac = syn / r->t_min / r->probe_peak;
            if (r->cpu_min > 0)
                r->probe_frac = syn / r->cpu_min / (r->probe_peak / r->plan.threads);
        }
    }
    bnlc_device dev;
    if (ctx.backend == BNL_CUDA && bnl_gpu_props(&ctx, &dev, NULL, 0) == 0) {
        /* the layer ran on the device: its own model, and the kernels with
         * the data resident beside the end-to-end time above */
        r->gpu_peak = bench_gpu_peak(&dev, &op);
        r->gpu_model = bench_gpu_peak_model();
        r->peak_frac = r->gpu_peak > 0 ? syn / r->t_min / r->gpu_peak : 0;
        double ks = 0;
        if (!c->no_kernel_only &&
            bnl_gpu_time_forward(&ctx, &op, W, m, X, N, n, reps, &ks, err) == FSVC_OK &&
            ks > 0) {
            r->gpu_kern_min = ks;
            r->gpu_kern_syn = ks / syn * 1e9;
            r->gpu_kern_frac = r->gpu_peak > 0 ? syn / ks / r->gpu_peak : 0;
        }
    }

    /* ref on a sub-sample of N (and of m when one row is already too much) */
    if (!c->no_ref && ctx.backend != BNL_REF) {
        bnl_ctx rctx;
        if (bnl_ctx_open(&rctx, "ref", 1, 1, err) == FSVC_OK) {
            double budget = c->ref_budget > 0 ? c->ref_budget : 1e8;
            int64_t rm = m, rN = (int64_t)(budget / ((double)m * n));
            if (rN < 1) {
                rN = 1;
                rm = (int64_t)(budget / n);
                rm = rm < 1 ? 1 : rm > m ? m : rm;
            }
            rN = rN > N ? N : rN;
            double t0 = cli_now();
            bnl_forward(&rctx, &op, H, rm, W, rm, X, rN, n, err);
            double tr = cli_now() - t0;
            r->ref_m = rm;
            r->ref_N = rN;
            r->ref_t_syn = tr / ((double)rm * rN * n) * 1e9;
            r->speedup = r->ref_t_syn / r->t_syn;
            bnl_ctx_close(&rctx);
        }
    }
    /* the bare GEMM of the same shape (OpenBLAS with the same threads) */
    if (!c->no_gemm && op.dtype != FSVC_U8 && op.dist != BNL_L1 && ctx.backend != BNL_REF) {
        int saved = bnl_blas_threads_push(&ctx, 0);
        double best = 1e30, bestc = 1e30;
        for (int i = 0; i <= reps; i++) {
            double c0 = bench_cpu_seconds(), t0 = cli_now();
            if (op.dtype == FSVC_F32)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)N, (int)m, n, 1.0f,
                            X, n, W, n, 0.0f, H, (int)m);
            else
                cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)N, (int)m, n, 1.0,
                            X, n, W, n, 0.0, H, (int)m);
            double t = cli_now() - t0, tc = bench_cpu_seconds() - c0;
            if (i > 0 && t < best)
                best = t;
            if (i > 0 && tc < bestc)
                bestc = tc;
        }
        r->gemm_min = best;
        r->gemm_cpu_min = bestc;
        bnl_blas_threads_pop(saved);
    }
    /* the distance kernels alone over the same tiles, where the op has
     * plain distance kernels (a bf16 layer's tier is GEMM-shaped: none) */
    if (!c->no_kernel_only && ctx.backend == BNL_CPU && !strcmp(r->plan.path, "kernels") &&
        bnl_kernel_dist(ctx.arch, &op, H, m, W, 1, X, 1, n, NULL) == FSVC_OK) {
        double best = 1e30, best1 = 1e30;
        for (int i = 0; i <= reps; i++) {
            double t0 = cli_now();
            kernel_pass(&ctx, &op, &r->plan, H, W, m, X, N, n, ctx.threads);
            double t = cli_now() - t0;
            if (i > 0 && t < best)
                best = t;
        }
        r->kern_min = best;
        if (c->verbose && ctx.threads > 1) {
            for (int i = 0; i <= (reps < 2 ? reps : 2); i++) {
                double t0 = cli_now();
                kernel_pass(&ctx, &op, &r->plan, H, W, m, X, N, n, 1);
                double t = cli_now() - t0;
                if (i > 0 && t < best1)
                    best1 = t;
            }
            r->kern1_min = best1;
        }
    }
    bnl_ctx_close(&ctx);
out:
    free(W);
    free(X);
    free(H);
    return rc;
}
