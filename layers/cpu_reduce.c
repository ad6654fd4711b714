/* cpu_reduce.c - the fused reductions on the CPU backend: activation sums
 * (bnl_actsum) and readout scores (bnl_scores) without materialising H.
 * Threads split the samples (row blocks of the planner's tile_N), never
 * the neurons: for each sample the m tiles run in increasing order. The
 * actsum j loop is the reference loop (same bits as the reference when
 * the activations are); scores add each tile's H R into Y with the tier's
 * hscore kernel for f32 H (a fixed fma order: the same bits on every
 * tier, for any row blocking) or else one single-threaded float64 BLAS
 * dgemm (H converted to double), so Y is the same bits for any thread
 * count (the row blocks do not depend on it) and equals the sequential
 * H R within rounding. */
#include "cpu_tile.h"

#include <cblas.h>
#include <stdlib.h>

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* What to do with each H tile (rows x cols at Ht, ld cols). */
typedef struct reduce_spec {
    double *S;          /* actsum: N */
    double *Y;          /* scores: N x K */
    const double *R;    /* scores: m x K */
    int K;
    bnl_hscore_fn hscore; /* scores of f32 tiles; NULL: dgemm */
} reduce_spec;

static void reduce_tile(const reduce_spec *rs, const void *Ht, double *Hd, int f64,
                        int64_t i0, int64_t rows, int64_t j0, int64_t cols)
{
    if (rs->Y && !f64 && rs->hscore) {
        rs->hscore(rs->Y + i0 * rs->K, Ht, rows, cols, rs->R + j0 * rs->K, rs->K);
        return;
    }
    if (rs->Y) { /* Y rows i0.. += H tile (rows x cols) R rows j0.. */
        const double *A = Ht;
        if (!f64) {
            const float *hf = Ht;
            for (int64_t q = 0; q < rows * cols; q++)
                Hd[q] = (double)hf[q];
            A = Hd;
        }
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, rs->K, (int)cols,
                    1.0, A, (int)cols, rs->R + j0 * rs->K, rs->K, 1.0, rs->Y + i0 * rs->K,
                    rs->K);
        return;
    }
    for (int64_t i = 0; i < rows; i++) {
        const float *hf = (const float *)Ht + i * cols;
        const double *hd = (const double *)Ht + i * cols;
        if (rs->S) {
            double s = rs->S[i0 + i];
            for (int64_t j = 0; j < cols; j++)
                s += f64 ? hd[j] : (double)hf[j];
            rs->S[i0 + i] = s;
        } else {
            const int K = rs->K;
            double *y = rs->Y + (i0 + i) * K;
            for (int64_t j = 0; j < cols; j++) {
                double h = f64 ? hd[j] : (double)hf[j];
                if (h == 0.0)
                    continue; /* exact: adding 0 * R changes nothing (R finite) */
                const double *r = rs->R + (j0 + j) * K;
                for (int k = 0; k < K; k++)
                    y[k] += h * r[k];
            }
        }
    }
}

static int reduce(const bnl_ctx *ctx, const bnl_op *op, const reduce_spec *rs,
                  const void *W, int64_t m, const void *X, int64_t N, int n,
                  fsvc_error *err)
{
    bnl_plan pl = bnl_plan_for(ctx, op, m, N, n);
    bnl_cpu_job job;
    int rc = bnl_cpu_job_init(&job, ctx, op, W, m, X, N, n, err);
    if (rc)
        return rc;
    /* samples are the only parallel dimension here: row blocks of at most
     * N/8 (a multiple of 16), whatever the thread count */
    const int64_t tm = pl.tile_m;
    int64_t tN = (N + 7) / 8;
    tN = (tN + 15) / 16 * 16;
    tN = tN < pl.tile_N ? tN : pl.tile_N;
    bnl_cpu_job_dnnl(&job, ctx, tN, tm); /* its tiles are dense: no scratch */
    const int f64 = op->dtype == FSVC_F64, u8 = op->dtype == FSVC_U8;
    const size_t es = f64 ? sizeof(double) : sizeof(float);
    const int blas1 = job.gemm || rs->Y; /* BLAS inside the threads: 1 thread */
    int saved = blas1 ? bnl_blas_threads_push(ctx, 1) : 0;
    int nomem = 0;
    #pragma omp parallel num_threads(bnl_par_threads(ctx, m, N, n))
    {
        void *Ht = malloc((size_t)(tN * tm) * es);
        int32_t *scratch = u8 ? malloc((size_t)(tN * tm) * sizeof(int32_t)) : NULL;
        int hd = rs->Y && !f64 && !rs->hscore; /* dgemm's double copy of a tile */
        double *Hd = hd ? malloc((size_t)(tN * tm) * sizeof(double)) : NULL;
        int ok = Ht && (!u8 || scratch) && (!hd || Hd);
        if (!ok) {
            #pragma omp atomic write
            nomem = 1;
        }
        #pragma omp for schedule(dynamic, 1)
        for (int64_t b = 0; b < ceil_div(N, tN); b++) {
            if (!ok)
                continue;
            int64_t i0 = b * tN, rows = N - i0 < tN ? N - i0 : tN;
            for (int64_t j0 = 0; j0 < m; j0 += tm) {
                int64_t cols = m - j0 < tm ? m - j0 : tm;
                bnl_cpu_tile(&job, Ht, cols, scratch, i0, rows, j0, cols);
                reduce_tile(rs, Ht, Hd, f64, i0, rows, j0, cols);
            }
        }
        free(Ht);
        free(Hd);
        free(scratch);
    }
    if (blas1)
        bnl_blas_threads_pop(saved);
    bnl_cpu_job_free(&job);
    if (nomem)
        return fsvc_fail(err, FSVC_ERESOURCE, "bnl: out of memory for a %lld x %lld tile",
                         (long long)tN, (long long)tm);
    if (job.dnnl_failed)
        return fsvc_fail(err, FSVC_ERESOURCE, "bnl: oneDNN's matmul failed on a %lld x %lld "
                         "tile", (long long)tN, (long long)tm);
    return FSVC_OK;
}

const char *bnl_scores_cpu_path(const bnl_ctx *ctx, const char **tier)
{
    const bnl_kernels *k = bnl_kernels_get(ctx->arch);
    *tier = k->hscore ? k->name : "openblas-dgemm";
    return k->hscore ? "fused" : "gemm";
}

#define HOST_ROWS 64 /* rows per block of bnl_scores_host */

int bnl_scores_host(const bnl_ctx *ctx, double *Y, const float *H, int64_t N, int64_t m,
                    const double *R, int K, fsvc_error *err)
{
    bnl_hscore_fn f = bnl_kernels_get(ctx->arch)->hscore;
    int nomem = 0, saved = f ? 0 : bnl_blas_threads_push(ctx, 1);
    #pragma omp parallel num_threads(ctx->threads > 0 ? ctx->threads : 1) reduction(| : nomem)
    {
        double *Hd = f ? NULL : malloc((size_t)(HOST_ROWS * m) * sizeof *Hd);
        nomem = !f && !Hd;
        #pragma omp for schedule(static)
        for (int64_t i0 = 0; i0 < N; i0 += HOST_ROWS) {
            int64_t rows = N - i0 < HOST_ROWS ? N - i0 : HOST_ROWS;
            const float *h = H + (size_t)i0 * (size_t)m;
            double *y = Y + (size_t)i0 * (size_t)K;
            if (f) {
                for (int64_t q = 0; q < rows * K; q++) y[q] = 0.0;
                f(y, h, rows, m, R, K);
            } else if (Hd) {
                for (int64_t q = 0; q < rows * m; q++) Hd[q] = h[q];
                cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, K, (int)m, 1.0,
                            Hd, (int)m, R, K, 0.0, y, K);
            }
        }
        free(Hd);
    }
    if (!f) bnl_blas_threads_pop(saved);
    return nomem ? fsvc_fail(err, FSVC_ERESOURCE, "bnl: out of memory for %d x %lld scores",
                             HOST_ROWS, (long long)m)
                 : FSVC_OK;
}

int bnl_cpu_actsum(const bnl_ctx *ctx, const bnl_op *op, double *S,
                   const void *W, int64_t m, const void *X, int64_t N, int n,
                   fsvc_error *err)
{
    reduce_spec rs = {S, NULL, NULL, 0, NULL};
    return reduce(ctx, op, &rs, W, m, X, N, n, err);
}

int bnl_cpu_scores(const bnl_ctx *ctx, const bnl_op *op, double *Y,
                   const void *W, int64_t m, const void *X, int64_t N, int n,
                   const double *R, int K, fsvc_error *err)
{
    for (int64_t i = 0; i < N * K; i++)
        Y[i] = 0.0;
    reduce_spec rs = {NULL, Y, R, K, bnl_kernels_get(ctx->arch)->hscore};
    return reduce(ctx, op, &rs, W, m, X, N, n, err);
}
