/*
 * test_cuda_emu_f64.c - the f64 kernel bodies of cuda/kernels_hd.h (issue
 * 10: f64 on the device) run on the host over an emulated grid and checked
 * against the CPU reference (layers/ref.c):
 *   - the f64 L1 tile kernel (staging of 2 words per element, compute in
 *     double, the double epilogue, plain and transposed) gives the very
 *     bits of bnl_ref_forward at many shapes, edge tiles included, and
 *     writes nothing past its buffer;
 *   - the f64 GEMM path (row norms, Dgemm emulated in double, epilogue)
 *     agrees with the reference's L2 and dot to rounding;
 *   - the f64 activation sums continue S[i] in increasing j as ref.c;
 *   - bnlc_act_d gives bnl_act_d's bits for every activation.
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

#include "cuda/kernels_hd.h"
#include "layers/act.h"
#include "layers/backend.h" /* bnl_ref_forward, bnl_ref_actsum: the oracle */

static uint64_t rs = 0x243f6a8885a308d3ull;
static double rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (double)((int64_t)(rs >> 11) % 2000001 - 1000000) / 99991.0;
}

static bnlc_actpd to_hdd(const bnl_actp *p)
{
    bnlc_actpd q = {(int)p->act, (int)p->vk, p->s, p->g2};
    return q;
}

/* rows x n doubles into rows x ldk zero-padded words (as bnlc_pack_rows). */
static uint32_t *pack64(const double *A, int64_t rows, int n, int64_t *ldk)
{
    *ldk = bnlc_ldk(n, 8);
    uint32_t *P = calloc((size_t)(rows * *ldk), 4);
    assert_non_null(P);
    for (int64_t r = 0; r < rows; r++)
        memcpy(P + r * *ldk, A + r * n, (size_t)n * 8);
    return P;
}

/* The f64 L1 tile kernel over its whole grid (tile.cu's launch). Shared
 * memory holds garbage before each stage. */
static void emulate_tile_f64(const bnlc_actpd *p, double *out, int64_t ldo, int trans,
                             const uint32_t *W, int64_t m, const uint32_t *X, int64_t N,
                             int64_t ldk)
{
    uint32_t *sW = malloc(BNLC_SMEM_WORDS * 4), *sX = malloc(BNLC_SMEM_WORDS * 4);
    double(*acc)[BNLC_EPB] = malloc(sizeof(double[BNLC_EPB]) * BNLC_THREADS);
    assert_non_null(sW); assert_non_null(sX); assert_non_null(acc);
    int64_t gx = (N + BNLC_TN - 1) / BNLC_TN, gy = (m + BNLC_TM - 1) / BNLC_TM;
    for (int64_t by = 0; by < gy; by++)
        for (int64_t bx = 0; bx < gx; bx++) {
            int64_t m0 = by * BNLC_TM, i0 = bx * BNLC_TN;
            for (int t = 0; t < BNLC_THREADS; t++)
                for (int e = 0; e < BNLC_EPB; e++)
                    acc[t][e] = 0.0;
            for (int64_t k0 = 0; k0 < ldk; k0 += BNLC_KW) {
                memset(sW, 0xA5, BNLC_SMEM_WORDS * 4);
                memset(sX, 0x5A, BNLC_SMEM_WORDS * 4);
                for (int t = 0; t < BNLC_THREADS; t++) {
                    bnlc_stage(sW, W, m, ldk, m0, k0, t);
                    bnlc_stage(sX, X, N, ldk, i0, k0, t);
                }
                int kw = (int)(ldk - k0 < BNLC_KW ? ldk - k0 : BNLC_KW);
                for (int t = 0; t < BNLC_THREADS; t++)
                    bnlc_compute_d(acc[t], sW, sX, t, kw);
            }
            for (int t = 0; t < BNLC_THREADS; t++) {
                if (!trans)
                    bnlc_epilogue_d(out + i0 * ldo + m0, ldo, N - i0, ldo - m0, 0, acc[t], p, t);
                else
                    bnlc_epilogue_d(out + m0 * ldo + i0, ldo, m - m0, ldo - i0, 1, acc[t], p, t);
            }
        }
    free(sW); free(sX); free(acc);
}

static const int shapes[][3] = {
    {1, 1, 1},     {1, 1, 3},      {2, 3, 4},       {7, 5, 13},     {1, 200, 9},
    {200, 1, 9},   {128, 128, 16}, {127, 129, 31},  {131, 137, 17}, {3, 300, 100},
    {257, 131, 33}, {64, 64, 784},  {129, 130, 65},
};

static void test_f64_l1_tile(void **state)
{
    const struct { bnl_act a; double r; } acts[] = {
        {BNL_TRI, 60.0}, {BNL_GAUSS, 25.0}, {BNL_IDENT, 0.0}};
    int bad = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t m = shapes[s][0], N = shapes[s][1];
        int n = shapes[s][2];
        double *W = malloc((size_t)(m * n) * 8), *X = malloc((size_t)(N * n) * 8);
        for (int64_t e = 0; e < m * n; e++) W[e] = rnd();
        for (int64_t e = 0; e < N * n; e++) X[e] = rnd();
        int64_t ldk;
        uint32_t *Wp = pack64(W, m, n, &ldk), *Xp = pack64(X, N, n, &ldk);
        for (size_t a = 0; a < sizeof acts / sizeof *acts; a++)
            for (int trans = 0; trans < 2; trans++) {
                bnl_op op = {BNL_L1, acts[a].a, FSVC_F64, acts[a].r, BNL_PREC_FULL};
                bnl_actp ap = bnl_actp_make(&op);
                bnlc_actpd hp = to_hdd(&ap);
                int64_t rows = trans ? m : N, cols = trans ? N : m;
                int64_t ldo = (cols + 3) / 4 * 4, guard = 512;
                double *H = malloc((size_t)(rows * ldo + guard) * 8);
                double *R = malloc((size_t)(N * m) * 8);
                for (int64_t e = 0; e < rows * ldo + guard; e++) H[e] = -7.0;
                emulate_tile_f64(&hp, H, ldo, trans, Wp, m, Xp, N, ldk);
                fsvc_error err;
                assert_int_equal(bnl_ref_forward(&op, R, m, W, m, X, N, n, &err), FSVC_OK);
                int shown = 0;
                for (int64_t i = 0; i < N; i++)
                    for (int64_t j = 0; j < m; j++) {
                        double got = trans ? H[j * ldo + i] : H[i * ldo + j], want = R[i * m + j];
                        if (memcmp(&got, &want, 8)) {
                            if (shown++ < 3)
                                print_message("%lld x %lld x %d act %d trans %d: H[%lld][%lld] "
                                              "= %.17g, ref %.17g\n", (long long)m, (long long)N,
                                              n, (int)acts[a].a, trans, (long long)i,
                                              (long long)j, got, want);
                            bad++;
                        }
                    }
                for (int64_t e = rows * ldo; e < rows * ldo + guard; e++)
                    if (H[e] != -7.0) {
                        if (shown++ < 3) print_message("wrote past the buffer at %lld\n", (long long)e);
                        bad++;
                    }
                free(H); free(R);
            }
        free(W); free(X); free(Wp); free(Xp);
    }
    assert_int_equal(bad, 0);
}

/* The GEMM path: norms, C = alpha W X^T in double (Dgemm emulated, sums in
 * increasing k), the epilogue; against the reference's direct loops. */
static void test_f64_gemm_path(void **state)
{
    const struct { bnl_dist d; bnl_act a; double r; } ops[] = {
        {BNL_L2, BNL_GAUSS, 9.0}, {BNL_L2, BNL_TRI, 40.0}, {BNL_L2, BNL_IDENT, 0.0},
        {BNL_DOT, BNL_IDENT, 0.0}, {BNL_DOT, BNL_TANH, 0.0}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t m = shapes[s][0], N = shapes[s][1];
        int n = shapes[s][2];
        int64_t ldd = bnlc_ldk(n, 8) / 2; /* doubles a packed row */
        double *W = calloc((size_t)(m * ldd), 8), *X = calloc((size_t)(N * ldd), 8);
        double *Wc = malloc((size_t)(m * n) * 8), *Xc = malloc((size_t)(N * n) * 8);
        for (int64_t r = 0; r < m; r++)
            for (int k = 0; k < n; k++) W[r * ldd + k] = Wc[r * n + k] = rnd() / 8;
        for (int64_t r = 0; r < N; r++)
            for (int k = 0; k < n; k++) X[r * ldd + k] = Xc[r * n + k] = rnd() / 8;
        double *wn = malloc((size_t)m * 8), *xn = malloc((size_t)N * 8);
        for (int64_t r = 0; r < m; r++) wn[r] = bnlc_rownorm_d(W, ldd, n, r);
        for (int64_t r = 0; r < N; r++) xn[r] = bnlc_rownorm_d(X, ldd, n, r);
        double *H = malloc((size_t)(N * m) * 8), *R = malloc((size_t)(N * m) * 8);
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            bnl_op op = {ops[o].d, ops[o].a, FSVC_F64, ops[o].r, BNL_PREC_FULL};
            bnl_actp ap = bnl_actp_make(&op);
            bnlc_actpd hp = to_hdd(&ap);
            int l2 = op.dist == BNL_L2;
            double alpha = l2 ? -2.0 : 1.0, mag = 0;
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < m; j++) {
                    double g = 0;
                    for (int k = 0; k < n; k++) g += X[i * ldd + k] * W[j * ldd + k];
                    H[i * m + j] = bnlc_gemm_epi_d(alpha * g, xn[i], wn[j], l2, &hp);
                }
            fsvc_error err;
            assert_int_equal(bnl_ref_forward(&op, R, m, Wc, m, Xc, N, n, &err), FSVC_OK);
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < m; j++) {
                    double scale = 1.0 + (l2 ? xn[i] + wn[j] : sqrt(xn[i] * wn[j]));
                    mag = fabs(H[i * m + j] - R[i * m + j]) / scale;
                    if (mag > 1e-13 * n)
                        fail_msg("%lld x %lld x %d dist %d act %d: [%lld][%lld] %.17g vs ref %.17g",
                                 (long long)m, (long long)N, n, (int)op.dist, (int)op.act,
                                 (long long)i, (long long)j, H[i * m + j], R[i * m + j]);
                }
        }
        free(W); free(X); free(Wc); free(Xc); free(wn); free(xn); free(H); free(R);
    }
}

/* Activation sums from an f64 transposed tile: the bits of ref.c's. */
static void test_f64_actsum(void **state)
{
    int64_t m = 131, N = 45;
    int n = 21;
    double *W = malloc((size_t)(m * n) * 8), *X = malloc((size_t)(N * n) * 8);
    for (int64_t e = 0; e < m * n; e++) W[e] = rnd();
    for (int64_t e = 0; e < N * n; e++) X[e] = rnd();
    bnl_op op = {BNL_L1, BNL_GAUSS, FSVC_F64, 30.0, BNL_PREC_FULL};
    bnl_actp ap = bnl_actp_make(&op);
    bnlc_actpd hp = to_hdd(&ap);
    int64_t ldk, ldo = (N + 3) / 4 * 4;
    uint32_t *Wp = pack64(W, m, n, &ldk), *Xp = pack64(X, N, n, &ldk);
    double *Ht = malloc((size_t)(m * ldo) * 8), *S = malloc((size_t)N * 8), *Sr = malloc((size_t)N * 8);
    emulate_tile_f64(&hp, Ht, ldo, 1, Wp, m, Xp, N, ldk);
    for (int64_t i = 0; i < N; i++) S[i] = Sr[i] = 0.25 * (double)i; /* earlier tiles' sums */
    /* two neuron tiles, as actsum_tiles: 0..63, then 64..m-1 */
    for (int64_t i = 0; i < N; i++) bnlc_actsum_body_d(S, Ht, ldo, 64, i);
    for (int64_t i = 0; i < N; i++) bnlc_actsum_body_d(S, Ht + 64 * ldo, ldo, m - 64, i);
    fsvc_error err;
    assert_int_equal(bnl_ref_actsum(&op, Sr, W, m, X, N, n, &err), FSVC_OK);
    assert_memory_equal(S, Sr, (size_t)N * 8);
    free(W); free(X); free(Wp); free(Xp); free(Ht); free(S); free(Sr);
}

static void test_act_d_bits(void **state)
{
    const struct { bnl_dist d; bnl_act a; } ops[] = {
        {BNL_L1, BNL_TRI}, {BNL_L2, BNL_TRI}, {BNL_L1, BNL_GAUSS}, {BNL_L2, BNL_GAUSS},
        {BNL_DOT, BNL_TANH}, {BNL_L1, BNL_IDENT}, {BNL_L2, BNL_IDENT}, {BNL_DOT, BNL_IDENT}};
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        bnl_op op = {ops[o].d, ops[o].a, FSVC_F64, 3.7, BNL_PREC_FULL};
        bnl_actp ap = bnl_actp_make(&op);
        bnlc_actpd hp = to_hdd(&ap);
        for (int i = -2000; i <= 20000; i++) {
            double v = i * 0.0137;
            double a = bnl_act_d(&ap, v), b = bnlc_act_d(&hp, v);
            if (memcmp(&a, &b, 8))
                fail_msg("op %zu v %.17g: act.h %.17g, kernels_hd.h %.17g", o, v, a, b);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f64_l1_tile),
        cmocka_unit_test(test_f64_gemm_path),
        cmocka_unit_test(test_f64_actsum),
        cmocka_unit_test(test_act_d_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
