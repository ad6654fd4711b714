/*
 * fsvc_base.h - the bottom of fsvc: status codes, error lines, the print
 * hook, element types and one name table per enum. Every other directory
 * may include it; it includes nothing of fsvc. Installed with fsvc.h,
 * which includes it (the public API is unchanged).
 */
#ifndef FSVC_BASE_H
#define FSVC_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes (also the exit codes of the fsvc tool) ---- */
enum {
    FSVC_OK = 0,
    FSVC_EUSAGE = 1,    /* bad options or arguments */
    FSVC_EINPUT = 2,    /* bad input data or file */
    FSVC_ERESOURCE = 3  /* out of memory, I/O failure, no device */
};

typedef struct fsvc_error {
    int code;           /* one of the FSVC_E* codes, FSVC_OK when clear */
    char msg[1024];     /* one line, no trailing newline */
} fsvc_error;

/* Sets err (if not NULL) from a printf-style message and returns code. */
int fsvc_fail(fsvc_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void fsvc_error_clear(fsvc_error *err);

/* Replaceable print function for progress and information (default:
 * stderr). NULL restores the default. */
void fsvc_set_print(void (*print)(const char *line));
void fsvc_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ---- name tables: one per enum, {name, value} rows ended by {NULL, 0};
 * the enum's _name and _parse functions both read its table. ---- */
typedef struct fsvc_name {
    const char *name;
    int value;
} fsvc_name;
/* The name of value in t, or "?" when it has none. */
const char *fsvc_name_of(const fsvc_name *t, int value);
/* *value = the value named s: 0 ok, -1 unknown (or s NULL). */
int fsvc_name_parse(const fsvc_name *t, const char *s, int *value);
/* "a|b|c" into buf (for help texts and messages); returns buf. */
const char *fsvc_name_list(const fsvc_name *t, char *buf, size_t len);

/* ---- element types ---- */
typedef enum { FSVC_U8 = 0, FSVC_F32 = 1, FSVC_F64 = 2 } fsvc_dtype;
extern const fsvc_name fsvc_dtype_names[];
size_t fsvc_dtype_size(fsvc_dtype t);
const char *fsvc_dtype_name(fsvc_dtype t);
int fsvc_dtype_parse(const char *s, fsvc_dtype *out); /* 0 ok, -1 unknown */

/* ---- input scaling, part of the model ---- */
typedef enum {
    FSVC_SCALE_NONE = 0, /* values as read */
    FSVC_SCALE_01 = 1,   /* u8 pixels v -> v / 255 */
    FSVC_SCALE_PM1 = 2   /* u8 pixels v -> v / 127.5 - 1 */
} fsvc_scale;
extern const fsvc_name fsvc_scale_names[];
const char *fsvc_scale_name(fsvc_scale s);
int fsvc_scale_parse(const char *s, fsvc_scale *out); /* 0 ok, -1 unknown */

/* ---- virtual samples of images (base/augment.c) ----
 * Every training image also enters the ridge readout's products shifted
 * and/or mirrored, each variant made per block of samples and never
 * stored. shift1: the 4 1-pixel shifts (N x 5); shift2: every shift with
 * |dx| + |dy| <= 2 (N x 13); mirror: the left-right mirror (N x 2);
 * mirror+shift1: both (N x 10). Vacated pixels are 0. Image data only
 * (rows x cols known). The names: fsvc.h (fsvc_augment_name). */
typedef enum {
    FSVC_AUG_NONE = 0, FSVC_AUG_SHIFT1 = 1, FSVC_AUG_SHIFT2 = 2, FSVC_AUG_MIRROR = 3,
    FSVC_AUG_MIRROR_SHIFT1 = 4
} fsvc_augment;
/* Variants per sample of an augmentation (1 for none), and variant v of
 * one rows x cols image of es-byte values (0: the image itself; then the
 * shifts in the order (dy, dx) = (0,1) (0,-1) (1,0) (-1,0), for shift2
 * (0,+-2) (+-2,0) (1,1) (1,-1) (-1,1) (-1,-1); mirror variants follow the
 * plain ones, mirrored after the shift). */
int fsvc_augment_count(fsvc_augment a);
void fsvc_augment_apply(void *dst, const void *src, int rows, int cols, size_t es,
                        fsvc_augment a, int v);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_BASE_H */
