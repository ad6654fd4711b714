/* model_input.c - the input exactly as a model sees it: preprocessing,
 * scaling and the model's element type, the same at training and
 * prediction time. */
#include "fsvc.h"
#include "internal.h" /* fsvc_model_input_threads */
#include "deskew.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Value k of sample row as double (before scaling). */
static double get(const void *x, fsvc_dtype t, int64_t k)
{
    switch (t) {
    case FSVC_U8: return ((const uint8_t *)x)[k];
    case FSVC_F32: return ((const float *)x)[k];
    case FSVC_F64: return ((const double *)x)[k];
    }
    return 0;
}

static double scaled(double v, fsvc_scale s)
{
    switch (s) {
    case FSVC_SCALE_NONE: return v;
    case FSVC_SCALE_01: return v / 255.0;
    case FSVC_SCALE_PM1: return v / 127.5 - 1.0;
    }
    return v;
}

/* (v - lo) / (hi - lo) for lo < hi; a range wider than DBL_MAX (e.g.
 * -1e308 .. 1e308) in halves, which are exact: finite data stays finite. */
/* sqrt-u8: out = round(sqrt(255 v)), the sqrt curve on 0..255 kept in u8
 * (in == out allowed). sqrt(255 v) is never k + 1/2 for integers, so the
 * rounding has no ties. */
static void sqrt_u8(uint8_t *out, const uint8_t *in, size_t total)
{
    uint8_t lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = (uint8_t)floor(sqrt(255.0 * v) + 0.5);
    for (size_t k = 0; k < total; k++)
        out[k] = lut[in[k]];
}

static double range01(double v, double lo, double hi)
{
    double w = hi - lo, d = v - lo;
    return isfinite(w) && isfinite(d) ? d / w : (0.5 * v - 0.5 * lo) / (0.5 * hi - 0.5 * lo);
}

int fsvc_model_input(void **out, const fsvc_model *model,
                     const fsvc_dataset *d, fsvc_error *err)
{
    return fsvc_model_input_threads(out, model, d, 0, err);
}

static int model_input(void **out, const fsvc_model *model, const fsvc_dataset *d,
                       int threads, int train, fsvc_error *err);

int fsvc_model_input_threads(void **out, const fsvc_model *model, const fsvc_dataset *d,
                             int threads, fsvc_error *err)
{
    return model_input(out, model, d, threads, 0, err);
}

int fsvc_model_input_train(void **out, const fsvc_model *model, const fsvc_dataset *d,
                           int threads, fsvc_error *err)
{
    return model_input(out, model, d, threads, 1, err);
}

/* Whether d can be the model's input; *s_out: the scaling still to apply
 * (the loader applies it to data that is not u8). */
static int input_check(fsvc_scale *s_out, const fsvc_model *model, const fsvc_dataset *d,
                       fsvc_error *err)
{
    if (d->n != model->n)
        return fsvc_fail(err, FSVC_EINPUT, "%s: %d features, the model expects %d",
                         d->source, d->n, model->n);
    fsvc_scale s = model->scale;
    if (d->dtype != FSVC_U8 && s != FSVC_SCALE_NONE) {
        if (d->scale != s)
            return fsvc_fail(err, FSVC_EINPUT,
                             "%s: %s values cannot take the model's scaling '%s'",
                             d->source, fsvc_dtype_name(d->dtype), fsvc_scale_name(s));
        s = FSVC_SCALE_NONE; /* already applied by the loader */
    }
    if (model->dtype == FSVC_U8 && (d->dtype != FSVC_U8 || s != FSVC_SCALE_NONE))
        return fsvc_fail(err, FSVC_EINPUT, "%s: a u8 model needs unscaled u8 data, got %s",
                         d->source, fsvc_dtype_name(d->dtype));
    if (!fsvc_preprocess_stored((int)model->preprocess))
        return fsvc_fail(err, FSVC_EINPUT, "%s: unknown preprocessing %d", d->source,
                         (int)model->preprocess);
    if ((model->preprocess & FSVC_PRE_SQRT) && model->dtype == FSVC_U8)
        return fsvc_fail(err, FSVC_EINPUT, "%s: sqrt preprocessing needs a float dtype", d->source);
    *s_out = s;
    return FSVC_OK;
}

/* Deskew: d's images straightened into *pre (u8 stays u8; other types
 * become f32, clipped at 0: *st). */
static int deskew_input(void **pre, fsvc_dtype *st, const fsvc_model *model,
                        const fsvc_dataset *d, int threads, fsvc_error *err)
{
    size_t total = (size_t)d->N * (size_t)d->n;
    int rows = model->rows, cols = model->cols, bad;
    if (rows < 1 || cols < 1 || (int64_t)rows * cols != d->n)
        return fsvc_fail(err, FSVC_EINPUT, "%s: deskew needs %d x %d images, the data has %d values",
                         d->source, rows, cols, d->n);
    if (d->dtype == FSVC_U8) {
        *pre = malloc(total ? total : 1);
        bad = !*pre || fsvc_deskew_u8_batch(d->x, *pre, d->N, rows, cols, threads);
    } else {
        float *f = malloc((total ? total : 1) * sizeof *f);
        *pre = f;
        for (size_t k = 0; f && k < total; k++) {
            double v = get(d->x, d->dtype, (int64_t)k);
            f[k] = (float)(v > 0 ? v : 0);
        }
        bad = !f || fsvc_deskew_f32_batch(f, f, d->N, rows, cols, threads);
        *st = FSVC_F32;
    }
    if (bad) {
        free(*pre);
        *pre = NULL;
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: deskew failed (out of memory)", d->source);
    }
    return FSVC_OK;
}

/* The model's preprocessing (fsvc_preprocess) before any scaling: *src
 * (type *st) becomes *pre (malloc'd) when there is one. With HOG
 * features, *hog: the raw HOG of the images after deskew, before sqrt-u8. */
static int preprocess_input(void **pre, float **hog, const void **src, fsvc_dtype *st,
                            const fsvc_model *model, const fsvc_dataset *d, int threads,
                            fsvc_error *err)
{
    size_t total = (size_t)d->N * (size_t)d->n;
    int rc;
    if (model->preprocess & FSVC_PRE_DESKEW) {
        if ((rc = deskew_input(pre, st, model, d, threads, err))) return rc;
        *src = *pre;
    }
    if (model->features == FSVC_FEAT_HOG &&
        (rc = fsvc_hog_raw(hog, model, *src, *st, d, threads, err)))
        return rc;
    if (model->preprocess & FSVC_PRE_SQRT_U8) {
        if (d->dtype != FSVC_U8)
            return fsvc_fail(err, FSVC_EINPUT, "%s: sqrt-u8 preprocessing needs u8 data, got %s",
                             d->source, fsvc_dtype_name(d->dtype));
        if (!*pre && !(*pre = malloc(total ? total : 1)))
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %zu input values",
                             d->source, total);
        sqrt_u8(*pre, *src, total);
        *src = *pre;
    }
    return FSVC_OK;
}

/* The values of src (type st, preprocessed) as the model's type into x:
 * the feature range, the scaling s, sqrt. A value not finite is
 * FSVC_EINPUT naming the sample, and so, when training (train), is one
 * beyond float32's range for a float32 model. */
static int convert(void *x, const void *src, fsvc_dtype st, fsvc_scale s,
                   const fsvc_model *model, const fsvc_dataset *d, int train, fsvc_error *err)
{
    size_t total = (size_t)d->N * (size_t)d->n;
    const double *lo = model->feat_min, *hi = model->feat_max;
    int sq = (model->preprocess & FSVC_PRE_SQRT) != 0;
    for (size_t k = 0; k < total; k++) {
        double v = get(src, st, (int64_t)k);
        if (lo) { /* svm-scale to [-1, 1]; a constant feature becomes 0 */
            size_t f = k % (size_t)d->n;
            v = hi[f] > lo[f] ? -1.0 + 2.0 * range01(v, lo[f], hi[f]) : 0.0;
        }
        v = scaled(v, s);
        if (sq) v = sqrt(v > 0 ? v : 0);
        if (!isfinite(v))
            return fsvc_fail(err, FSVC_EINPUT, "%s: value %zu of sample %zu is not finite",
                             d->source, k % (size_t)d->n + 1, k / (size_t)d->n + 1);
        if (train && model->dtype == FSVC_F32 && fabs(v) > FLT_MAX) /* (float)v: +-Inf */
            return fsvc_fail(err, FSVC_EINPUT, "%s: value %zu of sample %zu (%g) is beyond "
                             "float32's range (+-3.4e38), the model's type (train "
                             "with --dtype f64)",
                             d->source, k % (size_t)d->n + 1, k / (size_t)d->n + 1, v);
        if (model->dtype == FSVC_F32) ((float *)x)[k] = (float)v;
        else if (model->dtype == FSVC_F64) ((double *)x)[k] = v;
        else ((uint8_t *)x)[k] = (uint8_t)v;
    }
    return FSVC_OK;
}

static int model_input(void **out, const fsvc_model *model, const fsvc_dataset *d,
                       int threads, int train, fsvc_error *err)
{
    fsvc_scale s = FSVC_SCALE_NONE;
    *out = NULL;
    int rc = input_check(&s, model, d, err);
    if (rc) return rc;
    size_t total = (size_t)d->N * (size_t)d->n;
    size_t es = fsvc_dtype_size(model->dtype);
    const void *src = d->x;
    fsvc_dtype st = d->dtype;
    void *pre = NULL, *x = NULL;
    float *hog = NULL;
    const double *lo = model->feat_min, *hi = model->feat_max;
    if ((rc = preprocess_input(&pre, &hog, &src, &st, model, d, threads, err))) goto done;
    if (model->dtype == FSVC_U8 && st != FSVC_U8) {
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: a u8 model needs u8 data", d->source);
        goto done;
    }
    if (lo && (!hi || pre)) {
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: feature scaling needs the raw features",
                       d->source);
        goto done;
    }
    if (!(x = malloc(total ? total * es : 1))) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %zu input values",
                       d->source, total);
        goto done;
    }
    if (model->dtype == st && s == FSVC_SCALE_NONE && !(model->preprocess & FSVC_PRE_SQRT) && !lo)
        memcpy(x, src, total * es);
    else
        rc = convert(x, src, st, s, model, d, train, err);
    if (!rc && hog) rc = fsvc_hog_join(&x, hog, model, d, err);
done:
    free(pre);
    free(hog);
    if (rc) {
        free(x);
        return rc;
    }
    *out = x;
    return FSVC_OK;
}
