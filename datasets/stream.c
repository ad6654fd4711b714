/* stream.c - a file read as a stream from the start: plain bytes, or a
 * gzip file inflated as it is read (zlib's gzread); skipping forward seeks
 * in a plain file and inflates and drops in a gzip one. For the slice
 * loaders (idx_slice.c, libsvm_slice.c): memory stays with what is kept. */
#include "datasets/loaders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

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
    int fd = dup(fileno(f));
    fclose(f);
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0 || !(s->g = gzdopen(fd, "rb"))) {
        if (fd >= 0) close(fd);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot open the stream", path);
    }
    gzbuffer(((gzFile)s->g), 1 << 17);
    return FSVC_OK;
}

void ds_stream_close(ds_stream *s)
{
    if (s->g) gzclose((gzFile)s->g);
    s->g = NULL;
}

/* Up to n bytes into dst (NULL: dropped); *got < n only at the end. */
int ds_stream_read(ds_stream *s, void *dst, uint64_t n, uint64_t *got, fsvc_error *err)
{
    static unsigned char sink[1 << 16];
    *got = 0;
    while (*got < n) {
        uint64_t want = n - *got;
        unsigned cap = dst ? (1u << 30) : (unsigned)sizeof sink;
        unsigned w = want > cap ? cap : (unsigned)want;
        int k = gzread(((gzFile)s->g), dst ? (unsigned char *)dst + *got : sink, w);
        if (k < 0) {
            int e;
            const char *msg = gzerror(((gzFile)s->g), &e);
            return fsvc_fail(err, e == Z_MEM_ERROR ? FSVC_ERESOURCE : FSVC_EINPUT,
                             "%s: %s gzip data after %llu decompressed bytes: %s", s->name,
                             e == Z_BUF_ERROR ? "truncated" : "corrupt",
                             (unsigned long long)(s->pos + *got), msg);
        }
        *got += (uint64_t)k;
        if ((unsigned)k < w) break;
    }
    s->pos += *got;
    return FSVC_OK;
}

/* Moves to decompressed offset off (forward): plain files seek. */
int ds_stream_skip(ds_stream *s, uint64_t off, fsvc_error *err)
{
    if (off <= s->pos) return FSVC_OK;
    if (!s->gz) {
        if (gzseek(((gzFile)s->g), (z_off_t)off, SEEK_SET) < 0)
            return fsvc_fail(err, FSVC_EINPUT, "%s: cannot seek to byte %llu", s->name,
                             (unsigned long long)off);
        s->pos = off;
        return FSVC_OK;
    }
    uint64_t got;
    return ds_stream_read(s, NULL, off - s->pos, &got, err);
}

