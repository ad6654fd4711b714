/* params.c - the one settings model of fsvc training. Every setting has
 * one row in `table`: its name (the key of `fsvc study --vary NAME=...`,
 * of the Python estimators' keyword arguments and of the canonical
 * settings text), its `fsvc train` options (-r / --radius), the syntax of
 * its value, a help line, and one parser and one printer. `fsvc train`
 * builds its options and --help from the table, `fsvc study` and the
 * Python binding set settings by name through fsvc_param_set, and
 * fsvc_param_canon writes the canonical text that keys a study's resume.
 * To add a setting: a field in fsvc_param (fsvc.h), its default in
 * fsvc_param_default (model.c), a row here with its set_/get_ pair. */
#include "fsvc.h"
#include "../layers/bnl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*set_fn)(fsvc_param *p, const char *name, const char *s, fsvc_error *err);
typedef void (*get_fn)(char *buf, size_t len, const fsvc_param *p);

typedef struct setting {
    fsvc_setting_info info;
    set_fn set;
    get_fn get;
} setting;

/* The shortest %g text that reads back as exactly v. */
static void shortest(char *out, size_t len, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, len, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

/* ---- value parsers ---- */

static int num(double *out, const char *name, const char *s, fsvc_error *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' is not a finite number", name, s);
    *out = v;
    return FSVC_OK;
}

static int positive(double *out, const char *name, const char *s, fsvc_error *err)
{
    int rc = num(out, name, s, err);
    if (!rc && !(*out > 0))
        rc = fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' must be > 0", name, s);
    return rc;
}

static int integer(long long *out, const char *name, const char *s, long long lo,
                   long long hi, fsvc_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' is not an integer in [%lld, %lld]",
                         name, s, lo, hi);
    *out = v;
    return FSVC_OK;
}

static int bad(const char *name, const char *s, const char *choices, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_EUSAGE, "%s: unknown value '%s' (%s)", name, s, choices);
}

/* ---- one setter and one getter per setting ---- */

static int set_radius(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    size_t l = strlen(s);
    double v;
    int rc;
    if (!strcmp(s, "auto") || !strcmp(s, "search")) {
        p->radius = 0;                   /* the author's radius search */
        p->radius_rms = 0;
        return FSVC_OK;
    }
    if (l > 3 && !strcmp(s + l - 3, "rms")) {
        char nb[64];
        if (l - 3 >= sizeof nb)
            return fsvc_fail(err, FSVC_EUSAGE, "%s: '%.40s...' is too long", name, s);
        memcpy(nb, s, l - 3);
        nb[l - 3] = 0;
        if ((rc = positive(&v, name, nb, err))) return rc;
        p->radius = 0;                   /* v times the rms distance */
        p->radius_rms = v;
        return FSVC_OK;
    }
    if ((rc = num(&v, name, s, err)))
        return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' is not a number, Xrms or search", name, s);
    if (!(v > 0)) return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' must be > 0", name, s);
    p->radius = v;
    p->radius_rms = 0;
    return FSVC_OK;
}
static void get_radius(char *b, size_t n, const fsvc_param *p)
{
    char v[40];
    if (p->radius > 0) shortest(b, n, p->radius);
    else if (p->radius_rms > 0) { shortest(v, sizeof v, p->radius_rms); snprintf(b, n, "%srms", v); }
    else snprintf(b, n, "auto");
}

#define POSITIVE(field)                                                                \
    static int set_##field(fsvc_param *p, const char *name, const char *s,             \
                           fsvc_error *err)                                            \
    { return positive(&p->field, name, s, err); }                                      \
    static void get_##field(char *b, size_t n, const fsvc_param *p)                    \
    { shortest(b, n, p->field); }
POSITIVE(prag)
POSITIVE(lambda)
POSITIVE(cg_tol)

/* eta = 0 is allowed: the LMS readout then keeps its one-hot start */
static int set_eta(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    int rc = num(&p->eta, name, s, err);
    if (!rc && !(p->eta >= 0)) rc = fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' must be >= 0", name, s);
    return rc;
}
static void get_eta(char *b, size_t n, const fsvc_param *p) { shortest(b, n, p->eta); }

#define INTEGER(fn, field, lo, hi)                                                     \
    static int set_##fn(fsvc_param *p, const char *name, const char *s, fsvc_error *err) \
    {                                                                                  \
        long long v;                                                                   \
        int rc = integer(&v, name, s, lo, hi, err);                                    \
        if (!rc) p->field = v;                                                         \
        return rc;                                                                     \
    }                                                                                  \
    static void get_##fn(char *b, size_t n, const fsvc_param *p)                       \
    { snprintf(b, n, "%lld", (long long)p->field); }
INTEGER(epochs, epochs, 0, 1000000)
INTEGER(max_neurons, max_neurons, 0, 1LL << 40)
INTEGER(threads, threads, 0, 4096)

static int set_dist(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    bnl_dist d;
    if (bnl_dist_parse(s, &d) || d == BNL_DOT) return bad(name, s, "l1|l2", err);
    p->dist = d;
    return FSVC_OK;
}
static void get_dist(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", bnl_dist_name((bnl_dist)p->dist)); }

static int set_kernel(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    bnl_act a;
    if (bnl_act_parse(s, &a) || a > BNL_GAUSS) return bad(name, s, "tri|gauss", err);
    p->act = a;
    return FSVC_OK;
}
static void get_kernel(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", bnl_act_name((bnl_act)p->act)); }

/* A setting that is one enum: its values and names come from the enum's
 * name table (one table per enum, base/names.c, fsvc/model.c). */
#define ENUM(fn, field, type, table)                                                   \
    static int set_##fn(fsvc_param *p, const char *name, const char *s, fsvc_error *err) \
    {                                                                                  \
        int v;                                                                         \
        char choices[128];                                                             \
        if (fsvc_name_parse(table, s, &v))                                             \
            return bad(name, s, fsvc_name_list(table, choices, sizeof choices), err);  \
        p->field = (type)v;                                                            \
        return FSVC_OK;                                                                \
    }                                                                                  \
    static void get_##fn(char *b, size_t n, const fsvc_param *p)                       \
    { snprintf(b, n, "%s", fsvc_name_of(table, (int)p->field)); }
ENUM(select, select, fsvc_select, fsvc_select_names)
ENUM(readout, readout, fsvc_readout, fsvc_readout_names)
ENUM(scale, scale, fsvc_scale, fsvc_scale_names)
ENUM(preprocess, preprocess, fsvc_preprocess, fsvc_preprocess_names)
ENUM(solver, solver, fsvc_solver, fsvc_solver_names)
ENUM(augment, augment, fsvc_augment, fsvc_augment_names)
ENUM(features, features, fsvc_features, fsvc_features_names)

static int set_dtype(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    fsvc_dtype t;
    if (!strcmp(s, "auto")) { p->dtype = -1; return FSVC_OK; }
    if (fsvc_dtype_parse(s, &t)) return bad(name, s, "u8|f32|f64|auto", err);
    p->dtype = t;
    return FSVC_OK;
}
static void get_dtype(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", p->dtype < 0 ? "auto" : fsvc_dtype_name((fsvc_dtype)p->dtype)); }

static int onoff(int *out, const char *name, const char *s, fsvc_error *err)
{
    if (!strcmp(s, "on") || !strcmp(s, "1") || !strcmp(s, "yes")) *out = 1;
    else if (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no")) *out = 0;
    else return bad(name, s, "on|off", err);
    return FSVC_OK;
}
/* Regression's own defaults of radius and lambda, chosen by measurement
 * (scripts/regression.py, results/regression.md: diabetes, R^2 0.43 against
 * -0.13 with the classification defaults 0.45rms, 1e-5, whose many narrow
 * centroids overfit a continuous target). Turning regression on or off
 * sets the task's defaults of those not given (p->given), so that a radius
 * or lambda given before or after is kept. */
#define REG_RADIUS_RMS 1.0
#define REG_LAMBDA 0.1
static int set_regression(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    int rc = onoff(&p->regression, name, s, err);
    fsvc_param d;
    fsvc_param_default(&d);
    if (!rc && !(p->given & FSVC_GIVEN_RADIUS)) {
        p->radius = 0;
        p->radius_rms = p->regression ? REG_RADIUS_RMS : d.radius_rms;
    }
    if (!rc && !(p->given & FSVC_GIVEN_LAMBDA))
        p->lambda = p->regression ? REG_LAMBDA : d.lambda;
    return rc;
}
static void get_regression(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", p->regression ? "on" : "off"); }

static int set_probability(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{ return onoff(&p->probability, name, s, err); }
static void get_probability(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", p->probability ? "on" : "off"); }

/* class-weight: none | balanced | LABEL:W[,LABEL:W...]; one item of the
 * list at *pos (the label before the item's last ':', W a finite number
 * > 0), *pos moved past it; *got = 0 at the end of the list. */
int fsvc_class_weight_next(const char **pos, char *label, size_t cap, double *w, int *got,
                           fsvc_error *err)
{
    const char *s = *pos;
    *got = 0;
    if (!*s) return FSVC_OK;
    size_t l = strcspn(s, ",");
    const char *colon = NULL;
    for (const char *c = s; c < s + l; c++)
        if (*c == ':') colon = c;
    if (!colon || colon == s || colon == s + l - 1)
        return fsvc_fail(err, FSVC_EUSAGE, "class-weight: '%.*s' is not LABEL:WEIGHT (or use "
                         "none or balanced)", (int)l, s);
    size_t ll = (size_t)(colon - s), wl = l - ll - 1;
    char num[64];
    if (ll >= cap || wl >= sizeof num)
        return fsvc_fail(err, FSVC_EUSAGE, "class-weight: '%.*s' is too long", (int)l, s);
    memcpy(label, s, ll);
    label[ll] = 0;
    memcpy(num, colon + 1, wl);
    num[wl] = 0;
    char what[FSVC_CLASS_WEIGHT_MAX + 32];
    snprintf(what, sizeof what, "class-weight: the weight of class '%s'", label);
    int rc = positive(w, what, num, err);
    if (rc) return rc;
    *pos = s + l + (s[l] == ',');
    if (s[l] == ',' && !s[l + 1])
        return fsvc_fail(err, FSVC_EUSAGE, "class-weight: '%s' ends with ','", s);
    *got = 1;
    return FSVC_OK;
}

static int set_class_weight(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    (void)name;
    if (strlen(s) >= sizeof p->class_weight)
        return fsvc_fail(err, FSVC_EUSAGE, "class-weight: the list is too long (at most %d "
                         "characters)", (int)sizeof p->class_weight - 1);
    if (strcmp(s, "none") && strcmp(s, "balanced")) {
        const char *pos = s;
        char label[FSVC_CLASS_WEIGHT_MAX];
        double w;
        int got = 1, rc;
        while (got)
            if ((rc = fsvc_class_weight_next(&pos, label, sizeof label, &w, &got, err)))
                return rc;
    }
    snprintf(p->class_weight, sizeof p->class_weight, "%s", strcmp(s, "none") ? s : "");
    return FSVC_OK;
}
static void get_class_weight(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", p->class_weight[0] ? p->class_weight : "none"); }

/* shuffle: on|off; a number is the older form "--shuffle SEED", kept as
 * on + seed SEED. */
static int set_shuffle(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    long long v;
    if (!strcmp(s, "off")) { p->shuffle = 0; return FSVC_OK; }
    if (!strcmp(s, "on")) { p->shuffle = 1; return FSVC_OK; }
    int rc = integer(&v, name, s, 0, 0x7fffffffffffffffLL, err);
    if (rc) return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' is not on, off or a seed (0..2^63-1)",
                             name, s);
    p->shuffle = 1;
    p->seed = (uint64_t)v;
    return FSVC_OK;
}
static void get_shuffle(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", p->shuffle ? "on" : "off"); }

static int set_seed(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    long long v;
    if (integer(&v, name, s, 0, 0x7fffffffffffffffLL, err))
        return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' is not a seed (0..2^63-1)", name, s);
    p->seed = (uint64_t)v;
    return FSVC_OK;
}
static void get_seed(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%llu", (unsigned long long)p->seed); }

/* shape: ROWSxCOLS (each 1..65536) or none */
static int set_shape(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    if (!strcmp(s, "none")) { p->rows = p->cols = 0; return FSVC_OK; }
    char *x;
    errno = 0;
    long r = strtol(s, &x, 10), c = 0;
    int ok = !errno && x != s && (*x == 'x' || *x == 'X') && r >= 1 && r <= 65536 &&
             s[0] >= '0' && s[0] <= '9';
    if (ok) {
        const char *cs = x + 1;
        c = strtol(cs, &x, 10);
        ok = !errno && x != cs && !*x && cs[0] >= '0' && cs[0] <= '9' && c >= 1 && c <= 65536;
    }
    if (!ok)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' is not ROWSxCOLS (each 1..65536, e.g. "
                         "28x28) or none", name, s);
    p->rows = (int)r;
    p->cols = (int)c;
    return FSVC_OK;
}
static void get_shape(char *b, size_t n, const fsvc_param *p)
{
    if (p->rows > 0 && p->cols > 0) snprintf(b, n, "%dx%d", p->rows, p->cols);
    else snprintf(b, n, "none");
}

static int set_scale_features(fsvc_param *p, const char *name, const char *s,
                              fsvc_error *err)
{
    if (!strcmp(s, "none")) p->scale_features = 0;
    else if (!strcmp(s, "range")) p->scale_features = 1;
    else return bad(name, s, "none|range", err);
    return FSVC_OK;
}
static void get_scale_features(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", p->scale_features ? "range" : "none"); }

static const char *const pcg_h_names[] = {"auto", "f32", "bf16", "f16"};
static int set_pcg_h(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, pcg_h_names[i])) {
            p->pcg_h = i;
            return FSVC_OK;
        }
    return bad(name, s, "auto|f32|bf16|f16", err);
}
static void get_pcg_h(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", pcg_h_names[p->pcg_h >= 0 && p->pcg_h < 4 ? p->pcg_h : 0]); }

static int set_backend(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    bnl_backend v;
    if (bnl_backend_parse(s, &v)) return bad(name, s, "ref|cpu|cuda", err);
    p->backend = bnl_backend_name(v);    /* a static string: no lifetime tie to s */
    return FSVC_OK;
}
static void get_backend(char *b, size_t n, const fsvc_param *p)
{ snprintf(b, n, "%s", p->backend ? p->backend : "cpu"); }

ENUM(precision, precision, int, bnl_precision_names)

/* ---- the table ---- */

#define S(name, opt, arg, choices, result, fn, help) \
    {{name, opt, arg, choices, help, result}, set_##fn, get_##fn}
static const setting table[] = {
    S("radius", 'r', "R|Xrms|auto", NULL, 1, radius,
      "radius; X times the rms distance between training samples; or auto\n"
      "(or search): the author's search (prag 1, halve r from a large value\n"
      "until the centroids are 1-10% of N, then refine)"),
    S("prag", 'p', "PRAG", NULL, 1, prag,
      "novelty threshold: a sample becomes a centroid when its activation\n"
      "sum < PRAG"),
    S("dist", 'd', "l1|l2", NULL, 1, dist, "distance"),
    S("kernel", 'k', "tri|gauss", NULL, 1, kernel, "kernel"),
    S("select", 's', NULL, fsvc_select_names, 1, select,
      "centroid selection: the novelty pass (global, per-class), the first\n"
      "--max-neurons of a seeded shuffle (random), k-means++ seeding of\n"
      "--max-neurons samples (kmeans++: D^2 sampling in the model's distance,\n"
      "batched: each round draws up to k/8 for k chosen so far, then updates\n"
      "the distances through the engine), or auto: random for the ridge\n"
      "readout with a radius, else global"),
    S("readout", 'R', NULL, fsvc_readout_names, 1, readout, "readout"),
    S("lambda", 'l', "LAMBDA", NULL, 1, lambda,
      "ridge regularisation, times the mean of diag(H^T H)"),
    S("solver", 0, NULL, fsvc_solver_names, 1, solver,
      "ridge solve: direct (H^T H, Cholesky), pcg (preconditioned conjugate\n"
      "gradient over sample blocks, memory m^2 instead of 2 m^2, time N m per\n"
      "iteration), auto: pcg from 3000 centroids (says which)"),
    S("augment", 0, NULL, fsvc_augment_names, 1, augment,
      "virtual samples for the ridge readout, made per block, not stored:\n"
      "1-pixel shifts (N x 5), shifts up to 2 pixels (N x 13), the mirror (N x 2),\n"
      "mirror+shift1 (N x 10); images only, solved by pcg"),
    S("cg-tol", 0, "TOL", NULL, 1, cg_tol,
      "pcg: relative residual to reach; not reached: a warning up to 100 x TOL\n"
      "(or 1e-2, the larger), beyond it an error (exit 2)"),
    S("pcg-h", 0, "auto|f32|bf16|f16", NULL, 1, pcg_h,
      "pcg: the H kept in memory for the products (f32 inputs): bf16 or f16\n"
      "halve its memory and the bytes each iteration reads, the solve exact for\n"
      "H so rounded; the rounding acts as a larger ridge, for bf16 about\n"
      "2.5e-6 / lambda times it (Fashion-MNIST, -l 1e-6: 0.4 points less), for\n"
      "f16 64x less (activations within [-1, 1] only: tri, gauss, tanh); auto:\n"
      "f16 from -l 1e-6 up where it applies, else f32 (says which it keeps)"),
    S("eta", 'e', "ETA", NULL, 1, eta, "lms learning rate"),
    S("epochs", 'E', "EPOCHS", NULL, 1, epochs, "lms epochs"),
    S("scale", 0, NULL, fsvc_scale_names, 1, scale, "scaling of u8 input"),
    S("scale-features", 0, "none|range", NULL, 1, scale_features,
      "range: map each feature to [-1, 1] by its min and max on the training\n"
      "set (as svm-scale), stored in the model and applied at predict"),
    S("dtype", 0, "u8|f32|f64|auto", NULL, 1, dtype,
      "centroid type (auto: u8 for unscaled u8 data, else f32)"),
    S("preprocess", 0, NULL, fsvc_preprocess_names, 1, preprocess,
      "input preprocessing (auto: sqrt-u8 for u8 images, deskew+sqrt-u8 when\n"
      "they are slanted; sqrt-u8 is round(sqrt(255 v)), kept in u8; the float\n"
      "sqrt forms with --precision tf32|bf16)"),
    S("features", 0, NULL, fsvc_features_names, 1, features,
      "pixels, or hog: the pixels and their gradient orientation histograms (4x4\n"
      "cells, 8 bins; gray images; 392 more values for 28x28: Fashion-MNIST +2.4\n"
      "points); auto: hog for u8 gray images of 8x8 or more (not with --augment,\n"
      "--scale-features or -r R, a distance between pixels), else pixels"),
    S("shape", 0, "ROWSxCOLS|none", NULL, 1, shape,
      "image shape of data that has none (LIBSVM text of images): such data\n"
      "then gets the preprocessing of IDX images (auto, deskew)"),
    S("regression", 0, NULL, NULL, 1, regression,
      "ridge regression on the label values (on|off; the option alone: on);\n"
      "its defaults: -r 1rms, -l 0.1 (unless -r or -l are given)"),
    S("probability", 'b', "0|1", NULL, 1, probability,
      "1: fit class probabilities (svm-train -b 1): a temperature a on 5-fold\n"
      "held-out scores, stored in the model; fsvc predict -b 1 then gives\n"
      "softmax(a x scores) (classification; training takes 3-4 x as long)"),
    S("class-weight", 0, "none|balanced|LABEL:W,...", NULL, 1, class_weight,
      "ridge classification: weight of each class's samples in the fit (as\n"
      "svm-train -w); balanced: N / (K x N_k); or a list of LABEL:WEIGHT, other\n"
      "classes 1 (-w LABEL WEIGHT adds one, repeatable)"),
    S("shuffle", 0, "on|off|SEED", NULL, 1, shuffle,
      "seeded shuffle of the pass order (off: file order; a number: on with that\n"
      "--seed, the older form)"),
    S("seed", 0, "SEED", NULL, 1, seed,
      "the seed of every random choice: the shuffled pass order, -s random,\n"
      "-s kmeans++, the folds of -v"),
    S("max-neurons", 0, "M", NULL, 1, max_neurons,
      "cap on the centroids; -s random and -s kmeans++ take M (0: no cap;\n"
      "for random and kmeans++ min(N, max(25 sqrt(N), N/2), 7 sqrt(N n), 10000)\n"
      "of N dense samples of n features (no 7 sqrt(N n) with --regression),\n"
      "min(N, 10000) of sparse ones)"),
    S("backend", 0, NULL, bnl_backend_names, 0, backend,
      "engine backend; cuda without a usable device prints one line and runs\n"
      "on the CPU"),
    S("precision", 0, NULL, bnl_precision_names, 1, precision,
      "GEMM operands of the f32 L2 layer: full f32, or rounded to tf32 (10-bit\n"
      "mantissa) or bf16 (7-bit) as the GPU's tensor cores take them (round to\n"
      "nearest even, f32 sums, norms in full f32); the cpu backend emulates it\n"
      "exactly, or runs bf16 on AVX-512 BF16 (the same products, f32 sums in\n"
      "another order). Stored in the model, used by predict and eval. L1 and u8\n"
      "layers are exact and ignore it"),
    S("threads", 0, "T", NULL, 0, threads, "CPU threads (0: all cores)"),
};
#undef S
#define NSET ((int)(sizeof table / sizeof *table))

const fsvc_setting_info *fsvc_setting(int i)
{
    return i >= 0 && i < NSET ? &table[i].info : NULL;
}

const char *fsvc_setting_name(int i)
{
    return i >= 0 && i < NSET ? table[i].info.name : NULL;
}

static const setting *find(const char *name)
{
    for (int i = 0; i < NSET; i++)
        if (!strcmp(table[i].info.name, name)) return &table[i];
    return NULL;
}

int fsvc_param_set(fsvc_param *p, const char *name, const char *value, fsvc_error *err)
{
    const setting *s = find(name);
    if (!s) {
        char names[512];
        size_t o = 0;
        for (int i = 0; i < NSET && o < sizeof names; i++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "",
                                  table[i].info.name);
        return fsvc_fail(err, FSVC_EUSAGE, "'%s' is not a setting (%s)", name, names);
    }
    if (!value || !*value)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: empty value", name);
    fsvc_param q = *p; /* nothing half-applied on error */
    int rc = s->set(&q, name, value, err);
    if (!rc && !strcmp(s->info.name, "radius")) q.given |= FSVC_GIVEN_RADIUS;
    if (!rc && !strcmp(s->info.name, "lambda")) q.given |= FSVC_GIVEN_LAMBDA;
    if (!rc) *p = q;
    return rc;
}

int fsvc_param_get(const fsvc_param *p, const char *name, char *out, size_t len)
{
    const setting *s = find(name);
    char v[FSVC_CLASS_WEIGHT_MAX + 64];
    if (!s) return -1;
    s->get(v, sizeof v, p);
    return (size_t)snprintf(out, len, "%s", v) < len ? 0 : -1;
}

int fsvc_param_parse(fsvc_param *p, const char *spec, fsvc_error *err)
{
    fsvc_param q = *p;
    for (const char *s = spec; *s;) {
        size_t l = strcspn(s, ";");
        if (l) {
            char item[256];
            if (l >= sizeof item)
                return fsvc_fail(err, FSVC_EUSAGE, "setting '%.40s...' is too long", s);
            memcpy(item, s, l);
            item[l] = 0;
            char *eq = strchr(item, '=');
            if (!eq || eq == item)
                return fsvc_fail(err, FSVC_EUSAGE, "'%s': expected NAME=VALUE", item);
            *eq = 0;
            int rc = fsvc_param_set(&q, item, eq + 1, err);
            if (rc) return rc;
        }
        s += l;
        if (*s == ';') s++;
    }
    *p = q;
    return FSVC_OK;
}

int fsvc_param_check(const fsvc_param *p, fsvc_error *err)
{
    char v[FSVC_CLASS_WEIGHT_MAX + 64];
    fsvc_param q;
    /* every setting must print to a text its own parser takes back */
    for (int i = 0; i < NSET; i++) {
        q = *p;
        table[i].get(v, sizeof v, p);
        if (table[i].set(&q, table[i].info.name, v, err)) return FSVC_EUSAGE;
    }
    if (p->regression && p->readout != FSVC_READOUT_RIDGE)
        return fsvc_fail(err, FSVC_EUSAGE, "regression needs the ridge readout (-R ridge)");
    if (p->class_weight[0] && p->readout != FSVC_READOUT_RIDGE)
        return fsvc_fail(err, FSVC_EUSAGE, "class weights need the ridge readout (-R ridge); "
                         "the %s readout cannot weight classes", fsvc_readout_name(p->readout));
    if (p->probability && p->regression)
        return fsvc_fail(err, FSVC_EUSAGE, "-b 1 (probability): a regression model has no "
                         "class probabilities");
    if (p->class_weight[0] && p->regression)
        return fsvc_fail(err, FSVC_EUSAGE, "class weights are for classification, not "
                         "regression");
    return FSVC_OK;
}

/* ---- settings strings "key=value;key=value" ---- */

int fsvc_settings_add(char *s, size_t cap, const char *key, const char *value)
{
    size_t u = strlen(s);
    int n = snprintf(s + u, cap - u, "%s%s=", u ? ";" : "", key);
    if (n < 0 || (size_t)n >= cap - u) { s[u] = 0; return FSVC_EUSAGE; }
    size_t w = u + (size_t)n;
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *v = (const unsigned char *)value; *v; v++) {
        int esc = *v == '%' || *v == ';' || *v == '=' || *v < 0x20 || *v == 0x7f;
        if (w + (esc ? 3 : 1) >= cap) { s[u] = 0; return FSVC_EUSAGE; }
        if (esc) {
            s[w++] = '%';
            s[w++] = hex[*v >> 4];
            s[w++] = hex[*v & 15];
        } else {
            s[w++] = (char)*v;
        }
    }
    s[w] = 0;
    return FSVC_OK;
}

const char *fsvc_settings_find(const char *s, const char *key, size_t *vlen)
{
    size_t kl = strlen(key);
    for (const char *t = s; *t;) {
        const char *end = strchr(t, ';');
        size_t tl = end ? (size_t)(end - t) : strlen(t);
        if (tl > kl && !strncmp(t, key, kl) && t[kl] == '=') {
            *vlen = tl - kl - 1;
            return t + kl + 1;
        }
        if (!end) break;
        t = end + 1;
    }
    return NULL;
}

int fsvc_param_canon(char *s, size_t cap, const fsvc_param *p)
{
    char v[FSVC_CLASS_WEIGHT_MAX + 64];
    for (int i = 0; i < NSET; i++) {
        table[i].get(v, sizeof v, p);
        if (fsvc_settings_add(s, cap, table[i].info.name, v)) return FSVC_EUSAGE;
    }
    return FSVC_OK;
}

int64_t fsvc_default_centroids(int64_t N, int n)
{
    /* the ridge costs about N m^2, an SVM about N^2: m growing as sqrt(N)
     * keeps small sets near an SVM's time (results/small_data.md); half
     * the samples from N = 2500 keeps medium sets' accuracy */
    double m = FSVC_CENTROIDS_SQRT * sqrt((double)N);
    if (m < N / 2.0) m = N / 2.0;
    /* few features: an SVM's kernel rows cost N n each and fewer centroids
     * cover the space; N m^2 stays within 49 x one N x N kernel matrix on
     * n features (N^2 n) */
    double few = FSVC_CENTROIDS_FEAT * sqrt((double)N * n);
    if (n > 0 && m > few) m = few;
    if (m > FSVC_CENTROIDS_MAX) m = FSVC_CENTROIDS_MAX;
    if (m < 1) m = 1;
    return (int64_t)m < N ? (int64_t)m : N;
}
