/* plot_confusion.c - `fsvc eval --png`: the confusion matrix as a heat map
 * a person can read without the code: class names on the axes, counts in
 * the cells, the colour scale of the row shares (see plot.h). */
#include "tools/plot.h"

#include <stdio.h>
#include <string.h>

#define NAME_MAX_SHOWN 24   /* longer class names are cut (with "...") on the axes */

struct conf_args {
    const int64_t *conf;
    int K;
    const char *const *names;
    const char *title;
};

/* One axis label into t: the name, cut to NAME_MAX_SHOWN characters, and
 * the row's count; returns its length in characters. */
static int tic_text(char *t, size_t len, const char *name, int64_t count, int with_count)
{
    int chars = 0;
    size_t i = 0;
    for (; name[i]; i++) /* whole UTF-8 characters */
        if (((unsigned char)name[i] & 0xC0) != 0x80 && ++chars > NAME_MAX_SHOWN) break;
    if (name[i]) { /* cut: NAME_MAX_SHOWN - 3 characters and "..." */
        for (chars = 0, i = 0; name[i]; i++)
            if (((unsigned char)name[i] & 0xC0) != 0x80 && ++chars > NAME_MAX_SHOWN - 3) break;
        snprintf(t, len, "%.*s...", (int)i, name);
        chars = NAME_MAX_SHOWN;
    } else {
        snprintf(t, len, "%s", name);
    }
    if (with_count)
        chars += snprintf(t + strlen(t), len - strlen(t), " (%lld)", (long long)count);
    return chars;
}

static int64_t row_sum(const struct conf_args *a, int r)
{
    int64_t s = 0;
    for (int c = 0; c < a->K; c++) s += a->conf[(size_t)r * a->K + c];
    return s;
}

static void emit_conf(FILE *g, const void *ctx)
{
    const struct conf_args *a = ctx;
    int K = a->K;
    /* cells shrink as classes grow; counts are written while they fit */
    int cell = K <= 8 ? 80 : K <= 25 ? 40 : K <= 60 ? 20 : 12;
    int font = cell >= 40 ? 11 : cell >= 20 ? 9 : 7, labels = cell >= 40;
    char t[4 * NAME_MAX_SHOWN + 40];
    int xlen = 1, ylen = 1; /* the longest tic labels, in characters */
    for (int k = 0; k < K; k++) {
        int n = tic_text(t, sizeof t, a->names[k], 0, 0);
        xlen = n > xlen ? n : xlen;
        n = tic_text(t, sizeof t, a->names[k], row_sum(a, k), 1);
        ylen = n > ylen ? n : ylen;
    }
    /* margins in pixels, generous for a character (cw) and a line (lh): the
     * y names and label left, the colour scale right, the 45-degree x
     * names below; the matrix itself is cell x K pixels square */
    int cw = font * 3 / 4 + 1, lh = font * 2, side = cell * K;
    int left = ylen * cw + 3 * lh, right = 10 * cw + 3 * lh, top = 4 * lh;
    int bottom = xlen * cw * 3 / 4 + 3 * lh, W = left + side + right, H = top + side + bottom;
    fprintf(g, "set terminal pngcairo size %d,%d noenhanced font 'sans,%d'\nset output\n"
            "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
            "set bmargin at screen %.4f\nset tmargin at screen %.4f\n"
            "set colorbox user origin screen %.4f, screen %.4f size screen %.4f, screen %.4f\n",
            W, H, font, (double)left / W, (double)(left + side) / W, (double)bottom / H,
            (double)(bottom + side) / H, (double)(left + side + 2 * cw) / W,
            (double)bottom / H, (2.0 * cw) / W, (double)side / H);
    fputs("set title ", g); plot_gp_string(g, a->title); fputc('\n', g);
    fputs("set xlabel 'predicted class'\nset ylabel 'true class (its samples)'\n"
          "set cblabel 'share of the true class (row), %'\nset cbrange [0:100]\n"
          "set palette defined (0 '#ffffff', 1 '#deebf7', 50 '#6baed6', 100 '#08306b')\n"
          "unset key\nset tics nomirror out\n", g);
    for (int axis = 0; axis < 2; axis++) {
        fprintf(g, "set %ctics (", axis ? 'y' : 'x');
        for (int k = 0; k < K; k++) {
            if (k) fputs(", ", g);
            tic_text(t, sizeof t, a->names[k], row_sum(a, k), axis);
            plot_gp_string(g, t);
            fprintf(g, " %d", k);
        }
        fprintf(g, ")%s\n", axis ? "" : " rotate by 45 right");
    }
    /* row 0 at the top, as the text matrix prints it */
    fprintf(g, "set xrange [-0.5:%g]\nset yrange [%g:-0.5]\n", K - 0.5, K - 0.5);
    fputs("plot '-' using 1:2:(0.5):(0.5):3 with boxxyerror fill solid 1.0 noborder "
          "fc palette", g);
    fputs(labels ? ", '-' using 1:2:3:4 with labels tc rgb variable\n" : "\n", g);
    for (int pass = 0; pass < 1 + labels; pass++) {
        int any = 0;
        for (int r = 0; r < K; r++) {
            int64_t row = row_sum(a, r);
            for (int c = 0; c < K; c++) {
                int64_t n = a->conf[(size_t)r * K + c];
                double pct = row ? 100.0 * (double)n / (double)row : 0;
                if (!n) continue; /* an empty cell stays white */
                any = 1;
                if (pass == 0) fprintf(g, "%d %d %.6g\n", c, r, pct);
                else fprintf(g, "%d %d \"%lld\" %d\n", c, r, (long long)n,
                             pct > 55 ? 0xffffff : 0); /* white on dark cells */
            }
        }
        if (!any) fputs(pass ? "0 0 \"\" 0\n" : "0 0 0\n", g); /* no sample: white */
        fputs("e\n", g);
    }
    fputs("unset output\n", g);
}

int plot_confusion(const char *path, const int64_t *conf, int K, const char *const *names,
                   const char *title, fsvc_error *err)
{
    struct conf_args a = {conf, K, names, title};
    return plot_render(path, emit_conf, &a, err);
}
