/*
 * test_precision.c - the reduced-precision GEMM operands (issue 10):
 *   - layers/round_hd.h rounds f32 to tf32 and bf16 bit-exactly: a table
 *     of ties, subnormals, inf, NaN and the overflow to inf, and 200k
 *     random bit patterns against an independent oracle (rint in double);
 *   - the CPU backend (and the ref backend) emulate a tf32 / bf16 layer:
 *     forward equals act((|x|^2 + |w|^2) - 2 rx.rw) of the rounded operands
 *     within the f32 sums' error, differs from full precision, and leaves
 *     L1 and u8 layers bit-identical to full;
 *   - the model file keeps the precision (version 5), a full model is still
 *     written as version 3, an unknown precision in a file is refused.
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
#include <zlib.h>

#include "fsvc/internal.h"
#include "layers/bnl.h"
#include "layers/round_hd.h"
#include "tests/util/fixtures.h"

static uint32_t bits(float f) { return bnl_f32_bits(f); }
static float flt(uint32_t u) { return bnl_bits_f32(u); }

static void test_round_table(void **state)
{
    static const struct { uint32_t in, tf32, bf16; } T[] = {
        {0x3f800000u, 0x3f800000u, 0x3f800000u}, /* 1 */
        {0x3f801000u, 0x3f800000u, 0x3f800000u}, /* tf32 tie, even below */
        {0x3f803000u, 0x3f804000u, 0x3f800000u}, /* tf32 tie, odd: up */
        {0x3f801001u, 0x3f802000u, 0x3f800000u}, /* above the tie */
        {0x3f800fffu, 0x3f800000u, 0x3f800000u}, /* below the tie */
        {0x3f808000u, 0x3f808000u, 0x3f800000u}, /* bf16 tie, even below */
        {0x3f818000u, 0x3f818000u, 0x3f820000u}, /* bf16 tie, odd: up */
        {0x3f808001u, 0x3f808000u, 0x3f810000u}, /* bf16 above the tie */
        {0xbf818000u, 0xbf818000u, 0xbf820000u}, /* sign kept */
        {0x3f7fffffu, 0x3f800000u, 0x3f800000u}, /* carry into the exponent */
        {0x00000000u, 0x00000000u, 0x00000000u}, /* +0 */
        {0x80000000u, 0x80000000u, 0x80000000u}, /* -0 */
        {0x00001000u, 0x00000000u, 0x00000000u}, /* subnormal tie to 0 */
        {0x00003000u, 0x00004000u, 0x00000000u}, /* subnormal tie, odd */
        {0x00018000u, 0x00018000u, 0x00020000u}, /* bf16 subnormal tie, odd */
        {0x007fffffu, 0x00800000u, 0x00800000u}, /* largest subnormal: FLT_MIN */
        {0x80000001u, 0x80000000u, 0x80000000u}, /* tiny negative: -0 */
        {0x7f7fffffu, 0x7f800000u, 0x7f800000u}, /* FLT_MAX: inf */
        {0x7f7fefffu, 0x7f7fe000u, 0x7f800000u}, /* tf32 largest finite */
        {0x7f7ff000u, 0x7f800000u, 0x7f800000u}, /* tf32 tie at the top: inf */
        {0x7f7f7fffu, 0x7f7f8000u, 0x7f7f0000u}, /* bf16 largest finite */
        {0x7f7f8000u, 0x7f7f8000u, 0x7f800000u}, /* bf16 tie at the top: inf */
        {0xff7fffffu, 0xff800000u, 0xff800000u}, /* -FLT_MAX: -inf */
        {0x7f800000u, 0x7f800000u, 0x7f800000u}, /* inf */
        {0xff800000u, 0xff800000u, 0xff800000u}, /* -inf */
        {0x7fc00000u, 0x7fc00000u, 0x7fc00000u}, /* quiet NaN */
        {0x7f800001u, 0x7fc00000u, 0x7fc00000u}, /* NaN, payload cut: stays NaN */
        {0xff800001u, 0xffc00000u, 0xffc00000u}, /* -NaN */
        {0x7fffffffu, 0x7fffe000u, 0x7fff0000u}, /* NaN, payload kept high */
    };
    for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
        uint32_t t = bits(bnl_round_tf32(flt(T[i].in))), b = bits(bnl_round_bf16(flt(T[i].in)));
        if (t != T[i].tf32 || b != T[i].bf16)
            fail_msg("%08x: tf32 %08x (want %08x), bf16 %08x (want %08x)", T[i].in, t,
                     T[i].tf32, b, T[i].bf16);
        assert_int_equal(bnl_bf16_bits(flt(T[i].in)), T[i].bf16 >> 16);
        assert_int_equal(bits(bnl_round_prec(flt(T[i].in), 0)), T[i].in);
    }
}

/* x rounded to nearest even with mbits mantissa bits, f32's exponent
 * range (subnormals at 2^-126's spacing), by arithmetic in double. */
static float oracle(float x, int mbits)
{
    if (!isfinite(x) || x == 0.0f)
        return x;
    int e;
    frexp((double)x, &e); /* |x| in [2^(e-1), 2^e) */
    if (e - 1 < -126)
        e = -125;
    double ulp = ldexp(1.0, e - 1 - mbits);
    double r = rint((double)x / ulp) * ulp; /* default mode: ties to even */
    if (fabs(r) >= ldexp(1.0, 128))
        return x > 0 ? INFINITY : -INFINITY;
    return (float)r; /* exact: r has mbits + 1 bits */
}

static void test_round_random(void **state)
{
    uint64_t s = 12345;
    for (int i = 0; i < 200000; i++) {
        uint32_t u = (uint32_t)(fsvc_rng_next(&s) >> 17);
        if (i & 1) /* half of them near ties: low bits 0x1000 / 0x8000 +- 1 */
            u = (u & ~0xffffu) | (i & 2 ? 0x8000u : 0x1000u) | (uint32_t)(i & 4 ? 1 : 0);
        float x = flt(u);
        if (isnan(x))
            continue;
        uint32_t t = bits(bnl_round_tf32(x)), to = bits(oracle(x, 10));
        uint32_t b = bits(bnl_round_bf16(x)), bo = bits(oracle(x, 7));
        if (t != to || b != bo)
            fail_msg("%08x: tf32 %08x oracle %08x, bf16 %08x oracle %08x", u, t, to, b, bo);
    }
}

static void fill(float *a, size_t k, uint64_t seed, float lo, float hi)
{
    for (size_t i = 0; i < k; i++)
        a[i] = lo + (hi - lo) * (float)((fsvc_rng_next(&seed) >> 11) * 0x1p-53);
}

/* h of the emulation, in double from the rounded operands. */
static double expect_h(const bnl_op *op, const float *w, const float *x, int n)
{
    double dot = 0, xn = 0, wn = 0;
    for (int k = 0; k < n; k++) {
        dot += (double)bnl_round_prec(x[k], (int)op->precision) *
               bnl_round_prec(w[k], (int)op->precision);
        xn += (double)x[k] * x[k];
        wn += (double)w[k] * w[k];
    }
    double v = op->dist == BNL_DOT ? dot : fmax(0.0, xn + wn - 2 * dot);
    if (op->act == BNL_GAUSS)
        return exp(-v / (2 * op->radius * op->radius));
    return v;
}

/* forward on backend (arch) for op; max |h - expect| and max |h - h_full|. */
static void run(const char *backend, const bnl_op *op, const float *W, int64_t m,
                const float *X, int64_t N, int n, double *err_max, double *diff_full)
{
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, backend, 2, 0, &err), FSVC_OK);
    float *H = malloc((size_t)(N * m) * sizeof *H), *F = malloc((size_t)(N * m) * sizeof *F);
    bnl_op full = *op;
    full.precision = BNL_PREC_FULL;
    assert_int_equal(bnl_forward(&ctx, op, H, m, W, m, X, N, n, &err), FSVC_OK);
    assert_int_equal(bnl_forward(&ctx, &full, F, m, W, m, X, N, n, &err), FSVC_OK);
    *err_max = *diff_full = 0;
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++) {
            double e = expect_h(op, W + j * n, X + i * n, n);
            double scale = op->act == BNL_GAUSS ? 1.0 : fmax(1.0, fabs(e));
            *err_max = fmax(*err_max, fabs(H[i * m + j] - e) / scale);
            *diff_full = fmax(*diff_full, fabs((double)H[i * m + j] - F[i * m + j]) / scale);
        }
    /* actsum and scores follow forward */
    double *S = calloc((size_t)N, sizeof *S), *Y = malloc((size_t)N * 2 * sizeof *Y);
    double *R = malloc((size_t)m * 2 * sizeof *R);
    for (int64_t j = 0; j < m * 2; j++) R[j] = (double)(j % 7) - 3.0;
    assert_int_equal(bnl_actsum(&ctx, op, S, W, m, X, N, n, &err), FSVC_OK);
    assert_int_equal(bnl_scores(&ctx, op, Y, W, m, X, N, n, R, 2, &err), FSVC_OK);
    for (int64_t i = 0; i < N; i++) {
        double s = 0, y0 = 0;
        for (int64_t j = 0; j < m; j++) {
            s += H[i * m + j];
            y0 += H[i * m + j] * R[j * 2];
        }
        assert_true(fabs(S[i] - s) <= 1e-4 * (1 + fabs(s)));
        assert_true(fabs(Y[i * 2] - y0) <= 1e-4 * (1 + fabs(y0)));
    }
    free(S); free(Y); free(R);
    free(H); free(F);
    bnl_ctx_close(&ctx);
}

static void test_emulation(void **state)
{
    /* m, N not multiples of any tile; n odd */
    const int64_t m = 37, N = 53;
    const int n = 77;
    float *W = malloc((size_t)(m * n) * sizeof *W), *X = malloc((size_t)(N * n) * sizeof *X);
    fill(W, (size_t)(m * n), 1, 0.0f, 1.7f);
    fill(X, (size_t)(N * n), 2, 0.0f, 1.7f);
    const char *backends[] = {"cpu", "ref"};
    for (int b = 0; b < 2; b++)
        for (int p = BNL_PREC_TF32; p <= BNL_PREC_BF16; p++) {
            bnl_op l2 = {BNL_L2, BNL_GAUSS, FSVC_F32, 3.0, (bnl_precision)p};
            bnl_op dot = {BNL_DOT, BNL_IDENT, FSVC_F32, 0.0, (bnl_precision)p};
            double e, d;
            run(backends[b], &l2, W, m, X, N, n, &e, &d);
            if (e > 2e-5) fail_msg("%s %s l2: off the emulation by %g", backends[b],
                                   bnl_precision_name(l2.precision), e);
            /* bf16 moves h by ~1e-2, tf32 by ~1e-3 on these values */
            if (d < (p == BNL_PREC_BF16 ? 1e-3 : 5e-5))
                fail_msg("%s %s l2: only %g from full precision", backends[b],
                         bnl_precision_name(l2.precision), d);
            run(backends[b], &dot, W, m, X, N, n, &e, &d);
            if (e > 2e-6) fail_msg("%s %s dot: off the emulation by %g", backends[b],
                                   bnl_precision_name(dot.precision), e);
            if (d < 1e-5) fail_msg("%s %s dot: only %g from full", backends[b],
                                   bnl_precision_name(dot.precision), d);
        }
    free(W);
    free(X);
}

/* L1 and u8 layers are exact: the precision changes no bit. */
static void test_exact_layers_ignore(void **state)
{
    const int64_t m = 19, N = 23;
    const int n = 33;
    float *W = malloc((size_t)(m * n) * sizeof *W), *X = malloc((size_t)(N * n) * sizeof *X);
    uint8_t *W8 = malloc((size_t)(m * n)), *X8 = malloc((size_t)(N * n));
    fill(W, (size_t)(m * n), 3, -1.0f, 1.0f);
    fill(X, (size_t)(N * n), 4, -1.0f, 1.0f);
    for (int64_t k = 0; k < m * n; k++) W8[k] = (uint8_t)(k * 37);
    for (int64_t k = 0; k < N * n; k++) X8[k] = (uint8_t)(k * 91);
    float *H = malloc((size_t)(N * m) * sizeof *H), *F = malloc((size_t)(N * m) * sizeof *F);
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), FSVC_OK);
    for (int p = BNL_PREC_TF32; p <= BNL_PREC_BF16; p++) {
        bnl_op l1 = {BNL_L1, BNL_GAUSS, FSVC_F32, 2.0, (bnl_precision)p}, l1f = l1;
        l1f.precision = BNL_PREC_FULL;
        assert_int_equal(bnl_forward(&ctx, &l1, H, m, W, m, X, N, n, &err), FSVC_OK);
        assert_int_equal(bnl_forward(&ctx, &l1f, F, m, W, m, X, N, n, &err), FSVC_OK);
        assert_memory_equal(H, F, (size_t)(N * m) * sizeof *H);
        bnl_op u8 = {BNL_L2, BNL_GAUSS, FSVC_U8, 900.0, (bnl_precision)p}, u8f = u8;
        u8f.precision = BNL_PREC_FULL;
        assert_int_equal(bnl_forward(&ctx, &u8, H, m, W8, m, X8, N, n, &err), FSVC_OK);
        assert_int_equal(bnl_forward(&ctx, &u8f, F, m, W8, m, X8, N, n, &err), FSVC_OK);
        assert_memory_equal(H, F, (size_t)(N * m) * sizeof *H);
    }
    bnl_op bad = {BNL_L2, BNL_GAUSS, FSVC_F32, 2.0, (bnl_precision)3};
    assert_int_equal(bnl_forward(&ctx, &bad, H, m, W, m, X, N, n, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "precision"));
    bnl_ctx_close(&ctx);
    free(W); free(X); free(W8); free(X8); free(H); free(F);
}

/* A small f32 L2 model trained with precision p. */
static void train_small(fsvc_model *M, int p, fsvc_dataset *d)
{
    memset(d, 0, sizeof *d);
    int64_t N = 200;
    int n = 20, K = 3;
    d->N = N; d->n = n; d->dtype = FSVC_F32; d->has_labels = 1; d->K = K;
    float *x = malloc((size_t)(N * n) * sizeof *x);
    d->y = malloc(N * sizeof *d->y);
    d->cls = malloc(N * sizeof *d->cls);
    d->class_values = malloc(K * sizeof *d->class_values);
    for (int k = 0; k < K; k++) d->class_values[k] = k;
    uint64_t st = 9;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(i % K);
        d->cls[i] = k; d->y[i] = k;
        for (int j = 0; j < n; j++)
            x[i * n + j] = (float)((j + k) % 3) + (float)((fsvc_rng_next(&st) >> 11) * 0x1p-53);
    }
    d->x = x;
    snprintf(d->source, sizeof d->source, "synthetic");
    fsvc_param q;
    fsvc_param_default(&q);
    q.preprocess = FSVC_PRE_NONE;
    q.dtype = FSVC_F32;
    q.precision = p;
    fsvc_error err;
    if (fsvc_train(M, NULL, d, &q, &err)) fail_msg("%s", err.msg);
}

static void test_model_file(void **state)
{
    char *dir = fx_tmpdir(), path[1024];
    fx_join(path, sizeof path, dir, "m.fsvc");
    fsvc_error err;
    for (int p = 0; p <= 2; p++) {
        fsvc_dataset d;
        fsvc_model a, b;
        train_small(&a, p, &d);
        assert_int_equal(a.precision, p);
        assert_int_equal(fsvc_model_save(&a, path, &err), FSVC_OK);
        FILE *f = fopen(path, "rb");
        unsigned char head[12];
        assert_int_equal(fread(head, 1, 12, f), 12);
        fclose(f);
        assert_int_equal(head[8], p ? 5 : 3); /* full models keep version 3 */
        assert_int_equal(fsvc_model_load(&b, path, &err), FSVC_OK);
        assert_int_equal(b.precision, p);
        fsvc_free_model(&b);
        fsvc_free_model(&a);
        fsvc_dataset_free(&d);
    }
    /* the last one (bf16) with its precision turned into 3: refused */
    unsigned char *buf = NULL;
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)len);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    assert_int_equal(buf[len - 8], 2);
    buf[len - 8] = 3;
    uint32_t crc = (uint32_t)crc32_z(0L, buf + 20, (z_size_t)(len - 24));
    for (int i = 0; i < 4; i++) buf[len - 4 + i] = (unsigned char)(crc >> (8 * i));
    fsvc_model c;
    assert_int_equal(fsvc_model_parse(&c, buf, (size_t)len, "bad.fsvc", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "unknown precision"));
    /* and cut before it */
    uint32_t plen = (uint32_t)(len - 24 - 4);
    for (int i = 0; i < 8; i++) buf[12 + i] = (unsigned char)((uint64_t)plen >> (8 * i));
    crc = (uint32_t)crc32_z(0L, buf + 20, (z_size_t)plen);
    for (int i = 0; i < 4; i++) buf[20 + plen + i] = (unsigned char)(crc >> (8 * i));
    assert_int_equal(fsvc_model_parse(&c, buf, (size_t)len - 4, "cut.fsvc", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "precision"));
    free(buf);
    fx_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_table),
        cmocka_unit_test(test_round_random),
        cmocka_unit_test(test_emulation),
        cmocka_unit_test(test_exact_layers_ignore),
        cmocka_unit_test(test_model_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
