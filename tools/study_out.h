/* study_out.h - what `fsvc study` writes besides its rows: the machine
 * description for the CSV header (tools/sysinfo.c) and the plots drawn
 * from the CSV (tools/study_plots.c). */
#ifndef FSVC_STUDY_OUT_H
#define FSVC_STUDY_OUT_H

#include "fsvc/study.h"

#include <stdio.h>

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

/* The LMS learning curves in lms_csv (point,epoch,train_err,val_err) into
 * png (*written + 1), skipped when there is none; or a failure. */
int study_plot_lms(const char *lms_csv, const char *png, const char *title, FILE *log,
                   int *written, fsvc_error *err);

#endif
