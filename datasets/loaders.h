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
/* count big-endian elements of size sz to host order, in place. */
void ds_idx_to_host(unsigned char *p, int64_t count, size_t sz);
/* NaN/Inf in a (its a->count elements are elements first.. of the file):
 * FSVC_EINPUT naming the element and its byte offset in the file. */
int ds_idx_check_finite(const ds_idx *a, const char *name, int64_t first, fsvc_error *err);
/* A header's claim of count items (bytes) against the load limit max and
 * the room the file or gzip stream has (what): FSVC_EINPUT naming the
 * limit first (the claim is refused before anything is read), then the
 * room; FSVC_OK when both hold. The whole and the slice loaders both ask
 * it, so a bad header reads the same in one process or many. */
int ds_idx_check_claim(const char *name, uint64_t count, uint64_t bytes, uint64_t max,
                       uint64_t room, const char *what, fsvc_error *err);

/* The elements of a as dtype `to` (u8 -> u8 takes a->data over: the
 * result is a->data), malloc'd; NULL when out of memory. */
void *ds_idx_convert(const ds_idx *a, fsvc_dtype to);
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
/* The same for text that starts after line line0 of the file (messages
 * name line line0 + k for its k-th line). *line_err (when not NULL): 1
 * when the error is a line's (one process stops at the first bad line
 * before any check of the whole), 0 for an error of the whole text (no
 * samples or features, the dense size) or none. */
int ds_libsvm_parse_from(fsvc_dataset *d, const char *text, size_t len,
                         const char *name, int n_features, int64_t line0,
                         uint64_t max_bytes, int *line_err, fsvc_error *err);
/* The bytes of a whole LIBSVM file, plain or gzip (inflated with memory
 * growing with the data, refused above max_bytes of text); a NUL byte is
 * refused as binary data. */
int ds_libsvm_parse_file(fsvc_dataset *d, const unsigned char *buf, size_t len,
                         const char *path, int n_features, uint64_t max_bytes,
                         fsvc_error *err);
/* The same with the load options (n_features, storage, dense_max_n). */
int ds_libsvm_parse_opt(fsvc_dataset *d, const char *text, size_t len,
                        const char *name, const fsvc_load_opts *o, uint64_t max_bytes,
                        fsvc_error *err);
int ds_libsvm_parse_file_opt(fsvc_dataset *d, const unsigned char *buf, size_t len,
                             const char *path, const fsvc_load_opts *o, uint64_t max_bytes,
                             fsvc_error *err);
int ds_libsvm_load(fsvc_dataset *d, const char *path, const fsvc_load_opts *o,
                   fsvc_error *err);

/* ---- image.c, png.c, jpeg.c / pngdir.c: PNG and JPEG images ---- */

enum { DS_IMAGE_PNG = 1, DS_IMAGE_JPEG = 2 };
/* DS_IMAGE_PNG or _JPEG by the signature in the n bytes b, else 0. */
int ds_image_kind(const unsigned char *b, size_t n);
/* The same for the first bytes of the file at path (0: unreadable). */
int ds_image_file_kind(const char *path);
/* 1 when a file name ends in .png, .jpg or .jpeg (any case). */
int ds_image_name(const char *name);
/* 1 when the file at path is read as an image: its signature, or its
 * name (so that a bad .jpg is refused as an image, not read as text). */
int ds_image_source(const char *path);
/* Reads one PNG or JPEG (by its signature) as 8-bit gray (channels 1) or
 * interleaved RGB (3): *pix (malloc'd, rows x cols x channels). */
int ds_image_read(unsigned char **pix, int *rows, int *cols, int channels, const char *path,
                  fsvc_error *err);
/* One PNG / JPEG from an open stream at its start (not closed here). */
int ds_png_read_fp(unsigned char **pix, int *rows, int *cols, int channels, FILE *f,
                   const char *path, fsvc_error *err);
int ds_jpeg_read_fp(unsigned char **pix, int *rows, int *cols, int channels, FILE *f,
                    const char *path, fsvc_error *err);

/* Reads one PNG as 8-bit gray: *pix (malloc'd, rows x cols). */
int ds_png_read_gray(unsigned char **pix, int *rows, int *cols,
                     const char *path, fsvc_error *err);
/* The same from an open stream (not closed here); path names it in messages. */
int ds_png_read_gray_fp(unsigned char **pix, int *rows, int *cols, FILE *f,
                        const char *path, fsvc_error *err);
/* Bilinear resize of a gray image (src: sr x sc) into dst (dr x dc). */
void ds_resize_bilinear_u8(unsigned char *dst, int dr, int dc,
                           const unsigned char *src, int sr, int sc);
/* The same for ch interleaved channels (each resized on its own). */
void ds_resize_bilinear_ch(unsigned char *dst, int dr, int dc,
                           const unsigned char *src, int sr, int sc, int ch);
int ds_png_load_dir(fsvc_dataset *d, const char *dir,
                    const fsvc_load_opts *opts, fsvc_error *err);
/* The images [N_total * rank / size, N_total * (rank + 1) / size) of the
 * sorted list only (every image checked against the first one's size), the
 * classes those of the whole folder; *first and *N_total set. */
int ds_png_load_dir_slice(fsvc_dataset *d, const char *dir, const fsvc_load_opts *opts,
                          int rank, int size, int64_t *first, int64_t *N_total,
                          fsvc_error *err);

/* The sorted image list of a PNG folder (the rules of pngdir.c), nothing
 * decoded: files (n paths); labelled: classes (K class folder paths) and
 * y (n class indices), else both NULL. */
typedef struct ds_png_listing {
    char **files;
    size_t n;
    char **classes;
    size_t K;
    double *y;
    int labelled;
    int64_t skipped;   /* regular files not named as images (hidden
                          entries aside) */
} ds_png_listing;
int ds_png_list(ds_png_listing *L, const char *dir, const fsvc_load_opts *opts,
                fsvc_error *err);
void ds_png_listing_free(ds_png_listing *L);
/* d->class_names from the class folders' base names (L->K of them). */
int ds_png_class_names(fsvc_dataset *d, const ds_png_listing *L, fsvc_error *err);
/* An image pix (r x c x ch) into dst (rows x cols x ch): copied, resized
 * when resize, else FSVC_EINPUT naming path and ref (what set the size). */
int ds_png_place(unsigned char *dst, int rows, int cols, int ch, const unsigned char *pix,
                 int r, int c, int resize, const char *path, const char *ref,
                 fsvc_error *err);

/* ---- stream.c: a file read from the start, plain or gzip ---- */
typedef struct ds_stream {
    void *g;           /* the open file and inflate state (stream.c) */
    int gz;            /* gzip data (else plain, read as is) */
    uint64_t fsize;    /* bytes of the file */
    uint64_t pos;      /* decompressed bytes delivered or skipped */
    const char *name;  /* for messages (not copied) */
} ds_stream;
/* Opens the regular file at path (a .gz name must hold gzip data). */
int ds_stream_open(ds_stream *s, const char *path, fsvc_error *err);
void ds_stream_close(ds_stream *s);
/* Up to n bytes into dst (NULL: dropped); *got < n only at the end. */
int ds_stream_read(ds_stream *s, void *dst, uint64_t n, uint64_t *got, fsvc_error *err);
/* Forward to decompressed offset off (a plain file seeks). */
int ds_stream_skip(ds_stream *s, uint64_t off, fsvc_error *err);
/* The most bytes the rest of the stream can deliver: what is left of a
 * plain file; for gzip, ds_gz_max_out of the compressed bytes not yet used
 * (ds_src_max_left's bound, so that a claim reads the same in one process
 * or many). */
uint64_t ds_stream_room(const ds_stream *s);

/* ---- per-rank slices (slice_comm.c, idx_slice.c, libsvm_slice.c; above
 * them slice.c) ---- */
/* The collective exchange of the slice loaders: every rank's status (worst returned;
 * a rank fine itself gets err = FSVC_SLICE_ELSEWHERE) and bytes (may be 0)
 * in rank order into all (size x bytes; may be NULL when bytes is 0). */
/* The largest of every rank's mine into *max (collective); -1 when the
 * exchange failed. */
/* What a slice load reads (slice.c), compared across the ranks. */
enum { DS_SRC_NONE, DS_SRC_DIR, DS_SRC_PNG, DS_SRC_IDX, DS_SRC_TEXT };
/* Collective (slice_agree.c): every rank reads the same kind of source and
 * the same file bytes (file0, file1 may be NULL; size, CRC32 of the first
 * and last 64 KiB); else FSVC_EINPUT on every rank, naming source and the
 * difference on a rank that differs from rank 0 (missing_errno: why a
 * missing source is missing). FSVC_OK at once for one rank. */
int ds_slice_same_source(const fsvc_slice_comm *c, int kind, const char *file0,
                         const char *file1, const char *source, int missing_errno,
                         fsvc_error *err);
int ds_slice_max(const fsvc_slice_comm *c, int64_t mine, int64_t *max);
int ds_slice_exchange(const fsvc_slice_comm *c, int rc, const void *mine, size_t bytes,
                      void *all, fsvc_error *err);
int ds_idx_load_pair_slice(fsvc_dataset *d, const char *images, const char *labels,
                           const fsvc_slice_comm *c, int64_t *first, int64_t *N_total,
                           fsvc_error *err);
int ds_libsvm_load_slice(fsvc_dataset *d, const char *path, int n_features,
                         const fsvc_slice_comm *c, int64_t *first, int64_t *N_total,
                         fsvc_error *err);
/* One PNG or JPEG file as a dataset of one unlabelled image. */
int ds_png_load_file(fsvc_dataset *d, const char *path, const fsvc_load_opts *opts,
                     fsvc_error *err);
/* 1 if the file at path starts with the PNG signature. */
int ds_png_is_png(const char *path);

#endif /* FSVC_DS_LOADERS_H */
