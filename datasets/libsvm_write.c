/* libsvm_write.c - writes a dataset as LIBSVM text through ds_tmp_* (every
 * write checked), so an error or a kill never leaves half a file.
 *
 * One line per sample: the label (0 for unlabelled sets), then index:value
 * for each non-zero feature, 1-based; the last feature n is always written
 * (even when 0) so that reading the file back gives the same n. Values are
 * written in the shortest form strtod reads back as exactly the same double
 * (f32 values are written as their exact double value). */
#include "datasets/datasets.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Appends the decimal digits of v at p; returns the new end. */
static char *put_uint(char *p, unsigned long v)
{
    char t[24];
    int k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        *p++ = t[--k];
    return p;
}

/* Writes the n bytes at buf; on a short write the file is discarded. */
static int put(FILE *f, const char *buf, size_t n, const char *path, fsvc_error *err)
{
    if (fwrite(buf, 1, n, f) == n)
        return FSVC_OK;
    int e = errno;
    ds_tmp_abort(f, NULL);
    return fsvc_fail(err, FSVC_ERESOURCE, "%s: write error: %s", path, strerror(e));
}

int fsvc_dataset_write_libsvm(const char *path, const fsvc_dataset *d,
                              fsvc_error *err)
{
    if (!d->x || d->N <= 0 || d->n <= 0)
        return fsvc_fail(err, FSVC_EINPUT, "%s: nothing to write (empty dataset)", path);
    char tmp[256]; /* the temporary name, informative only */
    FILE *f;
    int rc = ds_tmp_open(&f, tmp, sizeof tmp, path, err);
    if (rc)
        return rc;
    char buf[1 << 16]; /* output chunk; one entry needs at most ~48 chars */
    char *p = buf, *const flush_at = buf + sizeof buf - 64;
    for (int64_t i = 0; i < d->N; i++) {
        double label = d->has_labels && d->y ? d->y[i] : 0;
        if (p >= flush_at) {
            if ((rc = put(f, buf, (size_t)(p - buf), path, err)))
                return rc;
            p = buf;
        }
        ds_format_double(p, 40, label);
        p += strlen(p);
        size_t row = (size_t)i * (size_t)d->n;
        for (int j = 0; j < d->n; j++) {
            if (p >= flush_at) {
                if ((rc = put(f, buf, (size_t)(p - buf), path, err)))
                    return rc;
                p = buf;
            }
            if (d->dtype == FSVC_U8) {
                unsigned v = ((const uint8_t *)d->x)[row + j];
                if (v || j == d->n - 1) {
                    *p++ = ' ';
                    p = put_uint(p, (unsigned long)j + 1);
                    *p++ = ':';
                    p = put_uint(p, v);
                }
                continue;
            }
            double v = d->dtype == FSVC_F32 ? ((const float *)d->x)[row + j]
                                            : ((const double *)d->x)[row + j];
            if (!isfinite(v)) {
                ds_tmp_abort(f, tmp);
                return fsvc_fail(err, FSVC_EINPUT, "%s: sample %lld feature %d is NaN or "
                                 "Inf; not written", d->source, (long long)i, j + 1);
            }
            if (v != 0 || signbit(v) || j == d->n - 1) {
                *p++ = ' ';
                p = put_uint(p, (unsigned long)j + 1);
                *p++ = ':';
                ds_format_double(p, 40, v);
                p += strlen(p);
            }
        }
        *p++ = '\n';
    }
    if ((rc = put(f, buf, (size_t)(p - buf), path, err)))
        return rc;
    return ds_tmp_commit(f, tmp, path, err);
}
