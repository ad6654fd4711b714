/* model_input.c - the input exactly as a model sees it: preprocessing,
 * scaling and the model's element type, the same at training and
 * prediction time. */
#include "fsvc.h"

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

int fsvc_model_input(void **out, const fsvc_model *model,
                     const fsvc_dataset *d, fsvc_error *err)
{
    *out = NULL;
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
    /* preprocessing steps (fsvc_preprocess) go here, before scaling */
    size_t total = (size_t)d->N * (size_t)d->n;
    size_t es = fsvc_dtype_size(model->dtype);
    void *x = malloc(total ? total * es : 1);
    if (!x)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %zu input values",
                         d->source, total);
    if (model->dtype == d->dtype && s == FSVC_SCALE_NONE) {
        memcpy(x, d->x, total * es);
    } else {
        for (size_t k = 0; k < total; k++) {
            double v = scaled(get(d->x, d->dtype, (int64_t)k), s);
            if (!isfinite(v)) {
                free(x);
                return fsvc_fail(err, FSVC_EINPUT, "%s: value %zu of sample %zu is not finite",
                                 d->source, k % (size_t)d->n + 1, k / (size_t)d->n + 1);
            }
            if (model->dtype == FSVC_F32) ((float *)x)[k] = (float)v;
            else if (model->dtype == FSVC_F64) ((double *)x)[k] = v;
            else ((uint8_t *)x)[k] = (uint8_t)v;
        }
    }
    *out = x;
    return FSVC_OK;
}
