/* test_model_scale.c - feature scaling (--scale-features range): learned
 * on the training set as svm-scale does, stored in the model file
 * (version 3), applied at prediction; the reader's checks on the new
 * section; version 2 files (no scaling) still load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"
#include "fsvc/fsvc.h"
#include "tests/fuzz/model_fixup.h"

/* 3 classes in 3 features on very different scales; feature 4 constant. */
static void data(fsvc_dataset *d, double shift)
{
    memset(d, 0, sizeof *d);
    int64_t N = 90;
    int n = 4;
    d->N = N; d->n = n; d->dtype = FSVC_F64; d->has_labels = 1;
    double *x = malloc((size_t)N * n * sizeof *x);
    d->y = malloc((size_t)N * sizeof *d->y);
    assert_true(x && d->y);
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(i % 3);
        d->y[i] = k;
        x[i * n + 0] = 1000.0 * k + 37.0 * (double)(i % 7) + shift;
        x[i * n + 1] = 0.001 * (double)((i * 13) % 11) - 0.002 * k;
        x[i * n + 2] = -50.0 + 5.0 * (double)((i * 5) % 9);
        x[i * n + 3] = 7.0;
    }
    d->x = x;
    snprintf(d->source, sizeof d->source, "synthetic");
    fsvc_error err;
    assert_int_equal(fsvc_dataset_index_classes(d, &err), FSVC_OK);
}

static void train_scaled(fsvc_model *m, fsvc_dataset *d)
{
    fsvc_param p;
    fsvc_param_default(&p);
    fsvc_error err;
    assert_int_equal(fsvc_param_set(&p, "scale-features", "range", &err), FSVC_OK);
    assert_int_equal(p.scale_features, 1);
    data(d, 0);
    assert_int_equal(fsvc_train(m, NULL, d, &p, &err), FSVC_OK);
}

/* min/max per feature of the training set; prediction on the data as
 * given equals prediction on the data scaled by hand to [-1, 1] with a
 * model without scaling holding the same centroids. */
static void learned_and_applied(void **state)
{
    (void)state;
    fsvc_model m;
    fsvc_dataset d;
    train_scaled(&m, &d);
    assert_non_null(m.feat_min);
    assert_true(m.feat_min[0] == 0 && m.feat_max[0] == 2000 + 37.0 * 6);
    assert_true(m.feat_min[2] == -50 && m.feat_max[2] == -10);
    assert_true(m.feat_min[3] == 7 && m.feat_max[3] == 7);
    assert_int_equal(m.dtype, FSVC_F32);
    assert_int_equal(m.preprocess, FSVC_PRE_NONE);
    void *in;
    fsvc_error err;
    assert_int_equal(fsvc_model_input(&in, &m, &d, &err), FSVC_OK);
    const float *f = in;
    for (int64_t i = 0; i < d.N; i++)
        for (int k = 0; k < d.n; k++) {
            double v = ((double *)d.x)[i * d.n + k], lo = m.feat_min[k], hi = m.feat_max[k];
            double want = hi > lo ? -1.0 + 2.0 * (v - lo) / (hi - lo) : 0.0;
            assert_true(f[i * d.n + k] == (float)want);
            assert_true(f[i * d.n + k] >= -1 && f[i * d.n + k] <= 1);
        }
    free(in);
    int *pred = malloc((size_t)d.N * sizeof *pred);
    assert_int_equal(fsvc_predict(pred, NULL, &m, &d, "cpu", 1, &err), FSVC_OK);
    int64_t ok = 0;
    for (int64_t i = 0; i < d.N; i++) ok += pred[i] == d.cls[i];
    assert_true(ok >= d.N * 9 / 10); /* the scaled problem is easy */
    free(pred);
    fsvc_dataset_free(&d);
    fsvc_free_model(&m);
}

/* The file: version 3, the scaling survives byte-exactly. */
static unsigned char *saved(const fsvc_model *m, size_t *len)
{
    char path[] = "/tmp/fsvc_scale_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fsvc_error err;
    assert_int_equal(fsvc_model_save(m, path, &err), FSVC_OK);
    unsigned char *buf;
    assert_int_equal(ds_read_file(&buf, len, path, &err), FSVC_OK);
    remove(path);
    return buf;
}

static void file_round_trip(void **state)
{
    (void)state;
    fsvc_model m, b;
    fsvc_dataset d;
    train_scaled(&m, &d);
    size_t len;
    unsigned char *buf = saved(&m, &len);
    assert_int_equal(buf[8], 3); /* version */
    fsvc_error err;
    assert_int_equal(fsvc_model_parse(&b, buf, len, "v3", &err), FSVC_OK);
    assert_non_null(b.feat_min);
    assert_memory_equal(b.feat_min, m.feat_min, 4 * sizeof(double));
    assert_memory_equal(b.feat_max, m.feat_max, 4 * sizeof(double));
    fsvc_free_model(&b);
    /* hostile scaling sections: one clear error, nothing allocated */
    unsigned char *bad = malloc(len);
    size_t kind_at = len - 4 - 8 * 8 - 4; /* u32 kind before 2 x 4 f64 */
    memcpy(bad, buf, len);
    bad[kind_at] = 2;
    model_fixup(bad, len);
    assert_int_equal(fsvc_model_parse(&b, bad, len, "k2", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "k2: unknown kind of feature scaling"));
    assert_null(b.feat_min);
    /* cut: the kind says range, 8 of the 64 bytes are missing */
    memcpy(bad, buf, len);
    memmove(bad + len - 12, bad + len - 4, 4);
    model_fixup(bad, len - 8);
    assert_int_equal(fsvc_model_parse(&b, bad, len - 8, "cut", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "cut: feature scaling for 4 features is cut"));
    /* a bad range (min > max) is refused by the model check */
    memcpy(bad, buf, len);
    double big = 1e9;
    memcpy(bad + kind_at + 4, &big, 8); /* feat_min[0] = 1e9 > feat_max[0] */
    model_fixup(bad, len);
    assert_int_equal(fsvc_model_parse(&b, bad, len, "range", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "feature 1 scales from a bad range"));
    free(bad);
    free(buf);
    fsvc_dataset_free(&d);
    fsvc_free_model(&m);
}

/* A version 2 file (class names, no scaling section) still loads: a model
 * without scaling saved now, less its kind word, marked version 2. */
static void version_2_loads(void **state)
{
    (void)state;
    fsvc_param p;
    fsvc_param_default(&p);
    fsvc_dataset d;
    data(&d, 0);
    fsvc_model m, b;
    fsvc_error err;
    assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), FSVC_OK);
    assert_null(m.feat_min);
    size_t len;
    unsigned char *buf = saved(&m, &len);
    memmove(buf + len - 8, buf + len - 4, 4); /* drop u32 kind = 0 */
    buf[8] = 2;
    model_fixup(buf, len - 4);
    assert_int_equal(fsvc_model_parse(&b, buf, len - 4, "v2", &err), FSVC_OK);
    assert_null(b.feat_min);
    assert_int_equal(b.m, m.m);
    fsvc_free_model(&b);
    free(buf);
    fsvc_dataset_free(&d);
    fsvc_free_model(&m);
}

/* Settings that cannot combine with it are refused before any work. */
static void refused_combinations(void **state)
{
    (void)state;
    const char *bad[][2] = {{"preprocess", "sqrt"}, {"scale", "01"}, {"dtype", "u8"}};
    for (int i = 0; i < 3; i++) {
        fsvc_param p;
        fsvc_param_default(&p);
        fsvc_error err;
        assert_int_equal(fsvc_param_set(&p, "scale-features", "range", &err), FSVC_OK);
        assert_int_equal(fsvc_param_set(&p, bad[i][0], bad[i][1], &err), FSVC_OK);
        fsvc_dataset d;
        data(&d, 0);
        fsvc_model m;
        assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), FSVC_EUSAGE);
        assert_non_null(strstr(err.msg, "scale-features"));
        assert_null(m.C);
        fsvc_dataset_free(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(learned_and_applied),
        cmocka_unit_test(file_round_trip),
        cmocka_unit_test(version_2_loads),
        cmocka_unit_test(refused_combinations),
    };
    return cmocka_run_group_tests(tests, 0, NULL);
}
