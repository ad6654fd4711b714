/* pngdir.c - folders of PNG and JPEG images as datasets.
 *
 * Training sets: one sub-folder per class; class names are the sub-folder
 * names sorted (strcmp), class k is the k-th name, y = k; each class folder
 * is searched recursively. Inference sets (opts->allow_unlabelled): any
 * folder, searched recursively. Paths are visited in sorted order; files
 * whose names end in .png, .jpg or .jpeg (any case) are images (read by
 * their signature), hidden entries are ignored, other files are skipped and
 * counted (d->skipped), symbolic links to folders are not followed. Every
 * image must have the size of the first one unless opts->resize, which
 * resizes it bilinearly (ds_resize_bilinear_ch) to that size, or opts->rows
 * x opts->cols, the size every image is resized to. X: N x (rows * cols *
 * channels) u8, channels 1 (gray) or 3 (RGB, opts->channels). A single
 * image file is a set of one unlabelled image. */
#include "datasets/loaders.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_DEPTH 32

typedef struct strlist {
    char **s;
    size_t n, cap;
} strlist;

static int push(strlist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **p = realloc(l->s, cap * sizeof *p);
        if (!p)
            return -1;
        l->s = p;
        l->cap = cap;
    }
    if (!(l->s[l->n] = strdup(s)))
        return -1;
    l->n++;
    return 0;
}

static void strlist_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the entries of dir (sorted, no hidden ones): sub-folders into dirs
 * (full paths), image files into files (full paths); other regular files
 * are counted in *skipped. */
static int list_dir(strlist *dirs, strlist *files, int64_t *skipped, const char *dir,
                    fsvc_error *err)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        int e = errno;
        return fsvc_fail(err, ds_open_errno_code(e), "%s: cannot open folder: %s", dir,
                         strerror(e));
    }
    strlist names = {0};
    struct dirent *e;
    int rc = FSVC_OK;
    while ((e = readdir(dp)))
        if (e->d_name[0] != '.' && push(&names, e->d_name)) {
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", dir);
            break;
        }
    closedir(dp);
    if (names.n)
        qsort(names.s, names.n, sizeof *names.s, cmp_str);
    for (size_t i = 0; i < names.n && rc == FSVC_OK; i++) {
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names.s[i]) >= sizeof path) {
            rc = fsvc_fail(err, FSVC_EINPUT, "%s/%s: path too long", dir, names.s[i]);
            break;
        }
        struct stat st, lst;
        if (lstat(path, &lst) != 0 || stat(path, &st) != 0)
            continue; /* dangling link */
        int bad = 0;
        if (S_ISDIR(st.st_mode) && !S_ISLNK(lst.st_mode))
            bad = dirs ? push(dirs, path) : 0;
        else if (S_ISREG(st.st_mode) && ds_image_name(names.s[i]))
            bad = push(files, path);
        else if (S_ISREG(st.st_mode))
            ++*skipped;
        if (bad)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", dir);
    }
    strlist_free(&names);
    return rc;
}

/* All image files under dir, recursively, in sorted order (depth first). */
static int walk(strlist *files, int64_t *skipped, const char *dir, int depth, fsvc_error *err)
{
    if (depth > MAX_DEPTH)
        return fsvc_fail(err, FSVC_EINPUT, "%s: folders nested deeper than %d", dir, MAX_DEPTH);
    strlist dirs = {0};
    /* a folder's own files first, then its sub-folders */
    int rc = list_dir(&dirs, files, skipped, dir, err);
    for (size_t i = 0; i < dirs.n && rc == FSVC_OK; i++)
        rc = walk(files, skipped, dirs.s[i], depth + 1, err);
    strlist_free(&dirs);
    return rc;
}

int ds_png_place(unsigned char *dst, int rows, int cols, int ch, const unsigned char *pix,
                 int r, int c, int resize, const char *path, const char *ref,
                 fsvc_error *err)
{
    if (r == rows && c == cols)
        memcpy(dst, pix, (size_t)rows * (size_t)cols * (size_t)ch);
    else if (resize)
        ds_resize_bilinear_ch(dst, rows, cols, pix, r, c, ch);
    else
        return fsvc_fail(err, FSVC_EINPUT, "%s: image is %dx%d (cols x rows) but %s is "
                         "%dx%d; all images must have one size (or ask for resizing)",
                         path, c, r, ref, cols, rows);
    return FSVC_OK;
}

/* Reads the images [lo, hi) of files into d->x ((hi - lo) x n u8),
 * d->paths; every image must have the size of files[0] (or opts's size). */
static int read_images(fsvc_dataset *d, char **files, size_t lo, size_t hi,
                       const fsvc_load_opts *opts, fsvc_error *err)
{
    size_t cnt = hi - lo;
    d->paths = calloc(cnt ? cnt : 1, sizeof *d->paths);
    if (!d->paths)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    d->N = (int64_t)cnt;
    int ch = opts->channels == 3 ? 3 : 1, sized = opts->rows > 0 && opts->cols > 0;
    const char *ref = files[0]; /* the first image sets the size, unless given */
    unsigned char *x = NULL;
    d->channels = ch;
    for (size_t i = lo > 0 ? 0 : lo; i < hi; i = i < lo ? lo : i + 1) {
        unsigned char *pix;
        int r, c;
        int rc = ds_image_read(&pix, &r, &c, ch, files[i], err);
        if (rc)
            return rc;
        if (i == 0) {
            d->rows = sized ? opts->rows : r;
            d->cols = sized ? opts->cols : c;
            if ((int64_t)d->rows * d->cols * ch > INT32_MAX) {
                free(pix);
                return fsvc_fail(err, FSVC_EINPUT, "%s: images of %dx%d (x %d channels) are "
                                 "too large", d->source, d->cols, d->rows, ch);
            }
            d->n = d->rows * d->cols * ch;
            uint64_t need = (uint64_t)cnt * (uint64_t)d->n, max = ds_max_bytes();
            if (need > max) {
                char lim[80];
                free(pix);
                return fsvc_fail(err, FSVC_EINPUT, "%s: %zu images of %dx%d need %llu bytes, "
                                 "more than the load limit (%s)", d->source, cnt, d->cols,
                                 d->rows,
                                 (unsigned long long)need, ds_limit_text(lim, sizeof lim, max));
            }
            x = malloc(cnt ? cnt * (size_t)d->n : 1);
            if (!x) {
                free(pix);
                return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %zu images",
                                 d->source, cnt);
            }
            d->x = x;
            if (i < lo) { /* only the size of the first image */
                free(pix);
                continue;
            }
        }
        rc = ds_png_place(x + (i - lo) * (size_t)d->n, d->rows, d->cols, ch, pix, r, c,
                          opts->resize || sized, files[i], ref, err);
        free(pix);
        if (rc)
            return rc;
        d->paths[i - lo] = files[i]; /* taken over */
        files[i] = NULL;
    }
    return FSVC_OK;
}

void ds_png_listing_free(ds_png_listing *L)
{
    strlist f = {L->files, L->n, L->n}, c = {L->classes, L->K, L->K};
    strlist_free(&f);
    strlist_free(&c);
    free(L->y);
    memset(L, 0, sizeof *L);
}

int ds_png_list(ds_png_listing *L, const char *dir, const fsvc_load_opts *opts,
                fsvc_error *err)
{
    memset(L, 0, sizeof *L);
    strlist classes = {0}, top = {0}, files = {0};
    int64_t skipped = 0;
    int rc = list_dir(&classes, &top, &skipped, dir, err);
    double *y = NULL;
    int labelled = rc == FSVC_OK && classes.n > 0 && top.n == 0;
    if (rc == FSVC_OK && labelled) {
        /* one sub-folder per class: y = index of the sorted class name */
        size_t cap = 0;
        for (size_t k = 0; k < classes.n && rc == FSVC_OK; k++) {
            size_t before = files.n;
            rc = walk(&files, &skipped, classes.s[k], 1, err);
            if (rc == FSVC_OK && files.n == before)
                rc = fsvc_fail(err, FSVC_EINPUT, "%s: class folder holds no PNG or JPEG images",
                               classes.s[k]);
            if (rc == FSVC_OK && files.n > cap) {
                cap = files.n * 2;
                double *ny = realloc(y, cap * sizeof *y);
                if (!ny)
                    rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", dir);
                else
                    y = ny;
            }
            for (size_t i = before; rc == FSVC_OK && i < files.n; i++)
                y[i] = (double)k;
        }
    } else if (rc == FSVC_OK && !opts->allow_unlabelled) {
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: %s", dir, classes.n == 0 && top.n == 0
                       ? "empty folder (no PNG or JPEG images, no class sub-folders)"
                       : "images outside class sub-folders; a training set needs "
                         "one sub-folder per class");
    } else if (rc == FSVC_OK) {
        skipped = 0; /* walked again from the top */
        rc = walk(&files, &skipped, dir, 0, err);
        if (rc == FSVC_OK && files.n == 0)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: no PNG or JPEG images in this folder or "
                           "below%s", dir, skipped ? " (only files of other types)" : "");
    }
    strlist_free(&top);
    if (!labelled)
        strlist_free(&classes);
    L->files = files.s;
    L->n = files.n;
    L->classes = classes.s;
    L->K = classes.n;
    L->y = y;
    L->labelled = labelled;
    L->skipped = skipped;
    if (rc)
        ds_png_listing_free(L);
    return rc;
}

/* The folder's images [N * rank / size, N * (rank + 1) / size); size 1:
 * all of them, classes indexed from the labels read. */
static int load_dir(fsvc_dataset *d, const char *dir, const fsvc_load_opts *opts, int rank,
                    int size, int64_t *first, int64_t *N_total, fsvc_error *err)
{
    ds_dataset_init(d, dir);
    ds_png_listing L;
    int rc = ds_png_list(&L, dir, opts, err);
    int labelled = rc == FSVC_OK && L.labelled;
    size_t lo = 0, hi = L.n;
    if (size > 1) {
        lo = (size_t)((uint64_t)L.n * (uint64_t)rank / (uint64_t)size);
        hi = (size_t)((uint64_t)L.n * (uint64_t)(rank + 1) / (uint64_t)size);
    }
    if (first) *first = (int64_t)lo;
    if (N_total) *N_total = (int64_t)L.n;
    if (rc == FSVC_OK)
        rc = read_images(d, L.files, lo, hi, opts, err);
    d->skipped = L.skipped;
    if (rc == FSVC_OK && labelled && size > 1) {
        /* a slice: every class folder holds images, so the classes are
         * 0..K-1, as one process indexes them from all the labels */
        d->y = malloc((hi > lo ? hi - lo : 1) * sizeof *d->y);
        d->cls = malloc((hi > lo ? hi - lo : 1) * sizeof *d->cls);
        d->class_values = malloc(L.K * sizeof *d->class_values);
        if (!d->y || !d->cls || !d->class_values)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", dir);
        for (size_t i = lo; rc == FSVC_OK && i < hi; i++) {
            d->y[i - lo] = L.y[i];
            d->cls[i - lo] = (int)L.y[i];
        }
        for (size_t k = 0; rc == FSVC_OK && k < L.K; k++)
            d->class_values[k] = (double)k;
        d->K = (int)L.K;
        d->has_labels = 1;
    } else if (rc == FSVC_OK && labelled) {
        d->y = L.y;
        L.y = NULL;
        d->has_labels = 1;
        rc = fsvc_dataset_index_classes(d, err);
    }
    if (rc == FSVC_OK && labelled)
        rc = ds_png_class_names(d, &L, err);
    ds_png_listing_free(&L);
    if (rc)
        fsvc_dataset_free(d);
    return rc;
}

int ds_png_class_names(fsvc_dataset *d, const ds_png_listing *L, fsvc_error *err)
{
    d->class_names = calloc(L->K ? L->K : 1, sizeof *d->class_names);
    if (!d->class_names)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    for (size_t k = 0; k < L->K; k++) {
        const char *base = strrchr(L->classes[k], '/');
        d->class_names[k] = strdup(base ? base + 1 : L->classes[k]);
        if (!d->class_names[k])
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", d->source);
    }
    return FSVC_OK;
}

int ds_png_load_dir(fsvc_dataset *d, const char *dir, const fsvc_load_opts *opts,
                    fsvc_error *err)
{
    return load_dir(d, dir, opts, 0, 1, NULL, NULL, err);
}

int ds_png_load_dir_slice(fsvc_dataset *d, const char *dir, const fsvc_load_opts *opts,
                          int rank, int size, int64_t *first, int64_t *N_total,
                          fsvc_error *err)
{
    return load_dir(d, dir, opts, rank, size, first, N_total, err);
}

int ds_png_load_file(fsvc_dataset *d, const char *path, const fsvc_load_opts *opts,
                     fsvc_error *err)
{
    return fsvc_dataset_load_images(d, &path, 1, opts, err);
}

int fsvc_dataset_load_pngs(fsvc_dataset *d, const char *const *paths, size_t n,
                           fsvc_error *err)
{
    return fsvc_dataset_load_images(d, paths, n, NULL, err);
}

int fsvc_dataset_load_images(fsvc_dataset *d, const char *const *paths, size_t n,
                             const fsvc_load_opts *opts, fsvc_error *err)
{
    ds_dataset_init(d, n ? paths[0] : "");
    if (!n)
        return fsvc_fail(err, FSVC_EUSAGE, "no image given");
    strlist l = {0};
    for (size_t i = 0; i < n; i++)
        if (push(&l, paths[i])) {
            strlist_free(&l);
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", paths[i]);
        }
    fsvc_load_opts o = {0, 1, 0, FSVC_STORE_DENSE, 0, 0, 0, 0, 0};
    if (opts) {
        o.resize = opts->resize;
        o.rows = opts->rows;
        o.cols = opts->cols;
        o.channels = opts->channels;
    }
    int rc = read_images(d, l.s, 0, l.n, &o, err);
    strlist_free(&l);
    if (rc)
        fsvc_dataset_free(d);
    return rc;
}

int fsvc_source_is_png(const char *path)
{
    const char *base = strrchr(path, '/');
    return ds_image_name(base ? base + 1 : path) || ds_image_file_kind(path) != 0;
}
