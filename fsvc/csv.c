/* csv.c - RFC 4180 CSV: a quoting row writer and a reader of quoted fields
 * (see csv.h). */
#include "csv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- writing ---- */

static int reserve(fsvc_csv_out *o, size_t more)
{
    if (o->oom) return -1;
    if (o->len + more + 1 <= o->cap) return 0;
    size_t cap = o->cap ? o->cap : 256;
    while (cap < o->len + more + 1) {
        if (cap > ((size_t)-1) / 2) { o->oom = 1; return -1; }
        cap *= 2;
    }
    char *s = realloc(o->s, cap);
    if (!s) { o->oom = 1; return -1; }
    o->s = s;
    o->cap = cap;
    return 0;
}

static void put(fsvc_csv_out *o, const char *s, size_t n)
{
    if (reserve(o, n)) return;
    memcpy(o->s + o->len, s, n);
    o->len += n;
    o->s[o->len] = 0;
}

void fsvc_csv_field(fsvc_csv_out *o, const char *s)
{
    if (!s) s = "";
    int first = !o->fields++;
    if (!first) put(o, ",", 1);
    /* quoted: , " CR LF; a leading '#' (a comment); an empty first field
     * (a row of one empty field would read as an empty line) */
    if (s[0] ? !strpbrk(s, ",\"\r\n") && s[0] != '#' : !first) {
        put(o, s, strlen(s));
        return;
    }
    put(o, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        put(o, s, (size_t)(q - s) + 1);
        put(o, "\"", 1);                     /* " -> "" */
    }
    put(o, s, strlen(s));
    put(o, "\"", 1);
}

static char *vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

void fsvc_csv_fieldf(fsvc_csv_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    if (!s) { o->oom = 1; return; }
    fsvc_csv_field(o, s);
    free(s);
}

void fsvc_csv_endrow(fsvc_csv_out *o)
{
    put(o, "\n", 1);
    o->fields = 0;
}

void fsvc_csv_comment(fsvc_csv_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    if (!s) { o->oom = 1; return; }
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    put(o, "# ", 2);
    put(o, s, strlen(s));
    put(o, "\n", 1);
    free(s);
    o->fields = 0;
}

void fsvc_csv_reset(fsvc_csv_out *o)
{
    o->len = 0;
    o->fields = 0;
    if (o->s) o->s[0] = 0;
}

void fsvc_csv_out_free(fsvc_csv_out *o)
{
    free(o->s);
    memset(o, 0, sizeof *o);
}

/* ---- reading ---- */

void fsvc_csv_free(fsvc_csv *t)
{
    free(t->first);
    free(t->field);
    free(t->line);
    free(t->text);
    memset(t, 0, sizeof *t);
}

typedef struct parser {
    fsvc_csv *t;
    int64_t nfield, capfield, caprec;
    size_t *fstart;     /* field starts as offsets into t->text while parsing */
    const char *name;
    fsvc_error *err;
} parser;

static int add_field(parser *p, size_t start)
{
    if (p->nfield == p->capfield) {
        int64_t cap = p->capfield ? 2 * p->capfield : 64;
        size_t *f = realloc(p->fstart, (size_t)cap * sizeof *f);
        if (!f) return fsvc_fail(p->err, FSVC_ERESOURCE, "%s: out of memory", p->name);
        p->fstart = f;
        p->capfield = cap;
    }
    p->fstart[p->nfield++] = start;
    return FSVC_OK;
}

static int add_record(parser *p, int64_t first, int64_t line)
{
    fsvc_csv *t = p->t;
    if (t->nrec + 1 >= p->caprec) {
        int64_t cap = p->caprec ? 2 * p->caprec : 64;
        int64_t *f = realloc(t->first, (size_t)cap * sizeof *f);
        if (f) t->first = f;
        int64_t *l = f ? realloc(t->line, (size_t)cap * sizeof *l) : NULL;
        if (l) t->line = l;
        if (!f || !l) return fsvc_fail(p->err, FSVC_ERESOURCE, "%s: out of memory", p->name);
        p->caprec = cap;
    }
    t->first[t->nrec] = first;
    t->line[t->nrec] = line;
    t->nrec++;
    return FSVC_OK;
}

int fsvc_csv_parse(fsvc_csv *t, const char *buf, size_t len, const char *name,
                   fsvc_error *err)
{
    memset(t, 0, sizeof *t);
    if (len > FSVC_CSV_MAX_BYTES)
        return fsvc_fail(err, FSVC_EINPUT, "%s: %zu bytes, more than the %zu a study CSV may have",
                         name, len, FSVC_CSV_MAX_BYTES);
    parser p = {t, 0, 0, 0, NULL, name, err};
    /* unquoted text never grows: len bytes plus one NUL per field fit in
     * 2 len + 1 */
    t->text = malloc(2 * len + 1);
    if (!t->text) return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", name);
    size_t pos = 0, out = 0;
    int64_t line = 1;
    int rc = FSVC_OK;
#define BAD(...) do { rc = fsvc_fail(err, FSVC_EINPUT, __VA_ARGS__); goto fail; } while (0)
    while (pos < len) {
        char c = buf[pos];
        if (c == '#') {                          /* a comment line */
            const char *nl = memchr(buf + pos, '\n', len - pos);
            if (!nl) { t->partial = 1; break; }
            pos = (size_t)(nl - buf) + 1;
            line++;
            t->complete = pos;
            continue;
        }
        if (c == '\n' || (c == '\r' && pos + 1 < len && buf[pos + 1] == '\n')) {
            pos += c == '\n' ? 1 : 2;            /* an empty line */
            line++;
            t->complete = pos;
            continue;
        }
        /* a record */
        int64_t first = p.nfield, rec_line = line;
        size_t out0 = out;
        int ended = 0;
        while (!ended) {
            if (p.nfield - first >= FSVC_CSV_MAX_FIELDS)
                BAD("%s:%lld: more than %d fields", name, (long long)rec_line, FSVC_CSV_MAX_FIELDS);
            if ((rc = add_field(&p, out))) goto fail;
            if (pos < len && buf[pos] == '"') {  /* quoted field */
                pos++;
                for (;;) {
                    if (pos >= len) goto partial;
                    c = buf[pos];
                    if (c == '"') {
                        if (pos + 1 < len && buf[pos + 1] == '"') { t->text[out++] = '"'; pos += 2; continue; }
                        pos++;
                        break;
                    }
                    if (c == 0) BAD("%s:%lld: NUL byte", name, (long long)line);
                    if (c == '\n') line++;
                    t->text[out++] = c;
                    pos++;
                }
                if (pos >= len) goto partial;
                c = buf[pos];
                if (c != ',' && c != '\n' && c != '\r')
                    BAD("%s:%lld: text after a closing quote", name, (long long)line);
            } else {                             /* plain field */
                while (pos < len && (c = buf[pos]) != ',' && c != '\n' && c != '\r') {
                    if (c == '"') BAD("%s:%lld: a quote inside an unquoted field", name, (long long)line);
                    if (c == 0) BAD("%s:%lld: NUL byte", name, (long long)line);
                    t->text[out++] = c;
                    pos++;
                }
                if (pos >= len) goto partial;
            }
            t->text[out++] = 0;
            c = buf[pos];
            if (c == ',') { pos++; continue; }
            if (c == '\r') {
                if (pos + 1 >= len) goto partial;
                if (buf[pos + 1] != '\n') BAD("%s:%lld: CR without LF", name, (long long)line);
                pos++;
            }
            pos++;                               /* the LF */
            line++;
            ended = 1;
        }
        if ((rc = add_record(&p, first, rec_line))) goto fail;
        t->complete = pos;
        continue;
partial:                                         /* no line end: dropped */
        p.nfield = first;
        out = out0;
        t->partial = 1;
        break;
    }
#undef BAD
    if ((rc = add_record(&p, p.nfield, line))) goto fail;  /* the end mark */
    t->nrec--;
    t->field = malloc((size_t)(p.nfield ? p.nfield : 1) * sizeof *t->field);
    if (!t->field) { rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", name); goto fail; }
    for (int64_t i = 0; i < p.nfield; i++) t->field[i] = t->text + p.fstart[i];
    free(p.fstart);
    return FSVC_OK;
fail:
    free(p.fstart);
    fsvc_csv_free(t);
    return rc;
}

int fsvc_csv_load(fsvc_csv *t, const char *path, fsvc_error *err)
{
    memset(t, 0, sizeof *t);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return fsvc_csv_parse(t, "", 0, path, err);
        return fsvc_fail(err, errno == ENOMEM ? FSVC_ERESOURCE : FSVC_EINPUT,
                         "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fsvc_fail(err, FSVC_EINPUT, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > FSVC_CSV_MAX_BYTES) {
        close(fd);
        return fsvc_fail(err, FSVC_EINPUT, "%s: %lld bytes, more than the %zu a study CSV may have",
                         path, (long long)st.st_size, FSVC_CSV_MAX_BYTES);
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *buf = malloc(size + 1);
    if (!buf) {
        close(fd);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    }
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: read error: %s", path, strerror(e));
        }
        if (r == 0) break;                       /* shrank meanwhile: parse what is there */
        got += (size_t)r;
    }
    close(fd);
    int rc = fsvc_csv_parse(t, buf, got, path, err);
    free(buf);
    return rc;
}

int fsvc_csv_nfields(const fsvc_csv *t, int64_t r)
{
    return r >= 0 && r < t->nrec ? (int)(t->first[r + 1] - t->first[r]) : 0;
}

const char *fsvc_csv_get(const fsvc_csv *t, int64_t r, int c)
{
    return c >= 0 && c < fsvc_csv_nfields(t, r) ? t->field[t->first[r] + c] : "";
}

int fsvc_csv_col(const fsvc_csv *t, const char *name)
{
    int n = fsvc_csv_nfields(t, 0);
    for (int c = 0; c < n; c++)
        if (!strcmp(t->field[t->first[0] + c], name)) return c;
    return -1;
}
