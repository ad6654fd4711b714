/*
 * sparse.h - the basic neural layer on sparse rows (CSR):
 * H = act(dist(W, X)) for W (m rows) and X (N rows) held as CSR with float
 * values, without ever making them dense (memory: the nonzeros, plus one
 * accumulator of m doubles per thread).
 *
 * Distances in double from the nonzeros only:
 *   L2:  v = |x|^2 + |w|^2 - 2 x.w   (the squared distance; below 0 -> 0)
 *   L1:  v = |x|_1 + |w|_1 + sum over shared features of
 *            (|x_f - w_f| - |x_f| - |w_f|)
 *   dot: v = x.w
 * (an infinite value gives an infinite distance, never NaN: Inf - Inf in
 * the fast path counts as Inf), then H = bnl_act_f(v) as the dense float
 * layers (layers/act.h), H float
 * N x m (ldh). Two implementations, tested against each other:
 *   bnl_sparse_forward_ref: each (x, w) pair by merging the two sorted
 *     rows, the distance summed over the union of their features;
 *   bnl_sparse_forward: Gustavson's product over W by feature (bnl_csc):
 *     every nonzero x_f meets only the centroids holding feature f, cost
 *     sum over x's nonzeros of the column lengths; OpenMP over samples.
 */
#ifndef FSVC_BNL_SPARSE_H
#define FSVC_BNL_SPARSE_H

#include "bnl.h"

/* Rows of a CSR matrix (a view: ptr holds rows + 1 absolute offsets into
 * col/val, so rows i0.. of a bigger matrix are {b, ptr + i0, col, val}).
 * Columns strictly ascending within a row, in [0, n). */
typedef struct bnl_csr {
    int64_t rows;
    const int64_t *ptr;
    const int32_t *col;
    const float *val;
} bnl_csr;

/* W by feature (CSC), for the fast path: feature f holds the entries
 * ptr[f] .. ptr[f+1]-1 (row = the neuron, ascending), norm: the m row
 * norms (L2: sum v^2, L1: sum |v|, dot: 0). */
typedef struct bnl_csc {
    int n;
    int64_t m;
    int64_t *ptr;
    int32_t *row;
    float *val;
    double *norm;
    bnl_dist dist;
} bnl_csc;

/* Row norms of A for dist (L2 sum v^2, L1 sum |v|, dot 0), in double. */
void bnl_csr_norms(double *out, const bnl_csr *A, bnl_dist dist);

/* Checks a CSR view: offsets non-decreasing, columns in [0, n) strictly
 * ascending in each row, values finite; FSVC_EINPUT naming `what`. */
int bnl_csr_check(const bnl_csr *A, int n, const char *what, fsvc_error *err);

int bnl_csc_make(bnl_csc *T, const bnl_csr *W, int n, bnl_dist dist, fsvc_error *err);
void bnl_csc_free(bnl_csc *T);

/* The plain reference: H (N x m, ldh >= m) for W and X given as CSR. */
int bnl_sparse_forward_ref(const bnl_op *op, float *H, int64_t ldh, const bnl_csr *W,
                           const bnl_csr *X, fsvc_error *err);

/* The fast path: W as made by bnl_csc_make with op->dist. Threads:
 * ctx->threads (one thread for small calls). */
int bnl_sparse_forward(const bnl_ctx *ctx, const bnl_op *op, float *H, int64_t ldh,
                       const bnl_csc *W, const bnl_csr *X, fsvc_error *err);

/* The activation of one pair (row i of X, row j of W) exactly as
 * bnl_sparse_forward computes it (the same sums in the same order, so the
 * same bits): the novelty pass's in-chunk updates. */
float bnl_sparse_pair(const bnl_op *op, const bnl_csr *X, int64_t i, const bnl_csr *W,
                      int64_t j);

#endif
