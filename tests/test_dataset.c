/* test_dataset.c - fsvc_dataset: conversion and scaling, class index, and
 * the real datasets (MNIST from the repository's data/, Debian's Fashion-MNIST):
 * a missing one is a failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

/* A 2 x 3 u8 dataset with values 0 51 127 128 204 255 and labels 7, -2. */
static void make_u8(fsvc_dataset *d)
{
    static const uint8_t v[6] = {0, 51, 127, 128, 204, 255};
    ds_dataset_init(d, "mem");
    d->N = 2;
    d->n = 3;
    d->dtype = FSVC_U8;
    d->x = malloc(6);
    memcpy(d->x, v, 6);
    d->y = malloc(2 * sizeof *d->y);
    d->y[0] = 7;
    d->y[1] = -2;
    d->has_labels = 1;
}

static void test_convert_scales(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    const uint8_t v[6] = {0, 51, 127, 128, 204, 255};
    make_u8(&d);
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_F32, FSVC_SCALE_01, &err), FSVC_OK);
    assert_int_equal(d.dtype, FSVC_F32);
    assert_int_equal(d.scale, FSVC_SCALE_01);
    for (int i = 0; i < 6; i++)
        assert_true(((float *)d.x)[i] == (float)(v[i] / 255.0));
    /* f32 -> f64 is exact; scaling floats again is refused */
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_F64, FSVC_SCALE_01, &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_F64, FSVC_SCALE_NONE, &err), FSVC_OK);
    for (int i = 0; i < 6; i++)
        assert_true(((double *)d.x)[i] == (double)(float)(v[i] / 255.0));
    /* floats that are not integers 0..255 cannot go back to u8 */
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_U8, FSVC_SCALE_NONE, &err), FSVC_EINPUT);
    fsvc_dataset_free(&d);

    make_u8(&d);
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_F64, FSVC_SCALE_PM1, &err), FSVC_OK);
    for (int i = 0; i < 6; i++)
        assert_true(((double *)d.x)[i] == v[i] / 127.5 - 1.0);
    assert_true(((double *)d.x)[0] == -1 && ((double *)d.x)[5] == 1);
    fsvc_dataset_free(&d);

    make_u8(&d);
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_U8, FSVC_SCALE_01, &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_F64, FSVC_SCALE_NONE, &err), FSVC_OK);
    for (int i = 0; i < 6; i++)
        assert_true(((double *)d.x)[i] == v[i]);
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_U8, FSVC_SCALE_NONE, &err), FSVC_OK);
    assert_memory_equal(d.x, v, 6);
    fsvc_dataset_free(&d);
}

static void test_index_classes(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    make_u8(&d);
    assert_int_equal(fsvc_dataset_index_classes(&d, &err), FSVC_OK);
    assert_int_equal(d.K, 2);
    assert_true(d.class_values[0] == -2 && d.class_values[1] == 7);
    assert_int_equal(d.cls[0], 1);
    assert_int_equal(d.cls[1], 0);
    d.y[1] = 0.0 / 0.0;
    assert_int_equal(fsvc_dataset_index_classes(&d, &err), FSVC_EINPUT);
    fsvc_dataset_free(&d);
    assert_null(d.x);
    fsvc_dataset_free(&d); /* twice is safe */
}

/* A real IDX pair; a missing one fails the test (FX_REQUIRE). */
static void load_real(fsvc_dataset *d, const char *src)
{
    fsvc_error err;
    char p[4200];
    snprintf(p, sizeof p, "%s-images-idx3-ubyte.gz", src);
    FX_REQUIRE(p);
    if (fsvc_dataset_load(d, src, NULL, &err))
        fail_msg("%s", err.msg);
}

static void check_counts(const fsvc_dataset *d, int64_t N, const int64_t *want)
{
    assert_int_equal(d->N, N);
    assert_int_equal(d->n, 784);
    assert_int_equal(d->rows, 28);
    assert_int_equal(d->cols, 28);
    assert_int_equal(d->dtype, FSVC_U8);
    assert_int_equal(d->K, 10);
    int64_t c[10] = {0};
    for (int64_t i = 0; i < d->N; i++)
        c[d->cls[i]]++;
    for (int k = 0; k < 10; k++) {
        assert_true(d->class_values[k] == k);
        assert_int_equal(c[k], want[k]);
    }
}

static void test_mnist(void **state)
{
    (void)state;
    char sh[4096], src[4200];
    fsvc_dataset d;
    snprintf(src, sizeof src, "%s/mnist/train", fx_data(sh, sizeof sh));
    load_real(&d, src);
    const int64_t tr[10] = {5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949};
    check_counts(&d, 60000, tr);
    const int first[10] = {5, 0, 4, 1, 9, 2, 1, 3, 1, 4};
    for (int i = 0; i < 10; i++)
        assert_true(d.y[i] == first[i]);
    double sum = 0;
    for (size_t i = 0; i < 60000u * 784; i++)
        sum += ((uint8_t *)d.x)[i];
    assert_true(sum / (60000.0 * 784) > 33.31 && sum / (60000.0 * 784) < 33.32);
    fsvc_dataset_free(&d);
    snprintf(src, sizeof src, "%s/mnist/t10k", sh);
    load_real(&d, src);
    const int64_t te[10] = {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009};
    check_counts(&d, 10000, te);
    fsvc_dataset_free(&d);
}

static void test_fashion(void **state)
{
    (void)state;
    fsvc_dataset d;
    load_real(&d, "/usr/share/datasets/fashion-mnist/train");
    int64_t w[10];
    for (int k = 0; k < 10; k++)
        w[k] = 6000;
    check_counts(&d, 60000, w);
    fsvc_dataset_free(&d);
    load_real(&d, "/usr/share/datasets/fashion-mnist/t10k");
    for (int k = 0; k < 10; k++)
        w[k] = 1000;
    check_counts(&d, 10000, w);
    fsvc_dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert_scales),
        cmocka_unit_test(test_index_classes),
        cmocka_unit_test(test_mnist),
        cmocka_unit_test(test_fashion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
