/*
 * test_hscore.c - the tiers' readout-score kernels (kernels.h hscore:
 * Y += H R, f32 H, float64 R and Y) against a scalar fma loop, bit for
 * bit: every row count of a block and past it (1..19, 33), widths 1..241,
 * K around each tier's panels and vectors (1..18, 24, 25, 33); values
 * spanning many binades, zeros and signs; nothing written past Y's rows x
 * K; and one call over all rows equals the rows cut into pieces.
 * bnl_scores_host (Y = H R over a host H, row blocks on threads): on
 * every tier, 1 and 2 threads give the same bits, equal to the fma loop
 * where the tier has hscore, within float64 rounding of the sum where
 * it does not (dgemm).
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
#include "layers/kernels.h"
#include "tests/util/archs.h"
#include "tests/util/fixtures.h"

#define GUARD 40
#define SENTINEL -12345.5

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static double wide(double scale) /* signs, zeros, 2^-30..2^30 */
{
    double u = fx_urand(&rng);
    if (u < 0.1) return 0.0;
    double mant = fx_urand(&rng) + 0.5;
    return (u < 0.55 ? -1 : 1) * ldexp(mant, (int)(fx_urand(&rng) * 60) - 30) * scale;
}

static void reference(double *Y, const float *H, int64_t rows, int64_t cols, const double *R,
                      int K)
{
    for (int64_t i = 0; i < rows; i++)
        for (int k = 0; k < K; k++) {
            double y = Y[i * K + k];
            for (int64_t j = 0; j < cols; j++)
                y = fma((double)H[i * cols + j], R[j * K + k], y);
            Y[i * K + k] = y;
        }
}

/* one shape on one kernel: the number of faults */
static int check_shape(bnl_hscore_fn f, const char *tier, int64_t rows, int64_t cols, int K)
{
    size_t yn = (size_t)(rows * K);
    float *H = malloc((size_t)(rows * cols) * sizeof *H);
    double *R = malloc((size_t)(cols * K) * sizeof *R);
    double *Y = malloc((yn + GUARD) * sizeof *Y), *Yr = malloc(yn * sizeof *Yr);
    double *Yp = malloc((yn + GUARD) * sizeof *Yp);
    assert_true(H && R && Y && Yr && Yp);
    for (int64_t q = 0; q < rows * cols; q++) H[q] = (float)wide(1.0);
    for (int64_t q = 0; q < cols * K; q++) R[q] = wide(1.0);
    for (size_t q = 0; q < yn; q++) Yr[q] = wide(4.0);
    memcpy(Y, Yr, yn * sizeof *Y);
    memcpy(Yp, Yr, yn * sizeof *Y);
    for (int q = 0; q < GUARD; q++) Y[yn + q] = Yp[yn + q] = SENTINEL;
    f(Y, H, rows, cols, R, K);
    /* the rows in pieces of 3, 1, 5, ...: each row's bits do not depend
     * on its neighbours */
    for (int64_t i = 0, c = 3; i < rows; i += c, c = c == 3 ? 1 : c == 1 ? 5 : 3) {
        int64_t r = rows - i < c ? rows - i : c;
        f(Yp + i * K, H + i * cols, r, cols, R, K);
    }
    reference(Yr, H, rows, cols, R, K);
    int bad = 0;
    for (int q = 0; q < GUARD; q++) bad += Y[yn + q] != SENTINEL || Yp[yn + q] != SENTINEL;
    if (bad)
        fprintf(stderr, "%s rows %lld cols %lld K %d: written past Y\n", tier, (long long)rows,
                (long long)cols, K);
    for (size_t q = 0; q < yn; q++) {
        int b = memcmp(&Y[q], &Yr[q], sizeof *Y) != 0 || memcmp(&Yp[q], &Yr[q], sizeof *Y) != 0;
        if (b && bad++ < 3)
            fprintf(stderr, "%s rows %lld cols %lld K %d: Y[%zu] = %.17g, pieces %.17g, "
                    "fma loop %.17g\n", tier, (long long)rows, (long long)cols, K, q, Y[q],
                    Yp[q], Yr[q]);
    }
    free(H); free(R); free(Y); free(Yr); free(Yp);
    return bad;
}

static void test_shapes(void **state)
{
    (void)state;
    static const int64_t ROWS[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 19, 33};
    static const int64_t COLS[] = {1, 2, 7, 64, 241};
    static const int KS[] = {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 24, 25, 33};
    const void *seen[BNL_ARCH_COUNT];
    int tiers = 0, bad = 0;
    for (int a = 0; a < BNL_ARCH_COUNT; a++) {
        const bnl_kernels *k = fx_own_tier(a, (const void *)bnl_kernels_get((bnl_arch)a)->hscore,
                                           seen, &tiers);
        if (!k) continue;
        for (size_t r = 0; r < sizeof ROWS / sizeof *ROWS; r++)
            for (size_t c = 0; c < sizeof COLS / sizeof *COLS; c++)
                for (size_t q = 0; q < sizeof KS / sizeof *KS; q++)
                    bad += check_shape(k->hscore, k->name, ROWS[r], COLS[c], KS[q]);
    }
    fprintf(stderr, "hscore: %d kernels checked here\n", tiers);
    assert_int_equal(bad, 0);
}

static void test_host(void **state)
{
    (void)state;
    const int64_t N = 203, m = 150; /* 3 blocks of 64 and a tail */
    const int K = 10;
    float *H = malloc((size_t)(N * m) * sizeof *H);
    double *R = malloc((size_t)(m * K) * sizeof *R), *Yr = malloc((size_t)(N * K) * sizeof *Yr);
    double *Ya = malloc((size_t)(N * K) * sizeof *Ya), *Y1 = malloc((size_t)(N * K) * sizeof *Y1);
    double *Y2 = malloc((size_t)(N * K) * sizeof *Y2);
    assert_true(H && R && Yr && Ya && Y1 && Y2);
    for (int64_t q = 0; q < N * m; q++) H[q] = (float)wide(1.0);
    for (int64_t q = 0; q < m * K; q++) R[q] = wide(1.0);
    for (int64_t q = 0; q < N * K; q++) Yr[q] = Ya[q] = 0.0;
    reference(Yr, H, N, m, R, K);
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < K; k++)
            for (int64_t j = 0; j < m; j++) Ya[i * K + k] += fabs((double)H[i * m + j] * R[j * K + k]);
    fsvc_error err;
    bnl_ctx ctx;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 2, 0, &err), FSVC_OK);
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
        if (!bnl_arch_supported((bnl_arch)a)) continue;
        assert_int_equal(bnl_ctx_set_arch(&ctx, (bnl_arch)a, &err), FSVC_OK);
        ctx.threads = 1;
        memset(Y1, 0xff, (size_t)(N * K) * sizeof *Y1); /* overwritten, never added to */
        assert_int_equal(bnl_scores_host(&ctx, Y1, H, N, m, R, K, &err), FSVC_OK);
        ctx.threads = 2;
        assert_int_equal(bnl_scores_host(&ctx, Y2, H, N, m, R, K, &err), FSVC_OK);
        assert_memory_equal(Y1, Y2, (size_t)(N * K) * sizeof *Y1);
        int exact = bnl_kernels_get((bnl_arch)a)->hscore != NULL;
        for (int64_t q = 0; q < N * K; q++) {
            double tol = exact ? 0.0 : 2.0 * (double)m * 1.1102230246251565e-16 * Ya[q];
            if (!(fabs(Y1[q] - Yr[q]) <= tol)) /* NaN fails too */
                fail_msg("%s: Y[%lld] = %.17g, fma loop %.17g", bnl_arch_name((bnl_arch)a),
                         (long long)q, Y1[q], Yr[q]);
        }
    }
    bnl_ctx_close(&ctx);
    free(H); free(R); free(Yr); free(Ya); free(Y1); free(Y2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
