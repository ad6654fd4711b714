/* fuzz_png.c - libFuzzer target for the PNG reader (datasets/png.c): bytes
 * in memory through fmemopen, exercising libpng's error longjmp path and
 * the gray conversion. The first byte picks a mode: 0 - the input as it is;
 * 1 - the PNG signature added when missing and every chunk's CRC fixed, to
 * get past the cheap checks; 2 - a valid PNG built from the input (IHDR
 * fields from the next bytes, PLTE/tRNS, the rest deflated as IDAT), so
 * every bit depth, colour type and interlace reaches the conversions.
 * Inputs whose IHDR claims more than 2^20 pixels are skipped (they only
 * test malloc).
 * Build and run: make fuzz. */
#include "datasets/loaders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t put_chunk(uint8_t *p, const char *type, const uint8_t *d, uint32_t len)
{
    p[0] = (uint8_t)(len >> 24);
    p[1] = (uint8_t)(len >> 16);
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    memcpy(p + 4, type, 4);
    if (len && d != p + 8) /* IDAT is compressed in place */
        memcpy(p + 8, d, len);
    uLong crc = crc32(0, p + 4, len + 4);
    p[8 + len] = (uint8_t)(crc >> 24);
    p[9 + len] = (uint8_t)(crc >> 16);
    p[10 + len] = (uint8_t)(crc >> 8);
    p[11 + len] = (uint8_t)crc;
    return 12 + (size_t)len;
}

static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/* A well-formed PNG from fuzz bytes: *out malloc'd, returns its size. */
static size_t build_png(uint8_t **out, const uint8_t *in, size_t n)
{
    static const uint8_t combos[][2] = { /* bit depth, colour type */
        {1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {8, 2}, {16, 2}, {1, 3}, {2, 3},
        {4, 3}, {8, 3}, {8, 4}, {16, 4}, {8, 6}, {16, 6}};
    if (n < 6)
        return 0;
    uint32_t w = 1 + in[0] % 48, h = 1 + in[1] % 48;
    const uint8_t *c = combos[in[2] % (sizeof combos / sizeof *combos)];
    int interlace = in[3] & 1, npal = 1 + in[4] % 16, trns = in[5] & 1;
    in += 6;
    n -= 6;
    uLong zcap = compressBound((uLong)n);
    uint8_t *buf = malloc(8 + 25 + 12 + 3 * 256 + 12 + 256 + 12 + zcap + 12);
    if (!buf)
        return 0;
    size_t len = 8;
    memcpy(buf, sig, 8);
    uint8_t ihdr[13] = {0, 0, 0, (uint8_t)w, 0, 0, 0, (uint8_t)h, c[0], c[1], 0, 0,
                        (uint8_t)interlace};
    len += put_chunk(buf + len, "IHDR", ihdr, 13);
    uint8_t pal[3 * 16] = {0};
    for (int i = 0; i < 3 * npal; i++)
        pal[i] = (uint8_t)(i * 37 + (n ? in[i % n] : 0));
    if (c[1] == 3)
        len += put_chunk(buf + len, "PLTE", pal, 3 * (uint32_t)npal);
    if (trns && (c[1] == 0 || c[1] == 2 || c[1] == 3)) {
        uint8_t t[6] = {0, 1, 0, 2, 0, 3};
        len += put_chunk(buf + len, "tRNS", c[1] == 3 ? pal : t,
                         c[1] == 3 ? (uint32_t)npal : c[1] == 0 ? 2 : 6);
    }
    uLongf zl = zcap;
    if (compress(buf + len + 8, &zl, in, (uLong)n) != Z_OK) {
        free(buf);
        return 0;
    }
    len += put_chunk(buf + len, "IDAT", buf + len + 8, (uint32_t)zl);
    len += put_chunk(buf + len, "IEND", NULL, 0);
    *out = buf;
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t insize)
{
    if (insize < 1)
        return 0;
    int mode = in[0] % 3;
    in++;
    insize--;
    uint8_t *data = NULL;
    size_t size = insize;
    if (mode == 2) {
        size = build_png(&data, in, insize);
        if (!size)
            return 0;
    } else {
        data = malloc(insize + 8);
        if (!data)
            return 0;
        if (mode == 1 && (insize < 8 || memcmp(in, sig, 8))) {
            memcpy(data, sig, 8);
            memcpy(data + 8, in, insize);
            size += 8;
        } else {
            memcpy(data, in, insize);
        }
    }
    if (mode == 1) /* chunks: length, type, data, CRC over type + data */
        for (size_t off = 8; off + 12 <= size;) {
            uint32_t len = (uint32_t)data[off] << 24 | data[off + 1] << 16 |
                           data[off + 2] << 8 | data[off + 3];
            if (len > size - off - 12)
                break;
            uLong crc = crc32(0, data + off + 4, len + 4);
            uint8_t *c = data + off + 8 + len;
            c[0] = (uint8_t)(crc >> 24);
            c[1] = (uint8_t)(crc >> 16);
            c[2] = (uint8_t)(crc >> 8);
            c[3] = (uint8_t)crc;
            off += 12 + (size_t)len;
        }
    if (size >= 24) { /* IHDR comes first: width, height */
        uint64_t w = (uint64_t)data[16] << 24 | data[17] << 16 | data[18] << 8 | data[19];
        uint64_t h = (uint64_t)data[20] << 24 | data[21] << 16 | data[22] << 8 | data[23];
        if (w * h > (1u << 20)) {
            free(data);
            return 0;
        }
    }
    FILE *f = fmemopen(data, size, "rb");
    if (!f) {
        free(data);
        return 0;
    }
    unsigned char *pix;
    int rows, cols;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = ds_png_read_gray_fp(&pix, &rows, &cols, f, "fuzz.png", &err);
    fclose(f);
    free(data);
    if (rc == FSVC_OK) {
        unsigned sum = 0;
        for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
            sum += pix[i];
        if (rows < 1 || cols < 1 || (sum && !pix))
            abort();
        free(pix);
    } else if (err.msg[0] == 0 || strchr(err.msg, '\n') || pix) {
        abort();
    }
    return 0;
}
