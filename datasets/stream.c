/* stream.c - a file read as a stream from the start: plain bytes, or a
 * gzip file inflated as it is read (zlib inflate over a 256 KiB input
 * buffer: one or more members, trailing garbage, truncation and corrupt
 * data refused with the messages of ds_src_read); skipping forward seeks
 * in a plain file and inflates and drops in a gzip one. For the slice
 * loaders (idx_slice.c, libsvm_slice.c): memory stays with what is kept. */
#include "datasets/loaders.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define IN_CHUNK ((size_t)1 << 18)
#define SINK ((size_t)1 << 16)

typedef struct zin {
    FILE *f;
    z_stream z;
    int z_ready, z_end;
    unsigned char in[IN_CHUNK];
    uint64_t in_read;  /* compressed bytes read from the file */
    /* skipped bytes land here: one per stream, never shared (inflate reads
     * back-references from its own output, so streams on other threads
     * writing the same sink would corrupt what this one inflates) */
    unsigned char sink[SINK];
} zin;

int ds_stream_open(ds_stream *s, const char *path, fsvc_error *err)
{
    memset(s, 0, sizeof *s);
    s->name = path;
    FILE *f;
    int rc = ds_open_input(&f, path, err);
    if (rc)
        return rc;
    struct stat st;
    unsigned char m[2] = {0, 0};
    size_t got = fread(m, 1, 2, f);
    s->gz = ds_is_gzip(m, got);
    if (fstat(fileno(f), &st) == 0) s->fsize = (uint64_t)st.st_size;
    size_t pl = strlen(path);
    if (pl > 3 && !strcmp(path + pl - 3, ".gz") && !s->gz) {
        fclose(f);
        return fsvc_fail(err, FSVC_EINPUT, "%s: not gzip data (no gzip magic bytes "
                         "1f 8b) although the name ends in .gz", path);
    }
    zin *zi = calloc(1, sizeof *zi);
    if (!zi) {
        fclose(f);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    }
    zi->f = f;
    s->g = zi;
    if (fseeko(f, 0, SEEK_SET) != 0)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: cannot seek: %s", path, strerror(errno));
    else if (s->gz && inflateInit2(&zi->z, 16 + MAX_WBITS) != Z_OK)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for the gzip decoder "
                       "(zlib inflateInit)", path);
    zi->z_ready = s->gz && !rc;
    if (rc) ds_stream_close(s);
    return rc;
}

void ds_stream_close(ds_stream *s)
{
    zin *zi = s->g;
    if (zi) {
        if (zi->z_ready) inflateEnd(&zi->z);
        if (zi->f) fclose(zi->f);
        free(zi);
    }
    s->g = NULL;
}

/* More compressed input after what is left unread; 0 at the end. */
static size_t refill(zin *zi)
{
    size_t left = zi->z.avail_in;
    if (left && zi->z.next_in != zi->in)
        memmove(zi->in, zi->z.next_in, left);
    size_t k = fread(zi->in + left, 1, IN_CHUNK - left, zi->f);
    zi->in_read += k;
    zi->z.next_in = zi->in;
    zi->z.avail_in = (uInt)(left + k);
    return k;
}

static int gz_read(ds_stream *s, unsigned char *dst, uint64_t n, uint64_t *got,
                   fsvc_error *err)
{
    zin *zi = s->g;
    unsigned char *sink = zi->sink;
    z_stream *z = &zi->z;
    while (*got < n && !zi->z_end) {
        if (z->avail_in == 0 && refill(zi) == 0 && ferror(zi->f))
            return fsvc_fail(err, FSVC_EINPUT, "%s: read error: %s", s->name, strerror(errno));
        uint64_t want = n - *got, cap = dst ? (uint64_t)1 << 30 : SINK;
        z->next_out = dst ? dst + *got : sink;
        z->avail_out = (uInt)(want < cap ? want : cap);
        uInt out0 = z->avail_out;
        int rc = inflate(z, Z_NO_FLUSH);
        *got += out0 - z->avail_out;
        size_t pos = (size_t)(zi->in_read - z->avail_in); /* compressed bytes used */
        if (rc == Z_STREAM_END) {
            /* another gzip member may follow; anything else is garbage */
            if (z->avail_in < 2) refill(zi);
            if (ds_is_gzip(z->next_in, z->avail_in)) {
                inflateReset(z);
            } else if (z->avail_in > 0) {
                return fsvc_fail(err, FSVC_EINPUT, "%s: %zu bytes of trailing garbage after "
                                 "the gzip stream (from compressed byte %zu)", s->name,
                                 (size_t)(s->fsize > pos ? s->fsize - pos : z->avail_in), pos);
            } else {
                zi->z_end = 1;
            }
        } else if (rc == Z_BUF_ERROR && z->avail_in == 0 && feof(zi->f)) {
            return fsvc_fail(err, FSVC_EINPUT, "%s: truncated gzip data (compressed stream "
                             "ends at byte %zu after %llu decompressed bytes)", s->name, pos,
                             (unsigned long long)(s->pos + *got));
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            if (rc == Z_MEM_ERROR)
                return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory decompressing the gzip "
                                 "data", s->name);
            return fsvc_fail(err, FSVC_EINPUT, "%s: corrupt gzip data near compressed byte %zu: %s",
                             s->name, pos, z->msg ? z->msg : zError(rc));
        }
    }
    return FSVC_OK;
}

int ds_stream_read(ds_stream *s, void *dst, uint64_t n, uint64_t *got, fsvc_error *err)
{
    zin *zi = s->g;
    unsigned char *sink = zi->sink;
    *got = 0;
    int rc = FSVC_OK;
    if (s->gz) {
        rc = gz_read(s, dst, n, got, err);
    } else {
        while (*got < n) {
            uint64_t want = n - *got;
            size_t w = dst ? (size_t)want : (want < SINK ? (size_t)want : SINK);
            size_t k = fread(dst ? (unsigned char *)dst + *got : sink, 1, w, zi->f);
            *got += k;
            if (k < w) {
                if (ferror(zi->f))
                    rc = fsvc_fail(err, FSVC_EINPUT, "%s: read error: %s", s->name,
                                   strerror(errno));
                break;
            }
        }
    }
    s->pos += *got;
    return rc;
}

uint64_t ds_stream_room(const ds_stream *s)
{
    if (!s->gz) return s->fsize > s->pos ? s->fsize - s->pos : 0;
    const zin *zi = s->g;
    uint64_t used = zi->in_read - zi->z.avail_in;
    return ds_gz_max_out(s->fsize > used ? s->fsize - used : 0);
}

int ds_stream_skip(ds_stream *s, uint64_t off, fsvc_error *err)
{
    if (off <= s->pos) return FSVC_OK;
    if (!s->gz) {
        zin *zi = s->g;
        if (off > (uint64_t)LLONG_MAX || fseeko(zi->f, (off_t)off, SEEK_SET) != 0)
            return fsvc_fail(err, FSVC_EINPUT, "%s: cannot seek to byte %llu", s->name,
                             (unsigned long long)off);
        s->pos = off;
        return FSVC_OK;
    }
    uint64_t got;
    return ds_stream_read(s, NULL, off - s->pos, &got, err);
}
