/* test_augment.c - virtual samples (base/augment.c): the shifted and
 * mirrored images pixel by pixel, the PCG solve with --augment against
 * the direct solve on the same virtual samples written out, and the
 * refusals (no image geometry, the direct solver). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/solver.h"
#include "fsvc/comm.h"

static void variants(void **s)
{
    (void)s;
    enum { R = 3, C = 4 };
    unsigned char img[R * C], out[R * C];
    for (int q = 0; q < R * C; q++) img[q] = (unsigned char)(q + 1);
    assert_int_equal(fsvc_augment_count(FSVC_AUG_NONE), 1);
    assert_int_equal(fsvc_augment_count(FSVC_AUG_SHIFT1), 5);
    assert_int_equal(fsvc_augment_count(FSVC_AUG_SHIFT2), 13);
    assert_int_equal(fsvc_augment_count(FSVC_AUG_MIRROR), 2);
    assert_int_equal(fsvc_augment_count(FSVC_AUG_MIRROR_SHIFT1), 10);
    fsvc_augment_apply(out, img, R, C, 1, FSVC_AUG_SHIFT1, 0);
    assert_memory_equal(out, img, sizeof img);
    /* variant 1: (dy, dx) = (0, 1): one pixel right, column 0 vacated */
    fsvc_augment_apply(out, img, R, C, 1, FSVC_AUG_SHIFT1, 1);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            assert_int_equal(out[r * C + c], c ? img[r * C + c - 1] : 0);
    /* variant 4: (dy, dx) = (-1, 0): one pixel up, the last row vacated */
    fsvc_augment_apply(out, img, R, C, 1, FSVC_AUG_SHIFT1, 4);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            assert_int_equal(out[r * C + c], r < R - 1 ? img[(r + 1) * C + c] : 0);
    /* the mirror */
    fsvc_augment_apply(out, img, R, C, 1, FSVC_AUG_MIRROR, 1);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) assert_int_equal(out[r * C + c], img[r * C + C - 1 - c]);
    /* shift2: 13 different images; float elements move whole */
    unsigned char all[13][R * C];
    for (int v = 0; v < 13; v++) {
        fsvc_augment_apply(all[v], img, R, C, 1, FSVC_AUG_SHIFT2, v);
        for (int w = 0; w < v; w++) assert_true(memcmp(all[v], all[w], R * C) != 0);
    }
    float fi[R * C], fo[R * C];
    for (int q = 0; q < R * C; q++) fi[q] = 0.5f + q;
    fsvc_augment_apply(fo, fi, R, C, sizeof(float), FSVC_AUG_SHIFT2, 5); /* (0, 2) */
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) assert_true(fo[r * C + c] == (c >= 2 ? fi[r * C + c - 2] : 0));
}

/* PCG with augment on N images = direct on the N x V virtual images. */
static void solve_matches_explicit(void **s)
{
    (void)s;
    enum { R = 5, C = 5, n = R * C, N = 120, m = 40, K = 3 };
    fsvc_augment aug = FSVC_AUG_MIRROR_SHIFT1;
    int V = fsvc_augment_count(aug);
    double *X = malloc(N * n * sizeof *X), *Xa = malloc((size_t)N * V * n * sizeof *Xa);
    int cls[N], *ca = malloc((size_t)N * V * sizeof *ca);
    uint64_t st = 7;
    for (int i = 0; i < N; i++) {
        cls[i] = i % K;
        for (int q = 0; q < n; q++)
            X[i * n + q] = (q % (cls[i] + 2) == 0) + (double)(fsvc_rng_next(&st) % 100) / 200;
        for (int v = 0; v < V; v++) {
            fsvc_augment_apply(Xa + ((size_t)i * V + v) * n, X + i * n, R, C, sizeof(double),
                               aug, v);
            ca[i * V + v] = cls[i];
        }
    }
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 0, 0, &err), 0);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.5, BNL_PREC_FULL};
    double Rd[m * K], Rp[m * K];
    fsvc_train_info info;
    fsvc_ridge_problem pa = {&ctx, &op, X, m, Xa, ca, NULL, NULL, (int64_t)N * V,
                             (int64_t)N * V, n, K, fsvc_comm_one(), NULL, NULL};
    fsvc_ridge_problem pb = {&ctx, &op, X, m, X, cls, NULL, NULL, N, N, n, K, fsvc_comm_one(),
                             NULL, NULL};
    fsvc_ridge_opt o = {1e-3, FSVC_SOLVER_DIRECT, 1e-10, FSVC_AUG_NONE, 0, 0, 0, 0, 0};
    int rc = fsvc_readout_solve(Rd, &pa, &o, NULL, &err);
    if (rc) fail_msg("%s", err.msg);
    o = (fsvc_ridge_opt){1e-3, FSVC_SOLVER_AUTO, 1e-10, aug, R, C, 0, 0, 0};
    rc = fsvc_readout_solve(Rp, &pb, &o, &info, &err);
    if (rc) fail_msg("%s", err.msg);
    assert_int_equal(info.solver, FSVC_SOLVER_PCG); /* auto with augment: pcg */
    double scale = 0;
    for (int q = 0; q < m * K; q++) scale = fmax(scale, fabs(Rd[q]));
    for (int q = 0; q < m * K; q++)
        if (!(fabs(Rd[q] - Rp[q]) <= 1e-6 * scale))
            fail_msg("R[%d]: pcg %.10g, direct on the written-out variants %.10g", q, Rp[q], Rd[q]);
    /* the same without augment is a different system */
    o = (fsvc_ridge_opt){1e-3, FSVC_SOLVER_PCG, 1e-10, FSVC_AUG_NONE, R, C, 0, 0, 0};
    rc = fsvc_readout_solve(Rp, &pb, &o, NULL, &err);
    assert_int_equal(rc, 0);
    double diff = 0;
    for (int q = 0; q < m * K; q++) diff = fmax(diff, fabs(Rd[q] - Rp[q]));
    assert_true(diff > 1e-3 * scale);
    /* refusals */
    o = (fsvc_ridge_opt){1e-3, FSVC_SOLVER_PCG, 1e-6, aug, 0, 0, 0, 0, 0};
    rc = fsvc_readout_solve(Rp, &pb, &o, NULL, &err);
    assert_int_equal(rc, FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "needs images"));
    o = (fsvc_ridge_opt){1e-3, FSVC_SOLVER_PCG, 1e-6, aug, 4, 6, 0, 0, 0}; /* 4 x 6 != 25 */
    rc = fsvc_readout_solve(Rp, &pb, &o, NULL, &err);
    assert_int_equal(rc, FSVC_EINPUT);
    o = (fsvc_ridge_opt){1e-3, FSVC_SOLVER_DIRECT, 1e-6, aug, R, C, 0, 0, 0};
    rc = fsvc_readout_solve(Rp, &pb, &o, NULL, &err);
    assert_int_equal(rc, FSVC_EUSAGE);
    bnl_ctx_close(&ctx);
    free(X); free(Xa); free(ca);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(variants),
        cmocka_unit_test(solve_matches_explicit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
