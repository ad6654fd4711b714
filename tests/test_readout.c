/* test_readout.c - readouts against plain dense computations: one-hot,
 * online LMS, ridge (sparse and dense H, float64 and float32 inputs) and
 * ridge regression. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/internal.h"
#include "fsvc/solver.h"

typedef struct { int64_t N, m; int n, K; double *X, *C; int *cls, *lab; } prob;

/* N samples, the first m of them as centroids, K classes. */
static prob make(int64_t N, int64_t m, int n, int K, uint64_t seed)
{
    prob P = {N, m, n, K, malloc(N * n * sizeof(double)), NULL, malloc(N * sizeof(int)),
              malloc(m * sizeof(int))};
    uint64_t st = seed;
    for (int64_t i = 0; i < N; i++) {
        P.cls[i] = (int)(fsvc_rng_next(&st) % K);
        for (int j = 0; j < n; j++)
            P.X[i * n + j] = P.cls[i] * (j % 3) + (double)(fsvc_rng_next(&st) % 1000) / 500;
    }
    P.C = P.X; /* first m rows */
    for (int64_t j = 0; j < m; j++) P.lab[j] = P.cls[j];
    return P;
}

static void drop(prob *P) { free(P->X); free(P->cls); free(P->lab); }

/* H: N x m by the reference engine, double */
static double *dense_h(const prob *P, const bnl_op *op)
{
    bnl_ctx ref;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 1, &err), 0);
    double *H = malloc(P->N * P->m * sizeof *H);
    assert_int_equal(bnl_forward(&ref, op, H, P->m, P->C, P->m, P->X, P->N, P->n, &err), 0);
    bnl_ctx_close(&ref);
    return H;
}

/* Solves A x = b (A: m x m, B: m x K, in place) by Gaussian elimination
 * with partial pivoting. */
static void gauss_solve(double *A, double *B, int64_t m, int K)
{
    for (int64_t c = 0; c < m; c++) {
        int64_t piv = c;
        for (int64_t r = c + 1; r < m; r++) if (fabs(A[r * m + c]) > fabs(A[piv * m + c])) piv = r;
        for (int64_t q = 0; q < m; q++) { double t = A[c * m + q]; A[c * m + q] = A[piv * m + q]; A[piv * m + q] = t; }
        for (int k = 0; k < K; k++) { double t = B[c * K + k]; B[c * K + k] = B[piv * K + k]; B[piv * K + k] = t; }
        for (int64_t r = c + 1; r < m; r++) {
            double f = A[r * m + c] / A[c * m + c];
            for (int64_t q = c; q < m; q++) A[r * m + q] -= f * A[c * m + q];
            for (int k = 0; k < K; k++) B[r * K + k] -= f * B[c * K + k];
        }
    }
    for (int64_t c = m - 1; c >= 0; c--)
        for (int k = 0; k < K; k++) {
            double s = B[c * K + k];
            for (int64_t q = c + 1; q < m; q++) s -= A[c * m + q] * B[q * K + k];
            B[c * K + k] = s / A[c * m + c];
        }
}

/* R by the dense normal equations. T: one-hot of cls, or y when given. */
static double *dense_ridge(const double *H, const prob *P, const double *y, int K, double lambda)
{
    int64_t m = P->m;
    double *A = calloc(m * m, sizeof *A), *B = calloc(m * K, sizeof *B);
    for (int64_t i = 0; i < P->N; i++)
        for (int64_t a = 0; a < m; a++) {
            double ha = H[i * m + a];
            for (int64_t b = 0; b < m; b++) A[a * m + b] += ha * H[i * m + b];
            if (y) B[a] += ha * y[i];
            else B[a * K + P->cls[i]] += ha;
        }
    double md = 0; /* lambda is relative to the mean of diag(H^T H) */
    for (int64_t a = 0; a < m; a++) md += A[a * m + a] / m;
    for (int64_t a = 0; a < m; a++) A[a * m + a] += lambda * md;
    gauss_solve(A, B, m, K);
    free(A);
    return B;
}

static void onehot(void **s)
{
    (void)s;
    int lab[] = {2, 0, 1, 2};
    double R[12];
    fsvc_readout_onehot(R, lab, 4, 3);
    double want[12] = {0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_memory_equal(R, want, sizeof R);
}

static void lms(void **s)
{
    (void)s;
    prob P = make(300, 40, 6, 3, 1);
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_F64, 1.2, BNL_PREC_FULL};
    double *H = dense_h(&P, &op);
    int64_t m = P.m;
    int K = P.K;
    double *R = malloc(m * K * sizeof *R), *W = malloc(m * K * sizeof *W), e[3];
    fsvc_readout_onehot(R, P.lab, m, K);
    memcpy(W, R, m * K * sizeof *W);
    double eta = 0.05;
    for (int ep = 0; ep < 3; ep++)
        for (int64_t i = 0; i < P.N; i++) {
            for (int k = 0; k < K; k++) {
                e[k] = P.cls[i] == k;
                for (int64_t j = 0; j < m; j++) e[k] -= H[i * m + j] * W[j * K + k];
            }
            for (int64_t j = 0; j < m; j++)
                for (int k = 0; k < K; k++) W[j * K + k] += eta * H[i * m + j] * e[k];
        }
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 0, 0, &err), 0);
    fsvc_ridge_problem pb = {.ctx = &ctx, .op = &op, .C = P.C, .m = m, .X = P.X,
                             .cls = P.cls, .N = P.N, .n = P.n, .K = K};
    assert_int_equal(fsvc_readout_lms(R, &pb, eta, 3, 0, &err), 0);
    int moved = 0;
    for (int64_t q = 0; q < m * K; q++) {
        assert_true(fabs(R[q] - W[q]) <= 1e-12 * (1 + fabs(W[q])));
        moved += fabs(W[q] - (P.lab[q / K] == q % K)) > 1e-6;
    }
    assert_true(moved > m / 2); /* the updates did something */
    bnl_ctx_close(&ctx);
    free(H); free(R); free(W);
    drop(&P);
}

static void ridge_case(bnl_dist dist, bnl_act act, double r, fsvc_dtype t, double tol, int g32)
{
    prob P = make(700, 60, 8, 4, 5);
    bnl_op op64 = {dist, act, FSVC_F64, r, BNL_PREC_FULL};
    /* for f32 the engine sees the same values rounded to float */
    void *X = P.X;
    if (t == FSVC_F32) {
        float *f = malloc(P.N * P.n * sizeof *f);
        for (int64_t q = 0; q < P.N * P.n; q++) { f[q] = (float)P.X[q]; P.X[q] = f[q]; }
        X = f;
    }
    double *H = dense_h(&P, &op64);
    int64_t nz = 0;
    for (int64_t q = 0; q < P.N * P.m; q++) nz += H[q] != 0;
    double lambda = 1e-3;
    double *want = dense_ridge(H, &P, NULL, P.K, lambda);
    double *R = malloc(P.m * P.K * sizeof *R);
    bnl_op op = {dist, act, t, r, BNL_PREC_FULL};
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 0, 0, &err), 0);
    fsvc_ridge_problem pb = {.ctx = &ctx, .op = &op, .C = X, .m = P.m, .X = X, .cls = P.cls,
                             .N = P.N, .n = P.n, .K = P.K};
    int rc = fsvc_readout_ridge(R, &pb, lambda, g32, 0, NULL, &err);
    if (rc) fail_msg("%s", err.msg);
    double scale = 0;
    for (int64_t q = 0; q < P.m * P.K; q++) scale = fmax(scale, fabs(want[q]));
    for (int64_t q = 0; q < P.m * P.K; q++)
        if (fabs(R[q] - want[q]) > tol * scale)
            fail_msg("R[%lld] = %.10g, dense %.10g (H %.0f%% non-zero)", (long long)q, R[q],
                     want[q], 100.0 * nz / (P.N * P.m));
    bnl_ctx_close(&ctx);
    if (X != P.X) free(X);
    free(H); free(want); free(R);
    drop(&P);
}

static void ridge_sparse_f64(void **s) { (void)s; ridge_case(BNL_L1, BNL_TRI, 1.0, FSVC_F64, 1e-9, -1); }
static void ridge_dense_f64(void **s) { (void)s; ridge_case(BNL_L2, BNL_GAUSS, 3.0, FSVC_F64, 1e-9, -1); }
static void ridge_sparse_f32(void **s) { (void)s; ridge_case(BNL_L1, BNL_TRI, 1.0, FSVC_F32, 1e-4, -1); }
/* the float32 H^T H of large m, sparse (Gram blocks) and dense (straight);
 * float rounding of G and its Cholesky factor, amplified by the condition
 * number (dense Gaussian H with lambda 0.1: about 1e4), bounds the match */
static void ridge_f32_gram(void **s)
{
    (void)s;
    ridge_case(BNL_L1, BNL_TRI, 1.0, FSVC_F32, 1e-3, 1);
    ridge_case(BNL_L2, BNL_GAUSS, 3.0, FSVC_F32, 1e-2, 1);
}

/* Regression: a smooth target of the inputs, fitted through fsvc_train. */
static void regression(void **s)
{
    (void)s;
    int64_t N = 800;
    int n = 3;
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = N; d.n = n; d.dtype = FSVC_F64; d.has_labels = 1; d.K = 1;
    double *x = malloc(N * n * sizeof *x);
    d.y = malloc(N * sizeof *d.y); d.cls = calloc(N, sizeof *d.cls);
    d.class_values = calloc(1, sizeof *d.class_values);
    uint64_t st = 77;
    for (int64_t i = 0; i < N; i++) {
        for (int j = 0; j < n; j++) x[i * n + j] = (double)(fsvc_rng_next(&st) % 2001) / 1000 - 1;
        d.y[i] = 3 + sin(2 * x[i * n]) + x[i * n + 1] * x[i * n + 2];
    }
    d.x = x;
    fsvc_param p;
    fsvc_param_default(&p);
    p.regression = 1; p.readout = FSVC_READOUT_RIDGE; p.select = FSVC_SELECT_GLOBAL; p.dist = BNL_L2; p.act = BNL_GAUSS; p.radius = 0.3; p.prag = 3.0;
    p.lambda = 1e-6;
    fsvc_model m;
    fsvc_error err;
    assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), 0);
    assert_int_equal(m.Kout, 1);
    double *yh = malloc(N * sizeof *yh), mse, r2;
    assert_int_equal(fsvc_predict(NULL, yh, &m, &d, "cpu", 0, &err), 0);
    fsvc_regression_stats(&mse, &r2, d.y, yh, N);
    if (!(r2 > 0.97)) fail_msg("R^2 = %g, MSE = %g with %lld centroids", r2, mse, (long long)m.m);
    free(yh);
    fsvc_free_model(&m);
    fsvc_dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(onehot),
        cmocka_unit_test(lms),
        cmocka_unit_test(ridge_sparse_f64),
        cmocka_unit_test(ridge_dense_f64),
        cmocka_unit_test(ridge_sparse_f32),
        cmocka_unit_test(ridge_f32_gram),
        cmocka_unit_test(regression),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
