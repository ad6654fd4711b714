/* load.c - fsvc_dataset_load: picks the loader from what the source is
 * (a folder or file of PNG / JPEG images, an IDX pair, a LIBSVM file). The top of
 * datasets/: it includes the loaders, nothing includes it. */
#include "datasets/loaders.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int fsvc_dataset_load(fsvc_dataset *d, const char *source,
                      const fsvc_load_opts *opts, fsvc_error *err)
{
    static const fsvc_load_opts none = {0, 0, 0, FSVC_STORE_DENSE, 0, 0, 0, 0, 0};
    if (!opts)
        opts = &none;
    ds_dataset_init(d, source);
    struct stat st;
    char images[PATH_MAX], labels[PATH_MAX];
    int rc;
    int found = stat(source, &st) == 0;
    if (found && S_ISDIR(st.st_mode)) {
        rc = ds_png_load_dir(d, source, opts, err);
    } else if (found && S_ISREG(st.st_mode) && ds_image_source(source)) {
        rc = ds_png_load_file(d, source, opts, err);
    } else if (ds_idx_resolve(images, labels, sizeof images, source)) {
        rc = ds_idx_load_pair(d, images, labels[0] ? labels : NULL, err);
    } else if (stat(source, &st) == 0) {
        rc = ds_libsvm_load(d, source, opts, err);
    } else if (errno != ENOENT) {
        return fsvc_fail(err, ds_open_errno_code(errno), "%s: cannot open: %s", source,
                         strerror(errno));
    } else {
        return fsvc_fail(err, FSVC_EINPUT, "%s: no such file or folder, and no "
                         "%s-images-idx3-ubyte[.gz]: %s", source, source, strerror(ENOENT));
    }
    if (rc == FSVC_OK)
        snprintf(d->source, sizeof d->source, "%s", source);
    return rc;
}

static int same_file(const struct stat *o, const char *path)
{
    struct stat st;
    return path[0] && stat(path, &st) == 0 && st.st_dev == o->st_dev && st.st_ino == o->st_ino;
}

int fsvc_source_reads(const char *source, const char *path)
{
    struct stat o, st;
    if (stat(path, &o) != 0) /* not there: nothing to write over */
        return 0;
    if (same_file(&o, source))
        return 1;
    char images[PATH_MAX], labels[PATH_MAX];
    if (stat(source, &st) != 0 || !S_ISDIR(st.st_mode))
        return ds_idx_resolve(images, labels, sizeof images, source) &&
               (same_file(&o, images) || same_file(&o, labels));
    /* a folder: its .png files, at any depth, are its images */
    char dir[PATH_MAX], out[PATH_MAX];
    if (!S_ISREG(o.st_mode) || !fsvc_source_is_png(path) || !realpath(source, dir) ||
        !realpath(path, out))
        return 0;
    size_t l = strlen(dir);
    return !strncmp(out, dir, l) && (out[l] == '/' || (l == 1 && dir[0] == '/'));
}
