/* sparse_predict.c - fsvc_predict on a sparse model or sparse data
 * (sparse.h): the samples as CSR rows, the scores by the sparse layer. */
#include "sparse.h"

#include <stdlib.h>
#include <string.h>

/* d's rows as CSR without changing d (a copy for dense d). */
static int csr_of(fsvc_csr **out, int *owned, const fsvc_dataset *d, fsvc_error *err)
{
    if (d->csr) { *out = d->csr; *owned = 0; return FSVC_OK; }
    fsvc_dataset t = *d; /* a shallow copy whose x is converted */
    size_t count = (size_t)d->N * (size_t)d->n, es = fsvc_dtype_size(d->dtype);
    t.x = malloc(count ? count * es : 1);
    if (!t.x) return fsvc_fail(err, FSVC_ERESOURCE, "predict: out of memory");
    memcpy(t.x, d->x, count * es);
    t.rows = t.cols = 0;
    t.csr = NULL;
    int rc = fsvc_dataset_to_sparse(&t, err);
    if (rc) { free(t.x); return rc; }
    *out = t.csr;
    *owned = 1;
    return FSVC_OK;
}

int fsvc_predict_sparse(int *pred, double *score, const fsvc_model *model,
                        const fsvc_dataset *d, int threads, fsvc_error *err)
{
    if (d->n != model->n)
        return fsvc_fail(err, FSVC_EINPUT, "%s: %d features, the model expects %d", d->source,
                         d->n, model->n);
    if (!model->Cs) { /* a dense model: sparse d made dense (a copy) */
        int64_t *all = malloc((size_t)(d->N ? d->N : 1) * sizeof *all);
        if (!all) return fsvc_fail(err, FSVC_ERESOURCE, "predict: out of memory");
        for (int64_t i = 0; i < d->N; i++) all[i] = i;
        fsvc_dataset t = *d; /* shallow: only x (made here) is freed */
        t.csr = NULL;
        int rc = fsvc_csr_rows(&t.csr, d->csr, all, d->N, err);
        free(all);
        if (!rc) rc = fsvc_dataset_to_dense(&t, err);
        bnl_ctx c;
        if (!rc && !(rc = bnl_ctx_open(&c, "cpu", threads, 0, err))) {
            rc = fsvc_predict_ctx(pred, score, model, &t, &c, threads, err);
            bnl_ctx_close(&c);
        }
        fsvc_csr_free(t.csr);
        free(t.x);
        return rc;
    }
    fsvc_csr *X = NULL;
    int owned = 0;
    int rc = csr_of(&X, &owned, d, err);
    if (rc) return rc;
    bnl_ctx ctx;
    if ((rc = bnl_ctx_open(&ctx, "cpu", threads, 0, err))) {
        if (owned) fsvc_csr_free(X);
        return rc;
    }
    int64_t m = model->m;
    int K = model->Kout;
    int64_t Nc = (int64_t)((1 << 25) / ((size_t)m * sizeof(float)));
    if (Nc < 16) Nc = 16;
    if (Nc > 4096) Nc = 4096;
    bnl_op op = {(bnl_dist)model->dist, (bnl_act)model->act, FSVC_F32, model->radius, BNL_PREC_FULL};
    bnl_csc Ct = {0};
    bnl_csr cv = fsvc_csr_view(model->Cs, 0, m);
    float *H = malloc((size_t)Nc * m * sizeof *H);
    double *Y = malloc((size_t)Nc * K * sizeof *Y);
    if (!H || !Y) rc = fsvc_fail(err, FSVC_ERESOURCE, "predict: out of memory");
    if (!rc) rc = bnl_csc_make(&Ct, &cv, model->n, op.dist, err);
    for (int64_t i0 = 0; !rc && i0 < d->N; i0 += Nc) {
        int64_t b = d->N - i0 < Nc ? d->N - i0 : Nc;
        bnl_csr v = fsvc_csr_view(X, i0, b);
        if ((rc = bnl_sparse_forward(&ctx, &op, H, m, &Ct, &v, err))) break;
        if ((rc = bnl_scores_host(&ctx, Y, H, b, m, model->R, K, err))) break;
        rc = fsvc_scores_pick(model, Y, b, i0, pred, score, d->source, err);
    }
    free(H); free(Y);
    bnl_csc_free(&Ct);
    bnl_ctx_close(&ctx);
    if (owned) fsvc_csr_free(X);
    return rc;
}
