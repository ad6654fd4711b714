/* idx_pair.c - an IDX images file and its labels file as one dataset.
 *
 * Names: a prefix DIR/train means DIR/train-images-idx3-ubyte[.gz] with
 * DIR/train-labels-idx1-ubyte[.gz]; an images file path finds its labels by
 * replacing "images-idx3" with "labels-idx1" in the file name.
 * Types: u8 images stay u8; i8/i16/f32 become f32; i32/f64 become f64.
 * Rank: items x d1 [x d2 [x d3]] -> N x (d1*d2*d3); rank 3 sets rows, cols. */
#include "datasets/loaders.h"

#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Finds the labels file next to an images file; labels[0] = 0 if none. */
static void find_labels(char *labels, size_t sz, const char *images)
{
    labels[0] = 0;
    const char *base = strrchr(images, '/');
    base = base ? base + 1 : images;
    const char *hit = strstr(base, "images-idx3");
    if (!hit || strlen(images) >= sz)
        return;
    char cand[PATH_MAX];
    size_t pre = (size_t)(hit - images);
    if ((size_t)snprintf(cand, sizeof cand, "%.*slabels-idx1%s", (int)pre, images,
                         hit + strlen("images-idx3")) >= sizeof cand)
        return; /* longer than any path the system can open */
    if (is_file(cand)) {
        snprintf(labels, sz, "%s", cand);
        return;
    }
    /* the other compression: x.gz <-> x */
    size_t cl = strlen(cand);
    if (cl > 3 && !strcmp(cand + cl - 3, ".gz"))
        cand[cl - 3] = 0;
    else if (cl + 3 < sizeof cand)
        strcat(cand, ".gz");
    if (is_file(cand))
        snprintf(labels, sz, "%s", cand);
}

/* The first (up to) 4 bytes that the gzip file at path inflates to; *bad
 * when the stream cannot be read at all. */
static size_t peek_gz(unsigned char m[4], const char *path, int *bad)
{
    errno = 0;
    gzFile g = gzopen(path, "rb");
    int got = g ? gzread(g, m, 4) : -1, zerr = Z_OK;
    int nomem = g ? (got < 0 && (gzerror(g, &zerr), zerr == Z_MEM_ERROR)) : errno == ENOMEM;
    if (g)
        gzclose(g);
    /* out of memory says nothing of the stream: the loader that reads it
     * says it (as IDX's, it was "not an IDX file", exit 2) */
    *bad = got < 0 && !nomem;
    return got < 0 ? 0 : (size_t)got;
}

int ds_idx_resolve(char *images, char *labels, size_t sz, const char *source)
{
    images[0] = labels[0] = 0;
    static const char *const sfx[] = {"-images-idx3-ubyte.gz", "-images-idx3-ubyte"};
    for (int k = 0; k < 2; k++) {
        if ((size_t)snprintf(images, sz, "%s%s", source, sfx[k]) < sz && is_file(images)) {
            find_labels(labels, sz, images);
            return 1;
        }
    }
    images[0] = 0;
    /* a file is IDX by its name ("-ubyte", ".idx", ".gz") or its magic bytes */
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    size_t bl = strlen(base);
    (void)bl;
    int by_name = strstr(base, "-ubyte") || strstr(base, ".idx");
    FILE *f;
    if (is_file(source) && strlen(source) < sz && ds_open_input(&f, source, NULL) == 0) {
        unsigned char m[4] = {0xff, 0xff, 0xff, 0xff};
        size_t got = fread(m, 1, 4, f);
        fclose(f);
        /* a gzip file is IDX when what it inflates to starts like IDX (else
         * gzipped LIBSVM text); an unreadable stream stays IDX's to report */
        int gz_bad = 0;
        if (got >= 2 && ds_is_gzip(m, got))
            got = peek_gz(m, source, &gz_bad);
        if (by_name || gz_bad ||
            (got == 4 && m[0] == 0 && m[1] == 0 && ds_idx_type_size(m[2]) && m[3] >= 1 &&
             m[3] <= 4)) {
            snprintf(images, sz, "%s", source);
            find_labels(labels, sz, images);
            return 1;
        }
    }
    return 0;
}

/* Converts IDX elements to dtype `to` (u8 copies, else f32/f64). */
void *ds_idx_convert(const ds_idx *a, fsvc_dtype to)
{
    if (a->type == 0x08 && to == FSVC_U8) {
        void *x = a->data;
        return x; /* taken over */
    }
    size_t es = fsvc_dtype_size(to);
    void *x = malloc((size_t)a->count * es);
    if (!x)
        return NULL;
    for (int64_t i = 0; i < a->count; i++) {
        double v;
        switch (a->type) {
        case 0x08: v = ((const uint8_t *)a->data)[i]; break;
        case 0x09: v = ((const int8_t *)a->data)[i]; break;
        case 0x0B: v = ((const int16_t *)a->data)[i]; break;
        case 0x0C: v = ((const int32_t *)a->data)[i]; break;
        case 0x0D: v = ((const float *)a->data)[i]; break;
        default: v = ((const double *)a->data)[i]; break;
        }
        if (to == FSVC_F32)
            ((float *)x)[i] = (float)v;
        else
            ((double *)x)[i] = v;
    }
    return x;
}

int ds_idx_load_pair(fsvc_dataset *d, const char *images, const char *labels,
                     fsvc_error *err)
{
    ds_dataset_init(d, images);
    ds_idx a, l;
    memset(&l, 0, sizeof l);
    int rc = ds_idx_read(&a, images, err);
    if (rc)
        return rc;
    int64_t n = a.count / a.dims[0];
    if (n > 0x7fffffff) {
        ds_idx_free(&a);
        return fsvc_fail(err, FSVC_EINPUT, "%s: %lld features per item is too many",
                         images, (long long)n);
    }
    if (labels && labels[0]) {
        if ((rc = ds_idx_read(&l, labels, err))) {
            ds_idx_free(&a);
            return rc;
        }
        if (l.rank != 1 && !(l.rank == 2 && l.dims[1] == 1)) {
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: labels must be a rank-1 IDX array, "
                           "this one has rank %d", labels, l.rank);
            ds_idx_free(&a);
            ds_idx_free(&l);
            return rc;
        }
        if (l.dims[0] != a.dims[0]) {
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: %lld labels for %lld images in %s",
                           labels, (long long)l.dims[0], (long long)a.dims[0], images);
            ds_idx_free(&a);
            ds_idx_free(&l);
            return rc;
        }
    }
    fsvc_dtype to = a.type == 0x08 ? FSVC_U8
                  : (a.type == 0x0C || a.type == 0x0E) ? FSVC_F64 : FSVC_F32;
    void *x = ds_idx_convert(&a, to);
    if (!x) {
        ds_idx_free(&a);
        ds_idx_free(&l);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", images);
    }
    if (x == a.data)
        a.data = NULL;
    d->N = a.dims[0];
    d->n = (int)n;
    d->dtype = to;
    d->x = x;
    if (a.rank == 3) {
        d->rows = (int)a.dims[1];
        d->cols = (int)a.dims[2];
    }
    ds_idx_free(&a);
    if (l.data) {
        d->y = ds_idx_convert(&l, FSVC_F64); /* N values */
        ds_idx_free(&l);
        if (!d->y) {
            fsvc_dataset_free(d);
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", labels);
        }
        d->has_labels = 1;
        if ((rc = fsvc_dataset_index_classes(d, err))) {
            fsvc_dataset_free(d);
            return rc;
        }
    }
    return FSVC_OK;
}
