/*
 * test_bf16.c - the bf16 GEMM kernel of the avx512bf16 tier (issue 24) and
 * the f32 --precision bf16 layers it runs, on every tier this CPU has that
 * offers it (skipped, saying so, where none does).
 *
 *   kernel: C = alpha X W^T of bf16 operands at many shapes (the 8 x 48
 *     register tiles, k blocks of 256 bf16, odd n padded to even, ldc > m
 *     with its padding untouched) against the exact sum in double of the
 *     same (exactly representable) products: |C - exact| <= |alpha|
 *     gamma_n sum |x_k w_k|, gamma_n = n u / (1 - n u), u = 2^-24 (the
 *     f32 sums, any order);
 *   layers: bnl_forward of L2/Gaussian, L2/identity and dot on the tier
 *     against the reference backend's bf16 emulation (the same rounded
 *     operands: the sums' bound, through the activation) and against
 *     full f32 (the bf16 rounding: 2^-8 relative per input, so 2^-7 + 2^-16
 *     per product, times sum |x_k w_k|).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/kernels.h"
#include "layers/bnl.h"
#include "layers/round_hd.h"
#include "tests/util/fixtures.h"

static uint64_t rng = 0x243F6A8885A308D3ull;
static double urand(void) { return fx_urand(&rng); }

/* kind 0: [-1, 1); 1: [0, 1); 2: integers 0..255; 3: signed, 1e-3 .. 1e3 */
static float fval(int kind)
{
    switch (kind) {
    case 0: return (float)(2 * urand() - 1);
    case 1: return (float)urand();
    case 2: return (float)floor(256 * urand());
    default: return (float)((urand() < 0.5 ? -1 : 1) * pow(10.0, 6 * urand() - 3));
    }
}

static float bf(uint16_t b) { return bnl_bits_f32((uint32_t)b << 16); }
static double gamma_n(int n) { double nu = n * 0x1p-24; return nu / (1 - nu); }

static int tiers(bnl_arch *out)
{
    int k = 0;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++)
        if (bnl_arch_supported((bnl_arch)a) && bnl_kernels_get((bnl_arch)a)->dot_bf16)
            out[k++] = (bnl_arch)a;
    if (!k) printf("  no tier with a bf16 kernel on this CPU: nothing to check\n");
    return k;
}

/* One kernel shape; returns the number of mismatches (first 5 printed). */
static int kernel_shape(bnl_arch a, int64_t m, int64_t N, int n, int kind, float alpha, int pad)
{
    const int n2 = n + (n & 1);
    const int64_t ldc = m + pad;
    uint16_t *W = malloc(sizeof *W * (size_t)(m * n2)), *X = malloc(sizeof *X * (size_t)(N * n2));
    size_t len = (size_t)((N - 1) * ldc + m);
    float *C = malloc(sizeof *C * len);
    assert_true(W && X && C);
    for (int64_t j = 0; j < m; j++)
        for (int k = 0; k < n2; k++) W[j * n2 + k] = k < n ? bnl_bf16_bits(fval(kind)) : 0;
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < n2; k++) X[i * n2 + k] = k < n ? bnl_bf16_bits(fval(kind)) : 0;
    for (size_t t = 0; t < len; t++) C[t] = -7.25f;
    bnl_kernels_get(a)->dot_bf16(C, ldc, W, m, X, N, n2, alpha);
    int bad = 0;
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < ldc && (size_t)(i * ldc + j) < len; j++) {
            float got = C[i * ldc + j];
            double exact = 0, mag = 0;
            if (j >= m) {
                if (got != -7.25f && bad++ < 5)
                    fprintf(stderr, "MISMATCH bf16 m=%lld N=%lld n=%d: padding (%lld,%lld) "
                            "overwritten\n", (long long)m, (long long)N, n, (long long)i,
                            (long long)j);
                continue;
            }
            for (int k = 0; k < n; k++) {
                double p = (double)bf(X[i * n2 + k]) * bf(W[j * n2 + k]);
                exact += p;
                mag += fabs(p);
            }
            exact *= alpha;
            double tol = fabs(alpha) * gamma_n(n) * mag + 1e-30;
            if (!(fabs(got - exact) <= tol) && bad++ < 5)
                fprintf(stderr, "MISMATCH bf16 m=%lld N=%lld n=%d kind %d at (%lld,%lld): got "
                        "%.9g want %.9g (tol %.3g)\n", (long long)m, (long long)N, n, kind,
                        (long long)i, (long long)j, got, exact, tol);
        }
    free(W); free(X); free(C);
    return bad;
}

static void test_kernel_grid(void **state)
{
    (void)state;
    static const int mN[] = {1, 2, 7, 8, 9, 16, 47, 48, 49, 95, 97};
    static const int ns[] = {1, 2, 3, 4, 5, 31, 64, 255, 256, 257, 511, 512, 513, 784, 785, 1031};
    bnl_arch t[BNL_ARCH_COUNT];
    int nt = tiers(t), bad = 0, shapes = 0;
    for (int a = 0; a < nt; a++)
        for (size_t p = 0; p < sizeof mN / sizeof *mN; p++)
            for (size_t q = 0; q < sizeof mN / sizeof *mN; q++)
                for (size_t r = 0; r < sizeof ns / sizeof *ns; r++) {
                    if ((double)mN[p] * mN[q] * ns[r] > 4e5 && (p + 2 * q + 5 * r) % 5) continue;
                    int sel = (int)(p + q + r);
                    bad += kernel_shape(t[a], mN[p], mN[q], ns[r], sel % 4,
                                        sel % 2 ? -2.0f : 1.0f, sel % 3 == 0 ? 3 : 0);
                    shapes++;
                }
    /* sample blocks and many k blocks */
    for (int a = 0; a < nt; a++) {
        bad += kernel_shape(t[a], 50, 1030, 3, 0, -2.0f, 1);
        bad += kernel_shape(t[a], 3, 5, 4099, 3, 1.0f, 0);
    }
    printf("  bf16 kernel: %d shapes\n", shapes);
    assert_int_equal(bad, 0);
}

/* |h - h'| bound from |v - v'| <= dv: identity d = v (dot) or sqrt(v)
 * (L2: |sqrt v - sqrt v'| <= sqrt(dv)), Gaussian exp(-g v): g dv. */
static double h_tol(const bnl_op *op, double dv)
{
    if (op->act == BNL_GAUSS)
        return dv / (2 * op->radius * op->radius) + 2e-6;
    if (op->dist == BNL_L2)
        return sqrt(dv) + 1e-6;
    return dv + 1e-6;
}

static void test_layers(void **state)
{
    (void)state;
    static const int shapes[][3] = {{37, 53, 77}, {97, 130, 784}, {49, 9, 1}, {1, 1025, 300}};
    bnl_arch t[BNL_ARCH_COUNT];
    int nt = tiers(t);
    fsvc_error err;
    for (int a = 0; a < nt; a++)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            const int64_t m = shapes[s][0], N = shapes[s][1];
            const int n = shapes[s][2];
            float *W = malloc(sizeof *W * (size_t)(m * n)), *X = malloc(sizeof *X * (size_t)(N * n));
            float *H = malloc(sizeof *H * (size_t)(N * m)), *E = malloc(sizeof *E * (size_t)(N * m));
            float *F = malloc(sizeof *F * (size_t)(N * m));
            assert_true(W && X && H && E && F);
            for (int64_t q = 0; q < m * n; q++) W[q] = fval(1);
            for (int64_t q = 0; q < N * n; q++) X[q] = fval(1);
            const bnl_op ops[] = {{BNL_L2, BNL_GAUSS, FSVC_F32, 0.4 * sqrt(n), BNL_PREC_BF16},
                                  {BNL_L2, BNL_IDENT, FSVC_F32, 0, BNL_PREC_BF16},
                                  {BNL_DOT, BNL_IDENT, FSVC_F32, 0, BNL_PREC_BF16}};
            bnl_ctx cpu, ref;
            assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 1, &err), FSVC_OK);
            assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 1, &err), FSVC_OK);
            assert_int_equal(bnl_ctx_set_arch(&cpu, t[a], &err), FSVC_OK);
            cpu.par_min_syn = -1;
            cpu.dnnl_min_syn = -1; /* the onednn tier's matmul, small layers too */
            for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
                bnl_op full = ops[o];
                full.precision = BNL_PREC_FULL;
                bnl_plan pl = bnl_plan_for(&cpu, &ops[o], m, N, n);
                assert_string_equal(pl.kernel, t[a] == BNL_ARCH_ONEDNN ? "onednn-bf16"
                                                                  : bnl_arch_name(t[a]));
                assert_int_equal(bnl_forward(&cpu, &ops[o], H, m, W, m, X, N, n, &err), FSVC_OK);
                assert_int_equal(bnl_forward(&ref, &ops[o], E, m, W, m, X, N, n, &err), FSVC_OK);
                assert_int_equal(bnl_forward(&ref, &full, F, m, W, m, X, N, n, &err), FSVC_OK);
                int bad = 0;
                for (int64_t i = 0; i < N; i++)
                    for (int64_t j = 0; j < m; j++) {
                        double mag = 0, nrm = 0;
                        for (int k = 0; k < n; k++) {
                            mag += fabs((double)X[i * n + k] * W[j * n + k]);
                            nrm += (double)X[i * n + k] * X[i * n + k] + (double)W[j * n + k] * W[j * n + k];
                        }
                        /* the same rounded operands: two orders of f32 sums */
                        double dv = 2 * (2 * gamma_n(n) * mag) + 4 * gamma_n(n) * nrm;
                        /* full f32: 2^-8 per input, two per product */
                        double dvf = 2 * ((0x1p-7 + 0x1p-16) * mag + 2 * gamma_n(n) * mag) +
                                     4 * gamma_n(n) * nrm;
                        if (ops[o].dist == BNL_DOT) { dv /= 2; dvf /= 2; }
                        double h = H[i * m + j];
                        int off = !(fabs(h - E[i * m + j]) <= h_tol(&ops[o], dv));
                        int offf = !(fabs(h - F[i * m + j]) <= h_tol(&ops[o], dvf));
                        if ((off || offf) && bad++ < 5)
                            fprintf(stderr, "MISMATCH %s %s/%s bf16 m=%lld N=%lld n=%d (%lld,%lld):"
                                    " %.9g, ref bf16 %.9g (tol %.3g), ref full %.9g (tol %.3g)\n",
                                    bnl_arch_name(t[a]), bnl_dist_name(ops[o].dist),
                                    bnl_act_name(ops[o].act), (long long)m, (long long)N, n,
                                    (long long)i, (long long)j, h, E[i * m + j],
                                    h_tol(&ops[o], dv), F[i * m + j], h_tol(&ops[o], dvf));
                    }
                assert_int_equal(bad, 0);
            }
            bnl_ctx_close(&cpu);
            bnl_ctx_close(&ref);
            free(W); free(X); free(H); free(E); free(F);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_grid),
        cmocka_unit_test(test_layers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
