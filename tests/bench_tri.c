/*
 * bench_tri.c - bnl_chol_solve (the forward and backward triangular
 * solves of pcg's preconditioner) over one f32 factor, m x m, K
 * right-hand sides, on three tiers in the same run:
 *   default   the CPU's best tier: block updates on its kernels.h tri_fwd
 *             and tri_back;
 *   avx512    GEMMs (the tier keeps today's kernels: bnl_sgemm, OpenBLAS);
 *   avx2      the 256-bit kernels.
 * Rounds alternate the tiers (a shared machine), best of REPS each; prints
 * one CSV line per tier: tier,m,K,ms,GB_per_s (the factor's lower
 * triangle read twice per solve),ratio (avx512's time over this one's).
 *
 * Not part of make test: scripts/tri_bench.sh builds and runs it.
 * Usage: bench_tri [m K reps]   (default 10000 10 7)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "layers/bnl.h"
#include "layers/kernels.h"

int main(int argc, char **argv)
{
    int64_t m = argc > 1 ? atoll(argv[1]) : 10000;
    int K = argc > 2 ? atoi(argv[2]) : 10, reps = argc > 3 ? atoi(argv[3]) : 7;
    float *L = malloc((size_t)m * m * sizeof *L), *B = malloc((size_t)m * K * sizeof *B);
    if (!L || !B || m < 1 || K < 1) { fprintf(stderr, "bench_tri: bad size or no memory\n"); return 3; }
    uint32_t s = 1;
    for (int64_t j = 0; j < m; j++) /* a well-conditioned factor: unit diagonal, small below */
        for (int64_t i = 0; i < m; i++) {
            s = s * 1103515245u + 12345u;
            L[j * m + i] = i == j ? 1.0f : i > j ? ((float)(s >> 9) / 8388608.0f - 0.5f) / (float)m
                                                 : 0.0f;
        }
    enum { NT = 3 };
    static const bnl_arch want[NT] = {BNL_ARCH_COUNT, BNL_ARCH_AVX512, BNL_ARCH_AVX2};
    bnl_ctx ctx[NT];
    int ok[NT];
    double best[NT];
    for (int t = 0; t < NT; t++) {
        fsvc_error err;
        ok[t] = bnl_ctx_open(&ctx[t], "cpu", 0, 0, &err) == FSVC_OK;
        if (ok[t] && want[t] != BNL_ARCH_COUNT)
            ok[t] = bnl_arch_supported(want[t]) &&
                    bnl_ctx_set_arch(&ctx[t], want[t], NULL) == FSVC_OK;
        best[t] = 1e30;
    }
    for (int r = 0; r < reps; r++)
        for (int t = 0; t < NT; t++) {
            if (!ok[t]) continue;
            for (int64_t q = 0; q < m * K; q++) B[q] = (float)(q % 7) - 3;
            double t0 = omp_get_wtime();
            bnl_chol_solve(&ctx[t], L, m, m, 1, B, K, m);
            t0 = omp_get_wtime() - t0;
            if (t0 < best[t]) best[t] = t0;
        }
    for (int t = 0; t < NT; t++) {
        if (!ok[t]) continue;
        const bnl_kernels *k = bnl_kernels_get(ctx[t].arch);
        printf("%s%s,%lld,%d,%.2f,%.2f,%.2f\n", t ? "" : "default:", k->name, (long long)m, K,
               best[t] * 1e3, (double)m * (double)m * 4 / best[t] / 1e9,
               ok[1] ? best[1] / best[t] : 0.0);
        bnl_ctx_close(&ctx[t]);
    }
    free(L); free(B);
    return 0;
}
