/* libsvm_slice.c - the samples [lo, hi) of a LIBSVM file, for rank r of K.
 *
 * Pass 1: a plain file is cut into K byte ranges; rank r counts the lines
 * (and the sample lines: not blank, not a '#' comment) that start in its
 * range, from the first line start in it (a gzip file cannot be cut: rank
 * 0 counts it all). The counts and the ranges' line starts are exchanged,
 * so every rank knows the global sample index and line number where each
 * range starts. Pass 2: rank r's text runs from after global sample lo - 1
 * to after sample hi - 1 (the last rank: to the end), so every line of the
 * file is parsed by exactly one rank, which names it by its global line
 * number; only that text and its samples are held. n is the largest index
 * over the ranks (or the forced n); the classes are united by slice.c. */
#include "datasets/loaders.h"

#include <stdlib.h>
#include <string.h>

/* Lines from a ds_stream: each line with its '\n' (the last may lack it). */
typedef struct lines {
    ds_stream *s;
    unsigned char *buf;
    size_t cap, at, len; /* unread bytes: buf[at, len) */
    uint64_t off;        /* file offset of buf[at] */
    int eof;
} lines;

/* The next line at *p (*n bytes) starting at file offset *start; 1 when
 * there is none left, else a status. */
static int next_line(lines *L, const unsigned char **p, size_t *n, uint64_t *start,
                     fsvc_error *err)
{
    for (;;) {
        unsigned char *nl = L->len > L->at ? memchr(L->buf + L->at, '\n', L->len - L->at)
                                           : NULL;
        if (nl || (L->eof && L->len > L->at)) {
            size_t k = nl ? (size_t)(nl - (L->buf + L->at)) + 1 : L->len - L->at;
            *p = L->buf + L->at;
            *n = k;
            *start = L->off;
            L->at += k;
            L->off += k;
            return FSVC_OK;
        }
        if (L->eof)
            return 1;
        if (L->at > 0) { /* keep the partial line at the front */
            memmove(L->buf, L->buf + L->at, L->len - L->at);
            L->len -= L->at;
            L->at = 0;
        }
        if (L->len == L->cap) {
            size_t cap = L->cap ? L->cap * 2 : (size_t)1 << 20;
            unsigned char *b = realloc(L->buf, cap);
            if (!b)
                return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for a line of %zu "
                                 "bytes", L->s->name, L->len);
            L->buf = b;
            L->cap = cap;
        }
        uint64_t got;
        int rc = ds_stream_read(L->s, L->buf + L->len, L->cap - L->len, &got, err);
        if (rc)
            return rc;
        L->len += (size_t)got;
        if (got < L->cap - L->len + got)
            L->eof = 1;
    }
}

/* A sample line as ds_libsvm_parse sees it: not blank, not a comment. */
static int is_sample(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    return i < n && p[i] != '\n' && p[i] != '#' && p[i] != '\r';
}

/* The largest index:value index on a sample line (0 if none). */
static int64_t line_max_index(const unsigned char *p, size_t n)
{
    int64_t best = 0;
    size_t i = 0;
    int tok = 0;
    while (i < n) {
        while (i < n && (p[i] == ' ' || p[i] == '\t')) i++;
        if (i >= n || p[i] == '\n' || p[i] == '\r' || p[i] == '#') break;
        int64_t k = 0;
        size_t j = i;
        while (j < n && p[j] >= '0' && p[j] <= '9' && k <= 0x7fffffff)
            k = k * 10 + (p[j++] - '0');
        if (tok > 0 && j > i && j < n && p[j] == ':' && k <= 0x7fffffff && k > best)
            best = k;
        while (i < n && p[i] != ' ' && p[i] != '\t' && p[i] != '\n') i++;
        tok++;
    }
    return best;
}

typedef struct block_count {
    int64_t start;   /* file offset of the block's first line */
    int64_t lines;   /* lines starting in the block */
    int64_t samples; /* of them, sample lines */
} block_count;

/* Pass 1: the lines starting in [from, to) of the file, from the first
 * line start at or after from; a NUL byte is refused. */
static int count_block(block_count *b, ds_stream *s, uint64_t from, uint64_t to,
                       fsvc_error *err)
{
    memset(b, 0, sizeof *b);
    lines L = { s, NULL, 0, 0, 0, 0, 0 };
    const unsigned char *p;
    size_t n;
    uint64_t st;
    int rc = FSVC_OK;
    if (from > 0) { /* the line holding byte from - 1 belongs to the block before */
        if ((rc = ds_stream_skip(s, from - 1, err)))
            return rc;
        L.off = from - 1;
        rc = next_line(&L, &p, &n, &st, err);
        if (rc == 1) rc = FSVC_OK;
    }
    b->start = (int64_t)L.off;
    while (rc == FSVC_OK && L.off < to) {
        if ((rc = next_line(&L, &p, &n, &st, err)))
            break;
        if (memchr(p, 0, n)) {
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: binary data (a NUL byte), not LIBSVM text "
                           "nor IDX nor a PNG folder", s->name);
            break;
        }
        b->lines++;
        b->samples += is_sample(p, n);
    }
    free(L.buf);
    return rc == 1 ? FSVC_OK : rc;
}

/* Pass 2: rank r's text (see the top), *line0 the lines before it. */
static int read_text(char **text, size_t *len, int64_t *line0, ds_stream *s,
                     const block_count *all, int K, int r, int64_t lo, int64_t hi,
                     fsvc_error *err)
{
    *text = NULL;
    *len = 0;
    *line0 = 0;
    lines L = { s, NULL, 0, 0, 0, 0, 0 };
    int64_t line = 0, sample = 0;
    const unsigned char *p;
    size_t n;
    uint64_t st;
    int rc = FSVC_OK;
    if (lo > 0) { /* from the block holding sample lo - 1 */
        int q = 0;
        int64_t cs = 0, cl = 0;
        while (q < K - 1 && cs + all[q].samples < lo) {
            cs += all[q].samples;
            cl += all[q].lines;
            q++;
        }
        if ((rc = ds_stream_skip(s, (uint64_t)all[q].start, err)))
            return rc;
        L.off = (uint64_t)all[q].start;
        line = cl;
        sample = cs;
        while (sample < lo && (rc = next_line(&L, &p, &n, &st, err)) == FSVC_OK) {
            line++;
            sample += is_sample(p, n);
        }
        if (rc) {
            free(L.buf);
            return rc == 1 ? fsvc_fail(err, FSVC_EINPUT, "%s: the file changed while it was "
                                       "read (sample %lld is gone)", s->name,
                                       (long long)lo) : rc;
        }
    }
    *line0 = line;
    size_t cap = 0;
    char *t = NULL;
    while (r == K - 1 || sample < hi) {
        if ((rc = next_line(&L, &p, &n, &st, err)))
            break;
        sample += is_sample(p, n);
        if (*len + n + 1 > cap) {
            size_t nc = cap ? cap * 2 : (size_t)1 << 20;
            while (nc < *len + n + 1) nc *= 2;
            char *g = realloc(t, nc);
            if (!g) {
                rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %zu bytes of text",
                               s->name, nc);
                break;
            }
            t = g;
            cap = nc;
        }
        memcpy(t + *len, p, n);
        *len += n;
    }
    free(L.buf);
    if (rc == 1) rc = FSVC_OK;
    if (rc) {
        free(t);
        *len = 0;
        return rc;
    }
    if (t) t[*len] = 0; /* the parser's strtod reads up to a NUL */
    *text = t;
    return FSVC_OK;
}

/* One process stops at the first bad line, before any check of the whole
 * text (no samples or features, the dense size): so a rank whose error is
 * of its text as a whole gives way (FSVC_SLICE_ELSEWHERE) when some rank
 * has a line's error; the lowest of those then names the file's first bad
 * line. Collective: the worst kind of error over the ranks (0 none, 1 the
 * whole's, 2 a line's). */
static int lines_first(const fsvc_slice_comm *c, int rc, int lerr, fsvc_error *err)
{
    int64_t mine = rc ? (lerr ? 2 : 1) : 0, worst;
    if (ds_slice_max(c, mine, &worst))
        return rc ? rc : fsvc_fail(err, FSVC_ERESOURCE, "the exchange of the slices failed");
    if (worst == 2 && mine == 1) rc = fsvc_fail(err, rc, FSVC_SLICE_ELSEWHERE);
    return rc;
}

int ds_libsvm_load_slice(fsvc_dataset *d, const char *path, int n_features,
                         const fsvc_slice_comm *c, int64_t *first, int64_t *N_total,
                         fsvc_error *err)
{
    ds_dataset_init(d, path);
    int K = c->size, r = c->rank;
    ds_stream s;
    int rc = ds_stream_open(&s, path, err), opened = !rc;
    block_count mine = {0, 0, 0}, *all = malloc((size_t)K * sizeof *all);
    if (!rc && !all)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    if (!rc) {
        uint64_t from = s.gz ? 0 : s.fsize * (uint64_t)r / (uint64_t)K;
        uint64_t to = s.gz ? (r == 0 ? UINT64_MAX : 0) : s.fsize * (uint64_t)(r + 1) / (uint64_t)K;
        if (to > from)
            rc = count_block(&mine, &s, from, to, err);
        ds_stream_close(&s);
        opened = 0;
        if (!rc) rc = ds_stream_open(&s, path, err), opened = !rc; /* pass 2 from the start */
    }
    rc = ds_slice_exchange(c, rc, &mine, sizeof mine, all, err);
    int64_t N = 0, lo = 0, hi = 0, line0 = 0;
    for (int q = 0; !rc && q < K; q++) N += all[q].samples;
    lo = N * r / K;
    hi = N * (r + 1) / K;
    char *text = NULL;
    size_t len = 0;
    int parse = hi > lo || (r == K - 1 && N == 0);
    if (!rc && parse)
        rc = read_text(&text, &len, &line0, &s, all, K, r, lo, hi, err);
    if (opened) ds_stream_close(&s);
    free(all);
    int64_t nmax = 0, *every = malloc((size_t)K * sizeof *every);
    if (!rc && !every) rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    for (size_t i = 0; !rc && i < len;) { /* the largest index in the text */
        const char *e = memchr(text + i, '\n', len - i);
        size_t n = e ? (size_t)(e - (text + i)) + 1 : len - i;
        if (is_sample((const unsigned char *)text + i, n)) {
            int64_t k = line_max_index((const unsigned char *)text + i, n);
            if (k > nmax) nmax = k;
        }
        i += n;
    }
    rc = ds_slice_exchange(c, rc, &nmax, sizeof nmax, every, err);
    for (int q = 0; !rc && q < K; q++)
        if (every[q] > nmax) nmax = every[q];
    free(every);
    int n = n_features > 0 ? n_features : (int)nmax;
    int lerr = 0;
    if (!rc && parse)
        rc = ds_libsvm_parse_from(d, text, len, path, n, line0, ds_max_bytes(), &lerr, err);
    if (!rc && !parse) { /* no samples here */
        d->x = malloc(1);
        d->y = malloc(sizeof *d->y);
        d->n = n;
        d->dtype = FSVC_F64;
        d->has_labels = 1;
        if (!d->x || !d->y)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    }
    free(text);
    *first = lo;
    *N_total = N;
    rc = lines_first(c, rc, lerr, err);
    rc = ds_slice_exchange(c, rc, NULL, 0, NULL, err);
    if (rc) fsvc_dataset_free(d);
    return rc;
}
