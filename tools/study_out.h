/* study_out.h - what `fsvc study` writes: its files (tools/study_files.c),
 * the machine description for the CSV header (tools/sysinfo.c) and the
 * plots drawn from the CSV (tools/study_plots.c). */
#ifndef FSVC_STUDY_OUT_H
#define FSVC_STUDY_OUT_H

#include "fsvc/study.h"

#include <stdint.h>
#include <stdio.h>

/* ---- the files (study_files.c) ---- */

#define STUDY_NCOLUMNS 43
/* The CSV columns; cg_iter and cv_cg_iter the pcg iterations of the
 * training on DATA and of the CV folds (summed), empty without pcg;
 * warm_from the lambda whose solution started this point's CG (a lambda
 * path: points that differ only in lambda share their selection and H,
 * solved from the largest lambda down), empty for a start from zero
 * (CSVs of 39 columns, before these, are refused by --resume); features
 * the model's, auto resolved (CSVs of 42 columns, before it, are refused
 * too); "status" is "ok", or "failed: " and the message of a point that
 * could not be trained or measured (bad input for its settings: a solve
 * that fails, a readout that diverges; its measurements are empty);
 * the last, "settings", is the point's settings string (everything that
 * defines its row: what --resume matches). */
extern const char *const study_columns[STUDY_NCOLUMNS];
/* Column c of a study's CSV: for a regression (fsvc study --regression)
 * acc_test, cv_mean and cv_sd are r2_test, cv_r2 and cv_r2_sd (R^2, not
 * a percentage). */
const char *study_column(int c, int regression);

typedef struct study_files {
    char *csv, *lms, *steps, *prefix;   /* paths */
    int csv_fd, lms_fd;                 /* open for appending, or -1 */
    char *about;                        /* the metadata sidecar, PREFIX-about.txt */
    int about_fd;
    int regression;                     /* the columns of a regression */
} study_files;

/* Opens F->csv for appending rows: a new one (the header line, nothing
 * else: it reads with a plain pandas.read_csv) written through ds_tmp_*,
 * or with resume an existing one (an unfinished last row cut off; '#'
 * comment lines of older versions are skipped), refused (FSVC_EINPUT,
 * saying which setting) unless its header is this version's and every row
 * has the value of cur (the settings string of a point) for every key
 * that is not an axis of g; its records are left in *done, *resumed = 1.
 * The metadata goes to F->about, "key: value" lines: command, machine,
 * compiler, threads, units (a new study), "resumed: COMMAND" (a resumed
 * one); it stays open for study_about.
 * With lms, F->lms is opened the same way (header point,epoch,...). A new
 * study removes an old steps file F->steps. */
int study_open(study_files *F, fsvc_csv *done, int *resumed, int resume, int lms,
               int threads, const fsvc_grid *g, const char *cur, const char *cmdline,
               fsvc_error *err);
/* Appends one "key: value" line (control characters as '?') to F->about. */
int study_about(const study_files *F, fsvc_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Appends text to fd (open O_APPEND) in one write and fsync; on failure
 * the file is cut back to its old size and err names path (FSVC_ERESOURCE). */
int study_append(int fd, const char *path, const char *text, size_t len, fsvc_error *err);
/* A new file at path holding text (len bytes), through a temporary file
 * renamed into place: all or nothing (FSVC_ERESOURCE naming path). */
int study_write_text(const char *path, const char *text, size_t len, fsvc_error *err);
/* Closes what is open, ends the steps file. */
void study_close(study_files *F);
/* The latest record r > 0 of t whose field col is settings, or -1. */
int64_t study_latest_row(const fsvc_csv *t, int col, const char *settings);

/* The steps file: from start to stop the trainer's messages (fsvc_printf)
 * go to stderr (not when quiet: study -q) and, while a point is marked on (its radius is searched: a
 * flag of the study, not a match on the text), are appended to path as
 * "point: line", each write checked; check reports the first failure.
 * stop leaves no file when nothing was written. */
void study_steps_start(const char *path, int quiet);
void study_steps_point(const char *point, int on);
int study_steps_check(fsvc_error *err);
void study_steps_stop(void);

/* One line each: "CPU model, N cores, flags: avx2 avx512f ..." and the
 * compiler ("gcc 12.2.0; build flags: ..." from $FSVC_CFLAGS when set). */
void sysinfo_machine(char *out, size_t len);
void sysinfo_compiler(char *out, size_t len);

/* Plots of the study CSV at csv into prefix-acc-centroids.png,
 * prefix-acc-time.png, prefix-tsyn.png; grid point k is the latest row
 * whose settings column is settings[k]. A plot with nothing to draw is
 * skipped (a line on log). Returns FSVC_OK with the PNGs written counted in
 * *written, or the first failure (err names the file). */
int study_plots(const char *csv, const char *prefix, const fsvc_grid *g,
                char *const *settings, const char *title, FILE *log, int *written,
                fsvc_error *err);

/* The heat map prefix-heatmap.png of the accuracy (CV mean, else test)
 * over two varied axes (radius x lambda, radius x max-neurons, else the
 * first two; the best over any other axes): nothing for a grid of fewer
 * than two axes, skipped (a line on log) with nothing to draw; *written + 1
 * when drawn, or the first failure. */
int study_heatmap(const char *csv, const char *prefix, const fsvc_grid *g,
                  char *const *settings, const char *title, FILE *log, int *written,
                  fsvc_error *err);

/* The LMS learning curves in lms_csv (point,epoch,train_err,val_err) into
 * png (*written + 1), skipped when there is none; or a failure. */
int study_plot_lms(const char *lms_csv, const char *png, const char *title, FILE *log,
                   int *written, fsvc_error *err);

#endif
