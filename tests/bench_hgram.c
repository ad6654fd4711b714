/*
 * bench_hgram.c - pcg's block products (U = H V^T, Y += H^T U over row
 * blocks, as layers/cpu_hprod.c runs them: blocks of 32 rows spread over
 * the threads, each thread its own Y) on the same H, N x m, K columns:
 *   gemm f32   two bnl_sgemm calls per block (the float H's path);
 *   gemm bf16  16 rows widened to f32, then the two calls (the bf16 H's
 *              path on tiers without the fused kernel, and before it);
 *   gemm f16   the same for an f16 H;
 *   fused f32, fused bf16, fused f16  the tier's kernels.h hgram.
 * Rounds alternate the six, best of REPS each (a shared machine);
 * prints one CSV line per path: m,K,path,seconds,Gel_per_s,ratio (to
 * gemm bf16).
 *
 * Not part of make test: scripts/hgram_bench.sh builds and runs it.
 * Usage: bench_hgram [m K N reps]   (default 10000 10 60000 5)
 */
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/bnl.h"
#include "layers/cpu_sgemm.h"
#include "layers/kernels.h"
#include "layers/round_hd.h"

#define ROWS 32   /* HB_ROWS of cpu_hprod.c */
#define BF_ROWS 16 /* HB_BF_ROWS */

typedef struct job {
    const bnl_ctx *ctx;
    const bnl_kernels *k;
    int64_t m, N;
    int K, T;
    const float *Hf, *V;
    const uint16_t *Hb, *Hh; /* bf16, f16 */
} job;

static void gemm_block(const job *j, const float *H, int rb, float *U, float *Y)
{
    int m = (int)j->m, K = j->K;
    if (bnl_sgemm_dnnl(j->ctx)) { /* the transposed form cpu_hprod.c takes on oneDNN */
        bnl_sgemm(j->ctx, CblasRowMajor, CblasNoTrans, CblasTrans, K, rb, m, 1.0f, j->V, m, H,
                  m, 0.0f, U, rb);
        bnl_sgemm(j->ctx, CblasRowMajor, CblasNoTrans, CblasNoTrans, K, m, rb, 1.0f, U, rb, H, m,
                  1.0f, Y, m);
        return;
    }
    bnl_sgemm(j->ctx, CblasRowMajor, CblasNoTrans, CblasTrans, rb, K, m, 1.0f, H, m, j->V, m,
              0.0f, U, K);
    bnl_sgemm(j->ctx, CblasRowMajor, CblasTrans, CblasNoTrans, K, m, rb, 1.0f, U, K, H, m, 1.0f,
              Y, m);
}

/* the tier's widening, else cpu_hprod.c's scalar loop */
static void widen(const bnl_kernels *k, int f16, float *out, const uint16_t *in, size_t count)
{
    if (f16 && k->f16_widen) k->f16_widen(out, in, count);
    else if (f16) for (size_t q = 0; q < count; q++) out[q] = bnl_f16_float(in[q]);
    else if (k->bf16_widen) k->bf16_widen(out, in, count);
    else for (size_t q = 0; q < count; q++) out[q] = bnl_bits_f32((uint32_t)in[q] << 16);
}

/* one pass over H by path p (0 gemm f32, 1 gemm bf16, 2 gemm f16, 3 fused
 * f32, 4 fused bf16, 5 fused f16) */
static double pass(const job *j, int p)
{
    int64_t m = j->m, nb = (j->N + ROWS - 1) / ROWS;
    int K = j->K;
    int saved = bnl_blas_threads_push(j->ctx, 1);
    double t = omp_get_wtime();
#pragma omp parallel num_threads(j->T)
    {
        float *Y = calloc((size_t)K * m, sizeof *Y), *U = malloc(ROWS * (size_t)K * sizeof *U);
        float *B = p == 1 || p == 2 ? malloc(BF_ROWS * (size_t)m * sizeof *B) : NULL;
#pragma omp for schedule(static)
        for (int64_t q = 0; q < nb; q++) {
            int64_t r0 = q * ROWS;
            int rb = (int)(j->N - r0 < ROWS ? j->N - r0 : ROWS);
            for (int r = 0; r < rb; r += BF_ROWS) {
                int nr = rb - r < BF_ROWS ? rb - r : BF_ROWS;
                size_t off = (size_t)(r0 + r) * m;
                const uint16_t *h16 = (p == 2 || p == 5 ? j->Hh : j->Hb) + off;
                if (p == 0) gemm_block(j, j->Hf + off, nr, U, Y);
                else if (p < 3) {
                    widen(j->k, p == 2, B, h16, (size_t)nr * m);
                    gemm_block(j, B, nr, U, Y);
                } else if (p == 3) j->k->hgram(j->Hf + off, BNL_H_F32, nr, m, K, j->V, U, Y);
                else j->k->hgram(h16, p == 5 ? BNL_H_F16 : BNL_H_BF16, nr, m, K, j->V, U, Y);
            }
        }
        free(Y); free(U); free(B);
    }
    t = omp_get_wtime() - t;
    bnl_blas_threads_pop(saved);
    return t;
}

int main(int argc, char **argv)
{
    int64_t m = argc > 1 ? atoll(argv[1]) : 10000, N = argc > 3 ? atoll(argv[3]) : 60000;
    int K = argc > 2 ? atoi(argv[2]) : 10, reps = argc > 4 ? atoi(argv[4]) : 5;
    bnl_ctx ctx;
    fsvc_error err;
    if (bnl_ctx_open(&ctx, "cpu", 0, 0, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
    const bnl_kernels *k = bnl_kernels_get(ctx.arch);
    if (!k->hgram) {
        fprintf(stderr, "bench_hgram: tier %s has no fused products here\n", k->name);
        return 2;
    }
    size_t hn = (size_t)N * m;
    float *Hf = malloc(hn * sizeof *Hf), *V = malloc((size_t)K * m * sizeof *V);
    uint16_t *Hb = malloc(hn * sizeof *Hb), *Hh = malloc(hn * sizeof *Hh);
    if (!Hf || !V || !Hb || !Hh) { fprintf(stderr, "bench_hgram: out of memory\n"); return 3; }
    uint64_t s = 1;
    for (size_t q = 0; q < hn; q++) { /* Gaussian-layer-like values in [0, 1) */
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        Hb[q] = bnl_bf16_bits(Hf[q] = (float)(s >> 40) / (float)(1 << 24));
        Hh[q] = bnl_f16_bits(Hf[q]);
    }
    for (size_t q = 0; q < (size_t)K * m; q++) V[q] = (float)((q % 17) - 8) / 8;
    int T = ctx.threads > 0 ? ctx.threads : omp_get_max_threads();
    job j = {&ctx, k, m, N, K, T, Hf, V, Hb, Hh};
    static const char *name[6] = {"gemm f32", "gemm bf16", "gemm f16", "fused f32", "fused bf16",
                                  "fused f16"};
    double best[6] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30};
    for (int r = 0; r < reps; r++)
        for (int p = 0; p < 6; p++) {
            double t = pass(&j, p);
            if (t < best[p]) best[p] = t;
        }
    printf("tier,%s,threads,%d\n", k->name, T);
    for (int p = 0; p < 6; p++)
        printf("%lld,%d,%s,%.4f,%.2f,%.2f\n", (long long)m, K, name[p], best[p],
               (double)hn / best[p] / 1e9, best[1] / best[p]);
    free(Hf); free(V); free(Hb); free(Hh);
    bnl_ctx_close(&ctx);
    return 0;
}
