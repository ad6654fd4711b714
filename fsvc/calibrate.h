/*
 * calibrate.h - calibrated class probabilities (fsvc/calibrate.c), what
 * `svm-train -b 1` gives LIBSVM models.
 *
 * A model trained with the probability setting (`fsvc train -b 1`, the
 * Python classifier's default) stores one temperature a > 0, fitted on
 * held-out scores: p_k = exp(a s_k) / sum_j exp(a s_j) for the readout
 * scores s (Platt scaling with a symmetric bias for two classes). A scale
 * keeps the argmax, so the probabilities and the predictions agree.
 *
 * The held-out scores come from 5 stratified folds (of up to 1000
 * samples each, see fsvc_heldout_scores). For a dense ridge model without
 * class weights or virtual samples: the readout solved again without the
 * fold, on the model's own centroids less those that are the fold's
 * samples (a model trained without the fold could not hold them; kept,
 * they make the held-out scores worse than a test set's: breast_cancer
 * log-loss 0.173 against 0.109), by the downdate H^T H - H_f^T H_f of one
 * Gram matrix (memory 2 m^2 doubles; time about that of a direct ridge
 * solve plus 5 Cholesky factorisations of m x m), and applied to the
 * fold. Otherwise (sparse models, the onehot and LMS readouts, class
 * weights, --augment): 5 models trained without the fold with the
 * model's radius, as svm-train -b 1 does.
 *
 * A model without it (trained without -b 1, or written by an fsvc before
 * model format 6) gives the plain softmax of its scores, a = 1.
 */
#ifndef FSVC_CALIBRATE_H
#define FSVC_CALIBRATE_H

#include "fsvc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FSVC_CALIB_FOLDS 5
#define FSVC_CALIB_ROWS 5000

/* Held-out readout scores S (N x K, row-major) of the samples of d, the
 * training set of model M (trained with p), where held[i] = 1: the
 * stratified folds of fsvc_cv_folds (seed p->seed) of about
 * FSVC_CALIB_ROWS / FSVC_CALIB_FOLDS samples each (at least
 * FSVC_CALIB_FOLDS folds), the first FSVC_CALIB_FOLDS of them each held
 * out in turn: every sample up to FSVC_CALIB_ROWS samples, a stratified
 * FSVC_CALIB_ROWS of them beyond. */
int fsvc_heldout_scores(double *S, int *held, const fsvc_model *M, const fsvc_dataset *d,
                        const fsvc_param *p, fsvc_error *err);
/* The temperature a >= 0 minimising the cross-entropy of softmax(a s_i)
 * against Platt's smoothed targets (true class 1 - 1/(N_k + 2), the
 * others share 1/(N_k + 2), N_k the samples of that class); 0 when the
 * scores carry no information (every probability 1/K). cls: N classes in
 * [0, K). w: N sample weights (NULL: all 1): sample i's loss counts w_i
 * times and N_k is the weight of class k (integer weights: the samples
 * repeated). -1 when out of memory. */
double fsvc_calib_fit(const double *S, const int *cls, const double *w, int64_t N, int K);
/* Fits M->proba_a on the held-out scores of d (fsvc_heldout_scores and
 * fsvc_calib_fit). FSVC_EUSAGE for a regression model or under 2
 * classes. */
int fsvc_calibrate(fsvc_model *M, const fsvc_dataset *d, const fsvc_param *p,
                   fsvc_error *err);
/* proba (N x Kout, may be score): the model's class probabilities from
 * its readout scores: softmax(M->proba_a s), or softmax(s) when the model
 * has no calibration. Rows sum to 1; the argmax is the scores' argmax. */
void fsvc_model_proba(double *proba, const double *score, const fsvc_model *M, int64_t N);
/* 1 when M holds a calibration (M->proba_a > 0), else 0. */
int fsvc_model_calibrated(const fsvc_model *M);

/* fsvc_train_comm with p->probability: trains without it, then calibrates
 * (one process only: FSVC_EUSAGE across processes). */
struct fsvc_comm;
int fsvc_train_calibrated(fsvc_model *model, fsvc_train_info *info, const fsvc_dataset *d,
                          int64_t N_total, int64_t first, const fsvc_param *p,
                          const struct fsvc_comm *comm, fsvc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_CALIBRATE_H */
