/*
 * test_model_hog.c - `--features hog` through the library: the model's
 * input (pixels as the preprocessing leaves them, then the HOG of the
 * raw or deskewed image times hog_scale: u8 rounded and clipped at 255,
 * floats exact), the scale learned at training (computed here again from
 * the sqrt-u8 table and fsvc_hog_batch), more accuracy than the pixels
 * alone on MNIST digits, the model file (version 7) round trip with the
 * same predictions, and the refusals: settings HOG cannot combine with,
 * data without an image shape, inconsistent models and hostile files.
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

#include "fsvc/internal.h"
#include "fsvc/deskew.h"
#include "fsvc/hog.h"
#include "fsvc/study.h"
#include "tests/fuzz/model_fixup.h"
#include "tests/util/fixtures.h"

#define HW 392 /* fsvc_hog_width(28, 28) */

static fsvc_dataset digits; /* MNIST t10k: 10000 digits */

static int load_digits(void **state)
{
    char dir[512], prefix[600], img[700];
    fx_data(dir, sizeof dir);
    snprintf(prefix, sizeof prefix, "%s/mnist/t10k", dir);
    snprintf(img, sizeof img, "%s-images-idx3-ubyte.gz", prefix);
    fsvc_error err;
    memset(&digits, 0, sizeof digits);
    if (fx_missing(img) || fsvc_dataset_load(&digits, prefix, NULL, &err)) {
        fprintf(stderr, "%s\n", fx_missing(img) ? fx_missing(img) : err.msg);
        return -1;
    }
    return fx_tmpdir_setup(state);
}

static int free_digits(void **state)
{
    fsvc_dataset_free(&digits);
    return fx_tmpdir_teardown(state);
}

static void rows_of(fsvc_dataset *out, int64_t first, int64_t cnt)
{
    int64_t *idx = malloc((size_t)cnt * sizeof *idx);
    fsvc_error err;
    assert_non_null(idx);
    for (int64_t i = 0; i < cnt; i++) idx[i] = first + i;
    if (fsvc_dataset_subset(out, &digits, idx, cnt, &err)) fail_msg("%s", err.msg);
    out->rows = out->cols = 28;
    free(idx);
}

static fsvc_model image_model(fsvc_dtype t, fsvc_preprocess pre, double scale)
{
    fsvc_model M;
    memset(&M, 0, sizeof M);
    M.dtype = t; M.n = 784; M.rows = M.cols = 28; M.preprocess = pre;
    M.features = FSVC_FEAT_HOG; M.hog_scale = scale;
    return M;
}

/* The input of a hog model against its parts computed here. */
static void test_input(void **state)
{
    (void)state;
    enum { N = 50 };
    fsvc_dataset d;
    rows_of(&d, 0, N);
    const uint8_t *raw = d.x;
    float *h = malloc(N * HW * sizeof *h);
    uint8_t *desk = malloc(N * 784);
    assert_true(h && desk);
    fsvc_error err;
    void *x = NULL;
    /* u8, sqrt-u8: pixels by the table, the HOG rounded and clipped */
    fsvc_model M = image_model(FSVC_U8, FSVC_PRE_SQRT_U8, 300.0);
    assert_int_equal(fsvc_model_width(&M), 784 + HW);
    assert_int_equal(fsvc_model_input(&x, &M, &d, &err), 0);
    assert_int_equal(fsvc_hog_batch(h, raw, FSVC_U8, 1.0 / 255, N, 28, 28, 1), 0);
    int clipped = 0;
    for (int i = 0; i < N; i++) {
        const uint8_t *row = (const uint8_t *)x + (size_t)i * (784 + HW);
        for (int k = 0; k < 784; k++)
            assert_int_equal(row[k], (int)floor(sqrt(255.0 * raw[i * 784 + k]) + 0.5));
        for (int k = 0; k < HW; k++) {
            double v = 300.0 * h[i * HW + k];
            assert_int_equal(row[784 + k], v >= 255 ? 255 : (int)floor(v + 0.5));
            clipped += v >= 255;
        }
    }
    assert_true(clipped > 0); /* the clip is exercised */
    free(x);
    /* deskew: the HOG of the deskewed images */
    M = image_model(FSVC_U8, FSVC_PRE_DESKEW, 40.0);
    assert_int_equal(fsvc_model_input(&x, &M, &d, &err), 0);
    assert_int_equal(fsvc_deskew_u8_batch(raw, desk, N, 28, 28, 1), 0);
    assert_int_equal(fsvc_hog_batch(h, desk, FSVC_U8, 1.0 / 255, N, 28, 28, 1), 0);
    for (int i = 0; i < N; i++) {
        const uint8_t *row = (const uint8_t *)x + (size_t)i * (784 + HW);
        assert_memory_equal(row, desk + i * 784, 784);
        for (int k = 0; k < HW; k++) {
            double v = 40.0 * h[i * HW + k];
            assert_int_equal(row[784 + k], v >= 255 ? 255 : (int)floor(v + 0.5));
        }
    }
    free(x);
    /* f32, sqrt of the 0..1 scaling: the HOG exact */
    M = image_model(FSVC_F32, FSVC_PRE_SQRT, 0.7);
    M.scale = FSVC_SCALE_01;
    assert_int_equal(fsvc_model_input(&x, &M, &d, &err), 0);
    assert_int_equal(fsvc_hog_batch(h, raw, FSVC_U8, 1.0 / 255, N, 28, 28, 1), 0);
    for (int i = 0; i < N; i++) {
        const float *row = (const float *)x + (size_t)i * (784 + HW);
        for (int k = 0; k < 784; k++)
            assert_true(row[k] == (float)sqrt(raw[i * 784 + k] / 255.0));
        for (int k = 0; k < HW; k++) assert_true(row[784 + k] == (float)(0.7 * h[i * HW + k]));
    }
    free(x);
    /* no image shape in the model's data */
    d.n = 783;
    M = image_model(FSVC_U8, FSVC_PRE_NONE, 1.0);
    assert_int_equal(fsvc_model_input(&x, &M, &d, &err), FSVC_EINPUT);
    assert_null(x);
    d.n = 784;
    free(h); free(desk);
    fsvc_dataset_free(&d);
}

static int64_t correct(const fsvc_model *M, const fsvc_dataset *d)
{
    int *pred = malloc((size_t)d->N * sizeof *pred), *truth = malloc((size_t)d->N * sizeof *truth);
    fsvc_error err;
    assert_true(pred && truth);
    if (fsvc_predict(pred, NULL, M, d, "cpu", 0, &err)) fail_msg("%s", err.msg);
    fsvc_model_truth(truth, M, d);
    int64_t c = 0;
    for (int64_t i = 0; i < d->N; i++) c += pred[i] == truth[i];
    free(pred); free(truth);
    return c;
}

/* Training: the scale, the accuracy, the file. */
static void test_train(void **state)
{
    char path[700];
    fx_join(path, sizeof path, *state, "hog.fsvc");
    fsvc_dataset tr, te;
    rows_of(&tr, 0, 3000);
    rows_of(&te, 7000, 3000);
    fsvc_param p;
    fsvc_param_default(&p);
    p.preprocess = FSVC_PRE_SQRT_U8;
    p.max_neurons = 1500;
    p.features = FSVC_FEAT_PIXELS;
    fsvc_model pix, hog, back;
    fsvc_error err;
    if (fsvc_train(&pix, NULL, &tr, &p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(pix.features, FSVC_FEAT_PIXELS);
    p.features = FSVC_FEAT_AUTO; /* the default: hog for these u8 images */
    if (fsvc_train(&hog, NULL, &tr, &p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hog.features, FSVC_FEAT_HOG);
    assert_int_equal(hog.dtype, FSVC_U8);
    /* the scale: the pixels' mean squared norm over the HOG's, first 2000 */
    float *h = malloc(2000 * HW * sizeof *h);
    assert_non_null(h);
    assert_int_equal(fsvc_hog_batch(h, tr.x, FSVC_U8, 1.0 / 255, 2000, 28, 28, 1), 0);
    double sp = 0, sh = 0;
    for (int q = 0; q < 2000 * 784; q++) {
        double v = floor(sqrt(255.0 * ((const uint8_t *)tr.x)[q]) + 0.5);
        sp += v * v;
    }
    for (int q = 0; q < 2000 * HW; q++) sh += (double)h[q] * h[q];
    assert_true(fabs(hog.hog_scale / sqrt(sp / sh) - 1) < 1e-12);
    free(h);
    /* more digits right than the pixels alone (3000 of t10k's own digits:
     * 94.9 % against 96.6 % when written) */
    int64_t cp = correct(&pix, &te), ch = correct(&hog, &te);
    print_message("pixels %lld, hog %lld correct of 3000\n", (long long)cp, (long long)ch);
    assert_true(ch > cp + 30); /* a point at least */
    /* the file: version 7, the same model and predictions */
    if (fsvc_model_save(&hog, path, &err)) fail_msg("%s", err.msg);
    if (fsvc_model_load(&back, path, &err)) fail_msg("%s", err.msg);
    FILE *f = fopen(path, "rb");
    unsigned char head[12];
    assert_non_null(f);
    assert_int_equal(fread(head, 1, 12, f), 12);
    fclose(f);
    assert_int_equal(head[8], 7);
    assert_int_equal(back.features, FSVC_FEAT_HOG);
    assert_true(back.hog_scale == hog.hog_scale);
    assert_int_equal(back.m, hog.m);
    assert_memory_equal(back.C, hog.C, (size_t)hog.m * (784 + HW));
    assert_int_equal(correct(&back, &te), ch);
    fsvc_free_model(&back);
    /* a pixels model keeps its version (3) */
    if (fsvc_model_save(&pix, path, &err)) fail_msg("%s", err.msg);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(head, 1, 12, f), 12);
    fclose(f);
    assert_int_equal(head[8], 3);
    fsvc_free_model(&pix);
    fsvc_free_model(&hog);
    fsvc_dataset_free(&tr);
    fsvc_dataset_free(&te);
}

static fsvc_param hog_param(void)
{
    fsvc_param p;
    fsvc_param_default(&p);
    p.features = FSVC_FEAT_HOG;
    return p;
}

static void test_refused(void **state)
{
    (void)state;
    fsvc_dataset d;
    rows_of(&d, 0, 200);
    fsvc_param p = hog_param();
    fsvc_model M;
    fsvc_error err;
    p.augment = FSVC_AUG_SHIFT1;
    assert_int_equal(fsvc_train(&M, NULL, &d, &p, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "--augment"));
    p.augment = FSVC_AUG_NONE;
    p.scale_features = 1;
    assert_int_equal(fsvc_train(&M, NULL, &d, &p, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "--scale-features"));
    p.scale_features = 0;
    d.rows = d.cols = 0; /* no image shape: --shape names the way */
    assert_int_equal(fsvc_train(&M, NULL, &d, &p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "--shape"));
    p.rows = p.cols = 28;
    assert_int_equal(fsvc_train(&M, NULL, &d, &p, &err), FSVC_OK);
    assert_int_equal(fsvc_model_width(&M), 784 + HW);
    /* inconsistent models */
    assert_int_equal(fsvc_model_check(&M, "m", &err), FSVC_OK);
    M.features = 2;
    assert_int_equal(fsvc_model_check(&M, "m", &err), FSVC_EINPUT);
    M.features = FSVC_FEAT_HOG;
    double s = M.hog_scale;
    M.hog_scale = 0;
    assert_int_equal(fsvc_model_check(&M, "m", &err), FSVC_EINPUT);
    M.hog_scale = NAN;
    assert_int_equal(fsvc_model_check(&M, "m", &err), FSVC_EINPUT);
    M.features = FSVC_FEAT_PIXELS;
    M.hog_scale = s;
    assert_int_equal(fsvc_model_check(&M, "m", &err), FSVC_EINPUT);
    M.features = FSVC_FEAT_HOG;
    fsvc_free_model(&M);
    fsvc_dataset_free(&d);
}

/* features auto (the default): hog for u8 gray images of 8 x 8 or more
 * unless an absolute radius, --augment or --scale-features say pixels. */
static void test_auto(void **state)
{
    (void)state;
    fsvc_dataset d;
    rows_of(&d, 0, 300);
    fsvc_param p;
    fsvc_param_default(&p);
    assert_int_equal(p.features, FSVC_FEAT_AUTO);
    fsvc_model M;
    fsvc_error err;
    static const struct { double radius; fsvc_augment aug; int range, want; } c[] = {
        {0, FSVC_AUG_NONE, 0, FSVC_FEAT_HOG}, {1500, FSVC_AUG_NONE, 0, FSVC_FEAT_PIXELS},
        {0, FSVC_AUG_SHIFT1, 0, FSVC_FEAT_PIXELS}, {0, FSVC_AUG_NONE, 1, FSVC_FEAT_PIXELS}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        p.radius = c[i].radius; p.augment = c[i].aug; p.scale_features = c[i].range;
        p.preprocess = c[i].range ? FSVC_PRE_NONE : FSVC_PRE_AUTO;
        if (fsvc_train(&M, NULL, &d, &p, &err)) fail_msg("case %zu: %s", i, err.msg);
        if ((int)M.features != c[i].want) fail_msg("case %zu: features %d", i, (int)M.features);
        fsvc_free_model(&M);
    }
    fsvc_param_default(&p);
    d.rows = 4; d.cols = 196; /* 4-pixel-high images: too small for cells of 4 */
    if (fsvc_train(&M, NULL, &d, &p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(M.features, FSVC_FEAT_PIXELS);
    fsvc_free_model(&M);
    fsvc_dataset_free(&d);
}

/* A version 7 file whose features field (payload byte 88) is 0 or 2, or
 * whose image geometry is gone: refused in words. */
static void test_file_bad(void **state)
{
    char path[700];
    fx_join(path, sizeof path, *state, "small.fsvc");
    fsvc_dataset d;
    rows_of(&d, 0, 100);
    fsvc_param p = hog_param();
    fsvc_model M;
    fsvc_error err;
    if (fsvc_train(&M, NULL, &d, &p, &err)) fail_msg("%s", err.msg);
    if (fsvc_model_save(&M, path, &err)) fail_msg("%s", err.msg);
    fsvc_free_model(&M);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *b = malloc(1 << 24);
    assert_non_null(b);
    size_t len = fread(b, 1, 1 << 24, f);
    fclose(f);
    unsigned char *w = malloc(len);
    assert_non_null(w);
    size_t at = 20 + 88; /* 8 u32, 2 f64, 5 u32, f64, u64 m, u32 storage */
    assert_int_equal(b[at], 1);
    static const unsigned char bad[] = {0, 2};
    for (size_t t = 0; t < sizeof bad; t++) {
        memcpy(w, b, len);
        w[at] = bad[t];
        model_fixup(w, len);
        assert_int_equal(fsvc_model_parse(&M, w, len, "x.fsvc", &err), FSVC_EINPUT);
        assert_non_null(strstr(err.msg, "x.fsvc: features"));
        fsvc_free_model(&M);
    }
    memcpy(w, b, len); /* rows x cols 0 x 0 */
    memset(w + 20 + 8, 0, 8);
    model_fixup(w, len);
    assert_int_equal(fsvc_model_parse(&M, w, len, "x.fsvc", &err), FSVC_EINPUT);
    fsvc_free_model(&M);
    memcpy(w, b, len); /* the scale negative */
    w[at + 4 + 7] |= 0x80;
    model_fixup(w, len);
    assert_int_equal(fsvc_model_parse(&M, w, len, "x.fsvc", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "HOG"));
    fsvc_free_model(&M);
    memcpy(w, b, len);
    model_fixup(w, len);
    assert_int_equal(fsvc_model_parse(&M, w, len, "x.fsvc", &err), FSVC_OK);
    fsvc_free_model(&M);
    free(b); free(w);
    fsvc_dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input),
        cmocka_unit_test(test_train),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_file_bad),
    };
    return cmocka_run_group_tests(tests, load_digits, free_digits);
}
