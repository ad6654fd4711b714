/*
 * study.h - cross-validation, dataset subsets, study grids and the LMS
 * validation curve (fsvc/cv.c, fsvc/study_grid.c, fsvc/study_lms.c).
 *
 * Built on the public API of fsvc.h only (plus the trainer's LMS epoch in
 * study_lms.c). Used by `fsvc study` (tools/cmd_study.c) and its tests;
 * the study CSV itself is read and written with csv.h.
 */
#ifndef FSVC_STUDY_H
#define FSVC_STUDY_H

#include "fsvc.h"
#include "csv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sparse data (sparse_train.c) ---- */

/* FSVC_OK when fsvc_train runs the settings p on sparse data d (d->csr) in
 * one process; else the refusal fsvc_train would give (FSVC_EUSAGE, one
 * line naming the setting), so that a study refuses a grid before any
 * point runs. */
int fsvc_sparse_check(const fsvc_dataset *d, const fsvc_param *p, fsvc_error *err);

/* ---- cross-validation (cv.c) ---- */

/* Stratified, seeded K-fold assignment, as `svm-train -v` does it:
 * fold[i] in 0..nfold-1 for each of the N samples. Inside each class the
 * samples are shuffled with the seed and dealt round-robin, the dealing
 * continuing from class to class, so every fold holds floor or ceil of
 * (class count / nfold) of each class and fold sizes differ by at most 1.
 *   fold: N, cls: N class indices in 0..K-1. */
int fsvc_cv_folds(int *fold, const int *cls, int64_t N, int K, int nfold,
                  uint64_t seed, fsvc_error *err);

/* out = the rows idx[0..cnt-1] of d, in that order (a deep copy of x, y,
 * cls and weight; the class index and values of d are kept so that models
 * trained on a subset predict d's class indices; no names or paths). */
int fsvc_dataset_subset(fsvc_dataset *out, const fsvc_dataset *d,
                        const int64_t *idx, int64_t cnt, fsvc_error *err);

/* Rows of d with fold[i] == f (in == 1) or != f (in == 0), in file order.
 * *cnt is their number; idx: capacity N. */
int64_t fsvc_fold_rows(int64_t *idx, const int *fold, int64_t N, int f, int in);

typedef struct fsvc_cv_result {
    int nfold;
    double acc_mean, acc_sd;  /* over the folds, in [0,1]; sd: sample sd */
    double acc_pooled;        /* correct / N over all held-out predictions */
    double acc[64];           /* per fold (the first 64) */
    double m_mean;            /* mean centroids per fold model */
    double t_train;           /* seconds, all folds */
    int64_t cg_iter;          /* pcg iterations, summed over the folds */
    int status;               /* fsvc_cross_validate_lambdas: FSVC_OK, or the
                                 FSVC_EINPUT of a fold's readout (msg says it) */
    char msg[1024];
    double rmse;              /* regression: over all held-out predictions */
} fsvc_cv_result;

/* K-fold cross-validation of the parameters p on d (labels, classes):
 * each fold's model is trained on the other folds (in file order) and
 * predicts the fold. nfold in 2..min(64, N). */
int fsvc_cross_validate(fsvc_cv_result *res, const fsvc_dataset *d,
                        const fsvc_param *p, int nfold, uint64_t seed,
                        fsvc_error *err);

/* K-fold cross-validation of a regression (p->regression): the folds of
 * fsvc_cross_validate (dealt over the sorted label values), each held-out
 * value predicted once; the scores of the pooled predictions and the RMSE
 * per fold. */
typedef struct fsvc_cv_regression {
    int nfold;
    double mse, r2, scc;      /* pooled: mean squared error, R^2, squared
                                 correlation coefficient */
    double rmse_mean, rmse_sd; /* RMSE over the folds (sd: sample sd) */
    double r2_mean, r2_sd;    /* R^2 of each fold's predictions: mean, sample sd */
    int64_t cg_iter;          /* pcg iterations, summed over the folds */
    double m_mean;            /* mean centroids per fold model */
    double t_train;           /* seconds, all folds */
} fsvc_cv_regression;
int fsvc_cross_validate_regression(fsvc_cv_regression *res, const fsvc_dataset *d,
                                   const fsvc_param *p, int nfold, uint64_t seed,
                                   fsvc_error *err);

/* K-fold cross-validation of p with each of ls->lambda[0..nl-1] (res: nl
 * results, res[i] for lambda[i]): per fold one selection and one H for
 * all the lambdas (fsvc_train_lambdas, ls->warm as there). The same folds and
 * models as fsvc_cross_validate of p with that lambda (the readouts
 * within --cg-tol). A lambda whose readout fails with bad input
 * (FSVC_EINPUT, e.g. no convergence) gets res[i].status and msg, the
 * others go on; other failures are returned. */
typedef struct fsvc_lambda_set {
    const double *lambda;   /* nl lambdas, 1 <= nl <= FSVC_GRID_MAX_VALUES */
    int nl;
    int warm;               /* each CG started from the previous solution */
} fsvc_lambda_set;
int fsvc_cross_validate_lambdas(fsvc_cv_result *res, const fsvc_dataset *d,
                                const fsvc_param *p, const fsvc_lambda_set *ls, int nfold,
                                uint64_t seed, fsvc_error *err);

/* ---- the ridge readout over several lambdas (study_path.c) ---- */

/* 1 when fsvc_train_lambdas takes p on d: dense data, the ridge readout of
 * a classification by pcg or auto, no class weights, no augmentation. */
int fsvc_lambda_path_applies(const fsvc_dataset *d, const fsvc_param *p);

typedef struct fsvc_lambda_path {
    int nl;
    double lambda[64];      /* the lambdas as given */
    fsvc_model model;       /* the shared model: centroids, classes, radius */
    double **R;             /* nl readouts (m x Kout) */
    fsvc_train_info *info;  /* nl: fsvc_train's info for that lambda, with
                               t_select the shared selection and t_readout
                               this lambda's solve (the first solved builds
                               H, K_mm and H^T T for all) */
    int *status;            /* nl: FSVC_OK or FSVC_EINPUT (msg[i] says why) */
    char (*msg)[1024];      /* as fsvc_error.msg */
    double *warm_from;      /* nl: the lambda whose solution started this
                               CG, 0 for a start from zero */
} fsvc_lambda_path;

/* Trains p on d once for each lambda[i] (nl in 1..64; the lambda of p is
 * ignored): one selection (fsvc_train's for these settings: the same
 * centroids), one H source (H cached when it fits the memory, as
 * fsvc_train's pcg decides; H^T T and the centroids' K_mm computed once),
 * the lambdas solved from the largest to the smallest, each CG started
 * from the previous solution when warm (else from 0, as fsvc_train).
 * Each readout solves fsvc_train's system to p->cg_tol; solver auto
 * resolving to direct shares the selection only. A lambda whose readout
 * fails with bad input (no convergence, NaN) gets status[i]/msg[i] and
 * the next starts from 0; a failing selection or resource is returned
 * (path left empty). Needs fsvc_lambda_path_applies (else FSVC_EUSAGE). */
int fsvc_train_lambdas(fsvc_lambda_path *path, const fsvc_dataset *d, const fsvc_param *p,
                       const double *lambda, int nl, int warm, fsvc_error *err);
/* The model of lambda i: path->model with readout ridge and R = R[i]; a
 * view sharing path's arrays (for predict; never free it). */
fsvc_model fsvc_lambda_model(const fsvc_lambda_path *path, int i);
void fsvc_lambda_path_free(fsvc_lambda_path *path);

/* ---- study grids (study_grid.c) ---- */

#define FSVC_GRID_MAX_AXES 8
#define FSVC_GRID_MAX_VALUES 64

typedef struct fsvc_grid_axis {
    char name[32];                          /* a setting name, see below */
    int nval;
    char val[FSVC_GRID_MAX_VALUES][48];     /* the values as text */
} fsvc_grid_axis;

typedef struct fsvc_grid {
    int naxes;
    fsvc_grid_axis axis[FSVC_GRID_MAX_AXES];
} fsvc_grid;

/* Settings are set by name through the settings model of fsvc.h
 * (fsvc_param_set and friends, fsvc/params.c). */

/* Adds an axis from "NAME=V1,V2,..." (checks the name and every value; an
 * axis named twice is an error). */
int fsvc_grid_add(fsvc_grid *g, const char *spec, fsvc_error *err);
/* Number of points (product of the axis sizes; 1 for no axes). */
int64_t fsvc_grid_size(const fsvc_grid *g);
/* Point k (0-based, the last axis varies fastest): applies its values to p
 * and writes its key "name=value;name=value" (axis order) into key. */
int fsvc_grid_point(fsvc_param *p, char *key, size_t keylen,
                    const fsvc_grid *g, int64_t k, fsvc_error *err);

/* ---- LMS with a validation split (study_lms.c) ---- */

typedef struct fsvc_lms_curve {
    int epochs;           /* epochs run */
    double *train_err;    /* epochs + 1 values: error rate after epoch e
                             (e = 0: the one-hot start) on the train part */
    double *val_err;      /* the same on the validation part */
    int best_epoch;       /* lowest val_err (first wins) */
    int64_t n_train, n_val;
} fsvc_lms_curve;
void fsvc_lms_curve_free(fsvc_lms_curve *c);

typedef struct fsvc_lms_val_opt {
    double val;       /* the fraction of each class held out, in (0, 1) */
    int keep_best;    /* keep the best epoch's readout, else the last */
    uint64_t seed;    /* the split */
} fsvc_lms_val_opt;

/* Trains the LMS readout of p (p->eta, p->epochs) on a stratified seeded
 * split of d: o->val of each class held out for validation, the
 * centroids chosen on the rest. After every epoch the error rates on
 * both parts are recorded; the model keeps the readout of the best epoch
 * (o->keep_best) or of the last. info: as fsvc_train (readout time
 * includes the per-epoch evaluations). */
int fsvc_train_lms_val(fsvc_model *model, fsvc_train_info *info,
                       fsvc_lms_curve *curve, const fsvc_dataset *d,
                       const fsvc_param *p, const fsvc_lms_val_opt *o, fsvc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_STUDY_H */
