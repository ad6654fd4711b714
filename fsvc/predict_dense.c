/* predict_dense.c - fsvc_predict_ctx: readout scores Y = H R through
 * bnl_scores in sample chunks (one call on a device, which keeps H there),
 * argmax (first index wins ties), or the regression value; fsvc_scores_pick
 * is shared with the sparse path (sparse_predict.c). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int fsvc_scores_pick(const fsvc_model *model, const double *Y, int64_t b, int64_t i0,
                     int *pred, double *score, const char *source, fsvc_error *err)
{
    int K = model->Kout;
    for (int64_t i = 0; i < b; i++) {
        const double *y = Y + (size_t)i * K;
        for (int k = 0; k < K; k++)
            if (!isfinite(y[k]))
                return fsvc_fail(err, FSVC_EINPUT, "%s: sample %lld: the model's score %d is "
                                 "not finite (its readout weights overflow)", source,
                                 (long long)(i0 + i + 1), k + 1);
        if (model->regression) {
            if (pred) pred[i0 + i] = 0;
            if (score) score[i0 + i] = y[0] + model->y_offset;
            continue;
        }
        int best = 0;
        for (int k = 1; k < K; k++)
            if (y[k] > y[best]) best = k;
        if (pred) pred[i0 + i] = best;
        if (score) memcpy(score + (size_t)(i0 + i) * K, y, (size_t)K * sizeof *y);
    }
    return FSVC_OK;
}

int fsvc_predict_ctx(int *pred, double *score, const fsvc_model *model,
                     const fsvc_dataset *d, bnl_ctx *ctx, int threads, fsvc_error *err)
{
    void *X = NULL;
    int rc = fsvc_model_input_threads(&X, model, d, threads, err);
    if (rc) return rc;
    bnl_op op = { (bnl_dist)model->dist, (bnl_act)model->act, model->dtype, model->radius,
                  (bnl_precision)model->precision };
    int K = model->Kout, n = (int)fsvc_model_width(model);
    size_t row = (size_t)n * fsvc_dtype_size(model->dtype);
    /* on a device one call: W and R go up once, only Y comes back */
    int64_t Nc = bnl_scores_rows(ctx, d->N, FSVC_PREDICT_CHUNK);
    /* Y: the rows of one chunk, no more than the samples (a model of 10^6
     * classes needs 8 MB a sample: 65 GB for a whole chunk) */
    int64_t Ny = d->N < Nc ? (d->N > 0 ? d->N : 1) : Nc;
    int held = 0;
    double *Y = malloc((size_t)Ny * K * sizeof *Y); /* Y: Ny x K */
    if (!Y) { rc = fsvc_fail(err, FSVC_ERESOURCE, "predict: out of memory"); goto done; }
    /* the chunks share what the engine derives from the centroids */
    held = bnl_weights_hold(ctx, model->C, model->m, n) == 0;
    for (int64_t i0 = 0; i0 < d->N; i0 += Nc) {
        int64_t b = d->N - i0 < Nc ? d->N - i0 : Nc;
        rc = bnl_scores(ctx, &op, Y, model->C, model->m, (const char *)X + (size_t)i0 * row,
                        b, n, model->R, K, err);
        if (rc) goto done;
        if ((rc = fsvc_scores_pick(model, Y, b, i0, pred, score, d->source, err))) goto done;
    }
done:
    if (held) bnl_weights_release(ctx, model->C, model->m, n);
    free(Y); free(X);
    return rc;
}
