/*
 * fsvc.h - public interface of fsvc, fast RBF "vector support" classifiers.
 *
 * A small C11 API in the style of libsvm's svm.h: a few plain structs and
 * regular verbs. Every function that can fail returns an fsvc status code
 * (FSVC_OK = 0) and fills an fsvc_error with one line naming the file and the
 * problem; the library never exits and never prints except through the
 * replaceable print function.
 *
 * Layouts: every matrix is row-major. X: N x n samples, W/C: m x n centroids,
 * H: N x m activations (sample i, neuron j at H[i*ldh + j]).
 */
#ifndef FSVC_H
#define FSVC_H

#include <stddef.h>
#include <stdint.h>

#include "../base/fsvc_base.h"       /* status codes, errors, dtype, scale */
#include "../datasets/fsvc_data.h"   /* datasets: load, convert, write */

#ifdef __cplusplus
extern "C" {
#endif

#define FSVC_VERSION_MAJOR 0
#define FSVC_VERSION_MINOR 1
#define FSVC_VERSION_PATCH 0
#define FSVC_VERSION "0.1.0"

/* ==== model and training (fsvc/train.c, predict.c, model*.c) ====
 *
 * FSVC (R. Dogaru and I. Dogaru, 2016): a novelty pass (or a random draw)
 * picks training samples as RBF centroids, then a readout R (m x Kout)
 * maps activations to scores. The
 * distance and activation fields hold bnl_dist / bnl_act values
 * (layers/bnl.h): dist 0 = L1, 1 = L2; act 0 = triangular, 1 = Gaussian. */

typedef enum {
    FSVC_SELECT_GLOBAL = 0,    /* the novelty pass over all classes */
    FSVC_SELECT_PER_CLASS = 1, /* the novelty pass inside each class */
    FSVC_SELECT_RANDOM = 2,    /* the first max_neurons of a seeded shuffle */
    FSVC_SELECT_AUTO = 3,      /* parameter only: random for the ridge readout
                                  with a radius, else global (FSVC) */
    FSVC_SELECT_KMEANS = 4     /* k-means++ (batched D^2) seeding of
                                  max_neurons samples (fsvc/select_kmeans.c) */
} fsvc_select;
typedef enum {
    FSVC_READOUT_ONEHOT = 0, /* fixed one-hot W[j][k] = (lab_j == k) */
    FSVC_READOUT_LMS = 1,    /* online LMS from the one-hot start */
    FSVC_READOUT_RIDGE = 2   /* (H^T H + lambda I) W = H^T T */
} fsvc_readout;
/* How the ridge readout solves (H^T H + lambda I) W = H^T T (fsvc/solver.c):
 * direct (H^T H by syrk, Cholesky), pcg (conjugate gradient on products
 * H^T (H V) over sample blocks, preconditioned by the centroids' own
 * kernel matrix, FALKON-style), auto (pcg from FSVC_PCG_AUTO_M centroids
 * on the CPU: its cost grows as N m K per iteration, the direct one as
 * N m^2; on a cuda context, where both run on the device, direct while
 * its float64 m x m Gram fits the device memory, else pcg). */
typedef enum {
    FSVC_SOLVER_DIRECT = 0, FSVC_SOLVER_PCG = 1, FSVC_SOLVER_AUTO = 2
} fsvc_solver;
#define FSVC_PCG_AUTO_M 3000
/* Virtual samples for the ridge readout (pcg): fsvc_augment, in
 * base/fsvc_base.h (the engine's block products make them). */
/* Input preprocessing stored in the model and applied before scaling.
 * To add a step: a value here, its name in fsvc_preprocess_names
 * (fsvc/model.c) and its call in fsvc_model_input (fsvc/model_input.c).
 * Bit flags: deskew (moment-based shear of each rows x cols image, before
 * scaling, fsvc/deskew.h), sqrt (v -> sqrt(max(v, 0)) after scaling; a
 * float dtype), sqrt-u8 (u8 v -> round(sqrt(255 v)), after deskew: the
 * same curve kept in u8, so that the exact integer kernels apply; u8
 * input only). auto is a training parameter only: sqrt-u8 for u8 images,
 * with deskew when the median |skew| of the images exceeds 0.1
 * (handwriting); none for other data. */
typedef enum {
    FSVC_PRE_NONE = 0, FSVC_PRE_DESKEW = 1, FSVC_PRE_SQRT = 2,
    FSVC_PRE_DESKEW_SQRT = 3, FSVC_PRE_AUTO = 4, FSVC_PRE_SQRT_U8 = 8,
    FSVC_PRE_DESKEW_SQRT_U8 = 9
} fsvc_preprocess;
/* 1 for the values a model may store (not auto, no unknown bits). */
int fsvc_preprocess_stored(int p);
/* What the layer sees of an input: its values (pixels), or for images its
 * values followed by their HOG (fsvc/hog.h; dense gray images only, after
 * the preprocessing, each HOG value times the model's hog_scale). auto is
 * a training parameter only (the default): hog for dense u8 gray images
 * of 8 x 8 or more, unless --augment, --scale-features or an absolute
 * radius (-r R, a distance between pixels: Xrms and the search adapt);
 * pixels otherwise (10000 centroids: MNIST 98.88 -> 99.20 %, Fashion-MNIST
 * 90.01 -> 92.45 % held-out, about the same training time). */
typedef enum { FSVC_FEAT_PIXELS = 0, FSVC_FEAT_HOG = 1, FSVC_FEAT_AUTO = 2 } fsvc_features;

/* One name table per enum (fsvc/model.c); _name and _parse read it. */
extern const fsvc_name fsvc_select_names[];
extern const fsvc_name fsvc_readout_names[];
extern const fsvc_name fsvc_preprocess_names[];
extern const fsvc_name fsvc_solver_names[];
extern const fsvc_name fsvc_augment_names[];
extern const fsvc_name fsvc_features_names[];
const char *fsvc_augment_name(fsvc_augment a);
int fsvc_augment_parse(const char *s, fsvc_augment *out);     /* 0 ok, -1 */
const char *fsvc_solver_name(fsvc_solver s);
int fsvc_solver_parse(const char *s, fsvc_solver *out);       /* 0 ok, -1 */
const char *fsvc_select_name(fsvc_select s);
int fsvc_select_parse(const char *s, fsvc_select *out);       /* 0 ok, -1 */
const char *fsvc_readout_name(fsvc_readout r);
int fsvc_readout_parse(const char *s, fsvc_readout *out);     /* 0 ok, -1 */
const char *fsvc_preprocess_name(fsvc_preprocess p);
int fsvc_preprocess_parse(const char *s, fsvc_preprocess *out);

#define FSVC_CLASS_WEIGHT_MAX 256
typedef struct fsvc_param {
    int dist;              /* bnl_dist: 0 L1, 1 L2 (default) */
    int act;               /* bnl_act: 0 triangular, 1 Gaussian (default) */
    double radius;         /* r > 0; <= 0 (default): radius_rms or, when that
                              is <= 0 too, the radius search */
    double radius_rms;     /* > 0 (and radius <= 0): r = radius_rms times the
                              rms distance between training samples
                              (default 0.45) */
    double prag;           /* novelty threshold, accept when sum < prag */
    fsvc_select select;
    fsvc_readout readout;
    double lambda;         /* ridge: lambda times the mean of diag(H^T H) */
    fsvc_solver solver;    /* ridge: direct, pcg or auto */
    double cg_tol;         /* pcg: stop at this relative residual
                              ||H^T T - A W|| / ||H^T T|| (every column) */
    fsvc_augment augment;  /* ridge (pcg): virtual samples, images only */
    double eta;            /* lms learning rate */
    int epochs;            /* lms epochs */
    fsvc_scale scale;      /* applied to u8 input */
    int dtype;             /* fsvc_dtype of the centroids, -1: u8 for u8 data
                              with no scaling, else f32 */
    fsvc_preprocess preprocess;
    fsvc_features features; /* auto (default), pixels or hog: the HOG of
                              each image appended (needs an image shape) */
    int rows, cols;        /* image shape for data that has none (LIBSVM text
                              of images), 0 x 0: none; rows x cols must be n */
    int scale_features;    /* 1 (range): learn each feature's min and max on
                              the training set and map it to [-1, 1] as
                              svm-scale does, stored in the model and
                              applied at predict; 0 (none): as given */
    int regression;        /* ridge on the label values as real targets */
    char class_weight[FSVC_CLASS_WEIGHT_MAX]; /* ridge classification: "" or
                              "none" (every class 1), "balanced" (class k:
                              N / (K N_k), as scikit-learn), or
                              "LABEL:W,LABEL:W..." (the classes named, by
                              label value or PNG class name; others 1): the
                              ridge minimises sum_i w_{y_i} ||h_i W - t_i||^2
                              + lambda ||W||^2 */
    int shuffle;           /* 1: seeded shuffle of the pass order */
    uint64_t seed;
    int64_t max_neurons;   /* 0 (default): no cap, except select random
                              and kmeans++ take fsvc_default_centroids(N, n)
                              on dense data (10000 from 20000 samples),
                              10000 on sparse data; > 0: the cap, or
                              the number select random or kmeans++ takes */
    const char *backend;   /* "ref", "cpu" (default), "cuda" */
    int precision;         /* bnl_precision of the f32 L2 layer's GEMM
                              operands: 0 full (default), 1 tf32, 2 bf16;
                              stored in the model, used at predict */
    int threads;           /* <= 0: all cores */
    int pcg_h;             /* pcg's cached H: 0 auto (f16 or f32:
                              fsvc_pcg_h_pick), 1 f32, 2 bf16, 3 f16
                              (fsvc/params.c "pcg-h") */
    int probability;       /* 1: fit the class-probability calibration
                              (fsvc/calibrate.h, `fsvc train -b 1`) */
    int progress;          /* through fsvc_printf: 0 nothing; FSVC_PROGRESS_ALL
                              progress lines (ETA) and messages (radius,
                              radius search steps, preprocess auto, ridge
                              retries); FSVC_PROGRESS_STEPS the messages only */
    unsigned given;        /* FSVC_GIVEN_* bits: settings set through
                              fsvc_param_set, kept when regression changes
                              the defaults of the others */
    const struct bnl_backend_ops *device; /* the device backend "cuda" opens
                              (layers/bnl_backend_ops.h); NULL (default): the
                              built-in CUDA one. Tests: an emulated device */
} fsvc_param;
#define FSVC_GIVEN_RADIUS 1u
#define FSVC_GIVEN_LAMBDA 2u

#define FSVC_PROGRESS_ALL 1
#define FSVC_PROGRESS_STEPS 2

/* The defaults of `fsvc train` with no options (fsvc/model.c): L2
 * Gaussian, r = 0.45 x rms distance, select auto (random
 * fsvc_default_centroids(N, n), 10000 from 20000 samples, with the
 * ridge readout), ridge readout, preprocess auto, dtype from the data, the
 * cpu backend on all cores. */
void fsvc_param_default(fsvc_param *p);
/* The centroids -s random and -s kmeans++ take on dense data when
 * max_neurons is 0 (the default) for N training samples of n features
 * (fsvc/params.c): min(N, FSVC_CENTROIDS_MAX, max(FSVC_CENTROIDS_SQRT
 * sqrt(N), N / 2), FSVC_CENTROIDS_FEAT sqrt(N n)): every sample up to 625,
 * 25 sqrt(N) up to 2500, N / 2 up to 20000, then 10000, but at most
 * 7 sqrt(N n), which only few features reach (n <= 12 below 2500 samples;
 * phoneme's 2161 x 5: 727); n 0 leaves that cap out (regression, whose
 * fit of a smooth target lost R^2 with it: README's wave 0.980 -> 0.969).
 * Chosen by scripts/small_data.py (results/small_data.md). Sparse data takes min(N, 10000): its rows are
 * nearly orthogonal, and fewer centroids cost accuracy there (91.6 % ->
 * 83.2 % on README's text set). */
#define FSVC_CENTROIDS_SQRT 25
#define FSVC_CENTROIDS_FEAT 7
#define FSVC_CENTROIDS_MAX 10000
int64_t fsvc_default_centroids(int64_t N, int n);

/* ---- the settings model (fsvc/params.c) ----
 * Every training setting by name, the one parser and printer of each:
 * `fsvc train` options and --help, `fsvc study --vary NAME=...`, the
 * Python estimators' parameters and study resume keys all go through it.
 * Names: radius (R > 0, "Xrms": X times the rms distance between training
 * samples, "auto"/"search": the author's radius search), prag, dist
 * (l1|l2), kernel (tri|gauss), select, readout, lambda, eta, epochs,
 * scale, dtype (u8|f32|f64|auto), preprocess, shape (ROWSxCOLS|none),
 * scale-features (none|range), regression (on|off), class-weight
 * (none|balanced|LABEL:W,...),
 * shuffle (on|off; a number: on + that seed), seed, max-neurons, solver
 * (direct|pcg|auto), cg-tol, augment (none|shift1|shift2|mirror|
 * mirror+shift1), backend, threads. */
typedef struct fsvc_setting_info {
    const char *name;          /* the key; `fsvc train --NAME` */
    char opt;                  /* `fsvc train -X`, 0: none */
    const char *arg;           /* value syntax for help, NULL: choices or on|off */
    const fsvc_name *choices;  /* the enum's name table, or NULL */
    const char *help;          /* help text, lines split by '\n' */
    int result;                /* 1: shapes the model; 0: how it runs (backend, threads) */
} fsvc_setting_info;
/* Setting i = 0.. (NULL past the last), in the table's order. */
const fsvc_setting_info *fsvc_setting(int i);
const char *fsvc_setting_name(int i);
/* Applies one setting from text; FSVC_EUSAGE naming the setting and the
 * accepted values, p unchanged, on a bad name or value. */
int fsvc_param_set(fsvc_param *p, const char *name, const char *value, fsvc_error *err);
/* Applies "name=value;name=value..." in order (all or nothing). */
int fsvc_param_parse(fsvc_param *p, const char *spec, fsvc_error *err);
/* The canonical text of one setting of p, which fsvc_param_set reads back
 * to the same value ("auto", "0.45rms", "off", shortest exact numbers).
 * Returns 0, or -1 for an unknown name or a short buffer. */
int fsvc_param_get(const fsvc_param *p, const char *name, char *out, size_t len);
/* FSVC_OK when every field of p holds a value its setting accepts and the
 * settings agree (regression needs ridge); else FSVC_EUSAGE naming it. */
int fsvc_param_check(const fsvc_param *p, fsvc_error *err);
/* Settings strings "key=value;key=value": appends key=value to the
 * NUL-terminated s (capacity cap), the value's '%', ';', '=' and control
 * characters written as %XX, so that any text (a file name) keeps the
 * string splittable. FSVC_EUSAGE (s unchanged) when it does not fit. */
int fsvc_settings_add(char *s, size_t cap, const char *key, const char *value);
/* Every setting of p, in the table's order, appended to s. */
int fsvc_param_canon(char *s, size_t cap, const fsvc_param *p);
/* The (escaped) value of key in the settings string s and its length, or
 * NULL when s has no such key. */
const char *fsvc_settings_find(const char *s, const char *key, size_t *vlen);

typedef struct fsvc_model {
    fsvc_dtype dtype;      /* centroids and prepared input */
    int n;                 /* features */
    int rows, cols;        /* image geometry or 0 */
    fsvc_scale scale;
    fsvc_preprocess preprocess;
    fsvc_features features; /* hog: the layer's input is the n values and
                              the HOG of the rows x cols image, so its
                              centroids have fsvc_model_width values */
    double hog_scale;      /* hog: the factor of the HOG values (learned at
                              training: the pixels' mean squared norm over
                              the HOG's; u8 models round and clip to 255) */
    int dist, act;         /* bnl_dist, bnl_act */
    double radius, prag;
    fsvc_select select;
    fsvc_readout readout;
    int regression;        /* 1: Kout = 1, score = regression output */
    int K;                 /* classes (0 for regression) */
    double *class_values;  /* K label values, strictly ascending */
    char **class_names;    /* K class names (PNG class folders) or NULL:
                              predictions print them, truth matches by them */
    int64_t m;             /* centroids */
    void *C;               /* C: m x fsvc_model_width, dtype; NULL for a
                              sparse model */
    fsvc_csr *Cs;          /* sparse model (trained on sparse data): the m
                              centroids as CSR (dtype f32), else NULL */
    int *lab;              /* lab: m class indices (0 for regression) */
    int Kout;              /* readout columns: K, or 1 for regression */
    double *R;             /* R: m x Kout */
    double y_offset;       /* regression: added to the score */
    int precision;         /* bnl_precision of the layer (0 full); the
                              forward pass of predict and eval uses it */
    double *feat_min;      /* feature scaling (svm-scale -l -1 -u 1): n minima */
    double *feat_max;      /* and n maxima of the training set, or both NULL;
                              v -> -1 + 2 (v - min) / (max - min), 0 where
                              max = min; applied to the raw values first */
    int img_rows, img_cols; /* images (PNG / JPEG) the model reads: their
                              size (rows x cols), or 0 x 0: none recorded
                              (rows x cols above, when set, is the size) */
    int img_channels;      /* 3: RGB, 3 values a pixel (n = rows x cols x 3);
                              0 or 1: gray */
    int img_resize;        /* 1: images of another size are resized to
                              img_rows x img_cols when read for the model */
    double proba_a;        /* > 0: probabilities softmax(proba_a x scores),
                              fitted on held-out scores (fsvc/calibrate.h);
                              0: none, the softmax of the scores */
} fsvc_model;

/* fsvc_train_info.solver_rule */
enum { FSVC_AUTO_NONE = 0, FSVC_AUTO_BY_M, FSVC_AUTO_AUGMENT, FSVC_AUTO_DEVICE_MEM };

typedef struct fsvc_train_info {
    double radius;         /* radius used (after any search) */
    int64_t m;             /* centroids */
    double t_select;       /* seconds: novelty pass (incl. radius search) */
    double t_readout;      /* seconds: readout */
    double syn_select;     /* synaptic operations n*m*N done by the pass */
    double syn_readout;    /* ... by the readout */
    double t_ridge[3];     /* ridge seconds: H, H^T H and H^T T, solve
                              (pcg: H, the block products, the
                              preconditioner: K_mm, its factor, its solves) */
    fsvc_solver solver;    /* ridge: the solver that ran (direct or pcg) */
    int solver_rule;       /* ridge with --solver auto: what decided it
                              (FSVC_AUTO_BY_M, _AUGMENT, _DEVICE_MEM);
                              FSVC_AUTO_NONE when the solver was given */
    int cg_iter;           /* pcg: iterations done */
    double cg_res;         /* pcg: achieved relative residual (the largest
                              over the columns, recomputed from W) */
    int cg_converged;      /* pcg: 1 when cg_res <= cg_tol */
} fsvc_train_info;

/* Trains on d (labels required). info may be NULL. Sparse d (d->csr,
 * fsvc/sparse.c) gives a sparse model (centroids kept as CSR, memory
 * growing with the nonzeros, not N x n): L1 or L2 distance, triangular or
 * Gaussian kernel, random, global or per-class selection (the novelty pass
 * on sparse rows selects as the dense one does), the onehot or ridge
 * readout (direct or pcg), the radius given, Xrms or searched; the LMS
 * readout, preprocessing, feature scaling, augmentation and several
 * processes are refused (FSVC_EUSAGE) naming --dense. */
int fsvc_train(fsvc_model *model, fsvc_train_info *info,
               const fsvc_dataset *d, const fsvc_param *p, fsvc_error *err);
/* pred: N class indices (argmax, first wins) or NULL; score: N x Kout or
 * NULL (regression: score = predicted value). A sparse model predicts
 * sparse or dense d (made sparse on the fly), a dense model sparse d
 * (made dense when it fits the load limit). On the CPU the dense
 * scores are computed FSVC_PREDICT_CHUNK samples at a time, from sample
 * 0 (a sample's score bits depend on its chunk: fsvc/batch.h keeps them). */
#define FSVC_PREDICT_CHUNK 8192
int fsvc_predict(int *pred, double *score, const fsvc_model *model,
                 const fsvc_dataset *d, const char *backend, int threads,
                 fsvc_error *err);
/* Binary, versioned, CRC32-checked; written through a temporary file
 * renamed into place. Save refuses a model that fsvc_model_check rejects.
 * Load reads the file whole and parses it with fsvc_model_parse. */
int fsvc_model_save(const fsvc_model *model, const char *path, fsvc_error *err);
int fsvc_model_load(fsvc_model *model, const char *path, fsvc_error *err);
/* Parses the bytes of a whole model file (len bytes at buf); name labels
 * the messages. Every size is checked in 64-bit arithmetic against the
 * limits below and against len before anything is allocated, then every
 * value with fsvc_model_check. On failure model is left empty (FSVC_EINPUT
 * for bad bytes, FSVC_ERESOURCE for no memory). */
int fsvc_model_parse(fsvc_model *model, const void *buf, size_t len,
                     const char *name, fsvc_error *err);
/* Checks a model's invariants: enums in range, 1 <= n <= FSVC_MODEL_MAX_N,
 * rows x cols = n (or both 0), m >= 1, K and Kout consistent, centroid
 * classes in [0, K), class values finite and strictly ascending, class
 * names (when present) non-empty, printable and distinct, feature scaling
 * (when present) finite with min <= max and no preprocessing, a radius the
 * kernel can use, finite centroids, readout, prag and y_offset.
 * FSVC_EINPUT naming `name` and the first problem found. */
int fsvc_model_check(const fsvc_model *model, const char *name, fsvc_error *err);
void fsvc_free_model(fsvc_model *model);
/* The values of a centroid and of a prepared input: n, plus the HOG's for
 * features hog. */
int64_t fsvc_model_width(const fsvc_model *model);

/* Limits of a model (and of its file). */
#define FSVC_MODEL_MAX_N (1 << 24)       /* features */
#define FSVC_MODEL_MAX_K 1000000         /* classes */
#define FSVC_MODEL_MAX_NAME 1024         /* bytes of one class name */

/* Class k as text: its name when the model has names, else its label value
 * (shortest %g form that reads back exactly). Returns buf (sz >= 32). */
const char *fsvc_model_class_text(const fsvc_model *model, int k, char *buf, size_t sz);

/* The input exactly as the model sees it: preprocessing, scaling, the
 * model dtype and the features applied to d->x. *out: N x
 * fsvc_model_width, model->dtype (free() it). */
int fsvc_model_input(void **out, const fsvc_model *model,
                     const fsvc_dataset *d, fsvc_error *err);

/* Metrics (fsvc/metrics.c). truth: N model class indices of d's labels,
 * -1 where the model has no such class; returns how many are -1. Classes
 * match by name when both the model and d have class names (PNG folders:
 * a model of {cat, dog} on {dog, fox}: dog -> dog, fox -> -1), else by
 * label value. */
int64_t fsvc_model_truth(int *truth, const fsvc_model *model, const fsvc_dataset *d);
/* conf: K x K counts, conf[true * K + predicted] (may be NULL); returns the
 * number of correct predictions. */
int64_t fsvc_confusion(int64_t *conf, const int *truth, const int *pred, int64_t N, int K);
/* mse: mean squared error; r2: the coefficient of determination
 * 1 - SS_res / SS_tot (0 for constant y). */
void fsvc_regression_stats(double *mse, double *r2, const double *y, const double *yhat,
                           int64_t N);
/* The squared (Pearson) correlation coefficient of y and yhat, what
 * svm-predict prints as "Squared correlation coefficient" (0 when either
 * is constant). Unlike R^2 it ignores an offset or scale error. */
double fsvc_squared_correlation(const double *y, const double *yhat, int64_t N);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_H */
