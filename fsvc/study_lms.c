/* study_lms.c - the LMS readout with a validation split: the learning-curve
 * view (validation and training error per epoch, best epoch kept). The
 * epochs are the trainer's own LMS epoch (fsvc_readout_lms, fsvc/readout.c:
 * file order, 0/1 targets, no bias, W += eta * outer(z, e)),
 * run one at a time from the one-hot start. */
#include "study.h"
#include "internal.h"
#include "solver.h"

#include <stdlib.h>
#include <string.h>

void fsvc_lms_curve_free(fsvc_lms_curve *c)
{
    if (!c) return;
    free(c->train_err);
    free(c->val_err);
    memset(c, 0, sizeof *c);
}

static int error_rate(double *out, int *pred, const fsvc_model *m, const fsvc_dataset *d,
                      const fsvc_param *p, fsvc_error *err)
{
    int rc = fsvc_predict(pred, NULL, m, d, p->backend, p->threads, err);
    if (rc) return rc;
    int64_t bad = 0;
    for (int64_t i = 0; i < d->N; i++) bad += pred[i] != d->cls[i];
    *out = d->N ? (double)bad / d->N : 0;
    return FSVC_OK;
}

int fsvc_train_lms_val(fsvc_model *model, fsvc_train_info *info,
                       fsvc_lms_curve *curve, const fsvc_dataset *d,
                       const fsvc_param *p, const fsvc_lms_val_opt *o, fsvc_error *err)
{
    double val = o->val;
    memset(model, 0, sizeof *model);
    memset(curve, 0, sizeof *curve);
    if (!(val > 0 && val < 1))
        return fsvc_fail(err, FSVC_EUSAGE, "--val: fraction %g not in (0, 1)", val);
    if (p->regression)
        return fsvc_fail(err, FSVC_EUSAGE, "--val: classification only");
    if (!d->cls || d->K < 1)
        return fsvc_fail(err, FSVC_EINPUT, "%s: --val needs labels", d->source);
    int nv = (int)(1.0 / val + 0.5); /* a stratified 1-in-nv split */
    if (nv < 2) nv = 2;
    if (nv > d->N) return fsvc_fail(err, FSVC_EINPUT, "%s: too few samples for --val", d->source);
    int *fold = malloc((size_t)d->N * sizeof *fold);
    int64_t *idx = malloc((size_t)d->N * sizeof *idx);
    int *pred = malloc((size_t)d->N * sizeof *pred);
    double *Rbest = NULL;
    void *X = NULL;
    fsvc_dataset tr, va;
    memset(&tr, 0, sizeof tr);
    memset(&va, 0, sizeof va);
    bnl_ctx ctx;
    int ctx_open = 0, rc;
    if (!fold || !idx || !pred) { rc = fsvc_fail(err, FSVC_ERESOURCE, "--val: out of memory"); goto done; }
    rc = fsvc_cv_folds(fold, d->cls, d->N, d->K, nv, o->seed, err);
    if (rc) goto done;
    rc = fsvc_dataset_subset(&tr, d, idx, fsvc_fold_rows(idx, fold, d->N, 0, 0), err);
    if (rc) goto done;
    rc = fsvc_dataset_subset(&va, d, idx, fsvc_fold_rows(idx, fold, d->N, 0, 1), err);
    if (rc) goto done;
    fsvc_param p1 = *p;
    p1.readout = FSVC_READOUT_ONEHOT; /* the start; the epochs follow here */
    rc = fsvc_train(model, info, &tr, &p1, err);
    if (rc) goto done;
    model->readout = FSVC_READOUT_LMS;
    double t0 = fsvc_clock();
    int E = p->epochs;
    curve->train_err = malloc((size_t)(E + 1) * sizeof *curve->train_err);
    curve->val_err = malloc((size_t)(E + 1) * sizeof *curve->val_err);
    Rbest = malloc((size_t)model->m * model->Kout * sizeof *Rbest);
    if (!curve->train_err || !curve->val_err || !Rbest) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "--val: out of memory");
        goto done;
    }
    curve->n_train = tr.N;
    curve->n_val = va.N;
    rc = fsvc_model_input_train(&X, model, &tr, p->threads, err);
    if (rc) goto done;
    rc = bnl_ctx_open(&ctx, p->backend ? p->backend : "cpu", p->threads, 0, err);
    if (rc) goto done;
    ctx_open = 1;
    bnl_op op = { (bnl_dist)model->dist, (bnl_act)model->act, model->dtype, model->radius,
                  (bnl_precision)model->precision };
    size_t rbytes = (size_t)model->m * model->Kout * sizeof *Rbest;
    for (int e = 0; e <= E; e++) {
        if (e > 0) {
            fsvc_ridge_problem pb = {.ctx = &ctx, .op = &op, .C = model->C, .m = model->m,
                                     .X = X, .cls = tr.cls, .N = tr.N,
                                     .n = (int)fsvc_model_width(model),
                                     .K = model->K, .sw = fsvc_weights_real(&tr)};
            rc = fsvc_readout_lms(model->R, &pb, p->eta, 1, 0, err);
            if (rc) goto done;
        }
        rc = error_rate(&curve->train_err[e], pred, model, &tr, p, err);
        if (!rc) rc = error_rate(&curve->val_err[e], pred, model, &va, p, err);
        if (rc) goto done;
        curve->epochs = e;
        if (e == 0 || curve->val_err[e] < curve->val_err[curve->best_epoch]) {
            curve->best_epoch = e;
            memcpy(Rbest, model->R, rbytes);
        }
        if (p->progress == FSVC_PROGRESS_ALL)
            fsvc_printf("lms: epoch %d/%d, train error %.4f, validation error %.4f\n", e, E,
                        curve->train_err[e], curve->val_err[e]);
    }
    if (o->keep_best) memcpy(model->R, Rbest, rbytes);
    if (info) {
        info->t_readout += fsvc_clock() - t0;
        info->syn_readout = (double)model->m * tr.N * (double)fsvc_model_width(model) * E;
    }
done:
    if (rc) {
        fsvc_free_model(model);
        fsvc_lms_curve_free(curve);
    }
    if (ctx_open) bnl_ctx_close(&ctx);
    free(X); free(Rbest); free(fold); free(idx); free(pred);
    fsvc_dataset_free(&tr);
    fsvc_dataset_free(&va);
    return rc;
}
