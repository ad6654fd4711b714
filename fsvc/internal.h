/* internal.h - pieces of the trainer shared inside fsvc/ (not installed). */
#ifndef FSVC_INTERNAL_H
#define FSVC_INTERNAL_H

#include "fsvc.h"
#include "../layers/bnl.h"
#include "comm.h"

/* The engine context of a training run: p->backend and p->threads, on
 * p->device when it names one and the backend is "cuda" (fsvc/ctx.c). */
int fsvc_ctx_open(bnl_ctx *ctx, const fsvc_param *p, fsvc_error *err);

/* ---- the selection of centroids ---- */

/* The samples a selection runs on: the N samples order[0..N-1] (NULL:
 * 0..N-1) of n features each, rows of X (op->dtype) or, for the sparse
 * pass, of the CSR Xs; distances and activations by op (its radius
 * included) on the engine ctx. at: where the rows are; at.comm NULL: X
 * holds every row (one process), else X holds the global rows [at.first,
 * at.first + at.Nloc) of the processes of at.comm (the novelty pass). */
typedef struct fsvc_select_problem {
    const bnl_ctx *ctx;
    const bnl_op *op;
    const void *X;
    const fsvc_csr *Xs;
    const int64_t *order;
    int64_t N;
    int n;
    fsvc_slice at;
} fsvc_select_problem;

/* The settings of a selection (checked by fsvc_train, fsvc/train.c). */
typedef struct fsvc_select_opt {
    double prag;     /* novelty: a sample whose activation sum is below prag
                        becomes a centroid */
    int64_t max_m;   /* novelty: stop at max_m centroids (<= 0: no limit) */
    uint64_t seed;   /* k-means++: the draws */
    int progress;    /* progress lines on stdout */
} fsvc_select_opt;

/* k-means++ seeding (fsvc/select_kmeans.c): m distinct rows of pb->X (N x
 * n, op->dtype; order and at unused: every row, one process) by D^2
 * sampling in op->dist (L1 or L2), the D^2 weights updated through
 * bnl_forward after every round of draws (batched D^2 seeding: a round
 * draws max(1, min(k/8, 256)) samples for k chosen so far). sel: m
 * indices in draw order; the same o->seed gives the same sel. 1 <= m <= N
 * (m = N: every sample); *syn: the distance work N m n. */
int fsvc_select_kmeans(int64_t *sel, int64_t m, double *syn, const fsvc_select_problem *pb,
                       const fsvc_select_opt *o, fsvc_error *err);

/* Seeded PRNG (splitmix64) and a Fisher-Yates shuffle of idx[0..N-1]. */
uint64_t fsvc_rng_next(uint64_t *state);
void fsvc_shuffle(int64_t *idx, int64_t N, uint64_t seed);

/* fsvc_predict of a dense model and dense d on an open context (no model
 * check): the chunks of fsvc_predict (fsvc/predict.c). */
int fsvc_predict_ctx(int *pred, double *score, const fsvc_model *model,
                     const fsvc_dataset *d, bnl_ctx *ctx, int threads, fsvc_error *err);
/* fsvc_model_input with the thread count of the caller's context for the
 * deskew and HOG passes (threads <= 0: all cores). */
int fsvc_model_input_threads(void **out, const fsvc_model *model, const fsvc_dataset *d,
                             int threads, fsvc_error *err);
/* The same for training data: a value beyond float32's range for a
 * float32 model is FSVC_EINPUT naming the sample (it would become a
 * centroid or a distance of +-Inf). Prediction keeps such a value as
 * +-Inf, as it always did (satimg.test holds one: 1.58e308). */
int fsvc_model_input_train(void **out, const fsvc_model *model, const fsvc_dataset *d,
                           int threads, fsvc_error *err);

/* HOG features (fsvc/model_hog.c), the last step of fsvc_model_input.
 * fsvc_hog_raw: *h (N x fsvc_hog_width floats, malloc'd), the HOG of the
 * images img (d's, as preprocessed so far: type st; u8 values in units of
 * 255). fsvc_hog_join: x (N x n values of the model's type) becomes N x
 * fsvc_model_width, each row followed by its HOG times hog_scale (u8:
 * rounded, clipped at 255); x is freed and replaced, or kept on failure. */
int fsvc_hog_raw(float **h, const fsvc_model *model, const void *img, fsvc_dtype st,
                 const fsvc_dataset *d, int threads, fsvc_error *err);
int fsvc_hog_join(void **x, const float *h, const fsvc_model *model, const fsvc_dataset *d,
                  fsvc_error *err);

/* fsvc_train_comm without the probability calibration (fsvc/train.c):
 * the model alone. fsvc_train_comm (train_entry.c) adds the calibration
 * of p->probability; calibrate.c trains its folds here. */
struct fsvc_comm;
int fsvc_train_model(fsvc_model *model, fsvc_train_info *info, const fsvc_dataset *d,
                     int64_t N_total, int64_t first, const fsvc_param *p,
                     const struct fsvc_comm *comm, fsvc_error *err);

/* Seconds on the monotonic clock. */
double fsvc_clock(void);

/* Novelty pass (fsvc/novelty.c) over the samples of pb (dense rows X;
 * pb->ctx unused: the reference backend). sel: the selected row indices
 * of X, in acceptance order (capacity N); *m their count. o->max_m > 0
 * stops the pass once that many centroids are taken. Activation sums are
 * float64 in increasing centroid order; the first row always becomes a
 * centroid. The plain sequential loop (pb->at unused). */
int fsvc_novelty_seq(int64_t *sel, int64_t *m, const fsvc_select_problem *pb,
                     const fsvc_select_opt *o, fsvc_error *err);
/* The same pass batched on the engine pb->ctx; selects exactly what the
 * plain sequential loop selects. *syn receives the synaptic operations
 * done. Across processes (pb->at.comm of size > 1) X holds the global rows
 * of pb->at of the N in order (global indices), and every rank returns
 * the centroids one process selects (one OR exchange and one status
 * agreement per chunk; every rank calls it). */
int fsvc_novelty_batched(int64_t *sel, int64_t *m, double *syn, const fsvc_select_problem *pb,
                         const fsvc_select_opt *o, fsvc_error *err);

/* The radius search (fsvc/radius.c): the author's recipe from r0 over
 * selections of N samples (of source, in messages) run by pass (r, stop
 * past cap centroids -> *m, *syn). */
typedef int (*fsvc_pass_fn)(void *self, double r, int64_t cap, int64_t *m, double *syn,
                            fsvc_error *err);
typedef struct fsvc_radius_pass {
    fsvc_pass_fn pass;
    void *self;
    int64_t N;
    const char *source;
} fsvc_radius_pass;
int fsvc_radius_search(double *r_out, double *syn, double r0, const fsvc_param *p,
                       const fsvc_radius_pass *rp, fsvc_error *err);

/* Distance of one pair (L1, or Euclidean for L2), summed in double. */
double fsvc_pair_dist(int dist, fsvc_dtype t, const void *x, const void *c, int n);

/* FSVC_OK when the engine can compute kernel act (bnl_act) of radius r
 * on dtype t values: finite, > 0, and not so small that the kernel's
 * factor overflows (fsvc/model.c); else FSVC_EINPUT naming `name`, the
 * problem and the smallest usable radius. */
int fsvc_radius_check(int act, fsvc_dtype t, double r, const char *name, fsvc_error *err);

/* Readouts. H rows come from bnl_forward over sample chunks. The problem
 * pb (fsvc_ridge_problem, fsvc/solver.h): pb->C m x n centroids, pb->X
 * N x n inputs (pb->op->dtype), pb->cls N class indices (K columns of
 * T), pb->sw N sample weights or NULL; R: m x K output (double). lab: m
 * centroid classes. LMS starts from the R it is given (the one-hot
 * readout); sample i's step is eta sw[i]; it reads neither y, cw nor
 * comm. */
struct fsvc_ridge_problem;
typedef struct fsvc_ridge_problem fsvc_ridge_problem;
void fsvc_readout_onehot(double *R, const int *lab, int64_t m, int K);
int fsvc_readout_lms(double *R, const fsvc_ridge_problem *pb, double eta, int epochs,
                     int progress, fsvc_error *err);
/* lambda of the ridge readout in (0, 1e300], else FSVC_EUSAGE naming the
 * range (fsvc/ridge.c): the one check, at train's parameters and at the
 * readouts' entry points that studies and tests call directly. */
int fsvc_lambda_check(double lambda, fsvc_error *err);

/* The lambda rule of the ridge solves (fsvc/ridge.c; the dense and the
 * sparse readouts): solve is one solve of (H^T H + lam I) X = B in place
 * (info as LAPACK's, BNL_CHOL_NOMEM out of memory); dg: diag(H^T H) (m);
 * B0: H^T T (m x K column-major), B: the solution. */
typedef struct fsvc_ridge_sys {
    int (*solve)(void *self, double lam, double *B, int *info, fsvc_error *err);
    void *self;
    const double *dg;
    int64_t m;
    int K;
    const double *B0;
    double *B;
} fsvc_ridge_sys;
int fsvc_ridge_lambda_solve(const fsvc_ridge_sys *sys, double lambda, double radius,
                            int progress, fsvc_error *err);
/* mean diag(H^T H) and H^T T usable for a ridge solve (fsvc/ridge.c). */
int fsvc_ridge_check_normal(double md, const double *B, size_t n, double radius,
                            fsvc_error *err);
/* Ridge by the direct solve: (H^T D H + lam I) R = H^T D T with T one-hot
 * of pb->cls (K columns) or, when pb->y != NULL, the single column y (K
 * must be 1), D = diag(cw[cls_i] sw[i]) (pb->cw: K class weights,
 * classification only; pb->sw: N sample weights; either NULL: all 1),
 * i.e. H's and T's row i scaled by sqrt(D_ii) (with weights the normal
 * equations are summed on the CPU when the device cannot weight them),
 * lam = lambda x mean diag(H^T D H). The partial sums are reduced across
 * pb->comm's processes (NULL: one process). gram_f32: -1 picks the
 * precision of H^T H from m, 0 forces float64, 1 float32. times (3 or
 * NULL): seconds spent on H, on H^T H and H^T T, and on the solve. */
int fsvc_readout_ridge(double *R, const fsvc_ridge_problem *pb, double lambda,
                            int gram_f32, int progress, double *times, fsvc_error *err);

/* Sample weights (fsvc/weights.c). fsvc_weights_check: d->weight (NULL
 * is fine) finite and > 0, else FSVC_EINPUT naming d->source and the
 * sample; weights other than 1 with p's onehot readout (p may be NULL)
 * are FSVC_EUSAGE. fsvc_weights_real: d->weight, or NULL when every weight is 1
 * (the unweighted model, bit for bit, on every backend).
 * fsvc_center_targets: the regression offset, the mean of d->y weighted
 * by d->weight over comm's processes (NULL: one), into *mean, and
 * *yc = y - mean (d->N values, malloc'd; the caller frees it). */
int fsvc_weights_check(const fsvc_dataset *d, const fsvc_param *p, fsvc_error *err);
const double *fsvc_weights_real(const fsvc_dataset *d);
/* w (n values), or NULL when w is NULL or every value is 1: weights of 1
 * are no weights, so the unweighted path gives the same bits by
 * construction (sample and class weights alike). */
const double *fsvc_weights_or_null(const double *w, int64_t n);
/* count rows made of N weighted samples (sw NULL: unweighted), counted as
 * the written-out data would be: count x mean weight, at least 1 (the
 * pcg preconditioner's N, dense and sparse alike). */
int64_t fsvc_weighted_count(const double *sw, int64_t N, int64_t count);
struct fsvc_comm;
int fsvc_center_targets(double **yc, double *mean, const fsvc_dataset *d,
                        const struct fsvc_comm *comm, fsvc_error *err);
/* One LABEL:W item of a class-weight list at *pos (fsvc/params.c): the
 * label into label (cap bytes), W > 0 into *w, *pos moved on; *got = 0 at
 * the end of the list. FSVC_EUSAGE naming a bad item. */
int fsvc_class_weight_next(const char **pos, char *label, size_t cap, double *w, int *got,
                           fsvc_error *err);

/* Rows i0..i0+b of a prediction from their scores Y (b x model->Kout):
 * the class of the largest score (pred) and the scores, or for regression
 * the value plus the model's offset (score); pred or score may be NULL.
 * A score that is not finite (readout weights that overflow, e.g. 1e308)
 * is FSVC_EINPUT naming source and the sample, not a NaN probability.
 * Dense and sparse prediction both end here (fsvc/predict.c). */
int fsvc_scores_pick(const fsvc_model *model, const double *Y, int64_t b, int64_t i0,
                     int *pred, double *score, const char *source, fsvc_error *err);

#endif
