/* sparse.h - training and prediction on sparse data (internal to fsvc/).
 *
 * Sparse data (fsvc_dataset.csr) trains a sparse model (fsvc_model.Cs):
 * the centroids are training rows and stay CSR, every hidden layer is the
 * sparse layer of layers/sparse.h (Gustavson over the centroids by
 * feature), so memory grows with the nonzeros and with N x m (H chunks),
 * never with N x n. */
#ifndef FSVC_SPARSE_H
#define FSVC_SPARSE_H

#include "internal.h"
#include "solver.h"
#include "comm.h"
#include "../layers/sparse.h"

/* A layer view of rows [i0, i0 + b) of a (fsvc/csr_view.c). */
bnl_csr fsvc_csr_view(const fsvc_csr *a, int64_t i0, int64_t b);

/* fsvc_model_check's test of sparse centroids: m rows, columns ascending
 * in [0, n), values finite (FSVC_EINPUT naming name). */
int fsvc_csr_check(const fsvc_csr *a, int n, const char *name, fsvc_error *err);

/* fsvc_train_comm for sparse d (fsvc/sparse_train.c). */
int fsvc_train_sparse(fsvc_model *model, fsvc_train_info *info, const fsvc_dataset *d,
                      const fsvc_param *p, const fsvc_comm *comm, fsvc_error *err);
/* fsvc_predict when the model or d is sparse (fsvc/sparse_predict.c). */
int fsvc_predict_sparse(int *pred, double *score, const fsvc_model *model,
                        const fsvc_dataset *d, int threads, fsvc_error *err);

/* The novelty pass on the samples of pb (the CSR rows Xs; at unused: one
 * process), as fsvc_novelty_batched on dense rows (fsvc/sparse_novelty.c):
 * sel (capacity N) gets the accepted rows, *m their count; o->max_m > 0
 * stops there. The _seq form is the plain definition it must match
 * exactly (pb->ctx unused). */
int fsvc_sparse_novelty(int64_t *sel, int64_t *m, double *syn, const fsvc_select_problem *pb,
                        const fsvc_select_opt *o, fsvc_error *err);
int fsvc_sparse_novelty_seq(int64_t *sel, int64_t *m, const fsvc_select_problem *pb,
                            const fsvc_select_opt *o);

/* The ridge readout on sparse rows (fsvc/sparse_ridge.c): R (m x K
 * row-major) from (H^T D H + lambda mean(diag) I) R = H^T D T, H =
 * act(dist(C, X)) by the sparse layer; T one-hot of cls or y (K = 1); D =
 * diag(sw) (the sample weights, NULL: all 1). Solver direct (G = H^T D H
 * in double, Cholesky, lambda raised 3x on a matrix not positive
 * definite, as fsvc/ridge.c) or pcg (fsvc_pcg_solve over the engine's
 * block products of a CSR source, fsvc_hsrc_open); auto as
 * fsvc_readout_solve (o: lambda, solver, tol, progress and h_bf16; aug,
 * rows, cols and ram unused). The memory the solve needs
 * is checked first (FSVC_ERESOURCE naming the largest m that fits). info:
 * solver, cg_*, t_ridge filled. */
typedef struct fsvc_sparse_problem {
    const bnl_ctx *ctx;
    const bnl_op *op;
    const bnl_csc *Ct;      /* the centroids by feature (bnl_csc_make) */
    const fsvc_csr *C, *X;  /* the centroids (m rows), the samples (N rows) */
    const int *cls;
    const double *y;
    const double *sw;       /* N sample weights or NULL */
    int K;
} fsvc_sparse_problem;
int fsvc_sparse_ridge(double *R, const fsvc_sparse_problem *pb, const fsvc_ridge_opt *o,
                      fsvc_train_info *info, fsvc_error *err);

#endif
