/* test_hprod_f32.c - the CPU table's pcg products over a cached float H
 * (layers/cpu_hprod.c) on the onednn tier (oneDNN's sgemm, the transposed
 * block product), on avx512vnni and avx2 (the fused kernels, kernels.h
 * hgram), avx512 and scalar (OpenBLAS), against a double reference
 * over the same H:
 *   - B = H^T T and Y = H^T (H V) at shapes around the row blocks (32),
 *     the chunks (4096 rows at m = 300) and the groups of 8 chunks
 *     (N = 37000: 10 chunks, a partial last one), m from 1 to 300, K 1..10,
 *     within the float rounding bound of their sums (below);
 *   - the same bits on 1, 2 and 3 threads (the slots depend on m, K and
 *     the machine, never on the thread count).
 * u8 samples: the layer's distances are exact, so the H of bnl_forward
 * over all rows is the H the products make chunk by chunk.
 * Bound: U_i = sum_l H_il V_l in float (V rounded to float: one more u),
 * Y_j = sum_i H_ij U_i in float within a slot and group, in double across:
 * |dY_j| <= (N + m + 4) u sum_i |H_ij| sum_l |H_il V_l|, taken twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/bnl.h"

#define U_F32 5.9604644775390625e-08 /* 2^-24 */

typedef struct shape {
    int64_t m, N;
    int K;
} shape;

static const shape shapes[] = {{1, 1, 1}, {17, 33, 3}, {257, 700, 10}, {300, 37000, 2}};
#define NS (int)(sizeof shapes / sizeof *shapes)
#define NFEAT 16

/* the products of one source on a context: B, Y (m x K column-major) */
static void products(const bnl_ctx *ctx, const bnl_hprod_problem *pb, const double *V, double *B,
                     double *Y)
{
    bnl_hprod_opt o = {1, 0, 0, 0};
    bnl_hprod *h;
    fsvc_error err;
    double ss;
    assert_int_equal(bnl_hprod_open(ctx, pb, &o, &h, &err), 0);
    assert_int_equal(bnl_hprod_rhs(h, B, &ss, &err), 0);
    assert_int_equal(bnl_hprod_apply(h, Y, V, &err), 0);
    bnl_hprod_close(h);
}

static void check(const float *H, const int *cls, const double *V, const double *B,
                  const double *Y, const shape *sh)
{
    int64_t m = sh->m, N = sh->N;
    int K = sh->K;
    double *U = calloc((size_t)N * K, sizeof *U), *Ua = calloc((size_t)N * K, sizeof *Ua);
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < K; k++)
            for (int64_t l = 0; l < m; l++) {
                U[i * K + k] += (double)H[i * m + l] * V[k * m + l];
                Ua[i * K + k] += fabs((double)H[i * m + l] * V[k * m + l]);
            }
    for (int k = 0; k < K; k++)
        for (int64_t j = 0; j < m; j++) {
            double y = 0, ya = 0, b = 0, ba = 0;
            for (int64_t i = 0; i < N; i++) {
                double hij = H[i * m + j];
                y += hij * U[i * K + k];
                ya += fabs(hij) * Ua[i * K + k];
                b += cls[i] == k ? hij : 0;
                ba += cls[i] == k ? fabs(hij) : 0;
            }
            double by = 2 * (double)(N + m + 4) * U_F32 * ya, bb = 2 * (double)(N + 2) * U_F32 * ba;
            if (!(fabs(Y[k * m + j] - y) <= by))
                fail_msg("m %lld N %lld K %d: Y(%lld, %d) = %.12g, want %.12g (bound %.3g)",
                         (long long)m, (long long)N, K, (long long)j, k, Y[k * m + j], y, by);
            if (!(fabs(B[k * m + j] - b) <= bb))
                fail_msg("m %lld N %lld K %d: B(%lld, %d) = %.12g, want %.12g (bound %.3g)",
                         (long long)m, (long long)N, K, (long long)j, k, B[k * m + j], b, bb);
        }
    free(U); free(Ua);
}

static void on_arch(bnl_arch arch)
{
    for (int si = 0; si < NS; si++) {
        const shape *sh = &shapes[si];
        int64_t m = sh->m, N = sh->N;
        int K = sh->K;
        unsigned char *X = malloc((size_t)N * NFEAT), *C = malloc((size_t)m * NFEAT);
        int *cls = malloc((size_t)N * sizeof *cls);
        uint64_t s = (uint64_t)(m * 7 + N);
        for (int64_t q = 0; q < N * NFEAT; q++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            X[q] = (unsigned char)(s >> 56);
        }
        for (int64_t i = 0; i < N; i++) cls[i] = (int)(i % K);
        for (int64_t j = 0; j < m; j++) /* centroids: samples, every 3rd */
            memcpy(C + j * NFEAT, X + ((j * 3) % N) * NFEAT, NFEAT);
        double *V = malloc((size_t)m * K * sizeof *V);
        for (int64_t q = 0; q < m * K; q++) V[q] = sin(0.7 * (double)q + 1) - 0.2;
        bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_U8, 300.0, BNL_PREC_FULL};
        bnl_hprod_problem pb = {&op, C, m, X, N, NFEAT, K, cls, NULL, NULL, NULL,
                                FSVC_AUG_NONE, 0, 0, NULL};
        double *B = malloc((size_t)m * K * sizeof *B), *Y = malloc((size_t)m * K * sizeof *Y);
        double *B1 = malloc((size_t)m * K * sizeof *B1), *Y1 = malloc((size_t)m * K * sizeof *Y1);
        for (int T = 1; T <= 3; T++) {
            bnl_ctx ctx;
            fsvc_error err;
            assert_int_equal(bnl_ctx_open(&ctx, "cpu", T, 0, &err), 0);
            assert_int_equal(bnl_ctx_set_arch(&ctx, arch, &err), 0);
            products(&ctx, &pb, V, B, Y);
            if (T == 1) {
                float *H = malloc((size_t)N * m * sizeof *H);
                assert_int_equal(bnl_forward(&ctx, &op, H, m, C, m, X, N, NFEAT, &err), 0);
                check(H, cls, V, B, Y, sh);
                free(H);
                memcpy(B1, B, (size_t)m * K * sizeof *B);
                memcpy(Y1, Y, (size_t)m * K * sizeof *Y);
            } else {
                assert_memory_equal(B, B1, (size_t)m * K * sizeof *B);
                assert_memory_equal(Y, Y1, (size_t)m * K * sizeof *Y);
            }
            bnl_ctx_close(&ctx);
        }
        free(X); free(C); free(cls); free(V); free(B); free(Y); free(B1); free(Y1);
    }
}

/* a tier this CPU lacks is skipped (cmocka: skipped, not passed) */
static void run_arch(bnl_arch arch)
{
    bnl_ctx c;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&c, "cpu", 1, 0, &err), 0);
    int ok = bnl_ctx_set_arch(&c, arch, NULL) == 0;
    bnl_ctx_close(&c);
    if (!ok) skip();
    on_arch(arch);
}

/* one test per tier, named after it; the tier comes in as the state */
static void products_on(void **st) { run_arch(*(const bnl_arch *)*st); }

static const bnl_arch tiers[] = {BNL_ARCH_ONEDNN, BNL_ARCH_AVX512, BNL_ARCH_AVX512VNNI,
                                 BNL_ARCH_AVX2, BNL_ARCH_SCALAR, BNL_ARCH_AMX};
#define ON(name, i) {"products_" name, products_on, NULL, NULL, (void *)&tiers[i]}

int main(void)
{
    const struct CMUnitTest tests[] = {
        ON("onednn", 0), ON("avx512", 1), ON("avx512vnni", 2), ON("avx2", 3), ON("scalar", 4),
        ON("amx", 5),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
