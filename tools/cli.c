/* cli.c - option parsing helpers and error reporting for the sub-commands. */
#include "tools/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int cli_report(const fsvc_error *err)
{
    int code = err && err->code ? err->code : FSVC_EINPUT;
    fprintf(stderr, "fsvc: %s\n", err && err->msg[0] ? err->msg : "unknown error");
    return code;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "fsvc %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'fsvc %s --help'.\n", cmd);
    return FSVC_EUSAGE;
}

int cli_parse_long(const char *cmd, const char *opt, const char *s,
                   long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return cli_usage_error(cmd, "%s: '%s' is not an integer in [%ld, %ld]",
                               opt, s, lo, hi);
    *out = v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s,
                     double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return cli_usage_error(cmd, "%s: '%s' is not a number in [%g, %g]",
                               opt, s, lo, hi);
    *out = v;
    return 0;
}

int cli_progress_wanted(int quiet)
{
    return !quiet && isatty(2);
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
