/* test_pcg_weights.c - sample weights in the pcg readout's block products
 * (layers/cpu_hprod.c, bnl.h bnl_hprod_*): with fixed centroids, pcg with
 * integer sample weights w_i solves the system of the data where sample
 * i is written out w_i times; weighted rows never give K_mm from the
 * cached H; on a device the weighted products run on the CPU table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/solver.h"
#include "fsvc/comm.h"
#include "tests/util/emu_device.h"

enum { N = 90, n = 5, K = 3, M = 14 };

typedef struct {
    double X[N * n];
    int cls[N];
    double w[N];        /* integer weights 1..4 */
    double *Xr;         /* each sample w_i times */
    int *cr;
    int64_t Nr;
} data;

static void make(data *d)
{
    uint64_t st = 5;
    d->Nr = 0;
    for (int i = 0; i < N; i++) {
        d->cls[i] = i % K;
        d->w[i] = (double)(1 + fsvc_rng_next(&st) % 4);
        for (int j = 0; j < n; j++)
            d->X[i * n + j] = 0.4 * ((d->cls[i] + j) % 3) + (double)(fsvc_rng_next(&st) % 1000) / 1000;
        d->Nr += (int64_t)d->w[i];
    }
    d->Xr = malloc((size_t)d->Nr * n * sizeof *d->Xr);
    d->cr = malloc((size_t)d->Nr * sizeof *d->cr);
    int64_t r = 0;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < (int)d->w[i]; c++, r++) {
            memcpy(d->Xr + r * n, d->X + i * n, n * sizeof *d->X);
            d->cr[r] = d->cls[i];
        }
}

static const bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.2, BNL_PREC_FULL};

static int pcg(double *R, const bnl_ctx *ctx, const double *X, const int *cls, int64_t Nx,
               const double *sw, double lambda, double tol, fsvc_train_info *info,
               fsvc_error *err)
{
    fsvc_ridge_problem pb = {ctx, &op, X, M, X, cls, NULL, NULL, Nx, Nx, n, K,
                             fsvc_comm_one(), sw, NULL};
    fsvc_ridge_opt o = {lambda, FSVC_SOLVER_PCG, tol, FSVC_AUG_NONE, 0, 0, 0, 0, 0};
    return fsvc_readout_solve(R, &pb, &o, info, err);
}

/* The derived bound on |W1_k - W2_k| for two solutions of A W = B, each
 * within relative residual tol of the exact system, from products with
 * float64 rounding: A's smallest eigenvalue is at least lam, so ||W1_k -
 * W2_k|| <= (||r1|| + ||r2||) / lam with ||r|| <= tol ||B_k|| plus the
 * products' rounding, N m u ||A|| ||W_k|| for each (||A|| <= trace(H^T D
 * H) + lam, u = 2^-53). B, lam, trace from H (bnl_forward) and w. */
static void bounds(const data *d, const bnl_ctx *ctx, double lambda, double tol,
                   const double *R, double *bound)
{
    double *H = malloc((size_t)N * M * sizeof *H);
    fsvc_error err;
    assert_int_equal(bnl_forward(ctx, &op, H, M, d->X, M, d->X, N, n, &err), 0);
    double tr = 0, B[K * M];
    memset(B, 0, sizeof B);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            tr += d->w[i] * H[i * M + j] * H[i * M + j];
            B[d->cls[i] * M + j] += d->w[i] * H[i * M + j];
        }
    double lam = lambda * tr / M, u = 0x1p-53;
    for (int k = 0; k < K; k++) {
        double bn = 0, wn = 0;
        for (int j = 0; j < M; j++) {
            bn += B[k * M + j] * B[k * M + j];
            wn += R[j * K + k] * R[j * K + k];
        }
        bound[k] = (2 * tol * sqrt(bn) + 2 * (double)d->Nr * M * u * (tr + lam) * sqrt(wn)) / lam;
    }
    free(H);
}

static double col_diff(const double *A, const double *B, int k)
{
    double s = 0;
    for (int j = 0; j < M; j++) s += (A[j * K + k] - B[j * K + k]) * (A[j * K + k] - B[j * K + k]);
    return sqrt(s);
}

/* Weighted pcg = pcg on the written-out data, within the derived bound;
 * the unweighted pcg is far outside it (the weights matter here). */
static void weights_are_repeats(void **s)
{
    (void)s;
    data d;
    make(&d);
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 2, 0, &err), 0);
    double lambda = 1e-3, tol = 1e-9, Rw[M * K], Rr[M * K], Ru[M * K], bound[K];
    /* the written-out data's first M rows are not the first M samples:
     * the centroids are the same rows of X in both solves */
    fsvc_train_info iw = {0}, ir = {0};
    int rc = pcg(Rw, &ctx, d.X, d.cls, N, d.w, lambda, tol, &iw, &err);
    if (rc) fail_msg("%s", err.msg);
    fsvc_ridge_problem pb = {&ctx, &op, d.X, M, d.Xr, d.cr, NULL, NULL, d.Nr, d.Nr, n, K,
                             fsvc_comm_one(), NULL, NULL};
    fsvc_ridge_opt o = {lambda, FSVC_SOLVER_PCG, tol, FSVC_AUG_NONE, 0, 0, 0, 0, 0};
    assert_int_equal(fsvc_readout_solve(Rr, &pb, &o, &ir, &err), 0);
    assert_int_equal(pcg(Ru, &ctx, d.X, d.cls, N, NULL, lambda, tol, NULL, &err), 0);
    /* the preconditioner's N is the weight sum, the repeated data's count:
     * the same preconditioned system, so the same number of steps */
    if (iw.cg_iter != ir.cg_iter)
        fail_msg("weighted pcg took %d steps, the repeated data's %d", iw.cg_iter, ir.cg_iter);
    bounds(&d, &ctx, lambda, tol, Rr, bound);
    for (int k = 0; k < K; k++) {
        double e = col_diff(Rw, Rr, k), eu = col_diff(Ru, Rr, k);
        print_message("column %d: weighted - repeated %.3g, bound %.3g; unweighted %.3g\n", k,
                      e, bound[k], eu);
        if (!(e <= bound[k]))
            fail_msg("column %d: weighted pcg is %.3g from the repeated data's (bound %.3g)",
                     k, e, bound[k]);
        assert_true(eu > 100 * bound[k]);
    }
    bnl_ctx_close(&ctx);
    free(d.Xr); free(d.cr);
}

/* K_mm from the cached H only without weighted rows: sample weights take
 * the engine's K_mm as class weights do. */
static void weighted_rows_no_cached_kmm(void **s)
{
    (void)s;
    data d;
    make(&d);
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), 0);
    for (int weighted = 0; weighted <= 1; weighted++) {
        fsvc_ridge_problem pb = {&ctx, &op, d.X, M, d.X, d.cls, NULL, NULL, N, N, n, K,
                                 fsvc_comm_one(), weighted ? d.w : NULL, NULL};
        fsvc_hsrc_opt ho = {FSVC_AUG_NONE, 0, 0, 1, 0, 0, 0};
        fsvc_hsrc src;
        assert_int_equal(fsvc_hsrc_open(&src, &pb, &ho, &err), 0);
        double B[M * K], ss, Kmm[M * M];
        assert_int_equal(src.ops->rhs(src.self, B, &ss, &err), 0);
        assert_int_equal(src.ops->kmm(src.self, Kmm, 0, &err), 0);
        assert_int_equal(src.kmm_cached, !weighted);
        fsvc_hsrc_close(&src);
    }
    bnl_ctx_close(&ctx);
    free(d.Xr); free(d.cr);
}

/* On an (emulated) device the engine runs the products there, and on the
 * CPU table when rows carry sample weights (the device's products take
 * class weights only). */
static void device_takes_no_sample_weights(void **s)
{
    (void)s;
    data d;
    make(&d);
    float Xf[N * n];
    for (int q = 0; q < N * n; q++) Xf[q] = (float)d.X[q];
    bnl_op of = op;
    of.dtype = FSVC_F32;
    emu_device_reset(0, 0, 0);
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open_device(&ctx, emu_device_ops(), 1, 1, &err), 0);
    for (int weighted = 0; weighted <= 1; weighted++) {
        bnl_hprod_problem pb = {&of, Xf, M, Xf, N, n, K, d.cls, NULL, NULL,
                                weighted ? d.w : NULL, FSVC_AUG_NONE, 0, 0, NULL};
        bnl_hprod *h;
        assert_int_equal(bnl_hprod_open(&ctx, &pb, NULL, &h, &err), 0);
        bnl_hprod_stats st;
        bnl_hprod_stats_get(h, &st);
        assert_int_equal(st.device, !weighted);
        assert_int_equal(st.N, N);
        bnl_hprod_close(h);
    }
    bnl_ctx_close(&ctx);
    free(d.Xr); free(d.cr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weights_are_repeats),
        cmocka_unit_test(weighted_rows_no_cached_kmm),
        cmocka_unit_test(device_takes_no_sample_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
