/*
 * test_dnnl.c - the onednn tier (layers/cpu_dnnl.c, issue 24): the f32
 * and bf16 L2 / dot layers' products on oneDNN's matmul, with the
 * activation on each tile. Skipped, saying so, where the build has no
 * oneDNN or the CPU no AVX-512 BF16.
 *
 *   layers: bnl_forward, bnl_actsum and bnl_scores on the tier (its plan
 *     says "onednn") against the reference backend at many shapes, with
 *     small tiles forced so that every kind of edge tile occurs (rows and
 *     neurons past a tile, k not a multiple of oneDNN's blocks of 16 / 32,
 *     odd n padded for bf16), on one context (more shapes than its cache
 *     of primitives holds). Bounds on |v - v_ref| (v the squared distance
 *     or the dot), gamma_j = j u / (1 - j u), u = 2^-24, mag = sum |x_k w_k|,
 *     nrm = sum x_k^2 + w_k^2:
 *       f32: the reference sums (x - w)^2 in float, the tier |x|^2 + |w|^2
 *         - 2 x.w: each within gamma_{n+4} (nrm + 2 mag), so twice that;
 *         dot: 2 gamma_{n+1} mag;
 *       bf16: the same rounded operands (exact products) on both sides,
 *         two orders of f32 sums: 4 gamma_n mag + 4 gamma_n nrm (dot: half),
 *     carried through the activation (|sqrt v - sqrt v'| <= sqrt dv,
 *     |exp(-g v) - exp(-g v')| <= g dv); H's padding past m untouched;
 *     1 and 2 threads give the same bits (the same kernel on the same
 *     tiles).
 *   dispatch: the tier's plan is onednn for f32 full and bf16 L2 / dot,
 *     not for L1, u8, f64 or tf32, nor below the small-call rule; the
 *     avx512bf16 tier keeps its own path (FSVC_ARCH=avx512bf16 measures the
 *     old path in the same run).
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

#include "layers/bnl.h"
#include "layers/round_hd.h"
#include "tests/util/fixtures.h"

static uint64_t rng = 0x13198A2E03707344ull;
static double urand(void) { return fx_urand(&rng); }

/* kind 0: [-1, 1); 1: [0, 1); 2: integers 0..255 */
static float fval(int kind)
{
    switch (kind) {
    case 0: return (float)(2 * urand() - 1);
    case 1: return (float)urand();
    default: return (float)floor(256 * urand());
    }
}

static double gamma_n(int n) { double nu = n * 0x1p-24; return nu / (1 - nu); }

static int have_tier(void)
{
    if (bnl_arch_supported(BNL_ARCH_ONEDNN))
        return 1;
    printf("  no onednn tier here (built without oneDNN, or no AVX-512 BF16): "
           "nothing to check\n");
    return 0;
}

static double h_tol(const bnl_op *op, double dv)
{
    if (op->act == BNL_GAUSS)
        return dv / (2 * op->radius * op->radius) + 2e-6;
    if (op->act == BNL_TANH)
        return dv + 2e-6;
    if (op->dist == BNL_L2)
        return sqrt(dv) + 1e-6;
    return dv + 1e-6;
}

/* bound on |v - v_ref| for pair (i, j) */
static double v_tol(const bnl_op *op, const float *x, const float *w, int n)
{
    double mag = 0, nrm = 0;
    for (int k = 0; k < n; k++) {
        mag += fabs((double)x[k] * w[k]);
        nrm += (double)x[k] * x[k] + (double)w[k] * w[k];
    }
    mag *= 1.01; /* bf16 operands: at most 2^-8 larger each */
    nrm *= 1.01;
    if (op->precision == BNL_PREC_BF16)
        return op->dist == BNL_DOT ? 2 * gamma_n(n) * mag : 4 * gamma_n(n) * (mag + nrm);
    return op->dist == BNL_DOT ? 2 * gamma_n(n + 1) * mag : 2 * gamma_n(n + 4) * (nrm + 2 * mag);
}

typedef struct shape { int64_t m, N; int n; int64_t tile_m, tile_N; int kind; } shape;

/* One shape on ctx cpu (the tier) against ref; the number of bad entries. */
static int check_shape(bnl_ctx *cpu, bnl_ctx *ref, const shape *s, const bnl_op *op)
{
    const int64_t m = s->m, N = s->N, ldh = m + 3;
    const int n = s->n;
    float *W = malloc(sizeof(float) * (size_t)(m * n)), *X = malloc(sizeof(float) * (size_t)(N * n));
    float *H1 = malloc(sizeof(float) * (size_t)(N * ldh)), *H2 = malloc(sizeof(float) * (size_t)(N * ldh));
    float *E = malloc(sizeof(float) * (size_t)(N * m));
    assert_true(W && X && H1 && H2 && E);
    for (int64_t q = 0; q < m * n; q++) W[q] = fval(s->kind);
    for (int64_t q = 0; q < N * n; q++) X[q] = fval(s->kind);
    fsvc_error err;
    cpu->tile_m = s->tile_m;
    cpu->tile_N = s->tile_N;
    bnl_plan pl = bnl_plan_for(cpu, op, m, N, n);
    assert_string_equal(pl.path, "onednn");
    memset(H1, 0x5a, sizeof(float) * (size_t)(N * ldh));
    memset(H2, 0x5a, sizeof(float) * (size_t)(N * ldh));
    cpu->threads = 1;
    assert_int_equal(bnl_forward(cpu, op, H1, ldh, W, m, X, N, n, &err), FSVC_OK);
    cpu->threads = 2;
    assert_int_equal(bnl_forward(cpu, op, H2, ldh, W, m, X, N, n, &err), FSVC_OK);
    assert_int_equal(bnl_forward(ref, op, E, m, W, m, X, N, n, &err), FSVC_OK);
    int bad = 0;
    if (memcmp(H1, H2, sizeof(float) * (size_t)(N * ldh)) != 0 && bad++ < 5)
        fprintf(stderr, "MISMATCH m=%lld N=%lld n=%d: 1 and 2 threads differ\n", (long long)m,
                (long long)N, n);
    for (int64_t i = 0; i < N; i++) {
        for (int64_t b = m * 4; b < ldh * 4; b++)
            if (((unsigned char *)H1)[i * ldh * 4 + b] != 0x5a && bad++ < 5)
                fprintf(stderr, "MISMATCH m=%lld N=%lld n=%d: wrote past m in row %lld\n",
                        (long long)m, (long long)N, n, (long long)i);
        for (int64_t j = 0; j < m; j++) {
            double tol = h_tol(op, v_tol(op, X + i * n, W + j * n, n));
            double got = H1[i * ldh + j], want = E[i * m + j];
            if (!(fabs(got - want) <= tol) && bad++ < 5)
                fprintf(stderr, "MISMATCH %s/%s %s m=%lld N=%lld n=%d tiles %lldx%lld kind %d "
                        "(%lld,%lld): %.9g, ref %.9g (tol %.3g)\n", bnl_dist_name(op->dist),
                        bnl_act_name(op->act), bnl_precision_name(op->precision), (long long)m,
                        (long long)N, n, (long long)s->tile_N, (long long)s->tile_m, s->kind,
                        (long long)i, (long long)j, got, want, tol);
        }
    }
    free(W); free(X); free(H1); free(H2); free(E);
    return bad;
}

static const bnl_op OPS[] = {
    {BNL_L2, BNL_GAUSS, FSVC_F32, 0, BNL_PREC_FULL}, {BNL_L2, BNL_IDENT, FSVC_F32, 0, BNL_PREC_FULL},
    {BNL_DOT, BNL_IDENT, FSVC_F32, 0, BNL_PREC_FULL}, {BNL_DOT, BNL_TANH, FSVC_F32, 0, BNL_PREC_FULL},
};

static void test_forward_shapes(void **state)
{
    (void)state;
    if (!have_tier())
        return;
    /* m crosses 64-neuron blocks and tiles, N the row tiles, n oneDNN's k
     * blocks (16 f32, 32 bf16) and odd n (bf16 pads to even) */
    static const shape shapes[] = {
        {1, 1, 1, 0, 0, 0},        {5, 3, 7, 0, 0, 0},       {63, 17, 16, 0, 0, 1},
        {64, 64, 31, 64, 16, 0},   {65, 33, 33, 64, 16, 0},  {129, 40, 17, 64, 13, 1},
        {200, 51, 784, 128, 25, 1}, {130, 7, 785, 64, 4, 0}, {300, 97, 63, 128, 32, 2},
        {77, 129, 2, 64, 64, 0},   {1, 70, 300, 64, 16, 1},  {190, 1, 129, 64, 16, 0},
    };
    fsvc_error err;
    bnl_ctx cpu, ref;
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_set_arch(&cpu, BNL_ARCH_ONEDNN, &err), FSVC_OK);
    cpu.par_min_syn = -1; /* small shapes on 2 threads too */
    cpu.dnnl_min_syn = -1; /* and on oneDNN */
    int bad = 0, runs = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int prec = 0; prec < 2; prec++)
            for (size_t o = 0; o < sizeof OPS / sizeof *OPS; o++) {
                bnl_op op = OPS[o];
                op.precision = prec ? BNL_PREC_BF16 : BNL_PREC_FULL;
                op.radius = 0.4 * sqrt(shapes[s].n) * (shapes[s].kind == 2 ? 255 : 1);
                if (op.dist == BNL_DOT && op.act == BNL_TANH && shapes[s].kind == 2)
                    continue; /* tanh of large dots is 1 everywhere */
                bad += check_shape(&cpu, &ref, &shapes[s], &op);
                runs++;
            }
    printf("  onednn forward: %d shapes x ops\n", runs);
    bnl_ctx_close(&cpu);
    bnl_ctx_close(&ref);
    assert_int_equal(bad, 0);
}

/* actsum and scores (the reductions' own row tiles, dense: no scratch)
 * against the reference. */
static void test_reductions(void **state)
{
    (void)state;
    if (!have_tier())
        return;
    const int64_t m = 150, N = 90;
    const int n = 45, K = 4;
    float *W = malloc(sizeof(float) * m * n), *X = malloc(sizeof(float) * N * n);
    double *S1 = calloc(N, 8), *S2 = calloc(N, 8), *Y1 = malloc(8 * N * K), *Y2 = malloc(8 * N * K);
    double *R = malloc(8 * m * K);
    assert_true(W && X && S1 && S2 && Y1 && Y2 && R);
    for (int64_t q = 0; q < m * n; q++) W[q] = fval(1);
    for (int64_t q = 0; q < N * n; q++) X[q] = fval(1);
    for (int64_t q = 0; q < m * K; q++) R[q] = 2 * urand() - 1;
    fsvc_error err;
    bnl_ctx cpu, ref;
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_set_arch(&cpu, BNL_ARCH_ONEDNN, &err), FSVC_OK);
    cpu.par_min_syn = -1;
    cpu.dnnl_min_syn = -1;
    cpu.tile_m = 64;
    cpu.tile_N = 16;
    int bad = 0;
    for (int prec = 0; prec < 2; prec++)
        for (size_t o = 0; o < sizeof OPS / sizeof *OPS; o++) {
            bnl_op op = OPS[o];
            op.precision = prec ? BNL_PREC_BF16 : BNL_PREC_FULL;
            op.radius = 0.4 * sqrt(n);
            assert_string_equal(bnl_plan_for(&cpu, &op, m, N, n).path, "onednn");
            memset(S1, 0, 8 * N);
            memset(S2, 0, 8 * N);
            assert_int_equal(bnl_actsum(&cpu, &op, S1, W, m, X, N, n, &err), FSVC_OK);
            assert_int_equal(bnl_actsum(&ref, &op, S2, W, m, X, N, n, &err), FSVC_OK);
            assert_int_equal(bnl_scores(&cpu, &op, Y1, W, m, X, N, n, R, K, &err), FSVC_OK);
            assert_int_equal(bnl_scores(&ref, &op, Y2, W, m, X, N, n, R, K, &err), FSVC_OK);
            for (int64_t i = 0; i < N; i++) {
                double tsum = 0;
                for (int64_t j = 0; j < m; j++)
                    tsum += h_tol(&op, v_tol(&op, X + i * n, W + j * n, n));
                tsum += 1e-9 * m;
                if (!(fabs(S1[i] - S2[i]) <= tsum) && bad++ < 5)
                    fprintf(stderr, "MISMATCH actsum %s/%s %s row %lld: %.12g, ref %.12g (tol "
                            "%.3g)\n", bnl_dist_name(op.dist), bnl_act_name(op.act),
                            bnl_precision_name(op.precision), (long long)i, S1[i], S2[i], tsum);
                for (int k = 0; k < K; k++) /* |R| < 1 */
                    if (!(fabs(Y1[i * K + k] - Y2[i * K + k]) <= tsum) && bad++ < 5)
                        fprintf(stderr, "MISMATCH scores %s/%s %s (%lld,%d): %.12g, ref %.12g\n",
                                bnl_dist_name(op.dist), bnl_act_name(op.act),
                                bnl_precision_name(op.precision), (long long)i, k,
                                Y1[i * K + k], Y2[i * K + k]);
            }
        }
    bnl_ctx_close(&cpu);
    bnl_ctx_close(&ref);
    free(W); free(X); free(S1); free(S2); free(Y1); free(Y2); free(R);
    assert_int_equal(bad, 0);
}

static void test_dispatch(void **state)
{
    (void)state;
    if (!have_tier())
        return;
    fsvc_error err;
    bnl_ctx cpu;
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_set_arch(&cpu, BNL_ARCH_ONEDNN, &err), FSVC_OK);
    bnl_op f32 = {BNL_L2, BNL_GAUSS, FSVC_F32, 9.0, BNL_PREC_FULL};
    bnl_op bf = f32, tf = f32, l1 = f32, u8 = f32, f64 = f32, dot = f32;
    bf.precision = BNL_PREC_BF16;
    tf.precision = BNL_PREC_TF32;
    l1.dist = BNL_L1;
    u8.dtype = FSVC_U8;
    f64.dtype = FSVC_F64;
    dot.dist = BNL_DOT;
    dot.act = BNL_IDENT;
    assert_string_equal(bnl_plan_for(&cpu, &f32, 4096, 4096, 784).kernel, "onednn-f32");
    assert_string_equal(bnl_plan_for(&cpu, &dot, 4096, 4096, 784).kernel, "onednn-f32");
    assert_string_equal(bnl_plan_for(&cpu, &bf, 4096, 4096, 784).kernel, "onednn-bf16");
    bnl_plan p = bnl_plan_for(&cpu, &f32, 4096, 4096, 784);
    assert_int_equal(p.tile_m % 64, 0);
    const bnl_op *not[] = {&tf, &l1, &u8, &f64};
    for (size_t i = 0; i < sizeof not / sizeof *not; i++)
        assert_string_not_equal(bnl_plan_for(&cpu, not[i], 4096, 4096, 784).path, "onednn");
    /* the small-call rule: a small layer keeps the tier below's path */
    assert_string_equal(bnl_plan_for(&cpu, &f32, 64, 64, 784).path, "gemm");
    assert_string_equal(bnl_plan_for(&cpu, &bf, 64, 64, 784).kernel, "avx512bf16");
    assert_string_equal(bnl_plan_for(&cpu, &f32, 10000, 64, 784).path, "gemm"); /* few samples */
    assert_string_equal(bnl_plan_for(&cpu, &f32, 10000, 256, 784).path, "onednn");
    /* the avx512bf16 tier: today's paths, at any size */
    assert_int_equal(bnl_ctx_set_arch(&cpu, BNL_ARCH_AVX512BF16, &err), FSVC_OK);
    cpu.dnnl_min_syn = -1;
    assert_string_equal(bnl_plan_for(&cpu, &f32, 4096, 4096, 784).path, "gemm");
    assert_string_equal(bnl_plan_for(&cpu, &bf, 4096, 4096, 784).kernel, "avx512bf16");
    bnl_ctx_close(&cpu);
    /* the environment picks the tier (cpuid's best here) */
    setenv("FSVC_ARCH", "onednn", 1);
    assert_int_equal(bnl_arch_detect(NULL, 0), BNL_ARCH_ONEDNN);
    unsetenv("FSVC_ARCH");
    assert_int_equal(bnl_arch_detect(NULL, 0),
                     bnl_arch_supported(BNL_ARCH_AMX) ? BNL_ARCH_AMX : BNL_ARCH_ONEDNN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_forward_shapes),
        cmocka_unit_test(test_reductions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
