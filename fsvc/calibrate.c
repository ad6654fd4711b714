/* calibrate.c - class probabilities calibrated on held-out scores: the
 * folds' scores, the temperature fitted to them, and its use. */
#include "calibrate.h"
#include "comm.h"
#include "internal.h"
#include "../layers/bnl.h" /* bnl_chol, bnl_syrk_acc */
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
    const double *sw;  /* sample weights of X's rows (NULL: all 1) */
} hrows;

#define CAL_CHUNK 1024
/* fold_scores: no centroid is left without the fold (data of a few rows
 * each repeated); the folds are trained again instead (heldout_refit) */
#define CAL_REFIT 100

static int h_chunk(hrows *h, const int64_t *idx, int64_t b, fsvc_error *err)
{
    const fsvc_model *M = h->M;
    size_t row = (size_t)fsvc_model_width(M) * fsvc_dtype_size(M->dtype), mm = (size_t)M->m;
    for (int64_t t = 0; t < b; t++)
        memcpy(h->Xc + (size_t)t * row, (const char *)h->X + (size_t)idx[t] * row, row);
    int rc = bnl_forward(h->ctx, &h->op, h->H, M->m, M->C, M->m, h->Xc, b,
                         (int)fsvc_model_width(M), err);
    if (rc || M->dtype == FSVC_F64) return rc; /* f64: H is Hd already */
    for (size_t q = 0; q < (size_t)b * mm; q++) h->Hd[q] = ((const float *)h->H)[q];
    return FSVC_OK;
}

/* G (lower, m x m) += H^T D H and B (m x K column-major) += sign H^T D T
 * over the samples idx[0..cnt), D the sample weights (h->sw): each row
 * of H times sqrt(w) (the scores use H's own rows, h_chunk again). */
static int gram_rows(double *G, double *B, double sign, hrows *h, const int64_t *idx,
                     int64_t cnt, const int *cls, fsvc_error *err)
{
    int64_t m = h->M->m;
    for (int64_t i0 = 0; i0 < cnt; i0 += CAL_CHUNK) {
        int64_t b = cnt - i0 < CAL_CHUNK ? cnt - i0 : CAL_CHUNK;
        int rc = h_chunk(h, idx + i0, b, err);
        if (rc) return rc;
        for (int64_t t = 0; h->sw && t < b; t++)
            cblas_dscal((int)m, sqrt(h->sw[idx[i0 + t]]), h->Hd + (size_t)t * m, 1);
        bnl_syrk_acc(h->ctx, G, m, h->Hd, m, m, b, 1.0, 0);
        for (int64_t t = 0; t < b; t++)
            cblas_daxpy((int)m, h->sw ? sign * sqrt(h->sw[idx[i0 + t]]) : sign,
                        h->Hd + (size_t)t * m, 1, B + (size_t)cls[idx[i0 + t]] * m, 1);
    }
    return FSVC_OK;
}

/* The ridge readout without fold f's rows (idx, cnt) and without the
 * centroids that are those rows (drop: m flags; a model trained without
 * the fold could not have picked them), by the downdate G - H_f^T H_f
 * (lambda relative to its mean diagonal, as the training does, tripled on
 * a failed factorisation as there), then the scores of those rows into S.
 * A: m x m scratch, W: m x K, kc: m. */
static int fold_scores(double *S, hrows *h, const double *G, const double *B, double lambda,
                       const int64_t *idx, int64_t cnt, const int *cls,
                       const unsigned char *drop, double *A, double *W, int64_t *kc,
                       fsvc_error *err)
{
    int64_t m = h->M->m, mk = 0;
    int K = h->M->Kout, info = 1;
    for (int64_t j = 0; j < m; j++)
        if (!drop[j]) kc[mk++] = j;
    if (mk == 0) /* duplicated rows: each has a copy in the fold */
        return CAL_REFIT;
    for (int attempt = 0; attempt < 6 && info > 0; attempt++) {
        memset(A, 0, (size_t)m * m * sizeof *A);
        memcpy(W, B, (size_t)m * K * sizeof *W);
        int rc = gram_rows(A, W, -1.0, h, idx, cnt, cls, err);
        if (rc) return rc;
        /* packed in place to the kept centroids (leading dimension mk):
         * every write lands at or before the entry it reads */
        double md = 0;
        for (int64_t c = 0; c < mk; c++)
            for (int64_t r = c; r < mk; r++) {
                size_t src = (size_t)kc[c] * m + kc[r];
                A[(size_t)c * mk + r] = G[src] - A[src];
            }
        for (int k = 0; k < K; k++)
            for (int64_t r = 0; r < mk; r++) W[(size_t)k * mk + r] = W[(size_t)k * m + kc[r]];
        for (int64_t c = 0; c < mk; c++) md += A[(size_t)c * mk + c];
        md /= (double)mk;
        double lam = (md > 0 ? lambda * md : lambda) * pow(3, attempt);
        for (int64_t c = 0; c < mk; c++) A[(size_t)c * mk + c] += lam;
        info = bnl_chol(h->ctx, A, mk, mk, 0, NULL);
    }
    if (info == BNL_CHOL_NOMEM)
        return fsvc_fail(err, FSVC_ERESOURCE, "probability: out of memory");
    if (info)
        return fsvc_fail(err, FSVC_EINPUT, "probability: the readout of a fold cannot be "
                         "solved (factorisation %d); raise lambda (-l)", info);
    if (bnl_chol_solve(h->ctx, A, mk, mk, 0, W, K, mk))
        return fsvc_fail(err, FSVC_EINPUT, "probability: the readout of a fold cannot be solved");
    for (int64_t i0 = 0; i0 < cnt; i0 += CAL_CHUNK) {
        int64_t b = cnt - i0 < CAL_CHUNK ? cnt - i0 : CAL_CHUNK;
        int rc = h_chunk(h, idx + i0, b, err);
        if (rc) return rc;
        for (int64_t t = 0; t < b; t++) { /* row t of H (kept columns) times W */
            double *hr = h->Hd + (size_t)t * m;
            for (int64_t r = 0; r < mk; r++) hr[r] = hr[kc[r]];
            cblas_dgemv(CblasColMajor, CblasTrans, (int)mk, K, 1.0, W, (int)mk, hr, 1, 0.0,
                        S + (size_t)idx[i0 + t] * K, 1);
        }
    }
    return FSVC_OK;
}

/* FNV-1a of one row's bytes. */
static uint64_t row_hash(const void *p, size_t len)
{
    uint64_t x = 1469598103934665603ull;
    for (size_t q = 0; q < len; q++) x = (x ^ ((const unsigned char *)p)[q]) * 1099511628211ull;
    return x;
}

typedef struct { uint64_t hash; int64_t j; } keyed;

static int by_hash(const void *a, const void *b)
{
    uint64_t x = ((const keyed *)a)->hash, y = ((const keyed *)b)->hash;
    return x < y ? -1 : x > y;
}

/* drop[j] = 1 for the centroids equal to one of the rows idx[0..cnt) of X
 * (the centroids are copies of prepared training rows). ck: the centroid
 * hashes, sorted. */
static void fold_centroids(unsigned char *drop, const keyed *ck, const fsvc_model *M,
                           const void *X, const int64_t *idx, int64_t cnt)
{
    size_t row = (size_t)fsvc_model_width(M) * fsvc_dtype_size(M->dtype);
    memset(drop, 0, (size_t)M->m);
    for (int64_t t = 0; t < cnt; t++) {
        const char *x = (const char *)X + (size_t)idx[t] * row;
        uint64_t hv = row_hash(x, row);
        int64_t lo = 0, hi = M->m; /* the first key >= hv */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (ck[mid].hash < hv) lo = mid + 1; else hi = mid;
        }
        for (; lo < M->m && ck[lo].hash == hv; lo++)
            if (!memcmp((const char *)M->C + (size_t)ck[lo].j * row, x, row)) drop[ck[lo].j] = 1;
    }
}

/* Dense ridge model, no class weights, no virtual samples: the readout
 * solved again without each held-out fold, on the model's centroids
 * (sample weights as the training weighs them). */
static int heldout_readout(double *S, const fsvc_model *M, const fsvc_dataset *d,
                           const fsvc_param *p, const int *fold, int nuse, fsvc_error *err)
{
    int64_t m = M->m, N = d->N;
    int K = M->Kout;
    size_t row = (size_t)fsvc_model_width(M) * fsvc_dtype_size(M->dtype);
    hrows h = { NULL, { (bnl_dist)M->dist, (bnl_act)M->act, M->dtype, M->radius,
                        (bnl_precision)M->precision }, M, NULL, NULL, NULL, NULL,
                fsvc_weights_real(d) };
    void *X = NULL;
    int rc = fsvc_model_input_train(&X, M, d, p->threads, err);
    if (rc) return rc;
    h.X = X;
    int64_t *idx = malloc((size_t)N * sizeof *idx);
    double *G = calloc((size_t)m * m, sizeof *G), *A = malloc((size_t)m * m * sizeof *A);
    double *B = calloc((size_t)m * K, sizeof *B), *W = malloc((size_t)m * K * sizeof *W);
    int64_t *kc = malloc((size_t)m * sizeof *kc);
    unsigned char *drop = malloc((size_t)m);
    keyed *ck = malloc((size_t)m * sizeof *ck);
    h.Xc = malloc(CAL_CHUNK * row);
    h.Hd = malloc((size_t)CAL_CHUNK * m * sizeof *h.Hd);
    h.H = M->dtype == FSVC_F64 ? (void *)h.Hd : malloc((size_t)CAL_CHUNK * m * sizeof(float));
    bnl_ctx ctx;
    if (!idx || !G || !A || !B || !W || !kc || !drop || !ck || !h.Xc || !h.Hd || !h.H)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "probability: out of memory for %lld centroids "
                       "(%.1f GB)", (long long)m, 16.0 * m * m / 1e9);
    int open = !rc && !(rc = bnl_ctx_open(&ctx, p->backend ? p->backend : "cpu", p->threads,
                                          0, err));
    h.ctx = &ctx;
    int saved = open ? bnl_blas_threads_push(&ctx, 0) : 0;
    for (int64_t j = 0; !rc && j < m; j++)
        ck[j] = (keyed){ row_hash((const char *)M->C + (size_t)j * row, row), j };
    if (!rc) qsort(ck, (size_t)m, sizeof *ck, by_hash);
    for (int64_t i = 0; !rc && i < N; i++) idx[i] = i;
    if (!rc) rc = gram_rows(G, B, 1.0, &h, idx, N, d->cls, err);
    for (int f = 0; !rc && f < nuse; f++) {
        int64_t cnt = fsvc_fold_rows(idx, fold, N, f, 1);
        fold_centroids(drop, ck, M, X, idx, cnt);
        rc = fold_scores(S, &h, G, B, p->lambda, idx, cnt, d->cls, drop, A, W, kc, err);
    }
    if (open) { bnl_blas_threads_pop(saved); bnl_ctx_close(&ctx); }
    if (h.H != h.Hd) free(h.H);
    free(X); free(idx); free(G); free(A); free(B); free(W); free(kc); free(drop); free(ck);
    free(h.Xc); free(h.Hd);
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
        rc = fsvc_train_model(&fm, NULL, &tr, tr.N, 0, &q, fsvc_comm_one(), err);
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

/* 1 when p's class weights differ between d's classes (weights of 1, and
 * balanced classes under "balanced", are no weights: the same model). */
static int class_weighted(const fsvc_param *p, const fsvc_dataset *d)
{
    const char *s = p->class_weight;
    if (!s[0] || !strcmp(s, "none")) return 0;
    if (!strcmp(s, "balanced")) {
        int64_t c0 = 0, ck;
        for (int64_t i = 0; i < d->N; i++) c0 += d->cls[i] == 0;
        for (int k = 1; k < d->K; k++) {
            ck = 0;
            for (int64_t i = 0; i < d->N; i++) ck += d->cls[i] == k;
            if (ck != c0) return 1;
        }
        return 0;
    }
    char label[FSVC_CLASS_WEIGHT_MAX];
    fsvc_error e;
    double w;
    int got = 1;
    while (got) {
        if (fsvc_class_weight_next(&s, label, sizeof label, &w, &got, &e)) return 1;
        if (got && w != 1) return 1;
    }
    return 0;
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
    int weighted = class_weighted(p, d);
    int downdate = !M->Cs && M->readout == FSVC_READOUT_RIDGE && !weighted &&
                   p->augment == FSVC_AUG_NONE;
    if (!rc && downdate)
        rc = heldout_readout(S, M, d, p, fold, nuse, err);
    if (!rc && !downdate) rc = heldout_refit(S, M, d, p, fold, nuse, err);
    if (rc == CAL_REFIT) rc = heldout_refit(S, M, d, p, fold, nuse, err);
    for (int64_t i = 0; !rc && i < d->N; i++) held[i] = fold[i] < nuse;
    free(fold);
    return rc;
}

/* The derivative g and second derivative h of the cross-entropy at
 * temperature a (smoothed targets, see calibrate.h). */
static void calib_slope(double *g, double *h, double a, const double *S, const int *cls,
                        const double *w, const double *cnt, int64_t N, int K)
{
    double G = 0, H = 0;
    for (int64_t i = 0; i < N; i++) {
        const double *s = S + (size_t)i * K;
        double top = s[0], z = 0, ps = 0, ps2 = 0, ts = 0;
        for (int k = 1; k < K; k++) if (s[k] > top) top = s[k];
        for (int k = 0; k < K; k++) z += exp(a * (s[k] - top));
        double eps = 1.0 / (cnt[cls[i]] + 2), other = eps / (K - 1);
        for (int k = 0; k < K; k++) {
            double pk = exp(a * (s[k] - top)) / z;
            ps += pk * s[k];
            ps2 += pk * s[k] * s[k];
            ts += (k == cls[i] ? 1 - eps : other) * s[k];
        }
        double wi = w ? w[i] : 1;
        G += wi * (ps - ts);
        H += wi * (ps2 - ps * ps > 0 ? ps2 - ps * ps : 0);
    }
    *g = G; *h = H;
}

double fsvc_calib_fit(const double *S, const int *cls, const double *w, int64_t N, int K)
{
    if (K < 2 || N < 1) return 0;
    double *cnt = calloc((size_t)K, sizeof *cnt), wsum = 0; /* weight per class, in all */
    if (!cnt) return -1;
    for (int64_t i = 0; i < N; i++) cnt[cls[i]] += w ? w[i] : 1;
    for (int k = 0; k < K; k++) wsum += cnt[k];
    double g, h, lo = 0, hi = 1;
    calib_slope(&g, &h, 0, S, cls, w, cnt, N, K);
    if (!(g < 0)) { free(cnt); return 0; } /* no gain from any a > 0 */
    /* the loss is convex in a: bracket the root of g, then Newton kept
     * inside the bracket (bisection where a step leaves it) */
    for (calib_slope(&g, &h, hi, S, cls, w, cnt, N, K); g < 0 && hi < 1e12;
         calib_slope(&g, &h, hi, S, cls, w, cnt, N, K)) {
        lo = hi;
        hi *= 4;
    }
    if (g < 0) { free(cnt); return hi; } /* still falling at the cap */
    double a = hi;
    for (int it = 0; it < 200; it++) {
        double next = h > 0 ? a - g / h : -1;
        a = next > lo && next < hi ? next : 0.5 * (lo + hi);
        calib_slope(&g, &h, a, S, cls, w, cnt, N, K);
        if (g < 0) lo = a; else hi = a;
        if (hi - lo <= 1e-10 * hi || fabs(g) <= 1e-12 * wsum) break;
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
    const double *dw = fsvc_weights_real(d);
    double *w = dw ? malloc((size_t)d->N * sizeof *w) : NULL;
    if (!S || !held || !cls || (dw && !w)) {
        free(S); free(held); free(cls); free(w);
        return fsvc_fail(err, FSVC_ERESOURCE, "probability: out of memory");
    }
    double t0 = fsvc_clock();
    int rc = fsvc_heldout_scores(S, held, M, d, p, err);
    if (!rc) {
        int64_t n = 0; /* the held-out rows, packed */
        for (int64_t i = 0; i < d->N; i++)
            if (held[i]) {
                memmove(S + (size_t)n * K, S + (size_t)i * K, (size_t)K * sizeof *S);
                if (w) w[n] = dw[i];
                cls[n++] = d->cls[i];
            }
        double a = fsvc_calib_fit(S, cls, w, n, M->K);
        if (a < 0) rc = fsvc_fail(err, FSVC_ERESOURCE, "probability: out of memory");
        M->proba_a = a > 0 ? a : 1e-300; /* held-out scores without information: uniform */
        if (!rc && p->progress)
            fsvc_printf("probability: temperature %.6g fitted on the held-out scores of %lld "
                        "samples (%.2f s)\n", M->proba_a, (long long)n, fsvc_clock() - t0);
    }
    free(S); free(held); free(cls); free(w);
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
                          const fsvc_comm *comm, fsvc_error *err)
{
    if (comm->size > 1)
        return fsvc_fail(err, FSVC_EUSAGE, "train: -b 1 (probabilities) runs as one process "
                         "(its folds need every sample)");
    if (p->regression)
        return fsvc_fail(err, FSVC_EUSAGE, "train: -b 1: a regression model has no class "
                         "probabilities");
    fsvc_param q = *p;
    q.probability = 0;
    int rc = fsvc_train_model(model, info, d, N_total, first, &q, comm, err);
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
