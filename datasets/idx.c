/* idx.c - IDX arrays (the MNIST format), raw or gzip, any IDX type.
 *
 * Layout: 00 00 TYPE RANK, RANK big-endian u32 dimensions, then the
 * elements big-endian, row-major. The header is checked against the bytes
 * the input can really hold before anything is allocated, and the payload is
 * read incrementally, so a truncated or lying file fails cleanly. */
#include "datasets/loaders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t ds_idx_type_size(int type)
{
    switch (type) {
    case 0x08: case 0x09: return 1;
    case 0x0B: return 2;
    case 0x0C: case 0x0D: return 4;
    case 0x0E: return 8;
    }
    return 0;
}

void ds_idx_free(ds_idx *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* Big-endian elements of size sz to host order, in place. */
void ds_idx_to_host(unsigned char *p, int64_t count, size_t sz)
{
    const unsigned one = 1;
    if (sz == 1 || *(const unsigned char *)&one == 0)
        return; /* big-endian host */
    for (int64_t i = 0; i < count; i++, p += sz)
        for (size_t k = 0; k < sz / 2; k++) {
            unsigned char t = p[k];
            p[k] = p[sz - 1 - k];
            p[sz - 1 - k] = t;
        }
}

static int read_exact(ds_src *s, void *dst, size_t n, const char *what,
                      fsvc_error *err)
{
    size_t got;
    int rc = ds_src_read(s, dst, n, &got, err);
    if (rc)
        return rc;
    if (got < n)
        return fsvc_fail(err, FSVC_EINPUT, "%s: file ends inside the %s "
                         "(byte %llu of the data; need %zu more bytes)",
                         s->name, what, (unsigned long long)s->produced, n - got);
    return FSVC_OK;
}

int ds_idx_check_finite(const ds_idx *a, const char *name, int64_t first, fsvc_error *err)
{
    int64_t bad = -1;
    if (a->type == 0x0D) {
        const float *v = a->data;
        for (int64_t i = 0; i < a->count && bad < 0; i++)
            if (!isfinite(v[i])) bad = i;
    } else if (a->type == 0x0E) {
        const double *v = a->data;
        for (int64_t i = 0; i < a->count && bad < 0; i++)
            if (!isfinite(v[i])) bad = i;
    }
    if (bad >= 0)
        return fsvc_fail(err, FSVC_EINPUT, "%s: NaN or Inf at element %lld "
                         "(byte offset %llu of the data)", name, (long long)(first + bad),
                         (unsigned long long)(4 + 4 * a->rank +
                                              (first + bad) * ds_idx_type_size(a->type)));
    return FSVC_OK;
}

int ds_idx_check_claim(const char *name, uint64_t count, uint64_t bytes, uint64_t max,
                       uint64_t room, const char *what, fsvc_error *err)
{
    char lim[80];
    if (bytes > max)
        return fsvc_fail(err, FSVC_EINPUT, "%s: IDX header claims %llu items (%llu bytes), "
                         "more than the load limit (%s)", name, (unsigned long long)count,
                         (unsigned long long)bytes, ds_limit_text(lim, sizeof lim, max));
    if (bytes > room)
        return fsvc_fail(err, FSVC_EINPUT, "%s: IDX header claims %llu items (%llu bytes), "
                         "more than the %s can hold (%llu bytes)", name,
                         (unsigned long long)count, (unsigned long long)bytes, what,
                         (unsigned long long)room);
    return FSVC_OK;
}

static int parse_src(ds_idx *a, ds_src *s, const char *name, uint64_t max_bytes,
                     fsvc_error *err)
{
    unsigned char h[4 + 4 * 4]; /* magic + up to 4 dimensions */
    int rc = read_exact(s, h, 4, "IDX header", err);
    if (rc)
        return rc;
    size_t sz = ds_idx_type_size(h[2]);
    if (h[0] != 0 || h[1] != 0 || sz == 0 || h[3] < 1 || h[3] > 4)
        return fsvc_fail(err, FSVC_EINPUT, "%s: not an IDX file (magic %02x %02x %02x "
                         "%02x; want 00 00, a type of 08 09 0B 0C 0D 0E, rank 1..4)",
                         name, h[0], h[1], h[2], h[3]);
    a->type = h[2];
    a->rank = h[3];
    if ((rc = read_exact(s, h + 4, 4 * (size_t)a->rank, "IDX header", err)))
        return rc;
    uint64_t count = 1;
    for (int k = 0; k < a->rank; k++) {
        const unsigned char *p = h + 4 + 4 * k;
        uint64_t dim = (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | p[2] << 8 | p[3];
        if (dim == 0)
            return fsvc_fail(err, FSVC_EINPUT, "%s: IDX dimension %d is 0", name, k);
        a->dims[k] = (int64_t)dim;
        if (count > (UINT64_MAX >> 1) / dim) /* dims < 2^32, sizes < 2^63 */
            count = UINT64_MAX >> 1;
        else
            count *= dim;
    }
    uint64_t bytes = count > (UINT64_MAX >> 4) ? UINT64_MAX : count * sz;
    if ((rc = ds_idx_check_claim(name, count, bytes, max_bytes, ds_src_max_left(s),
                                 s->gz ? "gzip stream" : "file", err)))
        return rc;
    a->count = (int64_t)count;
    /* gzip: the header is only a claim until the bytes arrive, so memory
     * grows with the data (from 16 MiB, doubling) instead of trusting the
     * claim up front: a small bomb with a big claim costs little */
    uint64_t start = (uint64_t)1 << 24;
    uint64_t cap = s->gz && bytes > start ? start : bytes;
    a->data = malloc(cap ? cap : 1);
    uint64_t have = 0;
    for (;;) {
        if (!a->data)
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %llu bytes",
                             name, (unsigned long long)cap);
        size_t got;
        if ((rc = ds_src_read(s, (unsigned char *)a->data + have, cap - have, &got, err)))
            return rc;
        have += got;
        if (have < cap || cap == bytes)
            break;
        cap = cap * 2 < bytes ? cap * 2 : bytes;
        void *p = realloc(a->data, cap);
        if (!p)
            free(a->data);
        a->data = p;
    }
    if (have < bytes)
        return fsvc_fail(err, FSVC_EINPUT, "%s: payload is %llu bytes, shorter than the "
                         "%llu bytes the IDX header says (%lld items)", name,
                         (unsigned long long)have, (unsigned long long)bytes,
                         (long long)count);
    unsigned char extra;
    size_t got;
    if ((rc = ds_src_read(s, &extra, 1, &got, err)))
        return rc;
    if (got)
        return fsvc_fail(err, FSVC_EINPUT, "%s: data goes on after the %llu bytes the "
                         "IDX header says", name, (unsigned long long)bytes);
    ds_idx_to_host(a->data, a->count, sz);
    return ds_idx_check_finite(a, name, 0, err);
}

int ds_idx_parse(ds_idx *a, const unsigned char *buf, size_t len,
                 const char *name, uint64_t max_bytes, fsvc_error *err)
{
    memset(a, 0, sizeof *a);
    ds_src s;
    int rc = ds_src_open(&s, buf, len, name, err);
    if (rc)
        return rc;
    rc = parse_src(a, &s, name, max_bytes, err);
    ds_src_close(&s);
    if (rc)
        ds_idx_free(a);
    return rc;
}

int ds_idx_read(ds_idx *a, const char *path, fsvc_error *err)
{
    memset(a, 0, sizeof *a);
    unsigned char *buf;
    size_t len;
    int rc = ds_read_file(&buf, &len, path, err);
    if (rc)
        return rc;
    size_t pl = strlen(path);
    if (pl > 3 && !strcmp(path + pl - 3, ".gz") && !ds_is_gzip(buf, len)) {
        free(buf);
        return fsvc_fail(err, FSVC_EINPUT, "%s: not gzip data (no gzip magic bytes "
                         "1f 8b) although the name ends in .gz", path);
    }
    rc = ds_idx_parse(a, buf, len, path, ds_max_bytes(), err);
    free(buf);
    return rc;
}
