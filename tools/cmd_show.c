/* cmd_show.c - `fsvc show MODEL`: the model in words (show_text.c); with
 * --png FILE a montage of the model's
 * centroids (its "support vectors") for image data, one band of rows per
 * class, tiles scaled up, grey grid lines between tiles and a coloured bar
 * between classes. Written with libpng to a temporary file, renamed.
 *
 * Every size comes from the model file, so the montage is measured in
 * 64-bit arithmetic (montage_size) and refused over SHOW_MAX_W x
 * SHOW_MAX_H or SHOW_MAX_PIXELS before anything is allocated; the int
 * coordinates of the drawing loops stay below those limits. */
#include "tools/cli.h"
#include "tools/show.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct montage {
    int rows, cols;     /* image geometry */
    int zoom;           /* pixels per image pixel */
    int per_row;        /* tiles per montage row */
    int max_per_class;  /* tiles shown per class */
    int W, H;           /* montage size in pixels */
    uint8_t *rgb;       /* H x W x 3 */
} montage;

#define GAP 1           /* grey grid line between tiles */
#define BAR 6           /* coloured bar between classes */
#define SHOW_MAX_W 20000                 /* px */
#define SHOW_MAX_H 1000000               /* px (libpng's default row limit) */
#define SHOW_MAX_PIXELS ((int64_t)1 << 28) /* W x H, 768 MiB of RGB */

/* Montage width and height in pixels for tiles of rows x cols at zoom,
 * per_row tiles a row, up to max_per_class tiles of each of the K classes
 * (counts[k] centroids); no overflow for any int inputs. */
static void montage_size(int64_t *W, int64_t *H, int64_t rows, int64_t cols, int64_t zoom,
                         int64_t per_row, int64_t max_per_class, const int64_t *counts, int K)
{
    int64_t tw = cols * zoom, th = rows * zoom, band_rows = 0;
    for (int k = 0; k < K; k++) {
        int64_t c = counts[k] < max_per_class ? counts[k] : max_per_class;
        band_rows += c ? (c + per_row - 1) / per_row : 1;
    }
    *W = GAP + per_row * (tw + GAP);
    *H = BAR + band_rows * (th + GAP) + (int64_t)K * (BAR + GAP);
}

static int too_big(int64_t W, int64_t H)
{
    return W > SHOW_MAX_W || H > SHOW_MAX_H || W * H > SHOW_MAX_PIXELS;
}

/* Centroid j's first n values (its image: a HOG model's centroids go on
 * with the HOG) as doubles in row (dense C, or the sparse model's CSR row
 * Cs, whose C is NULL: absent features are 0). */
static void centroid_row(double *row, const fsvc_model *m, int64_t j)
{
    if (m->Cs) {
        memset(row, 0, (size_t)m->n * sizeof *row);
        for (int64_t p = m->Cs->row_ptr[j]; p < m->Cs->row_ptr[j + 1]; p++)
            if (m->Cs->col[p] >= 0 && m->Cs->col[p] < m->n) row[m->Cs->col[p]] = m->Cs->val[p];
        return;
    }
    size_t at = (size_t)j * (size_t)fsvc_model_width(m);
    for (int k = 0; k < m->n; k++)
        row[k] = m->dtype == FSVC_U8 ? ((const uint8_t *)m->C)[at + k]
               : m->dtype == FSVC_F32 ? ((const float *)m->C)[at + k]
               : ((const double *)m->C)[at + k];
}

/* A value as 0..255: u8 models as they are, floats by the model's scaling
 * (min-max over all centroids for unscaled floats). */
static uint8_t pixel(const fsvc_model *m, double v, double lo, double hi)
{
    if (m->dtype == FSVC_U8 && !m->Cs) return (uint8_t)v;
    double t = hi > lo ? (v - lo) / (hi - lo) : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return (uint8_t)lrint(255 * t);
}

static void value_range(double *lo, double *hi, const fsvc_model *m, double *row)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    if (m->scale == FSVC_SCALE_01) { *lo = 0; *hi = 1; return; }
    if (m->scale == FSVC_SCALE_PM1) { *lo = -1; *hi = 1; return; }
    for (int64_t j = 0; j < m->m; j++) {
        centroid_row(row, m, j);
        for (int k = 0; k < m->n; k++) {
            if (row[k] < *lo) *lo = row[k];
            if (row[k] > *hi) *hi = row[k];
        }
    }
}

static void fill(montage *g, int x0, int y0, int w, int h, const uint8_t c[3])
{
    for (int y = y0; y < y0 + h && y < g->H; y++)
        for (int x = x0; x < x0 + w && x < g->W; x++)
            memcpy(g->rgb + ((size_t)y * g->W + x) * 3, c, 3);
}

/* Lays out the tiles; counts[k]: centroids of class k. */
static int build(montage *g, const fsvc_model *m, const int64_t *counts, int K)
{
    int64_t W, H;
    montage_size(&W, &H, g->rows, g->cols, g->zoom, g->per_row, g->max_per_class, counts, K);
    if (too_big(W, H)) return -1;
    int tw = g->cols * g->zoom, th = g->rows * g->zoom; /* one tile: within W x H */
    g->W = (int)W;
    g->H = (int)H;
    g->rgb = malloc((size_t)g->W * g->H * 3);
    if (!g->rgb) return -1;
    static const uint8_t grey[3] = {150, 150, 150};
    static const uint8_t pal[8][3] = {{220, 50, 47}, {38, 139, 210}, {133, 153, 0},
                                      {211, 54, 130}, {181, 137, 0}, {42, 161, 152},
                                      {108, 113, 196}, {203, 75, 22}};
    fill(g, 0, 0, g->W, g->H, grey);
    double lo, hi, *row = malloc((size_t)m->n * sizeof *row);
    if (!row) return -1;
    value_range(&lo, &hi, m, row);
    int y = 0;
    for (int k = 0; k < K; k++) {
        fill(g, 0, y, g->W, BAR, pal[k % 8]);  /* class separator */
        y += BAR + GAP;
        int shown = 0;
        for (int64_t j = 0; j < m->m && shown < g->max_per_class; j++) {
            if (m->lab[j] != k) continue;
            centroid_row(row, m, j);
            int tx = GAP + (shown % g->per_row) * (tw + GAP);
            int ty = y + (shown / g->per_row) * (th + GAP);
            for (int py = 0; py < th; py++)
                for (int px = 0; px < tw; px++) {
                    uint8_t v = pixel(m, row[(py / g->zoom) * g->cols + px / g->zoom], lo, hi);
                    uint8_t *o = g->rgb + ((size_t)(ty + py) * g->W + tx + px) * 3;
                    o[0] = o[1] = o[2] = v;
                }
            shown++;
        }
        int brows = shown ? (shown + g->per_row - 1) / g->per_row : 1;
        y += brows * (th + GAP);
    }
    free(row);
    return 0;
}

int cmd_show(int argc, char **argv)
{
    const char *out = NULL;
    long per_row = 20, max_per = 40, zoom = 0, R = 0, Cc = 0;
    static const struct option lo[] = {
        {"png", 1, 0, 1}, {"per-row", 1, 0, 2}, {"max", 1, 0, 3}, {"zoom", 1, 0, 4},
        {"size", 1, 0, 5}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'h':
            printf("usage: fsvc show MODEL [--png FILE [options]]\n\n"
                   "Describes the model: file version, settings, sizes, preprocessing,\n"
                   "classes (names or labels) and centroids per class. With --png it\n"
                   "writes a montage of the model's centroids (image data), one band per\n"
                   "class (a coloured bar starts each class), tiles in the model's order.\n\n"
                   "options (default):\n"
                   "  --png FILE      the montage PNG to write\n"
                   "  --per-row T     tiles per row (%ld)\n"
                   "  --max M         centroids shown per class (%ld)\n"
                   "  --zoom Z        pixels per image pixel (0: tiles of about 56 px)\n"
                   "  --size RxC      image geometry when the model has none (e.g. 8x8)\n",
                   per_row, max_per);
            return FSVC_OK;
        case 1: out = optarg; break;
        case 2: bad = cli_parse_long("show", "--per-row", optarg, 1, 1000, &per_row); break;
        case 3: bad = cli_parse_long("show", "--max", optarg, 1, 100000, &max_per); break;
        case 4: bad = cli_parse_long("show", "--zoom", optarg, 0, 64, &zoom); break;
        case 5:
            if (sscanf(optarg, "%ldx%ld", &R, &Cc) != 2 || R < 1 || Cc < 1 || R > 4096 || Cc > 4096)
                bad = cli_usage_error("show", "--size: '%s' is not RxC", optarg);
            break;
        default:
            return cli_option_error("show", c, argv);
        }
        if (bad) return FSVC_EUSAGE;
    }
    if (argc - optind != 1) return cli_usage_error("show", "expected MODEL");
    const char *mpath = argv[optind];
    if (!out) return show_describe(mpath);
    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_model m;
    if (cli_out_check("show", out, &mpath, 1, "name another file for --png", &err) ||
        fsvc_model_load(&m, mpath, &err))
        return cli_report(&err);
    montage g = {0};
    g.rows = R ? (int)R : m.rows;
    g.cols = Cc ? (int)Cc : m.cols;
    int rc = FSVC_OK;
    if (m.regression || m.K < 1) {
        rc = fsvc_fail(&err, FSVC_EINPUT, "%s: a regression model has no classes to show", mpath);
    } else if (g.rows < 1 || g.cols < 1) {
        rc = fsvc_fail(&err, FSVC_EINPUT, "%s: the model has no image geometry; give --size RxC", mpath);
    } else if ((int64_t)g.rows * g.cols != m.n) {
        rc = fsvc_fail(&err, FSVC_EUSAGE, "%s: %d x %d is not the model's %d features", mpath,
                       g.rows, g.cols, m.n);
    }
    int64_t *counts = calloc((size_t)(m.K > 0 ? m.K : 1), sizeof *counts);
    if (!rc && !counts) rc = fsvc_fail(&err, FSVC_ERESOURCE, "show: out of memory");
    if (!rc) {
        for (int64_t j = 0; j < m.m; j++)
            if (m.lab[j] >= 0 && m.lab[j] < m.K) counts[m.lab[j]]++;
        int big = g.rows > g.cols ? g.rows : g.cols;
        g.zoom = zoom ? (int)zoom : big >= 56 ? 1 : (56 + big - 1) / big;
        g.per_row = (int)per_row;
        g.max_per_class = (int)max_per;
        int64_t W, H, W1, H1;
        int64_t one = 1;
        montage_size(&W, &H, g.rows, g.cols, g.zoom, g.per_row, g.max_per_class, counts, m.K);
        montage_size(&W1, &H1, g.rows, g.cols, 1, 1, 1, &one, 1); /* one tile, zoom 1 */
        if (too_big(W1, H1) || (int64_t)m.K * (BAR + GAP + 1 + GAP) > SHOW_MAX_H)
            rc = fsvc_fail(&err, FSVC_EINPUT, "%s: a montage of %d classes of %d x %d images "
                           "exceeds the limits (%d x %d px, %lld pixels)", mpath, m.K, g.rows,
                           g.cols, SHOW_MAX_W, SHOW_MAX_H, (long long)SHOW_MAX_PIXELS);
        else if (too_big(W, H))
            rc = fsvc_fail(&err, FSVC_EUSAGE, "show: the montage would be %lld x %lld px, over "
                           "the limits (%d x %d px, %lld pixels); lower --max, --per-row or "
                           "--zoom", (long long)W, (long long)H, SHOW_MAX_W, SHOW_MAX_H,
                           (long long)SHOW_MAX_PIXELS);
        else if (build(&g, &m, counts, m.K))
            rc = fsvc_fail(&err, FSVC_ERESOURCE, "show: out of memory for the montage");
        else
            rc = fsvc_png_write_rgb(out, g.rgb, g.W, g.H, &err);
    }
    if (!rc) {
        int64_t shown = 0;
        for (int k = 0; k < m.K; k++) shown += counts[k] < max_per ? counts[k] : max_per;
        printf("montage: %d classes, %lld of %lld centroids shown (%d x %d images, zoom %d), "
               "%d x %d px -> %s\n", m.K, (long long)shown, (long long)m.m, g.rows, g.cols,
               g.zoom, g.W, g.H, out);
        char name[FSVC_MODEL_MAX_NAME + 1];
        for (int k = 0; k < m.K; k++)
            printf("  class %d (%s %s): %lld centroids\n", k, m.class_names ? "name" : "label",
                   fsvc_model_class_text(&m, k, name, sizeof name), (long long)counts[k]);
    }
    free(counts);
    free(g.rgb);
    fsvc_free_model(&m);
    return rc ? cli_report(&err) : FSVC_OK;
}
