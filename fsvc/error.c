/* error.c - status codes, error messages and the replaceable print hook. */
#include "fsvc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

size_t fsvc_dtype_size(fsvc_dtype t)
{
    switch (t) {
    case FSVC_U8: return 1;
    case FSVC_F32: return 4;
    case FSVC_F64: return 8;
    }
    return 0;
}

const char *fsvc_dtype_name(fsvc_dtype t)
{
    switch (t) {
    case FSVC_U8: return "u8";
    case FSVC_F32: return "f32";
    case FSVC_F64: return "f64";
    }
    return "?";
}

int fsvc_dtype_parse(const char *s, fsvc_dtype *out)
{
    if (!strcmp(s, "u8")) *out = FSVC_U8;
    else if (!strcmp(s, "f32")) *out = FSVC_F32;
    else if (!strcmp(s, "f64")) *out = FSVC_F64;
    else return -1;
    return 0;
}

const char *fsvc_scale_name(fsvc_scale s)
{
    switch (s) {
    case FSVC_SCALE_NONE: return "none";
    case FSVC_SCALE_01: return "01";
    case FSVC_SCALE_PM1: return "pm1";
    }
    return "?";
}

int fsvc_scale_parse(const char *s, fsvc_scale *out)
{
    if (!strcmp(s, "none")) *out = FSVC_SCALE_NONE;
    else if (!strcmp(s, "01")) *out = FSVC_SCALE_01;
    else if (!strcmp(s, "pm1")) *out = FSVC_SCALE_PM1;
    else return -1;
    return 0;
}
