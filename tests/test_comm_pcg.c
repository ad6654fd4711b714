/* test_comm_pcg.c - the PCG ridge readout across processes (fsvc/hcomm.c,
 * the collective points of fsvc/pcg.c, fsvc_readout_solve), with K
 * forked processes standing in for mpirun's (the fsvc_comm of test_comm.c:
 * a process-shared barrier, sums added in rank order):
 *   - fsvc_train_comm with --solver pcg (also regression, --augment) on K = 1..4
 *     slices gives the one-process centroids and readout weights within
 *     1e-6 relative (the stated tolerance: both stop at --cg-tol 1e-8 from
 *     sums added in different orders), the same bytes twice for one K and
 *     the same model on every rank;
 *   - a rank whose product fails in the middle of the iterations stops
 *     every rank (its own message, the others FSVC_COMM_ELSEWHERE);
 *   - ranks whose preconditioners differ (so their recursions would stop at
 *     different iterations) still leave the loop together: no rank waits
 *     forever in a product (an alarm turns a hang into a failure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/comm.h"
#include "tests/util/train_team.h"
#include "fsvc/internal.h"
#include "fsvc/solver.h"

static fsvc_dtype g_dtype = FSVC_F32; /* H's precision */
static double g_tol = 1e-4;           /* --cg-tol (fsvc train's default) */
static int g_regr;                    /* regression on the class values */

static fsvc_augment g_aug; /* the augmentation of every rank and of the one-process model */

/* every rank's parameters: the team's model, solved by pcg */
static void base_param(int r, fsvc_param *p, void *bad_rank)
{
    tt_param(p, r, bad_rank ? *(int *)bad_rank : -1);
    p->dtype = g_dtype;
    p->solver = FSVC_SOLVER_PCG;
    p->cg_tol = g_tol;
    p->regression = g_regr;
    p->augment = g_aug;
    if (bad_rank && r == *(int *)bad_rank) p->backend = "nosuch";
}

/* fsvc_train_comm with pcg on K ranks against fsvc_train with pcg: within
 * bound relative, or (bound 0) within 2.5 x the one-process pcg's own
 * distance from the exact (direct) solution. */
static void match_one_process(fsvc_augment aug, double bound)
{
    const fsvc_dataset *D = tt_set(1);
    g_aug = aug;
    fsvc_param p;
    base_param(0, &p, NULL);
    fsvc_model one;
    fsvc_train_info info;
    fsvc_error err;
    assert_int_equal(fsvc_train(&one, &info, D, &p, &err), 0);
    assert_int_equal(info.solver, FSVC_SOLVER_PCG);
    assert_true(info.cg_converged);
    assert_true(one.m * one.Kout <= TT_MAXR);
    fsvc_model ex; /* the exact solution: the direct solve of the same system */
    fsvc_param pd = p;
    pd.solver = FSVC_SOLVER_DIRECT;
    pd.augment = FSVC_AUG_NONE;
    assert_int_equal(fsvc_train(&ex, NULL, D, &pd, &err), 0);
    double e1 = 0, e0 = 0;
    for (size_t q = 0; q < (size_t)one.m * one.Kout; q++) {
        e1 += (one.R[q] - ex.R[q]) * (one.R[q] - ex.R[q]);
        e0 += ex.R[q] * ex.R[q];
    }
    fsvc_free_model(&ex);
    if (!(bound > 0)) {
        assert_true(e1 > 0); /* pcg stopped short of the exact solution */
        bound = 2.5 * sqrt(e1 / e0);
    }
    for (int K = 1; K <= FT_MAXK; K++) {
        tt_team *T = tt_run(K, base_param, NULL), *T2 = tt_run(K, base_param, NULL);
        assert_non_null(T);
        assert_non_null(T2);
        char why[256]; /* bound: the stated tolerance */
        if (tt_check(T, T2, K, &one, bound, 0, why, sizeof why)) fail_msg("%s", why);
        munmap(T, sizeof *T);
        munmap(T2, sizeof *T2);
    }
    fsvc_free_model(&one);
    g_aug = FSVC_AUG_NONE;
    g_dtype = FSVC_F32;
    g_tol = 1e-4;
    g_regr = 0;
}

/* a tight solve (double H, cg-tol 1e-10): 1e-6 relative */
static void test_pcg_slices_match_one_process(void **state)
{
    g_dtype = FSVC_F64;
    g_tol = 1e-10;
    match_one_process(FSVC_AUG_NONE, 1e-6);
}

/* fsvc train's defaults (float H, cg-tol 1e-4): the sums in another order
 * move the iterates by rounding, so the weights are as close as the solve
 * itself is to the exact solution (observed 1.1 x; the CLI tests check the
 * predictions are identical) */
static void test_pcg_defaults_match_one_process(void **state)
{
    match_one_process(FSVC_AUG_NONE, 0);
}

static void test_pcg_regression_slices_match_one_process(void **state)
{
    g_dtype = FSVC_F64;
    g_tol = 1e-10;
    g_regr = 1;
    match_one_process(FSVC_AUG_NONE, 1e-6);
}

static void test_pcg_augment_slices_match_one_process(void **state)
{
    g_dtype = FSVC_F64;
    g_tol = 1e-10;
    match_one_process(FSVC_AUG_SHIFT1, 1e-6);
}

/* ---- the collective points of pcg.c, on a made-up source ---- */

#define FN 40 /* samples per rank */
#define FM 8  /* centroids */
typedef struct {
    double H[FN * FM];
    int rank, calls, fail_at; /* gram_apply number fail_at fails (0: never) */
    double kdiag;             /* K_mm = kdiag x diag(1 .. FM) */
} fake;

static int f_rhs(void *self, double *B, double *sumsq, fsvc_error *err)
{
    fake *f = self;
    double ss = 0;
    for (int j = 0; j < FM; j++) {
        B[j] = 0;
        for (int i = 0; i < FN; i++) B[j] += f->H[i * FM + j] * (i % 2);
    }
    for (int q = 0; q < FN * FM; q++) ss += f->H[q] * f->H[q];
    *sumsq = ss;
    return 0;
}

static int f_gram(void *self, double *Y, const double *V, fsvc_error *err)
{
    fake *f = self;
    if (++f->calls == f->fail_at)
        return fsvc_fail(err, FSVC_ERESOURCE, "rank %d: product %d failed", f->rank, f->calls);
    for (int j = 0; j < FM; j++) Y[j] = 0;
    for (int i = 0; i < FN; i++) {
        double u = 0;
        for (int j = 0; j < FM; j++) u += f->H[i * FM + j] * V[j];
        for (int j = 0; j < FM; j++) Y[j] += f->H[i * FM + j] * u;
    }
    return 0;
}

static int f_kmm(void *self, void *Kmm, int f32, fsvc_error *err)
{
    fake *f = self;
    memset(Kmm, 0, FM * FM * sizeof(double));
    for (int j = 0; j < FM; j++) ((double *)Kmm)[j * FM + j] = f->kdiag * (j + 1);
    return 0;
}

static const fsvc_hops fake_ops = {f_rhs, f_gram, f_kmm, NULL, NULL};

typedef struct { tt_team *T; int fail_rank, fail_at, odd_kmm; } fake_job;

/* rank r: pcg on its fake slice, the outcome in T->out[r] */
static void fake_rank(int r, void *arg)
{
    fake_job *j = arg;
    tt_team *T = j->T;
    ft_member me = {&T->c, r};
    fsvc_comm comm = ft_fsvc_comm(&me);
    fake f = {{0}, r, 0, r == j->fail_rank ? j->fail_at : 0, j->odd_kmm && r == 1 ? 0.01 : 1};
    uint64_t st = 11 + (uint64_t)r;
    for (int q = 0; q < FN * FM; q++) f.H[q] = (double)(fsvc_rng_next(&st) % 1000) / 1000;
    /* rank r counts FN + r samples (as weights would make it): the summed
     * source's N, the preconditioner's, is the sum over the ranks */
    /* and a bf16 rounding error sum of (r + 1) 2^-40 (exact in the sum) */
    fsvc_hsrc loc = {&fake_ops, &f, FM, FN + r, 1, 0, 0, NULL, 0, NULL, ldexp(r + 1, -40)},
              all; /* ctx NULL: one thread */
    fsvc_error err;
    fsvc_error_clear(&err);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.0, BNL_PREC_FULL};
    fsvc_pcg_opt opt = {1e-9, 1e-14, 500, 0, 0}; /* a tol it cannot reach: many steps */
    fsvc_pcg_out out;
    double W[FM];
    int rc = fsvc_hsrc_sum(&all, &loc, &comm, &err);
    if (!rc) rc = fsvc_pcg_solve(W, &all, &op, &opt, &out, &err);
    int64_t Nsum = (int64_t)FN * T->c.K + (int64_t)T->c.K * (T->c.K - 1) / 2;
    if (!rc && all.N != Nsum)
        rc = fsvc_fail(&err, 98, "rank %d: the summed source counts %lld samples, not %lld", r,
                       (long long)all.N, (long long)Nsum);
    double esum = ldexp((double)T->c.K * (T->c.K + 1) / 2, -40);
    if (!rc && all.h_err2 != esum)
        rc = fsvc_fail(&err, 98, "rank %d: the summed source's h_err2 %g, not %g", r,
                       all.h_err2, esum);
    T->out[r].rc = rc;
    T->out[r].m = rc ? -1 : out.iter;
    snprintf(T->out[r].msg, sizeof T->out[r].msg, "%s", err.msg);
    fsvc_hsrc_close(&all);
}

/* pcg on K ranks of the fake source; rank r's outcome in T->out[r]. */
static tt_team *run_fake(int K, int fail_rank, int fail_at, int odd_kmm)
{
    tt_team *T = ft_shared(sizeof *T);
    assert_non_null(T);
    assert_int_equal(ft_comm_init(&T->c, K), 0);
    fake_job j = {T, fail_rank, fail_at, odd_kmm};
    /* a rank left waiting in a collective is killed after 20 s: a failure */
    if (ft_run(K, 20, fake_rank, &j))
        fail_msg("a rank did not finish: a rank waits in a collective");
    return T;
}

static void test_failing_product_stops_all(void **state)
{
    tt_team *T = run_fake(3, 1, 4, 0);
    assert_int_equal(T->out[1].rc, FSVC_ERESOURCE);
    assert_non_null(strstr(T->out[1].msg, "product 4 failed"));
    for (int r = 0; r < 3; r += 2) {
        assert_int_equal(T->out[r].rc, FSVC_ERESOURCE);
        assert_string_equal(T->out[r].msg, FSVC_COMM_ELSEWHERE);
    }
    munmap(T, sizeof *T);
    /* the first product (H^T T is the right-hand side; this is A W) */
    T = run_fake(2, 0, 1, 0);
    assert_int_equal(T->out[0].rc, FSVC_ERESOURCE);
    assert_string_equal(T->out[1].msg, FSVC_COMM_ELSEWHERE);
    munmap(T, sizeof *T);
}

static void test_ranks_leave_the_loop_together(void **state)
{
    tt_team *T = run_fake(2, -1, 0, 1); /* rank 1 preconditions differently */
    assert_int_equal(T->out[0].rc, 0);
    assert_int_equal(T->out[1].rc, 0);
    assert_true(T->out[0].m > 1);
    assert_int_equal(T->out[0].m, T->out[1].m); /* the same iteration count */
    munmap(T, sizeof *T);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pcg_slices_match_one_process),
        cmocka_unit_test(test_pcg_defaults_match_one_process),
        cmocka_unit_test(test_pcg_regression_slices_match_one_process),
        cmocka_unit_test(test_pcg_augment_slices_match_one_process),
        cmocka_unit_test(test_failing_product_stops_all),
        cmocka_unit_test(test_ranks_leave_the_loop_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
