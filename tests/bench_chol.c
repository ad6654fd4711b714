/*
 * bench_chol.c - times the blocked Cholesky of fsvc/chol.c (fixed blocks,
 * one single-threaded BLAS call each: the same bits for any thread count)
 * against one LAPACKE_dpotrf call with OpenBLAS's own threads, on the same
 * SPD matrix (a Gram matrix plus its mean diagonal), and the syrk that
 * builds it against one threaded cblas_dsyrk, the two alternating, best of
 * REPS each (the best resists other jobs on a shared machine); prints
 * m,threads,op,lapack_s,fsvc_s,ratio (fsvc / lapack) and whether the
 * factors agree to 1e-8 relative.
 *
 * Not part of make test. Build by hand after `make`:
 *   gcc -O2 -fopenmp -I. -Ilayers -o build/bench_chol tests/bench_chol.c build/libfsvc.a \
 *       -lm -L/usr/lib/x86_64-linux-gnu/openblas-pthread/ -lopenblas -llapacke -llapack \
 *       -lz -lpng16
 * Usage: bench_chol [m threads reps]   (default 4000 2 3)
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int main(int argc, char **argv)
{
    int64_t m = argc > 1 ? atoll(argv[1]) : 4000, N = m + 500;
    int T = argc > 2 ? atoi(argv[2]) : 2, reps = argc > 3 ? atoi(argv[3]) : 3;
    bnl_ctx ctx;
    fsvc_error err;
    if (bnl_ctx_open(&ctx, "cpu", T, 0, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
    double *H = malloc((size_t)N * m * sizeof *H), *G = calloc((size_t)m * m, sizeof *G);
    double *A = malloc((size_t)m * m * sizeof *A), *B = malloc((size_t)m * m * sizeof *B);
    if (!H || !G || !A || !B) return 3;
    srand(1);
    for (size_t q = 0; q < (size_t)N * m; q++) H[q] = (double)rand() / RAND_MAX;
    double best_l = 1e30, best_f = 1e30;
    for (int r = 0; r < reps; r++) { /* syrk: G = H^T H, H row-major N x m */
        int s = bnl_blas_threads_push(&ctx, 0);
        double t = fsvc_clock();
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)m, (int)N, 1.0, H, (int)m, 0.0,
                    A, (int)m);
        t = fsvc_clock() - t;
        bnl_blas_threads_pop(s);
        if (t < best_l) best_l = t;
        t = fsvc_clock();
        bnl_syrk_acc(&ctx, G, m, H, m, m, N, 0.0, 0);
        t = fsvc_clock() - t;
        if (t < best_f) best_f = t;
    }
    printf("%lld,%d,syrk,%.3f,%.3f,%.3f\n", (long long)m, T, best_l, best_f, best_f / best_l);
    double md = 0;
    for (int64_t j = 0; j < m; j++) md += G[(size_t)j * m + j];
    for (int64_t j = 0; j < m; j++) G[(size_t)j * m + j] += md / m;
    best_l = best_f = 1e30;
    for (int r = 0; r < reps; r++) {
        memcpy(A, G, (size_t)m * m * sizeof *A);
        int s = bnl_blas_threads_push(&ctx, 0);
        double t = fsvc_clock();
        int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)m, A, (lapack_int)m);
        t = fsvc_clock() - t;
        bnl_blas_threads_pop(s);
        if (info) { fprintf(stderr, "dpotrf info %d\n", info); return 2; }
        if (t < best_l) best_l = t;
        memcpy(B, G, (size_t)m * m * sizeof *B);
        t = fsvc_clock();
        info = bnl_chol(&ctx, B, m, m, 0, NULL);
        t = fsvc_clock() - t;
        if (info) { fprintf(stderr, "bnl_chol info %d\n", info); return 2; }
        if (t < best_f) best_f = t;
    }
    double dmax = 0, amax = 0;
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = j; i < m; i++) {
            double a = A[(size_t)j * m + i], b = B[(size_t)j * m + i];
            if (fabs(a - b) > dmax) dmax = fabs(a - b);
            if (fabs(a) > amax) amax = fabs(a);
        }
    printf("%lld,%d,potrf,%.3f,%.3f,%.3f,%s\n", (long long)m, T, best_l, best_f,
           best_f / best_l, dmax <= 1e-8 * amax ? "agree" : "DIFFER");
    bnl_ctx_close(&ctx);
    free(H); free(G); free(A); free(B);
    return 0;
}
