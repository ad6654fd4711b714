/* study_cli.h - the parts of `fsvc study` (tools/cmd_study.c): its options
 * (study_args.c), one point or lambda path trained and measured into CSV
 * rows (study_point.c), the points dealt across processes with the points
 * already in the CSV skipped (study_run.c), the best point reported
 * (study_best.c). What it writes is tools/study_out.h. */
#ifndef FSVC_STUDY_CLI_H
#define FSVC_STUDY_CLI_H

#include "tools/cli.h"
#include "tools/study_out.h"
#include "fsvc/study.h"

#include <stdint.h>

#define SETTINGS_MAX 32768      /* two escaped paths of PATH_MAX and the settings */

typedef struct study_opts {
    const char *data, *test, *dir, *name;
    fsvc_grid grid;
    fsvc_param base;
    int folds;              /* -v K, 0: none */
    uint64_t seed;          /* folds and --val split */
    double val;             /* --val fraction, 0: none */
    int keep_best;
    int resume, quiet, plots;
    int no_warm;            /* --no-warm: every point from scratch */
    int64_t max_train, max_test;
    int storage;            /* LIBSVM data: FSVC_STORE_AUTO, --sparse, --dense */
    int regression;         /* --regression: every point a regression, scored by R^2 */
} study_opts;

/* ---- study_args.c ---- */

#define PARSE_HELP (-1) /* study_parse: --help printed, nothing to run */
/* o from argv (o already holds the defaults): FSVC_OK, PARSE_HELP, or the
 * exit code after one message (a usage error, --strict without a device). */
int study_parse(study_opts *o, int argc, char **argv);
/* The output name: --name, else DATA's basename without its extension (an
 * IDX prefix DIR/train: "DIR-train"); malloc'd, NULL when out of memory. */
char *study_name(const study_opts *o);

/* ---- study_point.c ---- */

/* What a study fixes besides the training settings: the data (resolved
 * paths and the sizes loaded), the measurements asked for. */
typedef struct study_ctx {
    char *data, *test;      /* canonical paths ("" for no TEST) */
    int64_t N_train, N_test;
    int n;
    int sparse;             /* DATA read sparse: the sparse training */
} study_ctx;

/* The settings string of one point: everything that defines its row. */
int point_settings(char *s, size_t cap, const study_opts *o, const study_ctx *c,
                   const fsvc_param *p);
/* The row (into r) of a point that failed with bad input (its settings do
 * not work on this data): what defines it, empty measurements, the message
 * in the status column. */
int fail_row(fsvc_csv_out *r_out, const fsvc_param *p, const char *key, const char *settings,
             const fsvc_dataset *tr, const fsvc_dataset *te, const char *msg, fsvc_error *err);
/* Point k's settings and key ("default" for no axes). */
int point_param(fsvc_param *p, char *key, size_t keylen, const study_opts *o, int64_t k,
                fsvc_error *err);
/* One point: train (with --val for LMS), CV, test; its CSV row into r and
 * its LMS curve rows (with --val and a curve CSV, else none) into l. */
int run_point(int lms_file, const study_opts *o, const fsvc_param *p, const char *key,
              const char *settings, const fsvc_dataset *tr, const fsvc_dataset *te,
              char *summary, size_t slen, fsvc_csv_out *r_out, fsvc_csv_out *l_out,
              fsvc_error *err);
/* The points of a lambda path (k[0..n-1], n >= 2: the same settings but
 * lambda), one outcome record each into f (put_outcome): the training on
 * DATA and every CV fold each select once, share H and solve the lambdas
 * largest first, warm-started (fsvc_train_lambdas). */
int run_path(FILE *f, const study_opts *o, const int64_t *k, int n, char *const *pset,
             const fsvc_dataset *tr, const fsvc_dataset *te);

/* ---- study_run.c ---- */

/* The record of point k after its run returned rc (FSVC_EINPUT: a failure
 * row, the study goes on; another failure: 'e', the study stops). */
void put_outcome(FILE *f, int64_t k, int rc, const char *summary_ok, fsvc_csv_out *r,
                 fsvc_csv_out *l, const fsvc_param *p, const char *key, const char *settings,
                 const fsvc_dataset *tr, const fsvc_dataset *te, fsvc_error *err);

/* What study_run_points did. */
typedef struct study_tally {
    int64_t ran, skipped, failed;
} study_tally;
/* Every point of the grid not marked in done_k (their settings strings
 * pset), K at a time under mpirun; rank 0 appends each row to F's CSV in
 * grid order and prints the progress (not with -q). te NULL: no TEST.
 * Stops at the first failure that is not bad input for one point. */
int study_run_points(study_tally *t, const study_opts *o, const study_files *F,
                     char *const *pset, const unsigned char *done_k, const fsvc_dataset *tr,
                     const fsvc_dataset *te, fsvc_error *err);

/* ---- study_best.c ---- */

/* The best point by CV: printed, written to PREFIX-best.txt and the
 * sidecar; *edge_note (malloc'd, or NULL) the note for a best point at the
 * edge of the grid, printed on stderr once the study has succeeded. */
int report_best(const study_files *F, const study_opts *o, char *const *pset,
                char **edge_note, fsvc_error *err);

#endif
