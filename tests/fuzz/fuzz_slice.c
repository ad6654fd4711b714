/* fuzz_slice.c - libFuzzer target for the slice loaders (datasets/slice.c,
 * libsvm_slice.c, idx_slice.c over stream.c), differential: the input is
 * written as a file and loaded whole by fsvc_dataset_load and in slices by
 * 1 and by K = 2..4 threads standing in for processes (tests/util/
 * slice_team.h). Either the whole load fails and so does every rank, the
 * lowest rank with an error of its own giving the whole load's message, or
 * it succeeds and so does every rank, the slices put together being the
 * whole dataset. First byte: the file kind (bits 0-1: LIBSVM text as given,
 * LIBSVM gzipped here, an IDX images file as given, an IDX images file
 * gzipped here) and K (2 + (byte >> 2) % 3); an IDX kind with a first byte
 * 0x40-0x4f is an IDX pair instead: the second byte splits the rest into
 * the images and the labels file (both plain or both gzipped), loaded by
 * their prefix. Build and run: make fuzz. */
#include "datasets/loaders.h"
#include "tests/util/slice_team.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char path[8][128]; /* 4 kinds; then images, labels of the plain and gzip pairs */
static char prefix[2][128];

static void cleanup(void)
{
    for (int k = 0; k < 8; k++) unlink(path[k]);
    rmdir(dir);
}



/* bytes as a gzip member (deflate, level 1) into f; 0 or -1 */
static int write_gz(FILE *f, const uint8_t *p, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    uLong cap = deflateBound(&z, (uLong)n);
    unsigned char *out = malloc(cap);
    int rc = -1;
    if (out) {
        z.next_in = (Bytef *)p;
        z.avail_in = (uInt)n;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) == Z_STREAM_END &&
            fwrite(out, 1, cap - z.avail_out, f) == cap - z.avail_out)
            rc = 0;
    }
    deflateEnd(&z);
    free(out);
    return rc;
}

/* bytes into the file at p, plain or as one gzip member; 0 or -1 */
static int write_file(const char *p, const uint8_t *b, size_t n, int gz)
{
    FILE *f = fopen(p, "wb");
    if (!f) return -1;
    int bad = gz ? write_gz(f, b, n) : (fwrite(b, 1, n, f) != n ? -1 : 0);
    return fclose(f) || bad ? -1 : 0;
}

static void same_dataset_or_abort(const fsvc_dataset *w, st_member *ms, int K)
{
    size_t row = (size_t)w->n * fsvc_dtype_size(w->dtype);
    int64_t at = 0;
    for (int r = 0; r < K; r++) {
        const fsvc_dataset *d = &ms[r].d;
        if (ms[r].N_total != w->N || ms[r].first != at || d->n != w->n ||
            d->dtype != w->dtype || d->K != w->K || d->has_labels != w->has_labels ||
            d->rows != w->rows || d->cols != w->cols || at + d->N > w->N)
            abort();
        if (d->N && memcmp(d->x, (const char *)w->x + (size_t)at * row, (size_t)d->N * row))
            abort();
        if (w->K && memcmp(d->class_values, w->class_values, (size_t)w->K * sizeof(double)))
            abort();
        for (int64_t i = 0; w->has_labels && i < d->N; i++)
            if (d->cls[i] != w->cls[at + i] || !(d->y[i] == w->y[at + i])) abort();
        at += d->N;
    }
    if (at != w->N) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz-slice-XXXXXX");
        if (!mkdtemp(dir)) abort();
        static const char *const names[8] = {
            "a.txt", "b.txt.gz", "c-images-idx3-ubyte", "d-images-idx3-ubyte.gz",
            "p-images-idx3-ubyte", "p-labels-idx1-ubyte", "q-images-idx3-ubyte.gz",
            "q-labels-idx1-ubyte.gz"};
        for (int k = 0; k < 8; k++) snprintf(path[k], sizeof path[k], "%s/%s", dir, names[k]);
        snprintf(prefix[0], sizeof prefix[0], "%s/p", dir);
        snprintf(prefix[1], sizeof prefix[1], "%s/q", dir);
        atexit(cleanup);
    }
    if (size < 1) return 0;
    int kind = data[0] & 3, Kmany = 2 + (data[0] >> 2) % 3;
    int pair = (kind & 2) && data[0] >> 4 == 4 && size >= 2, gz = kind & 1;
    const char *source = path[kind];
    if (pair) { /* the images, then the labels */
        size_t rest = size - 2, cut = rest * data[1] / 255;
        if (write_file(path[4 + 2 * gz], data + 2, cut, gz) ||
            write_file(path[5 + 2 * gz], data + 2 + cut, rest - cut, gz))
            abort();
        source = prefix[gz];
    } else if (write_file(path[kind], data + 1, size - 1, gz)) {
        abort();
    }

    fsvc_dataset w;
    fsvc_error err;
    fsvc_error_clear(&err);
    int wrc = fsvc_dataset_load(&w, source, NULL, &err);
    const int Ks[2] = {1, Kmany};
    for (int t = 0; t < 2; t++) {
        int K = Ks[t];
        st_member ms[ST_MAXK];
        st_load_k(ms, K, source, NULL, 0);
        int r0 = -1;
        for (int r = 0; r < K; r++) {
            if ((ms[r].rc == FSVC_OK) != (wrc == FSVC_OK)) {
                fprintf(stderr, "fuzz_slice: K = %d: the whole load %s (%s), rank %d %s (%s)\n",
                        K, wrc ? "fails" : "loads", err.msg, r, ms[r].rc ? "fails" : "loads",
                        ms[r].err.msg);
                abort();
            }
            if (ms[r].rc && r0 < 0 && strcmp(ms[r].err.msg, FSVC_SLICE_ELSEWHERE) != 0) r0 = r;
        }
        if (wrc) {
            if (r0 < 0 || strcmp(ms[r0].err.msg, err.msg) != 0) {
                fprintf(stderr, "fuzz_slice: K = %d: the whole load says \"%s\", rank %d \"%s\"\n",
                        K, err.msg, r0, r0 < 0 ? "(none)" : ms[r0].err.msg);
                abort();
            }
        } else {
            same_dataset_or_abort(&w, ms, K);
        }
        for (int r = 0; r < K; r++)
            if (!ms[r].rc) fsvc_dataset_free(&ms[r].d);
    }
    if (!wrc) fsvc_dataset_free(&w);
    return 0;
}
