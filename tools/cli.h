/* cli.h - shared pieces of the fsvc sub-commands: the command table,
 * option parsing helpers and error reporting. Only tools/ exits. */
#ifndef FSVC_CLI_H
#define FSVC_CLI_H

#include "fsvc/fsvc.h"

#include <stdio.h>

/* Each sub-command: returns the process exit code (FSVC_OK, FSVC_E*). */
typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);   /* argv[0] is the command name */
    const char *summary;
} cli_command;

int cmd_info(int argc, char **argv);
int cmd_data(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_study(int argc, char **argv);
int cmd_show(int argc, char **argv);

/* The most features (n) the engine takes (layers/bnl.c checks every call):
 * train and predict say so about the data or the model (bad input, 2)
 * before any work instead of failing inside the engine. */
#define CLI_MAX_FEATURES 65536

/* A parse step's answer: go on and run the command, or exit with the code. */
#define CLI_RUN (-1)

/* Where usage errors and reports go: stderr unless set (the CLI fuzzer
 * sets a sink so that sanitizer reports stay visible on stderr). */
void cli_set_messages(FILE *f);

/* Prints "fsvc: <msg>" on stderr and returns err->code (or FSVC_EINPUT). */
int cli_report(const fsvc_error *err);
/* Prints "fsvc <cmd>: <msg>\nTry 'fsvc <cmd> --help'." and returns 1. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A getopt_long error (c is '?' or ':', optstring starting with ':'):
 * names the option at fault (-x for a short option, even inside a cluster
 * such as -qx; the whole --word for a long one), says whether it is unknown
 * or lacks its value, and returns FSVC_EUSAGE. Long options must have
 * values >= 256 (CLI_LONG) so that optopt tells the two apart. */
#define CLI_LONG 256
int cli_option_error(const char *cmd, int c, char **argv);

/* svm-train's options that fsvc takes otherwise or not at all (-c, -g,
 * -t, -b unknown to getopt: c == '?'; -s with a number, c == 's' with
 * optarg): prints a usage error naming what to use instead and the README
 * section "Coming from LIBSVM", returns FSVC_EUSAGE; 0 for anything else. */
int cli_libsvm_hint(const char *cmd, int c, int argc, char **argv);

/* --strict: with backend "cuda", fails (FSVC_ERESOURCE, err names the
 * cause) when no CUDA device can be opened; otherwise succeeds at once.
 * Without strict the engine prints one line and falls back to the CPU. */
int cli_backend_check(const char *backend, int strict, fsvc_error *err);

/* Loads the model of `fsvc predict|eval MODEL DATA`. When MODEL cannot be
 * read as a model but DATA can, or MODEL is a folder, the error says the
 * arguments look swapped. */
int cli_load_model(fsvc_model *m, const char *mpath, const char *data, fsvc_error *err);

/* Loads the DATA of `fsvc predict|eval` for model m, as LIBSVM tools do:
 * text data (no image shape) with fewer features than the model is padded
 * with zeros, values at features beyond the model's are ignored, with one
 * warning on stderr naming cmd, the file and the count (even when quiet:
 * the results may be wrong), and one naming the features taken as 0 when
 * the data has fewer (not after cli_set_quiet(1), -q: LIBSVM's rule for
 * absent values); on rank 0 only. Text of images gets the model's image
 * shape (fsvc_dataset_set_shape). */
int cli_load_data(fsvc_dataset *d, const char *data, const fsvc_model *m,
                  int allow_unlabelled, const char *cmd, fsvc_error *err);
void cli_set_quiet(int quiet);

/* Images (PNG / JPEG) read for a model (tools/images.c). predict --resize:
 * images of another size are resized to the model's (as for a model
 * trained with --resize, which does it by itself). */
void cli_set_resize(int resize);
/* 1 when images are resized to the model's size (its flag, or --resize). */
int cli_image_resize(const fsvc_model *m);
/* The load options for images read for m: its channels, its size when
 * resized. */
void cli_image_opts(fsvc_load_opts *o, const fsvc_model *m);
/* Images of another size than the model's: FSVC_EINPUT naming both sizes
 * and --resize; else (or not images) FSVC_OK. */
int cli_image_check(const fsvc_dataset *d, const fsvc_model *m, const char *cmd,
                    fsvc_error *err);
/* One warning line on stderr (not when quiet) when an image folder held
 * files that are not images (d->skipped), with their count. */
void cli_warn_skipped(const fsvc_dataset *d, const char *cmd, int quiet);
/* WxH (width x height) into rows = H, cols = W, each 1..16384; else a
 * usage error printed, 1. */
int cli_parse_size(const char *cmd, const char *opt, const char *s, int *rows, int *cols);

/* At exit (main): flushes and closes stdout; a write error (a full disk,
 * /dev/full, a closed pipe) that the command has not reported yet becomes
 * "fsvc: write error on standard output: <reason>" and exit code 3. */
int cli_finish_stdout(int rc);

/* Strict number parsing for option values: the whole string must be a
 * number in [lo, hi]. Returns 0 or prints a usage error and returns 1. */
int cli_parse_long(const char *cmd, const char *opt, const char *s,
                   long lo, long hi, long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s,
                     double lo, double hi, double *out);

/* True when progress should be shown (stderr is a terminal, not quiet). */
int cli_progress_wanted(int quiet);

/* --batch B of predict and eval (tools/png_batch.c). The default B, and
 * 1 when DATA is a PNG folder to score in batches: B > 0, one process. */
#define CLI_PNG_BATCH 8192
int cli_png_batched(const char *data, long batch);
/* The folder listed, no pixels (fsvc_pngdir_list), as cli_load_data
 * would load it. */
int cli_png_list(fsvc_dataset *d, const char *data, const fsvc_model *m, int allow_unlabelled,
                 const char *cmd, fsvc_error *err);
/* fsvc_predict on the listed folder d, fsvc_batch_size(B) images decoded
 * at a time on `threads` threads while the batch before is scored (the
 * same bits as fsvc_predict on the CPU; fsvc/batch.h); progress lines
 * ("fsvc CMD: done/N images") on stderr when cli_progress_wanted(quiet). */
int cli_png_predict(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                    long batch, const char *backend, int threads, int quiet, const char *cmd,
                    fsvc_error *err);

/* No command writes over its input: FSVC_EINPUT (exit 2, err names out
 * and says `hint`, e.g. "name another OUT") when writing out would replace
 * a file that one of inputs[0..n-1] (sources as fsvc_dataset_load takes
 * them, or models; NULL entries skipped) reads. out NULL: OK. */
int cli_out_check(const char *cmd, const char *out, const char *const *inputs, int n,
                  const char *hint, fsvc_error *err);

/* The labels of d that the model does not know (truth[i] < 0, from
 * fsvc_model_truth), for a warning: "folder 'wolf' (12), folder 'fox' (3)"
 * (PNG class folders, sample counts) or "label 7 (3)", the first three in
 * order of first use, then ", and more". */
void cli_unknown_labels(char *out, size_t len, const fsvc_dataset *d, const int *truth);

/* Wall-clock seconds (monotonic). */
double cli_now(void);

/* OpenBLAS's work buffers for `threads` threads calling BLAS at once,
 * taken now so that no later BLAS call allocates (tools/blas_reserve.c:
 * OpenBLAS hangs when that allocation fails). FSVC_ERESOURCE when the
 * address space has no room for them. Cheap after the first call. */
int cli_blas_reserve(int threads, fsvc_error *err);
/* 1 after cli_blas_reserve found no room: end the process with _exit. */
int cli_blas_reserve_failed(void);
/* The thread count a run uses without --threads (OpenMP's, at least the
 * processors'). */
int cli_blas_threads_default(void);

/* How idle OpenMP and OpenBLAS threads wait (tools/wait_env.c): fsvc's
 * getenv gives the libraries' constructors fsvc's settings where the user
 * has none, until main calls cli_wait_env_main (first thing). */
void cli_wait_env_main(void);
/* One line for fsvc info: the wait settings and where each came from. */
void cli_wait_env_describe(char *s, size_t cap);

#endif
