/* ridge.c - the ridge readout: (H^T H + lambda I) R = H^T T, by Cholesky.
 *
 * H (N x m) is never stored: sample chunks of it come from bnl_forward
 * (float for u8/f32 inputs, double for f64), samples grouped by class so a
 * chunk touches few centroids. Only the chunk's active columns (any non-zero
 * entry; the triangular kernel is exactly 0 beyond its support) go through
 * BLAS syrk into a compact Gram block, which is added into G's upper
 * triangle (or, when the chunk is dense, syrk straight into G). With a
 * double G, float chunks of H are widened to double before the syrk: the
 * sum then rounds like double whatever the grouping of the samples, which
 * keeps the readout of K processes (fsvc/dist.h: each rank's partial G and
 * H^T T added in rank order, then the same solve on every rank) that of
 * one process to double rounding. G = H^T H is float64 up to RIDGE_F64_MAX_M centroids
 * and float32 beyond (30000^2 x 4 B = 3.6 GB, plus the Gram block). H^T T is summed over the
 * non-zeros in float64. The syrk and the solve (a blocked Cholesky and its
 * potrs, fsvc/chol.h) run on fixed blocks of columns, one single-threaded
 * BLAS call each, so the model's bytes do not depend on --threads; the
 * factorisation prints its progress per panel. G is seen as
 * column-major lower (the same memory as row-major upper, no copy), with
 * lambda relative to the mean of diag(H^T H) (scale-free), raised 3x and
 * retried (printed) when rounding leaves the matrix not positive definite.
 *
 * One pipeline, two implementations of the normal equations: on a context
 * whose backend is a device (bnl_normal_open gives a handle) H^T H and
 * H^T T are accumulated there in float64 and the solve is the device's
 * Cholesky (cuda/ridge.cu: nothing N x m crosses PCIe; class weights
 * scale each sample's H column and target row by sqrt(w) there, as
 * cpu_accum does its rows; across processes each rank's G comes back
 * once and is summed and solved on the host); otherwise the CPU code
 * below. Both hand back diag(H^T H) and H^T T, and solve for a given
 * lambda; the checks, the lambda rule, the retries and R are shared here.
 *
 * Degenerate systems are bad input told in words (FSVC_EINPUT), never a
 * LAPACK code: activations that are all 0 (a radius too small for the
 * data: no centroid reaches any sample), activations or targets that are
 * not finite, a matrix still not positive definite after the retries. */
#include "internal.h"
#include "dist.h"
#include "chol.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RIDGE_F64_MAX_M 24000 /* G double: 24000^2 x 8 B = 4.6 GB */
#define RIDGE_NOMEM FSVC_CHOL_NOMEM /* solve(): no memory */

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
 * B (column-major m x K) in place, by fixed blocks (chol.h: the same bits
 * for any thread count, progress per panel); LAPACK info. */
static lapack_int solve(const bnl_ctx *ctx, void *G, double *B, int64_t m, int K, int gd,
                        int progress)
{
    fsvc_chol_progress pr = {"ridge", 0.5};
    lapack_int info = fsvc_chol(ctx, G, m, m, !gd, progress ? &pr : NULL);
    if (info) return info;
    if (gd) return fsvc_chol_solve(ctx, G, m, m, 0, B, K, m);
    float *Bf = malloc((size_t)m * K * sizeof *Bf);
    if (!Bf) return RIDGE_NOMEM;
    for (size_t q = 0; q < (size_t)m * K; q++) Bf[q] = (float)B[q];
    info = fsvc_chol_solve(ctx, G, m, m, 1, Bf, K, m);
    for (size_t q = 0; q < (size_t)m * K; q++) B[q] = Bf[q];
    free(Bf);
    return info;
}

/* The CPU normal equations: G (m x m, row-major upper = column-major
 * lower, double or float), filled by cpu_accum, which also gives diag(G)
 * and B and keeps a mirror of G in its row-major lower triangle. */
typedef struct ridge_cpu {
    void *G;
    int gd;
} ridge_cpu;

static int cpu_accum(ridge_cpu *rs, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                     int64_t m, const void *X, const int *cls, const double *y,
                     const double *cw, int64_t N,
                     int n, int K, int gram_f32, int progress, double *dg, double *B,
                     double *t_h_out, double *t_g_out, fsvc_error *err)
{
    int hd = op->dtype == FSVC_F64;          /* H and Gram block in double */
    int gd = gram_f32 < 0 ? hd || m <= RIDGE_F64_MAX_M : !gram_f32; /* G in double */
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
    double t0 = fsvc_clock(), t_h = 0, t_g = 0;
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
        double ta = fsvc_clock();
        rc = bnl_forward(ctx, op, H, m, C, m, Xc, b, n, err);
        if (rc) goto done;
        double tb = fsvc_clock();
        t_h += tb - ta;
        /* active columns and H^T T; with class weights the rows of H and
         * T scaled by sqrt(w): H^T D H and H^T D T */
        memset(on, 0, (size_t)m);
        for (int64_t i = 0; i < b; i++) {
            int64_t s = ord[i0 + i];
            double sw = cw ? sqrt(cw[cls[s]]) : 1.0;
            if (cw)
                for (int64_t j = 0; j < m; j++) {
                    if (hd) ((double *)H)[i * m + j] *= sw;
                    else ((float *)H)[i * m + j] = (float)(((float *)H)[i * m + j] * sw);
                }
            for (int64_t j = 0; j < m; j++) {
                double h = hd ? ((double *)H)[i * m + j] : ((float *)H)[i * m + j];
                if (h != 0) {
                    on[j] = 1;
                    if (y) B[j] += h * y[s];
                    else B[(size_t)cls[s] * m + j] += cw ? h * sw : h;
                }
            }
        }
        int64_t ma = 0;
        for (int64_t j = 0; j < m; j++)
            if (on[j]) act[ma++] = j;
        if (ma == 0) { t_g += fsvc_clock() - tb; continue; }
        if (ma == m && hd == gd) { /* dense, same precision: straight into G */
            fsvc_syrk_acc(ctx, G, m, H, m, m, b, 1.0, !hd);
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
            fsvc_syrk_acc(ctx, G, m, Hc, m, m, b, 1.0, 0);
            goto progress;
        }
        fsvc_syrk_acc(ctx, Gb, ma, Hs, ma, ma, b, 0.0, !(hd || db));
        for (int64_t a = 0; a < ma; a++) {
            size_t g = (size_t)act[a] * m;
            for (int64_t c = a; c < ma; c++) {
                double v = hd || db ? ((double *)Gb)[a * ma + c] : ((float *)Gb)[a * ma + c];
                if (gd) ((double *)G)[g + act[c]] += v;
                else ((float *)G)[g + act[c]] += (float)v;
            }
        }
    progress:
        t_g += fsvc_clock() - tb;
        if (progress) {
            double el = fsvc_clock() - t0, done_ = (double)(i0 + b);
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
    *t_h_out = t_h;
    *t_g_out = t_g;
    return rc;
}

/* The normal equations are usable: mean diag(H^T H) md > 0 and finite,
 * every entry of H^T T (B, n values) finite; else the reason in words. */
int fsvc_ridge_check_normal(double md, const double *B, size_t n, double radius,
                            fsvc_error *err)
{
    int finite = isfinite(md);
    for (size_t q = 0; finite && q < n; q++)
        finite = isfinite(B[q]);
    if (!finite)
        return fsvc_fail(err, FSVC_EINPUT, "ridge: the activations or targets are not finite "
                         "(radius %g); check the data for huge values and give a larger radius "
                         "(-r)", radius);
    if (!(md > 0))
        return fsvc_fail(err, FSVC_EINPUT, "ridge: every activation is 0 with radius %g (no "
                         "centroid reaches any sample); give a larger radius (-r)", radius);
    return FSVC_OK;
}

/* R (column-major m x K) from (G + lam I) R = B: restores G's upper
 * triangle from the mirror, sets the diagonal; LAPACK info. */
static lapack_int cpu_solve(const bnl_ctx *ctx, ridge_cpu *rs, int64_t m, int K,
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

/* Across processes: the partial G (both triangles) and H^T T summed in
 * rank order (dist->sum), then diag(G) again. */
static int cpu_reduce(ridge_cpu *rs, int64_t m, int K, double *dg, double *B,
                      const fsvc_dist *dist, fsvc_error *err)
{
    if (dist->sum(dist->self, rs->G, (size_t)m * m, rs->gd ? FSVC_F64 : FSVC_F32) ||
        dist->sum(dist->self, B, (size_t)m * K, FSVC_F64))
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: the sum of H^T H over the processes failed");
    for (int64_t j = 0; j < m; j++)
        dg[j] = rs->gd ? ((double *)rs->G)[(size_t)j * m + j] : ((float *)rs->G)[(size_t)j * m + j];
    return FSVC_OK;
}

/* Across processes, after the device's accumulation: its G (float64, both
 * triangles) on the host in the precision cpu_accum would have taken, so
 * that the ranks' partial sums (cpu_reduce) agree whichever path each rank
 * took (a device that could not: the CPU's). */
static int dev_fetch(ridge_cpu *rs, bnl_normal *dev, int64_t m, int gram_f32, fsvc_error *err)
{
    int gd = gram_f32 < 0 ? m <= RIDGE_F64_MAX_M : !gram_f32; /* H is never f64 here */
    size_t mm = (size_t)m * m;
    double *G = malloc(mm * sizeof *G);
    if (!G)
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory for H^T H of %lld "
                         "centroids (%.1f GB)", (long long)m, (double)mm * 8 / 1e9);
    int rc = bnl_normal_fetch(dev, G, err);
    if (rc) {
        free(G);
        return rc;
    }
    rs->G = G;
    rs->gd = gd;
    if (!gd) {
        float *Gf = malloc(mm * sizeof *Gf);
        if (!Gf)
            return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory for H^T H of %lld "
                             "centroids (%.1f GB)", (long long)m, (double)mm * 4 / 1e9);
        for (size_t q = 0; q < mm; q++)
            Gf[q] = (float)G[q];
        free(G);
        rs->G = Gf;
    }
    return FSVC_OK;
}

int fsvc_readout_ridge(double *R, const bnl_ctx *ctx, const bnl_op *op,
                       const void *C, int64_t m, const void *X, const int *cls,
                       const double *y, int64_t N, int n, int K, double lambda,
                       int gram_f32, int progress, double *times, fsvc_error *err)
{
    return fsvc_readout_ridge_dist(R, fsvc_dist_one(), ctx, op, C, m, X, cls, y, NULL, N, n,
                                   K, lambda, gram_f32, progress, times, err);
}

int fsvc_readout_ridge_dist(double *R, const fsvc_dist *dist, const bnl_ctx *ctx,
                            const bnl_op *op, const void *C, int64_t m, const void *X,
                            const int *cls, const double *y, const double *cw, int64_t N,
                            int n, int K, double lambda, int gram_f32, int progress,
                            double *times, fsvc_error *err)
{
    if (m < 1 || N < 1)
        return fsvc_fail(err, FSVC_EINPUT, "ridge: no %s to fit (m = %lld, N = %lld)",
                         m < 1 ? "centroids" : "samples", (long long)m, (long long)N);
    int blas_saved = bnl_blas_threads_push(ctx, 0); /* syrk, potrf: ctx->threads */
    ridge_cpu cpu = {NULL, 0};
    bnl_normal *dev = NULL;
    double *dg = malloc((size_t)m * sizeof *dg);
    double *B0 = calloc((size_t)m * K, sizeof *B0); /* H^T T, column-major m x K */
    double *B = malloc((size_t)m * K * sizeof *B);
    double t_h = 0, t_g = 0;
    int rc = FSVC_OK;
    /* across processes the partial sums meet on the host: each rank's
     * device accumulates its slice, G comes back once (dev_fetch) */
    int many = dist->size > 1, fetched = 0;
    if (!dg || !B0 || !B)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory");
    if (y) cw = NULL; /* weights are per class */
    if (!rc && (!many || bnl_normal_fetch_offered(ctx, op)))
        rc = bnl_normal_open(ctx, op, &dev, err);
    if (!rc && dev) {
        double ta = fsvc_clock();
        rc = bnl_normal_accum(dev, op, C, m, X, N, n, y ? NULL : cls, y, cw, K, dg, B0, err);
        if (!rc && many && !(rc = dev_fetch(&cpu, dev, m, gram_f32, err))) {
            fetched = 1; /* the solve runs on the host, as the CPU's */
            bnl_normal_close(dev);
            dev = NULL;
        }
        t_g = fsvc_clock() - ta; /* H and its products, fused on the device */
    }
    if (rc == FSVC_ERESOURCE) { /* the device could not: the CPU can */
        fsvc_printf("ridge: %s; computing on the CPU\n", err ? err->msg : "device failed");
        bnl_normal_close(dev);
        dev = NULL;
        free(cpu.G);
        cpu.G = NULL;
        rc = FSVC_OK;
    }
    if (!rc && !dev && !fetched) {
        memset(B0, 0, (size_t)m * K * sizeof *B0);
        rc = cpu_accum(&cpu, ctx, op, C, m, X, cls, y, cw, N, n, K, gram_f32, progress, dg,
                       B0, &t_h, &t_g, err);
    }
    if (dist->size > 1) { /* a failed rank stops every rank */
        int any = dist->agree(dist->self, rc);
        if (any && !rc) rc = fsvc_fail(err, any, FSVC_DIST_ELSEWHERE);
        if (!rc) rc = cpu_reduce(&cpu, m, K, dg, B0, dist, err);
    }
    if (rc)
        goto done;
    /* lambda is relative to the mean of diag(H^T H) */
    double md = 0;
    for (int64_t j = 0; j < m; j++)
        md += dg[j];
    md = m ? md / m : 0;
    if ((rc = fsvc_ridge_check_normal(md, B0, (size_t)m * K, op->radius, err)))
        goto done;
    double lam = md > 0 ? lambda * md : lambda;
    lapack_int info = 0;
    double tc = fsvc_clock();
    for (int attempt = 0; attempt < 6; attempt++) {
        if (attempt) {
            if (progress)
                fsvc_printf("ridge: H^T H + lambda I not positive definite (at column %d) with "
                            "lambda %g; retrying with %g\n", (int)info, lam, lam * 3);
            lam *= 3;
        }
        memcpy(B, B0, (size_t)m * K * sizeof *B);
        if (dev) {
            int dinfo = 0;
            rc = bnl_normal_solve(dev, lam, B, &dinfo, err);
            if (rc)
                goto done;
            info = dinfo;
        } else {
            info = cpu_solve(ctx, &cpu, m, K, dg, lam, B, progress);
        }
        if (info <= 0) break;
    }
    if (times) { times[0] = t_h; times[1] = t_g; times[2] = fsvc_clock() - tc; }
    if (info > 0) {
        rc = fsvc_fail(err, FSVC_EINPUT,
                       "ridge: H^T H + lambda I is not positive definite at column %d even "
                       "with lambda %g; raise lambda (-l, now %g)", (int)info, lam, lambda);
        goto done;
    }
    if (info == RIDGE_NOMEM) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory for the solve");
        goto done;
    }
    if (info < 0) { /* LAPACKE's NaN check, or a shape it refuses */
        rc = fsvc_fail(err, FSVC_EINPUT, "ridge: the linear system cannot be solved (LAPACK "
                       "refused argument %d: NaN or infinite values in H^T H + lambda I or "
                       "H^T T); raise lambda (-l) or change the radius (-r)", (int)-info);
        goto done;
    }
    for (int64_t j = 0; j < m; j++)
        for (int k = 0; k < K; k++) {
            R[j * K + k] = B[(size_t)k * m + j];
            if (!isfinite(R[j * K + k])) {
                rc = fsvc_fail(err, FSVC_EINPUT, "ridge: the solution has NaN or infinite "
                               "weights (lambda %g); raise lambda (-l)", lambda);
                goto done;
            }
        }
done:
    bnl_normal_close(dev);
    free(cpu.G); free(dg); free(B0); free(B);
    bnl_blas_threads_pop(blas_saved);
    return rc;
}
