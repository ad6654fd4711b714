/* run_opts.h - the options of the commands that run the engine, parsed
 * in one place: --backend ref|cpu|cuda, --threads T, --strict and (PNG
 * folders in batches) --batch B. predict, eval, bench, tune, train and
 * study take the same values and print the same messages for them. */
#ifndef FSVC_RUN_OPTS_H
#define FSVC_RUN_OPTS_H

#include "tools/cli.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* Which of the options a command takes (run_opts.takes), and which were
 * given (run_opts.given). */
enum {
    RUN_BACKEND = 1,
    RUN_THREADS = 2,
    RUN_STRICT = 4,
    RUN_BATCH = 8,
    RUN_ENGINE = RUN_BACKEND | RUN_THREADS | RUN_STRICT
};

/* getopt_long values of these options: above every command's own
 * CLI_LONG + k and every short option. */
#define RUN_OPT (CLI_LONG + 1024)
#define RUN_THREADS_MAX 4096
#define RUN_BATCH_MAX (1L << 30)

typedef struct run_opts {
    unsigned takes, given;
    const char *backend;   /* a static name (bnl_backend_name): "cpu" by default */
    int threads;           /* 0: all cores */
    int strict;            /* --backend cuda: fail instead of falling back */
    long batch;            /* CLI_PNG_BATCH by default; 0: the whole folder */
} run_opts;

void run_opts_init(run_opts *r, unsigned takes);

/* lo = the command's own long options (own ends with a zero entry), then
 * those r takes, then the zero entry; cap entries at most. Returns 0, or
 * -1 when they do not fit. */
int run_opts_longopts(struct option *lo, size_t cap, const struct option *own,
                      const run_opts *r);

/* 1 when NAME (a setting of the settings table, e.g. "threads") is one of
 * r's options: a command that builds options from the table leaves it to
 * run_opts_take. */
int run_opts_owns(const run_opts *r, const char *name);

/* After getopt_long returned c with value arg: 0 when c is none of r's
 * options; else 1, with *rc FSVC_OK, or FSVC_EUSAGE after one usage error
 * naming cmd and the option. */
int run_opts_take(run_opts *r, const char *cmd, int c, const char *arg, int *rc);

/* The help lines of the options r takes, with r's values as defaults. */
void run_opts_help(FILE *f, const run_opts *r);

#endif
