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

/* Prints "fsvc: <msg>" on stderr and returns err->code (or FSVC_EINPUT). */
int cli_report(const fsvc_error *err);
/* Prints "fsvc <cmd>: <msg>\nTry 'fsvc <cmd> --help'." and returns 1. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Strict number parsing for option values: the whole string must be a
 * number in [lo, hi]. Returns 0 or prints a usage error and returns 1. */
int cli_parse_long(const char *cmd, const char *opt, const char *s,
                   long lo, long hi, long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s,
                     double lo, double hi, double *out);

/* True when progress should be shown (stderr is a terminal, not quiet). */
int cli_progress_wanted(int quiet);

/* Wall-clock seconds (monotonic). */
double cli_now(void);

#endif
