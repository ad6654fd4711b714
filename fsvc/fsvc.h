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

#ifdef __cplusplus
extern "C" {
#endif

#define FSVC_VERSION_MAJOR 0
#define FSVC_VERSION_MINOR 1
#define FSVC_VERSION_PATCH 0
#define FSVC_VERSION "0.1.0"

/* ---- status codes (also the exit codes of the fsvc tool) ---- */
enum {
    FSVC_OK = 0,
    FSVC_EUSAGE = 1,    /* bad options or arguments */
    FSVC_EINPUT = 2,    /* bad input data or file */
    FSVC_ERESOURCE = 3  /* out of memory, I/O failure, no device */
};

typedef struct fsvc_error {
    int code;           /* one of the FSVC_E* codes, FSVC_OK when clear */
    char msg[1024];     /* one line, no trailing newline */
} fsvc_error;

/* Sets err (if not NULL) from a printf-style message and returns code. */
int fsvc_fail(fsvc_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void fsvc_error_clear(fsvc_error *err);

/* Replaceable print function for progress and information (default:
 * stderr). NULL restores the default. */
void fsvc_set_print(void (*print)(const char *line));
void fsvc_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ---- element types ---- */
typedef enum { FSVC_U8 = 0, FSVC_F32 = 1, FSVC_F64 = 2 } fsvc_dtype;
size_t fsvc_dtype_size(fsvc_dtype t);
const char *fsvc_dtype_name(fsvc_dtype t);
int fsvc_dtype_parse(const char *s, fsvc_dtype *out); /* 0 ok, -1 unknown */

/* ---- input scaling, part of the model ---- */
typedef enum {
    FSVC_SCALE_NONE = 0, /* values as read */
    FSVC_SCALE_01 = 1,   /* u8 pixels v -> v / 255 */
    FSVC_SCALE_PM1 = 2   /* u8 pixels v -> v / 127.5 - 1 */
} fsvc_scale;
const char *fsvc_scale_name(fsvc_scale s);
int fsvc_scale_parse(const char *s, fsvc_scale *out); /* 0 ok, -1 unknown */

/* ---- datasets ---- */
typedef struct fsvc_dataset {
    int64_t N;            /* number of samples */
    int n;                /* features per sample */
    fsvc_dtype dtype;     /* element type of x */
    void *x;              /* X: N x n, row-major, element type dtype */
    int has_labels;       /* 0 for unlabelled sets (an inference folder) */
    double *y;            /* y: N label values as read (NULL if no labels) */
    int *cls;             /* cls: N class indices into class_values */
    int K;                /* number of distinct labels */
    double *class_values; /* K distinct label values, ascending */
    char **class_names;   /* K names (PNG class folders) or NULL */
    char **paths;         /* N source paths (PNG images) or NULL */
    int rows, cols;       /* image geometry when known, else 0 */
    fsvc_scale scale;     /* scaling already applied to x */
    char source[512];     /* what it was loaded from */
} fsvc_dataset;

typedef struct fsvc_load_opts {
    int resize;           /* PNG: resize images to the first one's size */
    int allow_unlabelled; /* PNG folder without class sub-folders */
    int n_features;       /* LIBSVM: force n (0 = largest index seen) */
} fsvc_load_opts;

/* Loads any supported source, detected from what it is:
 *   - an IDX prefix (DIR/train -> DIR/train-images-idx3-ubyte[.gz] and
 *     DIR/train-labels-idx1-ubyte[.gz]) or an IDX images file;
 *   - a LIBSVM text file;
 *   - a folder of PNG images (one sub-folder per class, or any folder
 *     for inference when opts->allow_unlabelled).
 * opts may be NULL. On failure d is left empty (safe to free). */
int fsvc_dataset_load(fsvc_dataset *d, const char *source,
                      const fsvc_load_opts *opts, fsvc_error *err);
void fsvc_dataset_free(fsvc_dataset *d);

/* Recomputes cls, K and class_values from y. */
int fsvc_dataset_index_classes(fsvc_dataset *d, fsvc_error *err);

/* Converts x to dtype `to`, applying scale (scaling u8 to floats only). */
int fsvc_dataset_convert(fsvc_dataset *d, fsvc_dtype to, fsvc_scale scale,
                         fsvc_error *err);


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
    FSVC_SELECT_AUTO = 3       /* parameter only: random for the ridge readout
                                  with a radius, else global (FSVC) */
} fsvc_select;
typedef enum {
    FSVC_READOUT_ONEHOT = 0, /* fixed one-hot W[j][k] = (lab_j == k) */
    FSVC_READOUT_LMS = 1,    /* online LMS from the one-hot start */
    FSVC_READOUT_RIDGE = 2   /* (H^T H + lambda I) W = H^T T */
} fsvc_readout;
/* Input preprocessing stored in the model and applied before scaling.
 * To add a step: a value here, its name in fsvc_preprocess_name/parse
 * (fsvc/model.c) and its call in fsvc_model_input (fsvc/model_input.c).
 * Bit flags: deskew (moment-based shear of each rows x cols image, before
 * scaling, fsvc/deskew.h), sqrt (v -> sqrt(max(v, 0)) after scaling; a
 * float dtype). auto is a training parameter only: sqrt for u8 images,
 * with deskew when the median |skew| of the images exceeds 0.1
 * (handwriting); none for other data. */
typedef enum {
    FSVC_PRE_NONE = 0, FSVC_PRE_DESKEW = 1, FSVC_PRE_SQRT = 2,
    FSVC_PRE_DESKEW_SQRT = 3, FSVC_PRE_AUTO = 4
} fsvc_preprocess;

const char *fsvc_select_name(fsvc_select s);
int fsvc_select_parse(const char *s, fsvc_select *out);       /* 0 ok, -1 */
const char *fsvc_readout_name(fsvc_readout r);
int fsvc_readout_parse(const char *s, fsvc_readout *out);     /* 0 ok, -1 */
const char *fsvc_preprocess_name(fsvc_preprocess p);
int fsvc_preprocess_parse(const char *s, fsvc_preprocess *out);

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
    double eta;            /* lms learning rate */
    int epochs;            /* lms epochs */
    fsvc_scale scale;      /* applied to u8 input */
    int dtype;             /* fsvc_dtype of the centroids, -1: u8 for u8 data
                              with no scaling, else f32 */
    fsvc_preprocess preprocess;
    int regression;        /* ridge on the label values as real targets */
    int shuffle;           /* 1: seeded shuffle of the pass order */
    uint64_t seed;
    int64_t max_neurons;   /* 0 (default): no cap, except select random
                              takes 10000; > 0: the cap, or the number
                              select random takes */
    const char *backend;   /* "ref", "cpu" (default), "cuda" */
    int threads;           /* <= 0: all cores */
    int progress;          /* progress lines through fsvc_printf */
} fsvc_param;

/* The defaults of `fsvc train` with no options (fsvc/model.c): L2
 * Gaussian, r = 0.45 x rms distance, select auto (random 10000 with the
 * ridge readout), ridge readout, preprocess auto, dtype from the data, the
 * cpu backend on all cores. */
void fsvc_param_default(fsvc_param *p);

typedef struct fsvc_model {
    fsvc_dtype dtype;      /* centroids and prepared input */
    int n;                 /* features */
    int rows, cols;        /* image geometry or 0 */
    fsvc_scale scale;
    fsvc_preprocess preprocess;
    int dist, act;         /* bnl_dist, bnl_act */
    double radius, prag;
    fsvc_select select;
    fsvc_readout readout;
    int regression;        /* 1: Kout = 1, score = regression output */
    int K;                 /* classes (0 for regression) */
    double *class_values;  /* K label values, ascending */
    int64_t m;             /* centroids */
    void *C;               /* C: m x n, dtype */
    int *lab;              /* lab: m class indices (0 for regression) */
    int Kout;              /* readout columns: K, or 1 for regression */
    double *R;             /* R: m x Kout */
    double y_offset;       /* regression: added to the score */
} fsvc_model;

typedef struct fsvc_train_info {
    double radius;         /* radius used (after any search) */
    int64_t m;             /* centroids */
    double t_select;       /* seconds: novelty pass (incl. radius search) */
    double t_readout;      /* seconds: readout */
    double syn_select;     /* synaptic operations n*m*N done by the pass */
    double syn_readout;    /* ... by the readout */
    double t_ridge[3];     /* ridge seconds: H, H^T H and H^T T, solve */
} fsvc_train_info;

/* Trains on d (labels required). info may be NULL. */
int fsvc_train(fsvc_model *model, fsvc_train_info *info,
               const fsvc_dataset *d, const fsvc_param *p, fsvc_error *err);
/* pred: N class indices (argmax, first wins) or NULL; score: N x Kout or
 * NULL (regression: score = predicted value). */
int fsvc_predict(int *pred, double *score, const fsvc_model *model,
                 const fsvc_dataset *d, const char *backend, int threads,
                 fsvc_error *err);
/* Binary, versioned, CRC32-checked; written to a temp file then renamed. */
int fsvc_model_save(const fsvc_model *model, const char *path, fsvc_error *err);
int fsvc_model_load(fsvc_model *model, const char *path, fsvc_error *err);
void fsvc_free_model(fsvc_model *model);

/* The input exactly as the model sees it: preprocessing, scaling and the
 * model dtype applied to d->x. *out: N x n, model->dtype (free() it). */
int fsvc_model_input(void **out, const fsvc_model *model,
                     const fsvc_dataset *d, fsvc_error *err);

/* ---- datasets: writers and extra loaders (datasets/) ---- */

/* Writes d as LIBSVM text (label index:value, 1-based, shortest exact
 * float64 text) to path, through a temporary file renamed into place. */
int fsvc_dataset_write_libsvm(const char *path, const fsvc_dataset *d,
                              fsvc_error *err);

/* Writes an 8-bit RGB image (rgb: H x W x 3, row-major) as a PNG through a
 * temporary file renamed into place (no half-written file on error). */
int fsvc_png_write_rgb(const char *path, const uint8_t *rgb, int W, int H,
                       fsvc_error *err);

/* Metrics (fsvc/metrics.c). truth: N model class indices of d's labels,
 * -1 where the model has no such class; returns how many are -1. */
int64_t fsvc_model_truth(int *truth, const fsvc_model *model, const fsvc_dataset *d);
/* conf: K x K counts, conf[true * K + predicted] (may be NULL); returns the
 * number of correct predictions. */
int64_t fsvc_confusion(int64_t *conf, const int *truth, const int *pred, int64_t N, int K);
void fsvc_regression_stats(double *mse, double *r2, const double *y, const double *yhat,
                           int64_t N);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_H */
