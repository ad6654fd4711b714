/* io.c - safe input files (regular files only, never blocking on a FIFO or
 * device), whole-file reads under the load limit, gzip streams over memory
 * (zlib inflate), shortest round-trip doubles. Output: safe_write.c. */
#include "datasets/datasets.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

uint64_t ds_max_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psz <= 0)
        return DS_MAX_BYTES;
    uint64_t ram = (uint64_t)pages * (uint64_t)psz;
    return ram < DS_MAX_BYTES ? ram : DS_MAX_BYTES;
}

const char *ds_limit_text(char *out, size_t sz, uint64_t max_bytes)
{
    if (max_bytes == ds_max_bytes())
        snprintf(out, sz, "%.1f GiB = min(64 GiB, physical RAM)",
                 (double)max_bytes / (1 << 30));
    else
        snprintf(out, sz, "%llu bytes", (unsigned long long)max_bytes);
    return out;
}

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a plain file";
}

int ds_open_errno_code(int e)
{
    return e == ENOMEM || e == EMFILE || e == ENFILE ? FSVC_ERESOURCE : FSVC_EINPUT;
}

int ds_open_input(FILE **f, const char *path, fsvc_error *err)
{
    *f = NULL;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return fsvc_fail(err, ds_open_errno_code(e), "%s: cannot open: %s", path, strerror(e));
    }
    struct stat st;
    int rc = FSVC_OK;
    if (fstat(fd, &st) != 0)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: cannot stat: %s", path, strerror(errno));
    else if (S_ISDIR(st.st_mode))
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: is a folder, not a file", path);
    else if (!S_ISREG(st.st_mode))
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: not a regular file (%s); give a file",
                       path, kind_of(st.st_mode));
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: fcntl: %s", path, strerror(errno));
    else if (!(*f = fdopen(fd, "rb")))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: fdopen: %s", path, strerror(errno));
    if (rc)
        close(fd);
    return rc;
}

int ds_read_file(unsigned char **buf, size_t *len, const char *path,
                 fsvc_error *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f;
    int rc = ds_open_input(&f, path, err);
    if (rc)
        return rc;
    struct stat st;
    uint64_t max = ds_max_bytes();
    if (fstat(fileno(f), &st) != 0) {
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: cannot stat: %s", path, strerror(errno));
        fclose(f);
        return rc;
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > max) {
        char lim[80];
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: file is %lld bytes, more than the load "
                       "limit (%s)", path, (long long)st.st_size,
                       ds_limit_text(lim, sizeof lim, max));
        fclose(f);
        return rc;
    }
    /* the size at open, +1 to see the end; a file that grows while it is
     * read is read on, up to the limit */
    size_t cap = (size_t)st.st_size + 1;
    unsigned char *b = malloc(cap);
    size_t n = 0;
    for (;;) {
        if (!b) {
            fclose(f);
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory reading %zu bytes",
                             path, cap);
        }
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap > max) {
            free(b);
            fclose(f);
            char lim[80];
            return fsvc_fail(err, FSVC_EINPUT, "%s: file grew past the load limit (%s) "
                             "while read", path, ds_limit_text(lim, sizeof lim, max));
        }
        unsigned char *nb = realloc(b, cap * 2);
        if (!nb)
            free(b);
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        free(b);
        return fsvc_fail(err, FSVC_EINPUT, "%s: read error: %s", path, strerror(e));
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    return FSVC_OK;
}

int ds_is_gzip(const unsigned char *buf, size_t len)
{
    return len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

int ds_src_open(ds_src *s, const unsigned char *buf, size_t len,
                const char *name, fsvc_error *err)
{
    memset(s, 0, sizeof *s);
    s->buf = buf;
    s->len = len;
    s->name = name;
    s->gz = ds_is_gzip(buf, len);
    if (!s->gz)
        return FSVC_OK;
    z_stream *z = calloc(1, sizeof *z);
    if (!z)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", name);
    if (inflateInit2(z, 16 + MAX_WBITS) != Z_OK) {
        free(z);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for the gzip decoder "
                             "(zlib inflateInit)", name);
    }
    s->z = z;
    s->z_ready = 1;
    return FSVC_OK;
}

void ds_src_close(ds_src *s)
{
    if (s->z_ready)
        inflateEnd(s->z);
    free(s->z);
    s->z = NULL;
    s->z_ready = 0;
}

uint64_t ds_src_max_left(const ds_src *s)
{
    uint64_t left = s->len - s->pos;
    if (!s->gz)
        return left;
    return ds_gz_max_out(left);
}

uint64_t ds_gz_max_out(uint64_t left)
{
    /* deflate cannot expand more than 1032:1; allow for the stream's slack */
    return left * 1032 + 65536;
}

int ds_src_read(ds_src *s, void *dst, size_t n, size_t *got, fsvc_error *err)
{
    unsigned char *out = dst;
    *got = 0;
    if (!s->gz) {
        size_t k = s->len - s->pos < n ? s->len - s->pos : n;
        memcpy(out, s->buf + s->pos, k);
        s->pos += k;
        s->produced += k;
        *got = k;
        return FSVC_OK;
    }
    z_stream *z = s->z;
    while (*got < n && !s->z_end) {
        size_t in_left = s->len - s->pos;
        size_t want = n - *got;
        z->next_in = (unsigned char *)s->buf + s->pos;
        z->avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
        z->next_out = out + *got;
        z->avail_out = want > (1u << 30) ? (1u << 30) : (uInt)want;
        uInt in0 = z->avail_in, out0 = z->avail_out;
        int rc = inflate(z, Z_NO_FLUSH);
        s->pos += in0 - z->avail_in;
        *got += out0 - z->avail_out;
        s->produced += out0 - z->avail_out;
        if (rc == Z_STREAM_END) {
            /* another gzip member may follow; anything else is garbage */
            if (ds_is_gzip(s->buf + s->pos, s->len - s->pos)) {
                inflateReset(z);
            } else if (s->pos < s->len) {
                return fsvc_fail(err, FSVC_EINPUT, "%s: %zu bytes of trailing garbage after "
                                 "the gzip stream (from compressed byte %zu)", s->name,
                                 s->len - s->pos, s->pos);
            } else {
                s->z_end = 1;
            }
        } else if (rc == Z_BUF_ERROR && s->pos >= s->len) {
            return fsvc_fail(err, FSVC_EINPUT,
                             "%s: truncated gzip data (compressed stream ends at "
                             "byte %zu after %llu decompressed bytes)",
                             s->name, s->len, (unsigned long long)s->produced);
        } else if (rc != Z_OK) {
            if (rc == Z_MEM_ERROR)
                return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory decompressing the gzip "
                                 "data", s->name);
            return fsvc_fail(err, FSVC_EINPUT, "%s: corrupt gzip data near compressed byte %zu: %s",
                             s->name, s->pos, z->msg ? z->msg : zError(rc));
        }
    }
    return FSVC_OK;
}

void ds_format_double(char *out, size_t outsz, double v)
{
    /* any decimal of <= 15 digits round-trips, so %.15g finds those */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, outsz, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}
