/* test_calibrate.c - calibrated probabilities (fsvc/calibrate.c, issue 27
 * item 1): the temperature fit recovers a known one; the held-out scores
 * of the Gram downdate are those of a ridge solve without the fold; the
 * model file keeps the calibration (format 6) and refuses a bad one;
 * fsvc_model_proba is softmax(a s) and keeps the argmax. */
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

#include "fsvc/calibrate.h"
#include "fsvc/internal.h"
#include "fsvc/solver.h"
#include "fsvc/comm.h"
#include "fsvc/study.h"
#include "tests/util/fixtures.h"
#include "tests/util/sets.h"

/* Scores s uniform in [0, 1]^K and classes drawn from softmax(a0 s): the
 * fit finds a0 back (N = 20000: within 10 %). */
static void fit_recovers_temperature(void **st)
{
    (void)st;
    enum { N = 20000, K = 4 };
    double *S = malloc(sizeof(double) * N * K);
    int *cls = malloc(sizeof(int) * N);
    uint64_t s = 7;
    const double a0 = 6.0;
    for (int i = 0; i < N; i++) {
        double z = 0, p[K];
        for (int k = 0; k < K; k++) z += p[k] = exp(a0 * (S[i * K + k] = fx_urand(&s)));
        double u = fx_urand(&s) * z;
        int c = 0;
        while (c < K - 1 && (u -= p[c]) > 0) c++;
        cls[i] = c;
    }
    double a = fsvc_calib_fit(S, cls, NULL, N, K);
    assert_true(fabs(a - a0) < 0.1 * a0);
    /* scores that say nothing: no temperature (uniform probabilities) */
    for (int i = 0; i < N * K; i++) S[i] = 0.5;
    assert_true(fsvc_calib_fit(S, cls, NULL, N, K) == 0);
    free(S); free(cls);
}

/* Three noisy 2-D classes, f64. */
static void make_data(fsvc_dataset *d, int64_t N)
{
    fx_three_classes(d, N, (const double[4]){1.0, 1.5, 0.8, 1.5}, 99, "data");
}

static void small_param(fsvc_param *p)
{
    fsvc_param_default(p);
    p->select = FSVC_SELECT_RANDOM;
    p->max_neurons = 40;
    p->solver = FSVC_SOLVER_DIRECT;
    p->preprocess = FSVC_PRE_NONE;
    p->threads = 1;
}

/* The held-out scores of fold f are H_f R_f, R_f the ridge readout solved
 * on the other folds with the model's centroids less those that are fold
 * f's samples (fsvc_readout_solve, direct): the downdate G - H_f^T H_f
 * gives the same numbers. */
static void downdate_is_the_fold_solve(void **st)
{
    (void)st;
    fsvc_dataset d;
    make_data(&d, 300);
    fsvc_param p;
    small_param(&p);
    fsvc_model M;
    fsvc_error err;
    assert_int_equal(fsvc_train(&M, NULL, &d, &p, &err), FSVC_OK);
    int K = M.Kout;
    int64_t N = d.N, m = M.m;
    double *S = malloc(sizeof(double) * N * K), *R = malloc(sizeof(double) * m * K);
    double *Y = malloc(sizeof(double) * N * K);
    int *held = malloc(sizeof(int) * N), *fold = malloc(sizeof(int) * N);
    int *ctr = malloc(sizeof(int) * N);
    int64_t *idx = malloc(sizeof(int64_t) * N);
    assert_int_equal(fsvc_heldout_scores(S, held, &M, &d, &p, &err), FSVC_OK);
    for (int64_t i = 0; i < N; i++) assert_int_equal(held[i], 1); /* N <= 5000: all */
    assert_int_equal(fsvc_cv_folds(fold, d.cls, N, 3, FSVC_CALIB_FOLDS, p.seed, &err), FSVC_OK);
    void *X = NULL;
    assert_int_equal(fsvc_model_input_train(&X, &M, &d, 1, &err), FSVC_OK);
    bnl_ctx ctx;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), FSVC_OK);
    bnl_op op = { (bnl_dist)M.dist, (bnl_act)M.act, M.dtype, M.radius, BNL_PREC_FULL };
    size_t row = (size_t)M.n * fsvc_dtype_size(M.dtype);
    char *Xs = malloc(row * N), *Ck = malloc(row * m);
    double worst = 0, big = 0;
    int64_t dropped = 0;
    for (int f = 0; f < FSVC_CALIB_FOLDS; f++) {
        int64_t mk = 0; /* the centroids that are not fold f's samples */
        for (int64_t j = 0; j < m; j++) {
            int in = 0;
            for (int64_t i = 0; i < N && !in; i++)
                in = fold[i] == f && !memcmp((char *)X + i * row, (char *)M.C + j * row, row);
            if (!in) memcpy(Ck + mk++ * row, (char *)M.C + j * row, row);
        }
        dropped += m - mk;
        int64_t ntr = fsvc_fold_rows(idx, fold, N, f, 0);
        for (int64_t t = 0; t < ntr; t++) {
            memcpy(Xs + t * row, (char *)X + idx[t] * row, row);
            ctr[t] = d.cls[idx[t]];
        }
        fsvc_ridge_problem pb = {&ctx, &op, Ck, mk, Xs, ctr, NULL, NULL, ntr, ntr, M.n, K,
                                 fsvc_comm_one(), NULL, NULL};
        fsvc_ridge_opt o = {p.lambda, FSVC_SOLVER_DIRECT, p.cg_tol, FSVC_AUG_NONE, 0, 0, 0, 0, 0};
        assert_int_equal(fsvc_readout_solve(R, &pb, &o, NULL, &err), FSVC_OK);
        int64_t nte = fsvc_fold_rows(idx, fold, N, f, 1);
        for (int64_t t = 0; t < nte; t++) memcpy(Xs + t * row, (char *)X + idx[t] * row, row);
        assert_int_equal(bnl_scores(&ctx, &op, Y, Ck, mk, Xs, nte, M.n, R, K, &err), FSVC_OK);
        for (int64_t t = 0; t < nte; t++)
            for (int k = 0; k < K; k++) {
                double a = S[idx[t] * K + k], b = Y[t * K + k];
                if (fabs(a - b) > worst) worst = fabs(a - b);
                if (fabs(b) > big) big = fabs(b);
            }
    }
    assert_int_equal(dropped, m); /* random selection: every centroid is in one fold */
    assert_true(big > 0.1);
    assert_true(worst <= 1e-6 * big);
    /* and they are held out: not the model's own scores on those samples */
    assert_int_equal(fsvc_predict(NULL, Y, &M, &d, "cpu", 1, &err), FSVC_OK);
    double diff = 0;
    for (int64_t q = 0; q < N * K; q++) diff += fabs(Y[q] - S[q]);
    assert_true(diff > 1e-3 * N);
    bnl_ctx_close(&ctx);
    free(X); free(Xs); free(Ck); free(S); free(R); free(Y); free(held); free(fold); free(ctr); free(idx);
    fsvc_free_model(&M);
    fsvc_dataset_free(&d);
}

/* The refit path (a class weight of 2): held-out scores of fold models,
 * a finite temperature. */
static void refit_path_calibrates(void **st)
{
    (void)st;
    fsvc_dataset d;
    make_data(&d, 150);
    fsvc_param p;
    small_param(&p);
    snprintf(p.class_weight, sizeof p.class_weight, "1:2"); /* class 1 weighs 2 */
    p.probability = 1;
    fsvc_model M;
    fsvc_error err;
    assert_int_equal(fsvc_train(&M, NULL, &d, &p, &err), FSVC_OK);
    assert_true(M.proba_a > 0 && isfinite(M.proba_a));
    fsvc_free_model(&M);
    p.probability = 1;
    p.regression = 1;
    assert_int_not_equal(fsvc_train(&M, NULL, &d, &p, &err), FSVC_OK);
    assert_non_null(strstr(err.msg, "no class probabilities"));
    fsvc_dataset_free(&d);
}

/* 4 points, 4 copies each, in an order (scikit-learn's
 * check_sample_weights_invariance) whose stratified folds leave no
 * centroid outside one fold: the downdate cannot, the refit does. */
static void duplicates_fall_back_to_refit(void **st)
{
    (void)st;
    static const char *rows = "33 33 13 41 41 21 33 13 21 21 33 21 13 13 41 41";
    enum { ND = 16 };
    double x[ND * 2], y[ND];
    for (int i = 0; i < ND; i++) {
        x[2 * i] = rows[3 * i] - '0';
        x[2 * i + 1] = rows[3 * i + 1] - '0';
        y[i] = x[2 * i + 1] == 3 ? 1 : 2;
    }
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = ND; d.n = 2; d.dtype = FSVC_F64; d.x = x; d.y = y; d.has_labels = 1;
    fsvc_error err;
    assert_int_equal(fsvc_dataset_index_classes(&d, &err), FSVC_OK);
    fsvc_param p;
    fsvc_param_default(&p);
    p.probability = 1;
    fsvc_model M;
    if (fsvc_train(&M, NULL, &d, &p, &err)) fail_msg("%s", err.msg);
    assert_true(M.proba_a > 0 && isfinite(M.proba_a));
    fsvc_free_model(&M);
    free(d.cls); free(d.class_values);
}

/* proba = softmax(a s): rows sum to 1, the argmax kept; a = 0 (none): the
 * plain softmax. */
static void proba_is_scaled_softmax(void **st)
{
    (void)st;
    fsvc_model M;
    memset(&M, 0, sizeof M);
    M.Kout = 3;
    const double s[6] = { 0.1, 0.7, 0.2, 1.0, -1.0, 0.0 };
    double p[6];
    M.proba_a = 4;
    fsvc_model_proba(p, s, &M, 2);
    double z = exp(4 * 0.1) + exp(4 * 0.7) + exp(4 * 0.2);
    assert_true(fabs(p[1] - exp(4 * 0.7) / z) < 1e-14);
    assert_true(fabs(p[3] + p[4] + p[5] - 1) < 1e-14 && p[3] > p[5] && p[5] > p[4]);
    assert_int_equal(fsvc_model_calibrated(&M), 1);
    M.proba_a = 0;
    fsvc_model_proba(p, s, &M, 2);
    z = exp(0.1) + exp(0.7) + exp(0.2);
    assert_true(fabs(p[0] - exp(0.1) / z) < 1e-14);
    assert_int_equal(fsvc_model_calibrated(&M), 0);
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *b = malloc(1 << 20);
    *len = fread(b, 1, 1 << 20, f);
    fclose(f);
    return b;
}

static void recrc(unsigned char *b, size_t len)
{
    uint32_t c = (uint32_t)crc32(0L, b + 20, (uInt)(len - 24));
    for (int i = 0; i < 4; i++) b[len - 4 + i] = (unsigned char)(c >> (8 * i));
}

/* The model file: a calibrated model is format 6 and keeps a; a plain one
 * keeps its format 3 bytes; a bad kind, a bad a and a cut section are
 * refused in words. */
static void model_file_section(void **st)
{
    (void)st;
    fsvc_dataset d;
    make_data(&d, 90);
    fsvc_param p;
    small_param(&p);
    fsvc_model M, L;
    fsvc_error err;
    assert_int_equal(fsvc_train(&M, NULL, &d, &p, &err), FSVC_OK);
    char *dir = fx_tmpdir(), path[4096];
    fx_join(path, sizeof path, dir, "m.fsvc");
    size_t len;
    assert_int_equal(fsvc_model_save(&M, path, &err), FSVC_OK);
    unsigned char *b = read_all(path, &len);
    assert_int_equal(b[8], 3); /* no calibration: the dense format, as before */
    size_t len3 = len;
    free(b);
    M.proba_a = 2.5;
    assert_int_equal(fsvc_model_save(&M, path, &err), FSVC_OK);
    b = read_all(path, &len);
    assert_int_equal(b[8], 6);
    /* storage, precision, the section count, tag, bytes, kind, a */
    assert_int_equal(len, len3 + 4 + 4 + 4 + 4 + 4 + 4 + 8);
    assert_int_equal(fsvc_model_parse(&L, b, len, "m", &err), FSVC_OK);
    assert_true(L.proba_a == 2.5);
    fsvc_free_model(&L);
    b[len - 16] = 2; /* kind 2 */
    recrc(b, len);
    assert_int_not_equal(fsvc_model_parse(&L, b, len, "m", &err), FSVC_OK);
    assert_non_null(strstr(err.msg, "bad probability calibration"));
    b[len - 16] = 1;
    double neg = -1;
    memcpy(b + len - 12, &neg, 8); /* a < 0 (little-endian hosts) */
    recrc(b, len);
    assert_int_not_equal(fsvc_model_parse(&L, b, len, "m", &err), FSVC_OK);
    assert_non_null(strstr(err.msg, "bad probability calibration"));
    /* the section cut off: payload length 12 bytes shorter */
    size_t cut = len - 12;
    memmove(b + cut - 4, b + len - 4, 4);
    uint64_t pl = cut - 24;
    for (int i = 0; i < 8; i++) b[12 + i] = (unsigned char)(pl >> (8 * i));
    recrc(b, cut);
    assert_int_not_equal(fsvc_model_parse(&L, b, cut, "m", &err), FSVC_OK);
    assert_non_null(strstr(err.msg, "section 1 is unknown, repeated or cut (tag 2"));
    free(b);
    M.proba_a = NAN; /* save refuses what load would */
    assert_int_not_equal(fsvc_model_save(&M, path, &err), FSVC_OK);
    M.proba_a = 0;
    fsvc_free_model(&M);
    fsvc_dataset_free(&d);
    fx_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_recovers_temperature),
        cmocka_unit_test(downdate_is_the_fold_solve),
        cmocka_unit_test(refit_path_calibrates),
        cmocka_unit_test(duplicates_fall_back_to_refit),
        cmocka_unit_test(proba_is_scaled_softmax),
        cmocka_unit_test(model_file_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
