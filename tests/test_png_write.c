/* test_png_write.c - fsvc_png_write_rgb: round trip through the PNG loader,
 * and no file left behind when the write cannot happen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

static int setup(void **state)
{
    *state = fx_tmpdir();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fx_rmtree(*state);
    free(*state);
    return 0;
}

/* gray pixels written as RGB come back as the same gray levels */
static void test_round_trip(void **state)
{
    enum { W = 7, H = 5 };
    uint8_t rgb[H * W * 3], want[H * W];
    for (int i = 0; i < H * W; i++) {
        want[i] = (uint8_t)(i * 37 + 3);
        rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = want[i];
    }
    char p[4096];
    fx_join(p, sizeof p, *state, "img.png");
    fsvc_error err;
    if (fsvc_png_write_rgb(p, rgb, W, H, &err))
        fail_msg("%s", err.msg);
    fsvc_dataset d;
    if (fsvc_dataset_load(&d, p, NULL, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(d.rows, H);
    assert_int_equal(d.cols, W);
    assert_memory_equal(d.x, want, sizeof want);
    fsvc_dataset_free(&d);
}

/* an unwritable destination: an error naming it, and nothing created */
static void test_errors(void **state)
{
    uint8_t rgb[3] = {1, 2, 3};
    char p[4096];
    fsvc_error err;
    fx_join(p, sizeof p, *state, "no-such-folder/img.png");
    assert_int_not_equal(fsvc_png_write_rgb(p, rgb, 1, 1, &err), 0);
    assert_non_null(strstr(err.msg, "no-such-folder/img.png"));
    assert_false(fx_exists(p));
    fx_join(p, sizeof p, *state, "empty.png");
    assert_int_equal(fsvc_png_write_rgb(p, rgb, 0, 1, &err), FSVC_EUSAGE);
    assert_false(fx_exists(p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
