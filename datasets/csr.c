/* csr.c - sparse data (fsvc_csr): freeing, conversion to and from the
 * dense form, a subset of rows, and fitting the features to a model's.
 * The LIBSVM reader (libsvm.c) makes d->csr; nothing here parses. */
#include "datasets/datasets.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void fsvc_csr_free(fsvc_csr *a)
{
    if (!a)
        return;
    free(a->row_ptr);
    free(a->col);
    free(a->val);
    free(a);
}

static fsvc_csr *csr_alloc(int64_t rows, int64_t nnz)
{
    fsvc_csr *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->rows = rows;
    a->nnz = nnz;
    a->row_ptr = malloc((size_t)(rows + 1) * sizeof *a->row_ptr);
    a->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *a->col);
    a->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *a->val);
    if (!a->row_ptr || !a->col || !a->val) {
        fsvc_csr_free(a);
        return NULL;
    }
    a->row_ptr[0] = 0;
    return a;
}

static double get(const void *x, fsvc_dtype t, size_t i)
{
    switch (t) {
    case FSVC_U8: return ((const uint8_t *)x)[i];
    case FSVC_F32: return ((const float *)x)[i];
    default: return ((const double *)x)[i];
    }
}

/* v as float: beyond the float range +-Inf, as a float conversion makes it. */
static float to_float(double v)
{
    return v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
}

int fsvc_dataset_to_sparse(fsvc_dataset *d, fsvc_error *err)
{
    if (d->csr)
        return FSVC_OK;
    if (d->rows > 0)
        return fsvc_fail(err, FSVC_EINPUT, "%s: images (%d x %d) are not read sparse",
                         d->source, d->rows, d->cols);
    size_t count = (size_t)d->N * (size_t)d->n, nnz = 0;
    for (size_t i = 0; i < count; i++) {
        nnz += to_float(get(d->x, d->dtype, i)) != 0;
    }
    fsvc_csr *a = csr_alloc(d->N, (int64_t)nnz);
    if (!a)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %zu sparse values",
                         d->source, nnz);
    size_t q = 0;
    for (int64_t i = 0; i < d->N; i++) {
        for (int k = 0; k < d->n; k++) {
            float v = to_float(get(d->x, d->dtype, (size_t)i * d->n + k));
            if (v != 0) {
                a->col[q] = k;
                a->val[q++] = v;
            }
        }
        a->row_ptr[i + 1] = (int64_t)q;
    }
    free(d->x);
    d->x = NULL;
    d->csr = a;
    d->dtype = FSVC_F32;
    return FSVC_OK;
}

int fsvc_dataset_to_dense(fsvc_dataset *d, fsvc_error *err)
{
    if (!d->csr)
        return FSVC_OK;
    uint64_t cells = (uint64_t)d->N * (uint64_t)d->n, lim = ds_max_bytes();
    char l[80];
    if (cells > lim / sizeof(float))
        return fsvc_fail(err, FSVC_EINPUT, "%s: dense %lld x %d matrix (%llu bytes) would "
                         "exceed the load limit (%s)", d->source, (long long)d->N, d->n,
                         (unsigned long long)(cells * sizeof(float)),
                         ds_limit_text(l, sizeof l, lim));
    float *x = calloc(cells ? cells : 1, sizeof *x);
    if (!x)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for the dense %lld x %d "
                         "matrix", d->source, (long long)d->N, d->n);
    const fsvc_csr *a = d->csr;
    for (int64_t i = 0; i < a->rows; i++)
        for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
            x[(size_t)i * d->n + (size_t)a->col[e]] = a->val[e];
    fsvc_csr_free(d->csr);
    d->csr = NULL;
    d->x = x;
    d->dtype = FSVC_F32;
    return FSVC_OK;
}

int fsvc_csr_rows(fsvc_csr **out, const fsvc_csr *a, const int64_t *idx, int64_t cnt,
                  fsvc_error *err)
{
    int64_t nnz = 0;
    for (int64_t t = 0; t < cnt; t++)
        nnz += a->row_ptr[idx[t] + 1] - a->row_ptr[idx[t]];
    fsvc_csr *b = csr_alloc(cnt, nnz);
    if (!b)
        return fsvc_fail(err, FSVC_ERESOURCE, "out of memory for %lld sparse rows",
                         (long long)cnt);
    int64_t q = 0;
    for (int64_t t = 0; t < cnt; t++) {
        int64_t s = a->row_ptr[idx[t]], e = a->row_ptr[idx[t] + 1];
        memcpy(b->col + q, a->col + s, (size_t)(e - s) * sizeof *b->col);
        memcpy(b->val + q, a->val + s, (size_t)(e - s) * sizeof *b->val);
        q += e - s;
        b->row_ptr[t + 1] = q;
    }
    *out = b;
    return FSVC_OK;
}

int ds_csr_fit_features(fsvc_dataset *d, int n, int64_t *dropped, int *first_extra,
                        fsvc_error *err)
{
    if (n < 1)
        return fsvc_fail(err, FSVC_EINPUT, "%s: %d features expected", d->source, n);
    fsvc_csr *a = d->csr;
    int64_t drop = 0, q = 0;
    int first = 0;
    for (int64_t i = 0; i < a->rows; i++) { /* in place: q never passes e */
        int64_t s = a->row_ptr[i], e = a->row_ptr[i + 1];
        a->row_ptr[i] = q;
        for (int64_t t = s; t < e; t++) {
            if (a->col[t] < n) {
                a->col[q] = a->col[t];
                a->val[q++] = a->val[t];
            } else {
                drop++;
                if (!first || a->col[t] + 1 < first) first = a->col[t] + 1;
            }
        }
    }
    a->row_ptr[a->rows] = q;
    a->nnz = q;
    d->n = n;
    if (dropped) *dropped = drop;
    if (first_extra) *first_extra = first;
    (void)err;
    return FSVC_OK;
}
