/* study_heat.c - the heat map of a study: accuracy (CV mean, else test)
 * over two varied axes, radius x lambda or radius x max-neurons where the
 * grid varies them, else its first two axes; with more axes each cell
 * shows the best over the others. Drawn from the CSV (a resumed study
 * maps every row); a cell whose every point failed says so. */
#include "tools/study_out.h"
#include "tools/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int axis_index(const fsvc_grid *g, const char *name)
{
    for (int a = 0; a < g->naxes; a++)
        if (!strcmp(g->axis[a].name, name)) return a;
    return -1;
}

/* The two axes mapped: *ax across, *ay up; 0 when the grid has < 2 axes. */
static int pick_axes(const fsvc_grid *g, int *ax, int *ay)
{
    if (g->naxes < 2) return 0;
    *ax = axis_index(g, "radius");
    *ay = axis_index(g, "lambda");
    if (*ay < 0) *ay = axis_index(g, "max-neurons");
    if (*ax < 0) *ax = *ay == 0 ? 1 : 0;
    if (*ay < 0) *ay = *ax == 0 ? 1 : 0;
    return 1;
}

int study_heatmap(const char *csv, const char *prefix, const fsvc_grid *g,
                  char *const *settings, const char *title, FILE *log, int *written,
                  fsvc_error *err)
{
    int ax, ay;
    if (!pick_axes(g, &ax, &ay)) return FSVC_OK;
    fsvc_csv t;
    int rc = fsvc_csv_load(&t, csv, err);
    if (rc) return rc;
    int cs = fsvc_csv_col(&t, "settings"), cst = fsvc_csv_col(&t, "status"),
        cc = fsvc_csv_col(&t, "cv_mean"), ca = fsvc_csv_col(&t, "acc_test");
    int reg = fsvc_csv_col(&t, "r2_test") >= 0; /* study --regression: R^2 */
    if (reg) {
        cc = fsvc_csv_col(&t, "cv_r2");
        ca = fsvc_csv_col(&t, "r2_test");
    }
    int nx = g->axis[ax].nval, ny = g->axis[ay].nval;
    double *z = malloc((size_t)nx * ny * sizeof *z);
    int *tried = calloc((size_t)nx * ny, sizeof *tried), *failed = calloc((size_t)nx * ny, sizeof *failed);
    const char **xt = malloc((size_t)nx * sizeof *xt), **yt = malloc((size_t)ny * sizeof *yt);
    char *png = malloc(strlen(prefix) + 16), ttl[900];
    if (!z || !tried || !failed || !xt || !yt || !png) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "study plots: out of memory");
        goto done;
    }
    if (cs < 0 || cst < 0 || cc < 0 || ca < 0) {
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: no columns to map", csv);
        goto done;
    }
    int have_cv = 0;
    for (int64_t r = 1; r < t.nrec; r++) have_cv |= fsvc_csv_get(&t, r, cc)[0] != 0;
    int col = have_cv ? cc : ca;
    for (size_t q = 0; q < (size_t)nx * ny; q++) z[q] = NAN;
    for (int64_t k = 0; k < fsvc_grid_size(g); k++) {
        int vi[FSVC_GRID_MAX_AXES];
        int64_t kk = k;
        for (int a = g->naxes - 1; a >= 0; a--) {
            vi[a] = (int)(kk % g->axis[a].nval);
            kk /= g->axis[a].nval;
        }
        size_t q = (size_t)vi[ay] * nx + vi[ax];
        int64_t r = study_latest_row(&t, cs, settings[k]);
        if (r <= 0) continue;
        tried[q]++;
        if (!strncmp(fsvc_csv_get(&t, r, cst), "failed", 6)) { failed[q]++; continue; }
        const char *v = fsvc_csv_get(&t, r, col);
        if (v[0] && (!isfinite(z[q]) || atof(v) > z[q])) z[q] = atof(v);
    }
    for (size_t q = 0; q < (size_t)nx * ny; q++) failed[q] = tried[q] && failed[q] == tried[q];
    for (int i = 0; i < nx; i++) xt[i] = g->axis[ax].val[i];
    for (int j = 0; j < ny; j++) yt[j] = g->axis[ay].val[j];
    snprintf(ttl, sizeof ttl, "%s\n%s %s over %s x %s%s", title,
             have_cv ? "cross-validated" : "test", reg ? "R^2" : "accuracy (%)",
             g->axis[ax].name, g->axis[ay].name,
             g->naxes > 2 ? ", best over the other axes" : "");
    plot_heat h = {ttl, g->axis[ax].name, g->axis[ay].name,
                   reg ? (have_cv ? "CV R^2" : "test R^2")
                       : have_cv ? "CV accuracy (%)" : "test accuracy (%)",
                   nx, ny, xt, yt, z, failed};
    sprintf(png, "%s-heatmap.png", prefix);
    rc = plot_heatmap(png, &h, err);
    if (rc == PLOT_EMPTY) {
        fprintf(log, "study plots: %s, skipped\n", err->msg);
        rc = FSVC_OK;
    } else if (!rc) {
        (*written)++;
    }
done:
    free(z); free(tried); free(failed); free(xt); free(yt); free(png);
    fsvc_csv_free(&t);
    return rc;
}
