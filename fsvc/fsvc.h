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

#ifdef __cplusplus
}
#endif
#endif /* FSVC_H */
