/*
 * test_cuda_cases.c - the host half of check_kernels' cases (issue 25):
 * tests/cuda/check_kernels.cu runs only on a GPU, so what makes each of
 * its checks able to fail is checked here, on the very data it draws
 * (tests/cuda/ck_cases.h, seeded per case and shape):
 *   - every forward / tile / novelty case: H spans (0, 1) on the reference
 *     and a planted fault (the last k element dropped) fails the case's
 *     per-element tolerance somewhere in H and in the activation sums;
 *   - every readout and LMS case: H spans (0, 1), so H^T H is not 0 and
 *     the ridge's lambda = 1e-3 trace / m is positive (it was 0 at n = 784:
 *     both device solves returned info 1);
 *   - the tolerance is not vacuous: an all-zero H fails it wherever the
 *     reference is not ~0.
 * The guard uses the first 64 samples of each case (all of them below).
 * With the cases as they were (the radii and tolerances of check_kernels
 * before issue 25), 55 of them fail this guard: H all 0 or saturated, or
 * a tolerance wider than any dropped element.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "tests/cuda/ck_cases.h"

/* samples guarded per case: the first 64 (16 under FSVC_TEST_QUICK, the
 * sanitizer run) */
static int64_t ng_max(void) { return getenv("FSVC_TEST_QUICK") ? 16 : 64; }

static bnl_ctx ref;

static int setup(void **s)
{
    (void)s;
    fsvc_error err;
    return bnl_ctx_open(&ref, "ref", 1, 1, &err);
}

static int teardown(void **s)
{
    (void)s;
    bnl_ctx_close(&ref);
    return 0;
}

/* One case at (m, N, n) drawn as check_kernels draws it (W, then X). */
static int guard_one(int table, int ci, int si, const ck_case *c, int64_t m, int64_t N, int n,
                     int sums, int span_only)
{
    uint64_t rs = ck_seed(table, ci, si);
    bnl_op op = ck_op(c, n);
    void *W = ck_fill(m * n, c->t, c->data, &rs), *X = ck_fill(N * n, c->t, c->data, &rs);
    assert_non_null(W);
    assert_non_null(X);
    ck_guard_res r;
    fsvc_error err;
    int64_t ng = N < ng_max() ? N : ng_max();
    int rc = ck_guard(&ref, c, &op, W, m, X, ng, n, &r, &err);
    if (rc) fail_msg("guard: %s", err.msg);
    int ok = span_only ? ck_spans(&r) : ck_guard_ok(&r, sums);
    if (!ok)
        printf("  table %d case %d (%s %s %s %s) m %lld N %lld n %d r %.6g: %lld of %lld "
               "inside (0, 1), fault seen in %lld H, %lld S\n", table, ci,
               fsvc_dtype_name(c->t), bnl_dist_name(c->d), bnl_act_name(c->a),
               bnl_precision_name(c->p), (long long)m, (long long)N, n, op.radius,
               (long long)r.inside, (long long)r.total, (long long)r.fault_h,
               (long long)r.fault_s);
    free(W);
    free(X);
    return ok;
}

static void test_forward_cases(void **s)
{
    (void)s;
    int bad = 0, run = 0;
    for (int c = 0; c < CK_NFWD; c++)
        for (int k = 0; k < CK_NSHAPES; k++) {
            if (ck_shapes[k][2] > ck_fwd_cases[c].max_n)
                continue;
            bad += !guard_one(0, c, k, &ck_fwd_cases[c], ck_shapes[k][0], ck_shapes[k][1],
                              ck_shapes[k][2], 1, 0);
            run++;
        }
    for (int c = 0; c < 3; c++, run++)
        bad += !guard_one(1, c, 0, &ck_tile_cases[c], 1000, 1500, 300, 1, 0);
    printf("  %d forward cases guarded, %d unfit\n", run, bad);
    assert_int_equal(bad, 0);
}

static void test_readout_lms_cases(void **s)
{
    (void)s;
    int bad = 0;
    for (int c = 0; c < 4; c++) {
        for (int k = 0; k < 3; k++)
            bad += !guard_one(2, c, k, &ck_readout_cases[c], ck_readout_shapes[k][0],
                              ck_readout_shapes[k][1], ck_readout_shapes[k][2], 0, 1);
        for (int k = 0; k < 4; k++)
            bad += !guard_one(3, c, k, &ck_lms_cases[c], ck_lms_shapes[k][0],
                              ck_lms_shapes[k][1], ck_lms_shapes[k][2], 0, 1);
    }
    /* the streamed readout and LMS: u8 L1 Gaussian at 300 x 40000 x 784 */
    bad += !guard_one(2, 9, 0, &ck_readout_cases[0], 300, 40000, 784, 0, 1);
    bad += !guard_one(3, 9, 0, &ck_lms_cases[0], 300, 40000, 784, 0, 1);
    assert_int_equal(bad, 0);
}

static void test_novelty_cases(void **s)
{
    (void)s;
    int bad = 0;
    for (int c = 0; c < (int)(sizeof ck_nov_cases / sizeof *ck_nov_cases); c++)
        bad += !guard_one(4, c, 0, &ck_nov_cases[c], CK_NOV_CENTROIDS, CK_NOV_SAMPLES,
                          CK_NOV_N, 1, 0);
    assert_int_equal(bad, 0);
}

/* An all-zero H must fail the tolerance of every case whose reference is
 * not ~0 (the f32 tolerance at n = 4099 passed an all-zero H). */
static void test_zero_output_fails(void **s)
{
    (void)s;
    for (int c = 0; c < CK_NFWD; c++) {
        const ck_case *cc = &ck_fwd_cases[c];
        int n = ck_shapes[6][2] <= cc->max_n ? ck_shapes[6][2] : 784;
        uint64_t rs = ck_seed(5, c, 0);
        bnl_op op = ck_op(cc, n);
        void *W = ck_fill(n, cc->t, cc->data, &rs), *X = ck_fill(n, cc->t, cc->data, &rs);
        double H[1];
        float Hf[1];
        fsvc_error err;
        int rc = bnl_forward(&ref, &op, cc->t == FSVC_F64 ? (void *)H : (void *)Hf, 1, W, 1, X,
                             1, n, &err);
        assert_int_equal(rc, FSVC_OK);
        double h = cc->t == FSVC_F64 ? H[0] : Hf[0];
        double tol = ck_tol(cc, &op, W, X, n);
        if (fabs(h) > 1e-3)
            assert_false(ck_ok(cc, 0.0, h, tol));
        free(W);
        free(X);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_cases),
        cmocka_unit_test(test_readout_lms_cases),
        cmocka_unit_test(test_novelty_cases),
        cmocka_unit_test(test_zero_output_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
