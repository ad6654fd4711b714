/* png.c - one PNG image as 8-bit gray or RGB (libpng), and a bilinear resize.
 *
 * Conversions: palette and gray < 8 bits are expanded; 16-bit samples are
 * scaled to 8 bits (rounded); for gray output RGB becomes gray by ITU-R
 * BT.601 luma, Y = (299 R + 587 G + 114 B + 500) / 1000; for RGB output a
 * gray image gives R = G = B; an alpha channel is composited over black
 * (v * a / 255, rounded), black being the MNIST background. */
#include "datasets/loaders.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PNG_MAX_SIDE 16384

typedef struct png_ctx {
    const char *path;
    fsvc_error *err;
} png_ctx;

static void on_error(png_structp png, png_const_charp msg)
{
    png_ctx *c = png_get_error_ptr(png);
    /* libpng's and zlib's words for a failed allocation: the machine's */
    if (strstr(msg, "memory") || strstr(msg, "Memory"))
        fsvc_fail(c->err, FSVC_ERESOURCE, "%s: out of memory reading the PNG (%s)", c->path, msg);
    else
        fsvc_fail(c->err, FSVC_EINPUT, "%s: bad PNG: %s", c->path, msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* warnings (e.g. a bad iCCP chunk) are not errors */
}

int ds_png_is_png(const char *path)
{
    unsigned char sig[8];
    FILE *f;
    if (ds_open_input(&f, path, NULL))
        return 0;
    int yes = fread(sig, 1, 8, f) == 8 && !png_sig_cmp(sig, 0, 8);
    fclose(f);
    return yes;
}

int ds_png_read_gray(unsigned char **pix, int *rows, int *cols,
                     const char *path, fsvc_error *err)
{
    *pix = NULL;
    *rows = *cols = 0;
    FILE *f;
    int rc = ds_open_input(&f, path, err);
    if (rc)
        return rc;
    rc = ds_png_read_fp(pix, rows, cols, 1, f, path, err);
    fclose(f);
    return rc;
}

int ds_png_read_gray_fp(unsigned char **pix, int *rows, int *cols, FILE *f,
                        const char *path, fsvc_error *err)
{
    return ds_png_read_fp(pix, rows, cols, 1, f, path, err);
}

/* v over black by alpha a, rounded */
static unsigned char over_black(unsigned v, unsigned a) { return (unsigned char)((v * a + 127) / 255); }

int ds_png_read_fp(unsigned char **pix, int *rows, int *cols, int channels, FILE *f,
                   const char *path, fsvc_error *err)
{
    *pix = NULL;
    *rows = *cols = 0;
    unsigned char sig[8];
    if (fread(sig, 1, 8, f) != 8 || png_sig_cmp(sig, 0, 8))
        return fsvc_fail(err, FSVC_EINPUT, "%s: not a PNG file (no PNG signature)", path);
    png_ctx ctx = {path, err};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error,
                                             on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory (libpng)", path);
    }
    /* changed after setjmp, read after a longjmp: volatile */
    unsigned char *volatile buf = NULL;
    png_bytep *volatile rowp = NULL;
    unsigned char *volatile out = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(buf);
        free(rowp);
        free(out);
        return err ? err->code : FSVC_EINPUT;
    }
    png_init_io(png, f);
    png_set_sig_bytes(png, 8);
    png_set_user_limits(png, PNG_MAX_SIDE, PNG_MAX_SIDE);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    /* memory only as the data justifies: deflate expands at most 1032:1,
     * so a file of S bytes cannot hold more than ~1032 S bytes of rows */
    struct stat st;
    uint64_t raw = (uint64_t)png_get_rowbytes(png, info) * h;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        raw > (uint64_t)st.st_size * 1032 + 65536) {
        fsvc_fail(err, FSVC_EINPUT, "%s: PNG header claims %ux%u pixels (%llu bytes of "
                  "rows), more than its %lld bytes can hold", path, w, h,
                  (unsigned long long)raw, (long long)st.st_size);
        png_longjmp(png, 1);
    }
    png_set_expand(png); /* palette -> RGB, gray < 8 -> 8, tRNS -> alpha */
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
    png_set_scale_16(png);
#else
    png_set_strip_16(png);
#endif
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t ch = png_get_channels(png, info);
    size_t rb = png_get_rowbytes(png, info);
    if (ch < 1 || ch > 4 || rb != ch * w) {
        fsvc_fail(err, FSVC_EINPUT, "%s: unsupported PNG layout (%zu channels)", path, ch);
        png_longjmp(png, 1);
    }
    buf = malloc(rb * h);
    rowp = malloc(h * sizeof *rowp);
    out = malloc((size_t)w * h * (channels == 3 ? 3 : 1));
    if (!buf || !rowp || !out) {
        fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for a %ux%u image", path, w, h);
        png_longjmp(png, 1);
    }
    for (png_uint_32 r = 0; r < h; r++)
        rowp[r] = buf + r * rb;
    png_read_image(png, rowp);
    png_read_end(png, NULL);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const unsigned char *p = buf + i * ch;
        unsigned a = ch == 2 || ch == 4 ? p[ch - 1] : 255;
        if (channels == 3) {
            for (int k = 0; k < 3; k++)
                out[3 * i + k] = over_black(ch <= 2 ? p[0] : p[k], a);
        } else {
            unsigned v = ch <= 2 ? p[0] : (299u * p[0] + 587u * p[1] + 114u * p[2] + 500) / 1000;
            out[i] = over_black(v, a);
        }
    }
    png_destroy_read_struct(&png, &info, NULL);
    free(buf);
    free(rowp);
    *pix = out;
    *rows = (int)h;
    *cols = (int)w;
    return FSVC_OK;
}

/* Pixel centres aligned: dst (r, c) samples src at ((r+.5)*sr/dr - .5, ...). */
void ds_resize_bilinear_u8(unsigned char *dst, int dr, int dc,
                           const unsigned char *src, int sr, int sc)
{
    ds_resize_bilinear_ch(dst, dr, dc, src, sr, sc, 1);
}

/* The same on ch interleaved channels, each resized on its own. */
void ds_resize_bilinear_ch(unsigned char *dst, int dr, int dc,
                           const unsigned char *src, int sr, int sc, int ch)
{
    for (int r = 0; r < dr; r++) {
        double fy = (r + 0.5) * sr / dr - 0.5;
        if (fy < 0) fy = 0;
        int y0 = (int)fy;
        if (y0 > sr - 1) y0 = sr - 1;
        int y1 = y0 + 1 < sr ? y0 + 1 : y0;
        double wy = fy - y0;
        for (int c = 0; c < dc; c++) {
            double fx = (c + 0.5) * sc / dc - 0.5;
            if (fx < 0) fx = 0;
            int x0 = (int)fx;
            if (x0 > sc - 1) x0 = sc - 1;
            int x1 = x0 + 1 < sc ? x0 + 1 : x0;
            double wx = fx - x0;
            for (int k = 0; k < ch; k++) {
                double top = src[(y0 * sc + x0) * ch + k] * (1 - wx)
                           + src[(y0 * sc + x1) * ch + k] * wx;
                double bot = src[(y1 * sc + x0) * ch + k] * (1 - wx)
                           + src[(y1 * sc + x1) * ch + k] * wx;
                double v = top * (1 - wy) + bot * wy + 0.5;
                dst[(r * dc + c) * ch + k] = (unsigned char)(v > 255 ? 255 : v);
            }
        }
    }
}
