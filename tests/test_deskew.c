/* test_deskew.c - moment deskewing (fsvc/deskew.h): a sheared bar becomes
 * upright, upright symmetric images are unchanged, any shape works, outputs
 * stay in range, batches (also in place) equal the single-image calls, and
 * on real MNIST images the result agrees with the numpy reference (the
 * accuracy study's deskew) within +-1 grey level. The u8 moments and rows'
 * fast loops give the bits of the plain definition (double moments, floor,
 * bounds-checked reads) on 20000 images of random shapes (to 4200 columns),
 * sparse and dense, to shears far past the image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/deskew.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

/* Column centre of mass of row r (NAN for an empty row). */
static double row_cx(const uint8_t *im, int cols, int r)
{
    double s = 0, sx = 0;
    for (int c = 0; c < cols; c++) {
        s += im[r * cols + c];
        sx += (double)c * im[r * cols + c];
    }
    return s > 0 ? sx / s : NAN;
}

/* A bar of half-width w through (cr, cc) with slope s (columns per row),
 * rows r0..r1, anti-aliased: intensity falls linearly over one pixel. */
static void sheared_bar(uint8_t *im, int rows, int cols, double cr, double cc,
                        double s, double w, int r0, int r1)
{
    memset(im, 0, (size_t)rows * cols);
    for (int r = r0; r <= r1; r++)
        for (int c = 0; c < cols; c++) {
            double d = fabs((double)c - (cc + s * ((double)r - cr)));
            double v = d <= w ? 255.0 : d < w + 1 ? 255.0 * (w + 1 - d) : 0.0;
            im[r * cols + c] = (uint8_t)lround(v);
        }
}

static void sheared_bar_becomes_upright(void **state)
{
    (void)state;
    const double slopes[] = {0.4, -0.3, 0.15, -0.6};
    for (size_t k = 0; k < sizeof slopes / sizeof slopes[0]; k++) {
        enum { R = 28, C = 28 };
        uint8_t in[R * C], out[R * C];
        sheared_bar(in, R, C, 14, 14, slopes[k], 1.0, 5, 22);
        double a = fsvc_deskew_alpha_u8(in, R, C);
        assert_true(fabs(a - slopes[k]) < 0.02);
        fsvc_deskew_u8(in, out, R, C);
        double a2 = fsvc_deskew_alpha_u8(out, R, C);
        assert_true(fabs(a2) < 0.03);
        /* every row's centre sits in the same column (within a pixel) */
        double lo = 1e9, hi = -1e9;
        for (int r = 5; r <= 22; r++) {
            double cx = row_cx(out, C, r);
            assert_false(isnan(cx));
            lo = fmin(lo, cx);
            hi = fmax(hi, cx);
        }
        assert_true(hi - lo < 1.0);
        /* rows outside the bar stay empty; ink is (nearly) conserved */
        long sin = 0, sout = 0;
        for (int i = 0; i < R * C; i++) {
            sin += in[i];
            sout += out[i];
        }
        for (int c = 0; c < C; c++)
            assert_int_equal(out[c], 0);
        assert_true(labs(sin - sout) <= R * C / 2);
    }
}

static void upright_symmetric_unchanged(void **state)
{
    (void)state;
    /* a plus sign and a ring, symmetric about a vertical axis */
    const int shapes[][2] = {{28, 28}, {27, 27}, {9, 7}, {5, 13}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        int R = shapes[k][0], C = shapes[k][1];
        uint8_t *in = calloc((size_t)R * C, 1), *out = malloc((size_t)R * C);
        assert_non_null(in);
        assert_non_null(out);
        for (int r = 1; r < R - 1; r++)
            for (int c = 0; c < C; c++) {
                int m = C - 1 - c; /* mirror column */
                int cc = c < m ? c : m;
                if (cc == (C - 1) / 2 || r == R / 2 || (cc == 1 && r % 3 == 0))
                    in[r * C + c] = (uint8_t)(40 + 7 * r);
            }
        assert_true(fabs(fsvc_deskew_alpha_u8(in, R, C)) < 1e-12);
        fsvc_deskew_u8(in, out, R, C);
        assert_memory_equal(in, out, (size_t)R * C);
        free(in);
        free(out);
    }
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void shapes_and_range(void **state)
{
    (void)state;
    const int shapes[][2] = {{28, 28}, {1, 1}, {1, 9}, {9, 1}, {2, 2},
                             {3, 5},   {7, 31}, {31, 7}, {29, 27}};
    uint32_t seed = 12345;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        int R = shapes[k][0], C = shapes[k][1];
        size_t n = (size_t)R * C;
        uint8_t *in = malloc(n), *out = malloc(n);
        float *fin = malloc(n * sizeof(float)), *fout = malloc(n * sizeof(float));
        assert_true(in && out && fin && fout);
        for (int rep = 0; rep < 20; rep++) {
            int sparse = rep % 2;
            for (size_t i = 0; i < n; i++) {
                uint32_t v = lcg(&seed);
                in[i] = (uint8_t)(sparse && (v & 0x300) ? 0 : (v & 255));
                if (rep == 19)
                    in[i] = 255;
                fin[i] = in[i] / 255.0f;
            }
            memset(out, 0xAB, n);
            fsvc_deskew_u8(in, out, R, C);
            fsvc_deskew_f32(fin, fout, R, C);
            for (size_t i = 0; i < n; i++) {
                assert_true(fout[i] >= 0.0f && fout[i] <= 1.0f + 1e-6f);
                assert_false(isnan(fout[i]));
                /* u8 and f32 agree up to the u8 rounding */
                assert_true(fabs(fout[i] * 255.0 - out[i]) <= 0.5 + 1e-3);
            }
            if (R == 1) /* a single row has no skew: copied */
                assert_memory_equal(in, out, n);
        }
        /* blank image: unchanged */
        memset(in, 0, n);
        memset(out, 7, n);
        fsvc_deskew_u8(in, out, R, C);
        assert_memory_equal(in, out, n);
        assert_true(fsvc_deskew_alpha_u8(in, R, C) == 0.0);
        free(in);
        free(out);
        free(fin);
        free(fout);
    }
}

static void batch_matches_single(void **state)
{
    (void)state;
    enum { N = 37, R = 28, C = 28 };
    uint8_t *in = malloc(N * R * C), *one = malloc(N * R * C),
            *b = malloc(N * R * C), *ip = malloc(N * R * C);
    float *fin = malloc(N * R * C * sizeof(float)),
          *fone = malloc(N * R * C * sizeof(float)),
          *fb = malloc(N * R * C * sizeof(float));
    assert_true(in && one && b && ip && fin && fone && fb);
    for (int i = 0; i < N; i++)
        sheared_bar(in + i * R * C, R, C, 10 + i % 9, 8 + i % 13,
                    -0.8 + 0.05 * i, 0.5 + 0.1 * (i % 4), 3 + i % 5, 20 + i % 7);
    for (int i = 0; i < N * R * C; i++)
        fin[i] = in[i];
    for (int i = 0; i < N; i++) {
        fsvc_deskew_u8(in + i * R * C, one + i * R * C, R, C);
        fsvc_deskew_f32(fin + i * R * C, fone + i * R * C, R, C);
    }
    for (int threads = 0; threads <= 3; threads++) {
        assert_int_equal(fsvc_deskew_u8_batch(in, b, N, R, C, threads), 0);
        assert_memory_equal(b, one, N * R * C);
        memcpy(ip, in, N * R * C);
        assert_int_equal(fsvc_deskew_u8_batch(ip, ip, N, R, C, threads), 0);
        assert_memory_equal(ip, one, N * R * C);
        assert_int_equal(fsvc_deskew_f32_batch(fin, fb, N, R, C, threads), 0);
        assert_memory_equal(fb, fone, N * R * C * sizeof(float));
    }
    assert_int_equal(fsvc_deskew_u8_batch(in, b, 0, R, C, 0), 0);
    assert_int_equal(fsvc_deskew_u8_batch(in, b, N, 0, C, 0), -1);
    assert_int_equal(fsvc_deskew_u8_batch(in, b, N, R, -1, 0), -1);
    assert_int_equal(fsvc_deskew_u8_batch(NULL, b, N, R, C, 0), -1);
    assert_int_equal(fsvc_deskew_f32_batch(fin, NULL, N, R, C, 0), -1);
    free(in);
    free(one);
    free(b);
    free(ip);
    free(fin);
    free(fone);
    free(fb);
}

/* numpy reference (the accuracy study's vectorised deskew, same definition)
 * on MNIST training images 0, 1, 2 and 11 (the most skewed of the first
 * 100): index, alpha, then the 784 output pixels in hex. */
static const struct {
    int index;
    double alpha;
    const char *hex;
} ref[] = {
    {0, -0.23250936425858454,
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000512121d7f8ca028affeeb720000000000000000000000001a235692a8f2"
     "fdfdfdfde5b3f2f3c95108000000000000000000001fa9f8fdfdfdfdfdfdfdfc97565241"
     "2d0e00000000000000000000000763e9fdfdfdfde7c0d0f5900000000000000000000000"
     "0000000000000e5d9484fdf5ac09073e8000000000000000000000000000000000000000"
     "0d0291f7640600000000000000000000000000000000000000000000000062dbd1390100"
     "000000000000000000000000000000000000000000000560dca625000000000000000000"
     "0000000000000000000000000000000855edd19352010000000000000000000000000000"
     "00000000000000000152f0fdfc7619000000000000000000000000000000000000000000"
     "0000239aeefdad370600000000000000000000000000000000000000000000093ab3fdd9"
     "550000000000000000000000000000000000000000000000004dfafcc02c000000000000"
     "0000000000000000000000000000043586bcfdf9bf020000000000000000000000000000"
     "00000000002183d9f9fdfdfac01c00000000000000000000000000000000000f4fb4f1fd"
     "fdfddd7e1e0000000000000000000000000000000009277ae4fdfdfde899330100000000"
     "00000000000000000000000329b2e0fdfdfdf4b245080000000000000000000000000000"
     "000032a2ddfbfdfdfdf58e150100000000000000000000000000000000005dd8fdfde19f"
     "853505000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000"
    },
    {1, -0.34728746793114523,
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000001055bddf7c22000000000000000000000000000000"
     "000000000000002fe8fcfcfced07000000000000000000000000000000000000000022a2"
     "f3fcf4ebf582190200000000000000000000000000000000031869e8fcfdeea982fcd958"
     "000000000000000000000000000000000097f6fcfcfdfcfc6bb6f8ad0c00000000000000"
     "00000000000000001ea0f7fdd892c3ee7b42b5cc4600000000000000000000000000000b"
     "5cf1fceb8c1b566210003bfbc626000000000000000000000000002297f3ebd3620a0000"
     "000000e0fcaf1300000000000000000000000463daf6952b180d000000000088fcdd5a00"
     "000000000000000000000b5efcd833000000000000000031fdf19e000000000000000000"
     "000000a7f4c81d000000000000000000d7fdcd1e0000000000000000000026a1f9b63800"
     "00000000000000007efdc84a000000000000000000000d6ef9c71500000000000000011a"
     "99f3a00a000000000000000000000044dbe52c00000000000000066be4e6650e00000000"
     "0000000000000027a1cb4f0000000000001665cdd85e0000000000000000000000000009"
     "68fac900000000000c7ff0f39000000000000000000000000000000041d4faab4722489c"
     "d6f6e6b4530d0000000000000000000000000000239afcfcf2dfe6fcfce5a94c00000000"
     "0000000000000000000000000227cbfcfcfdfcfbe3870000000000000000000000000000"
     "0000000000001263d9fdfcac420a00000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000"
    },
    {2, 0.21448939556052404,
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000000000034bdf25000000000000000010433c00000000"
     "0000000000000000001f888f1d00000000000000003c9055000000000000000000000000"
     "014ab48115000000000000000098b53200000000000000000000000013b8be3200000000"
     "0000000000c9a90f000000000000000000000000a6f7890c000000000000000646eb8f00"
     "000000000000000000000018cde631000000000000000028a5e06d000000000000000000"
     "0000085defb313000000000000000057d3b436000000000000000000000059d5e96a0700"
     "0000000000000079e86f1000000000000000000b459ce7fd82160000000000000000009b"
     "fc590200002e31738f96eff3eab4f0fc2d0100000000000000001daafae7cfcfd8fdfdf8"
     "e8bb854f1831ecca0000000000000000000000308fb1b1b1b19151210000000029a4f083"
     "00000000000000000000000000000000000000000000000069deb5340000000000000000"
     "000000000000000000000000000000008df0590900000000000000000000000000000000"
     "0000000000000008adf4360000000000000000000000000000000000000000000000002d"
     "c0d44500000000000000000000000000000000000000000000000051d2b2320000000000"
     "0000000000000000000000000000000000000075e4b82f00000000000000000000000000"
     "000000000000000000000099f7a20e000000000000000000000000000000000000000000"
     "00000c73f286000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000"
    },
    {11, -1.009631481432654,
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000017266bd0eab127"
     "00000000000000000000000000000000000000003381d8fafdfdfde13700000000000000"
     "000000000000000000000073bdf0fefef4ae702002000000000000000000000000000000"
     "00000e75e3f1d474332008000000000000000000000000000000000000000067deb03203"
     "000000000000000000000000000000000000000000075ec3784f1d020000000000000000"
     "00000000000000000000000000005dd9c138020000000000000000000000000000000000"
     "00000000000000affe851800000000000000000000000000000000000000000000000000"
     "88eceb78160000000000000000000000000000000000000000002516020c5bd3f56b0e00"
     "0000000000000000000000000000000000108fe18d1f000dadfd7d140000000000000000"
     "0000000000000000000096f09c26000056d2d14a05000000000000000000000000000000"
     "0000004dc8fbfefee6f1ea711200000000000000000000000000000000000000004993d0"
     "e9eac85b1001000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000"
    },
};

static int hexval(char ch)
{
    return ch <= '9' ? ch - '0' : ch - 'a' + 10;
}

static void mnist_matches_numpy(void **state)
{
    (void)state;
    char dir[512], prefix[600];
    fx_data(dir, sizeof dir);
    snprintf(prefix, sizeof prefix, "%s/mnist/train", dir);
    char img[700];
    snprintf(img, sizeof img, "%s-images-idx3-ubyte.gz", prefix);
    FX_REQUIRE(img);
    fsvc_dataset d;
    fsvc_error err;
    memset(&d, 0, sizeof d);
    assert_int_equal(fsvc_dataset_load(&d, prefix, NULL, &err), 0);
    assert_int_equal(d.n, 784);
    assert_int_equal(d.dtype, FSVC_U8);
    const uint8_t *x = d.x;
    for (size_t k = 0; k < sizeof ref / sizeof ref[0]; k++) {
        const uint8_t *in = x + (size_t)ref[k].index * 784;
        uint8_t out[784];
        assert_true(fabs(fsvc_deskew_alpha_u8(in, 28, 28) - ref[k].alpha) < 1e-9);
        fsvc_deskew_u8(in, out, 28, 28);
        assert_int_equal(strlen(ref[k].hex), 2 * 784);
        int differ = 0;
        for (int i = 0; i < 784; i++) {
            int want = 16 * hexval(ref[k].hex[2 * i]) + hexval(ref[k].hex[2 * i + 1]);
            assert_true(abs(want - out[i]) <= 1);
            differ += want != out[i];
        }
        assert_true(differ <= 8);
        assert_true(memcmp(in, out, 784) != 0); /* these images do change */
    }
    /* the whole training set in place, in batch: no failure, deskew
     * reduces the typical skew */
    if (!getenv("FSVC_TEST_QUICK")) {
        uint8_t *copy = malloc((size_t)d.N * 784);
        assert_non_null(copy);
        memcpy(copy, x, (size_t)d.N * 784);
        assert_int_equal(fsvc_deskew_u8_batch(copy, copy, d.N, 28, 28, 0), 0);
        double s0 = 0, s1 = 0;
        for (int64_t i = 0; i < d.N; i += 7) {
            s0 += fabs(fsvc_deskew_alpha_u8(x + i * 784, 28, 28));
            s1 += fabs(fsvc_deskew_alpha_u8(copy + i * 784, 28, 28));
        }
        assert_true(s1 < 0.25 * s0);
        free(copy);
    }
    fsvc_dataset_free(&d);
}

/* The plain u8 definition: out(r, c) = floor(I(r, c + alpha (r - cy)) +
 * 0.5), linear interpolation, 0 outside; the moments (deskew.h) in double,
 * in row and column order. */
static double plain_u8(const uint8_t *in, uint8_t *out, int rows, int cols)
{
    double m0 = 0, sx = 0, sy = 0, vy = 0, cxy = 0;
    for (int r = 0; r < rows; r++) {
        double rs = 0, xs = 0;
        for (int c = 0; c < cols; c++) {
            rs += (double)in[r * cols + c];
            xs += (double)c * (double)in[r * cols + c];
        }
        m0 += rs;
        sy += (double)r * rs;
        sx += xs;
    }
    double cy = m0 > 0 ? sy / m0 : 0, cx = m0 > 0 ? sx / m0 : 0;
    for (int r = 0; r < rows && m0 > 0; r++) {
        double dy = (double)r - cy, rs = 0, xs = 0;
        for (int c = 0; c < cols; c++) {
            rs += (double)in[r * cols + c];
            xs += ((double)c - cx) * (double)in[r * cols + c];
        }
        vy += dy * dy * rs;
        cxy += dy * xs;
    }
    double a = m0 > 0 && vy / m0 > 1e-12 ? (cxy / m0) / (vy / m0) : 0;
    if (a == 0.0) { /* blank, one row, or upright: copied (upright: exactly) */
        memcpy(out, in, (size_t)rows * cols);
        return a;
    }
    for (int r = 0; r < rows; r++) {
        double sh = a * ((double)r - cy);
        for (int c = 0; c < cols; c++) {
            double s = (double)c + sh, fl = floor(s), v = 0;
            if (!(fl < -1.0 || fl > (double)cols)) {
                int x0 = (int)fl;
                double f = s - fl;
                double v0 = x0 >= 0 && x0 < cols ? (double)in[r * cols + x0] : 0.0;
                double v1 = x0 + 1 >= 0 && x0 + 1 < cols ? (double)in[r * cols + x0 + 1] : 0.0;
                v = v0 * (1.0 - f) + v1 * f;
            }
            v = floor(v + 0.5);
            out[r * cols + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    return a;
}

static void fast_rows_equal_plain(void **state)
{
    (void)state;
    uint32_t st = 99;
    uint8_t *in = malloc(40 * 4200), *got = malloc(40 * 4200), *want = malloc(40 * 4200);
    assert_true(in && got && want);
    int bad = 0;
    for (int t = 0; t < 20000 && bad < 5; t++) {
        int rows = 2 + (int)(lcg(&st) % 39), cols = 1 + (int)(lcg(&st) % 300);
        if (t % 500 == 7) cols = 2000 + (int)(lcg(&st) % 2200); /* past the 2048-column blocks */
        int dense = t % 3 == 0, n = rows * cols;
        memset(in, 0, (size_t)n);
        for (int k = 0; k < (dense ? n : 1 + (int)(lcg(&st) % 4)); k++)
            in[dense ? k : (int)(lcg(&st) % (uint32_t)n)] = (uint8_t)lcg(&st);
        fsvc_deskew_u8(in, got, rows, cols);
        double a = plain_u8(in, want, rows, cols);
        if (memcmp(got, want, (size_t)n) || a != fsvc_deskew_alpha_u8(in, rows, cols)) {
            bad++;
            fprintf(stderr, "image %d (%d x %d, alpha %.17g, plain %.17g): other bits than the plain loop\n", t,
                    rows, cols, fsvc_deskew_alpha_u8(in, rows, cols), a);
        }
    }
    free(in); free(got); free(want);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sheared_bar_becomes_upright),
        cmocka_unit_test(upright_symmetric_unchanged),
        cmocka_unit_test(shapes_and_range),
        cmocka_unit_test(batch_matches_single),
        cmocka_unit_test(mnist_matches_numpy),
        cmocka_unit_test(fast_rows_equal_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
