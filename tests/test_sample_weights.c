/* test_sample_weights.c - sample weights (fsvc_dataset.weight,
 * fsvc_ridge_problem.sw): integer weights are the samples repeated (the
 * direct ridge readout on fixed centroids, classes and regression; the
 * whole training; the calibration's temperature), weights of 1 are no
 * weights to the byte, class and sample weights combine as their
 * product, LMS steps eta w_i (against a plain loop), the check at the
 * training entry, and a device context (emulated) keeping the weights. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/calibrate.h"
#include "fsvc/internal.h"
#include "fsvc/solver.h"
#include "tests/util/emu_device.h"

enum { N = 240, M = 30, NF = 5, K = 3 };

typedef struct {
    double X[N * NF], y[N], w[N];
    int cls[N];
    int64_t Nr;             /* rows of the repeated data */
    double *Xr, *yr;        /* each sample i repeated w[i] times */
    int *clsr;
} data;

/* N samples of NF features in K classes, integer weights 1..3 */
static void make(data *D)
{
    uint64_t st = 12345;
    D->Nr = 0;
    for (int i = 0; i < N; i++) {
        D->cls[i] = (int)(fsvc_rng_next(&st) % K);
        for (int j = 0; j < NF; j++)
            D->X[i * NF + j] = D->cls[i] * (j % 2) + (double)(fsvc_rng_next(&st) % 1000) / 400;
        D->y[i] = sin(D->X[i * NF]) + 0.5 * D->X[i * NF + 1];
        D->w[i] = (double)(1 + fsvc_rng_next(&st) % 3);
        D->Nr += (int64_t)D->w[i];
    }
    D->Xr = malloc((size_t)D->Nr * NF * sizeof *D->Xr);
    D->yr = malloc((size_t)D->Nr * sizeof *D->yr);
    D->clsr = malloc((size_t)D->Nr * sizeof *D->clsr);
    int64_t r = 0;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < (int)D->w[i]; c++, r++) {
            memcpy(D->Xr + r * NF, D->X + i * NF, NF * sizeof(double));
            D->yr[r] = D->y[i];
            D->clsr[r] = D->cls[i];
        }
}

static void drop(data *D) { free(D->Xr); free(D->yr); free(D->clsr); }

static bnl_op OP = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.5, BNL_PREC_FULL};

/* R of the direct ridge readout, the centroids fixed: the first M samples */
static void ridge(double *R, const bnl_ctx *ctx, const data *D, int rep, const double *y,
                  const double *cw, const double *sw, int Kc)
{
    fsvc_ridge_problem pb = {.ctx = ctx, .op = &OP, .C = D->X, .m = M,
                             .X = rep ? D->Xr : D->X, .cls = rep ? D->clsr : D->cls,
                             .y = y, .cw = cw, .N = rep ? D->Nr : N, .n = NF, .K = Kc,
                             .sw = sw};
    fsvc_error err;
    if (fsvc_readout_ridge(R, &pb, 1e-4, 0, 0, NULL, &err)) fail_msg("%s", err.msg);
}

/* |a - b| <= tol max|b| over n values */
static void near(const double *a, const double *b, int n, double tol, const char *what)
{
    double scale = 0, worst = 0;
    for (int q = 0; q < n; q++) scale = fmax(scale, fabs(b[q]));
    for (int q = 0; q < n; q++) worst = fmax(worst, fabs(a[q] - b[q]));
    if (!(worst <= tol * scale))
        fail_msg("%s: differs by %.3g (scale %.3g, tolerance %.3g)", what, worst, scale, tol);
}

/* The normal equations of the weights and of the repetition are the same
 * sums in another order: float64 rounding (1e-16) times the condition
 * number of H^T H + lam I (lambda 1e-4 relative: about 1e4) is 1e-12;
 * 1e-9 leaves room and still fails any weight applied wrongly (O(1)). */
static void repeat_is_weight(void **st)
{
    (void)st;
    data D;
    make(&D);
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), 0);
    double Rw[M * K], Rr[M * K], R0[M * K];
    ridge(Rw, &ctx, &D, 0, NULL, NULL, D.w, K);
    ridge(Rr, &ctx, &D, 1, NULL, NULL, NULL, K);
    ridge(R0, &ctx, &D, 0, NULL, NULL, NULL, K);
    near(Rw, Rr, M * K, 1e-9, "classes: weights vs repetition");
    double diff = 0;
    for (int q = 0; q < M * K; q++) diff = fmax(diff, fabs(Rw[q] - R0[q]));
    assert_true(diff > 1e-3); /* the weights did something */
    /* regression: the single column y */
    ridge(Rw, &ctx, &D, 0, D.y, NULL, D.w, 1);
    ridge(Rr, &ctx, &D, 1, D.yr, NULL, NULL, 1);
    near(Rw, Rr, M, 1e-9, "regression: weights vs repetition");
    bnl_ctx_close(&ctx);
    drop(&D);
}

/* Weights of 1 multiply by 1.0: the same bytes as no weights, f64 and f32 */
static void ones_same_bytes(void **st)
{
    (void)st;
    data D;
    make(&D);
    double ones[N];
    for (int i = 0; i < N; i++) ones[i] = 1;
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 0, 0, &err), 0);
    double Ra[M * K], Rb[M * K];
    ridge(Ra, &ctx, &D, 0, NULL, NULL, ones, K);
    ridge(Rb, &ctx, &D, 0, NULL, NULL, NULL, K);
    assert_memory_equal(Ra, Rb, sizeof Ra);
    ridge(Ra, &ctx, &D, 0, D.y, NULL, ones, 1);
    ridge(Rb, &ctx, &D, 0, D.y, NULL, NULL, 1);
    assert_memory_equal(Ra, Rb, M * sizeof *Ra);
    float Xf[N * NF];
    for (int q = 0; q < N * NF; q++) Xf[q] = (float)D.X[q];
    bnl_op of = OP;
    of.dtype = FSVC_F32;
    fsvc_ridge_problem pb = {.ctx = &ctx, .op = &of, .C = Xf, .m = M, .X = Xf, .cls = D.cls,
                             .N = N, .n = NF, .K = K, .sw = ones};
    assert_int_equal(fsvc_readout_ridge(Ra, &pb, 1e-4, -1, 0, NULL, &err), 0);
    pb.sw = NULL;
    assert_int_equal(fsvc_readout_ridge(Rb, &pb, 1e-4, -1, 0, NULL, &err), 0);
    assert_memory_equal(Ra, Rb, sizeof Ra);
    bnl_ctx_close(&ctx);
    drop(&D);
}

/* Class weights cw and sample weights sw: row i scaled by sqrt(cw[cls_i]
 * sw[i]), the model of the product as sample weights alone, to the byte */
static void class_times_sample(void **st)
{
    (void)st;
    data D;
    make(&D);
    double cw[K] = {0.5, 2.0, 3.0}, prod[N];
    for (int i = 0; i < N; i++) prod[i] = cw[D.cls[i]] * D.w[i];
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), 0);
    double Ra[M * K], Rb[M * K], Rc[M * K];
    ridge(Ra, &ctx, &D, 0, NULL, cw, D.w, K);
    ridge(Rb, &ctx, &D, 0, NULL, NULL, prod, K);
    assert_memory_equal(Ra, Rb, sizeof Ra);
    ridge(Rc, &ctx, &D, 0, NULL, cw, NULL, K); /* either alone is another model */
    double diff = 0;
    for (int q = 0; q < M * K; q++) diff = fmax(diff, fabs(Ra[q] - Rc[q]));
    assert_true(diff > 1e-3);
    bnl_ctx_close(&ctx);
    drop(&D);
}

/* LMS: sample i's step is eta w_i, against the plain loop over H */
static void lms_weighted(void **st)
{
    (void)st;
    data D;
    make(&D);
    bnl_ctx ctx, ref;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 0, 0, &err), 0);
    assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 1, &err), 0);
    double *H = malloc((size_t)N * M * sizeof *H);
    assert_int_equal(bnl_forward(&ref, &OP, H, M, D.X, M, D.X, N, NF, &err), 0);
    double R[M * K], W[M * K], R1[M * K], e[K], eta = 0.02;
    int lab[M];
    for (int j = 0; j < M; j++) lab[j] = D.cls[j];
    fsvc_readout_onehot(W, lab, M, K);
    memcpy(R, W, sizeof R);
    memcpy(R1, W, sizeof R);
    for (int ep = 0; ep < 2; ep++)
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < K; k++) {
                e[k] = D.cls[i] == k;
                for (int j = 0; j < M; j++) e[k] -= H[i * M + j] * W[j * K + k];
            }
            for (int j = 0; j < M; j++)
                for (int k = 0; k < K; k++) W[j * K + k] += eta * D.w[i] * H[i * M + j] * e[k];
        }
    fsvc_ridge_problem pb = {.ctx = &ctx, .op = &OP, .C = D.X, .m = M, .X = D.X,
                             .cls = D.cls, .N = N, .n = NF, .K = K, .sw = D.w};
    assert_int_equal(fsvc_readout_lms(R, &pb, eta, 2, 0, &err), 0);
    near(R, W, M * K, 1e-12, "weighted LMS vs the plain loop");
    pb.sw = NULL;
    assert_int_equal(fsvc_readout_lms(R1, &pb, eta, 2, 0, &err), 0);
    double diff = 0;
    for (int q = 0; q < M * K; q++) diff = fmax(diff, fabs(R[q] - R1[q]));
    assert_true(diff > 1e-4); /* weights change the LMS readout */
    bnl_ctx_close(&ctx);
    bnl_ctx_close(&ref);
    free(H);
    drop(&D);
}

/* The whole training: appended copies of a sample are never novel after
 * it (their activation sums only grow), so with a given radius the
 * repeated data selects the same centroids and its readout is the
 * weighted one's (the regression offset: the weighted mean). */
static fsvc_dataset view(double *X, double *y, int64_t n, double *w)
{
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = n; d.n = NF; d.dtype = FSVC_F64; d.x = X; d.y = y; d.has_labels = 1;
    d.weight = w;
    snprintf(d.source, sizeof d.source, "mem");
    return d;
}

static void train_repeat(int regression)
{
    data D;
    make(&D);
    double yc[N]; /* the labels: targets, or class indices as values */
    for (int i = 0; i < N; i++) yc[i] = regression ? D.y[i] : D.cls[i];
    double *Xa = malloc((size_t)D.Nr * NF * sizeof *Xa), *ya = malloc((size_t)D.Nr * sizeof *ya);
    memcpy(Xa, D.X, sizeof D.X); /* the samples, then their extra copies */
    memcpy(ya, yc, sizeof yc);
    int64_t r = N;
    for (int i = 0; i < N; i++)
        for (int c = 1; c < (int)D.w[i]; c++, r++) {
            memcpy(Xa + r * NF, D.X + i * NF, NF * sizeof(double));
            ya[r] = yc[i];
        }
    fsvc_dataset a = view(D.X, yc, N, D.w), b = view(Xa, ya, D.Nr, NULL);
    fsvc_error err;
    if (!regression)
        assert_int_equal(fsvc_dataset_index_classes(&a, &err) ||
                         fsvc_dataset_index_classes(&b, &err), 0);
    fsvc_param p;
    fsvc_param_default(&p);
    p.regression = regression;
    p.radius = 1.5;
    p.select = FSVC_SELECT_GLOBAL; /* the novelty pass, in file order */
    p.dtype = FSVC_F64; /* f32 H scaled by sqrt(w) rounds to f32: 1e-7 */
    p.lambda = 1e-4;
    p.solver = FSVC_SOLVER_DIRECT;
    p.probability = 0;
    p.threads = 1;
    fsvc_model ma, mb;
    if (fsvc_train(&ma, NULL, &a, &p, &err)) fail_msg("%s", err.msg);
    if (fsvc_train(&mb, NULL, &b, &p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(ma.m, mb.m);
    assert_true(ma.m > 5 && ma.m < N);
    near(ma.R, mb.R, (int)(ma.m * ma.Kout), 1e-9, "training: weights vs repetition");
    assert_true(fabs(ma.y_offset - mb.y_offset) <= 1e-12 * (1 + fabs(mb.y_offset)));
    fsvc_free_model(&ma);
    fsvc_free_model(&mb);
    if (!regression) {
        free(a.cls); free(a.class_values); free(b.cls); free(b.class_values);
    }
    free(Xa); free(ya);
    drop(&D);
}

static void train_classes_repeat(void **st) { (void)st; train_repeat(0); }
static void train_regression_repeat(void **st) { (void)st; train_repeat(1); }

/* The temperature with integer weights is the repeated scores' */
static void calib_repeat(void **st)
{
    (void)st;
    data D;
    make(&D);
    double *S = malloc((size_t)N * K * sizeof *S), *Sr = malloc((size_t)D.Nr * K * sizeof *Sr);
    uint64_t s = 99;
    int64_t r = 0;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < K; k++)
            S[i * K + k] = (k == D.cls[i]) * 0.3 + (double)(fsvc_rng_next(&s) % 1000) / 2000;
        for (int c = 0; c < (int)D.w[i]; c++, r++)
            memcpy(Sr + r * K, S + i * K, K * sizeof *S);
    }
    double aw = fsvc_calib_fit(S, D.cls, D.w, N, K), ar = fsvc_calib_fit(Sr, D.clsr, NULL, D.Nr, K);
    double a0 = fsvc_calib_fit(S, D.cls, NULL, N, K);
    assert_true(aw > 0);
    if (!(fabs(aw - ar) <= 1e-8 * ar)) fail_msg("temperature %.17g, repeated %.17g", aw, ar);
    assert_true(fabs(aw - a0) > 1e-6 * a0); /* the weights count */
    free(S); free(Sr);
    drop(&D);
}

/* The check at the training entry names the data and the sample */
static void bad_weights(void **st)
{
    (void)st;
    data D;
    make(&D);
    double yc[N];
    for (int i = 0; i < N; i++) yc[i] = D.cls[i];
    fsvc_param p;
    fsvc_param_default(&p);
    p.radius = 1.5;
    fsvc_error err;
    double bad[] = {0, -1, NAN, INFINITY};
    for (int t = 0; t < 4; t++) {
        fsvc_dataset a = view(D.X, yc, N, D.w);
        assert_int_equal(fsvc_dataset_index_classes(&a, &err), 0);
        double keep = D.w[7];
        D.w[7] = bad[t];
        fsvc_model m;
        assert_int_equal(fsvc_train(&m, NULL, &a, &p, &err), FSVC_EINPUT);
        if (!strstr(err.msg, "mem: sample 8 has weight") || !strstr(err.msg, "> 0"))
            fail_msg("%s", err.msg);
        D.w[7] = keep;
        free(a.cls); free(a.class_values);
    }
    drop(&D);
}

/* On a device context (the emulated cuda table) the weights are not
 * dropped: the direct solve's sums and the LMS epoch run on the CPU
 * table (H still from the context's forward), and give the CPU
 * context's readout; without weights the device's own accumulate runs. */
static void device_context(void **st)
{
    (void)st;
    data D;
    make(&D);
    float Xf[N * NF];
    for (int q = 0; q < N * NF; q++) Xf[q] = (float)D.X[q];
    bnl_op of = OP;
    of.dtype = FSVC_F32;
    bnl_ctx cpu, dev;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 1, 0, &err), 0);
    assert_int_equal(bnl_ctx_open_device(&dev, emu_device_ops(), 1, 1, &err), 0);
    fsvc_ridge_problem pb = {.ctx = &dev, .op = &of, .C = Xf, .m = M, .X = Xf, .cls = D.cls,
                             .N = N, .n = NF, .K = K, .sw = D.w};
    double Rd[M * K], Rc[M * K], R0[M * K];
    assert_int_equal(fsvc_readout_ridge(Rd, &pb, 1e-2, 0, 0, NULL, &err), 0);
    pb.ctx = &cpu;
    assert_int_equal(fsvc_readout_ridge(Rc, &pb, 1e-2, 0, 0, NULL, &err), 0);
    pb.ctx = &dev;
    pb.sw = NULL;
    assert_int_equal(fsvc_readout_ridge(R0, &pb, 1e-2, 0, 0, NULL, &err), 0);
    /* two forwards' f32 H (1e-7 apart) times the condition number (about
     * 1e2 at lambda 1e-2): 1e-5; weights dropped would be O(1e-1) */
    near(Rd, Rc, M * K, 1e-4, "ridge on a device context vs the CPU's");
    double diff = 0;
    for (int q = 0; q < M * K; q++) diff = fmax(diff, fabs(Rd[q] - R0[q]));
    assert_true(diff > 1e-3);
    int lab[M];
    for (int j = 0; j < M; j++) lab[j] = D.cls[j];
    fsvc_readout_onehot(Rd, lab, M, K);
    memcpy(Rc, Rd, sizeof Rc);
    pb.sw = D.w;
    assert_int_equal(fsvc_readout_lms(Rd, &pb, 0.02, 2, 0, &err), 0);
    pb.ctx = &cpu;
    assert_int_equal(fsvc_readout_lms(Rc, &pb, 0.02, 2, 0, &err), 0);
    near(Rd, Rc, M * K, 1e-4, "LMS on a device context vs the CPU's");
    bnl_ctx_close(&dev);
    bnl_ctx_close(&cpu);
    drop(&D);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repeat_is_weight),
        cmocka_unit_test(ones_same_bytes),
        cmocka_unit_test(class_times_sample),
        cmocka_unit_test(lms_weighted),
        cmocka_unit_test(train_classes_repeat),
        cmocka_unit_test(train_regression_repeat),
        cmocka_unit_test(calib_repeat),
        cmocka_unit_test(bad_weights),
        cmocka_unit_test(device_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
