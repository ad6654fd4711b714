/* io.c - whole-file reads, gzip streams over memory (zlib inflate), writes
 * through a temporary file and rename, shortest round-trip doubles. */
#include "datasets/datasets.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int ds_read_file(unsigned char **buf, size_t *len, const char *path,
                 fsvc_error *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return fsvc_fail(err, FSVC_EINPUT, "%s: cannot open: %s", path,
                         strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return fsvc_fail(err, FSVC_EINPUT, "%s: is a folder, not a file", path);
    }
    size_t cap = (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
                     ? (size_t)st.st_size + 1 : 1 << 16;
    unsigned char *b = malloc(cap);
    size_t n = 0;
    for (;;) {
        if (!b) {
            fclose(f);
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory reading %zu bytes",
                             path, cap);
        }
        n += fread(b + n, 1, cap - n, f);
        if (n < cap) break;
        unsigned char *nb = cap < SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
        if (!nb) free(b);
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
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: zlib inflateInit failed", name);
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
            /* another gzip member may follow; anything else ends the data */
            if (ds_is_gzip(s->buf + s->pos, s->len - s->pos)) {
                inflateReset(z);
            } else {
                s->z_end = 1;
            }
        } else if (rc == Z_BUF_ERROR && s->pos >= s->len) {
            return fsvc_fail(err, FSVC_EINPUT,
                             "%s: truncated gzip data (compressed stream ends at "
                             "byte %zu after %llu decompressed bytes)",
                             s->name, s->len, (unsigned long long)s->produced);
        } else if (rc != Z_OK) {
            return fsvc_fail(err, rc == Z_MEM_ERROR ? FSVC_ERESOURCE : FSVC_EINPUT,
                             "%s: corrupt gzip data near compressed byte %zu: %s",
                             s->name, s->pos, z->msg ? z->msg : zError(rc));
        }
    }
    return FSVC_OK;
}

int ds_tmp_open(FILE **f, char *tmp, size_t tmpsz, const char *path,
                fsvc_error *err)
{
    *f = NULL;
    if ((size_t)snprintf(tmp, tmpsz, "%s.tmpXXXXXX", path) >= tmpsz)
        return fsvc_fail(err, FSVC_EINPUT, "%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot create a temporary file: %s",
                         path, strerror(errno));
    *f = fdopen(fd, "wb");
    if (!*f) {
        close(fd);
        unlink(tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: fdopen: %s", path, strerror(errno));
    }
    return FSVC_OK;
}

int ds_tmp_commit(FILE *f, const char *tmp, const char *path, fsvc_error *err)
{
    int bad = ferror(f) | fflush(f);
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: write error: %s", path, strerror(e));
    }
    if (chmod(tmp, 0644) != 0 || rename(tmp, path) != 0) {
        e = errno;
        unlink(tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot rename the temporary file: %s",
                         path, strerror(e));
    }
    return FSVC_OK;
}

void ds_tmp_abort(FILE *f, const char *tmp)
{
    if (f)
        fclose(f);
    unlink(tmp);
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
