/* pcg.c - the ridge readout by preconditioned conjugate gradient.
 *
 * The system is the direct solve's (ridge.c): A W = B with A = H^T H +
 * lam I, lam = lambda x mean(diag(H^T H)), B = H^T T, W m x K: the same
 * weights, so the two solvers can be compared. H is seen only through the
 * block products of solver.h (H^T (H V) in one pass over the samples).
 *
 * Preconditioner (FALKON, Rudi et al. 2017, adapted to this objective):
 * the centroids are samples, so the Nystrom estimate of H^T H =
 * sum_i h(x_i) h(x_i)^T from the centroids alone is (N/m) K_mm^2, K_mm the
 * centroids' own kernel matrix. FALKON's objective carries lam K_mm, which
 * factors out of (N/m) K_mm^2 + lam K_mm; ours carries lam I, which does
 * not, so we take
 *     P = (N/m) (K_mm + s I)^2,  s = sqrt(lam m / N),
 * one Cholesky factor L L^T = K_mm + s I, applied as two solves
 * (bnl_chol_solve). K_mm is asked for before the products (pre_kmm): a
 * source that has yet to make H takes its rows from the first pass. For
 * every eigenvalue k of K_mm, P / ((N/m) k^2 + lam) = (k + s)^2 / (k^2 +
 * s^2), between 1 and 2: P is within a factor 2 of the Nystrom estimate
 * of A, so the
 * preconditioned spectrum is as tight as the Nystrom estimate is
 * good (for random centroids, a few tens of iterations). The factor is in
 * H's precision (float for u8/f32 inputs), blocked (bnl.h bnl_chol: the same bits
 * for any thread count, progress per panel); a factorisation that fails in
 * rounding retries with s x 10 (a worse but still valid preconditioner).
 * An H kept in bf16 (src->h_err2 > 0) carries its rounding E: A = H^T H +
 * E^T E + ... , diag(E^T E) about h_err2 / m per column, 17-27x a small
 * lam (MNIST's 1e-7): s is then from lam + h_err2 / m, or the
 * preconditioner misses that floor (MNIST 5000 centroids: 86 iterations
 * with f32 H; bf16 H 96 with s from lam, 68 with the floor; K_mm must be
 * f32 too, cpu_hprod.c).
 *
 * All K columns run together: each column has its own CG scalars, the
 * products are one GEMM-shaped pass for all of them, and a column that
 * reaches tol is frozen. Stops when every column's relative residual
 * ||B_k - A W_k|| / ||B_k|| <= tol, after max_iter iterations, or when the
 * largest residual has not fallen by 10 % in 30 iterations (rounding
 * floor); the residual reported is recomputed from W at the end.
 *
 * Across processes (src->ops->agree set, fsvc_hsrc_sum) every rank runs
 * this same recursion on the same summed products; the ranks agree on the
 * status after their own allocations and preconditioner and on every
 * stop decision, so no rank leaves the loop while another waits in a
 * product. */
#include "solver.h"
#include "comm.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCG_RESTARTS 2 /* restarts from the true residual (see below) */
#define PCG_SCALE_FROM 1e6 /* s beyond any lambda <= 1 (s <= sqrt(m) there) */

typedef struct pre {
    void *L;       /* factor of K_mm + s I, column-major lower, m x m */
    int f32;
    int64_t m;
    double scale;  /* m / N, over s^2 when the factor is of K_mm / s + I */
    float *tmp;    /* m x K float scratch */
    const bnl_ctx *ctx;
} pre;

/* L = K_mm (made before the products: a source that has yet to make H
 * can take K_mm's rows from it as it goes, cpu_hprod.c). */
static int pre_kmm(pre *P, fsvc_hsrc *src, int f32, fsvc_error *err)
{
    P->ctx = src->ctx;
    int64_t m = src->m;
    size_t es = f32 ? sizeof(float) : sizeof(double);
    P->f32 = f32;
    P->m = m;
    P->L = malloc((size_t)m * m * es);
    P->tmp = f32 ? malloc((size_t)m * src->K * sizeof(float)) : NULL;
    if (!P->L || (f32 && !P->tmp))
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory for the %lld x %lld "
                         "preconditioner (%.1f GB)", (long long)m, (long long)m,
                         (double)m * m * es / 1e9);
    return src->ops->kmm(src->self, P->L, f32, err);
}

/* The factor of K_mm + s I in L (pre_kmm's), s from lam. */
static int pre_factor(pre *P, fsvc_hsrc *src, double lam, int progress, fsvc_error *err)
{
    bnl_chol_progress pr = {"pcg preconditioner", 0.5};
    int64_t m = P->m;
    int f32 = P->f32;
    P->scale = (double)m / (double)src->N;
    /* the ridge plus the floor of a rounded H (0 for f32/f64 H) */
    double s = sqrt((lam + src->h_err2 / (double)m) * (double)m / (double)src->N);
    double *dg = malloc((size_t)m * sizeof *dg);
    if (!dg) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    for (int64_t j = 0; j < m; j++)
        dg[j] = f32 ? ((float *)P->L)[(size_t)j * m + j] : ((double *)P->L)[(size_t)j * m + j];
    lapack_int info = 1;
    for (int attempt = 0; attempt < 8 && info > 0; attempt++, s *= 10) {
        if (attempt) /* restore the lower triangle (row-major upper, untouched) */
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = i + 1; j < m; j++) {
                    if (f32) ((float *)P->L)[(size_t)i * m + j] = ((float *)P->L)[(size_t)j * m + i];
                    else ((double *)P->L)[(size_t)i * m + j] = ((double *)P->L)[(size_t)j * m + i];
                }
        /* a large lambda (s above PCG_SCALE_FROM: -l 1e100 gives s ~ 1e50,
         * +-Inf in float) factors K_mm / s + I instead, the same
         * preconditioner over s^2 (P->scale); below it, as always */
        double f = s > PCG_SCALE_FROM ? 1 / s : 1, d = s > PCG_SCALE_FROM ? 1 : s;
        P->scale = (double)m / (double)src->N * f * f;
        for (int64_t i = 0; f != 1 && i < m; i++)
            for (int64_t j = 0; j < i; j++) { /* the row-major upper triangle, as potrf reads it */
                if (f32) ((float *)P->L)[(size_t)j * m + i] = (float)(f * ((float *)P->L)[(size_t)i * m + j]);
                else ((double *)P->L)[(size_t)j * m + i] = f * ((double *)P->L)[(size_t)i * m + j];
            }
        for (int64_t j = 0; j < m; j++) {
            if (f32) ((float *)P->L)[(size_t)j * m + j] = (float)(f * dg[j] + d);
            else ((double *)P->L)[(size_t)j * m + j] = f * dg[j] + d;
        }
        /* row-major upper == column-major lower: potrf 'L' reads the
         * upper triangle of the row-major matrix and overwrites it */
        info = bnl_chol(P->ctx, P->L, m, m, f32, progress ? &pr : NULL);
    }
    free(dg);
    if (info == BNL_CHOL_NOMEM)
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory for the preconditioner");
    if (info)
        return fsvc_fail(err, FSVC_EINPUT, "pcg: the centroids' kernel matrix cannot be "
                         "factored (LAPACK %d; NaN or infinite values?); use --solver direct",
                         (int)info);
    return FSVC_OK;
}

/* Z = P^{-1} R = (m/N) (K + sI)^{-1} (K + sI)^{-1} R, R and Z m x K. */
static void pre_apply(pre *P, double *Z, const double *R, int K)
{
    size_t mk = (size_t)P->m * K;
    lapack_int m = (lapack_int)P->m;
    if (P->f32) {
        for (size_t q = 0; q < mk; q++) P->tmp[q] = (float)R[q];
        bnl_chol_solve(P->ctx, P->L, m, m, 1, P->tmp, K, m);
        bnl_chol_solve(P->ctx, P->L, m, m, 1, P->tmp, K, m);
        for (size_t q = 0; q < mk; q++) Z[q] = P->scale * P->tmp[q];
    } else {
        memcpy(Z, R, mk * sizeof *Z);
        bnl_chol_solve(P->ctx, P->L, m, m, 0, Z, K, m);
        bnl_chol_solve(P->ctx, P->L, m, m, 0, Z, K, m);
        for (size_t q = 0; q < mk; q++) Z[q] *= P->scale;
    }
}

static double dot(const double *a, const double *b, int64_t m)
{
    double s = 0;
    for (int64_t j = 0; j < m; j++) s += a[j] * b[j];
    return s;
}

/* CG's first direction from the residual R: Z = P^{-1} R, D = Z, rz_k =
 * R_k . Z_k (the start, and each restart); *t_pre += its seconds. */
static void first_direction(pre *P, double *D, double *Z, double *rz, const double *R, int K,
                            double *t_pre)
{
    int64_t m = P->m;
    double tp = fsvc_clock();
    pre_apply(P, Z, R, K);
    *t_pre += fsvc_clock() - tp;
    memcpy(D, Z, (size_t)m * K * sizeof *D);
    for (int k = 0; k < K; k++) rz[k] = dot(R + (size_t)k * m, Z + (size_t)k * m, m);
}

/* Across processes: the worst status of the ranks (a rank whose own is 0
 * gets FSVC_COMM_ELSEWHERE); one process: rc. */
static int collective(fsvc_hsrc *src, int rc, fsvc_error *err)
{
    if (!src->ops->agree) return rc;
    int any = src->ops->agree(src->self, rc);
    if (any && !rc) rc = fsvc_fail(err, any, FSVC_COMM_ELSEWHERE);
    return rc;
}

/* Any rank stops: all stop (one process: stop). */
static int all_stop(fsvc_hsrc *src, int stop)
{
    return src->ops->agree ? src->ops->agree(src->self, stop) != 0 : stop;
}

/* Y = A V = H^T H V + lam V */
static int apply_a(fsvc_hsrc *src, double *Y, const double *V, double lam, fsvc_error *err)
{
    int rc = src->ops->gram_apply(src->self, Y, V, err);
    for (size_t q = 0; !rc && q < (size_t)src->m * src->K; q++) Y[q] += lam * V[q];
    return rc;
}

/* The CG state of the K columns (each m values, column-major). */
typedef struct cg {
    int64_t m;
    int K;
    size_t mk;
    double *B, *Rr, *Z, *D, *Q; /* H^T T, residual, P^{-1} residual, direction, A D */
    double *bn, *rz;            /* ||B_k||, r_k . z_k */
    unsigned char *done;        /* column k within tol (frozen) */
    double lam, rmax, best;
    int it, best_it;
} cg;

static void cg_free(cg *c)
{
    free(c->B); free(c->Rr); free(c->Z); free(c->D); free(c->Q);
    free(c->bn); free(c->rz); free(c->done);
}

static int cg_alloc(cg *c, int64_t m, int K, fsvc_error *err)
{
    size_t mk = (size_t)m * K;
    memset(c, 0, sizeof *c);
    c->m = m;
    c->K = K;
    c->mk = mk;
    c->B = malloc(mk * sizeof *c->B);
    c->Rr = malloc(mk * sizeof *c->Rr);
    c->Z = malloc(mk * sizeof *c->Z);
    c->D = malloc(mk * sizeof *c->D);
    c->Q = malloc(mk * sizeof *c->Q);
    c->bn = malloc((size_t)K * sizeof *c->bn);
    c->rz = malloc((size_t)K * sizeof *c->rz);
    c->done = calloc((size_t)K, 1);
    if (!c->B || !c->Rr || !c->Z || !c->D || !c->Q || !c->bn || !c->rz || !c->done)
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory (m = %lld)", (long long)m);
    return FSVC_OK;
}

/* The source whose engine and product seconds the train info reports. */
static const fsvc_hsrc *times_of(const fsvc_hsrc *src)
{
    return src->times ? src->times : src;
}

/* B = H^T T, lam from the trace, the preconditioner (all ranks agree). */
static int cg_setup(cg *c, pre *P, fsvc_hsrc *src, const bnl_op *op, const fsvc_pcg_opt *opt,
                    fsvc_pcg_out *out, fsvc_error *err)
{
    double sumsq;
    /* K_mm first; its engine and product time (a first pass of H makes H^T
     * T too) count as H's and the products', not the preconditioner's */
    const fsvc_hsrc *ts = times_of(src);
    double tp = fsvc_clock(), th = ts->t_h, tq = ts->t_prod;
    int rc = collective(src, pre_kmm(P, src, op->dtype != FSVC_F64, err), err);
    out->t_pre += fsvc_clock() - tp - (ts->t_h - th) - (ts->t_prod - tq);
    if (rc) return rc;
    rc = src->ops->rhs(src->self, c->B, &sumsq, err);
    if (rc) return rc;
    double md = sumsq / (double)c->m;
    if ((rc = fsvc_ridge_check_normal(md, c->B, c->mk, op->radius, err)))
        return rc;
    c->lam = opt->lambda * md;
    tp = fsvc_clock();
    rc = collective(src, pre_factor(P, src, c->lam, opt->progress, err), err);
    out->t_pre += fsvc_clock() - tp;
    return rc;
}

/* R = B - A W (W = 0 unless warm), ||B_k||, the columns already within
 * tol, the first direction. */
static int cg_start(cg *c, pre *P, fsvc_hsrc *src, double *W, const fsvc_pcg_opt *opt,
                    fsvc_pcg_out *out, fsvc_error *err)
{
    int64_t m = c->m;
    int K = c->K;
    size_t mk = c->mk;
    if (!opt->warm) memset(W, 0, mk * sizeof *W);
    if (opt->warm) {
        int rc = apply_a(src, c->Q, W, c->lam, err);
        if (rc) return rc;
        for (size_t q = 0; q < mk; q++) c->Rr[q] = c->B[q] - c->Q[q];
    } else {
        memcpy(c->Rr, c->B, mk * sizeof *c->Rr);
    }
    double rmax = 0;
    for (int k = 0; k < K; k++) {
        const double *b = c->B + (size_t)k * m, *r = c->Rr + (size_t)k * m;
        c->bn[k] = sqrt(dot(b, b, m));
        double res = c->bn[k] > 0 ? sqrt(dot(r, r, m)) / c->bn[k] : 0;
        if (c->bn[k] == 0) memset(W + (size_t)k * m, 0, (size_t)m * sizeof *W);
        c->done[k] = res <= opt->tol;
        if (res > rmax) rmax = res;
    }
    c->rmax = rmax;
    first_direction(P, c->D, c->Z, c->rz, c->Rr, K, &out->t_pre);
    c->best = rmax;
    c->best_it = c->it = 0;
    return FSVC_OK;
}

/* CG steps until every column is within tol, max_iter, or no progress by
 * 10 % in 30 iterations (the rounding floor); the ranks agree on each
 * stop. */
static int cg_iterate(cg *c, pre *P, fsvc_hsrc *src, double *W, const fsvc_pcg_opt *opt,
                      fsvc_pcg_out *out, int stop, fsvc_error *err)
{
    int64_t m = c->m;
    int K = c->K;
    while (!stop) {
        for (int k = 0; k < K; k++) /* frozen columns: no direction */
            if (c->done[k]) memset(c->D + (size_t)k * m, 0, (size_t)m * sizeof *c->D);
        int rc = apply_a(src, c->Q, c->D, c->lam, err);
        if (rc) return rc;
        c->it++;
        c->rmax = 0;
        for (int k = 0; k < K; k++) {
            if (c->done[k]) continue;
            double *w = W + (size_t)k * m, *r = c->Rr + (size_t)k * m;
            const double *d = c->D + (size_t)k * m, *q = c->Q + (size_t)k * m;
            double dq = dot(d, q, m), a = dq > 0 ? c->rz[k] / dq : 0;
            for (int64_t j = 0; j < m; j++) { w[j] += a * d[j]; r[j] -= a * q[j]; }
            double res = sqrt(dot(r, r, m)) / c->bn[k];
            if (res <= opt->tol || !(dq > 0)) c->done[k] = 1;
            if (res > c->rmax) c->rmax = res;
        }
        if (opt->progress)
            fsvc_printf("\rpcg: iteration %d, relative residual %.3g   ", c->it, c->rmax);
        stop = !(c->rmax > opt->tol && c->it < opt->max_iter) || !isfinite(c->rmax);
        if (!stop && c->rmax < 0.9 * c->best) { c->best = c->rmax; c->best_it = c->it; }
        else if (!stop && c->it - c->best_it >= 30) stop = 1; /* stagnated at the rounding floor */
        if ((stop = all_stop(src, stop)))
            break; /* the last residual needs no preconditioning */
        double tp = fsvc_clock();
        pre_apply(P, c->Z, c->Rr, K);
        out->t_pre += fsvc_clock() - tp;
        for (int k = 0; k < K; k++) {
            if (c->done[k]) continue;
            double *d = c->D + (size_t)k * m;
            const double *z = c->Z + (size_t)k * m;
            double rzn = dot(c->Rr + (size_t)k * m, z, m), beta = c->rz[k] > 0 ? rzn / c->rz[k] : 0;
            c->rz[k] = rzn;
            for (int64_t j = 0; j < m; j++) d[j] = z[j] + beta * d[j];
        }
    }
    return FSVC_OK;
}

/* The residual the caller gets: recomputed from W (Q = A W), not the
 * recursion's; out->res the largest (NaN sticks), done[k] by it. */
static int true_residual(cg *c, fsvc_hsrc *src, const double *W, const fsvc_pcg_opt *opt,
                         fsvc_pcg_out *out, fsvc_error *err)
{
    int64_t m = c->m;
    int rc = apply_a(src, c->Q, W, c->lam, err);
    if (rc) return rc;
    out->res = 0;
    for (int k = 0; k < c->K; k++) {
        if (!(c->bn[k] > 0)) continue;
        double s = 0;
        for (int64_t j = 0; j < m; j++) {
            double e = c->B[(size_t)k * m + j] - c->Q[(size_t)k * m + j];
            s += e * e;
        }
        double res = sqrt(s) / c->bn[k];
        c->done[k] = res <= opt->tol;
        if (!(res <= out->res)) out->res = res; /* NaN sticks */
    }
    return FSVC_OK;
}

int fsvc_pcg_solve(double *W, fsvc_hsrc *src, const bnl_op *op, const fsvc_pcg_opt *opt,
                   fsvc_pcg_out *out, fsvc_error *err)
{
    memset(out, 0, sizeof *out);
    pre P = {0};
    cg c;
    int rc = collective(src, cg_alloc(&c, src->m, src->K, err), err);
    if (!rc) rc = cg_setup(&c, &P, src, op, opt, out, err);
    if (!rc) rc = cg_start(&c, &P, src, W, opt, out, err);
    int stop = rc || all_stop(src, !(c.rmax > opt->tol && c.it < opt->max_iter));
    for (; !rc;) { /* CG, then the true residual; a restart from it when they disagree */
        if ((rc = cg_iterate(&c, &P, src, W, opt, out, stop, err)) ||
            (rc = true_residual(&c, src, W, opt, out, err)))
            break;
        /* The recursion's residual drifts from the true one by the products'
         * rounding (float H: about 1e-4 of it by m = 20000); when the
         * recursion reached tol and the truth did not, CG starts again from
         * the true residual (R = B - A W; the iterations count on), at most
         * PCG_RESTARTS times. */
        if (!all_stop(src, c.rmax <= opt->tol && out->res > opt->tol && isfinite(out->res) &&
                               out->restarts < PCG_RESTARTS && c.it < opt->max_iter))
            break;
        out->restarts++;
        if (opt->progress)
            fsvc_printf("\rpcg: true residual %.3g, above the recursion's %.3g: restart %d\n",
                        out->res, c.rmax, out->restarts);
        for (size_t q = 0; q < c.mk; q++) c.Rr[q] = c.B[q] - c.Q[q];
        first_direction(&P, c.D, c.Z, c.rz, c.Rr, c.K, &out->t_pre);
        c.best = c.rmax = out->res;
        c.best_it = c.it;
        stop = 0;
    }
    if (!rc) {
        if (opt->progress) fsvc_printf("\n");
        out->iter = c.it;
        out->converged = out->res <= opt->tol;
    }
    for (size_t q = 0; !rc && q < c.mk; q++)
        if (!isfinite(W[q]))
            rc = fsvc_fail(err, FSVC_EINPUT, "ridge (pcg): the solution has NaN or infinite "
                           "weights (lambda %g); raise lambda (-l)", opt->lambda);
    free(P.L); free(P.tmp);
    cg_free(&c);
    return rc;
}

int fsvc_pcg_verdict(const fsvc_pcg_out *out, double tol, int *warn, char *warn_msg,
                     size_t len, fsvc_error *err)
{
    *warn = 0;
    if (out->converged) return FSVC_OK;
    double lim = 100 * tol > 1e-2 ? 100 * tol : 1e-2;
    if (out->res <= lim) {
        snprintf(warn_msg, len, "warning: pcg stopped at relative residual %.3g after %d "
                 "iterations, short of --cg-tol %g (kept: within %g)", out->res, out->iter,
                 tol, lim);
        *warn = 1;
        return FSVC_OK;
    }
    return fsvc_fail(err, FSVC_EINPUT, "ridge (pcg): no convergence: relative residual %.3g "
                     "after %d iterations (--cg-tol %g, error beyond %g); raise lambda (-l), "
                     "raise --cg-tol or use --solver direct", out->res, out->iter, tol, lim);
}

int fsvc_pcg_readout(double *R, double *W, fsvc_hsrc *src, const bnl_op *op,
                     const fsvc_pcg_opt *opt, int progress, fsvc_train_info *info,
                     fsvc_error *err)
{
    const fsvc_hsrc *tsrc = times_of(src);
    int64_t m = src->m;
    int K = src->K;
    fsvc_pcg_out out = {0};
    int rc = fsvc_pcg_solve(W, src, op, opt, &out, err);
    if (!rc) {
        int warn;
        char msg[256];
        rc = fsvc_pcg_verdict(&out, opt->tol, &warn, msg, sizeof msg, err);
        if (warn && progress) fsvc_printf("%s\n", msg);
    }
    if (!rc)
        for (int64_t j = 0; j < m; j++)
            for (int k = 0; k < K; k++) R[j * K + k] = W[(size_t)k * m + j];
    if (info) {
        info->cg_iter = out.iter;
        info->cg_res = out.res;
        info->cg_converged = out.converged;
        info->t_ridge[0] = tsrc->t_h;
        info->t_ridge[1] = tsrc->t_prod;
        info->t_ridge[2] = out.t_pre;
    }
    return rc;
}
