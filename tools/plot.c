/* plot.c - PNG plots by driving gnuplot (pngcairo) through popen, with the
 * data inline; the PNG goes to a temporary name, renamed when gnuplot
 * succeeds. */
#include "tools/plot.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failf(char *msg, size_t len, const char *fmt, ...)
{
    if (msg && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int plot_available(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* A gnuplot double-quoted string: \ and " escaped, newlines as \n (a
 * line break in titles). */
static void quoted(FILE *g, const char *s)
{
    fputc('"', g);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') { fputc('\\', g); fputc(*s, g); }
        else if (*s == '\n') fputs("\\n", g);
        else if (*s != '\r') fputc(*s, g);
    }
    fputc('"', g);
}

/* Indices 0..n-1 of a series in increasing x (insertion sort, stable). */
static void order_by_x(int *ord, const double *x, int n)
{
    for (int i = 0; i < n; i++) ord[i] = i;
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && x[ord[b]] < x[ord[b - 1]]; b--) {
            int t = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = t;
        }
}

int plot_png(const char *path, const plot_spec *spec, const plot_series *s,
             int ns, char *msg, size_t msglen)
{
    int any = 0;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++)
            if (isfinite(s[k].x[i]) && isfinite(s[k].y[i]) &&
                (!spec->logx || s[k].x[i] > 0) && (!spec->logy || s[k].y[i] > 0))
                any = 1;
    if (!any) return failf(msg, msglen, "%s: no data to plot", path);
    if (!plot_available())
        return failf(msg, msglen, "%s: gnuplot not found (apt-get install gnuplot-nox)", path);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.png", path, (long)getpid());
    char errfile[] = "/tmp/fsvc-plot-XXXXXX";
    int efd = mkstemp(errfile);
    if (efd < 0) return failf(msg, msglen, "%s: cannot create a temporary file", path);
    close(efd);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "gnuplot 2>%s", errfile);
    FILE *g = popen(cmd, "w");
    if (!g) {
        unlink(errfile);
        return failf(msg, msglen, "%s: cannot run gnuplot", path);
    }
    fprintf(g, "set terminal pngcairo size %d,%d noenhanced font 'sans,11'\n",
            spec->width > 0 ? spec->width : 900, spec->height > 0 ? spec->height : 600);
    fputs("set output ", g); quoted(g, tmp); fputc('\n', g);
    fputs("set title ", g); quoted(g, spec->title ? spec->title : ""); fputc('\n', g);
    fputs("set xlabel ", g); quoted(g, spec->xlabel ? spec->xlabel : ""); fputc('\n', g);
    fputs("set ylabel ", g); quoted(g, spec->ylabel ? spec->ylabel : ""); fputc('\n', g);
    fputs("set grid\nset key box opaque\n", g);
    if (spec->key) fprintf(g, "set key %s\n", spec->key);
    if (spec->logx) fputs("set logscale x\nset format x '%g'\n", g);
    if (spec->logy) fputs("set logscale y\nset format y '%g'\n", g);
    fputs("plot ", g);
    int first = 1;
    for (int k = 0; k < ns; k++) {
        if (s[k].n <= 0) continue;
        if (!first) fputs(", ", g);
        first = 0;
        if (s[k].yerr)
            fputs("'-' using 1:2:3 with yerrorlines", g);
        else
            fprintf(g, "'-' using 1:2 with %s", s[k].style ? s[k].style : "linespoints");
        if (s[k].extra) fprintf(g, " %s", s[k].extra);
        if (s[k].title) { fputs(" title ", g); quoted(g, s[k].title); }
        else fputs(" notitle", g);
    }
    fputc('\n', g);
    for (int k = 0; k < ns; k++) {
        if (s[k].n <= 0) continue;
        int *ord = malloc((size_t)s[k].n * sizeof *ord);
        if (ord) order_by_x(ord, s[k].x, s[k].n);
        for (int t = 0; t < s[k].n; t++) {
            int i = ord ? ord[t] : t;
            double x = s[k].x[i], y = s[k].y[i];
            if (!isfinite(x) || !isfinite(y)) continue;
            if ((spec->logx && x <= 0) || (spec->logy && y <= 0)) continue;
            if (s[k].yerr) fprintf(g, "%.10g %.10g %.10g\n", x, y, s[k].yerr[i]);
            else fprintf(g, "%.10g %.10g\n", x, y);
        }
        free(ord);
        fputs("e\n", g);
    }
    int st = pclose(g);
    char emsg[300] = "";
    FILE *ef = fopen(errfile, "r");
    if (ef) {
        if (!fgets(emsg, sizeof emsg, ef)) emsg[0] = 0;
        fclose(ef);
    }
    unlink(errfile);
    emsg[strcspn(emsg, "\n")] = 0;
    if (st != 0 || access(tmp, F_OK) != 0) {
        unlink(tmp);
        return failf(msg, msglen, "%s: gnuplot failed%s%s", path, emsg[0] ? ": " : "", emsg);
    }
    if (rename(tmp, path) != 0) {
        unlink(tmp);
        return failf(msg, msglen, "%s: cannot write the plot", path);
    }
    return 0;
}

int plot_pareto(int *front, const double *x, const double *y, int n)
{
    int cnt = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) continue;
        int dominated = 0;
        for (int j = 0; j < n && !dominated; j++) {
            if (j == i || !isfinite(x[j]) || !isfinite(y[j])) continue;
            if (x[j] <= x[i] && y[j] >= y[i] && (x[j] < x[i] || y[j] > y[i]))
                dominated = 1;
            /* equal points: keep the first only */
            if (x[j] == x[i] && y[j] == y[i] && j < i) dominated = 1;
        }
        if (!dominated) front[cnt++] = i;
    }
    /* insertion sort by x */
    for (int a = 1; a < cnt; a++)
        for (int b = a; b > 0 && x[front[b]] < x[front[b - 1]]; b--) {
            int t = front[b];
            front[b] = front[b - 1];
            front[b - 1] = t;
        }
    return cnt;
}
