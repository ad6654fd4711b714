/* calibrate.c - class probabilities calibrated on held-out scores: the
 * folds' scores, the temperature fitted to them, and its use. */
#include "calibrate.h"
#include "dist.h"
#include "internal.h"
#include "chol.h"
#include "study.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* H rows of the samples idx[0..b) as doubles (b x m) in Hd. */
typedef struct {
    const bnl_ctx *ctx;
    bnl_op op;
    const fsvc_model *M;
    const void *X;     /* the prepared input, N x n of M->dtype */
    char *Xc;          /* chunk inputs, Nc x n */
    void *H;           /* chunk of H as the engine gives it (float or double) */
    double *Hd;        /* the same in double, Nc x m */
} hrows;

#define CAL_CHUNK 1024

static int h_chunk(hrows *h, const int64_t *idx, int64_t b, fsvc_error *err)
{
    const fsvc_model *M = h->M;
    size_t row = (size_t)M->n * fsvc_dtype_size(M->dtype), mm = (size_t)M->m;
    for (int64_t t = 0; t < b; t++)
        memcpy(h->Xc + (size_t)t * row, (const char *)h->X + (size_t)idx[t] * row, row);
    int rc = bnl_forward(h->ctx, &h->op, h->H, M->m, M->C, M->m, h->Xc, b, M->n, err);
    if (rc || M->dtype == FSVC_F64) return rc; /* f64: H is Hd already */
    for (size_t q = 0; q < (size_t)b * mm; q++) h->Hd[q] = ((const float *)h->H)[q];
    return FSVC_OK;
}

/* G (lower, m x m) += H^T H and B (m x K column-major) += sign H^T T over
 * the samples idx[0..cnt). */
static int gram_rows(double *G, double *B, double sign, hrows *h, const int64_t *idx,
                     int64_t cnt, const int *cls, fsvc_error *err)
{
    int64_t m = h->M->m;
    for (int64_t i0 = 0; i0 < cnt; i0 += CAL_CHUNK) {
        int64_t b = cnt - i0 < CAL_CHUNK ? cnt - i0 : CAL_CHUNK;
        int rc = h_chunk(h, idx + i0, b, err);
        if (rc) return rc;
        fsvc_syrk_acc(h->ctx, G, m, h->Hd, m, m, b, 1.0, 0);
        for (int64_t t = 0; t < b; t++)
            cblas_daxpy((int)m, sign, h->Hd + (size_t)t * m, 1, B + (size_t)cls[idx[i0 + t]] * m, 1);
    }
    return FSVC_OK;
}

/* The ridge readout without fold f's rows (idx, cnt), by the downdate
 * G - H_f^T H_f (lambda relative to its mean diagonal, as the training
 * does, tripled on a failed factorisation as there), then the scores of
 * those rows into S. A: m x m scratch, W: m x K. */
static int fold_scores(double *S, hrows *h, const double *G, const double *B, double lambda,
                       const int64_t *idx, int64_t cnt, const int *cls, double *A, double *W,
                       fsvc_error *err)
{
    int64_t m = h->M->m;
    int K = h->M->Kout, info = 1;
    for (int attempt = 0; attempt < 6 && info > 0; attempt++) {
        memset(A, 0, (size_t)m * m * sizeof *A);
        memcpy(W, B, (size_t)m * K * sizeof *W);
        int rc = gram_rows(A, W, -1.0, h, idx, cnt, cls, err);
        if (rc) return rc;
        double md = 0;
        for (int64_t j = 0; j < m; j++) md += G[(size_t)j * m + j] - A[(size_t)j * m + j];
        md /= (double)m;
        double lam = (md > 0 ? lambda * md : lambda) * pow(3, attempt);
        for (int64_t j = 0; j < m; j++) /* the lower triangle: G - A + lam I */
            for (int64_t i = j; i < m; i++)
                A[(size_t)j * m + i] = G[(size_t)j * m + i] - A[(size_t)j * m + i] + (i == j ? lam : 0);
        info = fsvc_chol(h->ctx, A, m, m, 0, NULL);
    }
    if (info)
        return fsvc_fail(err, FSVC_EINPUT, "probability: the readout of a fold cannot be "
                         "solved (factorisation %d); raise lambda (-l)", info);
    if (fsvc_chol_solve(h->ctx, A, m, m, 0, W, K, m))
        return fsvc_fail(err, FSVC_EINPUT, "probability: the readout of a fold cannot be solved");
    for (int64_t i0 = 0; i0 < cnt; i0 += CAL_CHUNK) {
        int64_t b = cnt - i0 < CAL_CHUNK ? cnt - i0 : CAL_CHUNK;
        int rc = h_chunk(h, idx + i0, b, err);
        if (rc) return rc;
        for (int64_t t = 0; t < b; t++) /* row t of H times W (column-major m x K) */
            cblas_dgemv(CblasColMajor, CblasTrans, (int)m, K, 1.0, W, (int)m,
                        h->Hd + (size_t)t * m, 1, 0.0, S + (size_t)idx[i0 + t] * K, 1);
    }
    return FSVC_OK;
}

/* Dense ridge model, no class weights, no virtual samples: the readout
 * solved again without each held-out fold, on the model's centroids. */
static int heldout_readout(double *S, const fsvc_model *M, const fsvc_dataset *d,
                           const fsvc_param *p, const int *fold, int nuse, fsvc_error *err)
{
    int64_t m = M->m, N = d->N;
    int K = M->Kout;
    size_t row = (size_t)M->n * fsvc_dtype_size(M->dtype);
    hrows h = { NULL, { (bnl_dist)M->dist, (bnl_act)M->act, M->dtype, M->radius,
                        (bnl_precision)M->precision }, M, NULL, NULL, NULL, NULL };
    void *X = NULL;
    int rc = fsvc_model_input_train(&X, M, d, p->threads, err);
    if (rc) return rc;
    h.X = X;
    int64_t *idx = malloc((size_t)N * sizeof *idx);
    double *G = calloc((size_t)m * m, sizeof *G), *A = malloc((size_t)m * m * sizeof *A);
    double *B = calloc((size_t)m * K, sizeof *B), *W = malloc((size_t)m * K * sizeof *W);
    h.Xc = malloc(CAL_CHUNK * row);
    h.Hd = malloc((size_t)CAL_CHUNK * m * sizeof *h.Hd);
    h.H = M->dtype == FSVC_F64 ? (void *)h.Hd : malloc((size_t)CAL_CHUNK * m * sizeof(float));
    bnl_ctx ctx;
    if (!idx || !G || !A || !B || !W || !h.Xc || !h.Hd || !h.H)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "probability: out of memory for %lld centroids "
                       "(%.1f GB)", (long long)m, 16.0 * m * m / 1e9);
    int open = !rc && !(rc = bnl_ctx_open(&ctx, p->backend ? p->backend : "cpu", p->threads,
                                          0, err));
    h.ctx = &ctx;
    int saved = open ? bnl_blas_threads_push(&ctx, 0) : 0;
    for (int64_t i = 0; i < N; i++) idx[i] = i;
    if (!rc) rc = gram_rows(G, B, 1.0, &h, idx, N, d->cls, err);
    for (int f = 0; !rc && f < nuse; f++) {
        int64_t cnt = fsvc_fold_rows(idx, fold, N, f, 1);
        rc = fold_scores(S, &h, G, B, p->lambda, idx, cnt, d->cls, A, W, err);
    }
    if (open) { bnl_blas_threads_pop(saved); bnl_ctx_close(&ctx); }
    if (h.H != h.Hd) free(h.H);
    free(X); free(idx); free(G); free(A); free(B); free(W); free(h.Xc); free(h.Hd);
    return rc;
}

/* Any other model: a model trained per fold with M's radius, as svm-train
 * -b 1 does (5 more trainings on 4/5 of the data). */
static int heldout_refit(double *S, const fsvc_model *M, const fsvc_dataset *d,
                         const fsvc_param *p, const int *fold, int nfold, fsvc_error *err)
{
    fsvc_param q = *p;
    q.probability = 0;
    q.progress = 0;
    q.radius = M->radius; /* no radius search or rms rule per fold */
    int K = M->Kout, rc = FSVC_OK;
    int64_t *idx = malloc((size_t)d->N * sizeof *idx);
    double *Y = malloc((size_t)d->N * K * sizeof *Y);
    if (!idx || !Y) rc = fsvc_fail(err, FSVC_ERESOURCE, "probability: out of memory");
    for (int f = 0; !rc && f < nfold; f++) {
        fsvc_dataset tr, te;
        fsvc_model fm;
        int64_t ntr = fsvc_fold_rows(idx, fold, d->N, f, 0);
        if ((rc = fsvc_dataset_subset(&tr, d, idx, ntr, err))) break;
        int64_t nte = fsvc_fold_rows(idx, fold, d->N, f, 1);
        if ((rc = fsvc_dataset_subset(&te, d, idx, nte, err))) { fsvc_dataset_free(&tr); break; }
        rc = fsvc_train(&fm, NULL, &tr, &q, err);
        int trained = !rc;
        if (!rc && fm.Kout != K) /* a fold keeps d's class list (subsets share it) */
            rc = fsvc_fail(err, FSVC_EINPUT, "probability: a fold's model has %d classes, "
                           "not %d", fm.Kout, K);
        if (!rc) rc = fsvc_predict(NULL, Y, &fm, &te, p->backend, p->threads, err);
        for (int64_t t = 0; !rc && t < nte; t++)
            memcpy(S + (size_t)idx[t] * K, Y + (size_t)t * K, (size_t)K * sizeof *Y);
        if (trained) fsvc_free_model(&fm);
        fsvc_dataset_free(&tr);
        fsvc_dataset_free(&te);
    }
    free(idx); free(Y);
    return rc;
}

int fsvc_heldout_scores(double *S, int *held, const fsvc_model *M, const fsvc_dataset *d,
                        const fsvc_param *p, fsvc_error *err)
{
    if (M->regression || M->K < 2 || !d->cls)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: class probabilities (-b 1) need a classifier "
                         "of 2 classes or more", d->source);
    /* folds of about FSVC_CALIB_ROWS / FSVC_CALIB_FOLDS samples, the first
     * FSVC_CALIB_FOLDS of them held out in turn */
    int64_t nf = (d->N + FSVC_CALIB_ROWS / FSVC_CALIB_FOLDS - 1) / (FSVC_CALIB_ROWS / FSVC_CALIB_FOLDS);
    if (nf < FSVC_CALIB_FOLDS) nf = FSVC_CALIB_FOLDS;
    if (nf > d->N) nf = d->N;
    int nuse = nf < FSVC_CALIB_FOLDS ? (int)nf : FSVC_CALIB_FOLDS;
    int *fold = malloc((size_t)d->N * sizeof *fold);
    if (!fold) return fsvc_fail(err, FSVC_ERESOURCE, "probability: out of memory");
    int rc = fsvc_cv_folds(fold, d->cls, d->N, M->K, (int)nf, p->seed, err);
    int weighted = p->class_weight[0] && strcmp(p->class_weight, "none");
    if (!rc)
        rc = !M->Cs && M->readout == FSVC_READOUT_RIDGE && !weighted &&
             p->augment == FSVC_AUG_NONE
           ? heldout_readout(S, M, d, p, fold, nuse, err)
           : heldout_refit(S, M, d, p, fold, nuse, err);
    for (int64_t i = 0; !rc && i < d->N; i++) held[i] = fold[i] < nuse;
    free(fold);
    return rc;
}

/* The derivative g and second derivative h of the cross-entropy at
 * temperature a (smoothed targets, see calibrate.h). */
static void calib_slope(double *g, double *h, double a, const double *S, const int *cls,
                        const int64_t *cnt, int64_t N, int K)
{
    double G = 0, H = 0;
    for (int64_t i = 0; i < N; i++) {
        const double *s = S + (size_t)i * K;
        double top = s[0], z = 0, ps = 0, ps2 = 0, ts = 0;
        for (int k = 1; k < K; k++) if (s[k] > top) top = s[k];
        for (int k = 0; k < K; k++) z += exp(a * (s[k] - top));
        double eps = 1.0 / ((double)cnt[cls[i]] + 2), other = eps / (K - 1);
        for (int k = 0; k < K; k++) {
            double pk = exp(a * (s[k] - top)) / z;
            ps += pk * s[k];
            ps2 += pk * s[k] * s[k];
            ts += (k == cls[i] ? 1 - eps : other) * s[k];
        }
        G += ps - ts;
        H += ps2 - ps * ps > 0 ? ps2 - ps * ps : 0;
    }
    *g = G; *h = H;
}

double fsvc_calib_fit(const double *S, const int *cls, int64_t N, int K)
{
    if (K < 2 || N < 1) return 0;
    int64_t *cnt = calloc((size_t)K, sizeof *cnt);
    if (!cnt) return 0;
    for (int64_t i = 0; i < N; i++) cnt[cls[i]]++;
    double g, h, lo = 0, hi = 1;
    calib_slope(&g, &h, 0, S, cls, cnt, N, K);
    if (!(g < 0)) { free(cnt); return 0; } /* no gain from any a > 0 */
    /* the loss is convex in a: bracket the root of g, then Newton kept
     * inside the bracket (bisection where a step leaves it) */
    for (calib_slope(&g, &h, hi, S, cls, cnt, N, K); g < 0 && hi < 1e12;
         calib_slope(&g, &h, hi, S, cls, cnt, N, K)) {
        lo = hi;
        hi *= 4;
    }
    if (g < 0) { free(cnt); return hi; } /* still falling at the cap */
    double a = hi;
    for (int it = 0; it < 200; it++) {
        double next = h > 0 ? a - g / h : -1;
        a = next > lo && next < hi ? next : 0.5 * (lo + hi);
        calib_slope(&g, &h, a, S, cls, cnt, N, K);
        if (g < 0) lo = a; else hi = a;
        if (hi - lo <= 1e-10 * hi || fabs(g) <= 1e-12 * (double)N) break;
    }
    free(cnt);
    return a;
}

int fsvc_calibrate(fsvc_model *M, const fsvc_dataset *d, const fsvc_param *p,
                   fsvc_error *err)
{
    int K = M->Kout > 0 ? M->Kout : 1;
    double *S = malloc((size_t)(d->N ? d->N : 1) * K * sizeof *S);
    int *held = malloc((size_t)(d->N ? d->N : 1) * sizeof *held);
    int *cls = malloc((size_t)(d->N ? d->N : 1) * sizeof *cls);
    if (!S || !held || !cls) {
        free(S); free(held); free(cls);
        return fsvc_fail(err, FSVC_ERESOURCE, "probability: out of memory");
    }
    double t0 = fsvc_clock();
    int rc = fsvc_heldout_scores(S, held, M, d, p, err);
    if (!rc) {
        int64_t n = 0; /* the held-out rows, packed */
        for (int64_t i = 0; i < d->N; i++)
            if (held[i]) {
                memmove(S + (size_t)n * K, S + (size_t)i * K, (size_t)K * sizeof *S);
                cls[n++] = d->cls[i];
            }
        double a = fsvc_calib_fit(S, cls, n, M->K);
        M->proba_a = a > 0 ? a : 1e-300; /* held-out scores without information: uniform */
        if (p->progress)
            fsvc_printf("probability: temperature %.6g fitted on the held-out scores of %lld "
                        "samples (%.2f s)\n", M->proba_a, (long long)n, fsvc_clock() - t0);
    }
    free(S); free(held); free(cls);
    return rc;
}

void fsvc_model_proba(double *proba, const double *score, const fsvc_model *M, int64_t N)
{
    int K = M->Kout;
    double a = M->proba_a > 0 ? M->proba_a : 1;
    for (int64_t i = 0; i < N; i++) {
        const double *s = score + (size_t)i * K;
        double *q = proba + (size_t)i * K, z = 0, top = s[0];
        for (int k = 1; k < K; k++) if (s[k] > top) top = s[k];
        for (int k = 0; k < K; k++) z += (q[k] = exp(a * (s[k] - top))); /* s[k] read first */
        for (int k = 0; k < K; k++) q[k] /= z;
    }
}

int fsvc_model_calibrated(const fsvc_model *M) { return M->proba_a > 0; }

int fsvc_train_calibrated(fsvc_model *model, fsvc_train_info *info, const fsvc_dataset *d,
                          int64_t N_total, int64_t first, const fsvc_param *p,
                          const fsvc_dist *dist, fsvc_error *err)
{
    if (dist->size > 1)
        return fsvc_fail(err, FSVC_EUSAGE, "train: -b 1 (probabilities) runs as one process "
                         "(its folds need every sample)");
    if (p->regression)
        return fsvc_fail(err, FSVC_EUSAGE, "train: -b 1: a regression model has no class "
                         "probabilities");
    fsvc_param q = *p;
    q.probability = 0;
    int rc = fsvc_train_dist(model, info, d, N_total, first, &q, dist, err);
    if (rc) return rc;
    if (model->K < 2) {
        fsvc_free_model(model);
        return fsvc_fail(err, FSVC_EUSAGE, "%s: class probabilities (-b 1) need 2 classes or "
                         "more", d->source);
    }
    rc = fsvc_calibrate(model, d, p, err);
    if (rc) fsvc_free_model(model);
    return rc;
}
