/* sparse_ridge.c - the ridge readout on sparse data (sparse.h): H chunks
 * from the sparse layer, then the direct solve (H^T H by dsyrk in double,
 * Cholesky) or the PCG of fsvc/pcg.c through block products of its own
 * (fsvc_hops). The lambda rule, its retries and the words of degenerate
 * systems are those of fsvc/ridge.c; sample weights as there (rows of H
 * and T times sqrt(w), the products H^T D T and H^T D H V). */
#include "sparse.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SP_CHUNK_BYTES (1 << 25) /* one H chunk, float */
#define SP_PCG_MAX_ITER 500
#define SP_RAM_USE 0.9

static int64_t chunk_rows(int64_t m, int64_t N)
{
    int64_t Nc = (int64_t)(SP_CHUNK_BYTES / ((size_t)m * sizeof(float)));
    if (Nc < 64) Nc = 64;
    if (Nc > 4096) Nc = 4096;
    return Nc > N ? (N > 0 ? N : 1) : Nc;
}

/* ---- the direct solve ---- */

/* One solve of the lambda rule: A = G + lam I, its Cholesky factor, B. */
typedef struct sp_sys {
    const bnl_ctx *ctx;
    const double *G;
    double *A;
    int64_t m;
    int K, bars;
} sp_sys;

static int sp_solve(void *self, double lam, double *B, int *info, fsvc_error *err)
{
    sp_sys *s = self;
    int64_t m = s->m;
    (void)err;
    memcpy(s->A, s->G, (size_t)m * m * sizeof *s->A);
    for (int64_t j = 0; j < m; j++) s->A[(size_t)j * m + j] += lam;
    bnl_chol_progress pr = {"ridge", 0.5};
    *info = bnl_chol(s->ctx, s->A, m, m, 0, s->bars ? &pr : NULL);
    if (!*info) *info = bnl_chol_solve(s->ctx, s->A, m, m, 0, B, s->K, m);
    return FSVC_OK;
}

static int direct(double *R, const fsvc_sparse_problem *pb, double lambda, int progress,
                  double *times, fsvc_error *err)
{
    const bnl_ctx *ctx = pb->ctx;
    const fsvc_csr *X = pb->X;
    const int *cls = pb->cls;
    const double *y = pb->y, *sw = pb->sw;
    int K = pb->K;
    int64_t m = pb->Ct->m, N = X->rows, Nc = chunk_rows(m, N);
    double *G = calloc((size_t)m * m, sizeof *G);       /* upper (column-major lower) */
    double *A = malloc((size_t)m * m * sizeof *A);      /* G + lam I, factored */
    double *Hd = malloc((size_t)Nc * m * sizeof *Hd);   /* chunk widened to double */
    float *H = malloc((size_t)Nc * m * sizeof *H);
    double *B0 = calloc((size_t)m * K, sizeof *B0);     /* H^T T, column-major m x K */
    double *B = malloc((size_t)m * K * sizeof *B);
    double *dg = malloc((size_t)m * sizeof *dg);        /* diag(H^T H) */
    int rc = FSVC_OK;
    if (!G || !A || !Hd || !H || !B0 || !B || !dg) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory for %lld centroids",
                       (long long)m);
        goto done;
    }
    double t_h = 0, t_g = 0, t0;
    for (int64_t i0 = 0; i0 < N; i0 += Nc) {
        int64_t b = N - i0 < Nc ? N - i0 : Nc;
        bnl_csr v = fsvc_csr_view(X, i0, b);
        t0 = fsvc_clock();
        if ((rc = bnl_sparse_forward(ctx, pb->op, H, m, pb->Ct, &v, err))) goto done;
        t_h += fsvc_clock() - t0;
        t0 = fsvc_clock();
        for (size_t q = 0; q < (size_t)b * m; q++) Hd[q] = H[q];
        for (int64_t i = 0; sw && i < b; i++) /* rows of H and T times sqrt(w) */
            cblas_dscal((int)m, sqrt(sw[i0 + i]), Hd + (size_t)i * m, 1);
        /* row-major H_c: H_c^T H_c into G's upper = column-major lower */
        bnl_syrk_acc(ctx, G, m, Hd, m, m, b, 1.0, 0); /* fixed blocks: any --threads */
        for (int64_t i = 0; i < b; i++) {
            const double *h = Hd + (size_t)i * m;
            double t = sw ? sqrt(sw[i0 + i]) * (y ? y[i0 + i] : 1) : y ? y[i0 + i] : 1;
            double *bk = B0 + (y ? 0 : (size_t)cls[i0 + i] * m);
            if (y || sw) { for (int64_t j = 0; j < m; j++) bk[j] += h[j] * t; }
            else { for (int64_t j = 0; j < m; j++) bk[j] += h[j]; }
        }
        t_g += fsvc_clock() - t0;
    }
    for (int64_t j = 0; j < m; j++) dg[j] = G[(size_t)j * m + j];
    sp_sys ss = {ctx, G, A, m, K, progress == FSVC_PROGRESS_ALL};
    fsvc_ridge_sys sys = {sp_solve, &ss, dg, m, K, B0, B};
    double tc = fsvc_clock();
    rc = fsvc_ridge_lambda_solve(&sys, lambda, pb->op->radius, progress, err);
    if (times) { times[0] = t_h; times[1] = t_g; times[2] = fsvc_clock() - tc; }
    if (rc)
        goto done;
    for (int64_t j = 0; j < m; j++)
        for (int k = 0; k < K; k++) R[j * K + k] = B[(size_t)k * m + j];
done:
    free(G); free(A); free(Hd); free(H); free(B0); free(B); free(dg);
    return rc;
}

/* ---- the PCG block products ---- */

typedef struct sp_src {
    const bnl_ctx *ctx;
    const bnl_op *op;
    const bnl_csc *Ct;
    const fsvc_csr *C, *X;
    const int *cls;
    const double *y, *sw;   /* targets (or NULL), sample weights (or NULL) */
    int64_t m, N, Nc;
    int K;
    float *H, *U, *Vs, *Ys; /* chunk Nc x m (or all of H when cached); Nc x K; K x m; K x m */
    int cache, cached;
    fsvc_hsrc *src;
} sp_src;

static int sp_chunk(sp_src *s, int64_t i0, int64_t b, float **Hc, fsvc_error *err)
{
    float *dst = s->cache ? s->H + (size_t)i0 * s->m : s->H;
    *Hc = dst;
    if (s->cached) return FSVC_OK;
    double t = fsvc_clock();
    bnl_csr v = fsvc_csr_view(s->X, i0, b);
    int rc = bnl_sparse_forward(s->ctx, s->op, dst, s->m, s->Ct, &v, err);
    s->src->t_h += fsvc_clock() - t;
    return rc;
}

static int sp_rhs(void *self, double *B, double *sumsq, fsvc_error *err)
{
    sp_src *s = self;
    int64_t m = s->m;
    double ss = 0;
    memset(B, 0, (size_t)m * s->K * sizeof *B);
    for (int64_t i0 = 0; i0 < s->N; i0 += s->Nc) {
        int64_t b = s->N - i0 < s->Nc ? s->N - i0 : s->Nc;
        float *Hc;
        int rc = sp_chunk(s, i0, b, &Hc, err);
        if (rc) return rc;
        double t = fsvc_clock();
        for (int64_t i = 0; i < b; i++) {
            const float *h = Hc + (size_t)i * m;
            double w = s->y ? s->y[i0 + i] : 1.0, sw = s->sw ? s->sw[i0 + i] : 1.0;
            double *bk = B + (s->y ? 0 : (size_t)s->cls[i0 + i] * m);
            for (int64_t j = 0; j < m; j++) { /* H^T D T and trace(H^T D H) */
                bk[j] += s->sw ? sw * w * h[j] : w * h[j];
                ss += s->sw ? sw * h[j] * h[j] : (double)h[j] * h[j];
            }
        }
        s->src->t_prod += fsvc_clock() - t;
    }
    if (s->cache) s->cached = 1;
    *sumsq = ss;
    return FSVC_OK;
}

static int sp_gram_apply(void *self, double *Y, const double *V, fsvc_error *err)
{
    sp_src *s = self;
    int64_t m = s->m;
    int K = s->K;
    size_t mk = (size_t)m * K;
    for (size_t q = 0; q < mk; q++) s->Vs[q] = (float)V[q]; /* V^T row-major K x m */
    memset(Y, 0, mk * sizeof *Y);
    for (int64_t i0 = 0; i0 < s->N; i0 += s->Nc) {
        int64_t b = s->N - i0 < s->Nc ? s->N - i0 : s->Nc;
        float *Hc;
        int rc = sp_chunk(s, i0, b, &Hc, err);
        if (rc) return rc;
        double t = fsvc_clock();
        /* U = H_c V (b x K), Y^T += U^T H_c (K x m); on one BLAS thread:
         * OpenBLAS's threaded sgemm rounds differently per thread count,
         * and the model bytes must not depend on --threads */
        int saved = bnl_blas_threads_push(s->ctx, 1);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)b, K, (int)m, 1.0f, Hc,
                    (int)m, s->Vs, (int)m, 0.0f, s->U, K);
        for (int64_t i = 0; s->sw && i < b; i++) /* U = D H_c V */
            for (int k = 0; k < K; k++) s->U[(size_t)i * K + k] *= (float)s->sw[i0 + i];
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, (int)m, (int)b, 1.0f, s->U, K,
                    Hc, (int)m, 0.0f, s->Ys, (int)m);
        bnl_blas_threads_pop(saved);
        for (size_t q = 0; q < mk; q++) Y[q] += s->Ys[q];
        s->src->t_prod += fsvc_clock() - t;
    }
    if (s->cache) s->cached = 1;
    return FSVC_OK;
}

static int sp_kmm(void *self, void *Kmm, int f32, fsvc_error *err)
{
    sp_src *s = self;
    int64_t m = s->m;
    double t = fsvc_clock();
    int rc = FSVC_OK;
    if (f32) {
        bnl_csr v = fsvc_csr_view(s->C, 0, m);
        rc = bnl_sparse_forward(s->ctx, s->op, Kmm, m, s->Ct, &v, err);
    } else { /* row blocks through a float buffer, widened */
        int64_t bc = 256 < m ? 256 : m;
        float *T = malloc((size_t)bc * m * sizeof *T);
        if (!T) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory for K_mm");
        for (int64_t j0 = 0; j0 < m && !rc; j0 += bc) {
            int64_t b = m - j0 < bc ? m - j0 : bc;
            bnl_csr v = fsvc_csr_view(s->C, j0, b);
            rc = bnl_sparse_forward(s->ctx, s->op, T, m, s->Ct, &v, err);
            for (size_t q = 0; !rc && q < (size_t)b * m; q++)
                ((double *)Kmm)[(size_t)j0 * m + q] = T[q];
        }
        free(T);
    }
    s->src->t_h += fsvc_clock() - t;
    return rc;
}

static void sp_close(void *self)
{
    sp_src *s = self;
    if (!s) return;
    free(s->H); free(s->U); free(s->Vs); free(s->Ys);
    free(s);
}

static const fsvc_hops sp_ops = {sp_rhs, sp_gram_apply, sp_kmm, sp_close, NULL};

static int pcg(double *R, const fsvc_sparse_problem *pb, double lambda, double tol,
               int cache, int progress, fsvc_train_info *info, fsvc_error *err)
{
    int64_t m = pb->Ct->m, N = pb->X->rows, K = pb->K;
    sp_src *s = calloc(1, sizeof *s);
    fsvc_hsrc src;
    if (!s) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    *s = (sp_src){pb->ctx, pb->op, pb->Ct, pb->C, pb->X, pb->cls, pb->y, pb->sw, m, N,
                  chunk_rows(m, N), (int)K, NULL, NULL, NULL, NULL, cache, 0, &src};
    s->H = malloc((size_t)(cache ? N : s->Nc) * m * sizeof *s->H);
    s->U = malloc((size_t)s->Nc * K * sizeof *s->U);
    s->Vs = malloc((size_t)m * K * sizeof *s->Vs);
    s->Ys = malloc((size_t)m * K * sizeof *s->Ys);
    if (!s->H || !s->U || !s->Vs || !s->Ys) {
        sp_close(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory for the sample chunks");
    }
    /* the preconditioner's N (pcg.c: H^T D H ~ (N/m) K_mm^2) is the weight sum */
    int64_t Nw = fsvc_weighted_count(pb->sw, N, N);
    src = (fsvc_hsrc){&sp_ops, s, m, Nw, (int)K, 0, 0, pb->ctx, 0, NULL};
    double *W = malloc((size_t)m * K * sizeof *W);
    fsvc_pcg_opt opt = {lambda, tol, SP_PCG_MAX_ITER, 0, progress == FSVC_PROGRESS_ALL};
    int rc = W ? FSVC_OK : fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    if (!rc) rc = fsvc_pcg_readout(R, W, &src, pb->op, &opt, progress, info, err);
    free(W);
    fsvc_hsrc_close(&src);
    return rc;
}

int fsvc_sparse_ridge(double *R, const fsvc_sparse_problem *pb, const fsvc_ridge_opt *o,
                      fsvc_train_info *info, fsvc_error *err)
{
    int64_t m = pb->Ct->m, N = pb->X->rows;
    double lambda = o->lambda, tol = o->tol;
    fsvc_solver s = o->solver;
    int progress = o->progress;
    int rc0 = fsvc_lambda_check(lambda, err);
    if (rc0)
        return rc0;
    if (m < 1 || N < 1)
        return fsvc_fail(err, FSVC_EINPUT, "ridge: no %s to fit (m = %lld, N = %lld)",
                         m < 1 ? "centroids" : "samples", (long long)m, (long long)N);
    int rule = s == FSVC_SOLVER_AUTO ? FSVC_AUTO_BY_M : FSVC_AUTO_NONE;
    if (s == FSVC_SOLVER_AUTO)
        s = m >= FSVC_PCG_AUTO_M ? FSVC_SOLVER_PCG : FSVC_SOLVER_DIRECT;
    if (s == FSVC_SOLVER_PCG && !(tol > 0 && tol < 1))
        return fsvc_fail(err, FSVC_EUSAGE, "ridge: the pcg tolerance must be in (0, 1)");
    /* memory: direct G and its factor in double (2 m^2 x 8) + chunks; pcg
     * the factor of K_mm (float) + chunks */
    double ram = fsvc_phys_ram(), budget = ram * SP_RAM_USE, mm = (double)m * m;
    double chunk = (double)chunk_rows(m, N) * m * 12;
    double need = s == FSVC_SOLVER_DIRECT ? 16 * mm + chunk : 4 * mm + chunk;
    if (ram > 0 && need > budget) {
        double per = s == FSVC_SOLVER_DIRECT ? 16 : 4;
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge (%s): %lld centroids need %.1f GB, this "
                         "machine has %.1f GB; the largest that fits is about %lld "
                         "(--max-neurons)%s", fsvc_solver_name(s), (long long)m, need / 1e9,
                         ram / 1e9, (long long)sqrt((budget - chunk) / per),
                         s == FSVC_SOLVER_DIRECT ? ", or use --solver pcg" : "");
    }
    if (info) {
        info->solver = s;
        info->solver_rule = rule;
        info->cg_iter = 0;
        info->cg_res = 0;
        info->cg_converged = 0;
    }
    int saved = bnl_blas_threads_push(pb->ctx, 0);
    int rc;
    if (s == FSVC_SOLVER_DIRECT) {
        rc = direct(R, pb, lambda, progress, info ? info->t_ridge : NULL, err);
    } else {
        int cache = ram > 0 && (double)N * m * 4 <= (budget - need) / 2;
        rc = pcg(R, pb, lambda, tol, cache, progress, info, err);
    }
    bnl_blas_threads_pop(saved);
    return rc;
}
