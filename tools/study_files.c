/* study_files.c - the files `fsvc study` writes as it goes: the CSV (new
 * through ds_tmp_*, or resumed after checking it was made with the same
 * data and fixed settings), the LMS curve CSV, the radius-search steps
 * file; every append one write, synced, cut back on failure. */
#include "tools/study_out.h"
#include "datasets/datasets.h" /* ds_tmp_*: temporary file + rename */

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const study_columns[STUDY_NCOLUMNS] = {
    "point", "data", "test", "N_train", "N_test", "n", "radius_set", "radius", "prag", "dist",
    "kernel", "select", "readout", "lambda", "eta", "epochs", "scale", "preprocess", "features",
    "dtype", "backend", "threads", "centroids", "t_select_s", "t_readout_s", "t_train_s",
    "t_predict_s", "tsyn_select_ns", "tsyn_readout_ns", "tsyn_predict_ns", "acc_test",
    "cv_folds", "cv_mean", "cv_sd", "cv_centroids", "val_frac", "val_best_epoch", "cg_iter",
    "cv_cg_iter", "warm_from", "maxrss_mb", "status", "settings"};

const char *study_column(int c, int regression)
{
    if (regression && !strcmp(study_columns[c], "acc_test")) return "r2_test";
    if (regression && !strcmp(study_columns[c], "cv_mean")) return "cv_r2";
    if (regression && !strcmp(study_columns[c], "cv_sd")) return "cv_r2_sd";
    return study_columns[c];
}

/* The steps file (see study_out.h): state of the print hook. */
static struct {
    int on, fd, errno_, quiet;
    const char *path, *point;
} steps = {0, -1, 0, 0, NULL, NULL};

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        if (w == 0) { errno = EIO; return -1; }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Appends text to the file open (O_APPEND) at fd in one write and syncs
 * it. Returns 0, or errno after cutting the file back to its old size. */
static int append_raw(int fd, const char *text, size_t len)
{
    off_t old = lseek(fd, 0, SEEK_END);
    if (old >= 0 && write_all(fd, text, len) == 0 && fsync(fd) == 0) return 0;
    int e = errno ? errno : EIO;
    if (old >= 0 && ftruncate(fd, old) == 0) fsync(fd);
    return e;
}

int study_append(int fd, const char *path, const char *text, size_t len, fsvc_error *err)
{
    int e = append_raw(fd, text, len);
    return e ? fsvc_fail(err, FSVC_ERESOURCE, "%s: write error: %s", path, strerror(e)) : FSVC_OK;
}

static void study_print(const char *line)
{
    if (!steps.quiet) fputs(line, stderr);
    if (!steps.on || steps.errno_) return;
    if (steps.fd < 0) {
        steps.fd = open(steps.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
        if (steps.fd < 0) { steps.errno_ = errno; return; }
    }
    char *text = NULL;
    int n = asprintf(&text, "%s: %s", steps.point, line);
    steps.errno_ = n < 0 ? ENOMEM : append_raw(steps.fd, text, (size_t)n);
    free(text);
}

void study_steps_start(const char *path, int quiet)
{
    steps.quiet = quiet;
    steps.path = path;
    steps.fd = -1;
    steps.errno_ = 0;
    steps.on = 0;
    fsvc_set_print(study_print);
}

void study_steps_point(const char *point, int on)
{
    steps.point = point;
    steps.on = on;
}

int study_steps_check(fsvc_error *err)
{
    return steps.errno_ ? fsvc_fail(err, FSVC_ERESOURCE, "%s: write error: %s", steps.path,
                                    strerror(steps.errno_))
                        : FSVC_OK;
}

void study_steps_stop(void)
{
    fsvc_set_print(NULL);
    struct stat st;
    if (steps.fd >= 0 && fstat(steps.fd, &st) == 0 && st.st_size == 0)
        unlink(steps.path);                      /* nothing got written: no file */
    if (steps.fd >= 0) close(steps.fd);
    steps.fd = -1;
    steps.on = 0;
}

int64_t study_latest_row(const fsvc_csv *t, int col, const char *settings)
{
    for (int64_t r = t->nrec - 1; r > 0; r--)
        if (!strcmp(fsvc_csv_get(t, r, col), settings)) return r;
    return -1;
}

/* The result columns the best point is picked by: empty (not measured, a
 * failed point) or a number in range. An edited CSV whose cv_mean is 1000,
 * inf or nan would otherwise become the best point on --resume. */
static const struct { const char *name; double lo, hi; } measured[] = {
    {"acc_test", 0, 100}, {"cv_mean", 0, 100}, {"cv_sd", 0, 100},
    {"r2_test", -DBL_MAX, 1}, {"cv_r2", -DBL_MAX, 1}, {"cv_r2_sd", 0, DBL_MAX},
    {"centroids", 0, 1099511627776.0}, {"cv_centroids", 0, 1099511627776.0},
    {"lambda", 0, DBL_MAX}};

static int check_measured(const fsvc_csv *t, int64_t r, const char *path, fsvc_error *err)
{
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++) {
        int c = fsvc_csv_col(t, measured[i].name);
        const char *v = c < 0 ? "" : fsvc_csv_get(t, r, c);
        if (!*v) continue;
        char *end;
        double x = strtod(v, &end);
        if (*end || !isfinite(x) || x < measured[i].lo || x > measured[i].hi)
            return fsvc_fail(err, FSVC_EINPUT, "%s:%lld: %s '%s' is not a number in [%g, %g]; "
                             "the CSV was edited or damaged: remove the row, or resume "
                             "without it", path, (long long)t->line[r], measured[i].name, v,
                             measured[i].lo, measured[i].hi);
    }
    return FSVC_OK;
}

/* A resumed CSV must be this version's and made with this run's data and
 * fixed settings: every key of cur that is not a --vary axis has the same
 * value in every row (else FSVC_EINPUT saying which), and its results are
 * numbers in range (check_measured). */
static int check_resume(const fsvc_csv *t, const char *path, const char *cur,
                        const fsvc_grid *g, int regression, fsvc_error *err)
{
    int ok = fsvc_csv_nfields(t, 0) == STUDY_NCOLUMNS, other = ok; /* other: the other kind's */
    for (int c = 0; ok && c < STUDY_NCOLUMNS; c++)
        ok = !strcmp(fsvc_csv_get(t, 0, c), study_column(c, regression));
    for (int c = 0; !ok && other && c < STUDY_NCOLUMNS; c++)
        other = !strcmp(fsvc_csv_get(t, 0, c), study_column(c, !regression));
    if (!ok && other)
        return fsvc_fail(err, FSVC_EINPUT, "%s: a study %s --regression; resume it %s "
                         "--regression, or use another --name", path,
                         regression ? "without" : "with", regression ? "without" : "with");
    if (!ok)
        return fsvc_fail(err, FSVC_EINPUT, "%s: columns differ from this version's; "
                         "remove it or use another --name", path);
    for (int64_t r = 1; r < t->nrec; r++) {
        long long line = (long long)t->line[r];
        if (fsvc_csv_nfields(t, r) != STUDY_NCOLUMNS)
            return fsvc_fail(err, FSVC_EINPUT, "%s:%lld: %d fields, the header has %d", path, line,
                             fsvc_csv_nfields(t, r), STUDY_NCOLUMNS);
        int bad = check_measured(t, r, path, err);
        if (bad) return bad;
        const char *rs = fsvc_csv_get(t, r, STUDY_NCOLUMNS - 1);
        for (const char *k = cur; *k;) {
            const char *eq = strchr(k, '='), *end = strchr(k, ';');
            if (!end) end = k + strlen(k);
            char key[32];
            snprintf(key, sizeof key, "%.*s", (int)(eq - k), k);
            int axis = 0;
            for (int a = 0; a < g->naxes; a++) axis |= !strcmp(g->axis[a].name, key);
            size_t vl = (size_t)(end - eq - 1), rl = 0;
            const char *rv = fsvc_settings_find(rs, key, &rl);
            if (!axis && (!rv || rl != vl || memcmp(rv, eq + 1, vl)))
                return fsvc_fail(err, FSVC_EINPUT, "%s:%lld: made with %s=%.*s, this run has "
                                 "%s=%.*s; resume with the same data and fixed settings, or "
                                 "use another --name", path, line, key, rv ? (int)rl : 6,
                                 rv ? rv : "(none)", key, (int)vl, eq + 1);
            k = *end ? end + 1 : end;
        }
    }
    return FSVC_OK;
}

/* A new file at path holding text, through ds_tmp_* (all or nothing). */
static int write_new(const char *path, const fsvc_csv_out *text, fsvc_error *err)
{
    if (text->oom) return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    size_t tl = strlen(path) + 64;
    char *tmp = malloc(tl);
    if (!tmp) return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    FILE *f;
    int rc = ds_tmp_open(&f, tmp, tl, path, err);
    /* len 0 (an empty sidecar): s may be NULL, nothing to write */
    if (!rc && text->len && fwrite(text->s, 1, text->len, f) != text->len) {
        int e = errno;
        ds_tmp_abort(f, tmp);
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: write error: %s", path, strerror(e));
    } else if (!rc) {
        rc = ds_tmp_commit(f, tmp, path, err);
    }
    free(tmp);
    return rc;
}

int study_write_text(const char *path, const char *text, size_t len, fsvc_error *err)
{
    fsvc_csv_out t = {0};
    t.s = (char *)text;
    t.len = len;
    return write_new(path, &t, err);
}

/* One sanitised line "text\n" (control characters as '?') in *s (malloc'd). */
static char *about_line(const char *fmt, va_list ap)
{
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    if (n < 0) return NULL;
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    char *t = realloc(s, (size_t)n + 2);
    if (!t) { free(s); return NULL; }
    memcpy(t + n, "\n", 2);
    return t;
}

int study_about(const study_files *F, fsvc_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = about_line(fmt, ap);
    va_end(ap);
    if (!s) return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    int rc = study_append(F->about_fd, F->about, s, strlen(s), err);
    free(s);
    return rc;
}

/* Reads the CSV at path back for --resume: an unfinished last row (an
 * interrupted write) is cut off the file. */
static int load_for_resume(fsvc_csv *t, const char *path, fsvc_error *err)
{
    int rc = fsvc_csv_load(t, path, err);
    if (rc || !t->partial) return rc;
    if (truncate(path, (off_t)t->complete) != 0) {
        int e = errno;
        fsvc_csv_free(t);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot cut an unfinished last row: %s", path,
                         strerror(e));
    }
    fprintf(stderr, "study: %s: dropped an unfinished last row\n", path);
    return FSVC_OK;
}

static int open_append(int *fd, const char *path, fsvc_error *err)
{
    *fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    return *fd < 0 ? fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot open for appending: %s", path,
                               strerror(errno))
                   : FSVC_OK;
}

int study_open(study_files *F, fsvc_csv *done, int *resumed, int resume, int lms,
               int threads, const fsvc_grid *g, const char *cur, const char *cmdline,
               fsvc_error *err)
{
    int rc;
    memset(done, 0, sizeof *done);
    *resumed = 0;
    if (resume) {
        if ((rc = load_for_resume(done, F->csv, err))) return rc;
        if (done->nrec > 0 && (rc = check_resume(done, F->csv, cur, g, F->regression, err))) {
            fsvc_csv_free(done);
            return rc;
        }
        *resumed = done->nrec > 0;
    }
    fsvc_csv_out t = {0};
    rc = FSVC_OK;
    if (!*resumed) { /* the header alone: the metadata goes to the sidecar */
        for (int c = 0; c < STUDY_NCOLUMNS; c++) fsvc_csv_field(&t, study_column(c, F->regression));
        fsvc_csv_endrow(&t);
        rc = write_new(F->csv, &t, err);
        fsvc_csv_reset(&t);
        fsvc_csv_out a = {0};
        if (!rc) rc = write_new(F->about, &a, err); /* a new, empty sidecar */
    }
    fsvc_csv_out_free(&t);
    if (!rc) rc = open_append(&F->csv_fd, F->csv, err);
    if (!rc) { /* a resumed study of an older version may have no sidecar yet */
        F->about_fd = open(F->about, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
        if (F->about_fd < 0)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot open for appending: %s", F->about,
                           strerror(errno));
    }
    if (!rc && *resumed) {
        rc = study_about(F, err, "resumed: %s", cmdline);
    } else if (!rc) {
        char mach[512], comp[1024];
        sysinfo_machine(mach, sizeof mach);
        sysinfo_compiler(comp, sizeof comp);
        if (!(rc = study_about(F, err, "command: %s", cmdline)) &&
            !(rc = study_about(F, err, "machine: %s", mach)) &&
            !(rc = study_about(F, err, "compiler: %s", comp)) &&
            !(rc = study_about(F, err, "threads: %d (0 = all cores)", threads)))
            rc = study_about(F, err, "units: times in seconds, t_syn in ns per synaptic "
                             "operation (n*m*N), %s, maxrss_mb = process peak so far; "
                             "settings: what defines a point (--resume matches it)",
                             F->regression ? "r2_test, cv_r2 and cv_r2_sd: the coefficient "
                             "of determination R^2 (1 is exact, 0 the mean's)"
                                           : "accuracies in %");
    }
    if (!rc && lms) {
        fsvc_csv lt;
        int have = *resumed && access(F->lms, F_OK) == 0;
        if (have && !(rc = load_for_resume(&lt, F->lms, err))) fsvc_csv_free(&lt);
        if (!rc && !have) {
            fsvc_csv_out h = {0};
            fsvc_csv_field(&h, "point"); fsvc_csv_field(&h, "epoch");
            fsvc_csv_field(&h, "train_err"); fsvc_csv_field(&h, "val_err");
            fsvc_csv_endrow(&h);
            rc = write_new(F->lms, &h, err);
            fsvc_csv_out_free(&h);
        }
        if (!rc) rc = open_append(&F->lms_fd, F->lms, err);
    }
    /* a new study starts a new steps file (written when a radius is searched) */
    if (!rc && !*resumed && unlink(F->steps) != 0 && errno != ENOENT)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot remove the old file: %s", F->steps,
                       strerror(errno));
    if (rc) fsvc_csv_free(done);
    return rc;
}

void study_close(study_files *F)
{
    if (F->lms_fd >= 0) close(F->lms_fd);
    if (F->csv_fd >= 0) close(F->csv_fd);
    if (F->about_fd >= 0) close(F->about_fd);
    study_steps_stop();
    F->lms_fd = F->csv_fd = F->about_fd = -1;
}
