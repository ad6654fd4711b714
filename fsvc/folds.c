/* folds.c - stratified seeded K-fold splits and dataset subsets: what
 * cross-validation (cv.c) and the probability calibration (calibrate.c)
 * share, apart from training so that neither forms a circle of calls. */
#include "study.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fsvc_cv_folds(int *fold, const int *cls, int64_t N, int K, int nfold,
                  uint64_t seed, fsvc_error *err)
{
    if (nfold < 2 || (int64_t)nfold > N)
        return fsvc_fail(err, FSVC_EUSAGE, "cv: %d folds for %lld samples (need 2..N)",
                         nfold, (long long)N);
    if (K < 1)
        return fsvc_fail(err, FSVC_EINPUT, "cv: no classes");
    for (int64_t i = 0; i < N; i++)
        if (cls[i] < 0 || cls[i] >= K)
            return fsvc_fail(err, FSVC_EINPUT, "cv: sample %lld has class %d outside 0..%d",
                             (long long)i + 1, cls[i], K - 1);
    int64_t *idx = malloc((size_t)N * sizeof *idx);
    if (!idx)
        return fsvc_fail(err, FSVC_ERESOURCE, "cv: out of memory");
    int64_t deal = 0; /* the next fold, continuing across classes */
    for (int k = 0; k < K; k++) {
        int64_t cnt = 0;
        for (int64_t i = 0; i < N; i++)
            if (cls[i] == k) idx[cnt++] = i;
        /* a different stream per class, all from the one seed */
        fsvc_shuffle(idx, cnt, seed ^ (0x5851F42D4C957F2Dull * (uint64_t)(k + 1)));
        for (int64_t t = 0; t < cnt; t++) {
            fold[idx[t]] = (int)(deal % nfold);
            deal++;
        }
    }
    free(idx);
    return FSVC_OK;
}

int64_t fsvc_fold_rows(int64_t *idx, const int *fold, int64_t N, int f, int in)
{
    int64_t cnt = 0;
    for (int64_t i = 0; i < N; i++)
        if ((fold[i] == f) == (in != 0)) idx[cnt++] = i;
    return cnt;
}

int fsvc_dataset_subset(fsvc_dataset *out, const fsvc_dataset *d,
                        const int64_t *idx, int64_t cnt, fsvc_error *err)
{
    fsvc_dataset_init_like(out, d, cnt);
    size_t row = (size_t)d->n * fsvc_dtype_size(d->dtype);
    snprintf(out->source, sizeof out->source, "%.400s (%lld of %lld rows)", d->source,
             (long long)cnt, (long long)d->N);
    if (d->csr) { /* sparse data: the rows' nonzeros */
        int rc = fsvc_csr_rows(&out->csr, d->csr, idx, cnt, err);
        if (rc) { fsvc_dataset_free(out); return rc; }
    } else {
        out->x = malloc(cnt ? (size_t)cnt * row : 1);
    }
    if (d->y) out->y = malloc((size_t)(cnt ? cnt : 1) * sizeof *out->y);
    if (d->cls) out->cls = malloc((size_t)(cnt ? cnt : 1) * sizeof *out->cls);
    if (d->weight) out->weight = malloc((size_t)(cnt ? cnt : 1) * sizeof *out->weight);
    if (d->class_values && d->K > 0)
        out->class_values = malloc((size_t)d->K * sizeof *out->class_values);
    if ((!out->x && !out->csr) || (d->y && !out->y) || (d->cls && !out->cls) ||
        (d->weight && !out->weight) ||
        (d->class_values && d->K > 0 && !out->class_values)) {
        fsvc_dataset_free(out);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for a subset of %lld rows",
                         d->source, (long long)cnt);
    }
    for (int64_t t = 0; t < cnt; t++) {
        int64_t i = idx[t];
        if (out->x)
            memcpy((char *)out->x + (size_t)t * row, (const char *)d->x + (size_t)i * row, row);
        if (out->y) out->y[t] = d->y[i];
        if (out->cls) out->cls[t] = d->cls[i];
        if (out->weight) out->weight[t] = d->weight[i];
    }
    if (out->class_values)
        memcpy(out->class_values, d->class_values, (size_t)d->K * sizeof *out->class_values);
    return FSVC_OK;
}
