/* jpeg.c - one JPEG image as 8-bit gray or RGB (libjpeg-turbo).
 *
 * Baseline and progressive JPEG, gray or YCbCr/RGB. Gray output is the
 * library's luma (Y of YCbCr, ITU-R BT.601, the weights of png.c); a gray
 * JPEG read as RGB gives R = G = B. CMYK and YCCK are refused. Every
 * libjpeg warning (corrupt data, a premature end of the file) is an error:
 * the library would go on with made-up pixels. */
#include "datasets/loaders.h"

#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define JPEG_MAX_SIDE 16384

typedef struct jpeg_ctx {
    struct jpeg_error_mgr mgr;
    jmp_buf jb;
    const char *path;
    fsvc_error *err;
} jpeg_ctx;

static void on_error(j_common_ptr j)
{
    jpeg_ctx *c = (jpeg_ctx *)j->err;
    char msg[JMSG_LENGTH_MAX];
    (*j->err->format_message)(j, msg);
    if (j->err->msg_code == JERR_OUT_OF_MEMORY) /* the machine's, not the file's */
        fsvc_fail(c->err, FSVC_ERESOURCE, "%s: out of memory reading the JPEG (%s)", c->path,
                  msg);
    else
        fsvc_fail(c->err, FSVC_EINPUT, "%s: bad JPEG: %s", c->path, msg);
    longjmp(c->jb, 1);
}

static void on_message(j_common_ptr j, int level)
{
    if (level < 0) /* a warning: corrupt or missing data */
        on_error(j);
}

int ds_jpeg_read_fp(unsigned char **pix, int *rows, int *cols, int channels, FILE *f,
                    const char *path, fsvc_error *err)
{
    *pix = NULL;
    *rows = *cols = 0;
    struct jpeg_decompress_struct j;
    jpeg_ctx c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.err = err;
    j.err = jpeg_std_error(&c.mgr);
    c.mgr.error_exit = on_error;
    c.mgr.emit_message = on_message;
    unsigned char *volatile out = NULL; /* changed after setjmp */
    if (setjmp(c.jb)) {
        jpeg_destroy_decompress(&j);
        free(out);
        return err ? err->code : FSVC_EINPUT;
    }
    jpeg_create_decompress(&j);
    jpeg_stdio_src(&j, f);
    jpeg_read_header(&j, TRUE);
    if (j.jpeg_color_space == JCS_CMYK || j.jpeg_color_space == JCS_YCCK) {
        fsvc_fail(err, FSVC_EINPUT, "%s: CMYK JPEG images are not supported (convert it to "
                  "RGB or gray)", path);
        longjmp(c.jb, 1);
    }
    JDIMENSION w = j.image_width, h = j.image_height;
    if (w > JPEG_MAX_SIDE || h > JPEG_MAX_SIDE) {
        fsvc_fail(err, FSVC_EINPUT, "%s: JPEG of %ux%u pixels; the limit is %d per side", path,
                  (unsigned)w, (unsigned)h, JPEG_MAX_SIDE);
        longjmp(c.jb, 1);
    }
    /* memory only as the data justifies: a DC scan spends at least one bit
     * on every 8x8 block, so a file of S bytes holds at most 512 S pixels
     * per component */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)w * h > (uint64_t)st.st_size * 512 + 65536) {
        fsvc_fail(err, FSVC_EINPUT, "%s: JPEG header claims %ux%u pixels, more than its %lld "
                  "bytes can hold", path, (unsigned)w, (unsigned)h, (long long)st.st_size);
        longjmp(c.jb, 1);
    }
    j.out_color_space = channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_start_decompress(&j);
    size_t stride = (size_t)j.output_width * (size_t)j.output_components;
    if (j.output_components != (channels == 3 ? 3 : 1) || j.output_width != w ||
        j.output_height != h) {
        fsvc_fail(err, FSVC_EINPUT, "%s: unsupported JPEG layout (%d components)", path,
                  j.output_components);
        longjmp(c.jb, 1);
    }
    out = malloc(stride * h);
    if (!out) {
        fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for a %ux%u image", path,
                  (unsigned)w, (unsigned)h);
        longjmp(c.jb, 1);
    }
    while (j.output_scanline < h) {
        JSAMPROW row = out + (size_t)j.output_scanline * stride;
        jpeg_read_scanlines(&j, &row, 1);
    }
    jpeg_finish_decompress(&j);
    jpeg_destroy_decompress(&j);
    *pix = out;
    *rows = (int)h;
    *cols = (int)w;
    return FSVC_OK;
}
