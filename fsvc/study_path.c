/* study_path.c - the ridge readout of one training for several lambdas:
 * one selection of centroids (fsvc_train with the same settings and the
 * one-hot readout, so the same centroids as fsvc_train picks for any of
 * the lambdas), one H source (H cached when it fits, as fsvc/solver.c
 * decides) whose H^T T and K_mm are computed once, and the lambdas solved
 * from the largest to the smallest, each CG started from the previous
 * lambda's solution (a warm start: a smaller lambda's solution is near,
 * and CG from there needs fewer iterations). Every lambda's system is the
 * one fsvc_train solves, to the same --cg-tol, with the cached H in the
 * format fsvc_train keeps for that lambda (--pcg-h auto: f16 from 1e-6 up,
 * f32 below: a path across that line opens a second source). */
#include "study.h"
#include "solver.h"
#include "comm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fsvc_lambda_path_applies(const fsvc_dataset *d, const fsvc_param *p)
{
    return !d->csr && p->readout == FSVC_READOUT_RIDGE && !p->regression &&
           (!p->class_weight[0] || !strcmp(p->class_weight, "none")) &&
           p->augment == FSVC_AUG_NONE && p->solver != FSVC_SOLVER_DIRECT;
}

/* ---- an H source whose H^T T and K_mm are computed once ---- */

typedef struct memo_src {
    fsvc_hsrc *inner, *outer; /* outer: the memo's own source (its h_err2) */
    double *B, sumsq;       /* H^T T (m x K), trace of H^T H; B NULL: not yet */
    void *Kmm;              /* m x m, f32 or double; NULL: not yet */
    int f32;
} memo_src;

static int memo_rhs(void *self, double *B, double *sumsq, fsvc_error *err)
{
    memo_src *s = self;
    size_t mk = (size_t)s->inner->m * s->inner->K;
    if (!s->B) {
        double *b = malloc(mk * sizeof *b);
        if (!b) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
        int rc = s->inner->ops->rhs(s->inner->self, b, &s->sumsq, err);
        if (rc) { free(b); return rc; }
        s->B = b;
    }
    memcpy(B, s->B, mk * sizeof *B);
    *sumsq = s->sumsq;
    s->outer->h_err2 = s->inner->h_err2; /* the rounding's floor, for pcg.c */
    return FSVC_OK;
}

static int memo_gram(void *self, double *Y, const double *V, fsvc_error *err)
{
    memo_src *s = self;
    return s->inner->ops->gram_apply(s->inner->self, Y, V, err);
}

static int memo_kmm(void *self, void *Kmm, int f32, fsvc_error *err)
{
    memo_src *s = self;
    size_t mm = (size_t)s->inner->m * s->inner->m, es = f32 ? sizeof(float) : sizeof(double);
    if (!s->Kmm || s->f32 != f32) {
        free(s->Kmm);
        s->Kmm = NULL;
        int rc = s->inner->ops->kmm(s->inner->self, Kmm, f32, err);
        if (rc) return rc;
        s->Kmm = malloc(mm * es); /* no room to keep it: recomputed next time */
        if (s->Kmm) memcpy(s->Kmm, Kmm, mm * es);
        s->f32 = f32;
        return FSVC_OK;
    }
    memcpy(Kmm, s->Kmm, mm * es);
    return FSVC_OK;
}

static void memo_close(void *self)
{
    memo_src *s = self;
    free(s->B);
    free(s->Kmm);
    s->B = NULL;
    s->Kmm = NULL;
}

static const fsvc_hops memo_ops = {memo_rhs, memo_gram, memo_kmm, memo_close, NULL};

/* ---- the path ---- */

#define PATH_RAM_USE 0.9     /* as SOLVER_RAM_USE (solver.c) */
#define PATH_MAX_ITER 500    /* as PCG_MAX_ITER (solver.c) */

void fsvc_lambda_path_free(fsvc_lambda_path *path)
{
    if (path->R)
        for (int i = 0; i < path->nl; i++) free(path->R[i]);
    free(path->R);
    free(path->info);
    free(path->status);
    free(path->msg);
    free(path->warm_from);
    fsvc_free_model(&path->model);
    memset(path, 0, sizeof *path);
}

fsvc_model fsvc_lambda_model(const fsvc_lambda_path *path, int i)
{
    fsvc_model v = path->model;
    v.readout = FSVC_READOUT_RIDGE;
    v.R = path->R[i];
    return v;
}

/* The outcome of lambda i's readout: rc FSVC_EINPUT is noted (the words
 * as fsvc_train gives them) and the path goes on; other failures end it. */
static int note(fsvc_lambda_path *path, int i, int rc, const fsvc_dataset *d, fsvc_error *e)
{
    if (!rc) {
        fsvc_model v = fsvc_lambda_model(path, i);
        for (size_t q = 0; q < (size_t)v.m * v.Kout && !rc; q++)
            if (!isfinite(v.R[q]))
                rc = fsvc_fail(e, FSVC_EINPUT, "%s: the ridge readout has NaN or infinite "
                               "weights (radius %g, lambda %g): raise lambda (-l) or change "
                               "the radius (-r)", d->source, v.radius, path->lambda[i]);
        if (!rc) rc = fsvc_model_check(&v, d->source, e);
        if (!rc) return FSVC_OK;
    } else if (rc == FSVC_EINPUT) {
        char m[sizeof e->msg];
        snprintf(m, sizeof m, "%s", e->msg);
        fsvc_fail(e, rc, "%s: %s", d->source, m);
    }
    if (rc != FSVC_EINPUT) return rc;
    path->status[i] = rc;
    snprintf(path->msg[i], sizeof path->msg[i], "%s", e->msg);
    fsvc_error_clear(e);
    return FSVC_OK;
}

/* The lambdas in the order solved: the largest first. */
static void order_desc(int *ord, const double *lambda, int nl)
{
    for (int i = 0; i < nl; i++) ord[i] = i;
    for (int i = 1; i < nl; i++)
        for (int j = i; j > 0 && lambda[ord[j - 1]] < lambda[ord[j]]; j--) {
            int t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t;
        }
}

static int solve_all(fsvc_lambda_path *path, const fsvc_dataset *d, const fsvc_param *p,
                     const void *X, const bnl_ctx *ctx, int warm, fsvc_error *err)
{
    fsvc_model *M = &path->model;
    int64_t m = M->m, N = d->N;
    int K = M->Kout, nl = path->nl;
    bnl_op op = {(bnl_dist)M->dist, (bnl_act)M->act, M->dtype, M->radius,
                 (bnl_precision)M->precision};
    fsvc_ridge_problem pb = {ctx, &op, M->C, m, X, d->cls, NULL, NULL, N, N,
                             (int)fsvc_model_width(M), K,
                             fsvc_comm_one(), NULL, NULL};
    fsvc_ridge_opt ro = {0, p->solver, p->cg_tol, FSVC_AUG_NONE, M->rows, M->cols, 0,
                         p->progress, 0};
    int rule;
    fsvc_solver s = fsvc_solver_resolve(&pb, &ro, &rule); /* as fsvc_readout_solve */
    int *ord = malloc((size_t)nl * sizeof *ord);
    if (!ord) return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    order_desc(ord, path->lambda, nl);
    int rc = FSVC_OK;
    if (s == FSVC_SOLVER_DIRECT) { /* the selection is shared; each solve is train's */
        for (int t = 0; t < nl && !rc; t++) {
            int i = ord[t];
            fsvc_train_info *in = &path->info[i];
            double t0 = fsvc_clock();
            ro.lambda = path->lambda[i];
            ro.solver = s;
            int r = fsvc_readout_solve(path->R[i], &pb, &ro, in, err);
            in->t_readout = fsvc_clock() - t0;
            rc = note(path, i, r, d, err);
        }
        free(ord);
        return rc;
    }
    size_t hs = op.dtype == FSVC_F64 ? sizeof(double) : sizeof(float);
    double ram = fsvc_phys_ram(), budget = ram * PATH_RAM_USE;
    double need = fsvc_solver_bytes(s, m, N, K, hs) + (double)m * m * hs; /* + K_mm kept */
    if (ram > 0 && need > budget) {
        free(ord);
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge (pcg): %lld centroids need %.1f GB, "
                         "this machine has %.1f GB; the largest that fits is %lld "
                         "(--max-neurons)", (long long)m, need / 1e9, ram / 1e9,
                         (long long)fsvc_solver_max_m(s, N, K, hs, budget));
    }
    int h16 = fsvc_pcg_h_arg(p->pcg_h), f64 = op.dtype == FSVC_F64;
    int bounded = fsvc_h_bounded(&op, NULL, K, NULL, N);
    if ((rc = fsvc_pcg_h_check(h16, f64, bounded, err))) {
        free(ord);
        return rc;
    }
    int blas_saved = bnl_blas_threads_push(ctx, 0);
    fsvc_hsrc src, memo;
    memo_src ms = {&src, &memo, NULL, 0, NULL, 0};
    double *W = malloc((size_t)m * K * sizeof *W);
    fsvc_hsrc_opt ho = {FSVC_AUG_NONE, M->rows, M->cols, 0,
                        p->progress == FSVC_PROGRESS_ALL, p->progress != 0, -1};
    memset(&src, 0, sizeof src);
    rc = W ? FSVC_OK : fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    int have = 0; /* W holds the last lambda's solution */
    for (int t = 0; t < nl && !rc; t++) {
        int i = ord[t];
        int cache, fmt = fsvc_pcg_h_pick(h16, f64, bounded, path->lambda[i], (double)N * m,
                                         ram > 0 ? (budget - need) / 2 : 0, 0, &cache);
        if (fmt != ho.h16) { /* the first lambda, or the line of auto's f16 crossed */
            if (ms.B || ms.Kmm) memo_close(&ms);
            fsvc_hsrc_close(&src);
            ho.cache = cache;
            ho.h16 = fmt;
            if ((rc = fsvc_hsrc_open(&src, &pb, &ho, err))) break;
            memo = src;
            memo.ops = &memo_ops;
            memo.self = &ms;
            memo.times = &src;
        }
        fsvc_train_info *in = &path->info[i];
        fsvc_pcg_opt opt = {path->lambda[i], p->cg_tol, PATH_MAX_ITER, warm && have,
                            p->progress == FSVC_PROGRESS_ALL};
        path->warm_from[i] = opt.warm ? path->lambda[ord[t - 1]] : 0;
        double t0 = fsvc_clock();
        in->solver = FSVC_SOLVER_PCG;
        int r = fsvc_pcg_readout(path->R[i], W, &memo, &op, &opt, p->progress, in, err);
        in->t_readout = fsvc_clock() - t0;
        have = !r;
        rc = note(path, i, r, d, err);
    }
    if (ms.B || ms.Kmm) memo_close(&ms);
    fsvc_hsrc_close(&src);
    free(W);
    free(ord);
    bnl_blas_threads_pop(blas_saved);
    return rc;
}

int fsvc_train_lambdas(fsvc_lambda_path *path, const fsvc_dataset *d, const fsvc_param *p,
                       const double *lambda, int nl, int warm, fsvc_error *err)
{
    memset(path, 0, sizeof *path);
    if (nl < 1 || nl > FSVC_GRID_MAX_VALUES)
        return fsvc_fail(err, FSVC_EUSAGE, "train: 1 to %d lambdas, not %d",
                         FSVC_GRID_MAX_VALUES, nl);
    if (!fsvc_lambda_path_applies(d, p))
        return fsvc_fail(err, FSVC_EUSAGE, "train: a lambda path needs dense data and the "
                         "ridge readout of a classification by pcg (or auto), with no class "
                         "weights and no augmentation");
    for (int i = 0; i < nl; i++)
        if (!(lambda[i] > 0) || !isfinite(lambda[i]))
            return fsvc_fail(err, FSVC_EUSAGE, "train: ridge needs a finite lambda > 0");
    /* the selection: fsvc_train's, select auto resolved for the ridge readout */
    fsvc_param q = *p;
    if (q.select == FSVC_SELECT_AUTO)
        q.select = q.radius > 0 || q.radius_rms > 0 ? FSVC_SELECT_RANDOM : FSVC_SELECT_GLOBAL;
    q.readout = FSVC_READOUT_ONEHOT;
    q.class_weight[0] = 0; /* "none": the readout's, which onehot refuses */
    fsvc_train_info info0;
    int rc = fsvc_train(&path->model, &info0, d, &q, err);
    if (rc) return rc;
    path->nl = nl;
    memcpy(path->lambda, lambda, (size_t)nl * sizeof *lambda);
    path->R = calloc((size_t)nl, sizeof *path->R);
    path->info = calloc((size_t)nl, sizeof *path->info);
    path->status = calloc((size_t)nl, sizeof *path->status);
    path->msg = calloc((size_t)nl, sizeof *path->msg);
    path->warm_from = calloc((size_t)nl, sizeof *path->warm_from);
    int ok = path->R && path->info && path->status && path->msg && path->warm_from;
    for (int i = 0; ok && i < nl; i++) {
        ok = (path->R[i] = calloc((size_t)path->model.m * path->model.Kout, sizeof(double))) != NULL;
        path->info[i] = info0;
        path->info[i].t_readout = 0;
        path->info[i].syn_readout = (double)path->model.m * d->N *
                                    (double)fsvc_model_width(&path->model);
    }
    void *X = NULL;
    bnl_ctx ctx;
    int ctx_open = 0;
    if (!ok) rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    if (!rc) rc = fsvc_model_input_train(&X, &path->model, d, p->threads, err);
    if (!rc) {
        rc = fsvc_ctx_open(&ctx, p, err);
        ctx_open = !rc;
    }
    path->model.readout = FSVC_READOUT_RIDGE;
    if (!rc) rc = solve_all(path, d, p, X, &ctx, warm, err);
    free(X);
    if (ctx_open) bnl_ctx_close(&ctx);
    if (rc) fsvc_lambda_path_free(path);
    return rc;
}
