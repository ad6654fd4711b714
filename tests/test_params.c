/* test_params.c - the settings model (fsvc/params.c): every setting parses
 * its own formatted value back to the same parameters, bad values are
 * refused with FSVC_EUSAGE, and the canonical string is stable. */
#include "fsvc/fsvc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

static void round_trip_every_setting(void **state)
{
    (void)state;
    fsvc_param p, q;
    fsvc_param_default(&p);
    fsvc_error err;
    const char *edits[][2] = {
        {"radius", "0.3rms"}, {"prag", "2.5"}, {"dist", "l1"}, {"kernel", "tri"},
        {"select", "per-class"}, {"readout", "lms"}, {"lambda", "1e-7"}, {"eta", "0.25"},
        {"epochs", "7"}, {"scale", "pm1"}, {"dtype", "f64"}, {"preprocess", "deskew+sqrt"},
        {"regression", "off"}, {"shuffle", "on"}, {"seed", "42"}, {"max-neurons", "1234"}, {"backend", "ref"},
        {"threads", "2"}, {"solver", "pcg"}, {"cg-tol", "1e-05"}, {"augment", "shift2"},
        {"shape", "28x14"},
        {"scale-features", "range"}, {"probability", "on"},
        {"class-weight", "none"}, {"pcg-h", "bf16"},
        {"features", "hog"}}; /* weights need ridge: test_weights.c */
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++)
        assert_int_equal(fsvc_param_set(&p, edits[i][0], edits[i][1], &err), FSVC_OK);
    char a[1024] = "", b[1024] = "";
    assert_int_equal(fsvc_param_canon(a, sizeof a, &p), FSVC_OK);
    fsvc_param_default(&q);
    assert_int_equal(fsvc_param_parse(&q, a, &err), FSVC_OK);
    assert_int_equal(fsvc_param_canon(b, sizeof b, &q), FSVC_OK);
    assert_string_equal(a, b);
    assert_int_equal(fsvc_param_check(&q, &err), FSVC_OK);
    assert_memory_equal(&p.radius_rms, &q.radius_rms, sizeof p.radius_rms);
    assert_int_equal(q.dist, 0);
    assert_int_equal(q.select, FSVC_SELECT_PER_CLASS);
    assert_int_equal(q.seed, 42);
    assert_int_equal(q.shuffle, 1);
    assert_int_equal(q.max_neurons, 1234);
    assert_string_equal(q.backend, "ref");
    assert_int_equal(q.rows, 28);
    assert_int_equal(q.cols, 14);
    assert_int_equal(q.scale_features, 1);
    assert_int_equal(q.probability, 1);
    /* every table entry appears in the canonical string once */
    int n = 0;
    for (; fsvc_setting(n); n++) {
        size_t vl;
        assert_non_null(fsvc_settings_find(a, fsvc_setting(n)->name, &vl));
        assert_string_equal(fsvc_setting_name(n), fsvc_setting(n)->name);
        assert_non_null(fsvc_setting(n)->help);
    }
    assert_int_equal(q.solver, FSVC_SOLVER_PCG);
    assert_true(q.cg_tol == 1e-5);
    assert_int_equal(q.augment, FSVC_AUG_SHIFT2);
    assert_int_equal(q.pcg_h, 2);
    assert_int_equal(q.features, FSVC_FEAT_HOG);
    assert_int_equal(n, 28);
    assert_null(fsvc_setting_name(n));
    /* the options of fsvc train are unique */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            assert_false(fsvc_setting(i)->opt && fsvc_setting(i)->opt == fsvc_setting(j)->opt);
}

static void radius_forms(void **state)
{
    (void)state;
    fsvc_param p;
    fsvc_param_default(&p);
    fsvc_error err;
    char v[64];
    assert_int_equal(fsvc_param_set(&p, "radius", "7.5", &err), FSVC_OK);
    assert_true(p.radius == 7.5 && p.radius_rms == 0);
    assert_int_equal(fsvc_param_set(&p, "radius", "0.45rms", &err), FSVC_OK);
    assert_true(p.radius == 0 && p.radius_rms == 0.45);
    assert_int_equal(fsvc_param_get(&p, "radius", v, sizeof v), 0);
    assert_string_equal(v, "0.45rms");
    assert_int_equal(fsvc_param_set(&p, "radius", "search", &err), FSVC_OK);
    assert_true(p.radius == 0 && p.radius_rms == 0);
    assert_int_equal(fsvc_param_set(&p, "radius", "auto", &err), FSVC_OK);
    assert_int_equal(fsvc_param_get(&p, "radius", v, sizeof v), 0);
    assert_string_equal(v, "auto");
    assert_int_equal(fsvc_param_get(&p, "nosuch", v, sizeof v), -1);
    assert_int_equal(fsvc_param_get(&p, "radius", v, 3), -1);
}

static void bad_values_refused(void **state)
{
    (void)state;
    fsvc_param p;
    fsvc_param_default(&p);
    fsvc_param keep = p;
    fsvc_error err;
    const char *bad[][2] = {
        {"radius", "0"}, {"radius", "-1"}, {"radius", "xrms"}, {"radius", "0rms"},
        {"radius", "nan"}, {"radius", "inf"}, {"radius", "1e999"}, {"prag", "0"},
        {"lambda", "-1e-5"}, {"lambda", "nan"}, {"lambda", "0"}, {"eta", "-1"}, {"eta", "x"},
        {"epochs", "-1"}, {"epochs", "1.5"}, {"threads", "5000"}, {"dist", "dot"},
        {"kernel", "tanh"}, {"select", "best"}, {"readout", "svm"}, {"scale", "255"},
        {"dtype", "i8"}, {"preprocess", "blur"}, {"regression", "maybe"},
        {"shape", "28"}, {"shape", "0x5"}, {"shape", "3x"}, {"shape", "-2x2"}, {"scale-features", "minmax"},
        {"shuffle", "-3"}, {"max-neurons", "1e3"}, {"backend", "gpu"}, {"nosuch", "1"},
        {"radius", ""}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fsvc_error_clear(&err);
        int rc = fsvc_param_set(&p, bad[i][0], bad[i][1], &err);
        if (rc != FSVC_EUSAGE)
            fail_msg("%s=%s accepted (rc %d)", bad[i][0], bad[i][1], rc);
        assert_true(strlen(err.msg) > 0 && !strchr(err.msg, '\n'));
    }
    assert_memory_equal(&p, &keep, sizeof p); /* nothing half-applied */
    assert_int_equal(fsvc_param_parse(&p, "radius=1;prag", &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_param_parse(&p, "=1", &err), FSVC_EUSAGE);
    assert_memory_equal(&p, &keep, sizeof p); /* a bad list applies nothing */
    assert_int_equal(fsvc_param_parse(&p, "radius=2;;prag=3;", &err), FSVC_OK);
    assert_true(p.radius == 2 && p.prag == 3);
}

static void defaults_are_valid(void **state)
{
    (void)state;
    fsvc_param p;
    fsvc_param_default(&p);
    fsvc_error err;
    assert_int_equal(fsvc_param_check(&p, &err), FSVC_OK);
    p.regression = 1;
    p.readout = FSVC_READOUT_LMS;
    assert_int_equal(fsvc_param_check(&p, &err), FSVC_EUSAGE);
    fsvc_param_default(&p);
    p.lambda = -1; /* a field set by hand, outside the parser */
    assert_int_equal(fsvc_param_check(&p, &err), FSVC_EUSAGE);
    fsvc_param_default(&p);
    p.select = (fsvc_select)17;
    assert_int_equal(fsvc_param_check(&p, &err), FSVC_EUSAGE);
}

/* The default centroid count (issue 27 item 11): every sample of a small
 * set, 25 sqrt(N) up to 2500 samples, N / 2 up to 20000, then 10000, but
 * at most 7 sqrt(N n) for n features (n 0: no such cap, regression);
 * never more than N, growing with N and with n. */
static void default_centroids(void **state)
{
    (void)state;
    /* N, n, centroids: many features leave the sqrt(N), N / 2 and 10000
     * rule as it was (digits 1437 x 64, optd64's folds 3058 x 64, MNIST
     * 5000 and 60000 x 784, satimg's 2573 x 36, iris' 80 x 4); few
     * features cap it (phoneme's folds 2161 x 5, 2400 x 2, 625 x 12,
     * 8000 x 20, 60000 x 16) */
    const int64_t cases[][3] = {
        {1, 784, 1},         {2, 784, 2},        {625, 784, 625},        {1150, 784, 847},
        {1437, 64, 947},     {2160, 784, 1161},  {2500, 784, 1250},      {3058, 64, 1529},
        {5000, 784, 2500},   {10000, 784, 5000}, {20000, 784, 10000},    {60000, 784, 10000},
        {(int64_t)1 << 40, 784, 10000},          {625, 25, 625},         {80, 4, 80},
        {100, 4, 100},       {2161, 5, 727},     {2573, 36, 1286},       {2400, 2, 484},
        {60000, 16, 6858},   {(int64_t)1 << 40, 1, 10000},               {1, 1, 1},
        {3, 0, 3},           {8000, 20, 2800},   {2161, 0, 1162},        {60000, 0, 10000},
        {625, 12, 606},      {625, 13, 625}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t got = fsvc_default_centroids(cases[i][0], (int)cases[i][1]);
        if (got != cases[i][2])
            fail_msg("N %lld, n %lld: %lld centroids, expected %lld", (long long)cases[i][0],
                     (long long)cases[i][1], (long long)got, (long long)cases[i][2]);
    }
    const int ns[] = {1, 2, 5, 16, 36, 64, 784};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
        for (int64_t N = 1, last = 0; N < 100000; N += 1 + N / 50) {
            int64_t m = fsvc_default_centroids(N, ns[k]);
            assert_true(m >= last && m >= 1 && m <= N);
            if (k) assert_true(m >= fsvc_default_centroids(N, ns[k - 1]));
            last = m;
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_every_setting),
        cmocka_unit_test(radius_forms),
        cmocka_unit_test(bad_values_refused),
        cmocka_unit_test(defaults_are_valid),
        cmocka_unit_test(default_centroids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
