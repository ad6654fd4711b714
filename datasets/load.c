/* load.c - fsvc_dataset_load: picks the loader from what the source is
 * (a folder or file of PNG images, an IDX pair, a LIBSVM file). The top of
 * datasets/: it includes the loaders, nothing includes it. */
#include "datasets/loaders.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int fsvc_dataset_load(fsvc_dataset *d, const char *source,
                      const fsvc_load_opts *opts, fsvc_error *err)
{
    static const fsvc_load_opts none = {0, 0, 0, FSVC_STORE_DENSE, 0, 0};
    if (!opts)
        opts = &none;
    ds_dataset_init(d, source);
    struct stat st;
    char images[PATH_MAX], labels[PATH_MAX];
    int rc;
    int found = stat(source, &st) == 0;
    if (found && S_ISDIR(st.st_mode)) {
        rc = ds_png_load_dir(d, source, opts, err);
    } else if (found && S_ISREG(st.st_mode) && ds_png_is_png(source)) {
        rc = ds_png_load_file(d, source, err);
    } else if (ds_idx_resolve(images, labels, sizeof images, source)) {
        rc = ds_idx_load_pair(d, images, labels[0] ? labels : NULL, err);
    } else if (stat(source, &st) == 0) {
        rc = ds_libsvm_load(d, source, opts, err);
    } else if (errno != ENOENT) {
        return fsvc_fail(err, FSVC_EINPUT, "%s: cannot open: %s", source, strerror(errno));
    } else {
        return fsvc_fail(err, FSVC_EINPUT, "%s: no such file or folder, and no "
                         "%s-images-idx3-ubyte[.gz]: %s", source, source, strerror(ENOENT));
    }
    if (rc == FSVC_OK)
        snprintf(d->source, sizeof d->source, "%s", source);
    return rc;
}
