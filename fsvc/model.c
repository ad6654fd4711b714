/* model.c - training parameters, their names and defaults, and freeing a
 * model. */
#include "internal.h"
#include "sparse.h"
#include "hog.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The defaults (`fsvc train` with no options): preprocess auto (sqrt of u8
 * images, with deskew for slanted handwriting; fsvc_train decides),
 * features auto (the HOG appended to u8 gray images), L2
 * Gaussian of radius 0.45 x the rms distance between training samples,
 * select auto, which with the ridge readout and that radius is random: the
 * first fsvc_default_centroids(N, n) samples of a seeded shuffle (fsvc_train;
 * 10000 from 20000 samples), ridge readout with
 * lambda 1e-5 x mean diag(H^T H) (raised 3x on a non-positive-definite
 * factorisation, fsvc/ridge.c), dtype chosen from the data, the cpu
 * backend on all cores. Accuracy and times measured with them: README.md
 * and results/. The published FSVC behaviour is reached through options
 * (e.g. -R onehot -d l1 -k tri -p 1 -r 7.6 --dtype f64 selects with the
 * global novelty pass). */
void fsvc_param_default(fsvc_param *p)
{
    memset(p, 0, sizeof *p);
    p->dist = 1;               /* L2 */
    p->act = 1;                /* Gaussian */
    p->radius = 0;             /* radius_rms x rms distance */
    p->radius_rms = 0.45;
    p->prag = 1.0;
    p->select = FSVC_SELECT_AUTO;
    p->readout = FSVC_READOUT_RIDGE;
    p->lambda = 1e-5;
    p->solver = FSVC_SOLVER_AUTO;
    p->cg_tol = 1e-4;
    p->eta = 0.01;
    p->epochs = 1;
    p->scale = FSVC_SCALE_NONE;
    p->dtype = -1;
    p->preprocess = FSVC_PRE_AUTO;
    p->features = FSVC_FEAT_AUTO;
    p->backend = "cpu";
    p->threads = 0;
}

void fsvc_free_model(fsvc_model *model)
{
    if (!model)
        return;
    if (model->class_names)
        for (int k = 0; k < model->K; k++)
            free(model->class_names[k]);
    free(model->class_names);
    free(model->class_values);
    free(model->C);
    fsvc_csr_free(model->Cs);
    free(model->lab);
    free(model->R);
    free(model->feat_min);
    free(model->feat_max);
    memset(model, 0, sizeof *model);
}

/* The smallest radius whose kernel factors the engine can hold: the
 * triangular kernel multiplies by (float)(1 / (2.5066 r)) for u8/f32
 * centroids, the Gaussian by (float)(1 / (2 r^2)), and for f64 divides by
 * 2 r^2, which must not underflow (layers/act.h). Below it activations are
 * 0 or NaN whatever the data. */
static double radius_min(int act, fsvc_dtype t)
{
    if (act == BNL_TRI)
        return t == FSVC_F64 ? DBL_MIN : 1.0 / (BNL_TRI_SCALE * (double)FLT_MAX);
    return t == FSVC_F64 ? sqrt(DBL_MIN / 2) : sqrt(1.0 / (2.0 * (double)FLT_MAX));
}

int fsvc_radius_check(int act, fsvc_dtype t, double r, const char *name, fsvc_error *err)
{
    if (!(r > 0) || !isfinite(r))
        return fsvc_fail(err, FSVC_EINPUT, "%s: the radius must be finite and > 0 (got %g)",
                         name, r);
    int ok = act == BNL_TRI
           ? (t == FSVC_F64 ? BNL_TRI_SCALE * r > 0 : isfinite((float)(1.0 / (BNL_TRI_SCALE * r))))
           : (t == FSVC_F64 ? 2.0 * r * r >= DBL_MIN : isfinite((float)(1.0 / (2.0 * r * r))));
    if (!ok)
        return fsvc_fail(err, FSVC_EINPUT,
                         "%s: radius %g is too small for the %s kernel on %s values (its "
                         "1/r%s overflows, so every activation would be 0 or NaN); give a "
                         "radius above %.3g (-r)", name, r,
                         act == BNL_TRI ? "triangular" : "Gaussian", fsvc_dtype_name(t),
                         act == BNL_TRI ? "" : "^2", radius_min(act, t));
    return FSVC_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names: present for all K classes, 1..FSVC_MODEL_MAX_NAME bytes, no
 * control characters (they end up on output lines), all distinct. */
static int check_names(const fsvc_model *M, const char *name, fsvc_error *err)
{
    for (int k = 0; k < M->K; k++) {
        const char *s = M->class_names[k];
        size_t l = s ? strlen(s) : 0;
        if (l < 1 || l > FSVC_MODEL_MAX_NAME)
            return fsvc_fail(err, FSVC_EINPUT, "%s: class %d has %s name", name, k + 1,
                             l ? "a too long" : "an empty");
        for (size_t q = 0; q < l; q++)
            if ((unsigned char)s[q] < 0x20 || s[q] == 0x7f)
                return fsvc_fail(err, FSVC_EINPUT,
                                 "%s: the name of class %d holds a control character",
                                 name, k + 1);
    }
    char **v = malloc((size_t)M->K * sizeof *v);
    if (!v)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", name);
    memcpy(v, M->class_names, (size_t)M->K * sizeof *v);
    qsort(v, (size_t)M->K, sizeof *v, cmp_str);
    int rc = FSVC_OK;
    for (int k = 1; k < M->K && !rc; k++)
        if (!strcmp(v[k - 1], v[k]))
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: two classes are named '%s'", name, v[k]);
    free(v);
    return rc;
}

int fsvc_model_check(const fsvc_model *M, const char *name, fsvc_error *err)
{
#define BAD(...) return fsvc_fail(err, FSVC_EINPUT, __VA_ARGS__)
    if ((unsigned)M->dtype > FSVC_F64) BAD("%s: unknown centroid type %d", name, (int)M->dtype);
    if (M->n < 1 || M->n > FSVC_MODEL_MAX_N)
        BAD("%s: %d features (the limit is 1..%d)", name, M->n, FSVC_MODEL_MAX_N);
    if (M->rows < 0 || M->cols < 0 ||
        ((M->rows || M->cols) && (int64_t)M->rows * M->cols != M->n))
        BAD("%s: image geometry %d x %d does not match its %d features", name, M->rows,
            M->cols, M->n);
    if ((unsigned)M->scale > FSVC_SCALE_PM1) BAD("%s: unknown scaling %d", name, (int)M->scale);
    if (!fsvc_preprocess_stored((int)M->preprocess))
        BAD("%s: unknown preprocessing %d", name, (int)M->preprocess);
    if ((M->preprocess & FSVC_PRE_DESKEW) && M->rows < 1)
        BAD("%s: deskew preprocessing without an image geometry", name);
    if ((M->preprocess & FSVC_PRE_SQRT) && M->dtype == FSVC_U8)
        BAD("%s: sqrt preprocessing with u8 centroids", name);
    if ((unsigned)M->features > FSVC_FEAT_HOG)
        BAD("%s: unknown features %d", name, (int)M->features);
    if (M->features == FSVC_FEAT_HOG &&
        (M->rows < 1 || M->Cs || M->feat_min || !(M->hog_scale > 0) || !isfinite(M->hog_scale) ||
         fsvc_model_width(M) > FSVC_MODEL_MAX_N))
        BAD("%s: HOG features need an image geometry, dense centroids, no feature scaling, "
            "a finite scale > 0 (got %g) and at most %d values", name, M->hog_scale,
            FSVC_MODEL_MAX_N);
    if (M->features != FSVC_FEAT_HOG && M->hog_scale != 0)
        BAD("%s: a HOG scale without HOG features", name);
    if (M->dist != BNL_L1 && M->dist != BNL_L2) BAD("%s: unknown distance %d", name, M->dist);
    if (M->act != BNL_TRI && M->act != BNL_GAUSS) BAD("%s: unknown kernel %d", name, M->act);
    if ((unsigned)M->select > FSVC_SELECT_KMEANS || M->select == FSVC_SELECT_AUTO)
        BAD("%s: unknown selection %d", name, (int)M->select);
    if ((unsigned)M->readout > FSVC_READOUT_RIDGE)
        BAD("%s: unknown readout %d", name, (int)M->readout);
    if (M->regression != 0 && M->regression != 1)
        BAD("%s: bad regression flag %d", name, M->regression);
    if (M->regression ? M->K != 0 || M->Kout != 1 || M->class_names
                      : M->K < 1 || M->K > FSVC_MODEL_MAX_K || M->Kout != M->K)
        BAD("%s: %d classes with %d readout columns is inconsistent", name, M->K, M->Kout);
    int rc = fsvc_radius_check(M->act, M->dtype, M->radius, name, err);
    if (rc) return rc;
    if (!(M->prag > 0) || !isfinite(M->prag)) BAD("%s: prag %g is not finite and > 0", name, M->prag);
    if (!isfinite(M->y_offset)) BAD("%s: the regression offset is not finite", name);
    if (M->m < 1) BAD("%s: the model has no centroids (m = %lld)", name, (long long)M->m);
    if (!(M->C || M->Cs) || !M->lab || !M->R || (M->K && !M->class_values))
        BAD("%s: the model has missing arrays", name);
    if (M->Cs && (M->C || M->dtype != FSVC_F32 || M->preprocess != FSVC_PRE_NONE ||
                  M->scale != FSVC_SCALE_NONE || M->feat_min || M->rows || M->Cs->rows != M->m))
        BAD("%s: a sparse model with dense centroids, %s values, preprocessing, scaling, an "
            "image shape or %lld rows for %lld centroids", name, fsvc_dtype_name(M->dtype),
            (long long)M->Cs->rows, (long long)M->m);
    if (M->Cs && (rc = fsvc_csr_check(M->Cs, M->n, name, err)))
        return rc;
    for (int k = 0; k < M->K; k++) {
        if (!isfinite(M->class_values[k]))
            BAD("%s: class value %d is not finite", name, k + 1);
        if (k && !(M->class_values[k] > M->class_values[k - 1]))
            BAD("%s: class values are not strictly ascending (class %d)", name, k + 1);
    }
    if (M->class_names && (rc = check_names(M, name, err)))
        return rc;
    if (!M->feat_min != !M->feat_max) BAD("%s: feature scaling has minima or maxima only", name);
    if (M->feat_min && (M->preprocess != FSVC_PRE_NONE || M->scale != FSVC_SCALE_NONE ||
                        M->dtype == FSVC_U8))
        BAD("%s: feature scaling with preprocessing, u8 scaling or u8 centroids", name);
    for (int k = 0; M->feat_min && k < M->n; k++)
        if (!isfinite(M->feat_min[k]) || !isfinite(M->feat_max[k]) ||
            !(M->feat_min[k] <= M->feat_max[k]))
            BAD("%s: feature %d scales from a bad range [%g, %g]", name, k + 1,
                M->feat_min[k], M->feat_max[k]);
    for (int64_t j = 0; j < M->m; j++)
        if (M->lab[j] < 0 || (M->regression ? M->lab[j] != 0 : M->lab[j] >= M->K))
            BAD("%s: centroid %lld has an invalid class %d", name, (long long)j + 1, M->lab[j]);
    size_t w = (size_t)fsvc_model_width(M), total = (size_t)M->m * w;
    if (M->dtype != FSVC_U8 && M->C)
        for (size_t q = 0; q < total; q++) {
            double v = M->dtype == FSVC_F32 ? ((const float *)M->C)[q] : ((const double *)M->C)[q];
            if (!isfinite(v))
                BAD("%s: value %zu of centroid %zu is not finite", name, q % w + 1, q / w + 1);
        }
    for (size_t q = 0; q < (size_t)M->m * (size_t)M->Kout; q++)
        if (!isfinite(M->R[q]))
            BAD("%s: readout weight %zu of centroid %zu is not finite", name,
                q % (size_t)M->Kout + 1, q / (size_t)M->Kout + 1);
    return FSVC_OK;
#undef BAD
}

const char *fsvc_model_class_text(const fsvc_model *M, int k, char *buf, size_t sz)
{
    if (M->class_names && k >= 0 && k < M->K) {
        snprintf(buf, sz, "%s", M->class_names[k]);
    } else if (k >= 0 && k < M->K) {
        double v = M->class_values[k];
        for (int prec = 15; prec <= 17; prec++) { /* shortest exact text */
            snprintf(buf, sz, "%.*g", prec, v);
            if (strtod(buf, NULL) == v) break;
        }
    } else {
        snprintf(buf, sz, "?");
    }
    return buf;
}

const fsvc_name fsvc_select_names[] = {
    {"global", FSVC_SELECT_GLOBAL}, {"per-class", FSVC_SELECT_PER_CLASS},
    {"random", FSVC_SELECT_RANDOM}, {"auto", FSVC_SELECT_AUTO},
    {"kmeans++", FSVC_SELECT_KMEANS}, {NULL, 0}};
const fsvc_name fsvc_readout_names[] = {
    {"onehot", FSVC_READOUT_ONEHOT}, {"lms", FSVC_READOUT_LMS}, {"ridge", FSVC_READOUT_RIDGE},
    {NULL, 0}};
const fsvc_name fsvc_preprocess_names[] = {
    {"none", FSVC_PRE_NONE}, {"deskew", FSVC_PRE_DESKEW}, {"sqrt", FSVC_PRE_SQRT},
    {"deskew+sqrt", FSVC_PRE_DESKEW_SQRT}, {"sqrt-u8", FSVC_PRE_SQRT_U8},
    {"deskew+sqrt-u8", FSVC_PRE_DESKEW_SQRT_U8}, {"auto", FSVC_PRE_AUTO}, {NULL, 0}};

int fsvc_preprocess_stored(int p)
{
    return (p >= FSVC_PRE_NONE && p <= FSVC_PRE_DESKEW_SQRT) || p == FSVC_PRE_SQRT_U8 ||
           p == FSVC_PRE_DESKEW_SQRT_U8;
}
const fsvc_name fsvc_features_names[] = {
    {"pixels", FSVC_FEAT_PIXELS}, {"hog", FSVC_FEAT_HOG}, {"auto", FSVC_FEAT_AUTO}, {NULL, 0}};

int64_t fsvc_model_width(const fsvc_model *M)
{
    return M->n + (M->features == FSVC_FEAT_HOG ? fsvc_hog_width(M->rows, M->cols) : 0);
}

const fsvc_name fsvc_solver_names[] = {
    {"direct", FSVC_SOLVER_DIRECT}, {"pcg", FSVC_SOLVER_PCG}, {"auto", FSVC_SOLVER_AUTO},
    {NULL, 0}};
const fsvc_name fsvc_augment_names[] = {
    {"none", FSVC_AUG_NONE}, {"shift1", FSVC_AUG_SHIFT1}, {"shift2", FSVC_AUG_SHIFT2},
    {"mirror", FSVC_AUG_MIRROR}, {"mirror+shift1", FSVC_AUG_MIRROR_SHIFT1}, {NULL, 0}};

/* name and parse for enum fsvc_T from its table */
#define NAME_FNS(T)                                                             \
    const char *fsvc_##T##_name(fsvc_##T v) { return fsvc_name_of(fsvc_##T##_names, (int)v); } \
    int fsvc_##T##_parse(const char *s, fsvc_##T *out)                         \
    {                                                                          \
        int v;                                                                 \
        if (fsvc_name_parse(fsvc_##T##_names, s, &v))                          \
            return -1;                                                         \
        *out = (fsvc_##T)v;                                                    \
        return 0;                                                              \
    }

NAME_FNS(select)
NAME_FNS(readout)
NAME_FNS(preprocess)
NAME_FNS(solver)
NAME_FNS(augment)
