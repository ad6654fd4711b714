/* idx_slice.c - the items [lo, hi) of an IDX pair, for rank r of K: the
 * header is read by every rank, then a plain file is read from the slice's
 * offset only (a seek), a gzip file is inflated up to the slice (zlib's
 * gzread, the skipped bytes dropped as they come) and only the slice is
 * kept. The checks of idx.c hold: the header against what the file can
 * hold, a short payload (plain: from the file size; gzip: where the stream
 * ends), data after the payload (plain: every rank; gzip: the last rank,
 * which reads to the end), NaN/Inf in the slice (named by global element). */
#include "datasets/loaders.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The items [N * rank / size, N * (rank + 1) / size) of the IDX file at
 * path into a (a->dims[0] = the slice's items, a->count its elements);
 * *items gets N. */
static int read_slice(ds_idx *a, int64_t *items, int64_t *lo_out, int64_t *elem0,
                      const char *path, int rank, int size, fsvc_error *err)
{
    memset(a, 0, sizeof *a);
    ds_stream s;
    int rc = ds_stream_open(&s, path, err);
    if (rc) return rc;
    unsigned char h[4 + 4 * 4];
    uint64_t got;
    if (!(rc = ds_stream_read(&s, h, 4, &got, err)) && got < 4)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: file ends inside the IDX header (byte %llu "
                       "of the data; need %llu more bytes)", path, (unsigned long long)got,
                       (unsigned long long)(4 - got));
    size_t sz = rc ? 0 : ds_idx_type_size(h[2]);
    if (!rc && (h[0] != 0 || h[1] != 0 || sz == 0 || h[3] < 1 || h[3] > 4))
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: not an IDX file (magic %02x %02x %02x "
                       "%02x; want 00 00, a type of 08 09 0B 0C 0D 0E, rank 1..4)",
                       path, h[0], h[1], h[2], h[3]);
    if (!rc) {
        a->type = h[2];
        a->rank = h[3];
        if (!(rc = ds_stream_read(&s, h + 4, 4 * (uint64_t)a->rank, &got, err)) &&
            got < 4 * (uint64_t)a->rank)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: file ends inside the IDX header (byte %llu "
                           "of the data; need %llu more bytes)", path,
                           (unsigned long long)(4 + got),
                           (unsigned long long)(4 * (uint64_t)a->rank - got));
    }
    uint64_t count = 1, hdr = 4 + 4 * (uint64_t)a->rank;
    for (int k = 0; !rc && k < a->rank; k++) {
        const unsigned char *p = h + 4 + 4 * k;
        uint64_t dim = (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | p[2] << 8 | p[3];
        if (dim == 0)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: IDX dimension %d is 0", path, k);
        a->dims[k] = (int64_t)dim;
        if (dim && count > (UINT64_MAX >> 1) / dim)
            count = UINT64_MAX >> 1;
        else
            count *= dim ? dim : 1;
    }
    uint64_t bytes = count > (UINT64_MAX >> 4) ? UINT64_MAX : count * sz;
    uint64_t room = rc ? 0 : ds_stream_room(&s);
    /* a claim the file cannot hold is refused as in one process (the load
     * limit named first); a claim over the limit that the file holds is
     * a slice's business (below: the slice against the limit) */
    if (!rc && bytes > room)
        rc = ds_idx_check_claim(path, count, bytes, ds_max_bytes(), room,
                                s.gz ? "gzip stream" : "file", err);
    if (!rc && !s.gz && bytes < room)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: data goes on after the %llu bytes the "
                       "IDX header says", path, (unsigned long long)bytes);
    int64_t N = a->dims[0], lo = 0, hi = 0;
    uint64_t per = rc ? 0 : count / (uint64_t)N * sz; /* bytes per item */
    if (!rc) {
        lo = N * rank / size; /* as tools/comm.h's cli_comm_slice */
        hi = N * (rank + 1) / size;
    }
    uint64_t want = (uint64_t)(hi - lo) * per, max = ds_max_bytes();
    char lim[80];
    if (!rc && want > max)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: the slice of %lld items (%llu bytes) is more "
                       "than the load limit (%s)", path, (long long)(hi - lo),
                       (unsigned long long)want, ds_limit_text(lim, sizeof lim, max));
    if (!rc)
        rc = ds_stream_skip(&s, hdr + (uint64_t)lo * per, err);
    if (!rc && !(a->data = malloc(want ? want : 1)))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %llu bytes", path,
                       (unsigned long long)want);
    if (!rc && !(rc = ds_stream_read(&s, a->data, want, &got, err)) && got < want)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: payload is %llu bytes, shorter than the "
                       "%llu bytes the IDX header says (%lld items)", path,
                       (unsigned long long)(s.pos - hdr), (unsigned long long)bytes,
                       (long long)count);
    if (!rc && s.gz && rank == size - 1) { /* the end of the stream: nothing after */
        unsigned char extra;
        if (!(rc = ds_stream_read(&s, &extra, 1, &got, err)) && got)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: data goes on after the %llu bytes the "
                           "IDX header says", path, (unsigned long long)bytes);
    }
    ds_stream_close(&s);
    if (!rc) {
        a->dims[0] = hi - lo;
        a->count = (int64_t)(want / sz);
        ds_idx_to_host(a->data, a->count, sz);
    }
    *items = N;
    *lo_out = lo;
    *elem0 = rc ? 0 : lo * (int64_t)(per / sz);
    if (rc) ds_idx_free(a);
    return rc;
}

/* NaN/Inf in a slice, looked for once every rank has read its slice
 * whole (one process finds a short or overlong payload before any NaN, in
 * any part): rc of every rank exchanged, then the check, then exchanged
 * again; the lowest rank with a NaN names the first one of the file. */
static int finite_after_all(const ds_idx *a, int64_t elem0, const char *path,
                            const fsvc_slice_comm *c, int rc, fsvc_error *err)
{
    rc = ds_slice_exchange(c, rc, NULL, 0, NULL, err);
    if (!rc) rc = ds_idx_check_finite(a, path, elem0, err);
    return ds_slice_exchange(c, rc, NULL, 0, NULL, err);
}

int ds_idx_load_pair_slice(fsvc_dataset *d, const char *images, const char *labels,
                           const fsvc_slice_comm *c, int64_t *first, int64_t *N_total,
                           fsvc_error *err)
{
    ds_dataset_init(d, images);
    ds_idx a, l;
    memset(&l, 0, sizeof l);
    int64_t N = 0, lo = 0, Nl = 0, lol = 0, e0 = 0;
    int rc = read_slice(&a, &N, &lo, &e0, images, c->rank, c->size, err);
    rc = finite_after_all(&a, e0, images, c, rc, err);
    int64_t n = rc ? 0 : a.dims[0] ? a.count / a.dims[0] : a.count;
    if (!rc && a.dims[0] == 0) { /* an empty slice: the features from the header */
        n = 1;
        for (int k = 1; k < a.rank; k++) n *= a.dims[k];
    }
    if (!rc && n > 0x7fffffff)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: %lld features per item is too many",
                       images, (long long)n);
    if (!rc && labels) {
        rc = read_slice(&l, &Nl, &lol, &e0, labels, c->rank, c->size, err);
        rc = finite_after_all(&l, e0, labels, c, rc, err);
        if (!rc && l.rank != 1 && !(l.rank == 2 && l.dims[1] == 1))
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: labels must be a rank-1 IDX array, "
                           "this one has rank %d", labels, l.rank);
        else if (!rc && Nl != N)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: %lld labels for %lld images in %s",
                           labels, (long long)Nl, (long long)N, images);
    }
    fsvc_dtype to = a.type == 0x08 ? FSVC_U8
                  : (a.type == 0x0C || a.type == 0x0E) ? FSVC_F64 : FSVC_F32;
    void *x = rc ? NULL : a.count ? ds_idx_convert(&a, to) : malloc(1);
    if (!rc && !x)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", images);
    if (!rc) {
        if (x == a.data) a.data = NULL;
        d->N = a.dims[0];
        d->n = (int)n;
        d->dtype = to;
        d->x = x;
        if (a.rank == 3) {
            d->rows = (int)a.dims[1];
            d->cols = (int)a.dims[2];
        }
        if (l.data) {
            /* the classes: indexed over all ranks by the caller */
            d->y = l.count ? ds_idx_convert(&l, FSVC_F64) : malloc(sizeof *d->y);
            if (!d->y) rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", labels);
            d->has_labels = 1;
        }
    }
    ds_idx_free(&a);
    ds_idx_free(&l);
    *first = lo;
    *N_total = N;
    rc = ds_slice_exchange(c, rc, NULL, 0, NULL, err);
    if (rc) fsvc_dataset_free(d);
    return rc;
}
