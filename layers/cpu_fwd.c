/* cpu_fwd.c - the CPU backend's forward pass: OpenMP threads share out the
 * planner's tiles; each tile is distance (micro-kernels or a one-thread
 * GEMM, OpenBLAS at 1 thread inside the team, or oneDNN's matmul on one
 * thread) + activation while in cache (cpu_tile.c). */
#include "cpu_tile.h"

#include <stdlib.h>

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int forward_tiles(const bnl_ctx *ctx, const bnl_cpu_job *job, const bnl_plan *pl,
                         void *H, int64_t ldh, fsvc_error *err)
{
    const int64_t tm = pl->tile_m, tN = pl->tile_N, m = job->m, N = job->N;
    const int64_t mt = ceil_div(m, tm), tiles = mt * ceil_div(N, tN);
    const size_t es = job->op->dtype == FSVC_F64 ? sizeof(double) : sizeof(float);
    const int u8 = job->op->dtype == FSVC_U8 || job->dw; /* a 4-byte scratch tile */
    int nomem = 0;
    #pragma omp parallel num_threads(bnl_par_threads(ctx, m, N, job->n))
    {
        int32_t *scratch = u8 ? malloc((size_t)(tN * tm) * sizeof(int32_t)) : NULL;
        if (u8 && !scratch) {
            #pragma omp atomic write
            nomem = 1;
        }
        #pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < tiles; t++) {
            if (u8 && !scratch)
                continue;
            int64_t i0 = t / mt * tN, j0 = t % mt * tm;
            int64_t rows = N - i0 < tN ? N - i0 : tN, cols = m - j0 < tm ? m - j0 : tm;
            char *Ht = (char *)H + (size_t)(i0 * ldh + j0) * es;
            bnl_cpu_tile(job, Ht, ldh, scratch, i0, rows, j0, cols);
        }
        free(scratch);
    }
    if (nomem)
        return fsvc_fail(err, FSVC_ERESOURCE, "bnl: out of memory for a %lld x %lld tile",
                         (long long)tN, (long long)tm);
    if (job->dnnl_failed)
        return fsvc_fail(err, FSVC_ERESOURCE, "bnl: oneDNN's matmul failed on a %lld x %lld "
                         "tile", (long long)tN, (long long)tm);
    return FSVC_OK;
}

int bnl_cpu_forward(const bnl_ctx *ctx, const bnl_op *op, void *H, int64_t ldh,
                    const void *W, int64_t m, const void *X, int64_t N, int n,
                    fsvc_error *err)
{
    bnl_plan pl = bnl_plan_for(ctx, op, m, N, n);
    bnl_cpu_job job;
    int rc = bnl_cpu_job_init(&job, ctx, op, W, m, X, N, n, err);
    if (rc)
        return rc;
    bnl_cpu_job_dnnl(&job, ctx, pl.tile_N, pl.tile_m);
    if (job.gemm) {
        int saved = bnl_blas_threads_push(ctx, 1); /* BLAS inside the team */
        rc = forward_tiles(ctx, &job, &pl, H, ldh, err);
        bnl_blas_threads_pop(saved);
    } else {
        rc = forward_tiles(ctx, &job, &pl, H, ldh, err);
    }
    bnl_cpu_job_free(&job);
    return rc;
}
