/* slice_agree.c - before a slice load, the ranks check that they read the
 * same data: the kind of source (missing, folder, PNG, IDX pair, text),
 * gzip or plain, and for each file its size and a CRC32 of its first and
 * last 64 KiB (of the inflated stream's first 64 KiB for gzip: the same
 * data compressed twice compares equal). The loaders pick their exchanges
 * from what each rank sees, so ranks that disagree would wait in different
 * collectives (a hang) or mix two data sets; they stop here instead. */
#include "datasets/loaders.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PEEK ((size_t)1 << 16)

typedef struct fprint {
    int64_t kind;          /* ds_source_kind */
    int64_t gz;            /* bit f: file f is gzip */
    int64_t size[2];       /* plain files: bytes; gzip: -1 */
    int64_t head[2], tail[2];
    int64_t nomem;         /* this rank ran out of memory reading a file */
} fprint;

/* One file's size and checksums into slot f of p (zeros when unreadable:
 * the loader then reports it, on every rank alike; p->nomem when out of
 * memory, which is this rank's alone). */
static void print_file(fprint *p, int f, const char *path, unsigned char *buf)
{
    errno = 0;
    gzFile g = gzopen(path, "rb");
    if (!g) {
        p->nomem |= errno == ENOMEM;
        return;
    }
    int got = gzread(g, buf, (unsigned)PEEK), zerr = Z_OK;
    if (got < 0) gzerror(g, &zerr);
    int direct = gzdirect(g);
    gzclose(g);
    p->nomem |= zerr == Z_MEM_ERROR;
    if (got < 0) return;
    p->head[f] = (int64_t)crc32_z(0L, buf, (z_size_t)got);
    if (!direct) {
        p->gz |= (int64_t)1 << f;
        p->size[f] = -1;
        return;
    }
    FILE *h = fopen(path, "rb");
    if (!h) {
        p->nomem |= errno == ENOMEM;
        return;
    }
    if (fseeko(h, 0, SEEK_END) == 0) {
        off_t end = ftello(h);
        off_t from = end > (off_t)PEEK ? end - (off_t)PEEK : 0;
        p->size[f] = end;
        if (fseeko(h, from, SEEK_SET) == 0) {
            size_t n = fread(buf, 1, PEEK, h);
            p->tail[f] = (int64_t)crc32_z(0L, buf, (z_size_t)n);
        }
    }
    fclose(h);
}

static const char *kind_name(int64_t k)
{
    static const char *const names[] = {"nothing (no such file)", "a folder", "a PNG image",
                                        "an IDX pair", "a LIBSVM text file"};
    return k >= 0 && k <= DS_SRC_TEXT ? names[k] : "?";
}

/* Why b (this rank) is not a (rank 0), in words, into why. */
static void differ(char *why, size_t sz, const fprint *a, const fprint *b)
{
    if (a->kind != b->kind)
        snprintf(why, sz, "%s here, %s on rank 0", kind_name(b->kind), kind_name(a->kind));
    else if (a->gz != b->gz)
        snprintf(why, sz, "%s here, %s on rank 0", b->gz ? "gzipped" : "plain",
                 a->gz ? "gzipped" : "plain");
    else if (a->size[0] != b->size[0] || a->size[1] != b->size[1])
        snprintf(why, sz, "%lld bytes here, %lld on rank 0",
                 (long long)(b->size[0] + b->size[1]), (long long)(a->size[0] + a->size[1]));
    else
        snprintf(why, sz, "the same size, other bytes (CRC32 %08llx here, %08llx on rank 0)",
                 (long long)(b->head[0] ^ b->tail[0] ^ b->head[1] ^ b->tail[1]),
                 (long long)(a->head[0] ^ a->tail[0] ^ a->head[1] ^ a->tail[1]));
}

int ds_slice_same_source(const fsvc_slice_comm *c, int kind, const char *file0,
                         const char *file1, const char *source, int missing_errno,
                         fsvc_error *err)
{
    if (c->size <= 1) return FSVC_OK;
    fprint mine, *all = calloc((size_t)c->size, sizeof *all);
    unsigned char *buf = malloc(PEEK);
    /* a rank out of memory can neither receive the prints nor make its
     * own (it would differ): every rank hears of it before the exchange */
    int64_t nomem = !all || !buf;
    if (ds_slice_max(c, nomem, &nomem) || nomem) {
        int own = !all || !buf;
        free(all);
        free(buf);
        return own ? fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory comparing the data of "
                               "the ranks", source)
                   : fsvc_fail(err, FSVC_ERESOURCE, nomem ? FSVC_SLICE_ELSEWHERE
                               : "the exchange of the slices failed");
    }
    memset(&mine, 0, sizeof mine);
    mine.kind = kind;
    if (kind == DS_SRC_PNG || kind == DS_SRC_IDX || kind == DS_SRC_TEXT) {
        if (file0) print_file(&mine, 0, file0, buf);
        if (file1) print_file(&mine, 1, file1, buf);
    }
    free(buf);
    int rc = c->allgather(c->self, &mine, sizeof mine, all);
    int64_t bad = rc != FSVC_OK, worst = 0, short_of = 0;
    if (!bad) {
        for (int r = 0; r < c->size; r++) short_of |= all[r].nomem;
        for (int r = 1; r < c->size; r++)
            if (memcmp(&all[r], &all[0], sizeof mine)) worst = 1;
    }
    fprint first = !bad ? all[0] : mine;
    free(all);
    /* an allocation or exchange failure on one rank: all must hear of it */
    if (ds_slice_max(c, bad, &bad))
        return fsvc_fail(err, FSVC_ERESOURCE, "the exchange of the slices failed");
    if (bad) return fsvc_fail(err, FSVC_ERESOURCE, "%s: the ranks could not compare their data",
                              source);
    if (short_of) /* the prints are incomplete: no verdict on the data */
        return fsvc_fail(err, FSVC_ERESOURCE, mine.nomem ? "%s: out of memory comparing the "
                         "data of the ranks" : FSVC_SLICE_ELSEWHERE, source);
    if (!worst) return FSVC_OK;
    if (kind == DS_SRC_NONE) /* as slice.c says it when every rank misses it */
        return missing_errno != ENOENT
             ? fsvc_fail(err, FSVC_EINPUT, "%s: cannot open: %s", source, strerror(missing_errno))
             : fsvc_fail(err, FSVC_EINPUT, "%s: no such file or folder, and no "
                         "%s-images-idx3-ubyte[.gz]: %s", source, source, strerror(ENOENT));
    if (!memcmp(&mine, &first, sizeof mine))
        return fsvc_fail(err, FSVC_EINPUT, FSVC_SLICE_ELSEWHERE);
    char why[200];
    differ(why, sizeof why, &first, &mine);
    return fsvc_fail(err, FSVC_EINPUT, "%s: not the data rank 0 reads (%s): every process must "
                     "read the same data", source, why);
}
