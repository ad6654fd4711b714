/* dataset.c - fsvc_dataset itself: initialising, freeing, class index,
 * dtype conversion and scaling (below the loaders; loading by source kind
 * is datasets/load.c, above them). */
#include "datasets/datasets.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void ds_dataset_init(fsvc_dataset *d, const char *source)
{
    memset(d, 0, sizeof *d);
    snprintf(d->source, sizeof d->source, "%s", source ? source : "");
}

void fsvc_dataset_init_like(fsvc_dataset *out, const fsvc_dataset *d, int64_t N)
{
    memset(out, 0, sizeof *out);
    out->N = N;
    out->n = d->n;
    out->dtype = d->dtype;
    out->has_labels = d->has_labels;
    out->K = d->K;
    out->rows = d->rows;
    out->cols = d->cols;
    out->channels = d->channels;
    out->scale = d->scale;
    memcpy(out->source, d->source, sizeof out->source);
}

void fsvc_dataset_free(fsvc_dataset *d)
{
    if (!d)
        return;
    if (d->class_names)
        for (int k = 0; k < d->K; k++)
            free(d->class_names[k]);
    if (d->paths)
        for (int64_t i = 0; i < d->N; i++)
            free(d->paths[i]);
    free(d->class_names);
    free(d->paths);
    free(d->x);
    free(d->y);
    free(d->cls);
    free(d->class_values);
    free(d->weight);
    fsvc_csr_free(d->csr);
    ds_dataset_init(d, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int fsvc_dataset_index_classes(fsvc_dataset *d, fsvc_error *err)
{
    if (!d->y || d->N <= 0)
        return fsvc_fail(err, FSVC_EINPUT, "%s: no labels", d->source);
    for (int64_t i = 0; i < d->N; i++)
        if (!isfinite(d->y[i]))
            return fsvc_fail(err, FSVC_EINPUT, "%s: label of sample %lld is not finite",
                             d->source, (long long)i);
    double *v = malloc((size_t)d->N * sizeof *v);
    int *cls = malloc((size_t)d->N * sizeof *cls);
    if (!v || !cls) {
        free(v);
        free(cls);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    }
    memcpy(v, d->y, (size_t)d->N * sizeof *v);
    qsort(v, (size_t)d->N, sizeof *v, cmp_double);
    int64_t K = 0;
    for (int64_t i = 0; i < d->N; i++)
        if (K == 0 || v[i] != v[K - 1])
            v[K++] = v[i];
    if (K > 0x7fffffff) {
        free(v);
        free(cls);
        return fsvc_fail(err, FSVC_EINPUT, "%s: too many distinct labels", d->source);
    }
    double *vals = realloc(v, (size_t)K * sizeof *v);
    if (vals)
        v = vals;
    for (int64_t i = 0; i < d->N; i++) {
        int64_t lo = 0, hi = K - 1;
        while (lo < hi) { /* first value >= y */
            int64_t mid = (lo + hi) / 2;
            if (v[mid] < d->y[i]) lo = mid + 1; else hi = mid;
        }
        cls[i] = (int)lo;
    }
    if (d->class_names && K != d->K) {
        for (int k = 0; k < d->K; k++)
            free(d->class_names[k]);
        free(d->class_names);
        d->class_names = NULL;
    }
    free(d->cls);
    free(d->class_values);
    d->cls = cls;
    d->class_values = v;
    d->K = (int)K;
    d->has_labels = 1;
    return FSVC_OK;
}

/* Element i of x as a double, whatever its dtype. */
static double get(const void *x, fsvc_dtype t, size_t i)
{
    switch (t) {
    case FSVC_U8: return ((const uint8_t *)x)[i];
    case FSVC_F32: return ((const float *)x)[i];
    default: return ((const double *)x)[i];
    }
}

/* "read it --dense" where dense data can hold d (the engine's 65536
 * features at most), else why not. */
static const char *dense_hint(const fsvc_dataset *d)
{
    return d->n > FSVC_SPARSE_AUTO_N ? " (and too many features to read it dense)"
                                     : " (read it --dense)";
}

int fsvc_dataset_convert(fsvc_dataset *d, fsvc_dtype to, fsvc_scale scale,
                         fsvc_error *err)
{
    if (to != FSVC_U8 && to != FSVC_F32 && to != FSVC_F64)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: unknown dtype %d", d->source, (int)to);
    if (scale != FSVC_SCALE_NONE && (d->dtype != FSVC_U8 || to == FSVC_U8))
        return fsvc_fail(err, FSVC_EUSAGE, "%s: scale '%s' applies to u8 data converted "
                         "to floats only (data is %s, target %s)", d->source,
                         fsvc_scale_name(scale), fsvc_dtype_name(d->dtype),
                         fsvc_dtype_name(to));
    if (to == d->dtype)
        return FSVC_OK;
    if (d->csr)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: sparse data holds float32 values; it does "
                         "not convert to %s%s", d->source, fsvc_dtype_name(to),
                         dense_hint(d));
    size_t count = (size_t)d->N * (size_t)d->n;
    if (to == FSVC_U8) { /* floats back to u8: only integers 0..255 */
        for (size_t i = 0; i < count; i++) {
            double v = get(d->x, d->dtype, i);
            if (!(v >= 0 && v <= 255 && v == floor(v)))
                return fsvc_fail(err, FSVC_EINPUT, "%s: value %g (sample %zu, feature %zu) "
                                 "is not an integer in 0..255, cannot convert to u8",
                                 d->source, v, i / (size_t)d->n, i % (size_t)d->n);
        }
    }
    void *x = malloc(count ? count * fsvc_dtype_size(to) : 1);
    if (!x)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory converting to %s",
                         d->source, fsvc_dtype_name(to));
    double lut[256]; /* u8 sources: the scaled value of each byte */
    for (int v = 0; v < 256; v++)
        lut[v] = scale == FSVC_SCALE_01 ? v / 255.0
               : scale == FSVC_SCALE_PM1 ? v / 127.5 - 1.0 : v;
    for (size_t i = 0; i < count; i++) {
        double v = d->dtype == FSVC_U8 ? lut[((const uint8_t *)d->x)[i]]
                                       : get(d->x, d->dtype, i);
        switch (to) {
        case FSVC_U8: ((uint8_t *)x)[i] = (uint8_t)v; break;
        case FSVC_F32: ((float *)x)[i] = (float)v; break;
        default: ((double *)x)[i] = v; break;
        }
    }
    free(d->x);
    d->x = x;
    d->dtype = to;
    d->scale = scale;
    return FSVC_OK;
}

int fsvc_dataset_set_shape(fsvc_dataset *d, int rows, int cols, fsvc_error *err)
{
    if (rows < 1 || cols < 1 || (int64_t)rows * cols != d->n)
        return fsvc_fail(err, FSVC_EINPUT, "%s: image shape %d x %d is %lld values, the "
                         "data has %d features", d->source, rows, cols,
                         (long long)rows * cols, d->n);
    if (d->csr)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: sparse data has no image shape%s", d->source,
                         dense_hint(d));
    d->rows = rows;
    d->cols = cols;
    if (d->dtype == FSVC_U8)
        return FSVC_OK;
    size_t count = (size_t)d->N * (size_t)d->n;
    for (size_t i = 0; i < count; i++) {
        double v = get(d->x, d->dtype, i);
        if (!(v >= 0 && v <= 255 && v == (double)(int)v))
            return FSVC_OK; /* not 8-bit pixels: the values stay as they are */
    }
    unsigned char *u = malloc(count ? count : 1);
    if (!u)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    for (size_t i = 0; i < count; i++)
        u[i] = (unsigned char)get(d->x, d->dtype, i);
    free(d->x);
    d->x = u;
    d->dtype = FSVC_U8;
    return FSVC_OK;
}

int fsvc_dataset_fit_features(fsvc_dataset *d, int n, int64_t *dropped, int *first_extra,
                              fsvc_error *err)
{
    int64_t drop = 0;
    int first = 0;
    if (dropped) *dropped = 0;
    if (first_extra) *first_extra = 0;
    if (d->n == n)
        return FSVC_OK;
    if (d->csr)
        return ds_csr_fit_features(d, n, dropped, first_extra, err);
    if (n < 1 || d->rows > 0)
        return fsvc_fail(err, FSVC_EINPUT, "%s: %d features, %d expected (%d x %d images "
                         "cannot be padded or cut)", d->source, d->n, n, d->rows, d->cols);
    size_t es = fsvc_dtype_size(d->dtype), keep = (size_t)(n < d->n ? n : d->n);
    unsigned char *x = calloc((size_t)d->N * (size_t)n + 1, es);
    if (!x)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    for (int64_t i = 0; i < d->N; i++) {
        const unsigned char *row = (const unsigned char *)d->x + (size_t)i * d->n * es;
        memcpy(x + (size_t)i * n * es, row, keep * es);
        for (int k = n; k < d->n; k++)
            if (get(row, d->dtype, (size_t)k) != 0) {
                drop++;
                if (!first || k + 1 < first) first = k + 1;
            }
    }
    free(d->x);
    d->x = x;
    d->n = n;
    if (dropped) *dropped = drop;
    if (first_extra) *first_extra = first;
    return FSVC_OK;
}
