/* png_write.c - 8-bit RGB images to PNG (libpng), written through ds_tmp_*
 * (checked writes, fsync, atomic rename): the one writer behind every PNG
 * fsvc makes itself (confusion matrices, centroid montages). libpng's own
 * messages are caught, never printed. */
#include "datasets/datasets.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

typedef struct wctx {
    char msg[160]; /* libpng's error, with errno of a failed write */
} wctx;

static void on_error(png_structp png, png_const_charp msg)
{
    wctx *c = png_get_error_ptr(png);
    int e = errno;
    snprintf(c->msg, sizeof c->msg, "%s%s%s", msg, e ? ": " : "", e ? strerror(e) : "");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

int fsvc_png_write_rgb(const char *path, const uint8_t *rgb, int W, int H,
                       fsvc_error *err)
{
    if (W < 1 || H < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: empty image (%d x %d)", path, W, H);
    char tmp[256];
    FILE *f;
    int rc = ds_tmp_open(&f, tmp, sizeof tmp, path, err);
    if (rc)
        return rc;
    wctx ctx = {"out of memory"};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error,
                                              on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        ds_tmp_abort(f, tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write the PNG: %s", path, ctx.msg);
    }
    errno = 0;
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)W, (png_uint_32)H, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < H; y++)
        png_write_row(png, (png_const_bytep)(rgb + (size_t)y * W * 3));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return ds_tmp_commit(f, tmp, path, err);
}
