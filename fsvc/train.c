/* train.c - fsvc_train: input preparation, the novelty pass (global or per
 * class, file order or seeded shuffle, optional radius search), then the
 * readout. */
#include "internal.h"
#include "deskew.h"
#include "solver.h"
#include "comm.h"
#include "sparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_param(const fsvc_dataset *d, const fsvc_param *p, fsvc_error *err)
{
    if (!d->has_labels || !d->y)
        return fsvc_fail(err, FSVC_EINPUT, "%s: training needs labels", d->source);
    if (d->N < 1 || d->n < 1)
        return fsvc_fail(err, FSVC_EINPUT, "%s: no samples to train on", d->source);
    if (p->dist != BNL_L1 && p->dist != BNL_L2)
        return fsvc_fail(err, FSVC_EUSAGE, "train: distance must be l1 or l2");
    if (p->act != BNL_TRI && p->act != BNL_GAUSS)
        return fsvc_fail(err, FSVC_EUSAGE, "train: kernel must be tri or gauss");
    if (!(p->prag > 0) || !isfinite(p->prag) || !isfinite(p->radius))
        return fsvc_fail(err, FSVC_EUSAGE, "train: prag must be > 0 and radius finite");
    if (p->readout == FSVC_READOUT_RIDGE && fsvc_lambda_check(p->lambda, err))
        return FSVC_EUSAGE;
    if (p->readout == FSVC_READOUT_RIDGE && p->solver != FSVC_SOLVER_DIRECT &&
        !(p->cg_tol > 0 && p->cg_tol < 1))
        return fsvc_fail(err, FSVC_EUSAGE, "train: the pcg tolerance must be in (0, 1)");
    if (p->augment != FSVC_AUG_NONE && p->readout != FSVC_READOUT_RIDGE)
        return fsvc_fail(err, FSVC_EUSAGE, "train: --augment needs the ridge readout");
    if (p->augment != FSVC_AUG_NONE && p->solver == FSVC_SOLVER_DIRECT)
        return fsvc_fail(err, FSVC_EUSAGE, "train: --augment needs --solver pcg (or auto)");
    if ((unsigned)p->augment > FSVC_AUG_MIRROR_SHIFT1)
        return fsvc_fail(err, FSVC_EUSAGE, "train: unknown augmentation");
    if (p->augment != FSVC_AUG_NONE &&
        (d->rows < 1 || d->cols < 1 || (int64_t)d->rows * d->cols != d->n))
        return fsvc_fail(err, FSVC_EINPUT, "%s: --augment %s needs images (rows x cols); "
                         "these samples of %d values have no image geometry", d->source,
                         fsvc_augment_name(p->augment), d->n);
    if ((unsigned)p->features > FSVC_FEAT_AUTO)
        return fsvc_fail(err, FSVC_EUSAGE, "train: unknown features %d", (int)p->features);
    if (p->features == FSVC_FEAT_HOG && (p->augment != FSVC_AUG_NONE || p->scale_features))
        return fsvc_fail(err, FSVC_EUSAGE, "train: --features hog does not combine with %s "
                         "(the HOG is of the images as given)",
                         p->scale_features ? "--scale-features range" : "--augment");
    if ((unsigned)p->solver > FSVC_SOLVER_AUTO)
        return fsvc_fail(err, FSVC_EUSAGE, "train: solver must be direct, pcg or auto");
    if (p->readout == FSVC_READOUT_LMS && (!(p->eta >= 0) || p->epochs < 0))
        return fsvc_fail(err, FSVC_EUSAGE, "train: lms needs eta >= 0 and epochs >= 0");
    if ((p->select == FSVC_SELECT_RANDOM || p->select == FSVC_SELECT_KMEANS) &&
        !(p->radius > 0) && !(p->radius_rms > 0))
        return fsvc_fail(err, FSVC_EUSAGE, "train: %s selection needs a radius (-r)",
                         fsvc_select_name(p->select));
    if ((unsigned)p->select > FSVC_SELECT_KMEANS || p->select == FSVC_SELECT_AUTO)
        return fsvc_fail(err, FSVC_EUSAGE, "train: unknown selection %d", (int)p->select);
    if (p->regression && p->readout != FSVC_READOUT_RIDGE)
        return fsvc_fail(err, FSVC_EUSAGE, "train: regression needs the ridge readout");
    if (p->class_weight[0] && (p->readout != FSVC_READOUT_RIDGE || p->regression))
        return fsvc_fail(err, FSVC_EUSAGE, "train: class weights need the ridge readout of a "
                         "classification; the %s readout cannot weight classes",
                         p->regression ? "regression" : fsvc_readout_name(p->readout));
    if (!p->regression && (!d->cls || d->K < 1))
        return fsvc_fail(err, FSVC_EINPUT, "%s: no class index", d->source);
    return FSVC_OK;
}

/* A dense run: where the samples are, what the selection needs, and what
 * the run owns (X, order, sel, gcls: freed at the end of train_dense). */
typedef struct dense_run {
    const fsvc_dataset *d;  /* this process's slice */
    const fsvc_param *p;
    fsvc_dataset dg;        /* d with the global count dg.N: what the selection sees */
    fsvc_slice at;          /* d's rows: the global [first, first + d->N) */
    const int *cls;         /* the class of every global sample (per class) */
    const bnl_ctx *ctx;
    bnl_op op;
    void *X;                /* the input as the model sees it (d's rows) */
    int64_t *order;         /* the global pass order (NULL: file order) */
    int64_t *sel;           /* the selection (capacity dg.N) */
    int *gcls;              /* per class across processes: every rank's classes, ORed */
} dense_run;

/* The novelty pass inside each class, class after class, in pb's order;
 * o->max_m: the cap on all the classes together. */
static int select_per_class(const dense_run *t, fsvc_select_problem pb, fsvc_select_opt o,
                            int64_t *m, double *syn, fsvc_error *err)
{
    const fsvc_dataset *d = &t->dg;
    int64_t cap = o.max_m, *sub = malloc((size_t)d->N * sizeof *sub), tot = 0;
    double s = 0;
    if (!sub)
        return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    int rc = FSVC_OK;
    for (int k = 0; k < d->K && (cap <= 0 || tot < cap); k++) {
        int64_t cnt = 0, mk = 0;
        double sk = 0;
        for (int64_t j = 0; j < d->N; j++) {
            int64_t i = t->order ? t->order[j] : j;
            if (t->cls[i] == k) sub[cnt++] = i;
        }
        if (!cnt) continue;
        pb.order = sub;
        pb.N = cnt;
        o.max_m = cap > 0 ? cap - tot : 0;
        rc = fsvc_novelty_batched(t->sel + tot, &mk, &sk, &pb, &o, err);
        if (rc) break;
        tot += mk;
        s += sk;
    }
    free(sub);
    *m = tot;
    if (syn) *syn = s;
    return rc;
}

/* One selection with radius r, stopping past cap centroids: fills t->sel
 * (capacity N), *m, *syn. */
static int select_pass(const dense_run *t, double r, int64_t cap, int progress, int64_t *m,
                       double *syn, fsvc_error *err)
{
    const fsvc_param *p = t->p;
    const fsvc_dataset *d = &t->dg;
    bnl_op op = t->op;
    op.radius = r;
    fsvc_select_problem pb = {.ctx = t->ctx, .op = &op, .X = t->X, .order = t->order,
                              .N = d->N, .n = d->n, .at = t->at};
    fsvc_select_opt o = {.prag = p->prag, .max_m = cap, .seed = p->seed, .progress = progress};
    if (p->select == FSVC_SELECT_RANDOM) { /* the first cap of the (shuffled) order */
        int64_t m_ = cap > 0 && cap < d->N ? cap : d->N;
        for (int64_t j = 0; j < m_; j++) t->sel[j] = t->order ? t->order[j] : j;
        *m = m_;
        if (syn) *syn = 0;
        return FSVC_OK;
    }
    if (p->select == FSVC_SELECT_KMEANS) { /* one process (check_comm) */
        *m = cap > 0 && cap < d->N ? cap : d->N;
        return fsvc_select_kmeans(t->sel, *m, syn, &pb, &o, err);
    }
    if (p->select == FSVC_SELECT_GLOBAL || p->regression)
        return fsvc_novelty_batched(t->sel, m, syn, &pb, &o, err);
    return select_per_class(t, pb, o, m, syn, err);
}

/* preprocess auto: sqrt-u8 for u8 images, deskew too when the median
 * |skew| of (up to 2000 of) the images exceeds 0.1; none for other data.
 * sqrt-u8 rather than sqrt: the same accuracy on MNIST and Fashion-MNIST,
 * and the exact u8 kernels (results/preprocess-u8.md); the float forms
 * when flt (a tf32/bf16 precision asks for float products). a: k doubles
 * of scratch. */
static fsvc_preprocess resolve_auto(const fsvc_dataset *d, const uint8_t *x, int64_t k,
                                    double *a, int rows, int cols, int flt, int progress)
{
    if (d->dtype != FSVC_U8 || rows < 2 || cols < 2 || (int64_t)rows * cols != d->n)
        return FSVC_PRE_NONE;
    fsvc_preprocess sq = flt ? FSVC_PRE_SQRT : FSVC_PRE_SQRT_U8;
    for (int64_t i = 0; i < k; i++)
        a[i] = fabs(fsvc_deskew_alpha_u8(x + (size_t)i * d->n, rows, cols));
    /* median by insertion sort of a small array */
    for (int64_t i = 1; i < k; i++)
        for (int64_t j = i; j > 0 && a[j - 1] > a[j]; j--) { double t = a[j]; a[j] = a[j - 1]; a[j - 1] = t; }
    double med = k ? a[k / 2] : 0;
    sq = med > 0.1 ? (fsvc_preprocess)(sq | FSVC_PRE_DESKEW) : sq;
    if (progress)
        fsvc_printf("preprocess auto: median |skew| %.3f -> %s\n", med, fsvc_preprocess_name(sq));
    return sq;
}

/* sqrt of the mean squared distance over the pairs of (up to 800) rows
 * taken in the pass order. The threads fill a table of the distances,
 * summed afterwards in pair order: the same bits for any count (without
 * memory for the table, one thread sums them as they come, in that order). */
static double rms_distance(const void *X, const int64_t *order, int64_t k, const fsvc_dataset *d,
                           int dist, fsvc_dtype t, int threads)
{
    size_t row = (size_t)d->n * fsvc_dtype_size(t), np = (size_t)(k > 1 ? k * (k - 1) / 2 : 1);
    double *dd = malloc(np * sizeof *dd), s = 0;
#pragma omp parallel for schedule(dynamic, 8) num_threads(dd && threads > 1 ? threads : 1) \
    reduction(+ : s)
    for (int64_t a = 0; a < k; a++) {
        size_t q = (size_t)a * (size_t)(2 * k - a - 1) / 2; /* pair (a, a + 1) */
        for (int64_t b = a + 1; b < k; b++, q++) {
            int64_t i = order ? order[a] : a, j = order ? order[b] : b;
            double v = fsvc_pair_dist(dist, t, (const char *)X + (size_t)i * row,
                                      (const char *)X + (size_t)j * row, d->n);
            if (dd) dd[q] = v;
            else s += v * v;
        }
    }
    for (size_t q = 0; dd && k > 1 && q < np; q++) s += dd[q] * dd[q];
    free(dd);
    return k > 1 ? sqrt(s / (double)np) : 1.0;
}

/* The dense selection as a pass of the radius search. */
static int dense_pass_fn(void *self, double r, int64_t cap, int64_t *m, double *syn,
                         fsvc_error *err)
{
    return select_pass(self, r, cap, 0, m, syn, err);
}

/* The author's radius search over the global samples (X: the slice, all
 * of it for one process). */
static int radius_search(double *r_out, double *syn, const dense_run *t, fsvc_error *err)
{
    /* start: the largest distance from the first sample to up to 1000 others
     * (the global rows 0..k0-1, on every process) */
    const fsvc_dataset *d = &t->dg;
    double r = 0;
    size_t row = (size_t)d->n * fsvc_dtype_size(t->op.dtype);
    int64_t k0 = d->N < 1001 ? d->N : 1001;
    const void *X0 = t->X;
    void *R0 = NULL;
    if (t->at.comm->size > 1) {
        int64_t *idx = malloc((size_t)k0 * sizeof *idx);
        R0 = malloc((size_t)k0 * row);
        int rc = !idx || !R0 ? fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory") : FSVC_OK;
        rc = fsvc_comm_agreed(t->at.comm, rc, err);
        for (int64_t i = 0; !rc && i < k0; i++) idx[i] = i;
        if (!rc) rc = fsvc_comm_rows(R0, t->X, row, idx, k0, &t->at, err);
        free(idx);
        if (rc) { free(R0); return rc; }
        X0 = R0;
    }
    for (int64_t i = 1; i < k0; i++) {
        double dd = fsvc_pair_dist(t->op.dist, t->op.dtype, X0,
                                   (const char *)X0 + (size_t)i * row, d->n);
        if (dd > r) r = dd;
    }
    free(R0);
    fsvc_radius_pass rp = {.pass = dense_pass_fn, .self = (void *)t, .N = d->N,
                           .source = d->source};
    return fsvc_radius_search(r_out, syn, r, t->p, &rp, err);
}

/* -r Xrms: X times the rms distance over the pairs of the first (up to)
 * 800 samples of the pass order (the same global rows on every rank). */
static int rms_radius(double *r_out, const dense_run *t, fsvc_error *err)
{
    const fsvc_param *p = t->p;
    const fsvc_dataset *d = t->d;
    const fsvc_comm *comm = t->at.comm;
    const int64_t *order = t->order;
    int64_t N = t->dg.N, k = N < 800 ? N : 800;
    double rms = 1.0;
    if (comm->size > 1) {
        size_t row = (size_t)d->n * fsvc_dtype_size(t->op.dtype);
        void *R8 = malloc((size_t)(k ? k : 1) * row);
        int64_t *idx = order ? NULL : malloc((size_t)(k ? k : 1) * sizeof *idx);
        int rc = FSVC_OK;
        if (!R8 || (!order && !idx))
            rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
        rc = fsvc_comm_agreed(comm, rc, err);
        for (int64_t i = 0; !rc && idx && i < k; i++) idx[i] = i; /* file order */
        if (!rc) rc = fsvc_comm_rows(R8, t->X, row, order ? order : idx, k, &t->at, err);
        if (!rc) rms = rms_distance(R8, NULL, k, d, p->dist, t->op.dtype, t->ctx->threads);
        free(R8); free(idx);
        if (rc) return rc;
    } else {
        rms = rms_distance(t->X, order, k, d, p->dist, t->op.dtype, t->ctx->threads);
    }
    *r_out = p->radius_rms * rms;
    if (p->progress)
        fsvc_printf("radius: %g x rms distance %.6g = %.6g\n", p->radius_rms, rms, *r_out);
    return FSVC_OK;
}

/* Feature scaling: the min and max of each feature of d (svm-scale's
 * range, absent values counting as the zeros they are). */
static int learn_range(fsvc_model *M, const fsvc_dataset *d, fsvc_error *err)
{
    M->feat_min = malloc((size_t)d->n * sizeof *M->feat_min);
    M->feat_max = malloc((size_t)d->n * sizeof *M->feat_max);
    if (!M->feat_min || !M->feat_max)
        return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    size_t es = fsvc_dtype_size(d->dtype);
    for (int64_t i = 0; i < d->N; i++) /* row by row: the data's order */
        for (int k = 0; k < d->n; k++) {
            const char *v = (const char *)d->x + ((size_t)i * d->n + k) * es;
            double x = d->dtype == FSVC_U8 ? *(const uint8_t *)v
                     : d->dtype == FSVC_F32 ? *(const float *)v : *(const double *)v;
            if (i == 0 || x < M->feat_min[k]) M->feat_min[k] = x;
            if (i == 0 || x > M->feat_max[k]) M->feat_max[k] = x;
        }
    return FSVC_OK;
}

/* The class names of d (PNG class folders), when it has one per class. */
static int copy_names(fsvc_model *M, const fsvc_dataset *d, fsvc_error *err)
{
    if (!d->class_names)
        return FSVC_OK;
    M->class_names = calloc((size_t)d->K, sizeof *M->class_names);
    if (!M->class_names)
        return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    for (int k = 0; k < d->K; k++)
        if (!d->class_names[k] || !(M->class_names[k] = strdup(d->class_names[k])))
            return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    return FSVC_OK;
}

/* The class weights of p->class_weight for d's K classes (*out, malloc'd;
 * NULL for none): balanced N / (K N_k) from the class counts (summed over
 * comm's processes), or the LABEL:W list matched to the class names (PNG
 * class folders) or the label values, classes not named 1. A label that
 * is not a class of d, or named twice, is a usage error. */
static int class_weights(double **out, const fsvc_dataset *d, const fsvc_param *p,
                         int64_t N_total, const fsvc_comm *comm, fsvc_error *err)
{
    *out = NULL;
    if (!p->class_weight[0] || p->regression)
        return FSVC_OK;
    int K = d->K, rc = FSVC_OK;
    double *w = malloc((size_t)K * sizeof *w);
    unsigned char *named = calloc((size_t)K, 1);
    if (!w || !named)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    int balanced = !strcmp(p->class_weight, "balanced");
    if (!rc && balanced) {
        for (int k = 0; k < K; k++) w[k] = 0;
        for (int64_t i = 0; i < d->N; i++) w[d->cls[i]] += 1;
    }
    rc = fsvc_comm_agreed(comm, rc, err);
    if (!rc && balanced && comm->size > 1 && comm->sum(comm->self, w, (size_t)K, FSVC_F64))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "train: the sum of the class counts failed");
    if (!rc && balanced) {
        for (int k = 0; k < K; k++) /* a class with no sample has no term to weight */
            w[k] = w[k] > 0 ? (double)N_total / ((double)K * w[k]) : 1.0;
    } else if (!rc) {
        for (int k = 0; k < K; k++) w[k] = 1.0;
        const char *pos = p->class_weight;
        char label[FSVC_CLASS_WEIGHT_MAX];
        double v;
        int got = 1;
        while (!rc && got) {
            rc = fsvc_class_weight_next(&pos, label, sizeof label, &v, &got, err);
            if (rc || !got) break;
            int k = -1;
            char *end;
            double lv = strtod(label, &end);
            for (int c = 0; c < K && k < 0; c++)
                if (d->class_names ? d->class_names[c] && !strcmp(d->class_names[c], label)
                                   : *end == 0 && end != label && lv == d->class_values[c])
                    k = c;
            if (k < 0) {
                char list[256];
                size_t o = 0;
                for (int c = 0; c < K && o < sizeof list - 8; c++) {
                    if (d->class_names)
                        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", c ? " " : "",
                                              d->class_names[c]);
                    else
                        o += (size_t)snprintf(list + o, sizeof list - o, "%s%g", c ? " " : "",
                                              d->class_values[c]);
                }
                rc = fsvc_fail(err, FSVC_EUSAGE, "%s: class weight for '%s': no such class "
                               "(the classes are: %s%s)", d->source, label, list,
                               o >= sizeof list - 8 ? " ..." : "");
            } else if (named[k]) {
                rc = fsvc_fail(err, FSVC_EUSAGE, "class weight: class '%s' is given twice",
                               label);
            } else {
                named[k] = 1;
                w[k] = v;
            }
        }
    }
    free(named);
    if (rc) { free(w); return rc; }
    *out = w;
    return FSVC_OK;
}

/* A trained model is checked before it is returned: a readout that is not
 * finite is reported in words with the option to change, then every
 * invariant by fsvc_model_check. */
static int check_result(const fsvc_model *M, const fsvc_param *p, const fsvc_dataset *d,
                        fsvc_error *err)
{
    if (M->m < 1)
        return fsvc_fail(err, FSVC_EINPUT, "%s: no centroid was selected; change the "
                         "radius (-r) or prag (-p)", d->source);
    for (size_t q = 0; q < (size_t)M->m * M->Kout; q++) {
        if (isfinite(M->R[q]))
            continue;
        if (M->readout == FSVC_READOUT_LMS)
            return fsvc_fail(err, FSVC_EINPUT, "%s: the LMS readout diverged (NaN or infinite "
                             "weights) with learning rate %g: lower the learning rate (-e)",
                             d->source, p->eta);
        return fsvc_fail(err, FSVC_EINPUT, "%s: the %s readout has NaN or infinite weights "
                         "(radius %g, lambda %g): raise lambda (-l) or change the radius (-r)",
                         d->source, fsvc_readout_name(M->readout), M->radius, p->lambda);
    }
    return fsvc_model_check(M, d->source, err);
}

/* Under several processes: any selection (random, or the novelty pass
 * global or per class, with any radius: given, Xrms or searched), the
 * ridge (direct) or one-hot readout, slices that cover N_total. */
static int check_comm(const fsvc_dataset *d, int64_t N_total, int64_t first,
                      const fsvc_param *p, const fsvc_comm *comm, fsvc_error *err)
{
    if (first < 0 || d->N < 0 || first + d->N > N_total)
        return fsvc_fail(err, FSVC_EUSAGE, "train: slice [%lld, %lld) outside %lld samples",
                         (long long)first, (long long)(first + d->N), (long long)N_total);
    if (comm->size <= 1)
        return FSVC_OK;
    if (p->select == FSVC_SELECT_KMEANS)
        return fsvc_fail(err, FSVC_EUSAGE, "train: -s kmeans++ runs as one process (the D^2 "
                         "weights of every sample decide each draw)");
    if (p->readout == FSVC_READOUT_LMS)
        return fsvc_fail(err, FSVC_EUSAGE, "train: across processes the readout is ridge or "
                         "one-hot; the LMS readout (-R lms) updates the weights sample after "
                         "sample in one sequence, so it runs as one process");
    if (p->scale_features)
        return fsvc_fail(err, FSVC_EUSAGE, "train: --scale-features range runs as one "
                         "process (the range of every slice would differ)");
    return FSVC_OK;
}

/* The model's type and image shape: the data's, or p's --shape. */
static int model_shape(fsvc_model *M, const fsvc_dataset *d, const fsvc_param *p,
                       fsvc_error *err)
{
    M->dtype = p->dtype >= 0 ? (fsvc_dtype)p->dtype
             : d->dtype == FSVC_U8 && p->scale == FSVC_SCALE_NONE ? FSVC_U8 : FSVC_F32;
    M->n = d->n; M->rows = d->rows; M->cols = d->cols;
    if (p->rows > 0 && p->cols > 0 && M->rows < 1) { /* the given shape */
        if ((int64_t)p->rows * p->cols != d->n)
            return fsvc_fail(err, FSVC_EINPUT, "%s: shape %dx%d is %lld values, the data "
                             "has %d features", d->source, p->rows, p->cols,
                             (long long)p->rows * p->cols, d->n);
        M->rows = p->rows; M->cols = p->cols;
    }
    if (M->rows < 1 || M->cols < 1 || (int64_t)M->rows * M->cols != d->n)
        M->rows = M->cols = 0; /* no usable image geometry */
    if (p->features == FSVC_FEAT_HOG && d->channels == 3)
        return fsvc_fail(err, FSVC_EINPUT, "%s: --features hog needs gray images, and these "
                         "have 3 values a pixel (RGB): read them gray (no --channels 3)",
                         d->source);
    if (p->features == FSVC_FEAT_HOG && !d->csr && M->rows < 1)
        return fsvc_fail(err, FSVC_EINPUT, "%s: --features hog needs the image shape, and the "
                         "data (%d features) has none: give it with --shape ROWSxCOLS",
                         d->source, d->n);
    if ((p->preprocess == FSVC_PRE_DESKEW || p->preprocess == FSVC_PRE_DESKEW_SQRT) &&
        M->rows < 1)
        return fsvc_fail(err, FSVC_EINPUT, "%s: deskew needs the image shape, and the data "
                         "(%d features) has none: give it with --shape ROWSxCOLS", d->source,
                         d->n);
    return FSVC_OK;
}

/* --preprocess auto, resolved on the first (up to) 2000 global samples. */
static int auto_preprocess(fsvc_model *M, const fsvc_dataset *d, const fsvc_param *p,
                           int64_t N, const fsvc_slice *at, fsvc_error *err)
{
    int64_t k = N < 2000 ? N : 2000, *idx = malloc((size_t)(k ? k : 1) * sizeof *idx);
    uint8_t *x0 = malloc((size_t)(k ? k : 1) * d->n);
    /* allocated here, so that running out of memory fails the run rather
     * than skipping the deskew test */
    double *skew = malloc((size_t)(k ? k : 1) * sizeof *skew);
    int rc = !idx || !x0 || !skew ? fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory")
                                  : FSVC_OK;
    rc = fsvc_comm_agreed(at->comm, rc, err); /* every rank takes the exchange, or none */
    if (rc) {
        free(idx); free(x0); free(skew);
        return rc;
    }
    for (int64_t i = 0; i < k; i++) idx[i] = i;
    rc = d->dtype == FSVC_U8 ? fsvc_comm_rows(x0, d->x, (size_t)d->n, idx, k, at, err) : FSVC_OK;
    if (!rc) M->preprocess = resolve_auto(d, x0, k, skew, M->rows, M->cols,
                                            p->precision != BNL_PREC_FULL, p->progress);
    free(idx); free(x0); free(skew);
    return rc;
}

/* --features hog: the HOG's scale, sqrt of the pixels' mean squared norm
 * (as the model sees them) over the raw HOG's (1 where either is 0), on
 * the first (up to) 2000 global samples: the same on every process. */
static int learn_hog_scale(fsvc_model *M, const fsvc_dataset *d, const fsvc_param *p,
                           int64_t N, const fsvc_slice *at, fsvc_error *err)
{
    int64_t k = N < 2000 ? N : 2000, *idx = malloc((size_t)(k ? k : 1) * sizeof *idx);
    size_t row = (size_t)d->n * fsvc_dtype_size(d->dtype);
    void *x0 = malloc((size_t)(k ? k : 1) * row);
    int rc = !idx || !x0 ? fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory") : FSVC_OK;
    rc = fsvc_comm_agreed(at->comm, rc, err);
    for (int64_t i = 0; !rc && i < k; i++) idx[i] = i;
    if (!rc) rc = fsvc_comm_rows(x0, d->x, row, idx, k, at, err);
    fsvc_dataset dk = *d;
    dk.x = x0;
    dk.N = k;
    fsvc_model P = *M; /* the input in f64, the HOG unscaled: exact */
    P.dtype = FSVC_F64;
    P.hog_scale = 1;
    double *X = NULL, sp = 0, sh = 0;
    size_t w = (size_t)fsvc_model_width(M);
    if (!rc) rc = fsvc_model_input_train((void **)&X, &P, &dk, p->threads, err);
    for (size_t q = 0; !rc && q < (size_t)k * w; q++) {
        if (q % w < (size_t)M->n) sp += X[q] * X[q];
        else sh += X[q] * X[q];
    }
    M->hog_scale = sp > 0 && sh > 0 && isfinite(sp / sh) ? sqrt(sp / sh) : 1.0;
    free(idx); free(x0); free(X);
    return rc;
}

/* The transform of the input: scaling and preprocessing, or the feature
 * range; the model's type follows (float for sqrt and the range); the
 * features (hog: its scale). */
static int model_transform(fsvc_model *M, const fsvc_dataset *d, const fsvc_param *p,
                           int64_t N, const fsvc_slice *at, fsvc_error *err)
{
    int rc;
    M->scale = p->scale; M->preprocess = p->preprocess;
    if (p->scale_features) { /* on the raw values: nothing else transforms them */
        if (p->preprocess != FSVC_PRE_NONE && p->preprocess != FSVC_PRE_AUTO)
            return fsvc_fail(err, FSVC_EUSAGE, "train: --scale-features range works on the "
                             "raw features; it does not combine with --preprocess %s",
                             fsvc_preprocess_name(p->preprocess));
        if (p->scale != FSVC_SCALE_NONE)
            return fsvc_fail(err, FSVC_EUSAGE, "train: --scale-features range does not "
                             "combine with --scale %s", fsvc_scale_name(p->scale));
        if (p->dtype == FSVC_U8)
            return fsvc_fail(err, FSVC_EUSAGE, "train: --scale-features range needs float "
                             "centroids (--dtype f32 or f64)");
        M->preprocess = FSVC_PRE_NONE;
        if (p->dtype < 0) M->dtype = FSVC_F32;
        if ((rc = learn_range(M, d, err))) return rc;
    } else if (p->preprocess == FSVC_PRE_AUTO) {
        if ((rc = auto_preprocess(M, d, p, N, at, err))) return rc;
    }
    if (p->dtype < 0 && (M->preprocess & FSVC_PRE_SQRT)) M->dtype = FSVC_F32;
    M->features = p->features != FSVC_FEAT_AUTO ? p->features
                : d->dtype == FSVC_U8 && M->rows >= 8 && M->cols >= 8 && d->channels != 3 &&
                  !p->scale_features && p->augment == FSVC_AUG_NONE && !(p->radius > 0)
                ? FSVC_FEAT_HOG : FSVC_FEAT_PIXELS; /* -r R: a distance between pixels */
    if (M->features == FSVC_FEAT_HOG) return learn_hog_scale(M, d, p, N, at, err);
    return FSVC_OK;
}

/* The model's settings, shape, input transform and outputs (one value for
 * a regression, else d's classes with their values and names). */
static int model_setup(fsvc_model *M, const fsvc_dataset *d, const fsvc_param *p, int64_t N,
                       const fsvc_slice *at, fsvc_error *err)
{
    int rc = model_shape(M, d, p, err);
    if (!rc) rc = model_transform(M, d, p, N, at, err);
    if (rc) return rc;
    M->dist = p->dist; M->act = p->act; M->prag = p->prag;
    M->precision = p->precision;
    M->select = p->select; M->readout = p->readout; M->regression = p->regression;
    if (p->regression) {
        M->K = 0; M->Kout = 1;
        return FSVC_OK;
    }
    M->K = d->K; M->Kout = d->K;
    M->class_values = malloc((size_t)d->K * sizeof *M->class_values);
    if (!M->class_values) return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    memcpy(M->class_values, d->class_values, (size_t)d->K * sizeof *M->class_values);
    return copy_names(M, d, err);
}

/* What the run needs before the selection: the input as the model sees
 * it, the context, room for the selection, the pass order (the seeded
 * shuffle) and, per class across processes, the class of every global
 * sample (each rank's slice, ORed). A failure on one process stops all. */
static int run_open(dense_run *t, const fsvc_model *M, bnl_ctx *ctx, int *ctx_open,
                    fsvc_error *err)
{
    const fsvc_param *p = t->p;
    const fsvc_comm *comm = t->at.comm;
    int64_t N = t->dg.N;
    int rc = fsvc_model_input_train(&t->X, M, t->d, p->threads, err);
    if (!rc) {
        rc = fsvc_ctx_open(ctx, p, err);
        *ctx_open = !rc;
    }
    t->ctx = ctx;
    if (!rc && !(t->sel = malloc((size_t)N * sizeof *t->sel)))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    if (!rc && (p->shuffle || p->select == FSVC_SELECT_RANDOM)) {
        t->order = malloc((size_t)N * sizeof *t->order); /* the global sample order */
        if (!t->order) rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
        for (int64_t i = 0; !rc && i < N; i++) t->order[i] = i;
        if (!rc) fsvc_shuffle(t->order, N, p->seed);
    }
    if (!rc && comm->size > 1 && p->select == FSVC_SELECT_PER_CLASS && !p->regression) {
        t->gcls = calloc((size_t)(N ? N : 1), sizeof *t->gcls);
        if (!t->gcls) rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    }
    rc = fsvc_comm_agreed(comm, rc, err);
    if (rc || !t->gcls)
        return rc;
    if (t->d->N > 0) memcpy(t->gcls + t->at.first, t->d->cls, (size_t)t->d->N * sizeof *t->gcls);
    if (comm->bor(comm->self, t->gcls, (size_t)N * sizeof *t->gcls))
        return fsvc_fail(err, FSVC_ERESOURCE, "train: the exchange of the class index failed");
    t->cls = t->gcls;
    return FSVC_OK;
}

/* The radius (given, Xrms or searched: *syn its work), checked, then the
 * selection: *m centroids in t->sel, *syn += its work. */
static int select_centroids(int64_t *m, double *syn, fsvc_model *M, dense_run *t,
                            fsvc_error *err)
{
    const fsvc_param *p = t->p;
    double r = p->radius, syn2 = 0;
    int64_t cap = p->max_neurons;
    int rc = FSVC_OK;
    if (!(r > 0) && p->radius_rms > 0)
        rc = rms_radius(&r, t, err);
    else if (!(r > 0))
        rc = radius_search(&r, syn, t, err);
    if (rc) return rc;
    t->op.radius = r;
    M->radius = r;
    if ((rc = fsvc_radius_check(p->act, M->dtype, r, t->d->source, err)) ||
        (rc = bnl_op_check(&t->op, err)))
        return rc;
    if ((p->select == FSVC_SELECT_RANDOM || p->select == FSVC_SELECT_KMEANS) && cap <= 0)
        cap = fsvc_default_centroids(t->dg.N, p->regression ? 0 : t->d->n);
    rc = select_pass(t, r, cap, p->progress == FSVC_PROGRESS_ALL, m, &syn2, err);
    if (!rc) *syn += syn2;
    return rc;
}

/* The m selected rows and their labels into M, each from the rank holding
 * it, with room for the readout. */
static int take_centroids(fsvc_model *M, const dense_run *t, int64_t m, fsvc_error *err)
{
    const fsvc_dataset *d = t->d;
    size_t row = (size_t)d->n * fsvc_dtype_size(M->dtype);
    int rc = FSVC_OK;
    M->m = m;
    M->C = malloc((size_t)m * row);
    M->lab = calloc((size_t)m, sizeof *M->lab);
    M->R = calloc((size_t)m * M->Kout, sizeof *M->R);
    if (!M->C || !M->lab || !M->R)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory for %lld centroids", (long long)m);
    rc = fsvc_comm_agreed(t->at.comm, rc, err);
    if (!rc) rc = fsvc_comm_rows(M->C, t->X, row, t->sel, m, &t->at, err);
    if (!rc && !t->p->regression)
        rc = fsvc_comm_rows(M->lab, d->cls, sizeof *d->cls, t->sel, m, &t->at, err);
    return rc;
}


/* A readout's bad-input words, naming the data. */
static int name_source(int rc, const char *source, fsvc_error *err)
{
    if (rc == FSVC_EINPUT && err) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        fsvc_fail(err, rc, "%s: %s", source, msg);
    }
    return rc;
}

/* Dense data on this process's slice d (at) of N global samples, M set up
 * (model_setup): the class weights, the run's input and context, the
 * radius and the selection, the centroids, then the readout. */
static int train_dense(fsvc_model *M, fsvc_train_info *info, const fsvc_dataset *d, int64_t N,
                       const fsvc_param *p, const fsvc_slice *at, fsvc_error *err)
{
    const fsvc_comm *comm = at->comm;
    dense_run t = {.d = d, .p = p, .dg = *d, .at = *at, .cls = d->cls};
    int n = (int)fsvc_model_width(M); /* the values of a prepared row (the HOG's too) */
    fsvc_dataset dw = *d; /* d as prepared: n values a row (t.X), after run_open */
    dw.n = n;
    t.dg.N = N; /* the selection sees the global count */
    t.dg.n = n;
    t.op = (bnl_op){ (bnl_dist)p->dist, (bnl_act)p->act, M->dtype, p->radius,
                     (bnl_precision)p->precision };
    double *cw = NULL, *yc = NULL; /* class weights (NULL: none); regression targets */
    double t0 = fsvc_clock(), t1 = t0, syn = 0, syn_r = 0;
    int64_t m = 0;
    bnl_ctx ctx;
    int ctx_open = 0, bars = p->progress == FSVC_PROGRESS_ALL; /* the progress lines */
    int rc = class_weights(&cw, d, p, N, comm, err);
    if (!rc && !(rc = run_open(&t, M, &ctx, &ctx_open, err))) {
        t.d = &dw;
        t0 = fsvc_clock();
        rc = select_centroids(&m, &syn, M, &t, err);
        t1 = fsvc_clock();
    }
    if (!rc) rc = take_centroids(M, &t, m, err);
    if (rc) goto done;
    const void *X = t.X;
    bnl_op op = t.op;
    fsvc_ridge_opt ro = {p->lambda, p->solver, p->cg_tol, p->augment, M->rows, M->cols, 0,
                         p->progress, fsvc_pcg_h_arg(p->pcg_h)};
    if (p->regression) {
        if ((rc = fsvc_center_targets(&yc, &M->y_offset, d, comm, err))) goto done;
        fsvc_ridge_problem pb = {&ctx, &op, M->C, m, X, NULL, yc, NULL, d->N, N, n, 1, comm,
                                 fsvc_weights_real(d), NULL};
        rc = fsvc_readout_solve(M->R, &pb, &ro, info, err);
        syn_r = (double)m * d->N * n;
    } else if (p->readout == FSVC_READOUT_RIDGE) {
        fsvc_ridge_problem pb = {&ctx, &op, M->C, m, X, d->cls, NULL, cw, d->N, N, n, M->K,
                                 comm, fsvc_weights_real(d), NULL};
        rc = fsvc_readout_solve(M->R, &pb, &ro, info, err);
        syn_r = (double)m * d->N * n;
    } else {
        fsvc_readout_onehot(M->R, M->lab, m, M->K);
        if (p->readout == FSVC_READOUT_LMS && p->eta > 0 && p->epochs > 0) {
            fsvc_ridge_problem pb = {&ctx, &op, M->C, m, X, d->cls, NULL, NULL, d->N, N, n,
                                     M->K, comm, fsvc_weights_real(d), NULL};
            rc = fsvc_readout_lms(M->R, &pb, p->eta, p->epochs, bars, err);
            syn_r = (double)m * d->N * n * p->epochs;
        }
    }
    if ((rc = name_source(rc, d->source, err)) || (rc = check_result(M, p, d, err)))
        goto done;
    if (info) {
        info->radius = M->radius;
        info->m = m;
        info->t_select = t1 - t0;
        info->t_readout = fsvc_clock() - t1;
        info->syn_select = syn;
        info->syn_readout = syn_r;
    }
done:
    free(t.X); free(t.order); free(t.sel); free(t.gcls); free(yc); free(cw);
    if (ctx_open) bnl_ctx_close(&ctx);
    return rc;
}

int fsvc_train_model(fsvc_model *model, fsvc_train_info *info, const fsvc_dataset *d,
                     int64_t N_total, int64_t first, const fsvc_param *p_in,
                     const fsvc_comm *comm, fsvc_error *err)
{
    fsvc_param pr = *p_in, *p = &pr;
    if (p->select == FSVC_SELECT_AUTO)
        p->select = p->readout == FSVC_READOUT_RIDGE && (p->radius > 0 || p->radius_rms > 0)
                  ? FSVC_SELECT_RANDOM : FSVC_SELECT_GLOBAL;
    memset(model, 0, sizeof *model);
    if (info) memset(info, 0, sizeof *info);
    int rc = check_param(d, p, err);
    if (!rc) rc = check_comm(d, N_total, first, p, comm, err);
    if (rc) return rc;
    if (d->csr) /* sparse data: a sparse model (fsvc/sparse_train.c) */
        return fsvc_train_sparse(model, info, d, p, comm, err);
    fsvc_slice at = {first, d->N, comm};
    rc = model_setup(model, d, p, N_total, &at, err);
    rc = fsvc_comm_agreed(comm, rc, err); /* class values, names: one rank can fail alone */
    if (!rc) rc = train_dense(model, info, d, N_total, p, &at, err);
    if (rc) fsvc_free_model(model);
    return rc;
}
