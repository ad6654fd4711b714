/* image.c - one image file, PNG or JPEG by its first bytes (not its name),
 * as 8-bit gray (channels 1) or interleaved RGB (channels 3). */
#include "datasets/loaders.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

int ds_image_kind(const unsigned char *b, size_t n)
{
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 8 && !memcmp(b, png, 8))
        return DS_IMAGE_PNG;
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF)
        return DS_IMAGE_JPEG;
    return 0;
}

int ds_image_file_kind(const char *path)
{
    unsigned char b[8];
    FILE *f;
    if (ds_open_input(&f, path, NULL))
        return 0;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return ds_image_kind(b, n);
}

int ds_image_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && dot != name && (!strcasecmp(dot, ".png") || !strcasecmp(dot, ".jpg") ||
                                  !strcasecmp(dot, ".jpeg"));
}

int ds_image_read(unsigned char **pix, int *rows, int *cols, int channels, const char *path,
                  fsvc_error *err)
{
    *pix = NULL;
    *rows = *cols = 0;
    FILE *f;
    int rc = ds_open_input(&f, path, err);
    if (rc)
        return rc;
    unsigned char b[8];
    size_t n = fread(b, 1, sizeof b, f);
    int kind = ds_image_kind(b, n);
    if (kind == DS_IMAGE_PNG)
        rc = ds_png_read_fp(pix, rows, cols, channels, (rewind(f), f), path, err);
    else if (kind == DS_IMAGE_JPEG)
        rc = ds_jpeg_read_fp(pix, rows, cols, channels, (rewind(f), f), path, err);
    else
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: not a PNG or JPEG image (%s)", path,
                       n == 0 ? "an empty file" : "no PNG or JPEG signature");
    fclose(f);
    return rc;
}

int ds_image_source(const char *path)
{
    const char *base = strrchr(path, '/');
    return ds_image_file_kind(path) != 0 || ds_image_name(base ? base + 1 : path);
}
