/*
 * fsvc_data.h - the public dataset API (datasets/): the dataset struct,
 * loading any supported source, class indexing, conversion and writers.
 * Included by fsvc.h; above it only base/fsvc_base.h.
 */
#ifndef FSVC_DATA_H
#define FSVC_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "../base/fsvc_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- datasets ---- */

/* A sparse matrix of `rows` rows in CSR form: row i holds the entries
 * row_ptr[i] .. row_ptr[i+1]-1, col (0-based feature, strictly ascending
 * within a row) and val (float, finite). Memory: 8 (rows + 1) + 8 nnz
 * bytes, whatever the number of features. */
typedef struct fsvc_csr {
    int64_t rows;
    int64_t nnz;
    int64_t *row_ptr;     /* rows + 1 offsets, row_ptr[0] = 0 */
    int32_t *col;         /* nnz feature indices */
    float *val;           /* nnz values */
} fsvc_csr;

/* The most features of sparse data (the model limit FSVC_MODEL_MAX_N). */
#define FSVC_CSR_MAX_N (1 << 24)
/* The most features of dense data (the engine's kernels). */
#define FSVC_DENSE_MAX_N 65536

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
    char **class_names;   /* K names (image class folders) or NULL */
    char **paths;         /* N source paths (PNG / JPEG images) or NULL */
    int rows, cols;       /* image geometry when known, else 0; n is
                             rows x cols x channels for images */
    fsvc_scale scale;     /* scaling already applied to x */
    char source[512];     /* what it was loaded from */
    fsvc_csr *csr;        /* sparse data (LIBSVM read sparse): the N rows
                             in CSR form, x NULL, dtype FSVC_F32; NULL for
                             dense data (x holds it) */
    int channels;         /* images: 1 gray, 3 RGB (interleaved); else 0 */
    int64_t skipped;      /* image folders: regular files not named as
                             images (.png, .jpg, .jpeg), not read */
    double *weight;       /* N sample weights (finite, > 0: a sample of
                             weight w counts as w samples in the readout)
                             or NULL: all 1; no file format carries them,
                             the caller sets them (fsvc train
                             --sample-weights, Python's sample_weight);
                             freed with the dataset */
} fsvc_dataset;

/* How a LIBSVM file is stored (fsvc_load_opts.storage). */
#define FSVC_STORE_DENSE 0  /* dense x (the default: every loader's form) */
#define FSVC_STORE_SPARSE 1 /* CSR (d->csr) */
#define FSVC_STORE_AUTO 2   /* CSR when the file has more than
                               FSVC_SPARSE_AUTO_N features, or when under
                               10% of the N x n cells hold a value and the
                               dense matrix would take more than
                               FSVC_SPARSE_AUTO_CELLS cells; else dense */
#define FSVC_SPARSE_AUTO_N 65536
#define FSVC_SPARSE_AUTO_CELLS ((int64_t)1 << 25)

typedef struct fsvc_load_opts {
    int resize;           /* images: resize images to the first one's size */
    int allow_unlabelled; /* PNG folder without class sub-folders */
    int n_features;       /* LIBSVM: force n (0 = largest index seen) */
    int storage;          /* LIBSVM: FSVC_STORE_DENSE (0), _SPARSE, _AUTO;
                             other sources are always dense */
    int dense_max_n;      /* > 0: dense LIBSVM data with more features is
                             refused before the dense matrix is made */
    int sparse_finite;    /* LIBSVM read sparse (float32): a value beyond
                             float32's range is an error at its line (for
                             training); 0: stored as +-Inf, as a float
                             conversion makes it (prediction) */
    int rows, cols;       /* images: > 0: every image resized (bilinear)
                             to rows x cols; 0: the first image's size */
    int channels;         /* images: 3 keeps RGB as 3 interleaved values a
                             pixel; 0 or 1: gray (BT.601 luma) */
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
/* out: an empty dataset of N rows shaped as d (n, dtype, labels kept or
 * not, K, image geometry and channels, scaling, source), no arrays; the
 * caller fills x/csr, labels and weights. */
void fsvc_dataset_init_like(fsvc_dataset *out, const fsvc_dataset *d, int64_t N);

/* Sample weights from a text file (fsvc train --sample-weights): one
 * number a line (spaces around it allowed), as many lines as the data
 * has samples (N_total; a last line without a newline counts), each
 * finite and > 0. d->weight gets lines [first, first + d->N) (a
 * process's slice; first = 0, N_total = d->N for the whole data).
 * FSVC_EINPUT naming the file and the line (a missing file, a line that
 * is not a number, a weight <= 0 or not finite, too few or too many
 * lines); d unchanged then. */
int fsvc_dataset_load_weights(fsvc_dataset *d, const char *path, int64_t first,
                              int64_t N_total, fsvc_error *err);

/* Several PNG files as one set of n unlabelled images, in the order given
 * (paths kept); every image must have the size of the first. */
int fsvc_dataset_load_pngs(fsvc_dataset *d, const char *const *paths, size_t n,
                           fsvc_error *err);
/* The same for PNG or JPEG files with the image options of opts (rows,
 * cols, channels, resize; NULL: none). */
int fsvc_dataset_load_images(fsvc_dataset *d, const char *const *paths, size_t n,
                             const fsvc_load_opts *opts, fsvc_error *err);
/* 1 when path names a PNG or JPEG image: its name ends in .png, .jpg or
 * .jpeg (any case) or the file starts with either signature. */
int fsvc_source_is_png(const char *path);
/* 1 when writing to path would write over a file that loading source
 * reads: the same file (device and inode), one of an IDX pair, or a .png
 * file inside a PNG folder. A path that does not exist is no input. */
int fsvc_source_reads(const char *source, const char *path);

/* ---- slices: one process of several reads only its part ----
 *
 * Rank r of size processes loads the global samples [first, first + N) with
 * first = N_total * r / size (the slice one process would cut for the
 * global index). An IDX file is read only there (a seek; .gz: inflated up
 * to the slice, only the slice kept), a LIBSVM file is split by byte ranges
 * at line starts (each rank counts the lines of its range, the counts are
 * exchanged, each rank parses its own lines; messages name the global line),
 * a PNG folder is listed on every rank and each rank decodes its files. The
 * class list is the union over the ranks (sorted as one process sorts it),
 * LIBSVM's n the largest index over the ranks. The exchange is the caller's
 * (datasets/ knows no MPI): comm->allgather gives every rank each rank's
 * bytes in rank order. Collective: every rank calls it; a rank that fails
 * makes every rank fail, the others with FSVC_SLICE_ELSEWHERE. */
typedef struct fsvc_slice_comm {
    int rank, size;
    void *self;
    /* mine (bytes, the same on every rank) of every rank, in rank order,
     * into all (size x bytes). */
    int (*allgather)(void *self, const void *mine, size_t bytes, void *all);
} fsvc_slice_comm;

/* The message of a rank that stopped because another failed (the text of
 * FSVC_COMM_ELSEWHERE in fsvc/comm.h). */
#define FSVC_SLICE_ELSEWHERE "stopped: another process failed"

int fsvc_dataset_load_slice(fsvc_dataset *d, int64_t *first, int64_t *N_total,
                            const char *source, const fsvc_load_opts *opts,
                            const fsvc_slice_comm *comm, fsvc_error *err);

/* fsvc_dataset_set_shape on a slice: the u8 decision (every value of
 * every rank an integer in 0..255) is taken over all ranks. Collective. */
int fsvc_dataset_set_shape_slice(fsvc_dataset *d, int rows, int cols,
                                 const fsvc_slice_comm *comm, fsvc_error *err);

/* Gives d (a source without an image shape: LIBSVM text of images; load
 * it with n_features = rows x cols) the image shape rows x cols, which must
 * be d->n, else FSVC_EINPUT naming the source and both sizes. Float values
 * that are all integers in 0..255 become u8, so that images given as text
 * are the same data as the same images read from IDX or PNG. */
int fsvc_dataset_set_shape(fsvc_dataset *d, int rows, int cols, fsvc_error *err);

/* Makes d have exactly n features as LIBSVM reads a test file against a
 * model: features missing from the data are 0, features beyond n are
 * dropped. *dropped (may be NULL) gets how many nonzero values were
 * dropped and *first_extra (may be NULL) the lowest 1-based feature index
 * holding one (0 when none). Refused (FSVC_EINPUT) for images (d->rows >
 * 0), whose pixels cannot be padded or cut. */
int fsvc_dataset_fit_features(fsvc_dataset *d, int n, int64_t *dropped, int *first_extra,
                              fsvc_error *err);

/* ---- sparse data (datasets/csr.c) ---- */

/* Frees a CSR matrix made by the loaders or below (NULL is fine). */
void fsvc_csr_free(fsvc_csr *a);
/* Makes d sparse (CSR of its nonzero values as float) when it is dense,
 * freeing x; for images (d->rows > 0) FSVC_EINPUT. Already sparse: OK. */
int fsvc_dataset_to_sparse(fsvc_dataset *d, fsvc_error *err);
/* Makes d dense (N x n float32) when it is sparse, after checking the
 * N x n matrix against the load limit (FSVC_EINPUT naming it). */
int fsvc_dataset_to_dense(fsvc_dataset *d, fsvc_error *err);
/* The rows idx[0..cnt-1] of a into *out (a new CSR of cnt rows). */
int fsvc_csr_rows(fsvc_csr **out, const fsvc_csr *a, const int64_t *idx, int64_t cnt,
                  fsvc_error *err);

/* Recomputes cls, K and class_values from y. */
int fsvc_dataset_index_classes(fsvc_dataset *d, fsvc_error *err);

/* Converts x to dtype `to`, applying scale (scaling u8 to floats only). */
int fsvc_dataset_convert(fsvc_dataset *d, fsvc_dtype to, fsvc_scale scale,
                         fsvc_error *err);


/* ---- a PNG folder decoded batch by batch (datasets/pngdir_batch.c) ----
 *
 * fsvc_pngdir_list: the folder as fsvc_dataset_load reads it (the same
 * order, labels, classes, class names, paths and errors), but no pixels:
 * x is NULL; rows, cols and n are the first image's (decoded to learn
 * them), dtype u8. The pixels come from fsvc_pngdir_decode, so that the
 * memory taken is that of the listing and of the batches, not the folder. */
int fsvc_pngdir_list(fsvc_dataset *d, const char *dir, const fsvc_load_opts *opts,
                     fsvc_error *err);
/* Decodes the images [lo, hi) of a listed folder d into x ((hi - lo) x
 * d->n u8) on `threads` OpenMP threads (0: OpenMP's default); an image of
 * another size is resized when resize, else refused. On failure err is the
 * error of the first failing image in order (the one fsvc_dataset_load
 * reports). */
int fsvc_pngdir_decode(uint8_t *x, const fsvc_dataset *d, int64_t lo, int64_t hi, int resize,
                       int threads, fsvc_error *err);

/* ---- datasets: writers and extra loaders (datasets/) ---- */

/* Writes d as LIBSVM text (label index:value, 1-based, shortest exact
 * float64 text) to path, through a temporary file renamed into place. */
int fsvc_dataset_write_libsvm(const char *path, const fsvc_dataset *d,
                              fsvc_error *err);

/* Writes an 8-bit RGB image (rgb: H x W x 3, row-major) as a PNG through a
 * temporary file renamed into place (no half-written file on error). */
int fsvc_png_write_rgb(const char *path, const uint8_t *rgb, int W, int H,
                       fsvc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_DATA_H */
