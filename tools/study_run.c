/* study_run.c - the points of a study across processes (one process: K =
 * 1), those already in the CSV skipped (--resume). */
#include "tools/study_cli.h"
#include "tools/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the points across processes (one process: K = 1) ----
 *
 * The points still to run are dealt in rounds of K, the i-th of a round to
 * rank i; each rank runs its point as one process would and sends the
 * outcome (its rows as text) to every rank (fsvc_comm_concat); rank 0
 * writes the rows and prints the progress in grid order, so the CSV is the
 * one-process CSV. An outcome is 'o' (a row), 'f' (a failure row: bad
 * input for its settings) or 'e' (a failure that stops the study: the
 * rows before it are written, the rest of the round is dropped). */

typedef struct point_out {
    int64_t k;              /* the grid point */
    char kind;              /* 'o', 'f', 'e' */
    int code;               /* 'e': the status */
    const char *msg, *row, *lms;  /* summary (or error), CSV row, LMS rows */
    size_t nmsg, nrow, nlms;
} point_out;

/* One outcome record into f: header line, summary, row, LMS rows. */
static void put_record(FILE *f, int64_t k, char kind, int rc, const char *summary,
                       const fsvc_csv_out *r, const fsvc_csv_out *l)
{
    size_t ns = strlen(summary);
    fprintf(f, "%lld %c %d %zu %zu %zu\n", (long long)k, kind, rc, ns, r ? r->len : 0,
            l ? l->len : 0);
    fwrite(summary, 1, ns, f);
    if (r && r->len) fwrite(r->s, 1, r->len, f);
    if (l && l->len) fwrite(l->s, 1, l->len, f);
}

/* The record of point k after its run returned rc (FSVC_EINPUT: a failure
 * row, the study goes on; another failure: 'e', the study stops). */
void put_outcome(FILE *f, int64_t k, int rc, const char *summary_ok, fsvc_csv_out *r,
                        fsvc_csv_out *l, const fsvc_param *p, const char *key,
                        const char *settings, const fsvc_dataset *tr, const fsvc_dataset *te,
                        fsvc_error *err)
{
    char kind = 'o', summary[sizeof err->msg];
    snprintf(summary, sizeof summary, "%s", summary_ok);
    if (rc == FSVC_EINPUT) { /* this point's settings fail on this data: noted, go on */
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        fsvc_error_clear(err);
        kind = 'f';
        fsvc_csv_out_free(r);
        fsvc_csv_out_free(l);
        rc = fail_row(r, p, key, settings, tr, te, msg, err);
        snprintf(summary, sizeof summary, "failed (in the CSV, the study goes on): %.400s", msg);
    }
    if (rc) {
        kind = 'e';
        fsvc_csv_out_free(r);
        fsvc_csv_out_free(l);
        snprintf(summary, sizeof summary, "%s", err->msg);
    }
    put_record(f, k, kind, rc, summary, r, l);
    fsvc_csv_out_free(r);
    fsvc_csv_out_free(l);
}

/* A point's LMS curve rows (l, may be empty) and then its CSV row (r),
 * each appended in one checked write; a failed row also takes its curve
 * rows back out. */
static int write_point(const study_files *F, const char *r, size_t rlen, const char *l,
                       size_t llen, fsvc_error *err)
{
    off_t lms_old = F->lms_fd >= 0 ? lseek(F->lms_fd, 0, SEEK_END) : 0;
    int rc = llen ? study_append(F->lms_fd, F->lms, l, llen, err) : FSVC_OK;
    if (!rc) {
        rc = study_append(F->csv_fd, F->csv, r, rlen, err);
        if (rc && llen && lms_old >= 0 && ftruncate(F->lms_fd, lms_old) == 0)
            fsync(F->lms_fd);   /* the curve goes with its row */
    }
    return rc;
}

/* The points k[0..n-1] on this rank (one point, or a lambda path), their
 * outcomes serialised into *text (malloc'd). */
static int unit_text(char **text, size_t *len, const study_opts *o, int lms_file,
                     const int64_t *k, int n, char *const *pset, const fsvc_dataset *tr,
                     const fsvc_dataset *te)
{
    FILE *f = open_memstream(text, len);
    if (!f) return FSVC_ERESOURCE;
    if (n > 1) {
        run_path(f, o, k, n, pset, tr, te);
    } else {
        fsvc_param p;
        fsvc_error err;
        fsvc_error_clear(&err);
        char key[1024], summary[sizeof err.msg] = "";
        fsvc_csv_out r = {0}, l = {0};
        int rc = point_param(&p, key, sizeof key, o, k[0], &err);
        if (!rc)
            rc = run_point(lms_file, o, &p, key, pset[k[0]], tr, te, summary, sizeof summary,
                           &r, &l, &err);
        put_outcome(f, k[0], rc, summary, &r, &l, &p, key, pset[k[0]], tr, te, &err);
    }
    int bad = ferror(f) | fclose(f);
    if (bad || !*text) { /* !*text: fclose's own allocation failed */
        free(*text);
        *text = NULL;
        return FSVC_ERESOURCE;
    }
    return FSVC_OK;
}

/* The next outcome record of t (len bytes left, > 0); its size, or 0 when
 * not well formed. */
static size_t point_parse(point_out *po, const char *t, size_t len)
{
    int hl = 0;
    long long k;
    if (sscanf(t, "%lld %c %d %zu %zu %zu\n%n", &k, &po->kind, &po->code, &po->nmsg,
               &po->nrow, &po->nlms, &hl) != 6 || hl < 1 ||
        (size_t)hl + po->nmsg + po->nrow + po->nlms > len)
        return 0;
    po->k = k;
    po->msg = t + hl;
    po->row = po->msg + po->nmsg;
    po->lms = po->row + po->nrow;
    return (size_t)hl + po->nmsg + po->nrow + po->nlms;
}

/* Lambda paths: the grid's lambda axis (-1: none, or fewer than 2 values,
 * or --no-warm), its stride in the point index and the value index of k. */
typedef struct lambda_axis {
    int a, nval;
    int64_t stride;
} lambda_axis;

static lambda_axis find_lambda_axis(const study_opts *o)
{
    lambda_axis L = {-1, 0, 1};
    for (int a = 0; a < o->grid.naxes; a++)
        if (!strcmp(o->grid.axis[a].name, "lambda") && o->grid.axis[a].nval >= 2 && !o->no_warm)
            L.a = a;
    if (L.a < 0) return L;
    L.nval = o->grid.axis[L.a].nval;
    for (int a = L.a + 1; a < o->grid.naxes; a++) L.stride *= o->grid.axis[a].nval;
    return L;
}

/* The unit starting at point k: k alone, or (when k is the first point of a
 * lambda path) the points of the path not in the CSV; *n their number (0:
 * k belongs to an earlier path, or every point of the path is done). */
static int unit_at(int64_t *u, int *n, const study_opts *o, const lambda_axis *L, int64_t k,
                   const unsigned char *done_k, const fsvc_dataset *tr)
{
    *n = 0;
    fsvc_param p = o->base;
    int path = L->a >= 0 && !fsvc_grid_point(&p, NULL, 0, &o->grid, k, NULL) &&
               fsvc_lambda_path_applies(tr, &p) && !(o->val > 0 && p.readout == FSVC_READOUT_LMS);
    if (!path) {
        if (!done_k[k]) u[(*n)++] = k;
        return 0;
    }
    if ((k / L->stride) % L->nval != 0) return 1; /* in the path of an earlier point */
    for (int j = 0; j < L->nval; j++)
        if (!done_k[k + j * L->stride]) u[(*n)++] = k + j * L->stride;
    return 1;
}

/* The key of point k ("default" for no axes), for progress lines. */
static void point_key(char *key, size_t len, const study_opts *o, int64_t k)
{
    fsvc_param p = o->base;
    if (fsvc_grid_point(&p, key, len, &o->grid, k, NULL) || !key[0])
        snprintf(key, len, "default");
}

/* One round: up to K units, the points of unit i at k[i * FSVC_GRID_MAX_VALUES],
 * n[i] of them; each rank's outcome text, gathered into all. */
typedef struct round_buf {
    int64_t *k;
    int *n;
    int nr;                 /* units in this round */
    char *mine, *all;       /* this rank's outcomes, every rank's */
    size_t *lens;           /* the bytes of each rank's outcomes in all */
} round_buf;

/* The round from point *next: the next (up to) K units (a point, or the
 * points of a lambda path) not in the CSV, in grid order; the progress
 * lines of the points skipped and started. */
static void next_round(round_buf *b, int64_t *next, int K, const study_opts *o,
                       const lambda_axis *L, const unsigned char *done_k,
                       const fsvc_dataset *tr, study_tally *t)
{
    int64_t npts = fsvc_grid_size(&o->grid);
    b->nr = 0;
    for (; *next < npts && b->nr < K; (*next)++) {
        char key[1024];
        point_key(key, sizeof key, o, *next);
        if (done_k[*next]) {
            t->skipped++;
            if (!o->quiet) fprintf(stderr, "[%lld/%lld] %s: in the CSV, skipped\n",
                                   (long long)*next + 1, (long long)npts, key);
        }
        int64_t *u = b->k + (size_t)b->nr * FSVC_GRID_MAX_VALUES;
        int inpath = unit_at(u, &b->n[b->nr], o, L, *next, done_k, tr);
        if (!b->n[b->nr]) continue;
        for (int j = 0; j < b->n[b->nr] && !o->quiet; j++) {
            point_key(key, sizeof key, o, u[j]);
            fprintf(stderr, "[%lld/%lld] %s ...%s\n", (long long)u[j] + 1, (long long)npts,
                    key, inpath && b->n[b->nr] > 1 ? " (lambda path)" : "");
        }
        b->nr++;
    }
}

/* The round's outcomes in unit order, up to the first failure: rank 0
 * appends the rows to the CSV, every rank counts them. */
static int write_round(study_tally *t, const round_buf *b, const study_opts *o,
                       const study_files *F, int me, fsvc_error *err)
{
    int64_t npts = fsvc_grid_size(&o->grid);
    int rc = FSVC_OK;
    size_t off = 0;
    for (int i = 0; i < b->nr && !rc; off += b->lens[i], i++) {
        size_t at = 0;
        for (int j = 0; j < b->n[i] && !rc; j++) {
            point_out po;
            char key[1024];
            int64_t kk = b->k[(size_t)i * FSVC_GRID_MAX_VALUES + j];
            point_key(key, sizeof key, o, kk);
            size_t used = at < b->lens[i] ? point_parse(&po, b->all + off + at, b->lens[i] - at)
                                          : 0;
            if (!used || po.k != kk) {
                rc = fsvc_fail(err, FSVC_ERESOURCE, "study: the outcome of point %s did "
                               "not arrive whole", key);
                break;
            }
            at += used;
            if (po.kind == 'e') {
                rc = fsvc_fail(err, po.code ? po.code : FSVC_ERESOURCE, "%.*s",
                               (int)po.nmsg, po.msg);
                break;
            }
            if (me == 0)
                rc = write_point(F, po.row, po.nrow, po.lms, po.nlms, err);
            if (rc) break;
            t->ran++;
            t->failed += po.kind == 'f';
            if (!o->quiet) fprintf(stderr, "[%lld/%lld] %s: %.*s\n", (long long)kk + 1,
                                   (long long)npts, key, (int)po.nmsg, po.msg);
        }
    }
    return rc;
}

int study_run_points(study_tally *t, const study_opts *o, const study_files *F,
                     char *const *pset, const unsigned char *done_k, const fsvc_dataset *tr,
                     const fsvc_dataset *te, fsvc_error *err)
{
    const fsvc_comm *D = cli_comm();
    int K = D->size, me = D->rank; /* rank 0 writes the files */
    int64_t npts = fsvc_grid_size(&o->grid);
    memset(t, 0, sizeof *t);
    round_buf b = {malloc((size_t)K * FSVC_GRID_MAX_VALUES * sizeof *b.k),
                   calloc((size_t)K, sizeof *b.n), 0, NULL, NULL,
                   calloc((size_t)K, sizeof *b.lens)};
    int rc = !b.k || !b.n || !b.lens ? fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory")
                                     : FSVC_OK;
    rc = cli_comm_agree(rc, err);
    int lms_file = o->val > 0; /* rank 0 opened the curve CSV (study_open) */
    lambda_axis L = find_lambda_axis(o);
    for (int64_t next = 0; next < npts && !rc;) {
        next_round(&b, &next, K, o, &L, done_k, tr, t);
        size_t nmine = 0;
        free(b.mine);
        b.mine = NULL;
        int lrc = me < b.nr ? unit_text(&b.mine, &nmine, o, lms_file,
                                        b.k + (size_t)me * FSVC_GRID_MAX_VALUES, b.n[me],
                                        pset, tr, te)
                            : FSVC_OK;
        if (lrc) fsvc_fail(err, lrc, "study: out of memory");
        free(b.all);
        b.all = NULL;
        if ((rc = cli_comm_agree(lrc, err)) ||
            (rc = fsvc_comm_concat(&b.all, b.lens, b.mine, nmine, D, err)))
            break;
        rc = write_round(t, &b, o, F, me, err);
        rc = cli_comm_agree(rc, err); /* a failed write on rank 0 stops every rank */
    }
    free(b.k); free(b.n); free(b.mine); free(b.all); free(b.lens);
    return rc;
}
