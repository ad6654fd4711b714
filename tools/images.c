/* images.c - how `fsvc train|predict|eval` read PNG / JPEG images: the
 * model's size and channels, --resize, the files skipped in a folder. */
#include "tools/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE_MAX_SIDE 16384

static int resize_asked; /* predict --resize */
void cli_set_resize(int resize) { resize_asked = resize; }

/* The model's image size: its image section, else its geometry. */
static void model_size(const fsvc_model *m, int *rows, int *cols)
{
    *rows = m->img_rows > 0 ? m->img_rows : m->rows;
    *cols = m->img_rows > 0 ? m->img_cols : m->cols;
}

int cli_image_resize(const fsvc_model *m)
{
    int r, c;
    model_size(m, &r, &c);
    return r > 0 && (m->img_resize || resize_asked);
}

void cli_image_opts(fsvc_load_opts *o, const fsvc_model *m)
{
    o->channels = m->img_channels == 3 ? 3 : 1;
    if (cli_image_resize(m))
        model_size(m, &o->rows, &o->cols);
}

int cli_image_check(const fsvc_dataset *d, const fsvc_model *m, const char *cmd,
                    fsvc_error *err)
{
    int r, c;
    model_size(m, &r, &c);
    if (!d->channels || d->n == m->n || r < 1)
        return FSVC_OK;
    (void)cmd;
    return fsvc_fail(err, FSVC_EINPUT, "%s: images of %dx%d (width x height), the model "
                     "reads %dx%d; resize them to it with fsvc predict --resize (or train "
                     "with --resize WxH)", d->source, d->cols, d->rows, c, r);
}

void cli_warn_skipped(const fsvc_dataset *d, const char *cmd, int quiet)
{
    if (d->skipped && !quiet)
        fprintf(stderr, "fsvc %s: warning: %s: skipped %lld %s (by name: .png, .jpg, "
                ".jpeg)\n", cmd, d->source, (long long)d->skipped, d->skipped > 1
                ? "files that are not PNG or JPEG images" : "file that is not a PNG or JPEG image");
}

int cli_parse_size(const char *cmd, const char *opt, const char *s, int *rows, int *cols)
{
    char *end;
    long w = strtol(s, &end, 10), h = 0;
    int ok = end != s && (*end == 'x' || *end == 'X');
    if (ok) {
        const char *p = end + 1;
        h = strtol(p, &end, 10);
        ok = end != p && !*end;
    }
    if (!ok || w < 1 || h < 1 || w > IMAGE_MAX_SIDE || h > IMAGE_MAX_SIDE) {
        cli_usage_error(cmd, "%s: '%s' is not a size WxH (width x height, 1..%d each)", opt, s,
                        IMAGE_MAX_SIDE);
        return 1;
    }
    *rows = (int)h;
    *cols = (int)w;
    return 0;
}
