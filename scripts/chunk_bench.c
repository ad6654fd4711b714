/* chunk_bench.c - one chunk of a pcg pass over H, as layers/cpu_hprod.c
 * makes it: bnl_forward of N samples against the same m x n centroids W
 * (L2/Gaussian, f32, --precision full or bf16) on a 2-thread CPU context,
 * with W held (bnl_weights_hold: its bf16 copy, norms and oneDNN packing
 * kept, as the pcg session holds its centroids) or not (made per call).
 * Prints the least process CPU time of REPS calls (after one warm call):
 *   cpu_ms=MS
 * Built with -DNO_HOLD against a build without bnl_weights_hold. Used by
 * scripts/bf16_job.sh. usage: chunk_bench m N n REPS full|bf16 held|unheld */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layers/bnl.h"

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: chunk_bench m N n REPS full|bf16 held|unheld\n");
        return 2;
    }
    int64_t m = atoll(argv[1]), N = atoll(argv[2]);
    int n = atoi(argv[3]), reps = atoi(argv[4]);
    int bf = !strcmp(argv[5], "bf16"), held = !strcmp(argv[6], "held");
    float *W = malloc(sizeof *W * (size_t)(m * n)), *X = malloc(sizeof *X * (size_t)(N * n));
    float *H = malloc(sizeof *H * (size_t)(N * m));
    if (m < 1 || N < 1 || n < 1 || reps < 1 || !W || !X || !H) {
        fprintf(stderr, "chunk_bench: bad sizes or no memory\n");
        return 2;
    }
    uint64_t s = 88172645463325252ull;
    for (int64_t q = 0; q < m * n; q++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; W[q] = (float)(s % 1000) / 1000; }
    for (int64_t q = 0; q < N * n; q++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; X[q] = (float)(s % 1000) / 1000; }
    bnl_ctx ctx;
    fsvc_error err;
    if (bnl_ctx_open(&ctx, "cpu", 2, 1, &err)) {
        fprintf(stderr, "chunk_bench: %s\n", err.msg);
        return 1;
    }
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 10.0, bf ? BNL_PREC_BF16 : BNL_PREC_FULL};
#ifndef NO_HOLD
    if (held && bnl_weights_hold(&ctx, W, m, n)) {
        fprintf(stderr, "chunk_bench: no hold\n");
        return 1;
    }
#else
    if (held) {
        fprintf(stderr, "chunk_bench: built without holds\n");
        return 2;
    }
#endif
    double best = 1e30;
    for (int r = 0; r <= reps; r++) {
        double t = cpu_s();
        if (bnl_forward(&ctx, &op, H, m, W, m, X, N, n, &err)) {
            fprintf(stderr, "chunk_bench: %s\n", err.msg);
            return 1;
        }
        t = cpu_s() - t;
        if (r > 0 && t < best) best = t; /* the first call makes what a hold keeps */
    }
    printf("cpu_ms=%.3f\n", best * 1e3);
    bnl_ctx_close(&ctx);
    free(W); free(X); free(H);
    return 0;
}
