/* names.c - the name-table lookups, and the tables of the base enums
 * (dtype, scale). */
#include "fsvc_base.h"

#include <stdio.h>
#include <string.h>

const char *fsvc_name_of(const fsvc_name *t, int value)
{
    for (; t && t->name; t++)
        if (t->value == value)
            return t->name;
    return "?";
}

int fsvc_name_parse(const fsvc_name *t, const char *s, int *value)
{
    if (!s)
        return -1;
    for (; t && t->name; t++)
        if (!strcmp(t->name, s)) {
            *value = t->value;
            return 0;
        }
    return -1;
}

const char *fsvc_name_list(const fsvc_name *t, char *buf, size_t len)
{
    size_t used = 0;
    if (!buf || !len)
        return buf;
    buf[0] = '\0';
    for (; t && t->name; t++) {
        int k = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", t->name);
        if (k < 0 || (size_t)k >= len - used) {
            buf[used] = '\0'; /* whole names only */
            break;
        }
        used += (size_t)k;
    }
    return buf;
}

const fsvc_name fsvc_dtype_names[] = {
    {"u8", FSVC_U8}, {"f32", FSVC_F32}, {"f64", FSVC_F64}, {NULL, 0}};

size_t fsvc_dtype_size(fsvc_dtype t)
{
    switch (t) {
    case FSVC_U8: return 1;
    case FSVC_F32: return 4;
    case FSVC_F64: return 8;
    }
    return 0;
}

const char *fsvc_dtype_name(fsvc_dtype t) { return fsvc_name_of(fsvc_dtype_names, (int)t); }

int fsvc_dtype_parse(const char *s, fsvc_dtype *out)
{
    int v;
    if (fsvc_name_parse(fsvc_dtype_names, s, &v))
        return -1;
    *out = (fsvc_dtype)v;
    return 0;
}

const fsvc_name fsvc_scale_names[] = {
    {"none", FSVC_SCALE_NONE}, {"01", FSVC_SCALE_01}, {"pm1", FSVC_SCALE_PM1}, {NULL, 0}};

const char *fsvc_scale_name(fsvc_scale s) { return fsvc_name_of(fsvc_scale_names, (int)s); }

int fsvc_scale_parse(const char *s, fsvc_scale *out)
{
    int v;
    if (fsvc_name_parse(fsvc_scale_names, s, &v))
        return -1;
    *out = (fsvc_scale)v;
    return 0;
}
