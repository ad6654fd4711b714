/* slice.c - fsvc_dataset_load_slice: rank r of K loads only its slice of
 * the samples (IDX: idx_slice.c, LIBSVM: libsvm_slice.c, PNG folders:
 * pngdir.c), the classes are the union over the ranks; the exchange of
 * statuses and small records goes through the caller's allgather. */
#include "datasets/loaders.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int one_allgather(void *self, const void *mine, size_t bytes, void *all)
{
    memmove(all, mine, bytes);
    return FSVC_OK;
}

static const fsvc_slice_comm one_comm = { 0, 1, NULL, one_allgather };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* d's classes (indexed from its own labels) become the union over the
 * ranks, sorted and de-duplicated as fsvc_dataset_index_classes does, and
 * cls is indexed into them. Collective. */
static int union_classes(fsvc_dataset *d, const fsvc_slice_comm *c, fsvc_error *err)
{
    int rc = FSVC_OK;
    if (d->N > 0 && (rc = fsvc_dataset_index_classes(d, err))) {
        /* fall through: the others must hear of it */
    }
    int64_t k = rc ? 0 : d->N > 0 ? d->K : 0, *ks = malloc((size_t)c->size * sizeof *ks);
    if (!ks && !rc) rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    if ((rc = ds_slice_exchange(c, rc, &k, sizeof k, ks, err))) {
        free(ks);
        return rc;
    }
    int64_t kmax = 0;
    for (int r = 0; r < c->size; r++) {
        if (ks[r] > kmax) kmax = ks[r];
    }
    free(ks);
    double *mine = calloc((size_t)kmax + 1, sizeof *mine);
    double *all = malloc(((size_t)kmax * (size_t)c->size + 1) * sizeof *all);
    if (!mine || !all)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    int64_t own = d->N > 0 ? d->K : 0;
    for (int64_t i = 0; !rc && i < own; i++) mine[i] = d->class_values[i];
    for (int64_t i = own; !rc && i < kmax; i++) mine[i] = NAN; /* padding */
    rc = ds_slice_exchange(c, rc, mine, (size_t)kmax * sizeof *mine, all, err);
    free(mine);
    if (rc) {
        free(all);
        return rc;
    }
    int64_t K = 0;
    for (int64_t i = 0; i < kmax * c->size; i++)
        if (!isnan(all[i])) all[K++] = all[i];
    qsort(all, (size_t)K, sizeof *all, cmp_double);
    int64_t u = 0;
    for (int64_t i = 0; i < K; i++)
        if (u == 0 || all[i] != all[u - 1])
            all[u++] = all[i];
    for (int64_t i = 0; i < d->N; i++) {
        int64_t lo = 0, hi = u - 1;
        while (lo < hi) { /* first value >= y */
            int64_t mid = (lo + hi) / 2;
            if (all[mid] < d->y[i]) lo = mid + 1; else hi = mid;
        }
        d->cls[i] = (int)lo;
    }
    if (!d->cls && !(d->cls = malloc(sizeof *d->cls))) { /* an empty slice: as the others */
        free(all);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    }
    free(d->class_values);
    d->class_values = all;
    d->K = (int)u;
    d->has_labels = 1;
    return FSVC_OK;
}

int fsvc_dataset_load_slice(fsvc_dataset *d, int64_t *first, int64_t *N_total,
                            const char *source, const fsvc_load_opts *opts,
                            const fsvc_slice_comm *comm, fsvc_error *err)
{
    static const fsvc_load_opts none = {0, 0, 0, FSVC_STORE_DENSE, 0, 0, 0, 0, 0};
    if (!opts) opts = &none;
    if (!comm) comm = &one_comm;
    *first = *N_total = 0;
    ds_dataset_init(d, source);
    struct stat st;
    char images[PATH_MAX], labels[PATH_MAX];
    int rc, found = stat(source, &st) == 0, labelled = 1, serr = errno;
    int kind = found && S_ISDIR(st.st_mode) ? DS_SRC_DIR
             : found && S_ISREG(st.st_mode) && ds_image_source(source) ? DS_SRC_PNG
             : ds_idx_resolve(images, labels, sizeof images, source) ? DS_SRC_IDX
             : found ? DS_SRC_TEXT : DS_SRC_NONE;
    /* the branches below make different exchanges: every rank must take
     * the same one, on the same bytes */
    rc = ds_slice_same_source(comm, kind, kind == DS_SRC_IDX ? images : source,
                              kind == DS_SRC_IDX && labels[0] ? labels : NULL, source, serr,
                              err);
    if (rc) {
        fsvc_dataset_free(d);
        return rc;
    }
    if (kind == DS_SRC_DIR) {
        /* the listing is the same on every rank: no exchange needed */
        rc = ds_png_load_dir_slice(d, source, opts, comm->rank, comm->size, first, N_total,
                                   err);
        rc = ds_slice_exchange(comm, rc, NULL, 0, NULL, err);
        labelled = 0; /* classes from the folder names, already global */
    } else if (kind == DS_SRC_PNG) {
        /* one image: every rank reads it, the last keeps it (its slice) */
        rc = ds_png_load_file(d, source, opts, err);
        if (!rc) {
            *N_total = 1;
            *first = 0; /* 1 * r / size */
        }
        if (!rc && comm->rank < comm->size - 1) {
            free(d->paths[0]);
            d->paths[0] = NULL;
            d->N = 0;
        }
        rc = ds_slice_exchange(comm, rc, NULL, 0, NULL, err);
        labelled = 0;
    } else if (kind == DS_SRC_IDX) {
        rc = ds_idx_load_pair_slice(d, images, labels[0] ? labels : NULL, comm, first,
                                    N_total, err);
        labelled = labels[0] != 0;
    } else if (kind == DS_SRC_TEXT) {
        rc = ds_libsvm_load_slice(d, source, opts->n_features, comm, first, N_total, err);
    } else {
        int e = serr;
        rc = e != ENOENT
           ? fsvc_fail(err, FSVC_EINPUT, "%s: cannot open: %s", source, strerror(e))
           : fsvc_fail(err, FSVC_EINPUT, "%s: no such file or folder, and no "
                       "%s-images-idx3-ubyte[.gz]: %s", source, source, strerror(ENOENT));
        rc = ds_slice_exchange(comm, rc, NULL, 0, NULL, err);
        labelled = 0;
    }
    /* every rank took the same branch (checked above), so every rank
     * makes the same exchanges below */
    if (labelled)
        rc = rc ? rc : union_classes(d, comm, err);
    if (rc) {
        fsvc_dataset_free(d);
        return rc;
    }
    snprintf(d->source, sizeof d->source, "%s", source);
    return FSVC_OK;
}

/* Element i of x as a double, whatever its dtype. */
static double get(const void *x, fsvc_dtype t, size_t i)
{
    switch (t) {
    case FSVC_U8: return ((const uint8_t *)x)[i];
    case FSVC_F32: return ((const float *)x)[i];
    default: return ((const double *)x)[i];
    }
}

int fsvc_dataset_set_shape_slice(fsvc_dataset *d, int rows, int cols,
                                 const fsvc_slice_comm *comm, fsvc_error *err)
{
    if (!comm) comm = &one_comm;
    int rc = FSVC_OK;
    if (rows < 1 || cols < 1 || (int64_t)rows * cols != d->n)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: image shape %d x %d is %lld values, the "
                       "data has %d features", d->source, rows, cols,
                       (long long)rows * cols, d->n);
    int64_t pix = 1; /* every value an integer in 0..255 */
    size_t count = (size_t)d->N * (size_t)d->n;
    for (size_t i = 0; !rc && d->dtype != FSVC_U8 && i < count && pix; i++) {
        double v = get(d->x, d->dtype, i);
        pix = v >= 0 && v <= 255 && v == (double)(int)v;
    }
    int64_t *all = malloc((size_t)comm->size * sizeof *all);
    if (!all && !rc) rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    rc = ds_slice_exchange(comm, rc, &pix, sizeof pix, all, err);
    for (int r = 0; !rc && r < comm->size; r++)
        pix = pix && all[r];
    free(all);
    if (rc) return rc;
    d->rows = rows;
    d->cols = cols;
    if (d->dtype == FSVC_U8 || !pix)
        return FSVC_OK; /* not 8-bit pixels on some rank: the values stay */
    return fsvc_dataset_convert(d, FSVC_U8, FSVC_SCALE_NONE, err);
}
