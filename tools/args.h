/* args.h - the parse step of each sub-command, apart from its work, so
 * that tests and the CLI fuzzer (tests/fuzz/fuzz_cli.c) can run it alone.
 * Each *_parse fills its struct from argv (pointers into argv, nothing
 * allocated, no file touched) and returns CLI_RUN to go on, FSVC_OK after
 * --help, or FSVC_EUSAGE after a usage error (one message printed). */
#ifndef FSVC_ARGS_H
#define FSVC_ARGS_H

#include "tools/bench.h"
#include "tools/cli.h"
#include "tools/run_opts.h"

typedef struct train_args {
    fsvc_param p;
    int quiet, strict;
    int cv;                /* -v K: K-fold cross-validation, no model; 0: off */
    int storage;           /* LIBSVM data: FSVC_STORE_AUTO (default), --sparse,
                              --dense */
    const char *data;
    const char *model;     /* NULL: the data's basename + ".fsvc" */
    int resize_rows, resize_cols; /* --resize WxH: images resized; 0: not */
    int channels;          /* --channels 1|3: images gray or RGB (1) */
    const char *sample_weights; /* --sample-weights FILE, or NULL */
} train_args;

typedef struct predict_args {
    const char *backend;
    long threads;
    int quiet, strict;
    int proba, decision;            /* -b 1, --decision-values */
    long batch;                     /* --batch B: PNG folder in batches; 0: whole */
    const char *model, *data, *out; /* out NULL: stdout; data: datas[0] */
    char **datas;                   /* ndata DATA (several: image files) */
    int ndata;
    int resize;                     /* --resize: images to the model's size */
} predict_args;

typedef struct eval_args {
    const char *backend, *png;
    long threads;
    long batch;            /* --batch B: PNG folder in batches; 0: whole */
    int strict, quiet;
    const char *model, *data;
} eval_args;

typedef struct bench_args {
    bench_cfg c;
    int paper, targets, tiers;
    const char *csv, *png, *tcsv;
} bench_args;

typedef struct data_args {
    fsvc_load_opts opts;
    const char *out, *source;
} data_args;

typedef struct tune_args {
    const char *backend, *out, *dtype;
    long n, max_M;
    int dry;
} tune_args;

int train_parse(train_args *a, int argc, char **argv);
int predict_parse(predict_args *a, int argc, char **argv);
int eval_parse(eval_args *a, int argc, char **argv);
int bench_parse(bench_args *a, int argc, char **argv);
int data_parse(data_args *a, int argc, char **argv);
int tune_parse(tune_args *a, int argc, char **argv);
int info_parse(int argc, char **argv);

#endif
