/* study_point.c - one point of a study (or one lambda path): trained,
 * tested and cross-validated, its CSV row and summary line made. */
#include "tools/study_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double maxrss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

/* A numeric field: "%.6g", empty when not finite. */
static void csv_num(fsvc_csv_out *o, double v)
{
    if (isfinite(v)) fsvc_csv_fieldf(o, "%.6g", v);
    else fsvc_csv_field(o, "");
}

int point_settings(char *s, size_t cap, const study_opts *o, const study_ctx *c,
                          const fsvc_param *p)
{
    char v[64];
    s[0] = 0;
    int bad = fsvc_settings_add(s, cap, "data", c->data) ||
              fsvc_settings_add(s, cap, "test", c->test);
#define NUM(key, ...) (snprintf(v, sizeof v, __VA_ARGS__), bad = bad || fsvc_settings_add(s, cap, key, v))
    NUM("max-train", "%lld", (long long)o->max_train);
    NUM("max-test", "%lld", (long long)o->max_test);
    NUM("N_train", "%lld", (long long)c->N_train);
    NUM("N_test", "%lld", (long long)c->N_test);
    NUM("n", "%d", c->n);
    NUM("folds", "%d", o->folds);
    NUM("cv-seed", "%llu", (unsigned long long)o->seed);
    NUM("val", "%.17g", o->val);
    NUM("keep", "%s", o->keep_best ? "best" : "last");
    if (c->sparse) /* dense studies keep the settings strings of older CSVs */
        bad = bad || fsvc_settings_add(s, cap, "storage", "sparse");
#undef NUM
    return bad || fsvc_param_canon(s, cap, p) ? FSVC_EUSAGE : FSVC_OK;
}

int fail_row(fsvc_csv_out *r_out, const fsvc_param *p, const char *key,
                    const char *settings, const fsvc_dataset *tr, const fsvc_dataset *te,
                    const char *msg, fsvc_error *err)
{
    static const char *const set_cols[] = {"prag", "dist", "kernel", "select", "readout",
                                           "lambda", "eta", "epochs", "scale", "preprocess",
                                           "features", "dtype", "backend", "threads"};
    fsvc_csv_out r = {0};
    char v[96];
    fsvc_csv_field(&r, key);
    fsvc_csv_field(&r, tr->source);
    fsvc_csv_field(&r, te ? te->source : "");
    fsvc_csv_fieldf(&r, "%lld", (long long)tr->N);
    fsvc_csv_fieldf(&r, "%lld", te ? (long long)te->N : 0LL);
    fsvc_csv_fieldf(&r, "%d", tr->n);
    fsvc_csv_field(&r, p->radius > 0 ? "given" : p->radius_rms > 0 ? "rms" : "auto");
    if (p->radius > 0) fsvc_csv_fieldf(&r, "%.6g", p->radius);
    else fsvc_csv_field(&r, "");
    const int nset = (int)(sizeof set_cols / sizeof *set_cols);
    for (int i = 0; i < nset; i++)
        fsvc_csv_field(&r, fsvc_param_get(p, set_cols[i], v, sizeof v) ? "" : v);
    for (int c = 8 + nset; c < STUDY_NCOLUMNS - 2; c++) /* 8: point .. radius; the measurements */
        fsvc_csv_field(&r, "");
    fsvc_csv_fieldf(&r, "failed: %s", msg);
    fsvc_csv_field(&r, settings);
    fsvc_csv_endrow(&r);
    if (r.oom) {
        fsvc_csv_out_free(&r);
        return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    }
    *r_out = r;
    return FSVC_OK;
}

/* What a point measured, for its row and summary. */
typedef struct point_meas {
    const fsvc_model *m;
    const fsvc_train_info *info;
    double t_train, t_pred, acc;  /* acc: NAN without TEST */
    const fsvc_cv_result *cv;     /* with -v */
    const fsvc_lms_curve *curve;  /* with --val for LMS, else NULL */
    double warm_from;             /* lambda path: the CG's start, 0: from zero */
    double rmse;                  /* a regression: on TEST (acc is its R^2) */
} point_meas;

/* The CSV row (r) and the summary line of a point that ran. */
static void point_row(fsvc_csv_out *r, char *summary, size_t slen, const study_opts *o,
                      const fsvc_param *p, const char *key, const char *settings,
                      const fsvc_dataset *tr, const fsvc_dataset *te, const point_meas *pm)
{
    const fsvc_model *m = pm->m;
    const fsvc_train_info *info = pm->info;
    const fsvc_cv_result *cv = pm->cv;
    int use_val = pm->curve != NULL, pcg = p->readout == FSVC_READOUT_RIDGE &&
                                           info->solver == FSVC_SOLVER_PCG;
    double syn_pred = te ? (double)m->m * te->N * te->n : 0;
    fsvc_csv_field(r, key);
    fsvc_csv_field(r, tr->source);
    fsvc_csv_field(r, te ? te->source : "");
    fsvc_csv_fieldf(r, "%lld", (long long)tr->N);
    fsvc_csv_fieldf(r, "%lld", te ? (long long)te->N : 0LL);
    fsvc_csv_fieldf(r, "%d", tr->n);
    fsvc_csv_field(r, p->radius > 0 ? "given" : p->radius_rms > 0 ? "rms" : "auto");
    fsvc_csv_fieldf(r, "%.6g", m->radius);
    fsvc_csv_fieldf(r, "%g", p->prag);
    fsvc_csv_field(r, m->dist ? "l2" : "l1");
    fsvc_csv_field(r, m->act ? "gauss" : "tri");
    fsvc_csv_field(r, fsvc_select_name(m->select));
    fsvc_csv_field(r, fsvc_readout_name(p->readout));
    fsvc_csv_fieldf(r, "%g", p->lambda);
    fsvc_csv_fieldf(r, "%g", p->eta);
    fsvc_csv_fieldf(r, "%d", p->epochs);
    fsvc_csv_field(r, fsvc_scale_name(p->scale));
    fsvc_csv_field(r, fsvc_preprocess_name(m->preprocess));
    fsvc_csv_field(r, fsvc_name_of(fsvc_features_names, (int)m->features));
    fsvc_csv_field(r, fsvc_dtype_name(m->dtype));
    fsvc_csv_field(r, p->backend ? p->backend : "cpu");
    fsvc_csv_fieldf(r, "%d", p->threads);
    fsvc_csv_fieldf(r, "%lld", (long long)m->m);
    csv_num(r, info->t_select);
    csv_num(r, info->t_readout);
    csv_num(r, pm->t_train);
    csv_num(r, pm->t_pred);
    csv_num(r, info->syn_select > 0 ? 1e9 * info->t_select / info->syn_select : NAN);
    csv_num(r, info->syn_readout > 0 ? 1e9 * info->t_readout / info->syn_readout : NAN);
    csv_num(r, syn_pred > 0 ? 1e9 * pm->t_pred / syn_pred : NAN);
    double pct = o->regression ? 1 : 100; /* R^2 as it is, accuracy in % */
    csv_num(r, pct * pm->acc);
    fsvc_csv_fieldf(r, "%d", o->folds);
    csv_num(r, o->folds ? pct * cv->acc_mean : NAN);
    csv_num(r, o->folds ? pct * cv->acc_sd : NAN);
    csv_num(r, o->folds ? cv->m_mean : NAN);
    csv_num(r, use_val ? o->val : NAN);
    if (use_val) fsvc_csv_fieldf(r, "%d", pm->curve->best_epoch);
    else fsvc_csv_field(r, "");
    if (pcg) fsvc_csv_fieldf(r, "%d", info->cg_iter);
    else fsvc_csv_field(r, "");
    if (pcg && o->folds) fsvc_csv_fieldf(r, "%lld", (long long)cv->cg_iter);
    else fsvc_csv_field(r, "");
    if (pm->warm_from > 0) fsvc_csv_fieldf(r, "%g", pm->warm_from);
    else fsvc_csv_field(r, "");
    csv_num(r, maxrss_mb());
    fsvc_csv_field(r, "ok");
    fsvc_csv_field(r, settings);
    fsvc_csv_endrow(r);
    int n = snprintf(summary, slen, "%lld centroids, r = %.4g, train %.2f s", (long long)m->m,
                     m->radius, pm->t_train);
    if (te && n < (int)slen && o->regression)
        n += snprintf(summary + n, slen - n, ", test R^2 %.4f, RMSE %.4g", pm->acc, pm->rmse);
    else if (te && n < (int)slen)
        n += snprintf(summary + n, slen - n, ", test %.2f%%", 100 * pm->acc);
    if (o->folds && n < (int)slen && o->regression)
        n += snprintf(summary + n, slen - n, ", cv R^2 %.4f +- %.4f, RMSE %.4g",
                      cv->acc_mean, cv->acc_sd, cv->rmse);
    else if (o->folds && n < (int)slen)
        n += snprintf(summary + n, slen - n, ", cv %.2f +- %.2f%%", 100 * cv->acc_mean,
                      100 * cv->acc_sd);
    if (use_val && n < (int)slen)
        n += snprintf(summary + n, slen - n, ", best epoch %d", pm->curve->best_epoch);
    if (pcg && n < (int)slen)
        n += snprintf(summary + n, slen - n, ", %d cg iterations%s", info->cg_iter,
                      pm->warm_from > 0 ? " (warm)" : "");
}

/* A regression's cross-validation (fsvc_cross_validate_regression) in the
 * fields a point's row reads: acc_* are R^2 (per fold mean and sd, and of
 * the pooled held-out predictions), rmse the pooled one. */
static int cv_regression(fsvc_cv_result *cv, const fsvc_dataset *tr, const fsvc_param *p,
                         const study_opts *o, fsvc_error *err)
{
    fsvc_cv_regression r;
    int rc = fsvc_cross_validate_regression(&r, tr, p, o->folds, o->seed, err);
    if (rc) return rc;
    cv->nfold = r.nfold;
    cv->acc_mean = r.r2_mean;
    cv->acc_sd = r.r2_sd;
    cv->acc_pooled = r.r2;
    cv->rmse = sqrt(r.mse);
    cv->m_mean = r.m_mean;
    cv->t_train = r.t_train;
    cv->cg_iter = r.cg_iter;
    return FSVC_OK;
}

/* The test accuracy (*acc; a regression model: R^2, and *rmse) and the
 * prediction time of model m on te. */
static int test_model(double *acc, double *rmse, double *t_pred, const fsvc_model *m,
                      const fsvc_dataset *te, const fsvc_param *p, fsvc_error *err)
{
    size_t N = (size_t)(te->N ? te->N : 1);
    int *pred = malloc(N * sizeof *pred), *truth = malloc(N * sizeof *truth);
    double *score = m->regression ? malloc(N * sizeof *score) : NULL; /* Kout = 1 */
    int rc = !pred || !truth || (m->regression && !score)
           ? fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory") : FSVC_OK;
    if (!rc) {
        double t0 = cli_now();
        rc = fsvc_predict(pred, score, m, te, p->backend, p->threads, err);
        *t_pred = cli_now() - t0;
    }
    if (!rc && m->regression) {
        double mse;
        fsvc_regression_stats(&mse, acc, te->y, score, te->N);
        *rmse = sqrt(mse);
    } else if (!rc) {
        fsvc_model_truth(truth, m, te);
        *acc = (double)fsvc_confusion(NULL, truth, pred, te->N, m->K) / te->N;
    }
    free(pred); free(truth); free(score);
    return rc;
}

int run_point(int lms_file, const study_opts *o, const fsvc_param *p,
                     const char *key, const char *settings, const fsvc_dataset *tr,
                     const fsvc_dataset *te, char *summary, size_t slen, fsvc_csv_out *r_out,
                     fsvc_csv_out *l_out, fsvc_error *err)
{
    fsvc_model m;
    fsvc_train_info info;
    fsvc_lms_curve curve;
    memset(&curve, 0, sizeof curve);
    int use_val = o->val > 0 && p->readout == FSVC_READOUT_LMS;
    char *cvkey = NULL;
    if (asprintf(&cvkey, "%s (cv folds)", key) < 0)
        return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    int search = !(p->radius > 0) && !(p->radius_rms > 0);  /* this point searches its radius */
    study_steps_point(key, search);
    double t0 = cli_now();
    fsvc_lms_val_opt vo = {o->val, o->keep_best, o->seed};
    int rc = use_val ? fsvc_train_lms_val(&m, &info, &curve, tr, p, &vo, err)
                     : fsvc_train(&m, &info, tr, p, err);
    if (rc) { study_steps_point(key, 0); free(cvkey); return rc; }
    double t_train = cli_now() - t0, t_pred = NAN, acc = NAN, rmse = NAN;
    if (te) rc = test_model(&acc, &rmse, &t_pred, &m, te, p, err);
    fsvc_cv_result cv;
    memset(&cv, 0, sizeof cv);
    study_steps_point(cvkey, search);
    if (!rc && o->folds) {
        fsvc_param pq = *p;
        pq.progress = FSVC_PROGRESS_STEPS;
        rc = o->regression ? cv_regression(&cv, tr, &pq, o, err)
                           : fsvc_cross_validate(&cv, tr, &pq, o->folds, o->seed, err);
    }
    study_steps_point(key, 0);
    if (!rc) rc = study_steps_check(err);
    free(cvkey);
    if (rc) { fsvc_free_model(&m); fsvc_lms_curve_free(&curve); return rc; }
    fsvc_csv_out r = {0}, l = {0};
    point_meas pm = {&m, &info, t_train, t_pred, acc, &cv, use_val ? &curve : NULL, 0, rmse};
    point_row(&r, summary, slen, o, p, key, settings, tr, te, &pm);
    if (use_val && lms_file)
        for (int e = 0; e <= curve.epochs; e++) {
            fsvc_csv_field(&l, key);
            fsvc_csv_fieldf(&l, "%d", e);
            fsvc_csv_fieldf(&l, "%.6g", curve.train_err[e]);
            fsvc_csv_fieldf(&l, "%.6g", curve.val_err[e]);
            fsvc_csv_endrow(&l);
        }
    if (r.oom || l.oom) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
        fsvc_csv_out_free(&r);
        fsvc_csv_out_free(&l);
    } else {
        *r_out = r;
        *l_out = l;
    }
    fsvc_lms_curve_free(&curve);
    fsvc_free_model(&m);
    return rc;
}

int point_param(fsvc_param *p, char *key, size_t keylen, const study_opts *o, int64_t k,
                       fsvc_error *err)
{
    *p = o->base;
    int rc = fsvc_grid_point(p, key, keylen, &o->grid, k, err);
    if (!key[0]) snprintf(key, keylen, "default");
    p->progress = FSVC_PROGRESS_STEPS; /* radius search steps, no progress lines */
    return rc;
}

/* The points of a lambda path (k[0..n-1], n >= 2: the same settings but
 * lambda), one record each: the training on DATA and every CV fold each
 * select once, share H and solve the lambdas largest first, warm-started
 * (fsvc_train_lambdas). */
int run_path(FILE *f, const study_opts *o, const int64_t *k, int n, char *const *pset,
                    const fsvc_dataset *tr, const fsvc_dataset *te)
{
    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_param p[FSVC_GRID_MAX_VALUES];
    char key[FSVC_GRID_MAX_VALUES][1024], cvkey[1100];
    double lam[FSVC_GRID_MAX_VALUES];
    int rc = FSVC_OK;
    for (int i = 0; i < n && !rc; i++) {
        rc = point_param(&p[i], key[i], sizeof key[i], o, k[i], &err);
        lam[i] = p[i].lambda;
    }
    int search = !(p[0].radius > 0) && !(p[0].radius_rms > 0);
    fsvc_lambda_path path;
    memset(&path, 0, sizeof path);
    fsvc_cv_result *cv = calloc(FSVC_GRID_MAX_VALUES, sizeof *cv);
    if (!cv) rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
    double t0 = cli_now();
    study_steps_point(key[0], search);
    if (!rc) rc = fsvc_train_lambdas(&path, tr, &p[0], lam, n, !o->no_warm, &err);
    double t_all = cli_now() - t0;
    snprintf(cvkey, sizeof cvkey, "%s (cv folds)", key[0]);
    study_steps_point(cvkey, search);
    fsvc_lambda_set ls = {lam, n, !o->no_warm};
    if (!rc && o->folds)
        rc = fsvc_cross_validate_lambdas(cv, tr, &p[0], &ls, o->folds, o->seed, &err);
    study_steps_point(key[0], 0);
    if (!rc) rc = study_steps_check(&err);
    char pmsg[sizeof err.msg]; /* a failure of the whole path: every point's */
    snprintf(pmsg, sizeof pmsg, "%s", err.msg);
    for (int i = 0; i < n; i++) {
        fsvc_csv_out r = {0}, l = {0};
        char summary[sizeof err.msg] = "";
        int ri = rc ? fsvc_fail(&err, rc, "%s", pmsg) : FSVC_OK;
        if (!ri && path.status[i]) ri = fsvc_fail(&err, path.status[i], "%s", path.msg[i]);
        else if (!ri && cv[i].status) ri = fsvc_fail(&err, cv[i].status, "%s", cv[i].msg);
        double acc = NAN, t_pred = NAN, rmse = NAN;
        fsvc_model m = ri ? path.model : fsvc_lambda_model(&path, i);
        if (!ri && te) ri = test_model(&acc, &rmse, &t_pred, &m, te, &p[i], &err);
        if (!ri) {
            /* the point's share of the path: the selection split evenly */
            fsvc_train_info *in = &path.info[i];
            double t_prep = t_all - in->t_select;
            for (int j = 0; j < n; j++) t_prep -= path.info[j].t_readout;
            point_meas pm = {&m, in, (in->t_select + (t_prep > 0 ? t_prep : 0)) / n +
                             in->t_readout, t_pred, acc, &cv[i], NULL, path.warm_from[i], rmse};
            point_row(&r, summary, sizeof summary, o, &p[i], key[i], pset[k[i]], tr, te, &pm);
            if (r.oom) ri = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
        }
        put_outcome(f, k[i], ri, summary, &r, &l, &p[i], key[i], pset[k[i]], tr, te, &err);
        if (ri && ri != FSVC_EINPUT) break; /* the study stops here */
    }
    fsvc_lambda_path_free(&path);
    free(cv);
    return FSVC_OK;
}
