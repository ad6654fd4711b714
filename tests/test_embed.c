/* test_embed.c - the binding API (fsvc/embed.h): training and prediction on
 * caller memory leave it untouched and agree with the dataset path, the
 * model bytes round-trip and are checked like a file, probabilities. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fsvc/embed.h"
#include "fsvc/study.h"

enum { N = 120, n = 4 };

/* two classes of points around (0,..) and (3,..) */
static void data(float *x, double *y)
{
    for (int i = 0; i < N; i++) {
        y[i] = i % 2 ? 7.0 : -1.0;
        for (int k = 0; k < n; k++)
            x[i * n + k] = (float)((i % 2) * 3.0 + 0.3 * sin(i * 1.7 + k));
    }
}

static void test_view_train_predict(void **state)
{
    (void)state;
    static float x[N * n], x0[N * n];
    double y[N], y0[N];
    data(x, y);
    memcpy(x0, x, sizeof x);
    memcpy(y0, y, sizeof y);
    fsvc_error err;
    fsvc_param *p = fsvc_param_alloc(0, 0);
    fsvc_model *M = fsvc_model_alloc();
    assert_non_null(p);
    assert_non_null(M);
    if (fsvc_train_view(M, NULL,
                        &(fsvc_array_view){x, N, n, FSVC_F32, 0, 0, y, NULL},
                        p, &err)) fail_msg("%s", err.msg);
    assert_memory_equal(x, x0, sizeof x);   /* caller memory untouched */
    assert_memory_equal(y, y0, sizeof y);
    int64_t meta[8];
    fsvc_model_meta(meta, M);
    assert_int_equal(meta[0], n);
    assert_int_equal(meta[3], 2);
    assert_true(fsvc_model_class_values(M)[0] == -1.0 && fsvc_model_class_values(M)[1] == 7.0);
    int pred[N];
    double score[N * 2];
    if (fsvc_predict_view(pred, score, M,
                          &(fsvc_array_view){x, N, n, FSVC_F32, 0, 0, NULL, NULL}, "cpu", 1, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < N; i++) assert_int_equal(pred[i], i % 2);
    /* wrong width and bad geometry: errors, not crashes */
    fsvc_array_view half = {x, N / 2, n / 2, FSVC_F32, 0, 0, NULL, NULL};
    assert_int_equal(fsvc_predict_view(pred, NULL, M, &half, "cpu", 1, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "the model has 4"));
    assert_int_equal(fsvc_predict_view(pred, NULL, M,
                                       &(fsvc_array_view){x, N, n, FSVC_F32, 3, 3, NULL, NULL},
                                       "cpu", 1, &err),
                     FSVC_EUSAGE);
    assert_int_equal(fsvc_predict_view(pred, NULL, M,
                                       &(fsvc_array_view){x, 0, n, FSVC_F32, 0, 0, NULL, NULL},
                                       "cpu", 1, &err),
                     FSVC_EINPUT);

    /* bytes: round trip, same scores; a flipped byte is refused */
    unsigned char *b;
    size_t len;
    if (fsvc_model_to_bytes(&b, &len, M, &err)) fail_msg("%s", err.msg);
    assert_true(len > 24 && !memcmp(b, "FSVCMODL", 8));
    fsvc_model *M2 = fsvc_model_alloc();
    if (fsvc_model_from_bytes(M2, b, len, NULL, &err)) fail_msg("%s", err.msg);
    double score2[N * 2];
    if (fsvc_predict_view(NULL, score2, M2,
                          &(fsvc_array_view){x, N, n, FSVC_F32, 0, 0, NULL, NULL}, "cpu", 1, &err))
        fail_msg("%s", err.msg);
    assert_memory_equal(score, score2, sizeof score);
    b[len / 2] ^= 0x5a;
    assert_int_equal(fsvc_model_from_bytes(M2, b, len, "pickle", &err), FSVC_EINPUT);
    assert_true(!strncmp(err.msg, "pickle: ", 8));
    assert_int_equal(fsvc_model_from_bytes(M2, b, 10, "pickle", &err), FSVC_EINPUT);
    fsvc_bytes_free(b);
    fsvc_model_release(M2);
    fsvc_model_release(M);
    fsvc_param_release(p);
}

static void test_param_regression(void **state)
{
    (void)state;
    fsvc_error err;
    fsvc_param *p = fsvc_param_alloc(1, 0);
    assert_int_equal(fsvc_param_set(p, "readout", "onehot", &err), FSVC_OK);
    static float x[N * n];
    double y[N];
    data(x, y);
    fsvc_model *M = fsvc_model_alloc();
    assert_int_equal(fsvc_train_view(M, NULL,
                                     &(fsvc_array_view){x, N, n, FSVC_F32, 0, 0, y, NULL},
                                     p, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "ridge"));
    assert_int_equal(fsvc_train_view(M, NULL,
                                     &(fsvc_array_view){x, N, n, FSVC_F32, 0, 0, NULL, NULL},
                                     p, &err),
                     FSVC_EINPUT);
    fsvc_model_release(M);
    fsvc_param_release(p);
}

static void test_proba(void **state)
{
    (void)state;
    double s[3 * 3] = { 1, 2, 3, -5, 0.5, 0.5, 1, 1 + 1e-17, 1e300 * 0 };
    s[8] = 0.0;
    double q[9];
    fsvc_scores_proba(q, s, 3, 3);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(q[3 * i] + q[3 * i + 1] + q[3 * i + 2] - 1) < 1e-12);
    assert_true(q[2] > q[1] && q[1] > q[0]);
    assert_true(fabs(q[2] / q[1] - exp(1)) < 1e-12);
    assert_true(q[4] == q[5] && q[4] > q[3]);          /* a tie stays a tie (first wins) */
    double in[9];                                      /* in place: the same values */
    memcpy(in, s, sizeof in);
    fsvc_scores_proba(in, in, 3, 3);
    assert_memory_equal(in, q, sizeof q);
    /* argmax 1 by one ulp: exp(-1.4e-17) rounds to 1, the earlier class
     * must still not tie the predicted one */
    double t[2] = { 0.1, nextafter(0.1, 1) }, r[2];
    assert_true(exp(t[0] - t[1]) == 1.0);
    fsvc_scores_proba(r, t, 1, 2);
    assert_true(r[1] > r[0]);
}

/* The CSR view (issue 27 item 2): the engine's sparse path on caller
 * rows, the same predictions as the dense view's data made sparse, a
 * sparse model, bad rows refused naming "sparse array", memory untouched. */
static void test_csr_view(void **state)
{
    (void)state;
    static float x[N * n];
    double y[N];
    data(x, y);
    static int64_t ptr[N + 1];
    static int32_t col[N * n];
    static float val[N * n];
    int64_t nnz = 0;
    for (int i = 0; i < N; i++) {
        ptr[i] = nnz;
        for (int k = 0; k < n; k++)
            if (x[i * n + k] != 0) { col[nnz] = k; val[nnz++] = x[i * n + k]; }
    }
    ptr[N] = nnz;
    fsvc_csr a = {N, nnz, ptr, col, val};
    static float val0[N * n];
    memcpy(val0, val, sizeof val);
    fsvc_error err;
    fsvc_param *p = fsvc_param_alloc(0, 0);
    fsvc_model *M = fsvc_model_alloc();
    if (fsvc_train_csr_view(M, NULL, &a, n, y, NULL, p, &err)) fail_msg("%s", err.msg);
    assert_memory_equal(val, val0, sizeof val);
    assert_int_equal(fsvc_model_is_sparse(M), 1);
    int pred[N];
    if (fsvc_predict_csr_view(pred, NULL, M, &a, n, "cpu", 1, &err)) fail_msg("%s", err.msg);
    for (int i = 0; i < N; i++) assert_int_equal(pred[i], i % 2);
    assert_int_equal(fsvc_predict_csr_view(pred, NULL, M, &a, n + 1, "cpu", 1, &err),
                     FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "sparse array: 5 features, the model has 4"));
    int32_t c0 = col[0];
    col[0] = n; /* a column beyond n */
    assert_int_equal(fsvc_train_csr_view(M, NULL, &a, n, y, NULL, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "sparse array"));
    col[0] = c0;
    a.row_ptr[N] = nnz + 1; /* offsets that do not end at nnz */
    assert_int_equal(fsvc_predict_csr_view(pred, NULL, M, &a, n, "cpu", 1, &err), FSVC_EINPUT);
    a.row_ptr[N] = nnz;
    fsvc_model_release(M);
    fsvc_param_release(p);
}

/* Class names set on a trained model: kept when a model file can hold
 * them, refused (the model's names unchanged) when it cannot. */
static void test_class_names(void **state)
{
    (void)state;
    static float x[N * n];
    double y[N];
    data(x, y);
    fsvc_error err;
    fsvc_param *p = fsvc_param_alloc(0, 0);
    fsvc_model *M = fsvc_model_alloc();
    if (fsvc_train_view(M, NULL,
                        &(fsvc_array_view){x, N, n, FSVC_F32, 0, 0, y, NULL},
                        p, &err)) fail_msg("%s", err.msg);
    assert_null(fsvc_model_class_name(M, 0));
    const char *good[] = {"cat", "dog"}, *empty[] = {"cat", ""}, *twice[] = {"a", "a"};
    if (fsvc_model_set_class_names(M, good, 2, &err)) fail_msg("%s", err.msg);
    assert_string_equal(fsvc_model_class_name(M, 1), "dog");
    assert_int_equal(fsvc_model_set_class_names(M, empty, 2, &err), FSVC_EINPUT);
    assert_int_equal(fsvc_model_set_class_names(M, twice, 2, &err), FSVC_EINPUT);
    assert_int_equal(fsvc_model_set_class_names(M, good, 3, &err), FSVC_EINPUT);
    assert_string_equal(fsvc_model_class_name(M, 0), "cat"); /* unchanged */
    unsigned char *buf = NULL;
    size_t len = 0;
    if (fsvc_model_to_bytes(&buf, &len, M, &err)) fail_msg("%s", err.msg);
    fsvc_model *B = fsvc_model_alloc();
    if (fsvc_model_from_bytes(B, buf, len, "bytes", &err)) fail_msg("%s", err.msg);
    assert_string_equal(fsvc_model_class_name(B, 1), "dog"); /* in the file */
    if (fsvc_model_set_class_names(B, NULL, 0, &err)) fail_msg("%s", err.msg);
    assert_null(fsvc_model_class_name(B, 0));
    fsvc_bytes_free(buf);
    fsvc_model_release(B);
    fsvc_model_release(M);
    fsvc_param_release(p);
}

int main(void)
{
    fsvc_set_print(fsvc_print_discard);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_train_predict),
        cmocka_unit_test(test_param_regression),
        cmocka_unit_test(test_proba),
        cmocka_unit_test(test_csr_view),
        cmocka_unit_test(test_class_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
