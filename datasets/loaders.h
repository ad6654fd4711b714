/* loaders.h - the dataset loaders of datasets/ (not installed): IDX,
 * LIBSVM and PNG. Above datasets.h (io.c, dataset.c), below load.c, which
 * picks one by source kind. Parsers work on bytes in memory so that the
 * fuzz targets drive them without files.
 */
#ifndef FSVC_DS_LOADERS_H
#define FSVC_DS_LOADERS_H

#include "datasets/datasets.h"

/* ---- idx.c: IDX arrays ---- */

typedef struct ds_idx {
    int type;          /* IDX type code: 0x08 u8, 0x09 i8, 0x0B i16,
                          0x0C i32, 0x0D f32, 0x0E f64 */
    int rank;          /* 1..4 */
    int64_t dims[4];   /* dims[0] = number of items */
    int64_t count;     /* product of dims */
    void *data;        /* count elements, host byte order, C type of `type` */
} ds_idx;

/* Parses an IDX array (raw or gzip) held in memory. Refuses bad magic,
 * bad type or rank, zero dimensions, a claim of more than max_bytes (or
 * more than the input could hold) before allocating; a short or long
 * payload; NaN/Inf in float types. */
int ds_idx_parse(ds_idx *a, const unsigned char *buf, size_t len,
                 const char *name, uint64_t max_bytes, fsvc_error *err);
int ds_idx_read(ds_idx *a, const char *path, fsvc_error *err);
void ds_idx_free(ds_idx *a);
size_t ds_idx_type_size(int type);     /* 0 for an unknown type */

/* Loads images (+ labels when labels != NULL) into d. */
int ds_idx_load_pair(fsvc_dataset *d, const char *images, const char *labels,
                     fsvc_error *err);
/* Resolves an IDX source: a prefix (DIR/train) or an images file path.
 * Fills images/labels paths (labels[0] = 0 when no labels file exists).
 * Returns 1 when source names IDX data, 0 when it does not. */
int ds_idx_resolve(char *images, char *labels, size_t sz, const char *source);

/* ---- libsvm.c ---- */

/* Parses LIBSVM text held in memory (len bytes, need not be NUL-terminated)
 * into d (f64, labels in y). n_features > 0 forces n. */
int ds_libsvm_parse(fsvc_dataset *d, const char *text, size_t len,
                    const char *name, int n_features, uint64_t max_bytes,
                    fsvc_error *err);
/* The bytes of a whole LIBSVM file, plain or gzip (inflated with memory
 * growing with the data, refused above max_bytes of text); a NUL byte is
 * refused as binary data. */
int ds_libsvm_parse_file(fsvc_dataset *d, const unsigned char *buf, size_t len,
                         const char *path, int n_features, uint64_t max_bytes,
                         fsvc_error *err);
int ds_libsvm_load(fsvc_dataset *d, const char *path, int n_features,
                   fsvc_error *err);

/* ---- png.c / pngdir.c ---- */

/* Reads one PNG as 8-bit gray: *pix (malloc'd, rows x cols). */
int ds_png_read_gray(unsigned char **pix, int *rows, int *cols,
                     const char *path, fsvc_error *err);
/* The same from an open stream (not closed here); path names it in messages. */
int ds_png_read_gray_fp(unsigned char **pix, int *rows, int *cols, FILE *f,
                        const char *path, fsvc_error *err);
/* Bilinear resize of a gray image (src: sr x sc) into dst (dr x dc). */
void ds_resize_bilinear_u8(unsigned char *dst, int dr, int dc,
                           const unsigned char *src, int sr, int sc);
int ds_png_load_dir(fsvc_dataset *d, const char *dir,
                    const fsvc_load_opts *opts, fsvc_error *err);
/* One PNG file as a dataset of one unlabelled image. */
int ds_png_load_file(fsvc_dataset *d, const char *path, fsvc_error *err);
/* 1 if the file at path starts with the PNG signature. */
int ds_png_is_png(const char *path);

#endif /* FSVC_DS_LOADERS_H */
