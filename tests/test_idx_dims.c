/* test_idx_dims.c - an IDX header with a zero dimension, anywhere, in any
 * rank, raw or gzip, read from bytes, from a file or as an image/label
 * pair, is refused with FSVC_EINPUT and one line naming the source and the
 * dimension (before this test a reader without that check divided by the
 * zero and died of SIGFPE, which no test saw). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/loaders.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

static void expect_refused(int rc, const fsvc_error *err, const char *name, int k)
{
    char want[64];
    snprintf(want, sizeof want, "dimension %d", k);
    assert_int_equal(rc, FSVC_EINPUT);
    assert_int_equal(err->code, FSVC_EINPUT);
    if (!strstr(err->msg, name) || !strstr(err->msg, want))
        fail_msg("message '%s' should name %s and %s", err->msg, name, want);
    assert_null(strchr(err->msg, '\n'));
}

/* Every rank 1..4, each dimension in turn 0, the others 2 (no payload: the
 * header alone, then a payload of what the non-zero dimensions would
 * hold, so neither "too short" nor "too long" can be the reason). */
static void zero_dim_bytes(void **state)
{
    (void)state;
    for (int rank = 1; rank <= 4; rank++)
        for (int k = 0; k < rank; k++)
            for (int gz = 0; gz < 2; gz++)
                for (int payload = 0; payload < 2; payload++) {
                    unsigned char buf[4 + 16 + 8];
                    size_t len = 4 + 4 * (size_t)rank;
                    memset(buf, 0, sizeof buf);
                    buf[2] = 0x08;
                    buf[3] = (unsigned char)rank;
                    for (int q = 0; q < rank; q++)
                        buf[7 + 4 * q] = q == k ? 0 : 2;
                    if (payload)
                        len += 8; /* up to 2^3 bytes */
                    unsigned char *in = buf, *z = NULL;
                    size_t zl = len;
                    if (gz) {
                        assert_int_equal(fx_gzip(&z, &zl, buf, len), 0);
                        in = z;
                    }
                    ds_idx a;
                    fsvc_error err;
                    fsvc_error_clear(&err);
                    int rc = ds_idx_parse(&a, in, zl, "mem.idx", DS_MAX_BYTES, &err);
                    expect_refused(rc, &err, "mem.idx", k);
                    assert_null(a.data);
                    free(z);
                }
}

/* From files: a raw and a gzip images file with 0 rows, and through
 * fsvc_dataset_load an image/label pair whose label count is 0. */
static void zero_dim_files(void **state)
{
    (void)state;
    char *dir = fx_tmpdir(), p[4200];
    assert_non_null(dir);
    const uint8_t none[1] = {0};
    uint32_t dims[3] = {3, 0, 4};
    for (int gz = 0; gz < 2; gz++) {
        snprintf(p, sizeof p, "%s/zero-rows-idx3-ubyte%s", dir, gz ? ".gz" : "");
        assert_int_equal(fx_write_idx(p, gz, 0x08, 3, dims, none), 0);
        ds_idx a;
        fsvc_error err;
        expect_refused(ds_idx_read(&a, p, &err), &err, p, 1);
        fsvc_dataset d;
        expect_refused(fsvc_dataset_load(&d, p, NULL, &err), &err, p, 1);
        assert_null(d.x);
    }
    /* a valid 2 x 2 x 2 images file, labels with N = 0 */
    const uint8_t pix[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint32_t di[3] = {2, 2, 2}, dl[1] = {0};
    snprintf(p, sizeof p, "%s/pair-images-idx3-ubyte", dir);
    assert_int_equal(fx_write_idx(p, 0, 0x08, 3, di, pix), 0);
    snprintf(p, sizeof p, "%s/pair-labels-idx1-ubyte", dir);
    assert_int_equal(fx_write_idx(p, 0, 0x08, 1, dl, none), 0);
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s/pair", dir);
    fsvc_dataset d;
    fsvc_error err;
    expect_refused(fsvc_dataset_load(&d, prefix, NULL, &err), &err, p, 0);
    assert_null(d.x);
    fx_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_dim_bytes),
        cmocka_unit_test(zero_dim_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
