/* test_model_regression.c - a regression model (ridge on real targets,
 * centred by y_offset = mean(y) != 0) through the library: the offset is
 * the targets' mean, predictions come back near the targets (so the offset
 * is applied), and a saved then loaded model has the same regression flag,
 * Kout, y_offset bits and the same predictions bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

enum { N = 400, NF = 3 };

/* x in [0, 1)^3 from a small LCG, y = 50 + 10 x0 - 5 x1 + 2 x0 x2. */
static void make_data(fsvc_dataset *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->source, sizeof d->source, "regression-fixture");
    d->N = N;
    d->n = NF;
    d->dtype = FSVC_F64;
    d->has_labels = 1;
    double *x = malloc(N * NF * sizeof *x);
    d->y = malloc(N * sizeof *d->y);
    assert_non_null(x);
    assert_non_null(d->y);
    uint32_t s = 12345;
    for (int i = 0; i < N * NF; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (double)(s >> 8) / 16777216.0;
    }
    for (int i = 0; i < N; i++) {
        const double *r = x + i * NF;
        d->y[i] = 50 + 10 * r[0] - 5 * r[1] + 2 * r[0] * r[2];
    }
    d->x = x;
    fsvc_error err;
    assert_int_equal(fsvc_dataset_index_classes(d, &err), FSVC_OK);
}

static void y_offset_round_trip(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_data(&d);
    fsvc_param p;
    fsvc_param_default(&p);
    p.regression = 1;
    p.readout = FSVC_READOUT_RIDGE;
    p.dist = 1; /* L2 */
    p.act = 1;  /* Gaussian */
    p.radius = 0.5;
    p.select = FSVC_SELECT_RANDOM;
    p.max_neurons = 60;
    p.preprocess = FSVC_PRE_NONE;
    p.dtype = FSVC_F64;
    fsvc_model m;
    fsvc_error err;
    if (fsvc_train(&m, NULL, &d, &p, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(m.regression, 1);
    assert_int_equal(m.Kout, 1);
    double mean = 0;
    for (int i = 0; i < N; i++)
        mean += d.y[i];
    mean /= N;
    assert_true(mean > 45);
    if (!(fabs(m.y_offset - mean) <= 1e-12 * mean))
        fail_msg("y_offset %.17g, mean of the targets %.17g", m.y_offset, mean);

    /* predictions near the targets: the offset is applied */
    double *s1 = malloc(N * sizeof *s1), *s2 = malloc(N * sizeof *s2);
    assert_non_null(s1);
    assert_non_null(s2);
    assert_int_equal(fsvc_predict(NULL, s1, &m, &d, "cpu", 1, &err), FSVC_OK);
    double mae = 0;
    for (int i = 0; i < N; i++)
        mae += fabs(s1[i] - d.y[i]);
    mae /= N;
    if (!(mae < 0.5))
        fail_msg("mean absolute error %g on the training set (targets around %g)", mae, mean);

    /* save, load: the same model, the same predictions bit for bit */
    char *dir = fx_tmpdir(), path[4200];
    assert_non_null(dir);
    fx_join(path, sizeof path, dir, "reg.fsvc");
    assert_int_equal(fsvc_model_save(&m, path, &err), FSVC_OK);
    fsvc_model l;
    if (fsvc_model_load(&l, path, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(l.regression, 1);
    assert_int_equal(l.Kout, 1);
    assert_int_equal(l.m, m.m);
    assert_memory_equal(&l.y_offset, &m.y_offset, sizeof m.y_offset);
    assert_memory_equal(l.R, m.R, (size_t)m.m * sizeof *m.R);
    assert_int_equal(fsvc_predict(NULL, s2, &l, &d, "cpu", 1, &err), FSVC_OK);
    assert_memory_equal(s1, s2, N * sizeof *s1);

    /* the loaded offset is the one used: another offset, saved and loaded,
     * moves every prediction by the difference */
    m.y_offset += 1000;
    assert_int_equal(fsvc_model_save(&m, path, &err), FSVC_OK);
    fsvc_free_model(&l);
    assert_int_equal(fsvc_model_load(&l, path, &err), FSVC_OK);
    assert_int_equal(fsvc_predict(NULL, s2, &l, &d, "cpu", 1, &err), FSVC_OK);
    for (int i = 0; i < N; i++)
        if (!(fabs(s2[i] - s1[i] - 1000) <= 1e-9))
            fail_msg("sample %d: %.17g after moving the offset by 1000, %.17g before", i,
                     s2[i], s1[i]);

    fsvc_free_model(&l);
    fsvc_free_model(&m);
    fsvc_dataset_free(&d);
    free(s1);
    free(s2);
    fx_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(y_offset_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
