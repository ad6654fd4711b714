/* study_plots.c - the PNG plots of a study, drawn from its CSV (so that a
 * resumed study plots every row): accuracy (R^2 for a regression) vs
 * centroids, accuracy vs training time with the Pareto front, t_syn per phase vs centroids; and
 * the LMS learning curves. Rows are found by their settings string. */
#include "tools/study_out.h"
#include "tools/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { C_SETTINGS, C_M, C_TTRAIN, C_ACC, C_CV, C_CVSD, C_TS_SEL, C_TS_RO, C_TS_PRED, NCOL };
static const char *const colname[NCOL] = {
    "settings", "centroids", "t_train_s", "acc_test", "cv_mean", "cv_sd",
    "tsyn_select_ns", "tsyn_readout_ns", "tsyn_predict_ns"};

static double val(const fsvc_csv *t, const int *col, int c, int64_t r)
{
    const char *s = r > 0 ? fsvc_csv_get(t, r, col[c]) : "";
    return s[0] ? atof(s) : NAN;
}

/* One plot: drawn, skipped when empty (noted on log), or an error. */
static int draw(const char *png, const plot_spec *sp, const plot_series *s, int ns,
                int *written, FILE *log, fsvc_error *err)
{
    int rc = plot_png(png, sp, s, ns, err);
    if (rc == PLOT_EMPTY) {
        fprintf(log, "study plots: %s, skipped\n", err->msg);
        return FSVC_OK;
    }
    if (!rc) (*written)++;
    return rc;
}

/* 1 when every value of the axis is a number (or Xrms, or the radius
 * search): an order worth a line through its points. Names (select,
 * readout, dtype, ...) are categories: their points are never joined. */
static int ordered_axis(const fsvc_grid_axis *ax)
{
    for (int i = 0; i < ax->nval; i++) {
        const char *v = ax->val[i];
        char *end;
        double x = strtod(v, &end);
        if (!strcmp(v, "auto") || !strcmp(v, "search")) continue;
        if (end == v || !isfinite(x) || (*end && strcmp(end, "rms"))) return 0;
    }
    return 1;
}

/* The axis the plot lines run along: the first ordered one, or -1 (each
 * point a series of its own, a marker without a line). */
static int sweep_axis(const fsvc_grid *g)
{
    for (int a = 0; a < g->naxes; a++)
        if (ordered_axis(&g->axis[a])) return a;
    return -1;
}

/* Grid point k's value indices (the last axis varies fastest). */
static void point_index(int *vi, const fsvc_grid *g, int64_t k)
{
    for (int a = g->naxes - 1; a >= 0; a--) {
        vi[a] = (int)(k % g->axis[a].nval);
        k /= g->axis[a].nval;
    }
}

/* The series label of grid point k: the values of every axis but the
 * sweep axis ("" when there is no other). */
static void rest_key(char *out, size_t len, const fsvc_grid *g, int sweep, int64_t k)
{
    int vi[FSVC_GRID_MAX_AXES];
    point_index(vi, g, k);
    size_t u = 0;
    out[0] = 0;
    for (int a = 0; a < g->naxes && u < len; a++)
        if (a != sweep)
            u += (size_t)snprintf(out + u, len - u, "%s%s=%s", u ? ", " : "", g->axis[a].name,
                                  g->axis[a].val[vi[a]]);
}

int study_plots(const char *csv, const char *prefix, const fsvc_grid *g,
                char *const *settings, const char *title, FILE *log, int *written,
                fsvc_error *err)
{
    *written = 0;
    fsvc_csv t;
    int rc = fsvc_csv_load(&t, csv, err), col[NCOL];
    if (rc) return rc;
    /* fsvc study --regression: the score is R^2 (study_column), not accuracy */
    int reg = fsvc_csv_col(&t, "r2_test") >= 0;
    const char *score = reg ? "R^2" : "accuracy", *axis = reg ? "R^2" : "accuracy (%)";
    for (int c = 0; c < NCOL; c++) {
        const char *name = !reg ? colname[c] : c == C_ACC ? "r2_test" : c == C_CV ? "cv_r2"
                         : c == C_CVSD ? "cv_r2_sd" : colname[c];
        if ((col[c] = fsvc_csv_col(&t, name)) < 0) {
            fsvc_csv_free(&t);
            return fsvc_fail(err, FSVC_EINPUT, "%s: no column '%s' to plot", csv, name);
        }
    }
    int64_t np = fsvc_grid_size(g);
    int sw = sweep_axis(g), per = sw >= 0 ? g->axis[sw].nval : 1;
    int nser = (int)(np / per);
    /* per point: centroids, time, test acc, cv, cv sd, t_syn x3 */
    double *v = malloc((size_t)np * 8 * sizeof *v);
    plot_series *s = calloc((size_t)(3 * nser + 4), sizeof *s);
    char (*lab)[300] = calloc((size_t)(2 * nser + 1), sizeof *lab);
    /* column arrays, series by series (o = j * per + i) */
    double *cm = malloc((size_t)np * sizeof *cm), *ct = malloc((size_t)np * sizeof *ct),
           *ca = malloc((size_t)np * sizeof *ca), *cc = malloc((size_t)np * sizeof *cc),
           *cs = malloc((size_t)np * sizeof *cs), *t1 = malloc((size_t)np * sizeof *t1),
           *t2 = malloc((size_t)np * sizeof *t2), *t3 = malloc((size_t)np * sizeof *t3);
    int *front = malloc((size_t)np * sizeof *front);
    int64_t *rep = malloc((size_t)nser * sizeof *rep); /* a point of each series */
    double *fx = malloc((size_t)np * sizeof *fx), *fy = malloc((size_t)np * sizeof *fy);
    if (!v || !s || !lab || !cm || !ct || !ca || !cc || !cs || !t1 || !t2 || !t3 || !front ||
        !fx || !fy || !rep) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "study plots: out of memory");
        goto done;
    }
    int have_acc = 0, have_cv = 0;
    for (int64_t k = 0; k < np; k++) {
        int64_t row = -1;
        for (int64_t r = t.nrec - 1; r > 0; r--)  /* the latest row of a point */
            if (!strcmp(fsvc_csv_get(&t, r, col[C_SETTINGS]), settings[k])) { row = r; break; }
        double *q = v + k * 8;
        for (int c = C_M; c < NCOL; c++) q[c - C_M] = val(&t, col, c, row);
        have_acc |= isfinite(q[2]);
        have_cv |= isfinite(q[3]);
    }
    /* series j holds the points of one value of every other axis (in grid
     * order), value i of the sweep axis at o = j * per + i; rep[j]: one of
     * its points, for its label */
    for (int64_t k = 0; k < np; k++) {
        int vi[FSVC_GRID_MAX_AXES], i = 0;
        int64_t j = 0;
        point_index(vi, g, k);
        for (int a = 0; a < g->naxes; a++)
            if (a == sw) i = vi[a];
            else j = j * g->axis[a].nval + vi[a];
        int64_t o = j * per + i;
        double *q = v + k * 8;
        rep[j] = k;
        cm[o] = q[0]; ct[o] = q[1]; ca[o] = q[2]; cc[o] = q[3]; cs[o] = q[4];
        t1[o] = q[5]; t2[o] = q[6]; t3[o] = q[7];
    }
    size_t pl = strlen(prefix) + 32;
    char *png = malloc(pl), ttl[900];
    if (!png) { rc = fsvc_fail(err, FSVC_ERESOURCE, "study plots: out of memory"); goto done; }
    /* 1. accuracy vs centroids */
    int ns = 0;
    for (int j = 0; j < nser; j++) {
        char rk[256];
        rest_key(rk, sizeof rk, g, sw, rep[j]);
        if (have_acc) {
            snprintf(lab[2 * j], sizeof lab[0], "test%s%s", rk[0] ? ", " : "", rk);
            s[ns++] = (plot_series){lab[2 * j], cm + j * per, ca + j * per, NULL, per, NULL, NULL};
        }
        if (have_cv) {
            snprintf(lab[2 * j + 1], sizeof lab[0], "CV mean +- sd%s%s", rk[0] ? ", " : "", rk);
            s[ns++] = (plot_series){lab[2 * j + 1], cm + j * per, cc + j * per, cs + j * per, per,
                                    NULL, "dt 2"};
        }
    }
    snprintf(ttl, sizeof ttl, "%s\n%s vs centroids%s%s%s", title, score,
             sw >= 0 ? " (lines along " : g->naxes ? " (one marker per setting)" : "",
             sw >= 0 ? g->axis[sw].name : "", sw >= 0 ? ")" : "");
    plot_spec sp = {ttl, "centroids m (hidden neurons)", axis, 1, 0, 1200, 600,
                    "outside right top"};
    snprintf(png, pl, "%s-acc-centroids.png", prefix);
    if ((rc = draw(png, &sp, s, ns, written, log, err))) goto done2;
    /* 2. accuracy vs training time, Pareto front */
    const double *acc = have_acc ? ca : cc;
    ns = 0;
    for (int j = 0; j < nser; j++) {
        char rk[256];
        rest_key(rk, sizeof rk, g, sw, rep[j]);
        snprintf(lab[2 * j], sizeof lab[0], "%s%s%s", have_acc ? "test" : "CV mean",
                 rk[0] ? ", " : "", rk);
        s[ns++] = (plot_series){lab[2 * j], ct + j * per, acc + j * per, NULL, per, "points",
                                "pt 7 ps 1.5"};
    }
    int nf = plot_pareto(front, ct, acc, (int)np);
    for (int i = 0; i < nf; i++) { fx[i] = ct[front[i]]; fy[i] = acc[front[i]]; }
    s[ns++] = (plot_series){"Pareto front (none both faster and better)", fx, fy,
                            NULL, nf, "linespoints", "pt 6 ps 3 lw 2 lc rgb 'black' dt 3"};
    snprintf(ttl, sizeof ttl, "%s\n%s %s vs training time", title,
             have_acc ? "test" : "cross-validated", score);
    sp = (plot_spec){ttl, "training time (s, selection + readout)", axis, 1, 0, 1200, 600,
                     "outside right top"};
    snprintf(png, pl, "%s-acc-time.png", prefix);
    if ((rc = draw(png, &sp, s, ns, written, log, err))) goto done2;
    /* 3. t_syn per phase vs centroids */
    s[0] = (plot_series){"selection (novelty pass; none when random)", cm, t1, NULL, (int)np, "points", "pt 7 ps 1.3"};
    s[1] = (plot_series){"readout (H and solve / LMS)", cm, t2, NULL, (int)np, "points", "pt 5 ps 1.3"};
    s[2] = (plot_series){"prediction on TEST", cm, t3, NULL, (int)np, "points", "pt 9 ps 1.5"};
    snprintf(ttl, sizeof ttl, "%s\nsynaptic time per phase, t_syn = time / (n m N)", title);
    sp = (plot_spec){ttl, "centroids m (hidden neurons)", "t_syn (ns per synaptic operation)", 1, 1,
                     0, 0, "top right"};
    snprintf(png, pl, "%s-tsyn.png", prefix);
    rc = draw(png, &sp, s, 3, written, log, err);
done2:
    free(png);
done:
    free(rep);
    free(cm); free(ct); free(ca); free(cc); free(cs); free(t1); free(t2); free(t3);
    free(front); free(fx); free(fy);
    free(v); free(s); free(lab);
    fsvc_csv_free(&t);
    return rc;
}

int study_plot_lms(const char *lms_csv, const char *png, const char *title, FILE *log,
                   int *written, fsvc_error *err)
{
    fsvc_csv t;
    int rc = fsvc_csv_load(&t, lms_csv, err);
    if (rc) return rc;
    int cp = fsvc_csv_col(&t, "point"), ce = fsvc_csv_col(&t, "epoch"),
        ct = fsvc_csv_col(&t, "train_err"), cv = fsvc_csv_col(&t, "val_err");
    int64_t n = t.nrec > 1 ? t.nrec - 1 : 0;
    if (cp < 0 || ce < 0 || ct < 0 || cv < 0 || n == 0) {
        fprintf(log, "study plots: %s: no LMS curve to plot, skipped\n", lms_csv);
        fsvc_csv_free(&t);
        return FSVC_OK;
    }
    double *x = malloc((size_t)n * sizeof *x), *yt = malloc((size_t)n * sizeof *yt),
           *yv = malloc((size_t)n * sizeof *yv);
    plot_series *s = calloc((size_t)(2 * n), sizeof *s);
    char (*lab)[300] = calloc((size_t)(2 * n), sizeof *lab);
    char (*ex)[40] = calloc((size_t)(2 * n), sizeof *ex);
    if (x && yt && yv && s && lab && ex) {
        int ns = 0;
        for (int64_t i = 0; i < n;) {
            const char *pt = fsvc_csv_get(&t, i + 1, cp);
            int64_t j = i;
            while (j < n && !strcmp(fsvc_csv_get(&t, j + 1, cp), pt)) {
                x[j] = atof(fsvc_csv_get(&t, j + 1, ce));
                yt[j] = 100 * atof(fsvc_csv_get(&t, j + 1, ct));
                yv[j] = 100 * atof(fsvc_csv_get(&t, j + 1, cv));
                j++;
            }
            /* one colour per point: validation solid, training dashed */
            snprintf(lab[ns], sizeof lab[0], "validation, %s", pt);
            snprintf(ex[ns], sizeof ex[0], "lw 2 pt 7 lc %d", ns / 2 + 1);
            s[ns] = (plot_series){lab[ns], x + i, yv + i, NULL, (int)(j - i), NULL, ex[ns]};
            ns++;
            snprintf(lab[ns], sizeof lab[0], "training, %s", pt);
            snprintf(ex[ns], sizeof ex[0], "dt 2 pt 6 lc %d", ns / 2 + 1);
            s[ns] = (plot_series){lab[ns], x + i, yt + i, NULL, (int)(j - i), NULL, ex[ns]};
            ns++;
            i = j;
        }
        char ttl[900];
        snprintf(ttl, sizeof ttl, "%s\nLMS readout: error per epoch (epoch 0 = one-hot start)", title);
        plot_spec sp = {ttl, "epoch", "error rate (%)", 0, 0, 0, 0, "top right"};
        rc = draw(png, &sp, s, ns, written, log, err);
    } else {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "study plots: out of memory");
    }
    free(x); free(yt); free(yv); free(s); free(lab); free(ex);
    fsvc_csv_free(&t);
    return rc;
}
