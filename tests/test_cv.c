/* test_cv.c - stratified K-fold splits, subsets, cross-validation, study
 * grids and named settings, settings as canonical text, LMS with a validation
 * split (fsvc/cv.c, fsvc/study_grid.c, fsvc/study_lms.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/study.h"
#include "tests/util/fixtures.h"
#include "tests/util/sets.h"

/* cls: counts[k] samples of class k, interleaved in a fixed scramble. */
static int *make_classes(int64_t *N, const int *counts, int K)
{
    int64_t n = 0;
    for (int k = 0; k < K; k++) n += counts[k];
    int *cls = malloc((size_t)n * sizeof *cls);
    int64_t at = 0;
    for (int k = 0; k < K; k++)
        for (int i = 0; i < counts[k]; i++) cls[at++] = k;
    for (int64_t i = n - 1; i > 0; i--) { /* deterministic scramble */
        int64_t j = (i * 7919 + 13) % (i + 1);
        int t = cls[i]; cls[i] = cls[j]; cls[j] = t;
    }
    *N = n;
    return cls;
}

static void test_folds_stratified(void **state)
{
    (void)state;
    static const int counts[] = {50, 30, 20, 3, 7};
    const int K = 5, nfold = 5;
    int64_t N;
    int *cls = make_classes(&N, counts, K);
    int *fold = malloc((size_t)N * sizeof *fold);
    assert_int_equal(fsvc_cv_folds(fold, cls, N, K, nfold, 42, NULL), FSVC_OK);
    int64_t size[5] = {0}, per[5][5] = {{0}};
    for (int64_t i = 0; i < N; i++) {
        assert_true(fold[i] >= 0 && fold[i] < nfold);   /* covering, one fold each */
        size[fold[i]]++;
        per[fold[i]][cls[i]]++;
    }
    int64_t mn = N, mx = 0, tot = 0;
    for (int f = 0; f < nfold; f++) {
        tot += size[f];
        if (size[f] < mn) mn = size[f];
        if (size[f] > mx) mx = size[f];
        for (int k = 0; k < K; k++) {  /* every class spread evenly */
            assert_true(per[f][k] >= counts[k] / nfold);
            assert_true(per[f][k] <= (counts[k] + nfold - 1) / nfold);
        }
    }
    assert_int_equal(tot, N);
    assert_true(mx - mn <= 1);
    free(fold); free(cls);
}

static void test_folds_seeded(void **state)
{
    (void)state;
    static const int counts[] = {40, 40, 40};
    int64_t N;
    int *cls = make_classes(&N, counts, 3);
    int *a = malloc((size_t)N * sizeof *a), *b = malloc((size_t)N * sizeof *b);
    assert_int_equal(fsvc_cv_folds(a, cls, N, 3, 4, 7, NULL), FSVC_OK);
    assert_int_equal(fsvc_cv_folds(b, cls, N, 3, 4, 7, NULL), FSVC_OK);
    assert_memory_equal(a, b, (size_t)N * sizeof *a);   /* same seed, same folds */
    assert_int_equal(fsvc_cv_folds(b, cls, N, 3, 4, 8, NULL), FSVC_OK);
    int differ = 0;
    for (int64_t i = 0; i < N; i++) differ += a[i] != b[i];
    assert_true(differ > N / 4);                        /* another seed, others */
    /* disjoint in/out rows that cover 0..N-1 in file order */
    int64_t *in = malloc((size_t)N * sizeof *in), *out = malloc((size_t)N * sizeof *out);
    for (int f = 0; f < 4; f++) {
        int64_t ni = fsvc_fold_rows(in, a, N, f, 1), no = fsvc_fold_rows(out, a, N, f, 0);
        assert_int_equal(ni + no, N);
        for (int64_t t = 1; t < ni; t++) assert_true(in[t] > in[t - 1]);
        for (int64_t t = 1; t < no; t++) assert_true(out[t] > out[t - 1]);
        for (int64_t t = 0; t < ni; t++) assert_int_equal(a[in[t]], f);
        for (int64_t t = 0; t < no; t++) assert_int_not_equal(a[out[t]], f);
    }
    free(in); free(out); free(a); free(b); free(cls);
}

static void test_folds_errors(void **state)
{
    (void)state;
    int cls[4] = {0, 1, 0, 1}, fold[4];
    fsvc_error err;
    assert_int_equal(fsvc_cv_folds(fold, cls, 4, 2, 1, 1, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "folds"));
    assert_int_equal(fsvc_cv_folds(fold, cls, 4, 2, 5, 1, &err), FSVC_EUSAGE);
    cls[2] = 2;
    assert_int_equal(fsvc_cv_folds(fold, cls, 4, 2, 2, 1, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "sample 3"));
}

/* The paper's FSVC, whatever the defaults: L1, triangular, the global
 * novelty pass, no preprocessing, radius r. */
static void pin_fsvc(fsvc_param *p, double r)
{
    p->dist = 0;
    p->act = 0;
    p->select = FSVC_SELECT_GLOBAL;
    p->preprocess = FSVC_PRE_NONE;
    p->radius = r;
    p->radius_rms = 0;
}

/* Two well separated 2-D clusters per class (f64), file order mixed. */
static void make_blobs(fsvc_dataset *d, int64_t N)
{
    fx_three_classes(d, N, (const double[4]){10.0, 1.0, 5.0, 1.0}, 12345, "blobs");
}

static void test_subset(void **state)
{
    (void)state;
    fsvc_dataset d, s;
    make_blobs(&d, 30);
    d.rows = 1, d.cols = 2, d.channels = 1; /* the shape travels with the rows */
    int64_t idx[3] = {4, 0, 29};
    assert_int_equal(fsvc_dataset_subset(&s, &d, idx, 3, NULL), FSVC_OK);
    assert_int_equal(s.N, 3);
    assert_int_equal(s.K, 3);
    assert_int_equal(s.n, d.n);
    assert_int_equal(s.rows, 1);
    assert_int_equal(s.cols, 2);
    assert_int_equal(s.channels, 1);
    for (int t = 0; t < 3; t++) {
        assert_memory_equal((double *)s.x + 2 * t, (double *)d.x + 2 * idx[t], 2 * sizeof(double));
        assert_int_equal(s.cls[t], d.cls[idx[t]]);
        assert_true(s.y[t] == d.y[idx[t]]);
    }
    assert_memory_equal(s.class_values, d.class_values, 3 * sizeof(double));
    fsvc_dataset_free(&s);
    fsvc_dataset_free(&d);
}

static void test_cross_validate(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_blobs(&d, 90);
    fsvc_param p;
    fsvc_param_default(&p);
    pin_fsvc(&p, 1.0);
    p.readout = FSVC_READOUT_ONEHOT;
    p.dtype = FSVC_F64;
    fsvc_cv_result r;
    assert_int_equal(fsvc_cross_validate(&r, &d, &p, 3, 1, NULL), FSVC_OK);
    assert_int_equal(r.nfold, 3);
    assert_true(r.acc_mean == 1.0);          /* separated blobs: all right */
    assert_true(r.acc_pooled == 1.0);
    assert_true(r.acc_sd == 0.0);
    assert_true(r.m_mean >= 3);
    /* one centroid per model: every prediction is its class, and each
     * stratified fold holds a third of each class */
    p.radius = 1000;
    p.max_neurons = 1;
    assert_int_equal(fsvc_cross_validate(&r, &d, &p, 3, 1, NULL), FSVC_OK);
    assert_true(fabs(r.acc_pooled - 1.0 / 3) < 1e-12);
    fsvc_error err;
    assert_int_equal(fsvc_cross_validate(&r, &d, &p, 65, 1, &err), FSVC_EUSAGE);
    fsvc_dataset_free(&d);
}

/* y = sin(3 x0) + x1 on [0,1]^2: a smooth target a ridge regression fits */
static void make_wave(fsvc_dataset *d, int64_t N)
{
    memset(d, 0, sizeof *d);
    d->N = N; d->n = 2; d->dtype = FSVC_F64; d->has_labels = 1; d->K = 1;
    double *x = malloc((size_t)N * 2 * sizeof *x);
    d->y = malloc((size_t)N * sizeof *d->y);
    d->cls = calloc((size_t)N, sizeof *d->cls);
    d->class_values = calloc(1, sizeof *d->class_values);
    uint64_t s = 777;
    for (int64_t i = 0; i < 2 * N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (double)(s >> 11) / 9007199254740992.0;
    }
    for (int64_t i = 0; i < N; i++) d->y[i] = sin(3 * x[2 * i]) + x[2 * i + 1];
    d->x = x;
    snprintf(d->source, sizeof d->source, "wave");
}

static void test_cross_validate_regression(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_wave(&d, 150);
    fsvc_param p;
    fsvc_param_default(&p);
    p.regression = 1;
    p.readout = FSVC_READOUT_RIDGE;
    p.dtype = FSVC_F64;
    fsvc_cv_regression r, again;
    assert_int_equal(fsvc_cross_validate_regression(&r, &d, &p, 5, 3, NULL), FSVC_OK);
    assert_int_equal(r.nfold, 5);
    assert_true(r.r2_mean > 0.95 && r.r2_mean <= 1);     /* R^2 of a smooth fit */
    assert_true(r.r2 > 0.95 && r.r2 <= 1);
    assert_true(r.r2_sd >= 0 && r.r2_sd < 0.05);
    /* the mse and the pooled R^2 describe the same held-out predictions */
    double mean = 0, st = 0;
    for (int64_t i = 0; i < d.N; i++) mean += d.y[i] / d.N;
    for (int64_t i = 0; i < d.N; i++) st += (d.y[i] - mean) * (d.y[i] - mean);
    assert_true(fabs(r.mse - (1 - r.r2) * st / d.N) < 1e-9);
    assert_true(r.m_mean > 0);
    /* seeded: the same folds and scores again; another seed other folds */
    assert_int_equal(fsvc_cross_validate_regression(&again, &d, &p, 5, 3, NULL), FSVC_OK);
    assert_true(again.r2 == r.r2 && again.mse == r.mse);
    assert_int_equal(fsvc_cross_validate_regression(&again, &d, &p, 5, 4, NULL), FSVC_OK);
    assert_true(again.r2_mean != r.r2_mean);
    /* one centroid, a flat prediction: no better than the mean */
    p.max_neurons = 1;
    p.select = FSVC_SELECT_RANDOM;
    p.radius = 1e6;
    p.radius_rms = 0;
    assert_int_equal(fsvc_cross_validate_regression(&again, &d, &p, 5, 3, NULL), FSVC_OK);
    assert_true(again.r2 < 0.1);
    fsvc_error err;
    p.regression = 0;
    assert_int_equal(fsvc_cross_validate_regression(&again, &d, &p, 5, 3, &err), FSVC_EUSAGE);
    fsvc_dataset_free(&d);
}

static void test_cross_validate_optd64(void **state)
{
    (void)state;
    char sh[512], path[700];
    fx_data(sh, sizeof sh);
    snprintf(path, sizeof path, "%s/uci-dogaru/optd64.train", sh);
    FX_REQUIRE(path);
    fsvc_dataset d;
    assert_int_equal(fsvc_dataset_load(&d, path, NULL, NULL), FSVC_OK);
    fsvc_param p;
    fsvc_param_default(&p);
    pin_fsvc(&p, 8);
    p.readout = FSVC_READOUT_ONEHOT;
    fsvc_cv_result a, b;
    assert_int_equal(fsvc_cross_validate(&a, &d, &p, 5, 3, NULL), FSVC_OK);
    assert_int_equal(fsvc_cross_validate(&b, &d, &p, 5, 3, NULL), FSVC_OK);
    assert_memory_equal(a.acc, b.acc, sizeof a.acc);   /* seeded: repeatable */
    assert_true(a.acc_mean > 0.93 && a.acc_mean < 1.0);
    fsvc_dataset_free(&d);
}

static void test_grid(void **state)
{
    (void)state;
    fsvc_grid g;
    memset(&g, 0, sizeof g);
    fsvc_error err;
    assert_int_equal(fsvc_grid_size(&g), 1);
    assert_int_equal(fsvc_grid_add(&g, "radius=32,48,auto", &err), FSVC_OK);
    assert_int_equal(fsvc_grid_add(&g, "readout=onehot,ridge", &err), FSVC_OK);
    assert_int_equal(fsvc_grid_size(&g), 6);
    fsvc_param p;
    char key[256];
    fsvc_param_default(&p);
    assert_int_equal(fsvc_grid_point(&p, key, sizeof key, &g, 0, &err), FSVC_OK);
    assert_string_equal(key, "radius=32;readout=onehot");
    assert_true(p.radius == 32 && p.readout == FSVC_READOUT_ONEHOT);
    assert_int_equal(fsvc_grid_point(&p, key, sizeof key, &g, 5, &err), FSVC_OK);
    assert_string_equal(key, "radius=auto;readout=ridge");
    assert_true(p.radius == 0 && p.readout == FSVC_READOUT_RIDGE);
    assert_int_equal(fsvc_grid_point(&p, key, sizeof key, &g, 6, &err), FSVC_EUSAGE);
    /* errors: one line each, naming the problem */
    static const char *bad[] = {"radius", "=1,2", "bogus=1", "radius=1,,2", "radius=-1",
                                "prag=abc", "readout=svm", "radius=", "dist=dot",
                                "kernel=tanh", "epochs=1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fsvc_error_clear(&err);
        assert_int_equal(fsvc_grid_add(&g, bad[i], &err), FSVC_EUSAGE);
        assert_true(err.msg[0] != 0);
        assert_null(strchr(err.msg, '\n'));
    }
    assert_int_equal(g.naxes, 2);                 /* failed adds leave it */
    fsvc_grid g2;
    memset(&g2, 0, sizeof g2);
    assert_int_equal(fsvc_grid_add(&g2, "prag=1,0.5,1", &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "twice"));
    assert_int_equal(fsvc_param_set(&p, "shuffle", "9", &err), FSVC_OK);
    assert_true(p.shuffle == 1 && p.seed == 9);
    assert_int_equal(fsvc_param_set(&p, "dist", "l2", &err), FSVC_OK);
    assert_int_equal(p.dist, 1);
    assert_int_equal(fsvc_param_set(&p, "backend", "gpu", &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_param_set(&p, "radius", "0.45rms", &err), FSVC_OK);
    assert_true(p.radius == 0 && p.radius_rms == 0.45);
    assert_int_equal(fsvc_param_set(&p, "radius", "auto", &err), FSVC_OK);
    assert_true(p.radius == 0 && p.radius_rms == 0);     /* the search */
    assert_int_equal(fsvc_param_set(&p, "radius", "7", &err), FSVC_OK);
    assert_true(p.radius == 7 && p.radius_rms == 0);
    assert_int_equal(fsvc_param_set(&p, "radius", "xrms", &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_param_set(&p, "preprocess", "sqrt", &err), FSVC_OK);
    assert_int_equal(p.preprocess, FSVC_PRE_SQRT);
    assert_int_equal(fsvc_param_set(&p, "select", "random", &err), FSVC_OK);
    assert_int_equal(p.select, FSVC_SELECT_RANDOM);
}

/* Settings as canonical text: every setting reads back to the same value,
 * values of any text stay splittable, keys are found whole. What keys a
 * study's --resume. */
static void test_settings(void **state)
{
    (void)state;
    fsvc_error err;
    fsvc_param p, q;
    fsvc_param_default(&p);
    static const char *const sets[][2] = {
        {"radius", "0.45rms"}, {"prag", "0.1"}, {"dist", "l1"}, {"kernel", "tri"},
        {"select", "per-class"}, {"readout", "lms"}, {"lambda", "3e-07"}, {"eta", "0.05"},
        {"epochs", "7"}, {"scale", "pm1"}, {"dtype", "f64"}, {"preprocess", "deskew+sqrt"},
        {"regression", "off"}, {"max-neurons", "123"}, {"shuffle", "on"}, {"seed", "42"}, {"backend", "ref"},
        {"threads", "3"}, {"solver", "direct"}, {"cg-tol", "0.001"}, {"augment", "mirror"},
        {"shape", "28x28"}, {"scale-features", "range"}, {"class-weight", "none"},
        {"precision", "bf16"}, {"probability", "on"}, {"pcg-h", "f32"},
        {"features", "hog"}};
    int ns = (int)(sizeof sets / sizeof sets[0]);
    for (int i = 0; i < ns; i++) {
        char v[64];
        assert_int_equal(fsvc_param_set(&p, sets[i][0], sets[i][1], &err), FSVC_OK);
        assert_int_equal(fsvc_param_get(&p, sets[i][0], v, sizeof v), 0);
        assert_string_equal(v, sets[i][1]);     /* these texts are canonical */
    }
    /* every named setting, and nothing but them */
    int n = 0;
    while (fsvc_setting_name(n)) n++;
    assert_int_equal(n, ns);
    char v[64];
    assert_int_equal(fsvc_param_get(&p, "bogus", v, sizeof v), -1);
    assert_int_equal(fsvc_param_get(&p, "preprocess", v, 4), -1);   /* short buffer */
    /* round trip of the whole parameter set through its text */
    char a[2048] = "", b[2048] = "";
    assert_int_equal(fsvc_param_canon(a, sizeof a, &p), FSVC_OK);
    fsvc_param_default(&q);
    for (int i = 0; fsvc_setting_name(i); i++) {
        size_t vl;
        const char *val = fsvc_settings_find(a, fsvc_setting_name(i), &vl);
        assert_non_null(val);
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)vl, val);
        assert_int_equal(fsvc_param_set(&q, fsvc_setting_name(i), one, &err), FSVC_OK);
    }
    assert_int_equal(fsvc_param_canon(b, sizeof b, &q), FSVC_OK);
    assert_string_equal(a, b);
    assert_true(q.radius_rms == 0.45 && q.prag == 0.1 && q.lambda == 3e-7 && q.shuffle &&
                q.seed == 42 && q.max_neurons == 123 && q.dtype == FSVC_F64 && q.threads == 3);
    /* the defaults: radius 0.45rms, dtype auto, shuffle off, exact numbers */
    fsvc_param_default(&q);
    q.lambda = 0.1 + 0.2;                        /* 0.30000000000000004 */
    b[0] = 0;
    assert_int_equal(fsvc_param_canon(b, sizeof b, &q), FSVC_OK);
    assert_non_null(strstr(b, "radius=0.45rms;"));
    assert_non_null(strstr(b, "dtype=auto;"));
    assert_non_null(strstr(b, "shuffle=off;"));
    assert_non_null(strstr(b, "lambda=0.30000000000000004;"));
    assert_int_equal(fsvc_param_set(&q, "dtype", "auto", &err), FSVC_OK);
    assert_int_equal(q.dtype, -1);
    fsvc_param_default(&q);
    assert_int_equal(fsvc_param_set(&q, "radius", "auto", &err), FSVC_OK);
    assert_int_equal(fsvc_param_get(&q, "radius", v, sizeof v), 0);
    assert_string_equal(v, "auto");
    /* any text as a value: ; = % and control characters escaped */
    char s[128] = "";
    assert_int_equal(fsvc_settings_add(s, sizeof s, "data", "/x/a;b=c%d\n,e"), FSVC_OK);
    assert_int_equal(fsvc_settings_add(s, sizeof s, "max-test", "5"), FSVC_OK);
    assert_int_equal(fsvc_settings_add(s, sizeof s, "test", ""), FSVC_OK);
    assert_string_equal(s, "data=/x/a%3Bb%3Dc%25d%0A,e;max-test=5;test=");
    size_t vl = 99;
    const char *f = fsvc_settings_find(s, "test", &vl);  /* not the end of max-test */
    assert_non_null(f);
    assert_int_equal(vl, 0);
    assert_ptr_equal(f, s + strlen(s));
    f = fsvc_settings_find(s, "data", &vl);
    assert_int_equal(vl, strlen("/x/a%3Bb%3Dc%25d%0A,e"));
    assert_null(fsvc_settings_find(s, "a", &vl));
    assert_null(fsvc_settings_find(s, "max", &vl));
    /* too long: refused, the string unchanged */
    char small[16] = "";
    assert_int_equal(fsvc_settings_add(small, sizeof small, "k", "12345"), FSVC_OK);
    assert_int_equal(fsvc_settings_add(small, sizeof small, "key", "%%%%"), FSVC_EUSAGE);
    assert_string_equal(small, "k=12345");
}

static void test_lms_val(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_blobs(&d, 120);
    fsvc_param p;
    fsvc_param_default(&p);
    pin_fsvc(&p, 2.0);
    p.readout = FSVC_READOUT_LMS;
    p.dtype = FSVC_F64;
    p.eta = 0.05;
    p.epochs = 4;
    fsvc_model m;
    fsvc_lms_curve c;
    fsvc_lms_val_opt vo = {.val = 0.25, .keep_best = 1, .seed = 5};
    assert_int_equal(fsvc_train_lms_val(&m, NULL, &c, &d, &p, &vo, NULL), FSVC_OK);
    assert_int_equal(c.epochs, 4);
    assert_int_equal(c.n_train + c.n_val, 120);
    assert_int_equal(c.n_val, 30);
    for (int e = 0; e <= 4; e++) {
        assert_true(c.val_err[e] >= c.val_err[c.best_epoch]);
        assert_true(c.train_err[e] >= 0 && c.train_err[e] <= 1);
    }
    /* the kept readout gives the best epoch's validation error */
    int fold[120];
    int64_t idx[120];
    assert_int_equal(fsvc_cv_folds(fold, d.cls, 120, 3, 4, 5, NULL), FSVC_OK);
    fsvc_dataset va;
    assert_int_equal(fsvc_dataset_subset(&va, &d, idx, fsvc_fold_rows(idx, fold, 120, 0, 1), NULL),
                     FSVC_OK);
    int pred[120];
    assert_int_equal(fsvc_predict(pred, NULL, &m, &va, "ref", 1, NULL), FSVC_OK);
    int64_t bad = 0;
    for (int64_t i = 0; i < va.N; i++) bad += pred[i] != va.cls[i];
    assert_true(fabs((double)bad / va.N - c.val_err[c.best_epoch]) < 1e-12);
    assert_int_equal(m.readout, FSVC_READOUT_LMS);
    fsvc_free_model(&m);
    fsvc_lms_curve_free(&c);
    fsvc_error err;
    vo.val = 1.5;
    assert_int_equal(fsvc_train_lms_val(&m, NULL, &c, &d, &p, &vo, &err), FSVC_EUSAGE);
    fsvc_dataset_free(&va);
    fsvc_dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folds_stratified),
        cmocka_unit_test(test_folds_seeded),
        cmocka_unit_test(test_folds_errors),
        cmocka_unit_test(test_subset),
        cmocka_unit_test(test_cross_validate),
        cmocka_unit_test(test_cross_validate_optd64),
        cmocka_unit_test(test_cross_validate_regression),
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_lms_val),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
