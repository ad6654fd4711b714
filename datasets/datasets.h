/* datasets.h - the bottom of datasets/ (not installed): whole-file reads,
 * byte sources, safe writes (io.c) and the dataset helpers (dataset.c) that
 * the loaders (datasets/loaders.h) and writers build on.
 *
 * The parsers work on bytes in memory so that the fuzz targets can drive them
 * without files; the file loaders read a file whole and call them. Every
 * function returns an FSVC status and fills err with one line naming the
 * file (and the line or byte offset) and the problem.
 */
#ifndef FSVC_DATASETS_H
#define FSVC_DATASETS_H

#include "datasets/fsvc_data.h"

#include <stddef.h>
#include <stdint.h>

/* Upper cap on the bytes one decoded array (IDX payload, dense LIBSVM
 * matrix) or one input file may need: headers or indices asking for more
 * are refused as absurd before anything is allocated. The loaders use
 * ds_max_bytes() = min(DS_MAX_BYTES, physical RAM). */
#define DS_MAX_BYTES ((uint64_t)1 << 36) /* 64 GiB */

#include <stdio.h>

/* ---- io.c: input files, gzip streams over memory ---- */

/* The load limit: min(DS_MAX_BYTES, physical RAM (sysconf)). */
uint64_t ds_max_bytes(void);
/* Words for a limit in messages: "23.4 GiB = min(64 GiB, physical RAM)"
 * when max_bytes is ds_max_bytes(), else "N bytes". Returns out. */
const char *ds_limit_text(char *out, size_t sz, uint64_t max_bytes);

/* The exit code of a failed open of an input: out of memory or of file
 * descriptors is the machine's (FSVC_ERESOURCE), anything else the
 * input's (FSVC_EINPUT). */
int ds_open_errno_code(int e);

/* Opens path for reading (*f, "rb") when it is a regular file. A folder, a
 * FIFO, a device or a socket is refused with FSVC_EINPUT without blocking
 * (the open is non-blocking until fstat has said what it is). */
int ds_open_input(FILE **f, const char *path, fsvc_error *err);

/* Reads the regular file at path whole: *buf (malloc'd, NUL-terminated,
 * *len bytes before the NUL). Missing/unreadable/not a regular file/larger
 * than ds_max_bytes() -> FSVC_EINPUT, no memory -> ERESOURCE. */
int ds_read_file(unsigned char **buf, size_t *len, const char *path,
                 fsvc_error *err);

/* 1 if buf starts with the gzip magic bytes 1f 8b. */
int ds_is_gzip(const unsigned char *buf, size_t len);

/* A byte source over memory: plain bytes, or a gzip stream inflated on the
 * fly (detected from the magic bytes, one or more concatenated members). */
typedef struct ds_src {
    const unsigned char *buf; /* whole input, len bytes */
    size_t len;
    size_t pos;               /* raw: next byte; gz: consumed input */
    int gz;                   /* 1 when inflating */
    int z_ready, z_end;       /* inflate initialised / all members done */
    void *z;                  /* z_stream (opaque here) */
    uint64_t produced;        /* bytes delivered so far */
    const char *name;         /* for messages */
} ds_src;

int ds_src_open(ds_src *s, const unsigned char *buf, size_t len,
                const char *name, fsvc_error *err);
void ds_src_close(ds_src *s);
/* Reads up to n bytes into dst; *got < n only at the end of the data. */
int ds_src_read(ds_src *s, void *dst, size_t n, size_t *got, fsvc_error *err);
/* Most bytes this source could still deliver (raw: exact; gz: the deflate
 * limit of about 1032:1 over the remaining compressed input). */
uint64_t ds_src_max_left(const ds_src *s);
/* The most bytes `left` compressed bytes of gzip data can inflate to:
 * deflate's 1032:1, plus the stream's slack (ds_src_max_left,
 * ds_stream_room). */
uint64_t ds_gz_max_out(uint64_t left);

/* ---- safe_write.c: output that appears whole or not at all ----
 *
 * ds_tmp_open creates the new file for path: unnamed (O_TMPFILE) in path's
 * folder, or where that is unsupported a named temporary file next to it,
 * mode 0666 & ~umask; *tmp (tmpsz bytes, may be 0) gets the temporary name
 * or "" (informative only; nothing depends on its size). ds_tmp_commit
 * checks every write (ferror, fflush, fsync, close), links/renames the
 * file over path atomically and fsyncs the folder; on any failure it
 * removes what it made and returns FSVC_ERESOURCE naming path.
 * ds_tmp_abort closes and removes it. A path that exists and is not a
 * regular file (symbolic link, device, FIFO, folder) is refused with
 * FSVC_EINPUT "<path>: not a regular file; refusing to replace it"; a path
 * longer than the system allows with FSVC_EINPUT. Thread-safe; at most 64
 * files open at once. */
int ds_tmp_open(FILE **f, char *tmp, size_t tmpsz, const char *path,
                fsvc_error *err);
int ds_tmp_commit(FILE *f, const char *tmp, const char *path, fsvc_error *err);
void ds_tmp_abort(FILE *f, const char *tmp);
/* Removes every named temporary file of ds_tmp_open still on disk.
 * Async-signal-safe: for a SIGINT/SIGTERM handler that then re-raises. */
void ds_tmp_unlink_all(void);

/* Shortest decimal text that strtod reads back as exactly v (out: >= 32). */
void ds_format_double(char *out, size_t outsz, double v);

/* ---- csr.c ---- */
/* fsvc_dataset_fit_features for sparse d (d->csr): features at n and
 * beyond are dropped (counted as fsvc_dataset_fit_features says). */
int ds_csr_fit_features(fsvc_dataset *d, int n, int64_t *dropped, int *first_extra,
                        fsvc_error *err);

/* ---- dataset.c ---- */
/* Empties d (no memory owned) and records source. */
void ds_dataset_init(fsvc_dataset *d, const char *source);

#endif
