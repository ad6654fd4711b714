/* sparse.c - the basic neural layer on CSR rows (sparse.h): norms, the
 * CSC of the neurons, the merge reference and Gustavson's fast path. */
#include "sparse.h"
#include "act.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define SPARSE_PAR_MIN 4096 /* fewer nonzero products than this: one thread */

void bnl_csr_norms(double *out, const bnl_csr *A, bnl_dist dist)
{
    for (int64_t i = 0; i < A->rows; i++) {
        double s = 0;
        if (dist != BNL_DOT)
            for (int64_t e = A->ptr[i]; e < A->ptr[i + 1]; e++) {
                double v = A->val[e];
                s += dist == BNL_L2 ? v * v : fabs(v);
            }
        out[i] = s;
    }
}

int bnl_csr_check(const bnl_csr *A, int n, const char *what, fsvc_error *err)
{
    if (A->rows < 0 || n < 1 || (A->rows > 0 && (!A->ptr || A->ptr[0] < 0)))
        return fsvc_fail(err, FSVC_EINPUT, "%s: bad sparse shape (%lld rows, %d features)",
                         what, (long long)A->rows, n);
    for (int64_t i = 0; i < A->rows; i++) {
        if (A->ptr[i + 1] < A->ptr[i])
            return fsvc_fail(err, FSVC_EINPUT, "%s: sparse row %lld has a negative length",
                             what, (long long)i + 1);
        for (int64_t e = A->ptr[i]; e < A->ptr[i + 1]; e++) {
            if (A->col[e] < 0 || A->col[e] >= n ||
                (e > A->ptr[i] && A->col[e] <= A->col[e - 1]))
                return fsvc_fail(err, FSVC_EINPUT, "%s: sparse row %lld: feature %lld out of "
                                 "range [1, %d] or not ascending", what, (long long)i + 1,
                                 (long long)A->col[e] + 1, n); /* col may be INT_MAX */
            if (!isfinite(A->val[e]))
                return fsvc_fail(err, FSVC_EINPUT, "%s: sparse row %lld: value not finite",
                                 what, (long long)i + 1);
        }
    }
    return FSVC_OK;
}

void bnl_csc_free(bnl_csc *T)
{
    if (!T) return;
    free(T->ptr);
    free(T->row);
    free(T->val);
    free(T->norm);
    memset(T, 0, sizeof *T);
}

int bnl_csc_make(bnl_csc *T, const bnl_csr *W, int n, bnl_dist dist, fsvc_error *err)
{
    memset(T, 0, sizeof *T);
    int64_t nnz = W->rows > 0 ? W->ptr[W->rows] - W->ptr[0] : 0;
    T->n = n;
    T->m = W->rows;
    T->dist = dist;
    T->ptr = calloc((size_t)n + 1, sizeof *T->ptr);
    T->row = malloc((size_t)(nnz ? nnz : 1) * sizeof *T->row);
    T->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *T->val);
    T->norm = malloc((size_t)(W->rows ? W->rows : 1) * sizeof *T->norm);
    if (!T->ptr || !T->row || !T->val || !T->norm) {
        bnl_csc_free(T);
        return fsvc_fail(err, FSVC_ERESOURCE, "sparse layer: out of memory for %lld "
                         "nonzeros of %lld neurons", (long long)nnz, (long long)W->rows);
    }
    for (int64_t i = 0; i < W->rows; i++)
        for (int64_t e = W->ptr[i]; e < W->ptr[i + 1]; e++)
            T->ptr[W->col[e] + 1]++;
    for (int f = 0; f < n; f++)
        T->ptr[f + 1] += T->ptr[f];
    int64_t *at = malloc((size_t)(n ? n : 1) * sizeof *at);
    if (!at) {
        bnl_csc_free(T);
        return fsvc_fail(err, FSVC_ERESOURCE, "sparse layer: out of memory");
    }
    memcpy(at, T->ptr, (size_t)n * sizeof *at);
    for (int64_t i = 0; i < W->rows; i++) /* rows ascending: each feature's list sorted */
        for (int64_t e = W->ptr[i]; e < W->ptr[i + 1]; e++) {
            int64_t q = at[W->col[e]]++;
            T->row[q] = (int32_t)i;
            T->val[q] = W->val[e];
        }
    free(at);
    bnl_csr_norms(T->norm, W, dist);
    return FSVC_OK;
}

/* v of one pair by merging the sorted rows x (a..ae) and w (b..be). */
static double pair_v(bnl_dist dist, const bnl_csr *X, int64_t i, const bnl_csr *W, int64_t j)
{
    int64_t a = X->ptr[i], ae = X->ptr[i + 1], b = W->ptr[j], be = W->ptr[j + 1];
    double s = 0;
    while (a < ae || b < be) {
        double xv = 0, wv = 0;
        if (b >= be || (a < ae && X->col[a] < W->col[b])) xv = X->val[a++];
        else if (a >= ae || W->col[b] < X->col[a]) wv = W->val[b++];
        else { xv = X->val[a++]; wv = W->val[b++]; }
        if (dist == BNL_L2) s += (xv - wv) * (xv - wv);
        else if (dist == BNL_L1) s += fabs(xv - wv);
        else s += xv * wv;
    }
    return s;
}

static int check_op(const bnl_op *op, fsvc_error *err)
{
    if (op->dtype != FSVC_F32)
        return fsvc_fail(err, FSVC_EUSAGE, "sparse layer: float32 values only (not %s)",
                         fsvc_dtype_name(op->dtype));
    if (op->dist != BNL_L1 && op->dist != BNL_L2 && op->dist != BNL_DOT)
        return fsvc_fail(err, FSVC_EUSAGE, "sparse layer: unknown distance");
    if (op->act != BNL_TRI && op->act != BNL_GAUSS &&
        op->act != BNL_TANH && op->act != BNL_IDENT)
        return fsvc_fail(err, FSVC_EUSAGE, "sparse layer: unknown activation");
    return FSVC_OK;
}

int bnl_sparse_forward_ref(const bnl_op *op, float *H, int64_t ldh, const bnl_csr *W,
                           const bnl_csr *X, fsvc_error *err)
{
    int rc = check_op(op, err);
    if (rc) return rc;
    if (ldh < W->rows)
        return fsvc_fail(err, FSVC_EUSAGE, "sparse layer: ldh %lld < m %lld",
                         (long long)ldh, (long long)W->rows);
    bnl_actp p = bnl_actp_make(op);
    for (int64_t i = 0; i < X->rows; i++)
        for (int64_t j = 0; j < W->rows; j++)
            H[(size_t)i * ldh + j] = bnl_act_f(&p, (float)pair_v(op->dist, X, i, W, j));
    return FSVC_OK;
}

/* v from the norms and the shared-feature sum, as both fast entries do. */
static inline double finish_v(bnl_dist dist, double xn, double wn, double acc)
{
    double v = dist == BNL_L2 ? xn + wn - 2 * acc : dist == BNL_L1 ? xn + wn + acc : acc;
    if (v != v && dist != BNL_DOT) /* Inf - Inf of an infinite value: as far as it gets */
        v = INFINITY;
    return v;
}

float bnl_sparse_pair(const bnl_op *op, const bnl_csr *X, int64_t i, const bnl_csr *W,
                      int64_t j)
{
    bnl_actp p = bnl_actp_make(op);
    bnl_dist dist = op->dist;
    int64_t a = X->ptr[i], ae = X->ptr[i + 1], b = W->ptr[j], be = W->ptr[j + 1];
    double xn = 0, wn = 0, acc = 0;
    for (int64_t e = a; e < ae; e++) {
        double xv = X->val[e];
        xn += dist == BNL_L2 ? xv * xv : dist == BNL_L1 ? fabs(xv) : 0;
    }
    for (int64_t e = b; e < be; e++) {
        double wv = W->val[e];
        wn += dist == BNL_L2 ? wv * wv : dist == BNL_L1 ? fabs(wv) : 0;
    }
    while (a < ae && b < be) { /* the shared features, ascending */
        if (X->col[a] < W->col[b]) a++;
        else if (W->col[b] < X->col[a]) b++;
        else {
            double xv = X->val[a++], wv = W->val[b++];
            acc += dist == BNL_L1 ? fabs(xv - wv) - fabs(xv) - fabs(wv) : xv * wv;
        }
    }
    return bnl_act_f(&p, (float)finish_v(dist, xn, wn, acc));
}

/* One sample: acc (m doubles, zero on entry and on return) -> H row. */
static void row_fast(const bnl_actp *p, bnl_dist dist, float *h, double *acc,
                     const bnl_csc *W, const bnl_csr *X, int64_t i)
{
    double xn = 0;
    for (int64_t e = X->ptr[i]; e < X->ptr[i + 1]; e++) {
        double xv = X->val[e];
        int f = X->col[e];
        xn += dist == BNL_L2 ? xv * xv : dist == BNL_L1 ? fabs(xv) : 0;
        for (int64_t q = W->ptr[f]; q < W->ptr[f + 1]; q++) {
            double wv = W->val[q];
            acc[W->row[q]] += dist == BNL_L1 ? fabs(xv - wv) - fabs(xv) - fabs(wv) : xv * wv;
        }
    }
    for (int64_t j = 0; j < W->m; j++) {
        h[j] = bnl_act_f(p, (float)finish_v(dist, xn, W->norm[j], acc[j]));
        acc[j] = 0;
    }
}

int bnl_sparse_forward(const bnl_ctx *ctx, const bnl_op *op, float *H, int64_t ldh,
                       const bnl_csc *W, const bnl_csr *X, fsvc_error *err)
{
    int rc = check_op(op, err);
    if (rc) return rc;
    if (W->dist != op->dist)
        return fsvc_fail(err, FSVC_EUSAGE, "sparse layer: neurons indexed for another distance");
    if (ldh < W->m)
        return fsvc_fail(err, FSVC_EUSAGE, "sparse layer: ldh %lld < m %lld",
                         (long long)ldh, (long long)W->m);
    bnl_actp p = bnl_actp_make(op);
    /* work estimate: the products plus the H entries */
    double work = (double)X->rows * (double)W->m;
    if (X->rows > 0 && W->n > 0)
        work += (double)(X->ptr[X->rows] - X->ptr[0]) * (double)W->ptr[W->n] / W->n;
    int nt = ctx && ctx->threads > 1 && work >= SPARSE_PAR_MIN ? ctx->threads : 1;
    int fail = 0;
    #pragma omp parallel num_threads(nt)
    {
        double *acc = calloc((size_t)(W->m ? W->m : 1), sizeof *acc);
        if (!acc) {
            #pragma omp atomic write
            fail = 1;
        }
        #pragma omp for schedule(dynamic, 16)
        for (int64_t i = 0; i < X->rows; i++)
            if (acc) row_fast(&p, op->dist, H + (size_t)i * ldh, acc, W, X, i);
        free(acc);
    }
    if (fail)
        return fsvc_fail(err, FSVC_ERESOURCE, "sparse layer: out of memory for %lld "
                         "accumulators", (long long)W->m);
    return FSVC_OK;
}
