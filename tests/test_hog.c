/*
 * test_hog.c - the HOG of fsvc/hog.h against a plain reference (double
 * atan2 per pixel, cells by index arithmetic) at many shapes, edge cells
 * (rows and cols not multiples of 4) included, within the error the
 * polynomial arctangent allows; images worked by hand (blank, vertical,
 * horizontal and diagonal edges); the batch form equal bit for bit to
 * the single image for every type and for 1 and 2 threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/hog.h"
#include "tests/util/fixtures.h"

/* The reference bin sums (before the square root), in double. */
static void ref_sums(double *out, const float *img, int rows, int cols)
{
    int cc = (cols + 3) / 4;
    memset(out, 0, (size_t)fsvc_hog_width(rows, cols) * sizeof *out);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            double gx = 0, gy = 0;
            const float *p = img + r * cols + c;
            if (c >= 1 && c + 1 < cols) gx = (double)p[1] - p[-1];
            if (r >= 1 && r + 1 < rows) gy = (double)p[cols] - p[-cols];
            double mag = hypot(gx, gy);
            if (mag == 0) continue;
            double th = atan2(gy, gx);
            if (th < 0) th += M_PI;
            if (th >= M_PI) th -= M_PI;
            double pos = th / M_PI * 8;
            int lo = (int)floor(pos);
            double f = pos - lo;
            double *h = out + ((size_t)(r / 4) * cc + (size_t)(c / 4)) * 8;
            h[lo % 8] += mag * (1 - f);
            h[(lo + 1) % 8] += mag * f;
        }
}

/* out (the square roots) against the reference sums: |out^2 - s| within
 * what the arctangent's 1e-5 rad moves between bins (8 / pi of it per unit
 * of magnitude, at most 16 pixels of magnitude maxmag a cell) and float
 * rounding. */
static void check_against_ref(const float *out, const float *img, int rows, int cols)
{
    int64_t w = fsvc_hog_width(rows, cols);
    double *s = malloc((size_t)w * sizeof *s), maxmag = 0;
    assert_non_null(s);
    ref_sums(s, img, rows, cols);
    for (int q = 0; q < rows * cols; q++) maxmag = fmax(maxmag, 2 * sqrt(2.0) * fabs(img[q]));
    for (int64_t q = 0; q < w; q++) {
        double tol = 16 * maxmag * (1e-5 * 8 / M_PI) + 1e-5 * s[q] + 1e-12;
        double got = (double)out[q] * out[q];
        if (fabs(got - s[q]) > tol)
            fail_msg("%dx%d: value %lld: %.9g, reference %.9g (tolerance %.3g)", rows, cols,
                     (long long)q, got, s[q], tol);
    }
    free(s);
}

static void test_width(void **state)
{
    (void)state;
    assert_int_equal(fsvc_hog_width(28, 28), 392);
    assert_int_equal(fsvc_hog_width(5, 7), 2 * 2 * 8);
    assert_int_equal(fsvc_hog_width(1, 1), 8);
    assert_int_equal(fsvc_hog_width(0, 5), 0);
    assert_int_equal(fsvc_hog_width(4, -1), 0);
}

/* Worked by hand on 8 x 8 images. */
static void test_by_hand(void **state)
{
    (void)state;
    float img[64], out[32];
    memset(img, 0, sizeof img);
    fsvc_hog_image(out, img, 8, 8);
    for (int q = 0; q < 32; q++) assert_true(out[q] == 0);
    /* vertical edge between columns 3 and 4: gx = 1 at columns 3 and 4 of
     * every row, orientation 0: bin 0 of cells (i, 0) and (i, 1) sums 4 */
    for (int r = 0; r < 8; r++)
        for (int c = 4; c < 8; c++) img[r * 8 + c] = 1;
    fsvc_hog_image(out, img, 8, 8);
    for (int q = 0; q < 32; q++) assert_true(out[q] == (q % 8 == 0 ? 2.0f : 0.0f));
    /* the same edge across rows: orientation pi/2, bin 4 */
    memset(img, 0, sizeof img);
    for (int r = 4; r < 8; r++)
        for (int c = 0; c < 8; c++) img[r * 8 + c] = 1;
    fsvc_hog_image(out, img, 8, 8);
    for (int q = 0; q < 32; q++) assert_true(fabsf(out[q] - (q % 8 == 4 ? 2.0f : 0.0f)) < 1e-6f);
    /* I = r + c: inside, (2, 2) at pi/4: bin 2, magnitude 2 sqrt 2; on
     * columns 0 and 7 gx = 0: (0, 2), bin 4; on rows 0 and 7 gy = 0: bin 0;
     * the corners vote nothing. Cell (0, 0): pixel (0,0) none, (0,1..3)
     * bin 0 of 2 each, (1..3, 0) bin 4 of 2 each, 9 pixels bin 2. */
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) img[r * 8 + c] = (float)(r + c);
    fsvc_hog_image(out, img, 8, 8);
    double want[8] = {6, 0, 9 * 2 * sqrt(2.0), 0, 6, 0, 0, 0};
    for (int b = 0; b < 8; b++) /* the arctangent may move 1e-5 of a vote */
        assert_true(fabs((double)out[b] * out[b] - want[b]) < 1e-3);
}

static void test_shapes(void **state)
{
    (void)state;
    static const int shape[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 5}, {4, 4}, {5, 9},
                                   {7, 13}, {8, 8}, {16, 3}, {28, 28}, {30, 17}, {33, 40}};
    uint64_t rng = 42;
    for (size_t s = 0; s < sizeof shape / sizeof shape[0]; s++) {
        int rows = shape[s][0], cols = shape[s][1];
        for (int trial = 0; trial < 3; trial++) {
            float *img = malloc((size_t)rows * cols * sizeof *img);
            float *out = malloc((size_t)fsvc_hog_width(rows, cols) * sizeof *out);
            assert_non_null(img);
            assert_non_null(out);
            for (int q = 0; q < rows * cols; q++) { /* blobs, flats and signs */
                double u = fx_urand(&rng);
                img[q] = trial == 0 ? (float)(u < 0.4 ? 0 : u)
                       : trial == 1 ? (float)(255 * u) : (float)(u - 0.5);
            }
            fsvc_hog_image(out, img, rows, cols);
            check_against_ref(out, img, rows, cols);
            free(img);
            free(out);
        }
    }
}

/* The batch: u8 (unit 1/255), f32 and f64 images, 1 and 2 threads, the
 * same bits as one image at a time. */
static void test_batch(void **state)
{
    (void)state;
    enum { N = 37, R = 13, C = 10 };
    int64_t w = fsvc_hog_width(R, C);
    uint8_t *u = malloc(N * R * C);
    float *f = malloc(N * R * C * sizeof *f), *one = malloc(R * C * sizeof *one);
    double *d = malloc(N * R * C * sizeof *d);
    float *want = malloc((size_t)(N * w) * sizeof *want);
    float *got = malloc((size_t)(N * w) * sizeof *got);
    assert_true(u && f && d && one && want && got);
    uint64_t rng = 7;
    for (int q = 0; q < N * R * C; q++) u[q] = (uint8_t)(fx_urand(&rng) * 256);
    for (int q = 0; q < N * R * C; q++) f[q] = (float)(u[q] * 0.25);
    for (int q = 0; q < N * R * C; q++) d[q] = u[q] * 0.25;
    for (int i = 0; i < N; i++) {
        for (int q = 0; q < R * C; q++) one[q] = (float)(u[i * R * C + q] * (1.0 / 255));
        fsvc_hog_image(want + (size_t)i * w, one, R, C);
    }
    for (int t = 1; t <= 2; t++) {
        assert_int_equal(fsvc_hog_batch(got, u, FSVC_U8, 1.0 / 255, N, R, C, t), 0);
        assert_memory_equal(got, want, (size_t)(N * w) * sizeof *got);
    }
    for (int i = 0; i < N; i++) fsvc_hog_image(want + (size_t)i * w, f + i * R * C, R, C);
    for (int t = 1; t <= 2; t++) {
        assert_int_equal(fsvc_hog_batch(got, f, FSVC_F32, 1.0, N, R, C, t), 0);
        assert_memory_equal(got, want, (size_t)(N * w) * sizeof *got);
        assert_int_equal(fsvc_hog_batch(got, d, FSVC_F64, 1.0, N, R, C, t), 0);
        assert_memory_equal(got, want, (size_t)(N * w) * sizeof *got);
    }
    assert_int_equal(fsvc_hog_batch(got, u, FSVC_U8, 1.0, 0, R, C, 2), 0);
    assert_int_equal(fsvc_hog_batch(got, u, FSVC_U8, 1.0, N, 0, C, 2), -1);
    assert_int_equal(fsvc_hog_batch(NULL, u, FSVC_U8, 1.0, N, R, C, 2), -1);
    free(u); free(f); free(d); free(one); free(want); free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
