/* cmd_study.c - `fsvc study DATA [TEST] --vary NAME=V1,V2 ...`: runs the
 * grid (cartesian product of the --vary axes), one row per point appended
 * (one checked, synced write) to DIR/study-NAME.csv, then plots from the
 * CSV. -v K adds stratified K-fold cross-validation on DATA and picks the
 * best point by it (never by the test set). Every row carries the point's
 * settings string (data, every fixed and varied setting, folds, seed):
 * --resume skips the points whose settings are already in the CSV and
 * refuses a CSV made with other data or fixed settings. The CSV is the
 * header and the rows only (a plain pandas.read_csv reads it); the command,
 * machine, resumes and best point go to DIR/study-NAME-about.txt. A best
 * point at the end of a numeric axis is flagged. --val F trains LMS
 * points with a validation split (curve + PNG). Sparse LIBSVM data runs
 * the sparse training of fsvc train; --regression scores R^2. Any failed
 * write or plot exits 3 naming the file; nothing is left half-written.
 * The parts: tools/study_cli.h. */
#include "tools/study_cli.h"
#include "tools/comm.h"
#include "tools/plot.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* DATA (train 1) or TEST in the form `fsvc train` and `fsvc predict` read
 * it (storage: auto, --sparse or --dense): sparse data runs the sparse
 * training of fsvc train; dense data too wide for the engine is refused
 * before the dense matrix is made. */
static int study_load(fsvc_dataset *d, const char *path, int storage, int train,
                      fsvc_error *err)
{
    fsvc_load_opts o = { .storage = storage, .dense_max_n = CLI_MAX_FEATURES,
                         .sparse_finite = train };
    return fsvc_dataset_load(d, path, &o, err);
}

/* TEST as LIBSVM tools read a test file: the features of DATA (absent
 * ones 0; values beyond them ignored, with one warning on rank 0). */
static int fit_test(fsvc_dataset *te, const fsvc_dataset *tr, fsvc_error *err)
{
    if (te->n == tr->n || te->rows > 0 || tr->rows > 0) return FSVC_OK;
    int64_t dropped = 0;
    int first = 0;
    int rc = fsvc_dataset_fit_features(te, tr->n, &dropped, &first, err);
    if (!rc && dropped && cli_comm()->rank == 0)
        fprintf(stderr, "fsvc study: warning: %s: %lld values at features %d and above "
                "ignored: DATA has %d features\n", te->source, (long long)dropped, first,
                tr->n);
    return rc;
}

/* The first `max` rows of *d (max <= 0 or >= N: unchanged). */
static int truncate_rows(fsvc_dataset *d, int64_t max, fsvc_error *err)
{
    if (max <= 0 || max >= d->N) return FSVC_OK;
    int64_t *idx = malloc((size_t)max * sizeof *idx);
    if (!idx) return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    for (int64_t i = 0; i < max; i++) idx[i] = i;
    fsvc_dataset s;
    int rc = fsvc_dataset_subset(&s, d, idx, max, err);
    free(idx);
    if (rc) return rc;
    snprintf(s.source, sizeof s.source, "%.400s (first %lld)", d->source, (long long)max);
    fsvc_dataset_free(d);
    *d = s;
    return FSVC_OK;
}

/* The last two components of a path ("mnist/train"), for titles. */
static void tail2(char *out, size_t len, const char *path)
{
    const char *e = path + strlen(path), *p = e;
    int slashes = 0;
    while (p > path && !(p[-1] == '/' && ++slashes == 2)) p--;
    snprintf(out, len, "%s", p);
}

/* A path as an absolute canonical name (an IDX prefix DIR/train: its
 * folder resolved); the text as given when it cannot be resolved. */
static char *canon_path(const char *path)
{
    char *r = realpath(path, NULL);
    if (r) return r;
    char *d = strdup(path), *b = strdup(path);
    char *rd = d && b ? realpath(dirname(d), NULL) : NULL;
    if (rd && asprintf(&r, "%s/%s", rd, basename(b)) < 0) r = NULL;
    free(rd); free(d); free(b);
    return r ? r : strdup(path);
}

/* The plots of the study from its CSV (and the LMS curves with --val),
 * titled with the data; "study: N plots written" on stdout. */
static int draw_plots(const study_opts *o, const study_files *F, char *const *pset,
                      const char *name, int64_t N_train, fsvc_error *err)
{
    char title[600], b1[256], b2[256] = "";
    tail2(b1, sizeof b1, o->data);
    if (o->test) tail2(b2, sizeof b2, o->test);
    snprintf(title, sizeof title, "fsvc study %s: train %s (%lld)%s%s%s", name, b1,
             (long long)N_train, o->test ? ", test " : "", b2, o->folds ? ", CV on train" : "");
    int np = 0;
    int rc = study_plots(F->csv, F->prefix, &o->grid, pset, title, stderr, &np, err);
    if (!rc) rc = study_heatmap(F->csv, F->prefix, &o->grid, pset, title, stderr, &np, err);
    if (!rc && o->val > 0) {
        char *png = NULL;
        if (asprintf(&png, "%s-lms.png", F->prefix) < 0)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
        else
            rc = study_plot_lms(F->lms, png, title, stderr, &np, err);
        free(png);
    }
    if (!rc) printf("study: %d plots written to %s/\n", np, o->dir);
    return rc;
}

int cmd_study(int argc, char **argv)
{
    study_opts o;
    memset(&o, 0, sizeof o);
    fsvc_param_default(&o.base);
    o.seed = 1;
    o.keep_best = 1;
    o.storage = FSVC_STORE_AUTO;
    o.plots = 1;
    int rc = study_parse(&o, argc, argv);
    if (rc) return rc == PARSE_HELP ? FSVC_OK : rc;
    const fsvc_comm *D = cli_comm();
    int K = D->size, me = D->rank; /* rank 0 writes the files */
    fsvc_error err;
    fsvc_error_clear(&err);
    if (me == 0 && o.plots && !plot_available())
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "gnuplot not found on PATH; the plots need it "
                       "(apt-get install gnuplot-nox), or give --no-plots");
    /* by default a folder of its own, never a tracked results/ file */
    char *name = study_name(&o), *defdir = NULL;
    if (!name || (!o.dir && asprintf(&defdir, "fsvc-study-%s", name) < 0))
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
    if (!o.dir) o.dir = defdir;
    if (!rc && me == 0 && mkdir(o.dir, 0777) != 0) {
        struct stat st;
        if (stat(o.dir, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = fsvc_fail(&err, FSVC_ERESOURCE, "%s: cannot create the output folder: %s",
                           o.dir, strerror(errno));
    }
    fsvc_dataset tr, te;
    memset(&tr, 0, sizeof tr);
    memset(&te, 0, sizeof te);
    if (!rc && !(rc = study_load(&tr, o.data, o.storage, 1, &err)))
        rc = truncate_rows(&tr, o.max_train, &err);
    /* TEST in DATA's form, as predict reads it for the model */
    if (!rc && o.test && !(rc = study_load(&te, o.test, tr.csr ? FSVC_STORE_SPARSE
                                                               : FSVC_STORE_DENSE, 0, &err)))
        rc = truncate_rows(&te, o.max_test, &err);
    if (!rc && o.test) rc = fit_test(&te, &tr, &err);
    /* every rank has the data, and the same data, or all stop */
    rc = cli_comm_same_data(rc, &tr, o.data, &err);
    if (!rc && o.test) rc = cli_comm_same_data(rc, &te, o.test, &err);
    if (rc) {
        fsvc_dataset_free(&tr);
        fsvc_dataset_free(&te);
        free(name);
        free(defdir);
        return cli_comm_end(rc, &err);
    }
    study_ctx c = {canon_path(o.data), o.test ? canon_path(o.test) : strdup(""), tr.N,
                   o.test ? te.N : 0, tr.n, tr.csr != NULL};
    study_files F = {NULL, NULL, NULL, NULL, -1, -1, NULL, -1, o.regression};
    char *cmdline = strdup("fsvc"), *set = malloc(SETTINGS_MAX), *edge_note = NULL;
    int64_t npts = fsvc_grid_size(&o.grid);
    char **pset = calloc((size_t)npts, sizeof *pset);
    unsigned char *done_k = calloc((size_t)npts, 1);   /* point k is in the CSV */
    study_tally t = {0, 0, 0};
    for (int i = 0; cmdline && i < argc; i++) {
        char *t = NULL;
        if (asprintf(&t, "%s %s", cmdline, argv[i]) < 0) t = NULL;
        free(cmdline);
        cmdline = t;
    }
    fsvc_csv done;
    memset(&done, 0, sizeof done);
    int resumed = 0;
    if (!c.data || !c.test || !name || !cmdline || !set || !pset || !done_k ||
        asprintf(&F.prefix, "%s/study-%s", o.dir, name) < 0 ||
        asprintf(&F.csv, "%s.csv", F.prefix) < 0 || asprintf(&F.lms, "%s-lms.csv", F.prefix) < 0 ||
        asprintf(&F.steps, "%s-radius.txt", F.prefix) < 0 ||
        asprintf(&F.about, "%s-about.txt", F.prefix) < 0)
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
    const char *in[2] = { o.data, o.test }, *outs[4] = { F.csv, F.lms, F.steps, F.about };
    for (int i = 0; !rc && i < 4; i++)
        rc = cli_out_check("study", outs[i], in, 2, "give another -o DIR or --name", &err);
    /* every point's settings string */
    for (int64_t k = 0; k < npts && !rc; k++) {
        fsvc_param p = o.base;
        char key[1024];
        rc = fsvc_grid_point(&p, key, sizeof key, &o.grid, k, &err);
        if (!rc && tr.csr) /* a setting sparse training does not run: refused now */
            rc = fsvc_sparse_check(&tr, &p, &err);
        if (!rc && point_settings(set, SETTINGS_MAX, &o, &c, &p))
            rc = fsvc_fail(&err, FSVC_EUSAGE, "study: the settings of point %s are too long", key);
        if (!rc && !(pset[k] = strdup(set)))
            rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
    }
    int cs = STUDY_NCOLUMNS - 1;
    if (!rc && me == 0) {
        rc = study_open(&F, &done, &resumed, o.resume, o.val > 0, o.base.threads, &o.grid,
                        pset[0], cmdline, &err);
        for (int64_t k = 0; !rc && k < npts; k++)
            done_k[k] = study_latest_row(&done, cs, pset[k]) > 0;
    }
    if ((rc = cli_comm_agree(rc, &err)))
        goto out;
    /* the points in the CSV: rank 0's list on every rank */
    if (K > 1 && D->bor(D->self, done_k, (size_t)npts)) {
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: the exchange of the points done failed");
        goto out;
    }
    study_steps_start(F.steps, o.quiet); /* every rank appends its points' lines */
    if (!o.quiet)
        fprintf(stderr, "study: %lld points on %s (%lld x %d)%s%s -> %s\n", (long long)npts,
                tr.source, (long long)tr.N, tr.n, o.test ? ", test " : "",
                o.test ? te.source : "", F.csv);
    rc = study_run_points(&t, &o, &F, pset, done_k, &tr, o.test ? &te : NULL, &err);
    study_steps_stop();
    if (rc) {
        size_t l = strlen(err.msg);
        if (strcmp(err.msg, FSVC_COMM_ELSEWHERE) != 0)
            snprintf(err.msg + l, sizeof err.msg - l, " (study stopped after %lld new rows; "
                     "rerun with --resume)", (long long)t.ran);
        goto out;
    }
    if (me > 0) goto out; /* the rest reads and writes rank 0's files */
    if (o.folds) rc = report_best(&F, &o, pset, &edge_note, &err);
    else if (npts > 1)
        printf("no -v: no best point picked (choosing on the test set would be test-set tuning)\n");
    if (F.csv_fd >= 0 && close(F.csv_fd) != 0 && !rc)
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "%s: write error: %s", F.csv, strerror(errno));
    F.csv_fd = -1;
    if (rc) goto out;
    printf("study: %lld points run, %lld already in %s\n", (long long)t.ran, (long long)t.skipped,
           F.csv);
    if (t.failed)
        printf("study: %lld points failed (their status column in %s says why)\n",
               (long long)t.failed, F.csv);
    if (o.plots) rc = draw_plots(&o, &F, pset, name, tr.N, &err);
    if (!rc && edge_note) fprintf(stderr, "study: note: %s\n", edge_note + strlen("edge: "));
out:
    study_close(&F);
    fsvc_csv_free(&done);
    if (pset)
        for (int64_t k = 0; k < npts; k++) free(pset[k]);
    free(pset);
    free(done_k);
    free(set); free(name); free(cmdline); free(defdir); free(edge_note);
    free(c.data); free(c.test);
    free(F.prefix); free(F.csv); free(F.lms); free(F.steps); free(F.about);
    fsvc_dataset_free(&tr);
    fsvc_dataset_free(&te);
    return cli_comm_end(rc, &err);
}

