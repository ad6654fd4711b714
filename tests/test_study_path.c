/* test_study_path.c - the ridge readout over several lambdas (fsvc/study_path.c,
 * fsvc_cross_validate_lambdas in fsvc/cv.c): the same centroids and, within
 * the CG tolerance, the same readouts as fsvc_train for each lambda; the
 * warm-started sequence needs fewer CG iterations than cold starts; CV per
 * lambda as fsvc_cross_validate; a failing lambda does not stop the others. */
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
#include "tests/util/emu_device.h"

/* Three overlapping classes in 6-D (f32), so that the readout matters. */
static void make_data(fsvc_dataset *d, int64_t N)
{
    memset(d, 0, sizeof *d);
    d->N = N; d->n = 6; d->dtype = FSVC_F32; d->has_labels = 1; d->K = 3;
    float *x = malloc((size_t)N * 6 * sizeof *x);
    d->y = malloc((size_t)N * sizeof *d->y);
    d->cls = malloc((size_t)N * sizeof *d->cls);
    d->class_values = malloc(3 * sizeof *d->class_values);
    for (int k = 0; k < 3; k++) d->class_values[k] = k;
    uint64_t s = 777;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)((i * 7) % 3);
        for (int j = 0; j < 6; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(s >> 11) / 9007199254740992.0;
            x[6 * i + j] = (float)(2.0 * u + (j == k ? 1.2 : 0) + (j == (k + 1) % 3 ? 0.4 : 0));
        }
        d->cls[i] = k;
        d->y[i] = k;
    }
    d->x = x;
    snprintf(d->source, sizeof d->source, "overlap");
}

static void params(fsvc_param *p)
{
    fsvc_param_default(p);
    p->select = FSVC_SELECT_RANDOM;
    p->max_neurons = 150;
    p->radius = 0;
    p->radius_rms = 0.5;
    p->preprocess = FSVC_PRE_NONE;
    p->readout = FSVC_READOUT_RIDGE;
    p->solver = FSVC_SOLVER_PCG;
    p->cg_tol = 1e-10;
    p->threads = 1;
    p->seed = 3;
    p->dtype = FSVC_F64; /* H in double: CG reaches tight tolerances */
}

/* max |a - b| / max |b| over m x K values */
static double rel_diff(const double *a, const double *b, size_t n)
{
    double d = 0, mx = 0;
    for (size_t q = 0; q < n; q++) {
        if (fabs(a[q] - b[q]) > d) d = fabs(a[q] - b[q]);
        if (fabs(b[q]) > mx) mx = fabs(b[q]);
    }
    return mx > 0 ? d / mx : d;
}

static const double LAMS[4] = {1e-4, 1e-2, 1e-6, 1e-3}; /* not sorted on purpose */

static void test_path_equals_train(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_data(&d, 600);
    fsvc_param p;
    params(&p);
    fsvc_lambda_path path;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (fsvc_train_lambdas(&path, &d, &p, LAMS, 4, 1, &err)) fail_msg("%s", err.msg);
    int *pa = malloc((size_t)d.N * sizeof *pa), *pb = malloc((size_t)d.N * sizeof *pb);
    double *sa = malloc((size_t)d.N * 3 * sizeof *sa), *sb = malloc((size_t)d.N * 3 * sizeof *sb);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(path.status[i], FSVC_OK);
        fsvc_param q = p;
        q.lambda = LAMS[i];
        fsvc_model m;
        fsvc_train_info info;
        assert_int_equal(fsvc_train(&m, &info, &d, &q, &err), FSVC_OK);
        fsvc_model v = fsvc_lambda_model(&path, i);
        /* the same centroids */
        assert_int_equal(v.m, m.m);
        assert_true(v.radius == m.radius);
        assert_memory_equal(v.C, m.C, (size_t)m.m * d.n * sizeof(double));
        assert_int_equal(path.info[i].solver, FSVC_SOLVER_PCG);
        assert_true(path.info[i].cg_converged && path.info[i].cg_res <= p.cg_tol);
        /* the same readout within the tolerance, the same predictions */
        double rd = rel_diff(v.R, m.R, (size_t)m.m * 3);
        if (rd > 1e-5) fail_msg("lambda %g: readouts differ by %g", LAMS[i], rd);
        assert_int_equal(fsvc_predict(pa, sa, &v, &d, "cpu", 1, &err), FSVC_OK);
        assert_int_equal(fsvc_predict(pb, sb, &m, &d, "cpu", 1, &err), FSVC_OK);
        assert_memory_equal(pa, pb, (size_t)d.N * sizeof *pa);
        double sd = rel_diff(sa, sb, (size_t)d.N * 3);
        if (sd > 1e-6) fail_msg("lambda %g: scores differ by %g", LAMS[i], sd);
        fsvc_free_model(&m);
    }
    /* solved largest first, each from the previous (larger) lambda */
    assert_true(path.warm_from[1] == 0);      /* 1e-2 */
    assert_true(path.warm_from[3] == 1e-2);   /* 1e-3 */
    assert_true(path.warm_from[0] == 1e-3);   /* 1e-4 */
    assert_true(path.warm_from[2] == 1e-4);   /* 1e-6 */
    free(pa); free(pb); free(sa); free(sb);
    fsvc_lambda_path_free(&path);
    fsvc_dataset_free(&d);
}

static void test_warm_needs_fewer_iterations(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_data(&d, 600);
    fsvc_param p;
    params(&p);
    p.cg_tol = 1e-8;
    static const double lam[5] = {1e-4, 3e-5, 1e-5, 3e-6, 1e-6};
    fsvc_lambda_path warm, cold;
    fsvc_error err;
    if (fsvc_train_lambdas(&warm, &d, &p, lam, 5, 1, &err)) fail_msg("%s", err.msg);
    if (fsvc_train_lambdas(&cold, &d, &p, lam, 5, 0, &err)) fail_msg("%s", err.msg);
    int iw = 0, ic = 0;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(warm.status[i], FSVC_OK);
        assert_int_equal(cold.status[i], FSVC_OK);
        assert_true(cold.warm_from[i] == 0);
        assert_true(warm.info[i].cg_res <= p.cg_tol && cold.info[i].cg_res <= p.cg_tol);
        double rd = rel_diff(warm.R[i], cold.R[i], (size_t)warm.model.m * 3);
        if (rd > 1e-3) fail_msg("lambda %g: warm and cold differ by %g", lam[i], rd);
        iw += warm.info[i].cg_iter;
        ic += cold.info[i].cg_iter;
    }
    /* the first lambda starts from zero either way; the rest start near */
    assert_int_equal(warm.info[0].cg_iter, cold.info[0].cg_iter);
    if (!(iw < ic)) fail_msg("warm %d iterations, cold %d: no saving", iw, ic);
    print_message("cg iterations: warm %d, cold %d\n", iw, ic);
    fsvc_lambda_path_free(&warm);
    fsvc_lambda_path_free(&cold);
    fsvc_dataset_free(&d);
}

static void test_cv_lambdas_equal_cv(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_data(&d, 450);
    fsvc_param p;
    params(&p);
    fsvc_cv_result r[4];
    fsvc_error err;
    fsvc_lambda_set ls = {LAMS, 4, 1};
    if (fsvc_cross_validate_lambdas(r, &d, &p, &ls, 3, 5, &err)) fail_msg("%s", err.msg);
    for (int i = 0; i < 4; i++) {
        fsvc_param q = p;
        q.lambda = LAMS[i];
        fsvc_cv_result c;
        assert_int_equal(fsvc_cross_validate(&c, &d, &q, 3, 5, &err), FSVC_OK);
        assert_int_equal(r[i].status, FSVC_OK);
        assert_int_equal(r[i].nfold, 3);
        for (int f = 0; f < 3; f++) assert_true(r[i].acc[f] == c.acc[f]);
        assert_true(r[i].acc_mean == c.acc_mean);
        assert_true(r[i].m_mean == c.m_mean);
        assert_true(r[i].cg_iter > 0 && c.cg_iter > 0);
    }
    assert_true(r[0].acc_mean < 1.0 && r[0].acc_mean > 0.5); /* overlap: a real task */
    fsvc_dataset_free(&d);
}

/* solver auto with few centroids resolves to direct, as fsvc_train does:
 * the selection is shared, every readout is fsvc_train's own solve */
static void test_auto_direct(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_data(&d, 300);
    fsvc_param p;
    params(&p);
    p.solver = FSVC_SOLVER_AUTO;
    fsvc_lambda_path path;
    fsvc_error err;
    if (fsvc_train_lambdas(&path, &d, &p, LAMS, 2, 1, &err)) fail_msg("%s", err.msg);
    for (int i = 0; i < 2; i++) {
        fsvc_param q = p;
        q.lambda = LAMS[i];
        fsvc_model m;
        fsvc_train_info info;
        assert_int_equal(fsvc_train(&m, &info, &d, &q, &err), FSVC_OK);
        assert_int_equal(path.info[i].solver, FSVC_SOLVER_DIRECT);
        assert_true(path.warm_from[i] == 0);
        double rd = rel_diff(path.R[i], m.R, (size_t)m.m * 3);
        if (rd > 1e-12) fail_msg("direct: differ by %g", rd);
        fsvc_free_model(&m);
    }
    fsvc_lambda_path_free(&path);
    fsvc_dataset_free(&d);
}

/* On a device (the emulated one, through fsvc_param.device): auto
 * follows the device's rule (pcg: its float64 Gram does not fit the
 * memory given) and the path's products run there: H^T T once for all
 * lambdas, H^T (H V) per iteration. */
static void test_device_path(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_data(&d, 300);
    fsvc_param p;
    params(&p);
    p.dtype = FSVC_F32;
    p.cg_tol = 1e-5;
    p.solver = FSVC_SOLVER_AUTO;
    p.backend = "cuda";
    p.device = emu_device_ops();
    emu_device_reset(200000, 0, 0); /* bytes: below 2 x 8 x 150^2 */
    fsvc_lambda_path path;
    fsvc_error err;
    if (fsvc_train_lambdas(&path, &d, &p, LAMS, 2, 1, &err)) fail_msg("%s", err.msg);
    emu_stats st = emu_device_stats();
    for (int i = 0; i < 2; i++) {
        assert_int_equal(path.status[i], FSVC_OK);
        assert_int_equal(path.info[i].solver, FSVC_SOLVER_PCG);
    }
    assert_int_equal(st.rhs, 1);
    assert_true(st.apply >= path.info[0].cg_iter + path.info[1].cg_iter);
    fsvc_lambda_path_free(&path);
    fsvc_dataset_free(&d);
}

static void test_refused_and_failing(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_data(&d, 300);
    fsvc_param p;
    params(&p);
    fsvc_lambda_path path;
    fsvc_error err;
    fsvc_param q = p;
    q.solver = FSVC_SOLVER_DIRECT;
    assert_int_equal(fsvc_train_lambdas(&path, &d, &q, LAMS, 2, 1, &err), FSVC_EUSAGE);
    q = p;
    q.readout = FSVC_READOUT_LMS;
    assert_int_equal(fsvc_train_lambdas(&path, &d, &q, LAMS, 2, 1, &err), FSVC_EUSAGE);
    assert_false(fsvc_lambda_path_applies(&d, &q));
    q = p;
    snprintf(q.class_weight, sizeof q.class_weight, "balanced");
    assert_false(fsvc_lambda_path_applies(&d, &q));
    q = p;
    snprintf(q.class_weight, sizeof q.class_weight, "none"); /* the same as no weights */
    assert_true(fsvc_lambda_path_applies(&d, &q));
    assert_int_equal(fsvc_train_lambdas(&path, &d, &q, LAMS, 2, 1, &err), FSVC_OK);
    fsvc_lambda_path_free(&path);
    static const double bad[2] = {1e-3, -1};
    assert_int_equal(fsvc_train_lambdas(&path, &d, &p, bad, 2, 1, &err), FSVC_EUSAGE);
    /* a lambda whose solve fails is noted; the one after it starts from 0 */
    static const double lam[3] = {1e-2, 1e-300, 1e-3};
    p.cg_tol = 1e-12;
    if (fsvc_train_lambdas(&path, &d, &p, lam, 3, 1, &err)) fail_msg("%s", err.msg);
    assert_int_equal(path.status[0], FSVC_OK);
    assert_int_equal(path.status[2], FSVC_OK);
    if (path.status[1] == FSVC_OK) { /* converged anyway: then it is warm */
        assert_true(path.warm_from[1] == 1e-3);
    } else {
        assert_int_equal(path.status[1], FSVC_EINPUT);
        assert_non_null(strstr(path.msg[1], "overlap: "));
    }
    fsvc_lambda_path_free(&path);
    fsvc_dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_equals_train),
        cmocka_unit_test(test_warm_needs_fewer_iterations),
        cmocka_unit_test(test_cv_lambdas_equal_cv),
        cmocka_unit_test(test_auto_direct),
        cmocka_unit_test(test_device_path),
        cmocka_unit_test(test_refused_and_failing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
