/* libsvm.c - LIBSVM text reader: `label index:value ...` per line.
 *
 * Indices are 1-based and strictly ascending; labels and values are any
 * finite numbers read with strtod, so float64 values round-trip exactly.
 * Blank lines and lines starting with '#' are skipped; a '#' token ends a
 * line. The output is dense, X: N x n f64 with n = the largest index seen
 * (or the forced n_features), missing entries 0; or sparse (storage
 * sparse, or auto on sparse data: see FSVC_STORE_AUTO), d->csr with the
 * nonzero values as float (explicit zeros and values below the float
 * range dropped; values beyond it become +-Inf, as the float conversion
 * of dense data makes them); y: N labels. Sparse storage refuses, at their line, indices above
 * FSVC_CSR_MAX_N. */
#include "datasets/loaders.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct growth {
    void *p;
    size_t len, cap, es;
} growth;

static int grow(growth *g, size_t more)
{
    if (g->len + more <= g->cap)
        return 0;
    size_t cap = g->cap ? g->cap : 1024;
    while (cap < g->len + more)
        cap *= 2;
    void *p = realloc(g->p, cap * g->es);
    if (!p)
        return -1;
    g->p = p;
    g->cap = cap;
    return 0;
}

static int is_sp(char c) { return c == ' ' || c == '\t'; }
static int is_end(char c) { return c == '\n' || c == '\r' || c == '\0'; }

/* Copies the token at p (up to 24 chars, printable) into out, for messages. */
static const char *token(char *out, const char *p)
{
    size_t k = 0;
    while (k < 24 && !is_sp(p[k]) && !is_end(p[k])) {
        out[k] = (p[k] > 32 && p[k] < 127) ? p[k] : '?';
        k++;
    }
    if (k == 24) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = 0;
    return out;
}

typedef struct parser {
    const char *name;
    int64_t line;
    fsvc_error *err;
    int64_t big_line;      /* the first line with a value beyond float32 */
    char big[32];          /* and that value, for the message */
} parser;

static int bad(parser *ps, const char *what, const char *at)
{
    char t[32];
    return fsvc_fail(ps->err, FSVC_EINPUT, "%s:%lld: %s '%s'", ps->name,
                     (long long)ps->line, what, token(t, at));
}

/* A finite number at p ending at whitespace / end of line; *end after it. */
static int number(parser *ps, double *v, const char *p, const char **end,
                  const char *what)
{
    if (is_sp(*p) || is_end(*p))
        return fsvc_fail(ps->err, FSVC_EINPUT, "%s:%lld: missing %s", ps->name,
                         (long long)ps->line, what);
    char *e;
    errno = 0;
    *v = strtod(p, &e);
    if (e == p || !(is_sp(*e) || is_end(*e))) {
        char msg[64];
        snprintf(msg, sizeof msg, "%s is not a number:", what);
        return bad(ps, msg, p);
    }
    if (!isfinite(*v)) {
        char msg[64];
        snprintf(msg, sizeof msg, "%s is NaN or Inf (or overflows):", what);
        return bad(ps, msg, p);
    }
    *end = e;
    return FSVC_OK;
}

/* The dense N x n f64 matrix must fit the size limit, and above
 * DENSE_FREE bytes it must be justified by the data: at most
 * DENSE_PER_VALUE cells per value stored in the file (sparse sets with
 * large indices stay loadable; a tiny file with index 1e9 does not). */
#define DENSE_FREE ((uint64_t)1 << 27) /* 128 MiB */
#define DENSE_PER_VALUE 4096

static int check_dense(const char *name, uint64_t N, int n, int nmax, uint64_t values,
                       uint64_t max_bytes, fsvc_error *err)
{
    uint64_t cells = N * (uint64_t)n; /* N < 2^63 / 2^31: no overflow */
    char lim[80];
    if (cells > max_bytes / sizeof(double))
        return fsvc_fail(err, FSVC_EINPUT, "%s: dense %llu x %d matrix (%llu bytes) would "
                         "exceed the load limit (%s); largest index %d", name,
                         (unsigned long long)N, n, (unsigned long long)(cells * 8),
                         ds_limit_text(lim, sizeof lim, max_bytes), nmax);
    if (cells * sizeof(double) > DENSE_FREE && cells / DENSE_PER_VALUE > values + N)
        return fsvc_fail(err, FSVC_EINPUT, "%s: dense %llu x %d matrix (%llu bytes) for only "
                         "%llu values in the file; largest index %d is out of proportion to "
                         "the data (limit: %d cells per value above %llu MiB)", name,
                         (unsigned long long)N, n, (unsigned long long)(cells * 8),
                         (unsigned long long)values, nmax, DENSE_PER_VALUE,
                         (unsigned long long)(DENSE_FREE >> 20));
    return FSVC_OK;
}

/* Sparse storage for N samples of n features holding nnz values? */
static int want_sparse(int storage, uint64_t N, int n, uint64_t nnz)
{
    if (storage != FSVC_STORE_AUTO)
        return storage == FSVC_STORE_SPARSE;
    uint64_t cells = N * (uint64_t)n;
    return n > FSVC_SPARSE_AUTO_N ||
           (cells > (uint64_t)FSVC_SPARSE_AUTO_CELLS && nnz < cells / 10);
}

/* v as float: beyond the float range +-Inf (as a float conversion makes
 * it), below it 0. */
static float to_float(double v)
{
    return v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
}

/* The parsed entries as d->csr (the values nonzero as float only). */
static int make_csr(fsvc_dataset *d, size_t N, const size_t *r, const int *ix,
                    const double *vv)
{
    fsvc_csr *a = calloc(1, sizeof *a);
    size_t nnz = 0;
    for (size_t e = 0; e < r[N]; e++)
        nnz += to_float(vv[e]) != 0;
    if (!a || !(a->row_ptr = malloc((N + 1) * sizeof *a->row_ptr)) ||
        !(a->col = malloc((nnz ? nnz : 1) * sizeof *a->col)) ||
        !(a->val = malloc((nnz ? nnz : 1) * sizeof *a->val))) {
        fsvc_csr_free(a);
        return -1;
    }
    size_t q = 0;
    for (size_t i = 0; i < N; i++) {
        a->row_ptr[i] = (int64_t)q;
        for (size_t e = r[i]; e < r[i + 1]; e++)
            if (to_float(vv[e]) != 0) {
                a->col[q] = ix[e];
                a->val[q++] = to_float(vv[e]);
            }
    }
    a->row_ptr[N] = (int64_t)q;
    a->rows = (int64_t)N;
    a->nnz = (int64_t)q;
    d->csr = a;
    return 0;
}

int ds_libsvm_parse(fsvc_dataset *d, const char *text, size_t len,
                    const char *name, int n_features, uint64_t max_bytes,
                    fsvc_error *err)
{
    return ds_libsvm_parse_from(d, text, len, name, n_features, 0, max_bytes, NULL, err);
}

static int parse_core(fsvc_dataset *d, const char *text, size_t len, const char *name,
                      const fsvc_load_opts *o, int64_t line0, uint64_t max_bytes,
                      int *line_err, fsvc_error *err);

int ds_libsvm_parse_from(fsvc_dataset *d, const char *text, size_t len,
                         const char *name, int n_features, int64_t line0,
                         uint64_t max_bytes, int *line_err, fsvc_error *err)
{
    fsvc_load_opts o = {0};
    o.n_features = n_features;
    return parse_core(d, text, len, name, &o, line0, max_bytes, line_err, err);
}

int ds_libsvm_parse_opt(fsvc_dataset *d, const char *text, size_t len,
                        const char *name, const fsvc_load_opts *o, uint64_t max_bytes,
                        fsvc_error *err)
{
    return parse_core(d, text, len, name, o, 0, max_bytes, NULL, err);
}

static int parse_core(fsvc_dataset *d, const char *text, size_t len, const char *name,
                      const fsvc_load_opts *o, int64_t line0, uint64_t max_bytes,
                      int *line_err, fsvc_error *err)
{
    if (line_err) *line_err = 0;
    int n_features = o->n_features, storage = o->storage;
    ds_dataset_init(d, name);
    parser ps = {name, line0, err, 0, ""};
    growth ys = {0, 0, 0, sizeof(double)};   /* N labels */
    growth rows = {0, 0, 0, sizeof(size_t)}; /* N+1 entry offsets */
    growth idx = {0, 0, 0, sizeof(int)};     /* entries: index - 1 */
    growth val = {0, 0, 0, sizeof(double)};  /* entries: value */
    int rc = FSVC_OK, nmax = 0;
    const char *p = text, *stop = len ? text + len : text; /* no text: NULL, 0 */
    while (p < stop && rc == FSVC_OK) {
        const char *eol = memchr(p, '\n', (size_t)(stop - p));
        if (!eol)
            eol = stop;
        ps.line++;
        /* LF and CRLF line ends; a CR anywhere else (old Mac CR-only line
         * ends) would silently join lines: refused */
        const char *cr = memchr(p, '\r', (size_t)(eol - p));
        if (cr && cr != eol - 1) {
            rc = fsvc_fail(err, FSVC_EINPUT, "%s:%lld: carriage return inside a line: "
                           "CR line ends are not supported (use LF or CRLF)", name,
                           (long long)ps.line);
            break;
        }
        while (is_sp(*p))
            p++;
        if (p >= eol || *p == '#' || *p == '\r') {
            p = eol + 1;
            continue;
        }
        double label;
        if ((rc = number(&ps, &label, p, &p, "label")))
            break;
        if (grow(&ys, 1) || grow(&rows, 2))
            goto oom;
        ((double *)ys.p)[ys.len++] = label;
        ((size_t *)rows.p)[rows.len++] = idx.len;
        long prev = 0;
        for (;;) {
            while (is_sp(*p))
                p++;
            if (p >= eol || is_end(*p) || *p == '#')
                break;
            const char *tok = p;
            long k = 0;
            while (*p >= '0' && *p <= '9' && k <= 0x7fffffff)
                k = k * 10 + (*p++ - '0');
            if (p == tok) {
                rc = bad(&ps, "expected index:value, got", tok);
                break;
            }
            if (k > 0x7fffffff) {
                rc = bad(&ps, "index too large:", tok);
                break;
            }
            if (*p != ':') {
                rc = bad(&ps, "missing ':' in", tok);
                break;
            }
            if (k == 0) {
                rc = bad(&ps, "index 0 (indices are 1-based) in", tok);
                break;
            }
            if (k == prev) {
                rc = bad(&ps, "duplicate index in", tok);
                break;
            }
            if (k < prev) {
                char msg[80];
                snprintf(msg, sizeof msg, "descending index (after %ld) in", prev);
                rc = bad(&ps, msg, tok);
                break;
            }
            if (storage != FSVC_STORE_DENSE && k > FSVC_CSR_MAX_N) {
                char msg[120];
                snprintf(msg, sizeof msg, "index above the limit of sparse data (%d "
                         "features) in", FSVC_CSR_MAX_N);
                rc = bad(&ps, msg, tok);
                break;
            }
            if (n_features > 0 && k > n_features) {
                char msg[80];
                snprintf(msg, sizeof msg, "index above the forced n = %d in", n_features);
                rc = bad(&ps, msg, tok);
                break;
            }
            double v;
            const char *vat = p + 1;
            if ((rc = number(&ps, &v, vat, &p, "value")))
                break;
            if (!ps.big_line && fabs(v) > FLT_MAX) { /* fine as float64 (dense) */
                ps.big_line = ps.line;
                token(ps.big, vat);
            }
            if (grow(&idx, 1) || grow(&val, 1))
                goto oom;
            ((int *)idx.p)[idx.len++] = (int)(k - 1);
            ((double *)val.p)[val.len++] = v;
            prev = k;
            if (k > nmax)
                nmax = (int)k;
        }
        p = eol + 1;
    }
    if (line_err) *line_err = rc != FSVC_OK; /* a line's error, not the whole's */
    if (rc == FSVC_OK && ys.len == 0)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: no samples (empty file)", name);
    if (rc == FSVC_OK) {
        int n = n_features > 0 ? n_features : nmax;
        int sparse = want_sparse(storage, (uint64_t)ys.len, n, (uint64_t)idx.len);
        if (n == 0)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: no features on any line", name);
        else if (!sparse && o->dense_max_n > 0 && n > o->dense_max_n)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: %d features; dense data holds at most %d "
                           "(read it sparse: --sparse)", name, n, o->dense_max_n);
        else if (sparse && ps.big_line && o->sparse_finite) /* make_csr would store +-Inf */
            rc = fsvc_fail(err, FSVC_EINPUT, "%s:%lld: value '%s' is beyond float32's range "
                           "(+-3.4e38): sparse data holds float32 values (read it --dense, "
                           "with --dtype f64)", name, (long long)ps.big_line, ps.big);
        else if (sparse) {
            ((size_t *)rows.p)[rows.len] = idx.len;
            if (make_csr(d, ys.len, rows.p, idx.p, val.p))
                goto oom;
            d->N = (int64_t)ys.len;
            d->n = n;
            d->dtype = FSVC_F32;
            d->y = ys.p;
            ys.p = NULL;
            d->has_labels = 1;
        } else if ((rc = check_dense(name, (uint64_t)ys.len, n, nmax, (uint64_t)idx.len,
                                     max_bytes, err)) == FSVC_OK) {
            double *x = calloc(ys.len * (size_t)n, sizeof *x);
            if (!x)
                goto oom;
            ((size_t *)rows.p)[rows.len] = idx.len;
            const size_t *r = rows.p;
            const int *ix = idx.p;
            const double *vv = val.p;
            for (size_t i = 0; i < ys.len; i++)
                for (size_t e = r[i]; e < r[i + 1]; e++)
                    x[i * (size_t)n + (size_t)ix[e]] = vv[e];
            d->x = x;
            d->N = (int64_t)ys.len;
            d->n = n;
            d->dtype = FSVC_F64;
            d->y = ys.p;
            ys.p = NULL;
            d->has_labels = 1;
        }
    }
    free(ys.p);
    free(rows.p);
    free(idx.p);
    free(val.p);
    if (rc == FSVC_OK && (rc = fsvc_dataset_index_classes(d, err)) == FSVC_OK)
        return FSVC_OK;
    fsvc_dataset_free(d);
    return rc;
oom:
    free(ys.p);
    free(rows.p);
    free(idx.p);
    free(val.p);
    fsvc_dataset_free(d);
    return fsvc_fail(err, FSVC_ERESOURCE, "%s:%lld: out of memory", name,
                     (long long)ps.line);
}

/* The text of a gzip file: inflated whole into *out (NUL-terminated), the
 * buffer growing with the data (from 1 MiB, doubling) up to max_bytes, so
 * a small bomb costs what it inflates to, never more than the limit. */
static int inflate_all(unsigned char **out, size_t *outlen, const unsigned char *buf,
                       size_t len, const char *path, uint64_t max_bytes, fsvc_error *err)
{
    ds_src s;
    int rc = ds_src_open(&s, buf, len, path, err);
    if (rc)
        return rc;
    size_t cap = (size_t)1 << 20, have = 0;
    unsigned char *t = malloc(cap + 1);
    for (;;) {
        if (!t) {
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for %zu bytes of "
                           "inflated text", path, cap);
            break;
        }
        size_t got;
        if ((rc = ds_src_read(&s, t + have, cap - have, &got, err)))
            break;
        have += got;
        if (have < cap)
            break;
        if ((uint64_t)cap >= max_bytes) {
            char lim[80];
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: inflated text exceeds the load limit (%s)",
                           path, ds_limit_text(lim, sizeof lim, max_bytes));
            break;
        }
        size_t nc = (uint64_t)cap * 2 < max_bytes ? cap * 2 : (size_t)max_bytes;
        unsigned char *p = realloc(t, nc + 1);
        if (!p)
            free(t);
        t = p;
        cap = nc;
    }
    ds_src_close(&s);
    if (rc) {
        free(t);
        return rc;
    }
    t[have] = 0;
    *out = t;
    *outlen = have;
    return FSVC_OK;
}

int ds_libsvm_parse_file(fsvc_dataset *d, const unsigned char *buf, size_t len,
                         const char *path, int n_features, uint64_t max_bytes,
                         fsvc_error *err)
{
    fsvc_load_opts o = {0};
    o.n_features = n_features;
    return ds_libsvm_parse_file_opt(d, buf, len, path, &o, max_bytes, err);
}

int ds_libsvm_parse_file_opt(fsvc_dataset *d, const unsigned char *buf, size_t len,
                             const char *path, const fsvc_load_opts *o, uint64_t max_bytes,
                             fsvc_error *err)
{
    ds_dataset_init(d, path);
    unsigned char *text = NULL;
    int rc;
    if (ds_is_gzip(buf, len)) { /* gzipped LIBSVM text, as gzipped IDX */
        if ((rc = inflate_all(&text, &len, buf, len, path, max_bytes, err)))
            return rc;
        buf = text;
    }
    if (memchr(buf, 0, len))
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: binary data (a NUL byte), not LIBSVM text "
                       "nor IDX nor a PNG folder", path);
    else
        rc = ds_libsvm_parse_opt(d, (const char *)buf, len, path, o, max_bytes, err);
    free(text);
    return rc;
}

int ds_libsvm_load(fsvc_dataset *d, const char *path, const fsvc_load_opts *o,
                   fsvc_error *err)
{
    ds_dataset_init(d, path);
    unsigned char *buf;
    size_t len;
    int rc = ds_read_file(&buf, &len, path, err);
    if (rc)
        return rc;
    rc = ds_libsvm_parse_file_opt(d, buf, len, path, o, ds_max_bytes(), err);
    free(buf);
    return rc;
}
