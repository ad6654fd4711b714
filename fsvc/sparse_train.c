/* sparse_train.c - fsvc_train on sparse data (sparse.h; predict:
 * sparse_predict.c, the CSR helpers: csr_view.c):
 * the radius (given, X times the rms distance, or searched by
 * fsvc_radius_search over the selections below), the selection (random:
 * the first max-neurons of the seeded shuffle, as on dense data, so both
 * forms pick the same centroids; global or per-class: the novelty pass of
 * sparse_novelty.c), the centroids kept as CSR rows, then the onehot or
 * ridge readout. What the sparse form does not run (LMS, ...) is refused
 * before any work, naming --dense. */
#include "sparse.h"
#include "study.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most features of dense data: the engine's limit (layers/bnl.c). */
#define DENSE_MAX_N 65536

/* What the sparse form runs; the rest refused with the option to change. */
static int check_sparse(const fsvc_dataset *d, const fsvc_param *p, const fsvc_comm *comm,
                        fsvc_error *err)
{
    const char *what = NULL;
    if (comm->size > 1) what = "training across processes";
    else if (p->readout == FSVC_READOUT_LMS) what = "the LMS readout (-R lms)";
    else if (p->select == FSVC_SELECT_KMEANS) what = "k-means++ selection (-s kmeans++)";
    else if (p->scale_features) what = "--scale-features (it would make every zero nonzero)";
    else if (p->preprocess != FSVC_PRE_NONE && p->preprocess != FSVC_PRE_AUTO)
        what = "preprocessing";
    else if (p->scale != FSVC_SCALE_NONE) what = "--scale (for u8 pixels)";
    else if (p->augment != FSVC_AUG_NONE) what = "--augment";
    else if (p->features == FSVC_FEAT_HOG) what = "--features hog (it needs images)";
    else if (p->dtype >= 0 && p->dtype != FSVC_F32) what = "centroids other than f32";
    else if (p->rows > 0) what = "--shape";
    else if (p->class_weight[0]) what = "class weights (-w, --class-weight)";
    /* --dense is advice only where dense data can hold it */
    if (what && d->n > DENSE_MAX_N)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: sparse data does not support %s, and its %d "
                         "features are too many to read it dense (at most %d)", d->source,
                         what, d->n, DENSE_MAX_N);
    if (what)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: sparse data does not support %s; read the "
                         "data --dense", d->source, what);
    return FSVC_OK;
}

int fsvc_sparse_check(const fsvc_dataset *d, const fsvc_param *p, fsvc_error *err)
{
    return check_sparse(d, p, fsvc_comm_one(), err);
}

/* sqrt of the mean squared distance over the pairs of the rows sel[0..k-1]. */
static int rms_distance(double *out, const bnl_ctx *ctx, const fsvc_csr *X, const int64_t *sel,
                        int64_t k, int n, int dist, fsvc_error *err)
{
    fsvc_csr *S = NULL;
    bnl_csc T = {0};
    float *D = malloc((size_t)(k ? k : 1) * (k ? k : 1) * sizeof *D);
    bnl_op op = {(bnl_dist)dist, BNL_IDENT, FSVC_F32, 1.0, BNL_PREC_FULL};
    int rc = D ? fsvc_csr_rows(&S, X, sel, k, err)
               : fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    if (!rc) {
        bnl_csr v = fsvc_csr_view(S, 0, k);
        rc = bnl_csc_make(&T, &v, n, (bnl_dist)dist, err);
        if (!rc) rc = bnl_sparse_forward(ctx, &op, D, k, &T, &v, err);
    }
    double s = 0, cnt = 0;
    for (int64_t a = 0; !rc && a < k; a++)
        for (int64_t b = a + 1; b < k; b++, cnt++)
            s += (double)D[a * k + b] * D[a * k + b];
    *out = cnt > 0 && s > 0 ? sqrt(s / cnt) : 1.0;
    free(D);
    fsvc_csr_free(S);
    bnl_csc_free(&T);
    return rc;
}

/* A sparse selection: the samples d in the pass order, the engine, the
 * settings; sel receives the selection (capacity d->N). */
typedef struct sparse_pass {
    const bnl_ctx *ctx;
    bnl_op op;
    const fsvc_param *p;
    const fsvc_dataset *d;
    const int64_t *order;
    int64_t *sel;
} sparse_pass;

/* One selection with radius sp->op.radius: random (the first cap of the
 * shuffled order, 10000 when cap <= 0), global or per class (the novelty
 * pass), stopping past cap centroids; sp->sel, *m, *syn. */
static int select_sparse(const sparse_pass *sp, int64_t cap, int64_t *m_out, double *syn,
                         fsvc_error *err)
{
    const fsvc_param *p = sp->p;
    const fsvc_dataset *d = sp->d;
    const int64_t *order = sp->order;
    int64_t N = d->N, m = 0, *sel = sp->sel;
    int rc = FSVC_OK;
    fsvc_select_problem pb = {.ctx = sp->ctx, .op = &sp->op, .Xs = d->csr, .order = order,
                              .N = N, .n = d->n};
    fsvc_select_opt o = {.prag = p->prag, .max_m = cap};
    *syn = 0;
    if (p->select == FSVC_SELECT_RANDOM) {
        m = cap > 0 ? cap : 10000;
        if (m > N) m = N;
        memcpy(sel, order, (size_t)m * sizeof *sel);
    } else if (p->select == FSVC_SELECT_GLOBAL || p->regression) {
        rc = fsvc_sparse_novelty(sel, &m, syn, &pb, &o, err);
    } else { /* per class: the same pass inside each class, class after class */
        int64_t *sub = malloc((size_t)N * sizeof *sub);
        if (!sub) rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
        for (int k = 0; !rc && k < d->K && (cap <= 0 || m < cap); k++) {
            int64_t cnt = 0, mk = 0;
            double sk = 0;
            for (int64_t t = 0; t < N; t++)
                if (d->cls[order[t]] == k) sub[cnt++] = order[t];
            if (!cnt) continue;
            pb.order = sub;
            pb.N = cnt;
            o.max_m = cap > 0 ? cap - m : 0;
            rc = fsvc_sparse_novelty(sel + m, &mk, &sk, &pb, &o, err);
            m += mk;
            *syn += sk;
        }
        free(sub);
    }
    *m_out = m;
    return rc;
}

/* select_sparse with radius r as a pass of the radius search. */
static int sparse_pass_fn(void *self, double r, int64_t cap, int64_t *m, double *syn,
                          fsvc_error *err)
{
    sparse_pass sp = *(const sparse_pass *)self;
    sp.op.radius = r;
    return select_sparse(&sp, cap, m, syn, err);
}

/* The radius search's start: the largest distance from the first sample
 * to up to 1000 others (as on dense data). */
static int search_start(double *r0, const bnl_ctx *ctx, const fsvc_dataset *d, int dist,
                        fsvc_error *err)
{
    int64_t k = d->N - 1 < 1000 ? d->N - 1 : 1000;
    *r0 = 0;
    if (k < 1) return FSVC_OK;
    bnl_csr first = fsvc_csr_view(d->csr, 0, 1), rest = fsvc_csr_view(d->csr, 1, k);
    bnl_op op = {(bnl_dist)dist, BNL_IDENT, FSVC_F32, 1.0, BNL_PREC_FULL};
    bnl_csc T;
    float *D = malloc((size_t)k * sizeof *D);
    if (!D) return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    int rc = bnl_csc_make(&T, &first, d->n, op.dist, err);
    if (!rc) {
        rc = bnl_sparse_forward(ctx, &op, D, 1, &T, &rest, err);
        bnl_csc_free(&T);
    }
    for (int64_t i = 0; !rc && i < k; i++)
        if (D[i] > *r0) *r0 = D[i];
    free(D);
    return rc;
}

/* The sparse model's settings: f32 centroids, no transform of the input,
 * one output (regression) or d's classes. */
static int sparse_setup(fsvc_model *M, const fsvc_dataset *d, const fsvc_param *p,
                        fsvc_error *err)
{
    M->dtype = FSVC_F32;
    M->n = d->n;
    M->scale = FSVC_SCALE_NONE;
    M->preprocess = FSVC_PRE_NONE;
    M->dist = p->dist; M->act = p->act; M->prag = p->prag;
    M->select = p->select; M->readout = p->readout; M->regression = p->regression;
    M->K = p->regression ? 0 : d->K;
    M->Kout = p->regression ? 1 : d->K;
    if (!p->regression) {
        M->class_values = malloc((size_t)d->K * sizeof *M->class_values);
        if (!M->class_values) return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
        memcpy(M->class_values, d->class_values, (size_t)d->K * sizeof *M->class_values);
    }
    return FSVC_OK;
}

/* The radius: given, X times the rms distance over the first (up to) 800
 * samples of the order, or the author's search (*syn its work). */
static int sparse_radius(double *r, double *syn, sparse_pass *sp, fsvc_error *err)
{
    const fsvc_param *p = sp->p;
    const fsvc_dataset *d = sp->d;
    int64_t N = d->N;
    int rc;
    *r = p->radius;
    if (!(*r > 0) && !(p->radius_rms > 0)) { /* the author's radius search */
        double r0;
        fsvc_radius_pass rp = {.pass = sparse_pass_fn, .self = sp, .N = N, .source = d->source};
        if ((rc = search_start(&r0, sp->ctx, d, p->dist, err)) ||
            (rc = fsvc_radius_search(r, syn, r0, p, &rp, err)))
            return rc;
    } else if (!(*r > 0)) {
        double rms;
        if ((rc = rms_distance(&rms, sp->ctx, d->csr, sp->order, N < 800 ? N : 800, d->n,
                               p->dist, err)))
            return rc;
        *r = p->radius_rms * rms;
        if (p->progress)
            fsvc_printf("radius: %g x rms distance %.6g = %.6g\n", p->radius_rms, rms, *r);
    }
    return FSVC_OK;
}

/* The m selected rows sel as M's CSR centroids, their labels, and room
 * for the readout. */
static int sparse_centroids(fsvc_model *M, const fsvc_dataset *d, const int64_t *sel, int64_t m,
                            fsvc_error *err)
{
    M->m = m;
    M->lab = calloc((size_t)m, sizeof *M->lab);
    M->R = calloc((size_t)m * M->Kout, sizeof *M->R);
    if (!M->lab || !M->R)
        return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory for %lld centroids",
                         (long long)m);
    int rc = fsvc_csr_rows(&M->Cs, d->csr, sel, m, err);
    for (int64_t j = 0; !rc && j < m && !M->regression; j++) M->lab[j] = d->cls[sel[j]];
    return rc;
}


int fsvc_train_sparse(fsvc_model *M, fsvc_train_info *info, const fsvc_dataset *d,
                      const fsvc_param *p, const fsvc_comm *comm, fsvc_error *err)
{
    bnl_ctx ctx;
    int rc = check_sparse(d, p, comm, err);
    if (!rc) rc = sparse_setup(M, d, p, err);
    if (!rc) rc = fsvc_ctx_open(&ctx, p, err);
    if (rc) {
        fsvc_free_model(M);
        return rc;
    }
    int64_t N = d->N, m = 0;
    int64_t *order = malloc((size_t)N * sizeof *order), *sel = malloc((size_t)N * sizeof *sel);
    double *yc = NULL, syn = 0, syn2 = 0, r = p->radius, t0 = fsvc_clock(), t1 = t0;
    bnl_csc Ct = {0};
    bnl_op op = {(bnl_dist)p->dist, (bnl_act)p->act, FSVC_F32, r, BNL_PREC_FULL};
    sparse_pass sp = {&ctx, op, p, d, order, sel};
    if (!order || !sel) { rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory"); goto done; }
    for (int64_t i = 0; i < N; i++) order[i] = i;
    if (p->shuffle || p->select == FSVC_SELECT_RANDOM) /* the seeded shuffle, as dense */
        fsvc_shuffle(order, N, p->seed);
    t0 = fsvc_clock();
    if ((rc = sparse_radius(&r, &syn, &sp, err))) goto done;
    M->radius = r;
    if ((rc = fsvc_radius_check(p->act, FSVC_F32, r, d->source, err))) goto done;
    op.radius = r;
    sp.op = op;
    rc = select_sparse(&sp, p->max_neurons, &m, &syn2, err);
    syn += syn2;
    if (rc || (rc = sparse_centroids(M, d, sel, m, err))) goto done;
    t1 = fsvc_clock();
    if (p->readout == FSVC_READOUT_ONEHOT) {
        fsvc_readout_onehot(M->R, M->lab, m, M->K);
    } else {
        bnl_csr cv = fsvc_csr_view(M->Cs, 0, m);
        if ((rc = bnl_csc_make(&Ct, &cv, d->n, op.dist, err))) goto done;
        if (p->regression && (rc = fsvc_center_targets(&yc, &M->y_offset, d, NULL, err)))
            goto done;
        fsvc_sparse_problem sp = {&ctx, &op, &Ct, M->Cs, d->csr, d->cls, yc,
                                  fsvc_weights_real(d), M->Kout};
        fsvc_ridge_opt ro = {.lambda = p->lambda, .solver = p->solver, .tol = p->cg_tol,
                             .progress = p->progress, .h16 = fsvc_pcg_h_arg(p->pcg_h)};
        rc = fsvc_sparse_ridge(M->R, &sp, &ro, info, err);
        if (rc == FSVC_EINPUT && err) { /* the readout's words, naming the data */
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            fsvc_fail(err, rc, "%s: %s", d->source, msg);
        }
        if (rc) goto done;
    }
    if ((rc = fsvc_model_check(M, d->source, err))) goto done;
    if (info) {
        info->radius = r;
        info->m = m;
        info->t_select = t1 - t0;
        info->t_readout = fsvc_clock() - t1;
        info->syn_select = syn;
        /* sparse: each stored value of a sample meets each centroid once */
        info->syn_readout = p->readout == FSVC_READOUT_RIDGE ? (double)m * d->csr->nnz : 0;
    }
done:
    free(order); free(sel); free(yc);
    bnl_csc_free(&Ct);
    bnl_ctx_close(&ctx);
    if (rc) fsvc_free_model(M);
    return rc;
}
