/* test_idx.c - IDX reader: fixtures of every type and rank, raw and gzip,
 * prefixes and image paths, and every kind of bad header or payload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datasets/loaders.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

/* 5 images of 3 x 4, pixel (i, r, c) = 10 i + 4 r + c; labels 2 0 2 1 0 */
enum { NI = 5, NR = 3, NC = 4 };
static uint8_t pix[NI * NR * NC];
static const uint8_t lab[NI] = {2, 0, 2, 1, 0};

static int setup(void **state)
{
    for (int i = 0; i < NI * NR * NC; i++)
        pix[i] = (uint8_t)(10 * (i / (NR * NC)) + i % (NR * NC));
    char *dir = fx_tmpdir();
    if (!dir)
        return -1;
    *state = dir;
    return 0;
}

static int teardown(void **state)
{
    fx_rmtree(*state);
    free(*state);
    return 0;
}

static void check_pair(const fsvc_dataset *d)
{
    assert_int_equal(d->N, NI);
    assert_int_equal(d->n, NR * NC);
    assert_int_equal(d->dtype, FSVC_U8);
    assert_int_equal(d->rows, NR);
    assert_int_equal(d->cols, NC);
    assert_memory_equal(d->x, pix, sizeof pix);
    assert_true(d->has_labels);
    assert_int_equal(d->K, 3);
    for (int i = 0; i < NI; i++) {
        assert_true(d->y[i] == lab[i]);
        assert_int_equal(d->cls[i], lab[i]);
    }
    assert_true(d->class_values[0] == 0 && d->class_values[2] == 2);
}

static void load_ok(fsvc_dataset *d, const char *src)
{
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = fsvc_dataset_load(d, src, NULL, &err);
    if (rc)
        fail_msg("%s: %s", src, err.msg);
}

/* Loads src, expects FSVC_EINPUT and a one-line message containing `want`
 * and the name `file`. */
static void load_bad(const char *src, const char *file, const char *want)
{
    fsvc_dataset d;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = fsvc_dataset_load(&d, src, NULL, &err);
    if (rc != FSVC_EINPUT)
        fail_msg("%s: rc %d, wanted %d (%s)", src, rc, FSVC_EINPUT, err.msg);
    if (!strstr(err.msg, want) || !strstr(err.msg, file) || strchr(err.msg, '\n'))
        fail_msg("message '%s' lacks '%s' or '%s'", err.msg, want, file);
    assert_null(d.x);
    fsvc_dataset_free(&d);
}

static void test_pair_raw_and_gz(void **state)
{
    const char *dir = *state;
    char p[4096];
    assert_int_equal(fx_write_mnist_pair(dir, "train", 0, NI, NR, NC, pix, lab), 0);
    assert_int_equal(fx_write_mnist_pair(dir, "t10k", 1, NI, NR, NC, pix, lab), 0);
    fsvc_dataset d;
    load_ok(&d, fx_join(p, sizeof p, dir, "train"));
    check_pair(&d);
    fsvc_dataset_free(&d);
    load_ok(&d, fx_join(p, sizeof p, dir, "t10k"));
    check_pair(&d);
    fsvc_dataset_free(&d);
    /* the images file itself; the labels are found beside it */
    load_ok(&d, fx_join(p, sizeof p, dir, "t10k-images-idx3-ubyte.gz"));
    check_pair(&d);
    fsvc_dataset_free(&d);
    load_ok(&d, fx_join(p, sizeof p, dir, "train-images-idx3-ubyte"));
    check_pair(&d);
    fsvc_dataset_free(&d);
}

static void test_images_without_labels(void **state)
{
    char p[4096];
    uint32_t dims[3] = {NI, NR, NC};
    fx_join(p, sizeof p, *state, "only-images-idx3-ubyte");
    assert_int_equal(fx_write_idx(p, 0, 0x08, 3, dims, pix), 0);
    fsvc_dataset d;
    load_ok(&d, p);
    assert_int_equal(d.N, NI);
    assert_false(d.has_labels);
    assert_null(d.y);
    fsvc_dataset_free(&d);
}

/* Every IDX type through the in-memory parser, raw and gzip, host order. */
static void test_all_types_in_memory(void **state)
{
    (void)state;
    int8_t i8[6] = {-128, -1, 0, 1, 2, 127};
    int16_t i16[6] = {-32768, -300, 0, 1, 258, 32767};
    int32_t i32[6] = {INT32_MIN, -70000, 0, 1, 65536 + 3, INT32_MAX};
    float f32[6] = {-1.5f, 0.1f, 0, 1e-30f, 3.25f, 1e30f};
    double f64[6] = {-1.5, 0.1, 0, 1e-300, 3.25, 1e300};
    uint8_t u8[6] = {0, 1, 2, 127, 128, 255};
    struct { int type; const void *v; size_t es; } t[] = {
        {0x08, u8, 1}, {0x09, i8, 1}, {0x0B, i16, 2}, {0x0C, i32, 4},
        {0x0D, f32, 4}, {0x0E, f64, 8}};
    uint32_t shapes[4][4] = {{6}, {2, 3}, {1, 2, 3}, {1, 1, 2, 3}};
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        for (int rank = 1; rank <= 4; rank++)
            for (int gz = 0; gz < 2; gz++) {
                unsigned char *b, *g;
                size_t len = fx_idx_bytes(&b, t[k].type, rank, shapes[rank - 1], t[k].v), gl;
                assert_true(len > 0);
                if (gz) {
                    assert_int_equal(fx_gzip(&g, &gl, b, len), 0);
                    free(b);
                    b = g;
                    len = gl;
                }
                ds_idx a;
                fsvc_error err;
                int rc = ds_idx_parse(&a, b, len, "mem", DS_MAX_BYTES, &err);
                if (rc)
                    fail_msg("type %x rank %d gz %d: %s", t[k].type, rank, gz, err.msg);
                assert_int_equal(a.type, t[k].type);
                assert_int_equal(a.rank, rank);
                assert_int_equal(a.count, 6);
                assert_int_equal(a.dims[rank - 1], shapes[rank - 1][rank - 1]);
                assert_memory_equal(a.data, t[k].v, 6 * t[k].es);
                ds_idx_free(&a);
                free(b);
            }
}

/* Float images load as f32/f64; integers wider than u8 as f32/f64. */
static void test_float_images(void **state)
{
    char p[4096], q[4096];
    float f[2 * 2 * 2] = {0.5f, -1, 2, 3, 4, 5, 6, 7.25f};
    uint32_t d3[3] = {2, 2, 2}, d1[1] = {2};
    int32_t labs[2] = {-7, 100000};
    fx_join(p, sizeof p, *state, "f-images-idx3-ubyte.gz");
    fx_join(q, sizeof q, *state, "f-labels-idx1-ubyte");
    assert_int_equal(fx_write_idx(p, 1, 0x0D, 3, d3, f), 0);
    assert_int_equal(fx_write_idx(q, 0, 0x0C, 1, d1, labs), 0);
    fsvc_dataset d;
    load_ok(&d, p);
    assert_int_equal(d.dtype, FSVC_F32);
    assert_int_equal(d.n, 4);
    assert_memory_equal(d.x, f, sizeof f);
    assert_true(d.y[0] == -7 && d.y[1] == 100000);
    assert_int_equal(d.K, 2);
    fsvc_dataset_free(&d);
}

static void test_nan_is_an_error(void **state)
{
    char p[4096];
    double v[4] = {1, 2, NAN, 4};
    uint32_t dims[2] = {2, 2};
    fx_join(p, sizeof p, *state, "nan-images-idx3-ubyte");
    assert_int_equal(fx_write_idx(p, 0, 0x0E, 2, dims, v), 0);
    load_bad(p, p, "NaN or Inf at element 2");
}

static void test_truncated_gz(void **state)
{
    char p[4096];
    uint32_t dims[3] = {NI, NR, NC};
    unsigned char *b, *g;
    size_t len = fx_idx_bytes(&b, 0x08, 3, dims, pix), gl;
    assert_int_equal(fx_gzip(&g, &gl, b, len), 0);
    fx_join(p, sizeof p, *state, "cut-images-idx3-ubyte.gz");
    assert_int_equal(fx_write_file(p, g, gl / 2), 0);
    load_bad(p, p, "truncated gzip");
    /* cut inside the 8-byte trailer: data complete, stream not */
    assert_int_equal(fx_write_file(p, g, gl - 3), 0);
    load_bad(p, p, "truncated gzip");
    free(b);
    free(g);
}

static void test_not_gzip_in_gz(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "bad-images-idx3-ubyte.gz");
    assert_int_equal(fx_write_text(p, "this is plain text, not gzip\n"), 0);
    load_bad(p, p, "not gzip");
    /* gzip magic followed by garbage */
    unsigned char junk[64] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff};
    assert_int_equal(fx_write_file(p, junk, sizeof junk), 0);
    load_bad(p, p, "corrupt gzip");
}

static void test_wrong_magic(void **state)
{
    char p[4096];
    uint32_t dims[3] = {NI, NR, NC};
    unsigned char *b;
    size_t len = fx_idx_bytes(&b, 0x08, 3, dims, pix);
    fx_join(p, sizeof p, *state, "magic-images-idx3-ubyte");
    b[2] = 0x0A; /* no such type */
    assert_int_equal(fx_write_file(p, b, len), 0);
    load_bad(p, p, "not an IDX file");
    b[2] = 0x08;
    b[3] = 5; /* rank 5 */
    assert_int_equal(fx_write_file(p, b, len), 0);
    load_bad(p, p, "not an IDX file");
    b[3] = 3;
    b[1] = 1;
    assert_int_equal(fx_write_file(p, b, len), 0);
    load_bad(p, p, "not an IDX file");
    free(b);
}

static void test_count_mismatch(void **state)
{
    char p[4096], q[4096];
    uint32_t di[3] = {NI, NR, NC}, dl[1] = {NI - 1};
    fx_join(p, sizeof p, *state, "mm-images-idx3-ubyte");
    fx_join(q, sizeof q, *state, "mm-labels-idx1-ubyte");
    assert_int_equal(fx_write_idx(p, 0, 0x08, 3, di, pix), 0);
    assert_int_equal(fx_write_idx(q, 0, 0x08, 1, dl, lab), 0);
    fx_join(p, sizeof p, *state, "mm");
    load_bad(p, q, "4 labels for 5 images");
}

static void test_absurd_header(void **state)
{
    char p[4096];
    /* 10^12 items: 10^6 x 10^6 x 1 */
    unsigned char h[16] = {0, 0, 8, 3, 0, 0x0f, 0x42, 0x40, 0, 0x0f, 0x42, 0x40, 0, 0, 0, 1};
    fx_join(p, sizeof p, *state, "huge-images-idx3-ubyte");
    assert_int_equal(fx_write_file(p, h, sizeof h), 0);
    load_bad(p, p, "claims 1000000000000 items");
    fx_join(p, sizeof p, *state, "huge-images-idx3-ubyte.gz");
    assert_int_equal(fx_write_gz(p, h, sizeof h), 0);
    load_bad(p, p, "claims 1000000000000 items");
    /* 2^32-1 in every dimension: the product overflows 64 bits */
    unsigned char o[20] = {0, 0, 0x0E, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    ds_idx a;
    fsvc_error err;
    assert_int_equal(ds_idx_parse(&a, o, sizeof o, "o", DS_MAX_BYTES, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "claims"));
    assert_null(a.data);
}

static void test_short_and_long_payload(void **state)
{
    char p[4096];
    uint32_t dims[3] = {NI, NR, NC};
    unsigned char *b;
    size_t len = fx_idx_bytes(&b, 0x08, 3, dims, pix);
    fx_join(p, sizeof p, *state, "short-images-idx3-ubyte");
    assert_int_equal(fx_write_file(p, b, len - 1), 0);
    load_bad(p, p, "IDX header claims");
    fx_join(p, sizeof p, *state, "short-images-idx3-ubyte.gz");
    assert_int_equal(fx_write_gz(p, b, len - 7), 0);
    load_bad(p, p, "shorter than the 60 bytes");
    unsigned char *c = malloc(len + 1);
    memcpy(c, b, len);
    c[len] = 9;
    assert_int_equal(fx_write_gz(p, c, len + 1), 0);
    load_bad(p, p, "goes on after");
    /* header cut short */
    assert_int_equal(fx_write_gz(p, b, 6), 0);
    load_bad(p, p, "ends inside the IDX header");
    free(b);
    free(c);
}

static void test_two_gzip_members(void **state)
{
    uint32_t dims[3] = {NI, NR, NC};
    unsigned char *b, *g1, *g2;
    size_t len = fx_idx_bytes(&b, 0x08, 3, dims, pix), l1, l2;
    assert_int_equal(fx_gzip(&g1, &l1, b, 20), 0);
    assert_int_equal(fx_gzip(&g2, &l2, b + 20, len - 20), 0);
    unsigned char *cat = malloc(l1 + l2);
    memcpy(cat, g1, l1);
    memcpy(cat + l1, g2, l2);
    ds_idx a;
    fsvc_error err;
    int rc = ds_idx_parse(&a, cat, l1 + l2, "two", DS_MAX_BYTES, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_memory_equal(a.data, pix, sizeof pix);
    ds_idx_free(&a);
    /* a small limit makes the gzip buffer start small and grow */
    rc = ds_idx_parse(&a, cat, l1 + l2, "two", 4096, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_memory_equal(a.data, pix, sizeof pix);
    ds_idx_free(&a);
    assert_int_equal(ds_idx_parse(&a, cat, l1 + l2 - 9, "cut", 4096, &err), FSVC_EINPUT);
    assert_null(a.data);
    /* a size limit refuses before allocating */
    assert_int_equal(ds_idx_parse(&a, b, len, "lim", 10, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "more than the load limit (10 bytes)"));
    free(b);
    free(g1);
    free(g2);
    free(cat);
    (void)state;
}

/* Defect 8: bytes after the end of the gzip stream that are not another
 * gzip member were ignored. */
static void test_gzip_trailing_garbage(void **state)
{
    uint32_t dims[3] = {NI, NR, NC};
    unsigned char *b, *g;
    size_t len = fx_idx_bytes(&b, 0x08, 3, dims, pix), gl;
    assert_int_equal(fx_gzip(&g, &gl, b, len), 0);
    unsigned char *t = malloc(gl + 5);
    memcpy(t, g, gl);
    memcpy(t + gl, "junk!", 5);
    ds_idx a;
    fsvc_error err;
    assert_int_equal(ds_idx_parse(&a, t, gl + 5, "tg", DS_MAX_BYTES, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "tg: 5 bytes of trailing garbage after the gzip stream"));
    assert_null(a.data);
    /* zero padding is garbage too */
    memset(t + gl, 0, 5);
    assert_int_equal(ds_idx_parse(&a, t, gl + 5, "tg", DS_MAX_BYTES, &err), FSVC_EINPUT);
    /* the stream alone still loads, from a file too */
    assert_int_equal(ds_idx_parse(&a, t, gl, "tg", DS_MAX_BYTES, &err), FSVC_OK);
    ds_idx_free(&a);
    char p[4096];
    fx_join(p, sizeof p, *state, "tg-images-idx3-ubyte.gz");
    memcpy(t + gl, "junk!", 5);
    assert_int_equal(fx_write_file(p, t, gl + 5), 0);
    load_bad(p, p, "trailing garbage");
    free(b);
    free(g);
    free(t);
}

/* Defect 8: the loaders' limit is min(64 GiB, physical RAM), and says so. */
static void test_load_limit_is_ram_bound(void **state)
{
    (void)state;
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t want = ram < DS_MAX_BYTES ? ram : DS_MAX_BYTES;
    assert_true(ds_max_bytes() == want);
    char t[80];
    assert_non_null(strstr(ds_limit_text(t, sizeof t, ds_max_bytes()),
                           "= min(64 GiB, physical RAM)"));
    /* a header claiming more than the limit but less than 64 GiB, where
     * the machine has less: refused from the header, naming the limit */
    uint64_t claim = want + 1;
    if (claim < DS_MAX_BYTES && claim / 65536 < 0xfffffff0u) {
        unsigned char h[16] = {0, 0, 8, 3};
        uint32_t dims[3] = {(uint32_t)(claim / 65536 + 1), 256, 256};
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 4; i++)
                h[4 + 4 * k + i] = (unsigned char)(dims[k] >> (24 - 8 * i));
        char p[4096];
        fx_join(p, sizeof p, *state, "lim-images-idx3-ubyte");
        assert_int_equal(fx_write_file(p, h, sizeof h), 0);
        load_bad(p, p, "more than the load limit");
        load_bad(p, p, "min(64 GiB, physical RAM)");
    }
}

static void test_missing_source(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "nothing-here");
    load_bad(p, p, "no such file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_raw_and_gz),
        cmocka_unit_test(test_images_without_labels),
        cmocka_unit_test(test_all_types_in_memory),
        cmocka_unit_test(test_float_images),
        cmocka_unit_test(test_nan_is_an_error),
        cmocka_unit_test(test_truncated_gz),
        cmocka_unit_test(test_not_gzip_in_gz),
        cmocka_unit_test(test_wrong_magic),
        cmocka_unit_test(test_count_mismatch),
        cmocka_unit_test(test_absurd_header),
        cmocka_unit_test(test_short_and_long_payload),
        cmocka_unit_test(test_two_gzip_members),
        cmocka_unit_test(test_missing_source),
        cmocka_unit_test(test_gzip_trailing_garbage),
        cmocka_unit_test(test_load_limit_is_ram_bound),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
