/* study_reg.c - K-fold cross-validation of a regression (study.h): the
 * folds as fsvc_cv_folds deals them for one class (seeded, unstratified),
 * scored by R^2 and the root mean squared error. */
#include "study.h"
#include "internal.h" /* fsvc_clock */

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fold f: trained on the other folds, its R^2 into res, its held-out
 * predictions into yhat at their rows (idx: capacity N). */
static int reg_fold(fsvc_cv_result *res, double *yhat, int64_t *idx, const int *fold,
                    const fsvc_dataset *d, const fsvc_param *p, int f, fsvc_error *err)
{
    fsvc_dataset tr, te;
    int64_t ntr = fsvc_fold_rows(idx, fold, d->N, f, 0);
    int rc = fsvc_dataset_subset(&tr, d, idx, ntr, err);
    if (rc) return rc;
    int64_t nte = fsvc_fold_rows(idx, fold, d->N, f, 1);
    rc = fsvc_dataset_subset(&te, d, idx, nte, err);
    if (rc) { fsvc_dataset_free(&tr); return rc; }
    fsvc_model m;
    fsvc_train_info info;
    int *pred = malloc((size_t)(nte ? nte : 1) * sizeof *pred);
    double *s = malloc((size_t)(nte ? nte : 1) * sizeof *s);
    rc = pred && s ? fsvc_train(&m, &info, &tr, p, err)
                   : fsvc_fail(err, FSVC_ERESOURCE, "cv: out of memory");
    if (!rc) {
        res->cg_iter += info.cg_iter;
        res->m_mean += (double)m.m / res->nfold;
        rc = fsvc_predict(pred, s, &m, &te, p->backend, p->threads, err);
        fsvc_free_model(&m);
    }
    if (!rc) {
        double mse;
        fsvc_regression_stats(&mse, &res->acc[f], te.y, s, nte);
        for (int64_t t = 0; t < nte; t++) yhat[idx[t]] = s[t];
    }
    free(pred);
    free(s);
    fsvc_dataset_free(&tr);
    fsvc_dataset_free(&te);
    return rc;
}

int fsvc_cross_validate_regression(fsvc_cv_result *res, const fsvc_dataset *d,
                                   const fsvc_param *p, int nfold, uint64_t seed,
                                   fsvc_error *err)
{
    memset(res, 0, sizeof *res);
    if (!d->y || !d->has_labels)
        return fsvc_fail(err, FSVC_EINPUT, "%s: cross-validation needs labels", d->source);
    if (!p->regression)
        return fsvc_fail(err, FSVC_EUSAGE, "cv: regression cross-validation of settings "
                         "without --regression");
    if (nfold > 64)
        return fsvc_fail(err, FSVC_EUSAGE, "cv: at most 64 folds");
    int *fold = malloc((size_t)(d->N ? d->N : 1) * sizeof *fold);
    int *one = calloc((size_t)(d->N ? d->N : 1), sizeof *one); /* every sample class 0 */
    int64_t *idx = malloc((size_t)(d->N ? d->N : 1) * sizeof *idx);
    double *yhat = malloc((size_t)(d->N ? d->N : 1) * sizeof *yhat);
    int rc = fold && one && idx && yhat ? fsvc_cv_folds(fold, one, d->N, 1, nfold, seed, err)
                                        : fsvc_fail(err, FSVC_ERESOURCE, "cv: out of memory");
    res->nfold = nfold;
    double t0 = fsvc_clock();
    for (int f = 0; f < nfold && !rc; f++)
        rc = reg_fold(res, yhat, idx, fold, d, p, f, err);
    if (!rc) {
        res->t_train = fsvc_clock() - t0;
        double s = 0, s2 = 0, mse;
        for (int f = 0; f < nfold; f++) s += res->acc[f];
        res->acc_mean = s / nfold;
        for (int f = 0; f < nfold; f++)
            s2 += (res->acc[f] - res->acc_mean) * (res->acc[f] - res->acc_mean);
        res->acc_sd = sqrt(s2 / (nfold - 1));
        fsvc_regression_stats(&mse, &res->acc_pooled, d->y, yhat, d->N);
        res->rmse = sqrt(mse);
    }
    free(fold); free(one); free(idx); free(yhat);
    return rc;
}
