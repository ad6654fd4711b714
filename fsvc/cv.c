/* cv.c - K-fold cross-validation on the folds and subsets of folds.c, on
 * top of fsvc_train / fsvc_predict, or of fsvc_train_lambdas for several
 * lambdas at once (the same folds). */
#include "study.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fold accuracies summed up. */
static void cv_finish(fsvc_cv_result *res, int nfold, int64_t correct_all, int64_t N)
{
    res->nfold = nfold;
    double s = 0, s2 = 0;
    for (int f = 0; f < nfold; f++) s += res->acc[f];
    res->acc_mean = s / nfold;
    for (int f = 0; f < nfold; f++) s2 += (res->acc[f] - res->acc_mean) * (res->acc[f] - res->acc_mean);
    res->acc_sd = sqrt(s2 / (nfold - 1));
    res->acc_pooled = (double)correct_all / N;
}

/* The training and held-out rows of fold f. */
static int fold_sets(fsvc_dataset *tr, fsvc_dataset *te, int64_t *idx, const int *fold,
                     const fsvc_dataset *d, int f, fsvc_error *err)
{
    int64_t ntr = fsvc_fold_rows(idx, fold, d->N, f, 0);
    int rc = fsvc_dataset_subset(tr, d, idx, ntr, err);
    if (rc) return rc;
    int64_t nte = fsvc_fold_rows(idx, fold, d->N, f, 1);
    rc = fsvc_dataset_subset(te, d, idx, nte, err);
    if (rc) fsvc_dataset_free(tr);
    return rc;
}

int fsvc_cross_validate(fsvc_cv_result *res, const fsvc_dataset *d,
                        const fsvc_param *p, int nfold, uint64_t seed,
                        fsvc_error *err)
{
    memset(res, 0, sizeof *res);
    if (!d->cls || !d->has_labels)
        return fsvc_fail(err, FSVC_EINPUT, "%s: cross-validation needs labels", d->source);
    if (nfold > 64)
        return fsvc_fail(err, FSVC_EUSAGE, "cv: at most 64 folds");
    int *fold = malloc((size_t)d->N * sizeof *fold);
    int64_t *idx = malloc((size_t)d->N * sizeof *idx);
    int *pred = malloc((size_t)d->N * sizeof *pred);
    int rc = FSVC_OK;
    if (!fold || !idx || !pred) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "cv: out of memory");
        goto done;
    }
    rc = fsvc_cv_folds(fold, d->cls, d->N, d->K, nfold, seed, err);
    if (rc) goto done;
    int64_t correct_all = 0;
    double t0 = fsvc_clock();
    for (int f = 0; f < nfold && !rc; f++) {
        fsvc_dataset tr, te;
        fsvc_model m;
        if ((rc = fold_sets(&tr, &te, idx, fold, d, f, err))) break;
        int64_t nte = te.N;
        fsvc_train_info info;
        rc = fsvc_train(&m, &info, &tr, p, err);
        if (!rc) {
            res->cg_iter += info.cg_iter;
            rc = fsvc_predict(pred, NULL, &m, &te, p->backend, p->threads, err);
            if (!rc) {
                /* subsets keep d's class index, and so does the model */
                int64_t c = 0;
                for (int64_t t = 0; t < nte; t++) c += pred[t] == te.cls[t];
                correct_all += c;
                res->acc[f] = nte ? (double)c / nte : 0;
                res->m_mean += (double)m.m / nfold;
            }
            fsvc_free_model(&m);
        }
        fsvc_dataset_free(&tr);
        fsvc_dataset_free(&te);
    }
    if (rc) goto done;
    res->t_train = fsvc_clock() - t0;
    cv_finish(res, nfold, correct_all, d->N);
done:
    free(fold); free(idx); free(pred);
    return rc;
}

/* Folds of data without classes (values only): fsvc_cv_folds over one
 * class, seeded, not stratified. */
static int cv_folds_flat(int *fold, int64_t N, int nfold, uint64_t seed, fsvc_error *err)
{
    int *one = calloc((size_t)(N ? N : 1), sizeof *one);
    if (!one) return fsvc_fail(err, FSVC_ERESOURCE, "cv: out of memory");
    int rc = fsvc_cv_folds(fold, one, N, 1, nfold, seed, err);
    free(one);
    return rc;
}

/* The pooled scores and the per-fold RMSE of the held-out values yhat. */
static void cv_regression_finish(fsvc_cv_regression *res, const fsvc_dataset *d,
                                 const int *fold, const double *yhat, int nfold)
{
    double se[64] = {0}, cnt[64] = {0}, s = 0, s2 = 0;
    for (int64_t i = 0; i < d->N; i++) {
        se[fold[i]] += (yhat[i] - d->y[i]) * (yhat[i] - d->y[i]);
        cnt[fold[i]] += 1;
    }
    for (int f = 0; f < nfold; f++) s += sqrt(cnt[f] ? se[f] / cnt[f] : 0) / nfold;
    for (int f = 0; f < nfold; f++) {
        double e = sqrt(cnt[f] ? se[f] / cnt[f] : 0) - s;
        s2 += e * e;
    }
    res->nfold = nfold;
    res->rmse_mean = s;
    res->rmse_sd = sqrt(s2 / (nfold - 1));
    fsvc_regression_stats(&res->mse, &res->r2, d->y, yhat, d->N);
    res->scc = fsvc_squared_correlation(d->y, yhat, d->N);
}

int fsvc_cross_validate_regression(fsvc_cv_regression *res, const fsvc_dataset *d,
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
    int *fold = malloc((size_t)d->N * sizeof *fold), *pred = NULL;
    int64_t *idx = malloc((size_t)d->N * sizeof *idx);
    double *yhat = malloc((size_t)d->N * sizeof *yhat), *score = NULL, r2f[64] = {0};
    pred = malloc((size_t)d->N * sizeof *pred);
    score = malloc((size_t)d->N * sizeof *score);
    int rc = !fold || !idx || !yhat || !pred || !score
           ? fsvc_fail(err, FSVC_ERESOURCE, "cv: out of memory")
           : d->cls ? fsvc_cv_folds(fold, d->cls, d->N, d->K, nfold, seed, err)
                    : cv_folds_flat(fold, d->N, nfold, seed, err);
    double t0 = fsvc_clock();
    for (int f = 0; f < nfold && !rc; f++) {
        fsvc_dataset tr, te;
        fsvc_model m;
        if ((rc = fold_sets(&tr, &te, idx, fold, d, f, err))) break;
        fsvc_train_info info;
        rc = fsvc_train(&m, &info, &tr, p, err);
        if (!rc) {
            rc = fsvc_predict(pred, score, &m, &te, p->backend, p->threads, err);
            int64_t nte = fsvc_fold_rows(idx, fold, d->N, f, 1); /* te's rows, in order */
            for (int64_t t = 0; !rc && t < nte; t++) yhat[idx[t]] = score[t];
            double mse_f;
            if (!rc) fsvc_regression_stats(&mse_f, &r2f[f], te.y, score, te.N);
            res->m_mean += (double)m.m / nfold;
            res->cg_iter += info.cg_iter;
            fsvc_free_model(&m);
        }
        fsvc_dataset_free(&tr);
        fsvc_dataset_free(&te);
    }
    res->t_train = fsvc_clock() - t0;
    if (!rc) cv_regression_finish(res, d, fold, yhat, nfold);
    for (int f = 0; !rc && f < nfold; f++) res->r2_mean += r2f[f] / nfold;
    for (int f = 0; !rc && f < nfold; f++)
        res->r2_sd += (r2f[f] - res->r2_mean) * (r2f[f] - res->r2_mean) / (nfold - 1);
    if (!rc) res->r2_sd = sqrt(res->r2_sd);
    free(fold); free(idx); free(yhat); free(pred); free(score);
    return rc;
}

int fsvc_cross_validate_lambdas(fsvc_cv_result *res, const fsvc_dataset *d,
                                const fsvc_param *p, const fsvc_lambda_set *ls, int nfold,
                                uint64_t seed, fsvc_error *err)
{
    const double *lambda = ls->lambda;
    int nl = ls->nl, warm = ls->warm;
    if (nl < 1 || nl > FSVC_GRID_MAX_VALUES)
        return fsvc_fail(err, FSVC_EUSAGE, "cv: 1 to %d lambdas", FSVC_GRID_MAX_VALUES);
    memset(res, 0, (size_t)nl * sizeof *res);
    if (!d->cls || !d->has_labels)
        return fsvc_fail(err, FSVC_EINPUT, "%s: cross-validation needs labels", d->source);
    if (nfold > 64)
        return fsvc_fail(err, FSVC_EUSAGE, "cv: at most 64 folds");
    int *fold = malloc((size_t)d->N * sizeof *fold);
    int64_t *idx = malloc((size_t)d->N * sizeof *idx);
    int *pred = malloc((size_t)d->N * sizeof *pred);
    int64_t correct[64] = {0};
    int rc = FSVC_OK;
    if (!fold || !idx || !pred) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "cv: out of memory");
        goto done;
    }
    rc = fsvc_cv_folds(fold, d->cls, d->N, d->K, nfold, seed, err);
    for (int f = 0; f < nfold && !rc; f++) {
        fsvc_dataset tr, te;
        fsvc_lambda_path path;
        if ((rc = fold_sets(&tr, &te, idx, fold, d, f, err))) break;
        rc = fsvc_train_lambdas(&path, &tr, p, lambda, nl, warm, err);
        for (int i = 0; i < nl && !rc; i++) {
            if (path.status[i]) { /* the first failing fold speaks for the lambda */
                if (!res[i].status) {
                    res[i].status = path.status[i];
                    snprintf(res[i].msg, sizeof res[i].msg, "%s", path.msg[i]);
                }
                continue;
            }
            fsvc_model m = fsvc_lambda_model(&path, i);
            rc = fsvc_predict(pred, NULL, &m, &te, p->backend, p->threads, err);
            if (rc) break;
            int64_t c = 0;
            for (int64_t t = 0; t < te.N; t++) c += pred[t] == te.cls[t];
            correct[i] += c;
            res[i].acc[f] = te.N ? (double)c / te.N : 0;
            res[i].m_mean += (double)m.m / nfold;
            res[i].cg_iter += path.info[i].cg_iter;
            res[i].t_train += path.info[i].t_select / nl + path.info[i].t_readout;
        }
        fsvc_lambda_path_free(&path); /* empty after a failed fsvc_train_lambdas */
        fsvc_dataset_free(&tr);
        fsvc_dataset_free(&te);
    }
    for (int i = 0; i < nl && !rc; i++)
        if (!res[i].status) cv_finish(&res[i], nfold, correct[i], d->N);
done:
    free(fold); free(idx); free(pred);
    return rc;
}
