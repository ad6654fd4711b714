/* model_io.c - the model file: binary, versioned, self-describing.
 *
 *   "FSVCMODL" (8 bytes) | u32 format version | u64 payload bytes |
 *   payload | u32 CRC32 (zlib) of the payload
 *
 * Payload, little-endian: u32 dtype, n, rows, cols, scale, preprocess, dist,
 * act; f64 radius, prag; u32 select, readout, regression, K, Kout; f64
 * y_offset; u64 m; f64 class_values[K]; i32 lab[m]; centroids C[m*n] in
 * dtype (u8 bytes, IEEE f32/f64 bits); f64 R[m*Kout]. Version 2 appends
 * the class names: u32 count (0 or K), then per class u32 bytes + the
 * bytes (no NUL). Version 3 appends the feature scaling: u32 kind (0 none,
 * 1 range), then for range f64 min[n] and f64 max[n]. Version 4 (written
 * for sparse models only; dense models are still written as version 3)
 * adds after m: u32 storage (0 dense, 1 sparse) and, when sparse, u64 nnz;
 * a sparse model's centroids are then u64 row_ptr[m+1], u32 col[nnz] and
 * f32 val[nnz] (CSR, 8 bytes a nonzero) in place of C. Version 5 (written
 * only for a model trained with a reduced precision, dense or sparse; the
 * others keep versions 3 and 4, byte for byte) is version 4 plus a u32
 * bnl_precision at the end (1 tf32, 2 bf16). Version 6 (written only for a
 * model that records how it reads images, RGB or resized, or has a
 * probability calibration, fsvc/calibrate.h) is version 5 (precision 0
 * allowed: full) plus tagged sections: u32 count, then per section u32
 * tag, u32 bytes, the bytes; tag 1, the images: u32 rows, cols, channels,
 * flags (bit 0: resize); tag 2, the calibration: u32 kind (1: temperature)
 * and f64 a > 0. Version 7 (written only for a model with HOG features,
 * fsvc/hog.h) is version 6 plus, after the storage field, u32 features (1:
 * hog) and f64 hog_scale; its centroids then hold fsvc_model_width values
 * each (n, then the HOG's). Version 1 files (no names), 2 (no scaling), 3 (dense
 * only), 4 (full precision) and 5 still load; without a calibration the
 * probabilities are the plain softmax of the scores.
 *
 * The reader parses from memory (fsvc_model_parse, also the fuzz target's
 * entry): every size read from the file is checked in 64-bit arithmetic
 * against the model limits and against the bytes actually present before
 * anything is allocated, then every value by fsvc_model_check. The writer
 * goes through the project's safe-write primitive (ds_tmp_*). */
#include "fsvc.h"
#include "datasets/datasets.h" /* ds_read_file, ds_tmp_*: the one safe write */
#include "../layers/bnl_types.h" /* bnl_precision */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MODEL_MAGIC "FSVCMODL"
#define MODEL_VERSION 7u /* 7: HOG features; 6: sections (images, calibration); 5: precision;
                            4: sparse centroids; 3: feature scaling; 2: class
                            names; 1: neither */
#define MODEL_VERSION_SECTIONS 6u /* images or a calibration, no features */
#define MODEL_VERSION_PREC 5u /* a reduced-precision model without sections */
#define MODEL_VERSION_SPARSE 4u /* what a full-precision sparse model is written as */
#define MODEL_VERSION_DENSE 3u /* what a dense model is written as */
#define MODEL_HEAD 20    /* magic, version, payload length */

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

#define SECTION_IMAGE 1u
#define SECTION_CALIBRATION 2u
#define IMAGE_MAX_SIDE 16384

/* 1 when the model needs the image section (version 6) */
static int has_image_section(const fsvc_model *M)
{
    return M->img_channels == 3 || M->img_resize;
}

/* The version a model is written as: the lowest that holds it, so that
 * older readers keep reading what they can. */
static uint32_t version_of(const fsvc_model *M)
{
    return M->features != FSVC_FEAT_PIXELS ? MODEL_VERSION
         : has_image_section(M) || M->proba_a > 0 ? MODEL_VERSION_SECTIONS
         : M->precision ? MODEL_VERSION_PREC
         : M->Cs ? MODEL_VERSION_SPARSE : MODEL_VERSION_DENSE;
}

/* The image fields: a size and channels that make n, flags 0 or 1. */
static int check_image(const fsvc_model *M, const char *path, fsvc_error *err)
{
    int ch = M->img_channels ? M->img_channels : 1;
    if ((ch != 1 && ch != 3) || M->img_rows < 0 || M->img_cols < 0 ||
        M->img_rows > IMAGE_MAX_SIDE || M->img_cols > IMAGE_MAX_SIDE ||
        (unsigned)M->img_resize > 1 || (M->img_resize && M->img_rows < 1) ||
        (ch == 3 && M->img_rows < 1) || (!M->img_rows != !M->img_cols) ||
        (M->img_rows && (int64_t)M->img_rows * M->img_cols * ch != M->n))
        return fsvc_fail(err, FSVC_EINPUT, "%s: image fields %d x %d x %d channels (resize "
                         "%d) do not match the %d features", path, M->img_rows, M->img_cols,
                         M->img_channels, M->img_resize, M->n);
    return FSVC_OK;
}

static void encode(wbuf *b, const fsvc_model *M)
{
    uint32_t ver = version_of(M);
    put_u32(b, M->dtype); put_u32(b, (uint32_t)M->n);
    put_u32(b, (uint32_t)M->rows); put_u32(b, (uint32_t)M->cols);
    put_u32(b, M->scale); put_u32(b, M->preprocess);
    put_u32(b, (uint32_t)M->dist); put_u32(b, (uint32_t)M->act);
    put_f64(b, M->radius); put_f64(b, M->prag);
    put_u32(b, M->select); put_u32(b, M->readout); put_u32(b, (uint32_t)M->regression);
    put_u32(b, (uint32_t)M->K); put_u32(b, (uint32_t)M->Kout);
    put_f64(b, M->y_offset);
    put_u64(b, (uint64_t)M->m);
    if (M->Cs) { put_u32(b, 1); put_u64(b, (uint64_t)M->Cs->nnz); }
    else if (ver >= 5) put_u32(b, 0); /* the storage field */
    if (ver >= 7) { put_u32(b, (uint32_t)M->features); put_f64(b, M->hog_scale); }
    for (int k = 0; k < M->K; k++) put_f64(b, M->class_values[k]);
    for (int64_t j = 0; j < M->m; j++) put_u32(b, (uint32_t)M->lab[j]);
    size_t total = (size_t)M->m * (size_t)fsvc_model_width(M);
    if (M->Cs) {
        for (int64_t j = 0; j <= M->m; j++) put_u64(b, (uint64_t)M->Cs->row_ptr[j]);
        for (int64_t q = 0; q < M->Cs->nnz; q++) put_u32(b, (uint32_t)M->Cs->col[q]);
        for (int64_t q = 0; q < M->Cs->nnz; q++) put_f32(b, M->Cs->val[q]);
    } else if (M->dtype == FSVC_U8) put(b, M->C, total);
    else if (M->dtype == FSVC_F32) for (size_t q = 0; q < total; q++) put_f32(b, ((float *)M->C)[q]);
    else for (size_t q = 0; q < total; q++) put_f64(b, ((double *)M->C)[q]);
    for (size_t q = 0; q < (size_t)M->m * M->Kout; q++) put_f64(b, M->R[q]);
    put_u32(b, M->class_names ? (uint32_t)M->K : 0);
    for (int k = 0; M->class_names && k < M->K; k++) {
        size_t l = strlen(M->class_names[k]);
        put_u32(b, (uint32_t)l);
        put(b, M->class_names[k], l);
    }
    put_u32(b, M->feat_min ? 1 : 0);
    for (int k = 0; M->feat_min && k < M->n; k++) put_f64(b, M->feat_min[k]);
    for (int k = 0; M->feat_min && k < M->n; k++) put_f64(b, M->feat_max[k]);
    if (ver >= 5) put_u32(b, (uint32_t)M->precision);
    if (ver >= 6) {
        int img = has_image_section(M), cal = M->proba_a > 0;
        put_u32(b, (uint32_t)(img + cal)); /* sections */
        if (img) {
            put_u32(b, SECTION_IMAGE); put_u32(b, 16);
            put_u32(b, (uint32_t)M->img_rows); put_u32(b, (uint32_t)M->img_cols);
            put_u32(b, (uint32_t)(M->img_channels ? M->img_channels : 1));
            put_u32(b, (uint32_t)M->img_resize);
        }
        if (cal) {
            put_u32(b, SECTION_CALIBRATION); put_u32(b, 12);
            put_u32(b, 1); put_f64(b, M->proba_a); /* kind 1: temperature */
        }
    }
}

int fsvc_model_save(const fsvc_model *M, const char *path, fsvc_error *err)
{
    int rc = fsvc_model_check(M, path, err);
    if (!rc) rc = check_image(M, path, err);
    if (rc) return rc;
    wbuf b = {0};
    put(&b, MODEL_MAGIC, 8);
    if ((unsigned)M->precision > BNL_PREC_BF16)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: unknown precision %d", path, M->precision);
    if (M->proba_a != 0 && !(M->proba_a > 0 && isfinite(M->proba_a) && M->K >= 2)) {
        free(b.p);
        return fsvc_fail(err, FSVC_EUSAGE, "%s: probability calibration %g (needs a finite "
                         "a > 0 and 2 classes or more)", path, M->proba_a);
    }
    put_u32(&b, version_of(M));
    put_u64(&b, 0); /* payload length, patched below */
    encode(&b, M);
    if (b.oom) { free(b.p); return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); }
    uint64_t plen = b.len - MODEL_HEAD;
    for (int i = 0; i < 8; i++) b.p[12 + i] = (unsigned char)(plen >> (8 * i));
    put_u32(&b, (uint32_t)crc32_z(0L, b.p + MODEL_HEAD, (z_size_t)plen));
    if (b.oom) { free(b.p); return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); }

    size_t tsz = strlen(path) + 4200;
    char *tmp = malloc(tsz);
    FILE *f = NULL;
    if (!tmp) { free(b.p); return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); }
    rc = ds_tmp_open(&f, tmp, tsz, path, err);
    if (!rc) {
        if (fwrite(b.p, 1, b.len, f) != b.len) {
            int e = errno;
            ds_tmp_abort(f, tmp);
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write the model: %s", path,
                           strerror(e));
        } else {
            rc = ds_tmp_commit(f, tmp, path, err);
        }
    }
    free(tmp);
    free(b.p);
    return rc;
}

static int decode_tail(fsvc_model *M, rbuf *b, uint32_t ver, uint32_t n, const char *path,
                       fsvc_error *err);

/* A sparse model's arrays (version 4): sizes checked against what is left
 * before any allocation. */
static int decode_sparse(fsvc_model *M, rbuf *b, uint32_t ver, uint64_t m, uint64_t nnz,
                         uint32_t K, uint32_t Kout, const char *path, fsvc_error *err)
{
    uint64_t left = b->len - b->pos;
    if (M->dtype != FSVC_F32)
        return fsvc_fail(err, FSVC_EINPUT, "%s: sparse centroids of type %s", path,
                         fsvc_dtype_name(M->dtype));
    /* 8K + m (4 + 8 + 8 Kout) + 8 + 8 nnz + 4 (the names count) */
    uint64_t per = 12 + 8 * (uint64_t)Kout;
    if (left < 8 * (uint64_t)K + 12 || m > (left - 8 * (uint64_t)K - 12) / per ||
        nnz > (left - 8 * (uint64_t)K - 12 - m * per) / 8)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model payload size does not match its header "
                         "(%llu sparse centroids, %llu nonzeros in %llu bytes)", path,
                         (unsigned long long)m, (unsigned long long)nnz,
                         (unsigned long long)left);
    M->K = (int)K; M->Kout = (int)Kout; M->m = (int64_t)m;
    M->class_values = malloc((K ? K : 1) * sizeof *M->class_values);
    M->lab = malloc((m ? m : 1) * sizeof *M->lab);
    M->R = malloc((m ? m * Kout : 1) * sizeof *M->R);
    fsvc_csr *a = M->Cs = calloc(1, sizeof *a);
    if (a) {
        a->row_ptr = malloc((m + 1) * sizeof *a->row_ptr);
        a->col = malloc((nnz ? nnz : 1) * sizeof *a->col);
        a->val = malloc((nnz ? nnz : 1) * sizeof *a->val);
    }
    if (!M->class_values || !M->lab || !M->R || !a || !a->row_ptr || !a->col || !a->val)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    a->rows = (int64_t)m;
    a->nnz = (int64_t)nnz;
    for (uint32_t k = 0; k < K; k++) M->class_values[k] = get_f64(b);
    for (uint64_t j = 0; j < m; j++) M->lab[j] = (int32_t)get_u32(b);
    for (uint64_t j = 0; j <= m; j++) {
        uint64_t v = get_u64(b);
        if (v > nnz || (j == 0 && v) || (j == m && v != nnz) ||
            (j && v < (uint64_t)a->row_ptr[j - 1]))
            return fsvc_fail(err, FSVC_EINPUT, "%s: sparse centroid offsets are not ascending "
                             "from 0 to %llu", path, (unsigned long long)nnz);
        a->row_ptr[j] = (int64_t)v;
    }
    for (uint64_t q = 0; q < nnz; q++) a->col[q] = (int32_t)get_u32(b);
    for (uint64_t q = 0; q < nnz; q++) a->val[q] = get_f32(b);
    for (size_t q = 0; q < (size_t)m * Kout; q++) M->R[q] = get_f64(b);
    return decode_tail(M, b, ver, (uint32_t)M->n, path, err);
}

/* The payload after the fixed header fields: sizes first, checked against
 * what is left before any allocation, then the arrays, then the names. */
static int decode(fsvc_model *M, rbuf *b, uint32_t ver, const char *path, fsvc_error *err)
{
    M->dtype = get_u32(b);
    uint32_t n = get_u32(b), rows = get_u32(b), cols = get_u32(b);
    M->scale = get_u32(b); M->preprocess = get_u32(b);
    M->dist = (int)get_u32(b); M->act = (int)get_u32(b);
    M->radius = get_f64(b); M->prag = get_f64(b);
    M->select = get_u32(b); M->readout = get_u32(b); M->regression = (int)get_u32(b);
    uint32_t K = get_u32(b), Kout = get_u32(b);
    M->y_offset = get_f64(b);
    uint64_t m = get_u64(b), nnz = 0;
    uint32_t storage = ver >= 4 ? get_u32(b) : 0;
    if (storage == 1) nnz = get_u64(b);
    uint32_t feat = ver >= 7 ? get_u32(b) : 0;
    M->hog_scale = ver >= 7 ? get_f64(b) : 0;
    if (b->bad)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model header is truncated", path);
    uint64_t es = fsvc_dtype_size(M->dtype), left = b->len - b->pos;
    if (!es)
        return fsvc_fail(err, FSVC_EINPUT, "%s: unknown centroid type %u", path, (unsigned)M->dtype);
    if (n < 1 || n > FSVC_MODEL_MAX_N)
        return fsvc_fail(err, FSVC_EINPUT, "%s: %u features (the limit is 1..%d)", path, n,
                         FSVC_MODEL_MAX_N);
    if (rows > (uint32_t)FSVC_MODEL_MAX_N || cols > (uint32_t)FSVC_MODEL_MAX_N ||
        ((rows || cols) && (uint64_t)rows * cols != n))
        return fsvc_fail(err, FSVC_EINPUT, "%s: image geometry %u x %u does not match its "
                         "%u features", path, rows, cols, n);
    if (K > FSVC_MODEL_MAX_K || Kout < 1 || Kout > FSVC_MODEL_MAX_K)
        return fsvc_fail(err, FSVC_EINPUT, "%s: %u classes and %u readout columns (the limit "
                         "is %d)", path, K, Kout, FSVC_MODEL_MAX_K);
    M->n = (int)n; M->rows = (int)rows; M->cols = (int)cols;
    if (storage > 1)
        return fsvc_fail(err, FSVC_EINPUT, "%s: unknown centroid storage %u", path, storage);
    if (feat > FSVC_FEAT_HOG || (ver >= 7 && feat == FSVC_FEAT_PIXELS) ||
        (feat && (storage || rows < 1)))
        return fsvc_fail(err, FSVC_EINPUT, "%s: features %u (version 7 names hog, 1, for "
                         "dense centroids of an image)", path, feat);
    M->features = (fsvc_features)feat;
    if (storage == 1)
        return decode_sparse(M, b, ver, m, nnz, K, Kout, path, err);
    /* the arrays: 8K + m (4 + width es + 8 Kout) bytes, all of them present */
    uint64_t width = (uint64_t)fsvc_model_width(M);
    if (width > FSVC_MODEL_MAX_N)
        return fsvc_fail(err, FSVC_EINPUT, "%s: %llu values a centroid (the limit is %d)",
                         path, (unsigned long long)width, FSVC_MODEL_MAX_N);
    uint64_t per = 4 + width * es + 8 * (uint64_t)Kout;
    if (left < 8 * (uint64_t)K || m > (left - 8 * (uint64_t)K) / per)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model payload size does not match its header "
                         "(%llu centroids of %llu bytes in %llu bytes)", path,
                         (unsigned long long)m, (unsigned long long)per,
                         (unsigned long long)left);
    uint64_t need = 8 * (uint64_t)K + m * per;
    if (ver == 1 ? need != left : need + 4 > left)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model payload size does not match its header",
                         path);
    M->K = (int)K; M->Kout = (int)Kout; M->m = (int64_t)m;
    size_t total = (size_t)m * width;
    M->class_values = malloc((K ? K : 1) * sizeof *M->class_values);
    M->lab = malloc((m ? m : 1) * sizeof *M->lab);
    M->C = malloc(total * es + 1);
    M->R = malloc((m ? m * Kout : 1) * sizeof *M->R);
    if (!M->class_values || !M->lab || !M->C || !M->R)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    for (uint32_t k = 0; k < K; k++) M->class_values[k] = get_f64(b);
    for (uint64_t j = 0; j < m; j++) M->lab[j] = (int32_t)get_u32(b);
    if (M->dtype == FSVC_U8) { memcpy(M->C, b->p + b->pos, total); b->pos += total; }
    else if (M->dtype == FSVC_F32) for (size_t q = 0; q < total; q++) ((float *)M->C)[q] = get_f32(b);
    else for (size_t q = 0; q < total; q++) ((double *)M->C)[q] = get_f64(b);
    for (size_t q = 0; q < (size_t)m * Kout; q++) M->R[q] = get_f64(b);
    return decode_tail(M, b, ver, n, path, err);
}

/* Version 6's sections: each known tag at most once, of its size. */
static int decode_sections(fsvc_model *M, rbuf *b, const char *path, fsvc_error *err)
{
    uint32_t cnt = get_u32(b), seen = 0;
    for (uint32_t s = 0; s < cnt && !b->bad; s++) {
        uint32_t tag = get_u32(b), bytes = get_u32(b);
        uint32_t want = tag == SECTION_IMAGE ? 16 : tag == SECTION_CALIBRATION ? 12 : 0;
        if (b->bad || !want || bytes != want || (seen & (1u << tag)) || bytes > b->len - b->pos)
            return fsvc_fail(err, FSVC_EINPUT, "%s: model section %u is unknown, repeated or "
                             "cut (tag %u, %u bytes)", path, s + 1, tag, bytes);
        seen |= 1u << tag;
        if (tag == SECTION_CALIBRATION) {
            uint32_t kind = get_u32(b);
            double a = get_f64(b);
            if (b->bad || kind != 1 || !(a > 0) || !isfinite(a) || M->K < 2)
                return fsvc_fail(err, FSVC_EINPUT, "%s: %s probability calibration", path,
                                 b->bad ? "cut before its" : "bad");
            M->proba_a = a;
            continue;
        }
        M->img_rows = (int)get_u32(b); M->img_cols = (int)get_u32(b);
        M->img_channels = (int)get_u32(b); M->img_resize = (int)get_u32(b);
        int rc = check_image(M, path, err);
        if (rc) return rc;
    }
    return FSVC_OK;
}

/* The class names (version 2 on), the feature scaling (3 on), the end. */
static int decode_tail(fsvc_model *M, rbuf *b, uint32_t ver, uint32_t n, const char *path,
                       fsvc_error *err)
{
    uint32_t K = (uint32_t)M->K;
    if (ver >= 2) {
        uint32_t cnt = get_u32(b);
        if (cnt && cnt != K)
            return fsvc_fail(err, FSVC_EINPUT, "%s: %u class names for %u classes", path, cnt, K);
        if (cnt && !(M->class_names = calloc(K, sizeof *M->class_names)))
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
        for (uint32_t k = 0; k < cnt && !b->bad; k++) {
            uint32_t l = get_u32(b);
            if (b->bad || l > FSVC_MODEL_MAX_NAME || l > b->len - b->pos)
                return fsvc_fail(err, FSVC_EINPUT, "%s: class name %u is cut or longer than "
                                 "%d bytes", path, k + 1, FSVC_MODEL_MAX_NAME);
            if (memchr(b->p + b->pos, 0, l))
                return fsvc_fail(err, FSVC_EINPUT, "%s: class name %u holds a NUL byte", path, k + 1);
            if (!(M->class_names[k] = malloc((size_t)l + 1)))
                return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
            memcpy(M->class_names[k], b->p + b->pos, l);
            M->class_names[k][l] = 0;
            b->pos += l;
        }
    }
    if (ver >= 3) {
        uint32_t kind = get_u32(b);
        if (b->bad || kind > 1)
            return fsvc_fail(err, FSVC_EINPUT, "%s: %s feature scaling", path,
                             b->bad ? "cut before its" : "unknown kind of");
        /* 2 n f64 values, all present, checked before allocating */
        if (kind && (uint64_t)(b->len - b->pos) < 16 * (uint64_t)n)
            return fsvc_fail(err, FSVC_EINPUT, "%s: feature scaling for %u features is cut "
                             "(%llu bytes left)", path, n, (unsigned long long)(b->len - b->pos));
        if (kind) {
            M->feat_min = malloc((size_t)n * sizeof *M->feat_min);
            M->feat_max = malloc((size_t)n * sizeof *M->feat_max);
            if (!M->feat_min || !M->feat_max)
                return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
            for (uint32_t k = 0; k < n; k++) M->feat_min[k] = get_f64(b);
            for (uint32_t k = 0; k < n; k++) M->feat_max[k] = get_f64(b);
        }
    }
    if (ver >= 5) {
        uint32_t prec = get_u32(b);
        if (b->bad || prec < (ver == 5) || prec > BNL_PREC_BF16)
            return fsvc_fail(err, FSVC_EINPUT, "%s: %s precision", path,
                             b->bad ? "cut before its" : "unknown");
        M->precision = (int)prec;
    }
    if (ver >= 6) {
        int rc = decode_sections(M, b, path, err);
        if (rc) return rc;
    }
    if (b->bad || b->pos != b->len)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model payload is inconsistent (%s)", path,
                         b->bad ? "cut short" : "bytes left over");
    return fsvc_model_check(M, path, err);
}

int fsvc_model_parse(fsvc_model *M, const void *buf, size_t len, const char *path,
                     fsvc_error *err)
{
    memset(M, 0, sizeof *M);
    const unsigned char *h = buf;
    if (len < 8 || memcmp(h, MODEL_MAGIC, 8))
        return fsvc_fail(err, FSVC_EINPUT, "%s: not an fsvc model file (bad magic)", path);
    if (len < MODEL_HEAD + 4)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model file is truncated (%zu bytes)", path, len);
    uint32_t ver = 0;
    uint64_t plen = 0;
    for (int i = 0; i < 4; i++) ver |= (uint32_t)h[8 + i] << (8 * i);
    for (int i = 0; i < 8; i++) plen |= (uint64_t)h[12 + i] << (8 * i);
    if (ver > MODEL_VERSION || ver == 0)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model format version %u; this fsvc reads "
                         "versions 1 to %u (a newer fsvc wrote it?)", path, ver, MODEL_VERSION);
    uint64_t have = len - (MODEL_HEAD + 4);
    if (plen != have)
        return fsvc_fail(err, FSVC_EINPUT, "%s: model file is %s (%zu bytes, header says %llu)",
                         path, plen > have ? "truncated" : "too long", len,
                         plen > have ? (unsigned long long)plen + MODEL_HEAD + 4
                                     : (unsigned long long)plen + MODEL_HEAD + 4);
    uint32_t crc = 0;
    for (int i = 0; i < 4; i++) crc |= (uint32_t)h[MODEL_HEAD + plen + i] << (8 * i);
    if (crc != (uint32_t)crc32_z(0L, h + MODEL_HEAD, (z_size_t)plen))
        return fsvc_fail(err, FSVC_EINPUT, "%s: model file is corrupted (CRC32 mismatch)", path);
    rbuf b = { h + MODEL_HEAD, (size_t)plen, 0, 0 };
    int rc = decode(M, &b, ver, path, err);
    if (rc) fsvc_free_model(M);
    return rc;
}

int fsvc_model_load(fsvc_model *M, const char *path, fsvc_error *err)
{
    memset(M, 0, sizeof *M);
    unsigned char *buf = NULL;
    size_t len = 0;
    int rc = ds_read_file(&buf, &len, path, err);
    if (rc) return rc;
    rc = fsvc_model_parse(M, buf, len, path, err);
    free(buf);
    return rc;
}
