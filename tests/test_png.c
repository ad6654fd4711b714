/* test_png.c - PNG reader (gray, RGB, RGBA, gray+alpha, 16-bit, palette)
 * and PNG folders (class sub-folders, inference folders, sizes, errors). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "datasets/loaders.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

/* Reads path as gray, expects w x h and the pixels want. */
static void read_expect(const char *path, int w, int h, const uint8_t *want)
{
    unsigned char *pix;
    int r, c;
    fsvc_error err;
    int rc = ds_png_read_gray(&pix, &r, &c, path, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(r, h);
    assert_int_equal(c, w);
    for (int i = 0; i < w * h; i++)
        if (pix[i] != want[i])
            fail_msg("%s: pixel %d is %d, want %d", path, i, pix[i], want[i]);
    free(pix);
}

static void test_gray8(void **state)
{
    char p[4096];
    uint8_t g[6] = {0, 1, 127, 128, 254, 255};
    fx_join(p, sizeof p, *state, "g.png");
    assert_int_equal(fx_write_png(p, 3, 2, 0, 8, g, NULL, 0), 0);
    read_expect(p, 3, 2, g);
}

/* BT.601: Y = (299 R + 587 G + 114 B + 500) / 1000 */
static void test_rgb_and_rgba(void **state)
{
    char p[4096];
    uint8_t rgb[4 * 3] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 200, 30};
    uint8_t want[4] = {76, 150, 29, (299 * 10 + 587 * 200 + 114 * 30 + 500) / 1000};
    fx_join(p, sizeof p, *state, "rgb.png");
    assert_int_equal(fx_write_png(p, 2, 2, 2, 8, rgb, NULL, 0), 0);
    read_expect(p, 2, 2, want);
    /* alpha over black: v * a / 255 rounded */
    uint8_t rgba[4 * 4] = {255, 255, 255, 255, 255, 255, 255, 0, 200, 200, 200, 128,
                           255, 0, 0, 255};
    uint8_t wa[4] = {255, 0, (200 * 128 + 127) / 255, 76};
    fx_join(p, sizeof p, *state, "rgba.png");
    assert_int_equal(fx_write_png(p, 2, 2, 6, 8, rgba, NULL, 0), 0);
    read_expect(p, 2, 2, wa);
    uint8_t ga[2 * 2] = {100, 255, 100, 51};
    uint8_t wg[2] = {100, (100 * 51 + 127) / 255};
    fx_join(p, sizeof p, *state, "ga.png");
    assert_int_equal(fx_write_png(p, 2, 1, 4, 8, ga, NULL, 0), 0);
    read_expect(p, 2, 1, wg);
}

static void test_16bit(void **state)
{
    char p[4096];
    uint16_t g[4] = {0, 65535, 257 * 100, 257 * 200 + 100};
    uint8_t want[4] = {0, 255, 100, 200};
    fx_join(p, sizeof p, *state, "g16.png");
    assert_int_equal(fx_write_png(p, 2, 2, 0, 16, g, NULL, 0), 0);
    read_expect(p, 2, 2, want);
    uint16_t rgb[2 * 3] = {65535, 0, 0, 65535, 65535, 65535};
    uint8_t w2[2] = {76, 255};
    fx_join(p, sizeof p, *state, "rgb16.png");
    assert_int_equal(fx_write_png(p, 2, 1, 2, 16, rgb, NULL, 0), 0);
    read_expect(p, 2, 1, w2);
}

static void test_single_file(void **state)
{
    char p[4096];
    uint8_t rgb[2 * 3] = {255, 0, 0, 9, 9, 9};
    uint8_t want[2] = {76, 9};
    fx_join(p, sizeof p, *state, "one.png");
    assert_int_equal(fx_write_png(p, 2, 1, 2, 8, rgb, NULL, 0), 0);
    fsvc_dataset d;
    fsvc_error err;
    int rc = fsvc_dataset_load(&d, p, NULL, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(d.N, 1);
    assert_int_equal(d.n, 2);
    assert_int_equal(d.rows, 1);
    assert_int_equal(d.cols, 2);
    assert_false(d.has_labels);
    assert_memory_equal(d.x, want, 2);
    assert_string_equal(d.paths[0], p);
    fsvc_dataset_free(&d);
}

static void test_palette(void **state)
{
    char p[4096];
    uint8_t pal[3 * 3] = {0, 0, 0, 255, 255, 255, 0, 255, 0};
    uint8_t idx[4] = {0, 1, 2, 1};
    uint8_t want[4] = {0, 255, 150, 255};
    fx_join(p, sizeof p, *state, "pal.png");
    assert_int_equal(fx_write_png(p, 4, 1, 3, 8, idx, pal, 3), 0);
    read_expect(p, 4, 1, want);
}

static unsigned char *chunk(unsigned char *p, const char *type, const void *d, uint32_t n)
{
    unsigned char be[4] = {n >> 24, n >> 16 & 255, n >> 8 & 255, n & 255};
    memcpy(p, be, 4);
    memcpy(p + 4, type, 4);
    memcpy(p + 8, d, n);
    uint32_t c = (uint32_t)crc32(0, p + 4, n + 4);
    unsigned char bc[4] = {c >> 24, c >> 16 & 255, c >> 8 & 255, c & 255};
    memcpy(p + 8 + n, bc, 4);
    return p + 12 + n;
}

/* Defect 8 (memory bounded by the data): a 100-byte PNG whose header
 * claims 16384 x 16384 RGBA (1 GiB of rows) is refused from its size,
 * before the row buffers are allocated. */
static void test_header_claims_more_than_the_file(void **state)
{
    unsigned char f[256], *p = f;
    memcpy(p, "\x89PNG\r\n\x1a\n", 8);
    p += 8;
    unsigned char ihdr[13] = {0, 0, 0x40, 0, 0, 0, 0x40, 0, 8, 6, 0, 0, 0};
    p = chunk(p, "IHDR", ihdr, 13);
    unsigned char raw[64] = {0}, z[128];
    uLongf zl = sizeof z;
    assert_int_equal(compress(z, &zl, raw, sizeof raw), Z_OK);
    p = chunk(p, "IDAT", z, (uint32_t)zl);
    p = chunk(p, "IEND", "", 0);
    char path[4096];
    fx_join(path, sizeof path, *state, "liar.png");
    assert_int_equal(fx_write_file(path, f, (size_t)(p - f)), 0);
    unsigned char *pix;
    int r, c;
    fsvc_error err;
    assert_int_equal(ds_png_read_gray(&pix, &r, &c, path, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "liar.png: PNG header claims 16384x16384 pixels"));
    assert_non_null(strstr(err.msg, "more than its"));
    assert_null(pix);
}

static void test_not_png_and_truncated(void **state)
{
    char p[4096];
    unsigned char *pix;
    int r, c;
    fsvc_error err;
    fx_join(p, sizeof p, *state, "fake.png");
    assert_int_equal(fx_write_text(p, "GIF89a not a png at all"), 0);
    assert_int_equal(ds_png_read_gray(&pix, &r, &c, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "not a PNG"));
    assert_non_null(strstr(err.msg, p));
    assert_null(pix);
    /* a real PNG cut in the middle: libpng's longjmp path, nothing leaks */
    uint8_t g[64 * 64];
    for (int i = 0; i < 64 * 64; i++)
        g[i] = (uint8_t)(i * 7);
    char q[4096];
    fx_join(q, sizeof q, *state, "whole.png");
    assert_int_equal(fx_write_png(q, 64, 64, 0, 8, g, NULL, 0), 0);
    unsigned char *buf;
    size_t len;
    assert_int_equal(ds_read_file(&buf, &len, q, &err), FSVC_OK);
    fx_join(p, sizeof p, *state, "cut.png");
    assert_int_equal(fx_write_file(p, buf, len * 2 / 3), 0);
    assert_int_equal(ds_png_read_gray(&pix, &r, &c, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, p));
    assert_null(pix);
    /* a corrupt header chunk */
    buf[20] ^= 0xff;
    assert_int_equal(fx_write_file(p, buf, len), 0);
    assert_int_equal(ds_png_read_gray(&pix, &r, &c, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "bad PNG"));
    free(buf);
}

static void mk(const char *dir, const char *sub)
{
    char p[4096];
    assert_int_equal(mkdir(fx_join(p, sizeof p, dir, sub), 0755), 0);
}

/* writes a w x h gray image filled with v at dir/name */
static void img(const char *dir, const char *name, int w, int h, uint8_t v)
{
    char p[4096];
    uint8_t g[64 * 64];
    memset(g, v, sizeof g);
    assert_int_equal(fx_write_png(fx_join(p, sizeof p, dir, name), w, h, 0, 8, g, NULL, 0), 0);
}

static void test_class_folders(void **state)
{
    char root[4096];
    fx_join(root, sizeof root, *state, "classes");
    assert_int_equal(mkdir(root, 0755), 0);
    mk(root, "zebra");
    mk(root, "ant");
    mk(root, "ant/deep");
    img(root, "zebra/b.png", 3, 2, 20);
    img(root, "zebra/a.PNG", 3, 2, 21);
    img(root, "ant/x.png", 3, 2, 10);
    img(root, "ant/deep/y.png", 3, 2, 11);
    assert_int_equal(fx_write_text(fx_join((char[4096]){0}, 4096, root, "ant/notes.txt"), "x"), 0);
    fsvc_dataset d;
    fsvc_error err;
    int rc = fsvc_dataset_load(&d, root, NULL, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(d.N, 4);
    assert_int_equal(d.n, 6);
    assert_int_equal(d.rows, 2);
    assert_int_equal(d.cols, 3);
    assert_int_equal(d.dtype, FSVC_U8);
    assert_int_equal(d.K, 2);
    assert_string_equal(d.class_names[0], "ant");
    assert_string_equal(d.class_names[1], "zebra");
    const uint8_t *x = d.x;
    uint8_t first[4] = {10, 11, 21, 20}; /* ant/x, ant/deep/y, zebra/a, zebra/b */
    int cls[4] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(x[i * 6], first[i]);
        assert_int_equal(x[i * 6 + 5], first[i]);
        assert_int_equal(d.cls[i], cls[i]);
        assert_true(d.y[i] == cls[i]);
    }
    assert_non_null(strstr(d.paths[1], "ant/deep/y.png"));
    fsvc_dataset_free(&d);
}

static void test_sizes_and_resize(void **state)
{
    char root[4096];
    fx_join(root, sizeof root, *state, "sizes");
    assert_int_equal(mkdir(root, 0755), 0);
    mk(root, "a");
    img(root, "a/1.png", 4, 4, 50);
    img(root, "a/2.png", 8, 6, 90);
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(fsvc_dataset_load(&d, root, NULL, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "a/2.png"));
    assert_non_null(strstr(err.msg, "8x6"));
    assert_null(strchr(err.msg, '\n'));
    /* defect 11: the first image is named, not "(null)" */
    assert_non_null(strstr(err.msg, "but"));
    assert_non_null(strstr(strstr(err.msg, "but"), "a/1.png is 4x4"));
    assert_null(strstr(err.msg, "(null)"));
    fsvc_load_opts o = {1, 0, 0, FSVC_STORE_DENSE, 0, 0, 0, 0, 0};
    assert_int_equal(fsvc_dataset_load(&d, root, &o, &err), FSVC_OK);
    assert_int_equal(d.n, 16);
    const uint8_t *x = d.x;
    for (int j = 0; j < 16; j++)
        assert_int_equal(x[16 + j], 90); /* a flat image stays flat */
    fsvc_dataset_free(&d);
    /* bilinear on a ramp: 2x1 [0, 255] -> 4x1 */
    uint8_t src[2] = {0, 255}, dst[4];
    ds_resize_bilinear_u8(dst, 1, 4, src, 1, 2);
    assert_int_equal(dst[0], 0);
    assert_int_equal(dst[1], 64);
    assert_int_equal(dst[2], 191);
    assert_int_equal(dst[3], 255);
}

static void test_unlabelled_and_errors(void **state)
{
    char root[4096];
    fx_join(root, sizeof root, *state, "infer");
    assert_int_equal(mkdir(root, 0755), 0);
    fsvc_dataset d;
    fsvc_error err;
    fsvc_load_opts o = {0, 1, 0, FSVC_STORE_DENSE, 0, 0, 0, 0, 0};
    /* empty folder */
    assert_int_equal(fsvc_dataset_load(&d, root, NULL, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "empty folder"));
    assert_int_equal(fsvc_dataset_load(&d, root, &o, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "no PNG or JPEG images"));
    /* loose images: unlabelled only when allowed; sorted, recursive */
    mk(root, "sub");
    img(root, "b.png", 2, 2, 2);
    img(root, "a.png", 2, 2, 1);
    img(root, "sub/c.png", 2, 2, 3);
    assert_int_equal(fsvc_dataset_load(&d, root, NULL, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "one sub-folder per class"));
    assert_int_equal(fsvc_dataset_load(&d, root, &o, &err), FSVC_OK);
    assert_int_equal(d.N, 3);
    assert_false(d.has_labels);
    const uint8_t *x = d.x;
    assert_int_equal(x[0], 1);
    assert_int_equal(x[4], 2);
    assert_int_equal(x[8], 3);
    fsvc_dataset_free(&d);
    /* a file named .png that is not a PNG */
    assert_int_equal(fx_write_text(fx_join((char[4096]){0}, 4096, root, "sub/d.png"), "no"), 0);
    assert_int_equal(fsvc_dataset_load(&d, root, &o, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "sub/d.png: not a PNG"));
    /* an empty class folder */
    char cl[4096];
    fx_join(cl, sizeof cl, *state, "cls");
    assert_int_equal(mkdir(cl, 0755), 0);
    mk(cl, "one");
    mk(cl, "two");
    img(cl, "one/a.png", 2, 2, 1);
    assert_int_equal(fsvc_dataset_load(&d, cl, NULL, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "two: class folder holds no PNG"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gray8),
        cmocka_unit_test(test_rgb_and_rgba),
        cmocka_unit_test(test_16bit),
        cmocka_unit_test(test_palette),
        cmocka_unit_test(test_single_file),
        cmocka_unit_test(test_not_png_and_truncated),
        cmocka_unit_test(test_header_claims_more_than_the_file),
        cmocka_unit_test(test_class_folders),
        cmocka_unit_test(test_sizes_and_resize),
        cmocka_unit_test(test_unlabelled_and_errors),
    };
    return cmocka_run_group_tests(tests, fx_tmpdir_setup, fx_tmpdir_teardown);
}
