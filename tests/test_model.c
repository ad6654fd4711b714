/* test_model.c - model files: save -> load -> predict gives identical
 * predictions and fields; truncated, corrupted (CRC), future-version and
 * foreign files are refused with one clear line (FSVC_EINPUT). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "fsvc/deskew.h"
#include "fsvc/internal.h"
#include "tests/util/fixtures.h"

/* N samples of n u8 values in K classes: class k is noise around a
 * per-class pattern. */
static void synth(fsvc_dataset *d, int64_t N, int n, int K, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->N = N; d->n = n; d->dtype = FSVC_U8; d->has_labels = 1; d->K = K;
    uint8_t *x = malloc(N * n);
    d->y = malloc(N * sizeof *d->y);
    d->cls = malloc(N * sizeof *d->cls);
    d->class_values = malloc(K * sizeof *d->class_values);
    for (int k = 0; k < K; k++) d->class_values[k] = 10 + k;
    uint64_t st = seed;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(fsvc_rng_next(&st) % K);
        d->cls[i] = k; d->y[i] = 10 + k;
        for (int j = 0; j < n; j++) {
            int base = ((j * 7 + k * 13) % 5) * 50;
            x[i * n + j] = (uint8_t)(base + fsvc_rng_next(&st) % 40);
        }
    }
    d->x = x;
    snprintf(d->source, sizeof d->source, "synthetic");
}

static void train_synth(fsvc_model *m, const fsvc_dataset *d, fsvc_readout ro, int dtype,
                        fsvc_scale sc)
{
    fsvc_param p;
    fsvc_param_default(&p);
    p.dist = BNL_L1; p.act = BNL_TRI; p.select = FSVC_SELECT_GLOBAL; p.preprocess = FSVC_PRE_NONE;
    p.radius = 150; p.readout = ro; p.dtype = dtype; p.scale = sc;
    if (sc != FSVC_SCALE_NONE) p.radius = 150 / 255.0;
    fsvc_error err;
    if (fsvc_train(m, NULL, d, &p, &err)) fail_msg("%s", err.msg);
}

static void roundtrip_one(fsvc_readout ro, int dtype, fsvc_scale sc)
{
    fsvc_dataset d;
    synth(&d, 300, 24, 3, 7);
    fsvc_model a, b;
    train_synth(&a, &d, ro, dtype, sc);
    assert_true(a.m > 3);
    char *dir = fx_tmpdir(), path[1024];
    fx_join(path, sizeof path, dir, "m.fsvc");
    fsvc_error err;
    assert_int_equal(fsvc_model_save(&a, path, &err), FSVC_OK);
    assert_int_equal(fsvc_model_load(&b, path, &err), FSVC_OK);
    assert_int_equal(a.m, b.m);
    assert_int_equal(a.n, b.n);
    assert_int_equal(a.dtype, b.dtype);
    assert_int_equal(a.scale, b.scale);
    assert_int_equal(a.K, b.K);
    assert_true(a.radius == b.radius && a.prag == b.prag);
    assert_memory_equal(a.C, b.C, a.m * a.n * fsvc_dtype_size(a.dtype));
    assert_memory_equal(a.R, b.R, a.m * a.Kout * sizeof(double));
    assert_memory_equal(a.lab, b.lab, a.m * sizeof(int));
    assert_memory_equal(a.class_values, b.class_values, a.K * sizeof(double));
    int *pa = malloc(d.N * sizeof *pa), *pb = malloc(d.N * sizeof *pb), *t = malloc(d.N * sizeof *t);
    double *sa = malloc(d.N * a.Kout * sizeof *sa), *sb = malloc(d.N * a.Kout * sizeof *sb);
    assert_int_equal(fsvc_predict(pa, sa, &a, &d, "cpu", 0, &err), FSVC_OK);
    assert_int_equal(fsvc_predict(pb, sb, &b, &d, "cpu", 0, &err), FSVC_OK);
    assert_memory_equal(pa, pb, d.N * sizeof *pa);
    assert_memory_equal(sa, sb, d.N * a.Kout * sizeof *sa);
    /* the synthetic classes are easy: training accuracy well above chance */
    fsvc_model_truth(t, &a, &d);
    assert_true(fsvc_confusion(NULL, t, pa, d.N, a.K) > d.N * 9 / 10);
    /* the file is replaced atomically: no temporary left behind */
    char tmpl[1100];
    snprintf(tmpl, sizeof tmpl, "ls %s | grep -c tmp >/dev/null", dir);
    assert_int_not_equal(system(tmpl), 0);
    free(pa); free(pb); free(t); free(sa); free(sb);
    fsvc_free_model(&a); fsvc_free_model(&b);
    fx_rmtree(dir); free(dir);
    fsvc_dataset_free(&d);
}

static void roundtrip(void **s)
{
    (void)s;
    roundtrip_one(FSVC_READOUT_RIDGE, -1, FSVC_SCALE_NONE);
    roundtrip_one(FSVC_READOUT_ONEHOT, FSVC_F32, FSVC_SCALE_01);
    roundtrip_one(FSVC_READOUT_LMS, FSVC_F64, FSVC_SCALE_NONE);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*len);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

static void expect_refused(const char *path, const char *what)
{
    fsvc_model m;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = fsvc_model_load(&m, path, &err);
    if (rc != FSVC_EINPUT) fail_msg("%s: rc %d (%s)", what, rc, err.msg);
    assert_non_null(strstr(err.msg, path));
    assert_null(strchr(err.msg, '\n'));
    if (!strstr(err.msg, what)) fail_msg("wanted '%s' in: %s", what, err.msg);
    assert_null(m.C); /* left empty */
}

static void refused(void **s)
{
    (void)s;
    fsvc_dataset d;
    synth(&d, 200, 16, 3, 3);
    fsvc_model a;
    train_synth(&a, &d, FSVC_READOUT_RIDGE, -1, FSVC_SCALE_NONE);
    char *dir = fx_tmpdir(), path[1024], bad[1024];
    fx_join(path, sizeof path, dir, "m.fsvc");
    fx_join(bad, sizeof bad, dir, "bad.fsvc");
    fsvc_error err;
    assert_int_equal(fsvc_model_save(&a, path, &err), FSVC_OK);
    size_t len;
    unsigned char *b = slurp(path, &len);
    /* truncated at several points */
    size_t cuts[] = {0, 5, 12, 19, 20, 64, len / 2, len - 1};
    for (size_t q = 0; q < sizeof cuts / sizeof *cuts; q++) {
        assert_int_equal(fx_write_file(bad, b, cuts[q]), 0);
        expect_refused(bad, cuts[q] < 8 ? "magic" : "truncated");
    }
    /* one flipped bit anywhere in the payload: CRC */
    for (size_t off = 20; off < len - 4; off += (len - 24) / 7 + 1) {
        b[off] ^= 0x10;
        assert_int_equal(fx_write_file(bad, b, len), 0);
        expect_refused(bad, "CRC32");
        b[off] ^= 0x10;
    }
    /* a future format version (this fsvc writes version 3 for dense
     * models, 4 for sparse ones, 5 for reduced precision, 6 with image
     * fields or a probability calibration) */
    assert_int_equal(b[8], 3);
    b[8] = 7;
    assert_int_equal(fx_write_file(bad, b, len), 0);
    expect_refused(bad, "version 7");
    b[8] = 3;
    /* trailing garbage */
    unsigned char *longer = malloc(len + 3);
    memcpy(longer, b, len);
    memset(longer + len, 0, 3);
    assert_int_equal(fx_write_file(bad, longer, len + 3), 0);
    expect_refused(bad, "too long");
    /* foreign file */
    assert_int_equal(fx_write_text(bad, "1 1:0.5 2:0.25\n"), 0);
    expect_refused(bad, "magic");
    /* missing file */
    fx_join(bad, sizeof bad, dir, "none.fsvc");
    expect_refused(bad, "cannot open");
    /* the intact bytes still load */
    assert_int_equal(fx_write_file(bad, b, len), 0);
    fsvc_model c;
    assert_int_equal(fsvc_model_load(&c, bad, &err), FSVC_OK);
    fsvc_free_model(&c);
    free(b); free(longer);
    fsvc_free_model(&a);
    fx_rmtree(dir); free(dir);
    fsvc_dataset_free(&d);
}

/* The default recipe on small "images" (4 x 6): the resolved
 * preprocessing (deskew and/or sqrt), the rms radius and the random
 * selection are stored, and the reloaded model predicts identically. */
static void defaults_roundtrip(void **s)
{
    (void)s;
    fsvc_dataset d;
    synth(&d, 400, 24, 3, 11);
    d.rows = 4; d.cols = 6;
    fsvc_param p;
    fsvc_param_default(&p);
    p.max_neurons = 120;
    fsvc_model a, b;
    fsvc_error err;
    if (fsvc_train(&a, NULL, &d, &p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(a.m, 120);
    assert_int_equal(a.select, FSVC_SELECT_RANDOM);
    assert_true(a.preprocess == FSVC_PRE_SQRT_U8 || a.preprocess == FSVC_PRE_DESKEW_SQRT_U8);
    assert_int_equal(a.dtype, FSVC_U8);
    assert_true(a.radius > 0);
    char *dir = fx_tmpdir(), path[1024];
    fx_join(path, sizeof path, dir, "d.fsvc");
    assert_int_equal(fsvc_model_save(&a, path, &err), FSVC_OK);
    assert_int_equal(fsvc_model_load(&b, path, &err), FSVC_OK);
    assert_int_equal(b.preprocess, a.preprocess);
    assert_int_equal(b.rows, 4);
    assert_int_equal(b.cols, 6);
    int *pa = malloc(d.N * sizeof *pa), *pb = malloc(d.N * sizeof *pb), *t = malloc(d.N * sizeof *t);
    assert_int_equal(fsvc_predict(pa, NULL, &a, &d, "cpu", 0, &err), FSVC_OK);
    assert_int_equal(fsvc_predict(pb, NULL, &b, &d, "cpu", 0, &err), FSVC_OK);
    assert_memory_equal(pa, pb, d.N * sizeof *pa);
    fsvc_model_truth(t, &a, &d);
    assert_true(fsvc_confusion(NULL, t, pa, d.N, a.K) > d.N * 9 / 10);
    /* the same options and seed give the same model bit for bit */
    fsvc_model c;
    if (fsvc_train(&c, NULL, &d, &p, &err)) fail_msg("%s", err.msg);
    assert_memory_equal(a.C, c.C, a.m * a.n * fsvc_dtype_size(a.dtype));
    assert_memory_equal(a.R, c.R, a.m * a.Kout * sizeof(double));
    free(pa); free(pb); free(t);
    fsvc_free_model(&a); fsvc_free_model(&b); fsvc_free_model(&c);
    fx_rmtree(dir); free(dir);
    fsvc_dataset_free(&d);
}

/* sqrt-u8 keeps the model in u8: the input the model sees is deskew_u8
 * then round(sqrt(255 v)) (computed here directly), the setting survives
 * save/load, and float data is refused with a line naming it. */
static void sqrt_u8_input(void **s)
{
    (void)s;
    fsvc_dataset d;
    synth(&d, 300, 24, 3, 5);
    d.rows = 4; d.cols = 6;
    fsvc_param p;
    fsvc_param_default(&p);
    p.max_neurons = 60;
    p.preprocess = FSVC_PRE_DESKEW_SQRT_U8;
    fsvc_model a, b;
    fsvc_error err;
    if (fsvc_train(&a, NULL, &d, &p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(a.dtype, FSVC_U8);
    assert_int_equal(a.preprocess, FSVC_PRE_DESKEW_SQRT_U8);
    uint8_t *x = NULL, *want = malloc(d.N * d.n);
    assert_int_equal(fsvc_model_input((void **)&x, &a, &d, &err), FSVC_OK);
    assert_int_equal(fsvc_deskew_u8_batch(d.x, want, d.N, 4, 6, 1), 0);
    int changed = 0;
    for (int64_t k = 0; k < d.N * d.n; k++) {
        uint8_t v = (uint8_t)(sqrt(255.0 * want[k]) + 0.5);
        changed += v != want[k];
        want[k] = v;
    }
    assert_true(changed > d.N * d.n / 2); /* the curve did apply */
    assert_memory_equal(x, want, d.N * d.n);
    char *dir = fx_tmpdir(), path[1024];
    fx_join(path, sizeof path, dir, "q.fsvc");
    assert_int_equal(fsvc_model_save(&a, path, &err), FSVC_OK);
    assert_int_equal(fsvc_model_load(&b, path, &err), FSVC_OK);
    assert_int_equal(b.preprocess, FSVC_PRE_DESKEW_SQRT_U8);
    int *pa = malloc(d.N * sizeof *pa), *pb = malloc(d.N * sizeof *pb);
    assert_int_equal(fsvc_predict(pa, NULL, &a, &d, "cpu", 0, &err), FSVC_OK);
    assert_int_equal(fsvc_predict(pb, NULL, &b, &d, "cpu", 0, &err), FSVC_OK);
    assert_memory_equal(pa, pb, d.N * sizeof *pa);
    /* float data: refused, naming the setting */
    fsvc_dataset f = d;
    float *xf = malloc(d.N * d.n * sizeof *xf);
    for (int64_t k = 0; k < d.N * d.n; k++) xf[k] = ((const uint8_t *)d.x)[k];
    f.x = xf; f.dtype = FSVC_F32;
    void *y = NULL;
    assert_int_equal(fsvc_model_input(&y, &a, &f, &err), FSVC_EINPUT); /* a u8 model */
    assert_null(y);
    fsvc_model c = a; /* the input side of a --dtype f32 model with sqrt-u8 */
    c.dtype = FSVC_F32;
    assert_int_equal(fsvc_model_input(&y, &c, &f, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "sqrt-u8"));
    assert_null(y);
    free(xf); free(x); free(want); free(pa); free(pb);
    fsvc_free_model(&a); fsvc_free_model(&b);
    fx_rmtree(dir); free(dir);
    fsvc_dataset_free(&d);
}

/* prediction data that does not fit the model is refused */
static void input_mismatch(void **s)
{
    (void)s;
    fsvc_dataset d, e;
    synth(&d, 100, 16, 2, 1);
    synth(&e, 10, 15, 2, 2);
    fsvc_model a;
    train_synth(&a, &d, FSVC_READOUT_ONEHOT, -1, FSVC_SCALE_NONE);
    int pred[10];
    fsvc_error err;
    assert_int_equal(fsvc_predict(pred, NULL, &a, &e, "cpu", 0, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "features"));
    fsvc_free_model(&a);
    fsvc_dataset_free(&d); fsvc_dataset_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip),
        cmocka_unit_test(refused),
        cmocka_unit_test(input_mismatch),
        cmocka_unit_test(defaults_roundtrip),
        cmocka_unit_test(sqrt_u8_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
