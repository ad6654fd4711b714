/*
 * csv.h - RFC 4180 CSV for the study files (fsvc/csv.c).
 *
 * Writing: rows are built in memory (fsvc_csv_out), a field quoted when it
 * holds a comma, a quote, CR or LF, starts with '#' or is an empty first
 * field (every row reads back as it was written), so that a row can be
 * appended in one write and checked. '#' lines are comments (their control
 * characters replaced, so a comment is always one line).
 *
 * Reading: the whole text at once (bounded by FSVC_CSV_MAX_BYTES): quoted
 * fields with "" for a quote and line breaks inside, LF or CRLF line ends,
 * '#' comment lines and empty lines between records skipped. An input that
 * ends inside a record (no final line end: an interrupted append) is not an
 * error: that record is dropped and reported through `partial`/`complete`.
 * Anything else malformed (text after a closing quote, a quote inside an
 * unquoted field, a CR without LF, a NUL byte, too many fields) is
 * FSVC_EINPUT naming the line.
 */
#ifndef FSVC_CSV_H
#define FSVC_CSV_H

#include "fsvc.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FSVC_CSV_MAX_BYTES ((size_t)64 << 20)  /* a file larger is refused */
#define FSVC_CSV_MAX_FIELDS 4096               /* per record */

/* ---- writing ---- */

typedef struct fsvc_csv_out {
    char *s;          /* the text so far, NUL-terminated (NULL while empty) */
    size_t len, cap;
    int fields;       /* fields in the row being built */
    int oom;          /* an allocation failed: the text is incomplete */
} fsvc_csv_out;

/* One field of the current row (NULL: empty), quoted when needed. */
void fsvc_csv_field(fsvc_csv_out *o, const char *s);
void fsvc_csv_fieldf(fsvc_csv_out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Ends the current row with LF. */
void fsvc_csv_endrow(fsvc_csv_out *o);
/* A whole comment line "# text\n" (control characters in the text -> '?'). */
void fsvc_csv_comment(fsvc_csv_out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Forgets the text (keeps the memory) / frees it. */
void fsvc_csv_reset(fsvc_csv_out *o);
void fsvc_csv_out_free(fsvc_csv_out *o);

/* ---- reading ---- */

typedef struct fsvc_csv {
    int64_t nrec;       /* records: the first is the header */
    int64_t *first;     /* nrec + 1: record r has fields first[r] .. first[r+1]-1 */
    char **field;       /* unquoted, NUL-terminated */
    int64_t *line;      /* nrec: the line where each record starts (1-based) */
    char *text;         /* storage of the fields */
    size_t complete;    /* input bytes up to the end of the last complete line */
    int partial;        /* 1: the input ended inside a record, which was dropped */
} fsvc_csv;

/* Parses len bytes of buf (name: for messages). On error *t is empty. */
int fsvc_csv_parse(fsvc_csv *t, const char *buf, size_t len, const char *name,
                   fsvc_error *err);
/* Reads and parses the regular file at path; a file that does not exist
 * gives 0 records (not an error). */
int fsvc_csv_load(fsvc_csv *t, const char *path, fsvc_error *err);
void fsvc_csv_free(fsvc_csv *t);

/* Fields of record r; field c of record r ("" past its end). */
int fsvc_csv_nfields(const fsvc_csv *t, int64_t r);
const char *fsvc_csv_get(const fsvc_csv *t, int64_t r, int c);
/* Index of the header field named name, or -1 (also with no header). */
int fsvc_csv_col(const fsvc_csv *t, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_CSV_H */
