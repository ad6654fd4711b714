/* model_io.c - the model file: binary, versioned, self-describing.
 *
 *   "FSVCMODL" (8 bytes) | u32 format version | u64 payload bytes |
 *   payload | u32 CRC32 (zlib) of the payload
 *
 * Payload, little-endian: u32 dtype, n, rows, cols, scale, preprocess, dist,
 * act; f64 radius, prag; u32 select, readout, regression, K, Kout; f64
 * y_offset; u64 m; f64 class_values[K]; i32 lab[m]; centroids C[m*n] in
 * dtype (u8 bytes, IEEE f32/f64 bits); f64 R[m*Kout]. Written to a
 * temporary file in the same folder, then renamed. */
#include "fsvc.h"
#include "datasets/datasets.h" /* ds_open_input */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define MODEL_MAGIC "FSVCMODL"
#define MODEL_VERSION 1u

typedef struct { unsigned char *p; size_t len, cap; int oom; } wbuf;

static void put(wbuf *b, const void *src, size_t k)
{
    if (b->oom) return;
    if (b->len + k > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->len + k) nc *= 2;
        unsigned char *np = realloc(b->p, nc);
        if (!np) { b->oom = 1; return; }
        b->p = np; b->cap = nc;
    }
    memcpy(b->p + b->len, src, k);
    b->len += k;
}
static void put_u64(wbuf *b, uint64_t v)
{
    unsigned char t[8];
    for (int i = 0; i < 8; i++) t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, 8);
}
static void put_u32(wbuf *b, uint32_t v)
{
    unsigned char t[4];
    for (int i = 0; i < 4; i++) t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, 4);
}
static void put_f64(wbuf *b, double v) { uint64_t u; memcpy(&u, &v, 8); put_u64(b, u); }
static void put_f32(wbuf *b, float v) { uint32_t u; memcpy(&u, &v, 4); put_u32(b, u); }

typedef struct { const unsigned char *p; size_t len, pos; int bad; } rbuf;

static uint64_t get_u64(rbuf *b)
{
    if (b->bad || b->len - b->pos < 8) { b->bad = 1; return 0; }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)b->p[b->pos + i] << (8 * i);
    b->pos += 8;
    return v;
}
static uint32_t get_u32(rbuf *b)
{
    if (b->bad || b->len - b->pos < 4) { b->bad = 1; return 0; }
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)b->p[b->pos + i] << (8 * i);
    b->pos += 4;
    return v;
}
static double get_f64(rbuf *b) { uint64_t u = get_u64(b); double v; memcpy(&v, &u, 8); return v; }
static float get_f32(rbuf *b) { uint32_t u = get_u32(b); float v; memcpy(&v, &u, 4); return v; }

static void encode(wbuf *b, const fsvc_model *M)
{
    put_u32(b, M->dtype); put_u32(b, (uint32_t)M->n);
    put_u32(b, (uint32_t)M->rows); put_u32(b, (uint32_t)M->cols);
    put_u32(b, M->scale); put_u32(b, M->preprocess);
    put_u32(b, (uint32_t)M->dist); put_u32(b, (uint32_t)M->act);
    put_f64(b, M->radius); put_f64(b, M->prag);
    put_u32(b, M->select); put_u32(b, M->readout); put_u32(b, (uint32_t)M->regression);
    put_u32(b, (uint32_t)M->K); put_u32(b, (uint32_t)M->Kout);
    put_f64(b, M->y_offset);
    put_u64(b, (uint64_t)M->m);
    for (int k = 0; k < M->K; k++) put_f64(b, M->class_values[k]);
    for (int64_t j = 0; j < M->m; j++) put_u32(b, (uint32_t)M->lab[j]);
    size_t total = (size_t)M->m * M->n;
    if (M->dtype == FSVC_U8) put(b, M->C, total);
    else if (M->dtype == FSVC_F32) for (size_t q = 0; q < total; q++) put_f32(b, ((float *)M->C)[q]);
    else for (size_t q = 0; q < total; q++) put_f64(b, ((double *)M->C)[q]);
    for (size_t q = 0; q < (size_t)M->m * M->Kout; q++) put_f64(b, M->R[q]);
}

int fsvc_model_save(const fsvc_model *M, const char *path, fsvc_error *err)
{
    wbuf b = {0};
    put(&b, MODEL_MAGIC, 8);
    put_u32(&b, MODEL_VERSION);
    put_u64(&b, 0); /* payload length, patched below */
    size_t start = b.len;
    encode(&b, M);
    if (b.oom) { free(b.p); return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); }
    uint64_t plen = b.len - start;
    for (int i = 0; i < 8; i++) b.p[12 + i] = (unsigned char)(plen >> (8 * i));
    put_u32(&b, (uint32_t)crc32(0L, b.p + start, (uInt)plen));
    if (b.oom) { free(b.p); return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); }

    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp) { free(b.p); return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); }
    snprintf(tmp, pl + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp); free(b.p);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot create a temporary file: %s", path,
                         strerror(e));
    }
    FILE *f = fdopen(fd, "wb");
    int ok = f && fwrite(b.p, 1, b.len, f) == b.len;
    ok = (f ? fclose(f) == 0 : (close(fd), 0)) && ok;
    free(b.p);
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write the model: %s", path, strerror(e));
    }
    free(tmp);
    return FSVC_OK;
}

static int decode(fsvc_model *M, rbuf *b, const char *path, fsvc_error *err)
{
    M->dtype = get_u32(b); M->n = (int)get_u32(b);
    M->rows = (int)get_u32(b); M->cols = (int)get_u32(b);
    M->scale = get_u32(b); M->preprocess = get_u32(b);
    M->dist = (int)get_u32(b); M->act = (int)get_u32(b);
    M->radius = get_f64(b); M->prag = get_f64(b);
    M->select = get_u32(b); M->readout = get_u32(b); M->regression = (int)get_u32(b);
    uint32_t K = get_u32(b), Kout = get_u32(b);
    M->y_offset = get_f64(b);
    uint64_t m = get_u64(b);
    if (b->bad)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model header is truncated", path);
    size_t es = fsvc_dtype_size(M->dtype), left = b->len - b->pos;
    if (!es || M->n < 1 || M->n > (1 << 24) || M->dist < 0 || M->dist > 1 || M->act < 0 ||
        M->act > 1 || M->scale > FSVC_SCALE_PM1 || M->preprocess > FSVC_PRE_DESKEW_SQRT ||
        M->select > FSVC_SELECT_RANDOM || M->readout > FSVC_READOUT_RIDGE ||
        !(M->radius > 0) || K > 1000000 || Kout < 1 || Kout > 1000000 ||
        (M->regression ? Kout != 1 : Kout != K))
        return fsvc_fail(err, FSVC_EINPUT, "%s: model header has invalid fields", path);
    /* m must fit what is left: 8K + m(4 + n es + 8 Kout) bytes */
    double need = 8.0 * K + (double)m * (4.0 + (double)M->n * es + 8.0 * Kout);
    if (need != (double)left)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model payload size does not match its header",
                         path);
    M->K = (int)K; M->Kout = (int)Kout; M->m = (int64_t)m;
    M->class_values = malloc((K ? K : 1) * sizeof *M->class_values);
    M->lab = malloc((m ? m : 1) * sizeof *M->lab);
    M->C = malloc(m * M->n * es + 1);
    M->R = malloc((m ? m * Kout : 1) * sizeof *M->R);
    if (!M->class_values || !M->lab || !M->C || !M->R)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    for (uint32_t k = 0; k < K; k++) M->class_values[k] = get_f64(b);
    for (uint64_t j = 0; j < m; j++) {
        M->lab[j] = (int)get_u32(b);
        if (M->lab[j] < 0 || (K && M->lab[j] >= (int)K))
            return fsvc_fail(err, FSVC_EINPUT, "%s: centroid %llu has an invalid class", path,
                             (unsigned long long)j + 1);
    }
    size_t total = (size_t)m * M->n;
    if (M->dtype == FSVC_U8) { memcpy(M->C, b->p + b->pos, total); b->pos += total; }
    else if (M->dtype == FSVC_F32) for (size_t q = 0; q < total; q++) ((float *)M->C)[q] = get_f32(b);
    else for (size_t q = 0; q < total; q++) ((double *)M->C)[q] = get_f64(b);
    for (size_t q = 0; q < (size_t)m * Kout; q++) M->R[q] = get_f64(b);
    if (b->bad || b->pos != b->len)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model payload is inconsistent", path);
    return FSVC_OK;
}

int fsvc_model_load(fsvc_model *M, const char *path, fsvc_error *err)
{
    memset(M, 0, sizeof *M);
    FILE *f;
    int orc = ds_open_input(&f, path, err); /* regular files only, no blocking */
    if (orc)
        return orc;
    unsigned char h[20];
    size_t got = fread(h, 1, 20, f);
    if (got < 8 || memcmp(h, MODEL_MAGIC, 8)) {
        fclose(f);
        return fsvc_fail(err, FSVC_EINPUT, "%s: not an fsvc model file (bad magic)", path);
    }
    if (got < 20) {
        fclose(f);
        return fsvc_fail(err, FSVC_EINPUT, "%s: model file is truncated (%zu bytes)", path, got);
    }
    uint32_t ver = 0;
    uint64_t plen = 0;
    for (int i = 0; i < 4; i++) ver |= (uint32_t)h[8 + i] << (8 * i);
    for (int i = 0; i < 8; i++) plen |= (uint64_t)h[12 + i] << (8 * i);
    if (ver > MODEL_VERSION || ver == 0) {
        fclose(f);
        return fsvc_fail(err, FSVC_EINPUT, "%s: model format version %u, this fsvc reads "
                         "version %u", path, ver, MODEL_VERSION);
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return fsvc_fail(err, FSVC_EINPUT, "%s: cannot seek", path);
    }
    long size = ftell(f);
    if (size < 0 || (uint64_t)size != 20 + plen + 4) {
        fclose(f);
        return fsvc_fail(err, FSVC_EINPUT, "%s: model file is %s (%ld bytes, header says %llu)",
                         path, size >= 0 && (uint64_t)size < 24 + plen ? "truncated" : "too long",
                         size, (unsigned long long)(24 + plen));
    }
    unsigned char *p = malloc(plen + 4);
    if (!p) { fclose(f); return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); }
    int ok = fseek(f, 20, SEEK_SET) == 0 && fread(p, 1, plen + 4, f) == plen + 4;
    fclose(f);
    if (!ok) { free(p); return fsvc_fail(err, FSVC_EINPUT, "%s: read error", path); }
    uint32_t crc = 0;
    for (int i = 0; i < 4; i++) crc |= (uint32_t)p[plen + i] << (8 * i);
    if (crc != (uint32_t)crc32(0L, p, (uInt)plen)) {
        free(p);
        return fsvc_fail(err, FSVC_EINPUT, "%s: model file is corrupted (CRC32 mismatch)", path);
    }
    rbuf b = { p, (size_t)plen, 0, 0 };
    int rc = decode(M, &b, path, err);
    free(p);
    if (rc) fsvc_free_model(M);
    return rc;
}
