/* test_shape.c - images given as text: fsvc_dataset_set_shape gives a
 * dataset its image shape, turns 8-bit pixel values into u8 (the data an
 * IDX file of the same images gives) and keeps other values as they are;
 * gzipped LIBSVM text parses like the plain text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "datasets/loaders.h"
#include "fsvc/fsvc.h"

static void pixels_become_u8(void **state)
{
    (void)state;
    const char text[] = "1 1:255 4:7\n0 2:1 3:0\n";
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(ds_libsvm_parse(&d, text, strlen(text), "t", 4, ds_max_bytes(), &err),
                     FSVC_OK);
    assert_int_equal(d.dtype, FSVC_F64);
    assert_int_equal(fsvc_dataset_set_shape(&d, 2, 2, &err), FSVC_OK);
    assert_int_equal(d.rows, 2);
    assert_int_equal(d.cols, 2);
    assert_int_equal(d.dtype, FSVC_U8);
    const uint8_t want[8] = {255, 0, 0, 7, 0, 1, 0, 0};
    assert_memory_equal(d.x, want, 8);
    fsvc_dataset_free(&d);
}

static void other_values_stay(void **state)
{
    (void)state;
    const char *texts[] = {"1 1:0.5\n", "1 1:256\n", "1 1:-1\n"};
    for (int i = 0; i < 3; i++) {
        fsvc_dataset d;
        fsvc_error err;
        assert_int_equal(ds_libsvm_parse(&d, texts[i], strlen(texts[i]), "t", 4,
                                         ds_max_bytes(), &err), FSVC_OK);
        double v = ((double *)d.x)[0];
        assert_int_equal(fsvc_dataset_set_shape(&d, 2, 2, &err), FSVC_OK);
        assert_int_equal(d.dtype, FSVC_F64);
        assert_int_equal(d.rows, 2);
        assert_true(((double *)d.x)[0] == v);
        fsvc_dataset_free(&d);
    }
}

static void wrong_shape_refused(void **state)
{
    (void)state;
    const char text[] = "1 1:3 5:4\n";
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(ds_libsvm_parse(&d, text, strlen(text), "five.txt", 0, ds_max_bytes(),
                                     &err), FSVC_OK);
    assert_int_equal(fsvc_dataset_set_shape(&d, 2, 2, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "five.txt: image shape 2 x 2 is 4 values, the data has 5"));
    assert_int_equal(d.rows, 0);
    assert_int_equal(d.dtype, FSVC_F64);
    fsvc_dataset_free(&d);
}

/* Test data against a model's n: pad with zeros, drop (and count) extras. */
static void fit_features_pads_and_drops(void **state)
{
    (void)state;
    const char text[] = "1 1:1 2:2 5:5\n2 3:3\n3 4:0 6:6 7:7\n";
    fsvc_dataset d;
    fsvc_error err;
    int64_t dropped = -1;
    int first = -1;
    assert_int_equal(ds_libsvm_parse(&d, text, strlen(text), "t", 0, ds_max_bytes(), &err),
                     FSVC_OK);
    assert_int_equal(d.n, 7);
    assert_int_equal(fsvc_dataset_fit_features(&d, 3, &dropped, &first, &err), FSVC_OK);
    assert_int_equal(d.n, 3);
    assert_int_equal(dropped, 3);   /* 5:5, 6:6, 7:7; 4:0 is no value */
    assert_int_equal(first, 5);
    const double want[9] = {1, 2, 0, 0, 0, 3, 0, 0, 0};
    assert_memory_equal(d.x, want, sizeof want);
    assert_int_equal(fsvc_dataset_fit_features(&d, 5, &dropped, &first, &err), FSVC_OK);
    assert_int_equal(d.n, 5);
    assert_int_equal(dropped, 0);
    assert_int_equal(first, 0);
    const double want5[15] = {1, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(d.x, want5, sizeof want5);
    /* images cannot be padded or cut */
    d.rows = 1;
    d.cols = 5;
    assert_int_equal(fsvc_dataset_fit_features(&d, 6, NULL, NULL, &err), FSVC_EINPUT);
    assert_int_equal(d.n, 5);
    fsvc_dataset_free(&d);
}

/* A gzipped LIBSVM file loads to the same dataset as the plain one. */
static void gzip_text_loads(void **state)
{
    (void)state;
    char dir[] = "/tmp/fsvc_shape_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char plain[64], gz[64];
    snprintf(plain, sizeof plain, "%s/a.txt", dir);
    snprintf(gz, sizeof gz, "%s/a.txt.gz", dir);
    const char text[] = "1 1:0.25 3:2\n2 2:-1\n";
    FILE *f = fopen(plain, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    gzFile g = gzopen(gz, "wb");
    assert_non_null(g);
    gzputs(g, text);
    gzclose(g);
    fsvc_dataset a, b;
    fsvc_error err;
    assert_int_equal(fsvc_dataset_load(&a, plain, NULL, &err), FSVC_OK);
    assert_int_equal(fsvc_dataset_load(&b, gz, NULL, &err), FSVC_OK);
    assert_int_equal(a.N, b.N);
    assert_int_equal(a.n, b.n);
    assert_int_equal(b.dtype, FSVC_F64);
    assert_memory_equal(a.x, b.x, (size_t)a.N * a.n * sizeof(double));
    assert_memory_equal(a.y, b.y, (size_t)a.N * sizeof(double));
    fsvc_dataset_free(&a);
    fsvc_dataset_free(&b);
    remove(plain);
    remove(gz);
    remove(dir);
}

/* Gzipped text: inflated up to the limit and no further (a bomb of 8 MiB
 * of text in a few KB against a 2 MiB limit), a cut stream and NUL bytes
 * are refused with the file's name. */
static void gzip_text_limits(void **state)
{
    (void)state;
    size_t big = (size_t)8 << 20;
    char *text = malloc(big);
    assert_non_null(text);
    for (size_t i = 0; i < big; i += 8) memcpy(text + i, "1 1:0.5\n", 8);
    uLongf zlen = compressBound(big);
    unsigned char *z = malloc(zlen + 18);
    assert_non_null(z);
    /* a gzip member: deflate with a gzip wrapper */
    z_stream s;
    memset(&s, 0, sizeof s);
    assert_int_equal(deflateInit2(&s, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    s.next_in = (unsigned char *)text;
    s.avail_in = (uInt)big;
    s.next_out = z;
    s.avail_out = (uInt)(zlen + 18);
    assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
    size_t zl = s.total_out;
    deflateEnd(&s);
    assert_true(zl < big / 100);
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(ds_libsvm_parse_file(&d, z, zl, "bomb.gz", 0, (uint64_t)2 << 20, &err),
                     FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "bomb.gz: inflated text exceeds the load limit"));
    assert_null(d.x);
    /* the same stream under a limit it fits: 1 M samples */
    assert_int_equal(ds_libsvm_parse_file(&d, z, zl, "ok.gz", 0, (uint64_t)64 << 20, &err),
                     FSVC_OK);
    assert_int_equal(d.N, (int64_t)(big / 8));
    fsvc_dataset_free(&d);
    /* cut short */
    assert_int_equal(ds_libsvm_parse_file(&d, z, zl / 2, "cut.gz", 0, (uint64_t)64 << 20,
                                          &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "cut.gz"));
    assert_null(d.x);
    free(z);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pixels_become_u8),
        cmocka_unit_test(other_values_stay),
        cmocka_unit_test(wrong_shape_refused),
        cmocka_unit_test(gzip_text_loads),
        cmocka_unit_test(fit_features_pads_and_drops),
        cmocka_unit_test(gzip_text_limits),
    };
    return cmocka_run_group_tests(tests, 0, NULL);
}
