/* plot.h - PNG plots through gnuplot (pngcairo), the one plot path of the
 * tools (`fsvc study`, `fsvc bench --paper`).
 *
 * gnuplot is started without a shell (posix_spawnp), its program and the
 * data come from memory on its standard input, the PNG comes back on its
 * standard output, and it is verified (chunk structure, CRCs, IHDR, IEND)
 * before it is written to its path through ds_tmp_* (temporary file,
 * renamed into place). No path ever enters the gnuplot program, and every
 * text (titles, labels, legend entries) is passed as a gnuplot single-quoted
 * string by plot_gp_string, where gnuplot does no `command` or @macro
 * substitution. */
#ifndef FSVC_PLOT_H
#define FSVC_PLOT_H

#include "fsvc/fsvc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct plot_series {
    const char *title;   /* legend entry (NULL: none) */
    const double *x;     /* n values */
    const double *y;     /* n values; non-finite values are skipped */
    const double *yerr;  /* n error bars or NULL */
    int n;
    const char *style;   /* gnuplot style, a constant of the program:
                            "linespoints" (NULL), "points", "lines", "steps";
                            with yerr always yerrorlines */
    const char *extra;   /* extra plot attributes, a constant of the program
                            (e.g. "lw 3 dt 2"), or NULL; never user text */
} plot_series;

typedef struct plot_spec {
    const char *title;   /* top title (any text; '\n' breaks the line) */
    const char *xlabel;  /* axis labels, with units: "training time (s)" */
    const char *ylabel;
    int logx, logy;      /* log10 axes */
    int width, height;   /* pixels; 0: 900 x 600 */
    const char *key;     /* legend position, a constant of the program
                            ("bottom right"...), NULL: auto */
} plot_spec;

enum { PLOT_EMPTY = -1 };  /* plot_png: no point to draw, nothing written */

/* 1 if an executable gnuplot is on PATH (looked up without a shell). */
int plot_available(void);

/* Draws the series into the PNG at path (each series in increasing x).
 * Returns FSVC_OK; PLOT_EMPTY when no series has a point to draw (err says
 * so, no file is touched); or FSVC_ERESOURCE with one line in err naming
 * path and the cause (gnuplot missing, its exit status and first error
 * line, an invalid PNG, a write error). On failure nothing is left at path
 * (an existing file there is kept). */
int plot_png(const char *path, const plot_spec *spec, const plot_series *s,
             int ns, fsvc_error *err);

/* A heat map: z over the cells of an nx x ny grid of category axes. */
typedef struct plot_heat {
    const char *title, *xlabel, *ylabel, *zlabel;  /* any text */
    int nx, ny;
    const char *const *xtics, *const *ytics;       /* nx, ny labels (any text) */
    const double *z;       /* ny x nx, row j = ytics[j]; not finite: no value */
    const int *failed;     /* ny x nx or NULL: 1 marks a cell "failed" */
} plot_heat;

/* Draws the heat map into the PNG at path (each cell coloured by z and
 * labelled with it), as plot_png does: FSVC_OK, PLOT_EMPTY when no cell has
 * a value, or FSVC_ERESOURCE naming path. */
int plot_heatmap(const char *path, const plot_heat *h, fsvc_error *err);

/* The confusion matrix conf (K x K, row = true class, column = predicted)
 * as a labelled heat map (tools/plot_confusion.c): the class names on both
 * axes (the true ones with their sample counts), each cell coloured by its
 * share of the row (a colour scale in %) and, up to 25 classes, labelled
 * with its count; title any text. As plot_png: FSVC_OK or FSVC_ERESOURCE
 * naming path. */
int plot_confusion(const char *path, const int64_t *conf, int K, const char *const *names,
                   const char *title, fsvc_error *err);

/* Runs the gnuplot program that emit(g, ctx) writes and stores the PNG it
 * draws at path, checked and all or nothing (the engine of plot_png). */
int plot_render(const char *path, void (*emit)(FILE *, const void *), const void *ctx,
                fsvc_error *err);

/* Writes text as a gnuplot string expression: single-quoted parts joined
 * by ."\n". for a line break and ."'". for a quote (constant double-quoted
 * strings), control characters dropped, bytes that are not UTF-8 as '?'. */
void plot_gp_string(FILE *g, const char *text);

/* 0 if buf[0..len) is a whole PNG: signature, IHDR first with a non-zero
 * size, every chunk inside the buffer with a correct CRC, IEND last and
 * nothing after it. Else -1 with the reason in why. */
int plot_png_check(const unsigned char *buf, size_t len, char *why, size_t whylen);

/* Indices of the Pareto front of the points (x to minimise, y to maximise):
 * points no other point beats on both. front: capacity n, sorted by x;
 * returns their count. */
int plot_pareto(int *front, const double *x, const double *y, int n);

#endif
