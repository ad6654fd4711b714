/* test_sgemm.c - the f32 GEMM of the ridge solves on the context's tier
 * (layers/cpu_sgemm.h) and the f32 Cholesky and solves on it:
 *   - bnl_sgemm against a double reference at shapes around the kernels'
 *     blocks (1, 7, 17, 33, 65, 257 rows and columns; K 1, 10, 300), both
 *     orders, the four transposes, alpha, beta, leading dimensions beyond
 *     the size; within the f32 rounding bound of the sums (below);
 *   - on every tier but onednn it is cblas_sgemm, bit for bit (FSVC_ARCH=
 *     avx512 keeps the bits of before), and on onednn it runs on oneDNN
 *     where this build and CPU have it;
 *   - one call gives the same bits inside a team of 2 threads as outside
 *     (one thread per call: what bnl_chol's same-bits promise needs);
 *   - bnl_chol f32 and bnl_chol_solve f32 on the onednn tier at sizes off
 *     the 256-column blocks: L L^T = A and A X = B within the rounding
 *     bound, the same bits on 1, 2 and 3 threads.
 * Bound: a sum of K f32 products rounded at each step differs from the
 * exact one by at most K u sum |a_k b_k| (u = 2^-24, first order), then
 * alpha, beta C and the final rounding: (K + 3) u (|alpha| sum |a b| +
 * |beta C|), taken twice for the second-order terms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "layers/bnl.h"
#include "layers/cpu_dnnl.h"
#include "layers/cpu_sgemm.h"

#define U_F32 5.9604644775390625e-08 /* 2^-24 */

static float frand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 11) / 9007199254740992.0 * 2 - 1);
}

static bnl_ctx open_arch(int T, bnl_arch arch, int *ok)
{
    bnl_ctx c;
    fsvc_error e;
    assert_int_equal(bnl_ctx_open(&c, "cpu", T, 0, &e), FSVC_OK);
    *ok = bnl_ctx_set_arch(&c, arch, NULL) == FSVC_OK;
    return c;
}

/* element (r, c) of an op(X) of the given order and transpose */
static double el(const float *X, int ld, CBLAS_ORDER o, CBLAS_TRANSPOSE t, int r, int c)
{
    int i = t == CblasNoTrans ? r : c, j = t == CblasNoTrans ? c : r;
    return o == CblasRowMajor ? X[(size_t)i * ld + j] : X[(size_t)j * ld + i];
}

/* One shape on ctx: bnl_sgemm within the bound of the double reference;
 * where `same` is set, bit for bit cblas_sgemm. */
static void one_shape(const bnl_ctx *ctx, CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb,
                      int M, int N, int K, int same)
{
    int ar = ta == CblasNoTrans ? M : K, ac = ta == CblasNoTrans ? K : M; /* A stored ar x ac */
    int br = tb == CblasNoTrans ? K : N, bc = tb == CblasNoTrans ? N : K;
    int lda = (o == CblasRowMajor ? ac : ar) + 3, ldb = (o == CblasRowMajor ? bc : br) + 1;
    int ldc = (o == CblasRowMajor ? N : M) + 2;
    size_t na = (size_t)lda * (o == CblasRowMajor ? ar : ac);
    size_t nb = (size_t)ldb * (o == CblasRowMajor ? br : bc);
    size_t nc = (size_t)ldc * (o == CblasRowMajor ? M : N);
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C);
    float *C0 = malloc(nc * sizeof *C0), *Cb = malloc(nc * sizeof *Cb);
    uint64_t s = (uint64_t)M * 131 + (uint64_t)N * 7 + (uint64_t)K;
    for (size_t q = 0; q < na; q++) A[q] = frand(&s);
    for (size_t q = 0; q < nb; q++) B[q] = frand(&s);
    for (size_t q = 0; q < nc; q++) C0[q] = frand(&s);
    const float alpha = -0.75f, beta = 0.5f;
    memcpy(C, C0, nc * sizeof *C);
    bnl_sgemm(ctx, o, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double e = 0, a = 0;
            for (int k = 0; k < K; k++) {
                double p = el(A, lda, o, ta, i, k) * el(B, ldb, o, tb, k, j);
                e += p;
                a += fabs(p);
            }
            size_t at = o == CblasRowMajor ? (size_t)i * ldc + j : (size_t)j * ldc + i;
            double want = alpha * e + beta * C0[at];
            double bound = 2 * (K + 3) * U_F32 * (fabs(alpha) * a + fabs(beta * C0[at]));
            if (!(fabs(C[at] - want) <= bound))
                fail_msg("%s %c%c %d x %d x %d: C(%d, %d) = %.9g, want %.9g (bound %.3g)",
                         o == CblasRowMajor ? "row" : "col", ta == CblasNoTrans ? 'N' : 'T',
                         tb == CblasNoTrans ? 'N' : 'T', M, N, K, i, j, C[at], want, bound);
        }
    for (size_t q = 0; q < nc; q++) /* the padding of C is not touched */
        if ((o == CblasRowMajor ? (int)(q % ldc) >= N : (int)(q % ldc) >= M) && C[q] != C0[q])
            fail_msg("padding of C written at %zu", q);
    if (same) {
        memcpy(Cb, C0, nc * sizeof *Cb);
        cblas_sgemm(o, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, Cb, ldc);
        assert_memory_equal(C, Cb, nc * sizeof *C);
    }
    free(A); free(B); free(C); free(C0); free(Cb);
}

static void shapes_on(const bnl_ctx *ctx, int same)
{
    static const int mn[] = {1, 7, 17, 33, 65, 257}, ks[] = {1, 10, 300};
    const CBLAS_TRANSPOSE t[] = {CblasNoTrans, CblasTrans};
    const CBLAS_ORDER ord[] = {CblasRowMajor, CblasColMajor};
    for (int o = 0; o < 2; o++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                for (int i = 0; i < 6; i++)
                    for (int k = 0; k < 3; k++)
                        one_shape(ctx, ord[o], t[a], t[b], mn[i], mn[(i + 2 * k + a) % 6],
                                  ks[k], same);
}

/* The onednn tier (oneDNN where built and loadable on this CPU), then
 * avx512 (cblas_sgemm's bits); a tier the CPU lacks is left out. */
static void sgemm_shapes(void **st)
{
    (void)st;
    int ok;
    bnl_ctx c = open_arch(2, BNL_ARCH_ONEDNN, &ok);
    if (ok) {
        int built = bnl_dnnl_built();
        if (built && bnl_arch_supported(BNL_ARCH_ONEDNN))
            assert_int_equal(bnl_sgemm_dnnl(&c), 1);
        shapes_on(&c, !bnl_sgemm_dnnl(&c));
    }
    bnl_ctx_close(&c);
    c = open_arch(2, BNL_ARCH_AVX512, &ok);
    if (ok) {
        assert_int_equal(bnl_sgemm_dnnl(&c), 0);
        shapes_on(&c, 1);
    }
    bnl_ctx_close(&c);
    c = open_arch(2, BNL_ARCH_SCALAR, &ok);
    assert_true(ok);
    assert_int_equal(bnl_sgemm_dnnl(&c), 0);
    bnl_ctx_close(&c);
}

/* One call inside a team of 2 (each thread its own C) and outside: the
 * same bits. The shape is one oneDNN would split along K on 2 threads
 * (small M and N, long K: another order of the sums), and the caller's
 * thread count comes back after the call. */
static void sgemm_one_thread(void **st)
{
    (void)st;
    int ok, M = 16, N = 10, K = 200000;
    bnl_ctx c = open_arch(2, BNL_ARCH_ONEDNN, &ok);
    float *A = malloc((size_t)M * K * sizeof *A), *B = malloc((size_t)N * K * sizeof *B);
    float *C = calloc((size_t)3 * M * N, sizeof *C);
    uint64_t s = 5;
    for (int q = 0; q < M * K; q++) A[q] = frand(&s);
    for (int q = 0; q < N * K; q++) B[q] = frand(&s);
    omp_set_num_threads(2);
    bnl_sgemm(&c, CblasColMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0f, A, M, B, N, 0.0f, C, M);
    assert_int_equal(omp_get_max_threads(), 2);
#pragma omp parallel num_threads(2)
    {
        float *Ct = C + (size_t)(1 + omp_get_thread_num()) * M * N;
        bnl_sgemm(&c, CblasColMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0f, A, M, B, N, 0.0f,
                  Ct, M);
    }
    assert_memory_equal(C, C + (size_t)M * N, (size_t)M * N * sizeof *C);
    assert_memory_equal(C, C + (size_t)2 * M * N, (size_t)M * N * sizeof *C);
    bnl_ctx_close(&c);
    free(A); free(B); free(C);
}

/* A = G G^T / k + I / 100 (SPD; G's entries of mean 1/2, so A has large
 * off-diagonal values as a kernel matrix has), f32, m x m column-major */
static float *spd(int64_t m, uint64_t seed)
{
    int64_t k = m + 3;
    float *G = malloc((size_t)m * k * sizeof *G), *A = malloc((size_t)m * m * sizeof *A);
    for (int64_t q = 0; q < m * k; q++) G[q] = 0.5f + 0.5f * frand(&seed);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)m, (int)m, (int)k, 1.0f / (float)k,
                G, (int)m, G, (int)m, 0.0f, A, (int)m);
    for (int64_t j = 0; j < m; j++) A[j * m + j] += 0.01f;
    free(G);
    return A;
}

/* bnl_chol and bnl_chol_solve f32 on the onednn tier: L L^T = A within
 * 4 (j + 3) u (|L| |L|^T)_ij (the Cholesky's backward error, Higham
 * 10.3, doubled twice), A X = B with |B - A X| within 2 (3 m + 1) u
 * |L| |L^T| |X| (the solve's backward error, |dA| <= gamma_{3m+1} |L|
 * |L^T|, Higham 10.4, doubled); the same bits on 1, 2 and 3 threads. */
static void chol_f32_onednn(void **st)
{
    (void)st;
    static const int64_t sizes[] = {1, 255, 257, 700};
    const int KB = 10;
    for (int si = 0; si < 4; si++) {
        int64_t m = sizes[si];
        float *A = spd(m, (uint64_t)m), *L = malloc((size_t)m * m * sizeof *L);
        float *L1 = malloc((size_t)m * m * sizeof *L1), *B = malloc((size_t)m * KB * sizeof *B);
        float *B0 = malloc((size_t)m * KB * sizeof *B0), *X1 = malloc((size_t)m * KB * sizeof *X1);
        uint64_t s = 9;
        for (int64_t q = 0; q < m * KB; q++) B0[q] = frand(&s);
        for (int T = 1; T <= 3; T++) {
            int ok;
            bnl_ctx c = open_arch(T, BNL_ARCH_ONEDNN, &ok);
            memcpy(L, A, (size_t)m * m * sizeof *L);
            assert_int_equal(bnl_chol(&c, L, m, m, 1, NULL), 0);
            memcpy(B, B0, (size_t)m * KB * sizeof *B);
            assert_int_equal(bnl_chol_solve(&c, L, m, m, 1, B, KB, m), 0);
            bnl_ctx_close(&c);
            if (T > 1) {
                for (int64_t j = 0; j < m; j++) /* the lower triangle: the factor */
                    assert_memory_equal(L + j * m + j, L1 + j * m + j,
                                        (size_t)(m - j) * sizeof *L);
                assert_memory_equal(B, X1, (size_t)m * KB * sizeof *B);
                continue;
            }
            memcpy(L1, L, (size_t)m * m * sizeof *L);
            memcpy(X1, B, (size_t)m * KB * sizeof *B);
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j <= i; j++) {
                    double e = 0, a = 0;
                    for (int64_t k = 0; k <= j; k++) {
                        double p = (double)L[k * m + i] * L[k * m + j];
                        e += p;
                        a += fabs(p);
                    }
                    double bound = 4 * (double)(j + 3) * U_F32 * a;
                    if (!(fabs(e - A[j * m + i]) <= bound))
                        fail_msg("m %lld: (L L^T)(%lld, %lld) = %.9g, A = %.9g (bound %.3g)",
                                 (long long)m, (long long)i, (long long)j, e, A[j * m + i],
                                 bound);
                }
            double *y = malloc((size_t)m * sizeof *y);
            for (int kk = 0; kk < KB; kk++) {
                for (int64_t j = 0; j < m; j++) { /* y = |L^T| |x| */
                    y[j] = 0;
                    for (int64_t l = j; l < m; l++) y[j] += fabs(L[j * m + l] * B[kk * m + l]);
                }
                for (int64_t i = 0; i < m; i++) {
                    double r = B0[kk * m + i], a = 0;
                    for (int64_t j = 0; j < m; j++)
                        r -= (double)A[(i > j ? j * m + i : i * m + j)] * B[kk * m + j];
                    for (int64_t j = 0; j <= i; j++) a += fabs(L[j * m + i]) * y[j];
                    double bound = 2 * (3 * (double)m + 1) * U_F32 * a;
                    if (!(fabs(r) <= bound))
                        fail_msg("m %lld: residual %.3g of row %lld, bound %.3g", (long long)m,
                                 fabs(r), (long long)i, bound);
                }
            }
            free(y);
        }
        free(A); free(L); free(L1); free(B); free(B0); free(X1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sgemm_shapes),
        cmocka_unit_test(sgemm_one_thread),
        cmocka_unit_test(chol_f32_onednn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
