/* test_r2.c - regression figures named right (issue 14 point 14): the
 * coefficient of determination R^2 = 1 - SS_res/SS_tot and the squared
 * correlation coefficient r^2 that svm-predict prints differ; an offset
 * prediction has r^2 = 1 and R^2 < 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "fsvc/fsvc.h"

static void test_offset_prediction(void **state)
{
    (void)state;
    const double y[] = {1, 2, 3, 4}, yhat[] = {2, 3, 4, 5};
    double mse, r2;
    fsvc_regression_stats(&mse, &r2, y, yhat, 4);
    assert_true(fabs(mse - 1) < 1e-12);
    assert_true(fabs(r2 - 0.2) < 1e-12);                       /* 1 - 4/5 */
    assert_true(fabs(fsvc_squared_correlation(y, yhat, 4) - 1) < 1e-12);
}

static void test_known_values(void **state)
{
    (void)state;
    /* r = cov / (sd sd): y = 1..5, yhat = 2,1,4,3,5: r = 0.8, r^2 = 0.64 */
    const double y[] = {1, 2, 3, 4, 5}, yhat[] = {2, 1, 4, 3, 5};
    assert_true(fabs(fsvc_squared_correlation(y, yhat, 5) - 0.64) < 1e-12);
    double mse, r2;
    fsvc_regression_stats(&mse, &r2, y, yhat, 5);
    assert_true(fabs(r2 - 0.6) < 1e-12);                       /* 1 - 4/10 */
    /* anti-correlated: r^2 = 1, R^2 very negative */
    const double z[] = {5, 4, 3, 2, 1};
    assert_true(fabs(fsvc_squared_correlation(y, z, 5) - 1) < 1e-12);
    fsvc_regression_stats(&mse, &r2, y, z, 5);
    assert_true(r2 < -2);
    /* constant prediction: no correlation */
    const double c[] = {3, 3, 3, 3, 3};
    assert_true(fsvc_squared_correlation(y, c, 5) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_prediction),
        cmocka_unit_test(test_known_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
