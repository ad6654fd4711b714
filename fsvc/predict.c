/* predict.c - fsvc_predict: the model checked first (fsvc_model_check: no
 * garbage predictions from degenerate values), then the dense path
 * (predict_dense.c) or the sparse one (sparse_predict.c). */
#include "internal.h"
#include "sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int fsvc_predict(int *pred, double *score, const fsvc_model *model,
                 const fsvc_dataset *d, const char *backend, int threads,
                 fsvc_error *err)
{
    /* a model built in memory gets the checks a loaded one had */
    int rc = fsvc_model_check(model, "predict: model", err);
    if (rc) return rc;
    if (model->Cs || d->csr) /* sparse model or data: fsvc/sparse_train.c */
        return fsvc_predict_sparse(pred, score, model, d, threads, err);
    bnl_ctx ctx;
    rc = bnl_ctx_open(&ctx, backend ? backend : "cpu", threads, 0, err);
    if (rc) return rc;
    rc = fsvc_predict_ctx(pred, score, model, d, &ctx, threads, err);
    bnl_ctx_close(&ctx);
    return rc;
}
