/* study_best.c - the best point of a study by cross-validation: printed
 * with its `fsvc train` command, written to PREFIX-best.txt and the
 * sidecar, flagged when it lies at the edge of the grid. */
#include "tools/study_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text as one shell word: as it is when it is plain, else single-quoted. */
static void shell_word(FILE *f, const char *text)
{
    if (*text && strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                              "0123456789._/+-=:,@%") == strlen(text)) {
        fputs(text, f);
        return;
    }
    fputc('\'', f);
    for (; *text; text++)
        if (*text == '\'') fputs("'\\''", f);
        else fputc(*text, f);
    fputc('\'', f);
}

/* The `fsvc train` command of point k (malloc'd, NULL when out of memory):
 * every setting whose canonical text (the settings model) differs from
 * fsvc train's default, then DATA. */
static char *train_command(const study_opts *o, int64_t k)
{
    fsvc_param p = o->base, d;
    fsvc_param_default(&d);
    char key[1024];
    if (fsvc_grid_point(&p, key, sizeof key, &o->grid, k, NULL)) return NULL;
    char *cmd = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&cmd, &len);
    if (!f) return NULL;
    fputs("fsvc train", f);
    for (int i = 0; fsvc_setting(i); i++) {
        const fsvc_setting_info *s = fsvc_setting(i);
        char v[96], dv[96];
        if (fsvc_param_get(&p, s->name, v, sizeof v) ||
            fsvc_param_get(&d, s->name, dv, sizeof dv) || !strcmp(v, dv))
            continue;
        if (!s->arg && !s->choices) fprintf(f, " --%s=%s", s->name, v); /* on|off */
        else { fprintf(f, " --%s ", s->name); shell_word(f, v); }
    }
    if (o->storage == FSVC_STORE_SPARSE) fputs(" --sparse", f);
    if (o->storage == FSVC_STORE_DENSE) fputs(" --dense", f);
    fputc(' ', f);
    shell_word(f, o->data);
    if (ferror(f) | fclose(f)) { free(cmd); return NULL; }
    return cmd;
}

/* Row a beats row b (b < 0: none yet): the higher CV accuracy (R^2) as written
 * in the CSV; on a tie the cheaper model (fewer centroids), then the
 * larger lambda (the smoother readout), then the earlier point. */
static int better(const fsvc_csv *t, int64_t a, int64_t b, int cm, int cc, int cl)
{
    if (b < 0) return 1;
    double va = atof(fsvc_csv_get(t, a, cm)), vb = atof(fsvc_csv_get(t, b, cm));
    if (va != vb) return va > vb;
    double ma = atof(fsvc_csv_get(t, a, cc)), mb = atof(fsvc_csv_get(t, b, cc));
    if (ma != mb) return ma < mb;
    return atof(fsvc_csv_get(t, a, cl)) > atof(fsvc_csv_get(t, b, cl));
}

/* A value of an ordered axis as a number: "2", "1e-5", "0.45rms" (rms 1);
 * 0 when it is not one ("auto", a name). */
static int axis_number(const char *v, double *x, int *rms)
{
    char *end;
    *x = strtod(v, &end);
    *rms = !strcmp(end, "rms");
    return end != v && (!*end || *rms) && isfinite(*x);
}

/* A best point at the end of a numeric axis may be bettered beyond the
 * grid: "edge: radius=0.3rms is the smallest radius tried, ..." for each
 * such axis (of 2 values or more of the same kind), else "". */
static void grid_edge(char *out, size_t len, const fsvc_grid *g, int64_t k)
{
    int vi[FSVC_GRID_MAX_AXES];
    for (int a = g->naxes - 1; a >= 0; a--) {
        vi[a] = (int)(k % g->axis[a].nval);
        k /= g->axis[a].nval;
    }
    size_t u = 0;
    out[0] = 0;
    for (int a = 0; a < g->naxes && u < len; a++) {
        const fsvc_grid_axis *ax = &g->axis[a];
        double x, y;
        int rx, ry, lower = 0, higher = 0, kin = 0;
        if (!axis_number(ax->val[vi[a]], &x, &rx)) continue;
        for (int i = 0; i < ax->nval; i++)
            if (i != vi[a] && axis_number(ax->val[i], &y, &ry) && ry == rx) {
                kin++;
                lower += y < x;
                higher += y > x;
            }
        if (!kin || (lower && higher)) continue;
        u += (size_t)snprintf(out + u, len - u, "%s%s=%s is the %s %s tried",
                              u ? "; " : "edge: the best point is at the edge of the grid, ",
                              ax->name, ax->val[vi[a]], lower ? "largest" : "smallest",
                              ax->name);
    }
    if (out[0] && u < len)
        snprintf(out + u, len - u, ": a better one may lie beyond it; extend --vary");
}

/* The best point by CV: printed, written to PREFIX-best.txt and the
 * sidecar; *edge_note (malloc'd, or NULL) the note for a best point at the
 * edge of the grid, printed on stderr once the study has succeeded. */
int report_best(const study_files *F, const study_opts *o, char *const *pset,
                       char **edge_note, fsvc_error *err)
{
    fsvc_csv t;
    int rc = fsvc_csv_load(&t, F->csv, err);
    if (rc) return rc;
    int cs = fsvc_csv_col(&t, "settings"), cp = fsvc_csv_col(&t, "point"),
        cm = fsvc_csv_col(&t, o->regression ? "cv_r2" : "cv_mean"),
        ca = fsvc_csv_col(&t, o->regression ? "r2_test" : "acc_test"),
        cc = fsvc_csv_col(&t, "centroids"), cl = fsvc_csv_col(&t, "lambda");
    /* a regression's score: R^2 as it is; accuracy in % */
    const char *cvname = o->regression ? "cv_r2" : "cv_mean",
               *what = o->regression ? "R^2 " : "accuracy ", *pc = o->regression ? "" : "%";
    int64_t best = -1, best_k = -1;
    for (int64_t k = 0; k < fsvc_grid_size(&o->grid); k++) {
        int64_t r = study_latest_row(&t, cs, pset[k]);
        const char *v = r > 0 ? fsvc_csv_get(&t, r, cm) : "";
        if (v[0] && better(&t, r, best, cm, cc, cl)) {
            best = r;
            best_k = k;
        }
    }
    if (best > 0) {
        const char *key = fsvc_csv_get(&t, best, cp), *cvm = fsvc_csv_get(&t, best, cm),
                   *acc = fsvc_csv_get(&t, best, ca);
        char *cmd = train_command(o, best_k), *path = NULL, *txt = NULL;
        char note[160] = "", edge[FSVC_GRID_MAX_AXES * 160] = "";
        if (o->max_train > 0)
            snprintf(note, sizeof note, "note: the study used the first %lld samples of DATA "
                     "(--max-train); fsvc train takes all of it", (long long)o->max_train);
        grid_edge(edge, sizeof edge, &o->grid, best_k);
        if (!cmd || asprintf(&path, "%s-best.txt", F->prefix) < 0 ||
            asprintf(&txt, "%s\n# best by %d-fold CV: point=%s %s=%s test=%s\n%s%s%s%s%s%s",
                     cmd, o->folds, key, cvname, cvm, acc[0] ? acc : "none", note[0] ? "# " : "",
                     note, note[0] ? "\n" : "", edge[0] ? "# " : "", edge,
                     edge[0] ? "\n" : "") < 0) {
            free(cmd); free(path);
            fsvc_csv_free(&t);
            return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
        }
        rc = study_about(F, err, "best by %d-fold CV: point=%s %s=%s test=%s", o->folds,
                         key, cvname, cvm, acc[0] ? acc : "none");
        if (!rc) rc = study_about(F, err, "train it: %s", cmd);
        if (!rc && edge[0]) rc = study_about(F, err, "%s", edge);
        if (!rc) rc = study_write_text(path, txt, strlen(txt), err);
        if (!rc)
            printf("best by %d-fold CV: %s, CV %s%s%s, test %s%s%s%s\n", o->folds, key, what,
                   cvm, pc, what, acc[0] ? acc : "(no TEST)", acc[0] ? pc : "",
                   acc[0] ? " (measured once, not used to choose)" : "");
        if (!rc) printf("train it: %s\n", cmd);
        if (!rc && note[0]) printf("%s\n", note);
        if (!rc && edge[0] && !(*edge_note = strdup(edge)))
            rc = fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
        free(cmd); free(path); free(txt);
    }
    fsvc_csv_free(&t);
    return rc;
}
