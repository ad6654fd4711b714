/* ridge.c - the ridge readout: (H^T H + lambda I) R = H^T T, by Cholesky.
 *
 * The normal equations are the engine's (bnl.h bnl_normal_*: on a device
 * that offers them, H^T H and H^T T accumulated there in float64 and the
 * device's Cholesky; else the CPU table's, layers/cpu_normal.c: class-
 * ordered chunks of H, syrk of the active columns, a blocked Cholesky
 * whose bits do not depend on --threads). Here: the checks, the sum of
 * the processes' partial H^T H and H^T T (fsvc/comm.h: each rank's added
 * in rank order on the host, then the same solve on every rank), the
 * lambda rule (relative to the mean of diag(H^T H): scale-free, raised 3x
 * and retried, printed, when rounding leaves the matrix not positive
 * definite) and R. Class and sample weights scale H's and T's rows by
 * sqrt(cw[cls_i] sw[i]) in the engine's accumulation, so lambda's scale is
 * the weighted diagonal's (a sample of weight 2 is that sample twice).
 *
 * Degenerate systems are bad input told in words (FSVC_EINPUT), never a
 * LAPACK code: activations that are all 0 (a radius too small for the
 * data: no centroid reaches any sample), activations or targets that are
 * not finite, a matrix still not positive definite after the retries. */
#include "internal.h"
#include "comm.h"
#include "solver.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int fsvc_lambda_check(double lambda, fsvc_error *err)
{
    if (!(lambda > 0) || lambda > 1e300) /* NaN too */
        return fsvc_fail(err, FSVC_EUSAGE, "ridge: lambda %g is not in (0, 1e300]", lambda);
    return FSVC_OK;
}

/* The lambda rule, once for the dense and the sparse solves: lambda is
 * relative to the mean of diag(H^T H) (scale-free), raised 3x and retried
 * (printed with progress) when rounding leaves the matrix not positive
 * definite; what cannot be solved is told in words. */
int fsvc_ridge_lambda_solve(const fsvc_ridge_sys *sys, double lambda, double radius,
                            int progress, fsvc_error *err)
{
    int64_t m = sys->m;
    size_t mk = (size_t)m * sys->K;
    double md = 0;
    for (int64_t j = 0; j < m; j++)
        md += sys->dg[j];
    md = m ? md / m : 0;
    int rc = fsvc_ridge_check_normal(md, sys->B0, mk, radius, err);
    if (rc)
        return rc;
    double lam = md > 0 ? lambda * md : lambda;
    int info = 0;
    for (int attempt = 0; attempt < 6; attempt++) {
        if (attempt) {
            if (progress)
                fsvc_printf("ridge: H^T H + lambda I not positive definite (at column %d) with "
                            "lambda %g; retrying with %g\n", info, lam, lam * 3);
            lam *= 3;
        }
        memcpy(sys->B, sys->B0, mk * sizeof *sys->B);
        if ((rc = sys->solve(sys->self, lam, sys->B, &info, err)))
            return rc;
        if (info <= 0) break;
    }
    if (info > 0)
        return fsvc_fail(err, FSVC_EINPUT,
                         "ridge: H^T H + lambda I is not positive definite at column %d even "
                         "with lambda %g; raise lambda (-l, now %g)", info, lam, lambda);
    if (info == BNL_CHOL_NOMEM)
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory for the solve");
    if (info < 0) /* LAPACKE's NaN check, or a shape it refuses */
        return fsvc_fail(err, FSVC_EINPUT, "ridge: the linear system cannot be solved (LAPACK "
                         "refused argument %d: NaN or infinite values in H^T H + lambda I or "
                         "H^T T); raise lambda (-l) or change the radius (-r)", -info);
    return FSVC_OK;
}

static int normal_solve(void *self, double lam, double *B, int *info, fsvc_error *err)
{
    return bnl_normal_solve(self, lam, B, info, err);
}

/* Across processes: the partial G (both triangles, on the host) and
 * H^T T summed in rank order (comm->sum), then diag(G) again. */
static int host_reduce(bnl_normal *ses, int64_t m, int K, double *dg, double *B,
                       const fsvc_comm *comm, fsvc_error *err)
{
    void *G;
    fsvc_dtype t;
    int rc = bnl_normal_gram(ses, &G, &t, err);
    if (rc)
        return rc;
    if (comm->sum(comm->self, G, (size_t)m * m, t) ||
        comm->sum(comm->self, B, (size_t)m * K, FSVC_F64))
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: the sum of H^T H over the processes failed");
    bnl_normal_diag(ses, dg);
    return FSVC_OK;
}

int fsvc_readout_ridge(double *R, const fsvc_ridge_problem *pb, double lambda,
                            int gram_f32, int progress, double *times, fsvc_error *err)
{
    const fsvc_comm *comm = pb->comm ? pb->comm : fsvc_comm_one();
    const bnl_ctx *ctx = pb->ctx;
    const bnl_op *op = pb->op;
    const int *cls = pb->cls;
    const double *y = pb->y, *cw = pb->cw;
    int64_t m = pb->m, N = pb->N;
    int K = pb->K;
    if (m < 1 || N < 1)
        return fsvc_fail(err, FSVC_EINPUT, "ridge: no %s to fit (m = %lld, N = %lld)",
                         m < 1 ? "centroids" : "samples", (long long)m, (long long)N);
    int blas_saved = bnl_blas_threads_push(ctx, 0); /* syrk, potrf: ctx->threads */
    bnl_normal *ses = NULL;
    double *dg = malloc((size_t)m * sizeof *dg);
    double *B0 = calloc((size_t)m * K, sizeof *B0); /* H^T T, column-major m x K */
    double *B = malloc((size_t)m * K * sizeof *B);
    double t_h = 0, t_g = 0;
    int rc = FSVC_OK;
    /* across processes the partial sums meet on the host: each rank's
     * device accumulates its slice, G comes back once */
    bnl_normal_opt opt = {gram_f32, progress, comm->size > 1, 0, pb->sw};
    if (!dg || !B0 || !B)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory");
    if (y) cw = NULL; /* weights are per class */
    if (!rc)
        rc = bnl_normal_open(ctx, op, &opt, &ses, err);
    if (!rc)
        rc = bnl_normal_accum(ses, op, pb->C, m, pb->X, N, pb->n, y ? NULL : cls, y, cw, K, dg,
                              B0, err);
    bnl_normal_times(ses, &t_h, &t_g);
    if (comm->size > 1) { /* a failed rank stops every rank */
        int any = comm->agree(comm->self, rc);
        if (any && !rc) rc = fsvc_fail(err, any, FSVC_COMM_ELSEWHERE);
        if (!rc) rc = host_reduce(ses, m, K, dg, B0, comm, err);
    }
    if (rc)
        goto done;
    fsvc_ridge_sys sys = {normal_solve, ses, dg, m, K, B0, B};
    double tc = fsvc_clock();
    rc = fsvc_ridge_lambda_solve(&sys, lambda, op->radius, progress, err);
    if (times) { times[0] = t_h; times[1] = t_g; times[2] = fsvc_clock() - tc; }
    if (rc)
        goto done;
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
    bnl_normal_close(ses);
    free(dg); free(B0); free(B);
    bnl_blas_threads_pop(blas_saved);
    return rc;
}
