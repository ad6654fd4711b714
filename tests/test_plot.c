/* test_plot.c - the plotting helper of tools/ (built into this test from
 * its source): the Pareto front, PNGs drawn by gnuplot, errors without
 * data, no file left behind on failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/plot.c"
#include "tests/util/fixtures.h"

static void test_pareto(void **state)
{
    (void)state;
    /* time (minimise), accuracy (maximise) */
    const double t[] = {1.0, 2.0, 0.5, 3.0, 2.0, NAN, 4.0, 0.5};
    const double a[] = {90., 95., 80., 94., 95., 99., 97., 80.};
    int front[8];
    int n = plot_pareto(front, t, a, 8);
    /* 0.5/80 (first of the two equal points), 1/90, 2/95 (first), 4/97 */
    assert_int_equal(n, 4);
    assert_int_equal(front[0], 2);
    assert_int_equal(front[1], 0);
    assert_int_equal(front[2], 1);
    assert_int_equal(front[3], 6);
    for (int i = 1; i < n; i++) {
        assert_true(t[front[i]] > t[front[i - 1]]);
        assert_true(a[front[i]] > a[front[i - 1]]);
    }
    assert_int_equal(plot_pareto(front, t, a, 0), 0);
}

static int is_png(const char *path)
{
    unsigned char sig[8];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int ok = fread(sig, 1, 8, f) == 8 && !memcmp(sig, "\x89PNG\r\n\x1a\n", 8);
    fclose(f);
    return ok;
}

static void test_png(void **state)
{
    (void)state;
    if (!plot_available()) { skip(); return; }
    char *dir = fx_tmpdir(), path[600], msg[300];
    assert_non_null(dir);
    fx_join(path, sizeof path, dir, "a 'quoted' \"name\".png");
    const double x[] = {3, 1, 2}, y[] = {30, 10, 20}, e[] = {1, 1, 2};
    plot_series s[2] = {{"it's a \"series\"", x, y, NULL, 3, NULL, NULL},
                        {"with errors", x, y, e, 3, NULL, "dt 2"}};
    plot_spec sp = {"title\nsecond line", "x (s)", "y (%)", 1, 1, 400, 300, "top left"};
    assert_int_equal(plot_png(path, &sp, s, 2, msg, sizeof msg), 0);
    assert_true(is_png(path));
    /* no finite data (or none > 0 on a log axis): an error, no file */
    fx_join(path, sizeof path, dir, "empty.png");
    const double z[] = {0, -1, NAN};
    plot_series s0 = {"none", z, y, NULL, 3, NULL, NULL};
    assert_int_equal(plot_png(path, &sp, &s0, 1, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "no data"));
    assert_false(fx_exists(path));
    /* gnuplot rejecting the input: an error naming the file, no file */
    plot_series sb = {"bad", x, y, NULL, 3, "nosuchstyle", NULL};
    plot_spec lin = {"t", "x", "y", 0, 0, 0, 0, NULL};
    fx_join(path, sizeof path, dir, "bad.png");
    assert_int_equal(plot_png(path, &lin, &sb, 1, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "gnuplot failed"));
    assert_false(fx_exists(path));
    fx_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pareto),
        cmocka_unit_test(test_png),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
