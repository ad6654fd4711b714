/* cpu_normal.c - the CPU table's ridge normal equations (bnl.h
 * bnl_normal_*; moved from fsvc/ridge.c, whose header tells the method).
 *
 * H (N x m) is never stored: sample chunks of it come from bnl_forward on
 * the caller's context, samples grouped by class so a chunk touches few
 * centroids. Only the chunk's active columns (any non-zero entry) go
 * through BLAS syrk into a compact Gram block, added into G's upper
 * triangle (or, when the chunk is dense, syrk straight into G). With a
 * double G, float chunks of H are widened to double before the syrk, so
 * the sum rounds like double whatever the grouping of the samples (the
 * readout of K processes stays that of one process to double rounding).
 * G is float64 up to BNL_RIDGE_F64_MAX_M centroids and float32 beyond
 * (opt->gram_f32 forces either); H^T T is summed over the non-zeros in
 * float64. The syrk and the solve (bnl_chol, bnl_chol_solve) run on fixed
 * blocks of columns, so the bits do not depend on the thread count. G is
 * seen as column-major lower (the same memory as row-major upper), its
 * row-major lower triangle a mirror kept for retries. */
#include "backend.h"
#include "bnl_backend_ops.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BNL_RIDGE_F64_MAX_M 24000 /* G double: 24000^2 x 8 B = 4.6 GB */
#define RIDGE_NOMEM BNL_CHOL_NOMEM /* solve(): no memory */

struct bnl_normal_impl {
    const bnl_ctx *ctx;
    int gram_f32, progress;
    const double *sw; /* per-sample weights (bnl_normal_opt.sw) or NULL */
    void *G;      /* m x m, double (gd) or float */
    int gd;
    int64_t m;
    int K;
    double *dg;   /* diag(G), m */
    double t_h, t_g;
};

/* Stable order of samples by class, so chunks are class-coherent. */
static int64_t *class_order(const int *cls, int64_t N, int K)
{
    int64_t *ord = malloc((size_t)(N ? N : 1) * sizeof *ord);
    int64_t *start = calloc((size_t)K + 1, sizeof *start);
    if (!ord || !start) { free(ord); free(start); return NULL; }
    if (!cls || K <= 1) {
        for (int64_t i = 0; i < N; i++) ord[i] = i;
    } else {
        for (int64_t i = 0; i < N; i++) start[cls[i] + 1]++;
        for (int k = 0; k < K; k++) start[k + 1] += start[k];
        for (int64_t i = 0; i < N; i++) ord[start[cls[i]]++] = i;
    }
    free(start);
    return ord;
}

/* Cholesky solve of G (m x m, column-major lower = row-major upper) with
 * B (column-major m x K) in place, by fixed blocks (bnl.h bnl_chol: the same bits
 * for any thread count, progress per panel); LAPACK info. */
static lapack_int solve(const bnl_ctx *ctx, void *G, double *B, int64_t m, int K, int gd,
                        int progress)
{
    bnl_chol_progress pr = {"ridge", 0.5};
    lapack_int info = bnl_chol(ctx, G, m, m, !gd, progress ? &pr : NULL);
    if (info) return info;
    if (gd) return bnl_chol_solve(ctx, G, m, m, 0, B, K, m);
    float *Bf = malloc((size_t)m * K * sizeof *Bf);
    if (!Bf) return RIDGE_NOMEM;
    for (size_t q = 0; q < (size_t)m * K; q++) Bf[q] = (float)B[q];
    info = bnl_chol_solve(ctx, G, m, m, 1, Bf, K, m);
    for (size_t q = 0; q < (size_t)m * K; q++) B[q] = Bf[q];
    free(Bf);
    return info;
}

static int cpu_accum(bnl_normal_impl *rs, const bnl_op *op, const void *C, int64_t m,
                     const void *X, int64_t N, int n, const int *cls, const double *y,
                     const double *cw, int K, double *dg, double *B, fsvc_error *err)
{
    const bnl_ctx *ctx = rs->ctx;
    int gram_f32 = rs->gram_f32, progress = rs->progress;
    int hd = op->dtype == FSVC_F64;          /* H and Gram block in double */
    int wt = cw || rs->sw;                   /* weighted rows */
    int gd = gram_f32 < 0 ? hd || m <= BNL_RIDGE_F64_MAX_M : !gram_f32; /* G in double */
    int db = gd && !hd; /* float H widened to double for the syrk */
    size_t hs = hd ? sizeof(double) : sizeof(float), gs = gd ? sizeof(double) : sizeof(float);
    size_t bs = db ? sizeof(double) : hs; /* Gram block and compacted H */
    size_t row = (size_t)n * fsvc_dtype_size(op->dtype);
    int64_t Nc = (int64_t)((1 << 27) / ((size_t)m * hs));
    if (Nc < 64) Nc = 64;
    if (Nc > 4096) Nc = 4096;
    if (Nc > N) Nc = N > 0 ? N : 1;
    void *G = calloc((size_t)m * m, gs);           /* G: m x m, upper */
    void *Gb = malloc((size_t)m * m * bs);         /* Gram block: ma x ma */
    void *H = malloc((size_t)Nc * m * hs);         /* H: Nc x m */
    void *Hc = malloc((size_t)Nc * m * bs);        /* compacted: Nc x ma */
    char *Xc = malloc((size_t)Nc * row);           /* chunk inputs: Nc x n */
    int64_t *act = malloc((size_t)m * sizeof *act);
    unsigned char *on = malloc((size_t)m);
    int64_t *ord = class_order(y ? NULL : cls, N, K);
    int rc = FSVC_OK;
    double t0 = bnl_clock(), t_h = 0, t_g = 0;
    rs->G = G;
    rs->gd = gd;
    if (!G || !Gb || !H || !Hc || !Xc || !act || !on || !ord) {
        rc = fsvc_fail(err, FSVC_ERESOURCE,
                       "ridge: out of memory for %lld centroids (%.1f GB)", (long long)m,
                       (double)m * m * (gs + hs) / 1e9);
        goto done;
    }
    for (int64_t i0 = 0; i0 < N; i0 += Nc) {
        int64_t b = N - i0 < Nc ? N - i0 : Nc;
        for (int64_t i = 0; i < b; i++)
            memcpy(Xc + (size_t)i * row, (const char *)X + (size_t)ord[i0 + i] * row, row);
        double ta = bnl_clock();
        rc = bnl_forward(ctx, op, H, m, C, m, Xc, b, n, err);
        if (rc) goto done;
        double tb = bnl_clock();
        t_h += tb - ta;
        /* active columns and H^T T; with class or sample weights the rows
         * of H and T scaled by sqrt(w), w = cw[cls] sw[i]: H^T D H and
         * H^T D T (a weight of 1 multiplies by 1.0: the same bits) */
        memset(on, 0, (size_t)m);
        for (int64_t i = 0; i < b; i++) {
            int64_t s = ord[i0 + i];
            double sq = wt ? sqrt((cw ? cw[cls[s]] : 1.0) * (rs->sw ? rs->sw[s] : 1.0)) : 1.0;
            if (wt)
                for (int64_t j = 0; j < m; j++) {
                    if (hd) ((double *)H)[i * m + j] *= sq;
                    else ((float *)H)[i * m + j] = (float)(((float *)H)[i * m + j] * sq);
                }
            for (int64_t j = 0; j < m; j++) {
                double h = hd ? ((double *)H)[i * m + j] : ((float *)H)[i * m + j];
                if (h != 0) {
                    on[j] = 1;
                    if (y) B[j] += wt ? h * sq * y[s] : h * y[s];
                    else B[(size_t)cls[s] * m + j] += wt ? h * sq : h;
                }
            }
        }
        int64_t ma = 0;
        for (int64_t j = 0; j < m; j++)
            if (on[j]) act[ma++] = j;
        if (ma == 0) { t_g += bnl_clock() - tb; continue; }
        if (ma == m && hd == gd) { /* dense, same precision: straight into G */
            bnl_syrk_acc(ctx, G, m, H, m, m, b, 1.0, !hd);
            goto progress;
        }
        void *Hs = H; /* the chunk's active columns: Nc x ma */
        if (ma < m || db) {
            Hs = Hc;
            for (int64_t i = 0; i < b; i++)
                for (int64_t a = 0; a < ma; a++) {
                    if (hd) ((double *)Hc)[i * ma + a] = ((double *)H)[i * m + act[a]];
                    else if (db) ((double *)Hc)[i * ma + a] = ((float *)H)[i * m + act[a]];
                    else ((float *)Hc)[i * ma + a] = ((float *)H)[i * m + act[a]];
                }
        }
        if (db && ma == m) { /* dense: straight into G, in double */
            bnl_syrk_acc(ctx, G, m, Hc, m, m, b, 1.0, 0);
            goto progress;
        }
        bnl_syrk_acc(ctx, Gb, ma, Hs, ma, ma, b, 0.0, !(hd || db));
        for (int64_t a = 0; a < ma; a++) {
            size_t g = (size_t)act[a] * m;
            for (int64_t c = a; c < ma; c++) {
                double v = hd || db ? ((double *)Gb)[a * ma + c] : ((float *)Gb)[a * ma + c];
                if (gd) ((double *)G)[g + act[c]] += v;
                else ((float *)G)[g + act[c]] += (float)v;
            }
        }
    progress:
        t_g += bnl_clock() - tb;
        if (progress) {
            double el = bnl_clock() - t0, done_ = (double)(i0 + b);
            fsvc_printf("\rridge: %lld/%lld samples, %lld of %lld centroids active, ETA %.0f s   ",
                        (long long)(i0 + b), (long long)N, (long long)ma, (long long)m,
                        el / done_ * (N - done_));
        }
    }
    if (progress)
        fsvc_printf("\n");
    for (int64_t j = 0; j < m; j++)
        dg[j] = gd ? ((double *)G)[(size_t)j * m + j] : ((float *)G)[(size_t)j * m + j];
    for (int64_t i = 0; i < m; i++) /* the mirror, for retries */
        for (int64_t j = i + 1; j < m; j++) {
            if (gd) ((double *)G)[(size_t)j * m + i] = ((double *)G)[(size_t)i * m + j];
            else ((float *)G)[(size_t)j * m + i] = ((float *)G)[(size_t)i * m + j];
        }
done:
    free(Gb); free(H); free(Hc); free(Xc); free(act); free(on); free(ord);
    rs->t_h = t_h;
    rs->t_g = t_g;
    return rc;
}

/* R (column-major m x K) from (G + lam I) R = B: restores G's upper
 * triangle from the mirror, sets the diagonal; LAPACK info. */
static lapack_int cpu_solve(const bnl_ctx *ctx, bnl_normal_impl *rs, int64_t m, int K,
                            const double *dg, double lam, double *R, int progress)
{
    void *G = rs->G;
    int gd = rs->gd;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = i + 1; j < m; j++) {
            if (gd) ((double *)G)[(size_t)i * m + j] = ((double *)G)[(size_t)j * m + i];
            else ((float *)G)[(size_t)i * m + j] = ((float *)G)[(size_t)j * m + i];
        }
    for (int64_t j = 0; j < m; j++) {
        if (gd) ((double *)G)[(size_t)j * m + j] = dg[j] + lam;
        else ((float *)G)[(size_t)j * m + j] = (float)(dg[j] + lam);
    }
    return solve(ctx, G, R, m, K, gd, progress);
}

int bnl_cpu_normal_open(const bnl_ctx *ctx, const bnl_op *op,
                        const bnl_normal_opt *opt, bnl_normal_impl **out, fsvc_error *err)
{
    (void)op;
    bnl_normal_impl *s = calloc(1, sizeof *s);
    if (!s)
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory");
    s->ctx = ctx;
    s->gram_f32 = opt ? opt->gram_f32 : -1;
    s->progress = opt ? opt->progress : 0;
    s->sw = opt ? opt->sw : NULL;
    *out = s;
    return FSVC_OK;
}

int bnl_cpu_normal_accum(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                            const void *X, int64_t N, int n, const int *cls, const double *y,
                            const double *cw, int K, double *diag, double *B, fsvc_error *err)
{
    free(s->G);
    free(s->dg);
    s->G = NULL;
    s->m = m;
    s->K = K;
    if (!(s->dg = malloc((size_t)(m ? m : 1) * sizeof *s->dg)))
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory");
    int held = bnl_weights_hold(s->ctx, W, m, n) == 0; /* its chunks share W's copies */
    int rc = cpu_accum(s, op, W, m, X, N, n, cls, y, cw, K, diag, B, err);
    if (held)
        bnl_weights_release(s->ctx, W, m, n);
    if (!rc)
        memcpy(s->dg, diag, (size_t)m * sizeof *diag);
    return rc;
}

int bnl_cpu_normal_solve(bnl_normal_impl *s, double lam, double *R, int *info,
                            fsvc_error *err)
{
    if (!s->G)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: normal equations: nothing accumulated");
    *info = (int)cpu_solve(s->ctx, s, s->m, s->K, s->dg, lam, R, s->progress);
    return FSVC_OK;
}

void bnl_cpu_normal_close(bnl_normal_impl *s)
{
    if (!s) return;
    free(s->G);
    free(s->dg);
    free(s);
}

int bnl_cpu_normal_adopt(bnl_normal_impl *s, double *G, int64_t m, int K, int gram_f32,
                         fsvc_error *err)
{
    int gd = gram_f32 < 0 ? m <= BNL_RIDGE_F64_MAX_M : !gram_f32; /* H is never f64 here */
    size_t mm = (size_t)m * m;
    free(s->G);
    free(s->dg);
    s->G = G;
    s->gd = gd;
    s->m = m;
    s->K = K;
    s->dg = malloc((size_t)(m ? m : 1) * sizeof *s->dg);
    if (!s->dg)
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory");
    if (!gd) {
        float *Gf = malloc(mm * sizeof *Gf);
        if (!Gf)
            return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory for H^T H of %lld "
                             "centroids (%.1f GB)", (long long)m, (double)mm * 4 / 1e9);
        for (size_t q = 0; q < mm; q++)
            Gf[q] = (float)G[q];
        free(G);
        s->G = Gf;
    }
    return FSVC_OK;
}

void *bnl_cpu_normal_gram(bnl_normal_impl *s, fsvc_dtype *t)
{
    *t = s->gd ? FSVC_F64 : FSVC_F32;
    return s->G;
}

void bnl_cpu_normal_diag(bnl_normal_impl *s, double *dg)
{
    for (int64_t j = 0; j < s->m; j++)
        dg[j] = s->dg[j] = s->gd ? ((double *)s->G)[(size_t)j * s->m + j]
                                 : ((float *)s->G)[(size_t)j * s->m + j];
}

void bnl_cpu_normal_times(const bnl_normal_impl *s, double *t_h, double *t_g)
{
    *t_h = s->t_h;
    *t_g = s->t_g;
}
