/* plot.c - PNG plots by running gnuplot (pngcairo) without a shell: the
 * program on its stdin and the PNG on its stdout, both in memory; the PNG
 * is checked, then written through ds_tmp_* (see plot.h). */
#include "tools/plot.h"
#include "datasets/datasets.h"  /* ds_tmp_*: temporary file + rename */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

extern char **environ;

#define GNUPLOT_SECONDS 300            /* a plot takes well under a second */
#define PNG_MAX_BYTES ((size_t)256 << 20)

int plot_available(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        char *f = malloc(l + 10);
        if (f) {                              /* an empty entry is "." */
            snprintf(f, l + 10, "%.*s/gnuplot", l ? (int)l : 1, l ? p : ".");
            struct stat st;
            int ok = stat(f, &st) == 0 && S_ISREG(st.st_mode) && access(f, X_OK) == 0;
            free(f);
            if (ok) return 1;
        }
        if (!end) return 0;
        p = end + 1;
    }
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 if none. */
static int utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    int n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!n) return 0;
    unsigned char lo = 0x80, hi = 0xBF;     /* the second byte: no overlong, surrogate, > U+10FFFF */
    if (c == 0xE0) lo = 0xA0;
    else if (c == 0xED) hi = 0x9F;
    else if (c == 0xF0) lo = 0x90;
    else if (c == 0xF4) hi = 0x8F;
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

void plot_gp_string(FILE *g, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    fputs("('", g);
    while (*s) {
        if (*s == '\n') {
            fputs("'.\"\\n\".'", g);           /* a line break: 'a'."\n".'b' */
            s++;
        } else if (*s < 0x20 || *s == 0x7f) {
            s++;                               /* control characters dropped */
        } else if (*s == '\'') {
            fputs("'.\"'\".'", g);            /* 'it'."'".'s': gnuplot's '' fails
                                                   at the start of a string */
            s++;
        } else {
            int n = utf8_len(s);
            if (n) fwrite(s, 1, (size_t)n, g);
            else fputc('?', g);
            s += n ? n : 1;
        }
    }
    fputs("')", g);
}

/* Indices 0..n-1 of a series in increasing x (insertion sort, stable). */
static void order_by_x(int *ord, const double *x, int n)
{
    for (int i = 0; i < n; i++) ord[i] = i;
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && x[ord[b]] < x[ord[b - 1]]; b--) {
            int t = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = t;
        }
}

static int drawable(const plot_spec *spec, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!spec->logx || x > 0) && (!spec->logy || y > 0);
}

/* The gnuplot program: settings, the plot command, the inline data. */
static void program(FILE *g, const plot_spec *spec, const plot_series *s, int ns)
{
    fprintf(g, "set terminal pngcairo size %d,%d noenhanced font 'sans,11'\nset output\n",
            spec->width > 0 ? spec->width : 900, spec->height > 0 ? spec->height : 600);
    fputs("set title ", g); plot_gp_string(g, spec->title); fputc('\n', g);
    fputs("set xlabel ", g); plot_gp_string(g, spec->xlabel); fputc('\n', g);
    fputs("set ylabel ", g); plot_gp_string(g, spec->ylabel); fputc('\n', g);
    fputs("set grid\nset key box opaque\n", g);
    if (spec->key) fprintf(g, "set key %s\n", spec->key);
    if (spec->logx) fputs("set logscale x\nset format x '%g'\n", g);
    if (spec->logy) fputs("set logscale y\nset format y '%g'\n", g);
    fputs("plot ", g);
    int first = 1;
    for (int k = 0; k < ns; k++) {
        if (s[k].n <= 0) continue;
        if (!first) fputs(", ", g);
        first = 0;
        if (s[k].yerr)
            fputs("'-' using 1:2:3 with yerrorlines", g);
        else
            fprintf(g, "'-' using 1:2 with %s", s[k].style ? s[k].style : "linespoints");
        if (s[k].extra) fprintf(g, " %s", s[k].extra);
        if (s[k].title) { fputs(" title ", g); plot_gp_string(g, s[k].title); }
        else fputs(" notitle", g);
    }
    fputc('\n', g);
    for (int k = 0; k < ns; k++) {
        if (s[k].n <= 0) continue;
        int *ord = malloc((size_t)s[k].n * sizeof *ord);
        if (ord) order_by_x(ord, s[k].x, s[k].n);
        for (int t = 0; t < s[k].n; t++) {
            int i = ord ? ord[t] : t;
            if (!drawable(spec, s[k].x[i], s[k].y[i])) continue;
            if (s[k].yerr) fprintf(g, "%.10g %.10g %.10g\n", s[k].x[i], s[k].y[i], s[k].yerr[i]);
            else fprintf(g, "%.10g %.10g\n", s[k].x[i], s[k].y[i]);
        }
        free(ord);
        fputs("e\n", g);
    }
    fputs("unset output\n", g);
}

/* An unnamed file in memory (or in /tmp if memfd is missing), as an fd
 * above 2 so that the dup2s onto gnuplot's 0, 1, 2 cannot clash. */
static int anon_fd(void)
{
    int fd = memfd_create("fsvc-plot", MFD_CLOEXEC);
    if (fd < 0) fd = open(P_tmpdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 && fd < 3) {
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        fd = hi;
    }
    return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The whole content of fd (at most max bytes); -1 and errno (EFBIG: over
 * max) when it cannot. */
static int read_all(int fd, char **buf, size_t *len, size_t max)
{
    struct stat st;
    *buf = NULL;
    *len = 0;
    if (fstat(fd, &st) != 0) return -1;
    if ((uint64_t)st.st_size > max) { errno = EFBIG; return -1; }
    size_t n = (size_t)st.st_size, got = 0;
    char *b = malloc(n + 1);
    if (!b) { errno = ENOMEM; return -1; }
    while (got < n) {
        ssize_t r = pread(fd, b + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    b[got] = 0;
    *buf = b;
    *len = got;
    return 0;
}

/* gnuplot's first error line: not the echo of the command ("gnuplot> ..."),
 * not the caret line, warnings only when nothing else. */
static void first_error(char *out, size_t len, const char *text)
{
    out[0] = 0;
    for (int pass = 0; pass < 2 && !out[0]; pass++)
        for (const char *l = text; *l;) {
            const char *e = strchr(l, '\n');
            size_t n = e ? (size_t)(e - l) : strlen(l);
            while (n && (*l == ' ' || *l == '\t')) { l++; n--; }
            int skip = !n || !strncmp(l, "gnuplot>", 8) || *l == '^' ||
                       (pass == 0 && (memmem(l, n, "arning", 6) != NULL));
            if (!skip) {
                size_t k = n < len - 1 ? n : len - 1;
                for (size_t i = 0; i < k; i++)
                    out[i] = (unsigned char)l[i] < 0x20 ? ' ' : l[i];
                out[k] = 0;
                break;
            }
            if (!e) break;
            l = e + 1;
        }
}

/* Runs gnuplot on prog; *png: its standard output. Returns FSVC_OK (and
 * gnuplot's stderr in emsg when it exited 0) or an error naming path. */
static int run_gnuplot(const char *path, const char *prog, size_t plen, char **png,
                       size_t *pnglen, char *emsg, size_t elen, fsvc_error *err)
{
    *png = NULL;
    *pnglen = 0;
    emsg[0] = 0;
    int in = anon_fd(), out = anon_fd(), er = anon_fd(), rc = FSVC_OK;
    if (in < 0 || out < 0 || er < 0 || write_all(in, prog, plen) || lseek(in, 0, SEEK_SET) != 0) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot make the gnuplot input: %s", path,
                       strerror(errno));
        goto done;
    }
    /* every action is checked: one lost to ENOMEM would leave gnuplot
     * reading fsvc's own stdin */
    posix_spawn_file_actions_t fa;
    int e = posix_spawn_file_actions_init(&fa);
    if (e) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot run gnuplot: %s", path, strerror(e));
        goto done;
    }
    if (!e) e = posix_spawn_file_actions_adddup2(&fa, in, 0);
    if (!e) e = posix_spawn_file_actions_adddup2(&fa, out, 1);
    if (!e) e = posix_spawn_file_actions_adddup2(&fa, er, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    if (!e) e = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    char *argv[] = {"gnuplot", "-d", NULL};    /* -d: no ~/.gnuplot */
    pid_t pid;
    if (!e) e = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot run gnuplot: %s%s", path, strerror(e),
                       e == ENOENT ? " (apt-get install gnuplot-nox)" : "");
        goto done;
    }
    int st = 0;
    struct timespec nap = {0, 5000000};
    for (long waited = 0;; waited++) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) { st = -1; break; }
        if (waited > GNUPLOT_SECONDS * 200L) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: gnuplot ran over %d s and was stopped",
                           path, GNUPLOT_SECONDS);
            goto done;
        }
        nanosleep(&nap, NULL);
    }
    char *etext = NULL;
    size_t el;
    if (read_all(er, &etext, &el, (size_t)1 << 20) == 0) first_error(emsg, elen, etext);
    free(etext);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char how[64];
        if (st != -1 && WIFSIGNALED(st)) snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(st));
        else if (st != -1) snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(st));
        else snprintf(how, sizeof how, "lost");
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: gnuplot failed (%s)%s%s", path, how,
                       emsg[0] ? ": " : "", emsg);
        goto done;
    }
    if (read_all(out, png, pnglen, PNG_MAX_BYTES))
        rc = errno == ENOMEM
                 ? fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory reading gnuplot's output", path)
                 : fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot read gnuplot's output: %s", path,
                             strerror(errno));
done:
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    if (er >= 0) close(er);
    return rc;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int plot_png_check(const unsigned char *b, size_t len, char *why, size_t whylen)
{
    const char *bad = NULL;
    if (len < 8 || memcmp(b, "\x89PNG\r\n\x1a\n", 8)) bad = "no PNG signature";
    size_t pos = 8;
    int chunks = 0, end = 0;
    while (!bad && !end) {
        if (len - pos < 12) { bad = len == pos ? "no IEND chunk (cut short)" : "a chunk cut short"; break; }
        uint32_t n = be32(b + pos);
        if (n > 0x7fffffffu || len - pos - 12 < n) { bad = "a chunk cut short"; break; }
        const unsigned char *type = b + pos + 4;
        if (!chunks && (memcmp(type, "IHDR", 4) || n != 13 || !be32(type + 4) || !be32(type + 8)))
            bad = "no valid IHDR chunk first";
        else if (crc32(crc32(0, NULL, 0), type, n + 4) != be32(type + 4 + n))
            bad = "a chunk with a wrong CRC";
        end = !memcmp(type, "IEND", 4);
        pos += 12 + (size_t)n;
        chunks++;
    }
    if (!bad && pos != len) bad = "data after IEND";
    if (bad && why && whylen) snprintf(why, whylen, "%s", bad);
    return bad ? -1 : 0;
}

/* Runs the gnuplot program written by emit(g, ctx), checks the PNG and
 * writes it to path through ds_tmp_*. */
int plot_render(const char *path, void (*emit)(FILE *, const void *), const void *ctx,
                fsvc_error *err)
{
    char *prog = NULL, *png = NULL, emsg[240], why[80];
    size_t plen = 0, pnglen = 0;
    FILE *g = open_memstream(&prog, &plen);
    if (!g) return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    emit(g, ctx);
    if ((ferror(g) | fclose(g)) || !prog) { /* !prog: fclose's own allocation failed */
        free(prog);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    }
    int rc = run_gnuplot(path, prog, plen, &png, &pnglen, emsg, sizeof emsg, err);
    free(prog);
    if (rc) return rc;
    if (plot_png_check((const unsigned char *)png, pnglen, why, sizeof why)) {
        free(png);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: gnuplot wrote no valid PNG (%s, %zu bytes)%s%s",
                         path, why, pnglen, emsg[0] ? ": " : "", emsg);
    }
    size_t tl = strlen(path) + 64;
    char *tmp = malloc(tl);
    FILE *f = NULL;
    if (!tmp) rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    else rc = ds_tmp_open(&f, tmp, tl, path, err);
    if (!rc && fwrite(png, 1, pnglen, f) != pnglen) {
        int e = errno;
        ds_tmp_abort(f, tmp);
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: write error: %s", path, strerror(e));
    } else if (!rc) {
        rc = ds_tmp_commit(f, tmp, path, err);
    }
    free(tmp);
    free(png);
    return rc;
}


struct xy_args { const plot_spec *spec; const plot_series *s; int ns; };

static void emit_xy(FILE *g, const void *ctx)
{
    const struct xy_args *a = ctx;
    program(g, a->spec, a->s, a->ns);
}

int plot_png(const char *path, const plot_spec *spec, const plot_series *s,
             int ns, fsvc_error *err)
{
    int any = 0;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) any |= drawable(spec, s[k].x[i], s[k].y[i]);
    if (!any) {
        fsvc_fail(err, FSVC_OK, "%s: no data to plot", path);
        return PLOT_EMPTY;
    }
    struct xy_args xa = {spec, s, ns};
    return plot_render(path, emit_xy, &xa, err);
}

/* The tics of one heat map axis: the labels at 0, 1, ... */
static void heat_tics(FILE *g, const char *axis, const char *const *lab, int n)
{
    fprintf(g, "set %stics (", axis);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", g);
        plot_gp_string(g, lab[i]);
        fprintf(g, " %d", i);
    }
    fprintf(g, ")\nset %srange [-0.5:%g]\n", axis, n - 0.5);
}

static void emit_heat(FILE *g, const void *ctx)
{
    const plot_heat *h = ctx;
    fprintf(g, "set terminal pngcairo size %d,%d noenhanced font 'sans,11'\nset output\n",
            h->nx > 12 ? 60 * h->nx + 200 : 900, h->ny > 10 ? 50 * h->ny + 150 : 600);
    fputs("set title ", g); plot_gp_string(g, h->title); fputc('\n', g);
    fputs("set xlabel ", g); plot_gp_string(g, h->xlabel); fputc('\n', g);
    fputs("set ylabel ", g); plot_gp_string(g, h->ylabel); fputc('\n', g);
    fputs("set cblabel ", g); plot_gp_string(g, h->zlabel); fputc('\n', g);
    heat_tics(g, "x", h->xtics, h->nx);
    heat_tics(g, "y", h->ytics, h->ny);
    fputs("set palette rgbformulae 22,13,10\nunset key\n"
          "plot '-' using 1:2:(0.5):(0.5):3 with boxxyerror fill solid 1.0 noborder "
          "fc palette, '-' using 1:2:3 with labels\n", g);
    for (int j = 0; j < h->ny; j++)
        for (int i = 0; i < h->nx; i++)
            if (isfinite(h->z[(size_t)j * h->nx + i]))
                fprintf(g, "%d %d %.10g\n", i, j, h->z[(size_t)j * h->nx + i]);
    fputs("e\n", g);
    for (int j = 0; j < h->ny; j++)
        for (int i = 0; i < h->nx; i++) {
            double z = h->z[(size_t)j * h->nx + i];
            if (isfinite(z)) fprintf(g, "%d %d \"%.2f\"\n", i, j, z);
            else if (h->failed && h->failed[(size_t)j * h->nx + i])
                fprintf(g, "%d %d \"failed\"\n", i, j);
        }
    fputs("e\nunset output\n", g);
}

int plot_heatmap(const char *path, const plot_heat *h, fsvc_error *err)
{
    int any = 0;
    for (size_t q = 0; q < (size_t)h->nx * h->ny; q++) any |= isfinite(h->z[q]);
    if (!any || h->nx < 1 || h->ny < 1) {
        fsvc_fail(err, FSVC_OK, "%s: no data to plot", path);
        return PLOT_EMPTY;
    }
    return plot_render(path, emit_heat, h, err);
}

int plot_pareto(int *front, const double *x, const double *y, int n)
{
    int cnt = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) continue;
        int dominated = 0;
        for (int j = 0; j < n && !dominated; j++) {
            if (j == i || !isfinite(x[j]) || !isfinite(y[j])) continue;
            if (x[j] <= x[i] && y[j] >= y[i] && (x[j] < x[i] || y[j] > y[i]))
                dominated = 1;
            /* equal points: keep the first only */
            if (x[j] == x[i] && y[j] == y[i] && j < i) dominated = 1;
        }
        if (!dominated) front[cnt++] = i;
    }
    /* insertion sort by x */
    for (int a = 1; a < cnt; a++)
        for (int b = a; b > 0 && x[front[b]] < x[front[b - 1]]; b--) {
            int t = front[b];
            front[b] = front[b - 1];
            front[b - 1] = t;
        }
    return cnt;
}
