/* plot.h - PNG plots through gnuplot (pngcairo), data passed inline on a
 * pipe; written to a temporary file and renamed into place. Used by
 * `fsvc study` and by any sub-command that wants a figure. */
#ifndef FSVC_PLOT_H
#define FSVC_PLOT_H

#include <stddef.h>

typedef struct plot_series {
    const char *title;   /* legend entry (NULL: none) */
    const double *x;     /* n values */
    const double *y;     /* n values; non-finite values are skipped */
    const double *yerr;  /* n error bars or NULL */
    int n;
    const char *style;   /* gnuplot style: "linespoints" (NULL), "points",
                            "lines", "steps"; with yerr always yerrorlines */
    const char *extra;   /* extra gnuplot plot attributes (e.g. "lw 3 dt 2")
                            or NULL */
} plot_series;

typedef struct plot_spec {
    const char *title;   /* top title */
    const char *xlabel;  /* axis labels, with units: "training time (s)" */
    const char *ylabel;
    int logx, logy;      /* log10 axes */
    int width, height;   /* pixels; 0: 900 x 600 */
    const char *key;     /* legend position ("bottom right"...), NULL: auto */
} plot_spec;

/* 1 if gnuplot can be run (found on PATH). */
int plot_available(void);

/* Draws the series into the PNG at path (each series in increasing x; a
 * newline in a title breaks the line). Returns 0, or -1 with a one-line
 * message in msg (gnuplot missing or failing, no data, I/O error). */
int plot_png(const char *path, const plot_spec *spec, const plot_series *s,
             int ns, char *msg, size_t msglen);

/* Indices of the Pareto front of the points (x to minimise, y to maximise):
 * points no other point beats on both. front: capacity n, sorted by x;
 * returns their count. */
int plot_pareto(int *front, const double *x, const double *y, int n);

#endif
