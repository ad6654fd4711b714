/*
 * embed.h - what a language binding needs from libfsvc (the Python package
 * python/fsvc calls these through ctypes): opaque model and parameter
 * handles, training and prediction on caller memory with no copy, the
 * model as bytes (pickling), and class probabilities from scores (shared
 * with `fsvc predict -b 1`).
 *
 * Like the rest of the library these return an fsvc status code, fill an
 * fsvc_error and print nothing.
 */
#ifndef FSVC_EMBED_H
#define FSVC_EMBED_H

#include "fsvc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- handles (a binding never needs the struct layouts) ---- */

/* A zeroed model (NULL when out of memory); release frees its arrays too. */
fsvc_model *fsvc_model_alloc(void);
void fsvc_model_release(fsvc_model *model);
/* The defaults of `fsvc train` (fsvc_param_default), with regression and
 * progress lines (through fsvc_printf) on or off. Settings are then applied by name with
 * fsvc_param_set (fsvc/study.h), the parser the CLI's --vary uses. */
fsvc_param *fsvc_param_alloc(int regression, int progress);
void fsvc_param_release(fsvc_param *p);
/* A print function that discards every line (fsvc_set_print). */
void fsvc_print_discard(const char *line);

/* Model fields a binding reads: meta[0..7] = n, rows, cols, K, Kout, m,
 * regression, dtype. class_values: the model's K label values. */
void fsvc_model_meta(int64_t meta[8], const fsvc_model *model);
const double *fsvc_model_class_values(const fsvc_model *model);

/* ---- training and prediction on caller memory ----
 * An array view: x, N x n row-major of dtype (u8, f32, f64), used in place
 * (not copied, not modified); rows x cols = n gives the image geometry
 * (0, 0: none); y: N label values (classes) or targets (p's regression),
 * or NULL; w: N sample weights (finite, > 0; a sample of weight w counts
 * as w samples in the readout) or NULL (all 1). y and w are not copied. */
typedef struct fsvc_array_view {
    const void *x;
    int64_t N, n;
    int dtype;
    int64_t rows, cols;
    const double *y;
    const double *w;
} fsvc_array_view;
int fsvc_train_view(fsvc_model *model, fsvc_train_info *info, const fsvc_array_view *a,
                    const fsvc_param *p, fsvc_error *err);
/* The probability calibration of `fsvc train -b 1` (fsvc/calibrate.h) fitted
 * afterwards on a model trained from the same a (x, y, w) and p
 * (probability off): Python's predict_proba fits it on first use, so that
 * fits that never ask for probabilities (a grid search) do not pay for it. */
int fsvc_calibrate_view(fsvc_model *model, const fsvc_array_view *a, const fsvc_param *p,
                        fsvc_error *err);
/* pred: N class indices or NULL; score: N x Kout or NULL (see
 * fsvc_predict); a->y and a->w are not read. */
int fsvc_predict_view(int *pred, double *score, const fsvc_model *model,
                      const fsvc_array_view *a, const char *backend, int threads,
                      fsvc_error *err);

/* ---- sparse data: CSR on caller memory (what `fsvc train` does with a
 * sparse LIBSVM file, fsvc/sparse.h) ----
 * x: x->rows samples of n features (1..FSVC_CSR_MAX_N) in CSR form: int64
 * offsets, int32 columns strictly ascending within a row in [0, n), finite
 * float values; used in place, not copied, checked first (FSVC_EINPUT
 * naming "sparse array"). Training makes a sparse model (centroids kept
 * as CSR, memory growing with the nonzeros, never with N x n); predict
 * takes a sparse or dense model (fsvc_predict). w: sample weights as in
 * fsvc_array_view. */
int fsvc_train_csr_view(fsvc_model *model, fsvc_train_info *info, const fsvc_csr *x,
                        int64_t n, const double *y, const double *w, const fsvc_param *p,
                        fsvc_error *err);
int fsvc_predict_csr_view(int *pred, double *score, const fsvc_model *model,
                          const fsvc_csr *x, int64_t n, const char *backend, int threads,
                          fsvc_error *err);
/* 1 when the model's centroids are sparse (it predicts CSR input only
 * beyond FSVC_DENSE_MAX_N features), else 0. */
int fsvc_model_is_sparse(const fsvc_model *model);

/* ---- class names (what a PNG folder's model keeps; a binding's string
 * labels) ----
 * Sets the model's K class names (copied; NULL: none), after checking them
 * as a model file's (non-empty, at most FSVC_MODEL_MAX_NAME bytes, no
 * control character, distinct): FSVC_EINPUT and the model unchanged
 * otherwise. name: class k's name or NULL when the model has none. */
int fsvc_model_set_class_names(fsvc_model *model, const char *const *names, int K,
                               fsvc_error *err);
const char *fsvc_model_class_name(const fsvc_model *model, int k);

/* ---- datasets loaded by fsvc_dataset_load, read through a handle ----
 * meta[0..7] = N, n, dtype, has_labels, K, rows, cols, scale. x: N x n of
 * dtype; y: N label values or NULL; class name k (PNG class folders) or
 * NULL. */
fsvc_dataset *fsvc_dataset_alloc(void);
void fsvc_dataset_release(fsvc_dataset *d);
int fsvc_dataset_load_with(fsvc_dataset *d, const char *source, int resize,
                           int allow_unlabelled, int n_features, fsvc_error *err);
/* A LIBSVM file read sparse (FSVC_STORE_SPARSE, values beyond float32's
 * range refused at their line): fsvc_dataset_csr gives its rows (NULL for
 * dense data). n_features > 0 forces n (up to FSVC_CSR_MAX_N). */
int fsvc_dataset_load_csr(fsvc_dataset *d, const char *path, int n_features,
                          fsvc_error *err);
const fsvc_csr *fsvc_dataset_csr(const fsvc_dataset *d);
void fsvc_dataset_meta(int64_t meta[8], const fsvc_dataset *d);
const void *fsvc_dataset_x(const fsvc_dataset *d);
const double *fsvc_dataset_y(const fsvc_dataset *d);
const char *fsvc_dataset_class_name(const fsvc_dataset *d, int k);

/* ---- the model as bytes: exactly the bytes of the model file ---- */

/* *buf: malloc'd (free with fsvc_bytes_free), *len bytes. */
int fsvc_model_to_bytes(unsigned char **buf, size_t *len, const fsvc_model *model,
                        fsvc_error *err);
/* Loads a model from the bytes of a model file; errors name `what`. */
int fsvc_model_from_bytes(fsvc_model *model, const void *buf, size_t len,
                          const char *what, fsvc_error *err);
void fsvc_bytes_free(void *buf);

/* ---- probabilities ----
 * proba: N x K, the softmax of each row of score (N x K readout scores):
 * rows sum to 1 and the argmax is the argmax of the scores (first index
 * wins ties, as fsvc_predict). Not calibrated. proba may be score (in place). */
void fsvc_scores_proba(double *proba, const double *score, int64_t N, int K);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_EMBED_H */
