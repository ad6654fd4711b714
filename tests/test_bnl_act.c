/*
 * test_bnl_act.c - the activation definitions of layers/act.h: bnl_expf
 * and bnl_tanhf against libm (stated bounds: exp 2e-7 relative on
 * [-87, 88], tanh 2e-7 absolute), the f64 activation against bnl.h's formulas, and every
 * per-ISA epilogue copy giving the very bits of the scalar definition.
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

#include "layers/act.h"
#include "layers/kernels.h"

static void test_expf(void **state)
{
    double worst = 0.0, at = 0.0;
    for (int i = 0; i <= 2000000; i++) {
        float x = (float)(-87.0 + 175.0 * i / 2000000.0);
        double want = exp((double)x), got = bnl_expf(x);
        double rel = fabs(got - want) / want;
        if (rel > worst) {
            worst = rel;
            at = x;
        }
    }
    print_message("bnl_expf: max relative error %.3g at x = %.9g\n", worst, at);
    assert_true(worst <= 2e-7);
    assert_true(bnl_expf(-87.5f) == 0.0f);
    assert_true(bnl_expf(0.0f) == 1.0f);
}

static void test_tanhf(void **state)
{
    double worst = 0.0, at = 0.0;
    for (int i = 0; i <= 2000000; i++) {
        float x = (float)(-12.0 + 24.0 * i / 2000000.0);
        double err = fabs((double)bnl_tanhf(x) - tanh((double)x));
        if (err > worst) {
            worst = err;
            at = x;
        }
    }
    print_message("bnl_tanhf: max absolute error %.3g at x = %.9g\n", worst, at);
    assert_true(worst <= 2e-7);
    assert_true(bnl_tanhf(0.0f) == 0.0f);
    assert_true(bnl_tanhf(-20.0f) == -1.0f);
    /* odd */
    for (float x = 0.001f; x < 10.0f; x *= 1.7f)
        assert_true(bnl_tanhf(-x) == -bnl_tanhf(x));
}

/* The f64 activation of act.h (what ref.c and the f64 epilogues apply)
 * against the formulas of bnl.h, for each act and kind of v. */
static double act_of(bnl_dist dist, bnl_act act, double r, double v)
{
    bnl_op op = {dist, act, FSVC_F64, r, BNL_PREC_FULL};
    bnl_actp p = bnl_actp_make(&op);
    return bnl_act_d(&p, v);
}

static void test_act_definition(void **state)
{
    double r = 2.0;
    assert_true(act_of(BNL_L1, BNL_TRI, r, 0.0) == 1.0);
    assert_true(act_of(BNL_L1, BNL_TRI, r, BNL_TRI_SCALE * r) == 0.0);
    assert_true(act_of(BNL_L1, BNL_TRI, r, 10.0 * r) == 0.0);
    assert_true(fabs(act_of(BNL_L1, BNL_TRI, r, 0.5 * BNL_TRI_SCALE * r) - 0.5) < 1e-15);
    assert_true(fabs(act_of(BNL_L1, BNL_GAUSS, r, r) - exp(-0.5)) < 1e-15);
    /* L2: v is the squared distance */
    assert_true(fabs(act_of(BNL_L2, BNL_GAUSS, r, r * r) - exp(-0.5)) < 1e-15);
    assert_true(fabs(act_of(BNL_L2, BNL_TRI, r, 0.25 * BNL_TRI_SCALE * BNL_TRI_SCALE * r * r)
                     - 0.5) < 1e-15);
    assert_true(act_of(BNL_L2, BNL_IDENT, r, 9.0) == 3.0);
    assert_true(act_of(BNL_DOT, BNL_TANH, r, 0.3) == tanh(0.3));
    assert_true(act_of(BNL_DOT, BNL_TANH, r, -0.3) == tanh(-0.3)); /* dot may be < 0 */
    assert_true(act_of(BNL_L1, BNL_IDENT, r, 7.25) == 7.25);
    for (double d = 0.0; d < 6.0; d += 0.37) {
        double h = 1.0 - d / (BNL_TRI_SCALE * r);
        assert_true(act_of(BNL_L1, BNL_TRI, r, d) == (h > 0.0 ? h : 0.0));
    }
}

static void *must_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    assert_non_null(p);
    return p;
}

/* One epilogue call against the scalar definition, bit for bit, over a
 * rows x cols block (ld): from int32 D, in place over V, or the L2 GEMM's
 * from V with the norms xn, wn. H is overwritten (V copied in first). */
typedef enum { FROM_I32, IN_PLACE, L2_GEMM } epi_call;

static void check_epi(const bnl_epi *e, const bnl_actp *p, epi_call call, float *H,
                      const float *V, const int32_t *D, const float *xn, const float *wn,
                      int64_t rows, int64_t cols, int64_t ld)
{
    static const char *names[] = {"from_i32", "inplace", "l2"};
    if (call == FROM_I32)
        e->from_i32(H, ld, D, ld, rows, cols, p);
    else
        memcpy(H, V, sizeof(float) * (size_t)(rows * ld));
    if (call == IN_PLACE)
        e->inplace_f32(H, ld, rows, cols, p);
    else if (call == L2_GEMM)
        e->l2_f32(H, ld, xn, wn, rows, cols, p);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            float v = call == FROM_I32 ? (float)D[i * ld + j] : V[i * ld + j];
            if (call == L2_GEMM) {
                v = (xn[i] + wn[j]) + v;
                v = v > 0.0f ? v : 0.0f;
            }
            float want = bnl_act_f(p, v);
            if (memcmp(&want, &H[i * ld + j], 4)) {
                print_error("%s %s %s, v %a (at %lld, %lld): %a != %a\n", e->name, names[call],
                            bnl_act_name(p->act), v, (long long)i, (long long)j, H[i * ld + j],
                            want);
                fail();
            }
        }
}

/* Every epilogue copy (baseline, AVX2, AVX-512) = the scalar definition,
 * bit for bit, for every act and kind of v, at odd lengths. */
static void test_epilogue_copies(void **state)
{
    const bnl_arch archs[] = {BNL_ARCH_SCALAR, BNL_ARCH_AVX2, BNL_ARCH_AVX512,
                              BNL_ARCH_AVX512VNNI, BNL_ARCH_AVX512BF16, BNL_ARCH_AVXVNNI,
                              BNL_ARCH_AMX};
    const int64_t rows = 3, cols = 37, ld = 41;
    float *H = must_alloc(sizeof(float) * rows * ld), *V = must_alloc(sizeof(float) * rows * ld);
    int32_t *D = must_alloc(sizeof(int32_t) * rows * ld);
    float xn[3] = {5.0f, 7.5f, 0.25f}, wn[37];
    for (int j = 0; j < cols; j++)
        wn[j] = 0.1f * (float)j;
    const struct { bnl_dist d; bnl_act a; } ops[] = {
        {BNL_L1, BNL_TRI}, {BNL_L1, BNL_GAUSS}, {BNL_L1, BNL_IDENT}, {BNL_L2, BNL_TRI},
        {BNL_L2, BNL_GAUSS}, {BNL_L2, BNL_IDENT}, {BNL_DOT, BNL_TANH}, {BNL_DOT, BNL_IDENT},
    };
    for (int a = 0; a < (int)(sizeof archs / sizeof *archs); a++) {
        if (!bnl_arch_supported(archs[a]))
            continue;
        const bnl_epi *e = bnl_epi_get(archs[a]);
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            bnl_op op = {ops[o].d, ops[o].a, FSVC_F32, 3.0, BNL_PREC_FULL};
            bnl_actp p = bnl_actp_make(&op);
            for (int64_t i = 0; i < rows * ld; i++)
                D[i] = (int32_t)((i * 7919) % 23) - (op.dist == BNL_DOT ? 11 : 0);
            for (int64_t i = 0; i < rows * ld; i++)
                H[i] = -99.0f;
            check_epi(e, &p, FROM_I32, H, NULL, D, NULL, NULL, rows, cols, ld);
            for (int64_t i = 0; i < rows; i++) /* past cols: untouched */
                for (int64_t j = cols; j < ld; j++)
                    assert_true(H[i * ld + j] == -99.0f);
            /* floats, some negative for the clamp */
            for (int64_t i = 0; i < rows * ld; i++)
                V[i] = (float)((i * 104729) % 1000) / 97.0f - 0.5f;
            check_epi(e, &p, op.dist != BNL_L2 ? IN_PLACE : L2_GEMM, H, V, NULL, xn, wn, rows,
                      cols, ld);
        }
    }
    free(H);
    free(V);
    free(D);
}

/* The Gaussian epilogues over the whole input range: int32 squared
 * distances up to INT32_MAX (past 2^24 the conversion rounds) and float
 * ones with negatives, zeros of both signs, NaN and infinities, for radii
 * that put exp's argument from near 0 to past its -87 cut-off. */
static void test_gauss_wide(void **state)
{
    const bnl_arch archs[] = {BNL_ARCH_SCALAR, BNL_ARCH_AVX2, BNL_ARCH_AVX512};
    const int64_t rows = 40, cols = 77, ld = 80; /* 4 vectors of 16 and a tail of 13 */
    const double radii[] = {0.7, 1.0, 30.0, 1452.85, 2.5e4, 3e6}; /* r 1: d 174 is -87 */
    int32_t *D = must_alloc(sizeof(int32_t) * rows * ld);
    float *H = must_alloc(sizeof(float) * rows * ld), *V = must_alloc(sizeof(float) * rows * ld);
    float xn[40] = {0.0f, 1.0f, 3e5f, 2e7f, 1e30f}, wn[77];
    uint32_t s = 12345u;
    for (int64_t q = 0; q < rows * ld; q++) {
        s = s * 1664525u + 1013904223u;
        int sh = (int)(s >> 27); /* 0..31: every magnitude */
        D[q] = (int32_t)((s >> 1) >> (31 - (sh ? sh : 1)));
    }
    D[0] = 0;
    D[1] = INT32_MAX;
    D[2] = (1 << 24) + 1;
    D[3] = 174;
    D[4] = 175;
    for (int64_t q = 0; q < rows * ld; q++) /* -2 x.c: any sign, some huge */
        V[q] = (float)D[q] * (q % 3 ? -1.0f : 0.5f) * (q % 7 ? 1.0f : 1e-6f);
    V[3] = NAN;
    V[4] = INFINITY;
    V[5] = -INFINITY;
    V[6] = -0.0f;
    for (int i = 5; i < 40; i++)
        xn[i] = (float)(i * i * i);
    for (int j = 0; j < cols; j++)
        wn[j] = (float)(j * j) * 0.37f;
    for (size_t a = 0; a < sizeof archs / sizeof *archs; a++) {
        if (!bnl_arch_supported(archs[a]))
            continue;
        const bnl_epi *e = bnl_epi_get(archs[a]);
        for (size_t r = 0; r < sizeof radii / sizeof *radii; r++) {
            bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, radii[r], BNL_PREC_FULL};
            bnl_actp p = bnl_actp_make(&op);
            check_epi(e, &p, FROM_I32, H, NULL, D, NULL, NULL, rows, cols, ld);
            check_epi(e, &p, L2_GEMM, H, V, NULL, xn, wn, rows, cols, ld);
        }
    }
    free(D);
    free(H);
    free(V);
}

/* row_act's Gaussian (L1: of max(0, d)^2) and tanh, in place over floats
 * of every magnitude and sign, NaN, infinities, zeros of both signs and
 * tanh's 1/16 switch; and from int32 (u8 L1 distances, u8 dot products). */
static void test_row_act_wide(void **state)
{
    const bnl_arch archs[] = {BNL_ARCH_SCALAR, BNL_ARCH_AVX2, BNL_ARCH_AVX512};
    const int64_t rows = 30, cols = 77, ld = 80;
    const struct { bnl_dist d; bnl_act a; double r; } ops[] = {
        {BNL_L1, BNL_GAUSS, 0.7}, {BNL_L1, BNL_GAUSS, 1e3}, {BNL_DOT, BNL_TANH, 1.0},
    };
    const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0.0625f, -0.0625f,
                             0.06249999f, 10.0f, -10.0f, 10.000001f, 87.0f, 1e-30f, -1e-30f};
    float *H = must_alloc(sizeof(float) * rows * ld), *V = must_alloc(sizeof(float) * rows * ld);
    int32_t *D = must_alloc(sizeof(int32_t) * rows * ld);
    int32_t *Dd = must_alloc(sizeof(int32_t) * rows * ld);
    uint32_t s = 777u;
    for (int64_t q = 0; q < rows * ld; q++) {
        s = s * 1664525u + 1013904223u;
        float m = (float)(s >> 8) / 16777216.0f; /* [0, 1) */
        int e = (int)((s >> 3) % 40) - 30;        /* 2^-30 .. 2^9 */
        V[q] = ldexpf(m, e) * (s & 1 ? -1.0f : 1.0f);
        Dd[q] = (int32_t)(s >> (s % 32)) * (s & 2 ? -1 : 1); /* dot products */
        D[q] = Dd[q] < 0 ? -(Dd[q] + 1) : Dd[q];             /* distances, >= 0 */
    }
    for (size_t q = 0; q < sizeof special / sizeof *special; q++)
        V[q * 3] = special[q];
    for (size_t a = 0; a < sizeof archs / sizeof *archs; a++) {
        if (!bnl_arch_supported(archs[a]))
            continue;
        const bnl_epi *e = bnl_epi_get(archs[a]);
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            bnl_op op = {ops[o].d, ops[o].a, FSVC_F32, ops[o].r, BNL_PREC_FULL};
            bnl_actp p = bnl_actp_make(&op);
            check_epi(e, &p, IN_PLACE, H, V, NULL, NULL, NULL, rows, cols, ld);
            check_epi(e, &p, FROM_I32, H, NULL, op.dist == BNL_DOT ? Dd : D, NULL, NULL, rows,
                      cols, ld);
        }
    }
    free(H);
    free(V);
    free(D);
    free(Dd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expf),
        cmocka_unit_test(test_tanhf),
        cmocka_unit_test(test_act_definition),
        cmocka_unit_test(test_epilogue_copies),
        cmocka_unit_test(test_gauss_wide),
        cmocka_unit_test(test_row_act_wide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
