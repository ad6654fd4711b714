/* error.c - status codes, error messages and the replaceable print hook. */
#include "fsvc_base.h"

#include <stdarg.h>
#include <stdio.h>

int fsvc_fail(fsvc_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void fsvc_error_clear(fsvc_error *err)
{
    if (err) {
        err->code = FSVC_OK;
        err->msg[0] = '\0';
    }
}

static void print_stderr(const char *line) { fputs(line, stderr); }
static void (*print_fn)(const char *) = print_stderr;

void fsvc_set_print(void (*print)(const char *line))
{
    print_fn = print ? print : print_stderr;
}

void fsvc_printf(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    print_fn(buf);
}
