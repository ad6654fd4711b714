/* model_hog.c - the HOG features of a model's input (fsvc_features hog):
 * each image's HOG (fsvc/hog.h), times the model's hog_scale, after its
 * values as the model sees them. */
#include "internal.h"
#include "hog.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int fsvc_hog_raw(float **h, const fsvc_model *M, const void *img, fsvc_dtype st,
                 const fsvc_dataset *d, int threads, fsvc_error *err)
{
    int64_t w = fsvc_hog_width(M->rows, M->cols);
    *h = NULL;
    if (w < 1 || d->csr || (int64_t)M->rows * M->cols != d->n)
        return fsvc_fail(err, FSVC_EINPUT, "%s: HOG features need dense %d x %d images, the "
                         "data has %d values a sample", d->source, M->rows, M->cols, d->n);
    *h = malloc((size_t)(d->N ? d->N : 1) * (size_t)w * sizeof **h);
    if (!*h || fsvc_hog_batch(*h, img, st, st == FSVC_U8 ? 1.0 / 255 : 1.0, d->N, M->rows,
                              M->cols, threads)) {
        free(*h);
        *h = NULL;
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for the HOG of %lld images",
                         d->source, (long long)d->N);
    }
    return FSVC_OK;
}

int fsvc_hog_join(void **x, const float *h, const fsvc_model *M, const fsvc_dataset *d,
                  fsvc_error *err)
{
    size_t n = (size_t)M->n, w = (size_t)fsvc_model_width(M), hw = w - n;
    size_t es = fsvc_dtype_size(M->dtype);
    unsigned char *y = malloc((size_t)(d->N ? d->N : 1) * w * es);
    if (!y)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %lld x %zu input values",
                         d->source, (long long)d->N, w);
    const double s = M->hog_scale;
    for (int64_t i = 0; i < d->N; i++) {
        unsigned char *row = y + (size_t)i * w * es;
        memcpy(row, (const unsigned char *)*x + (size_t)i * n * es, n * es);
        const float *hi = h + (size_t)i * hw;
        for (size_t k = 0; k < hw; k++) {
            double v = s * hi[k];
            if (!isfinite(v) || (M->dtype == FSVC_F32 && v > FLT_MAX)) {
                free(y);
                return fsvc_fail(err, FSVC_EINPUT, "%s: the HOG of sample %lld is not "
                                 "finite (values too large)", d->source, (long long)i + 1);
            }
            if (M->dtype == FSVC_U8) row[n + k] = v >= 254.5 ? 255 : (unsigned char)(v + 0.5);
            else if (M->dtype == FSVC_F32) ((float *)row)[n + k] = (float)v;
            else ((double *)row)[n + k] = v;
        }
    }
    free(*x);
    *x = y;
    return FSVC_OK;
}
