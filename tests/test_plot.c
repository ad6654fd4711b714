/* test_plot.c - the plotting helper of tools/ (built into this test from
 * its source): the Pareto front; texts reaching gnuplot only as inert
 * single-quoted strings (checked with the real gnuplot: no `command`,
 * system() or @macro ever runs); PNGs drawn; the PNG check; gnuplot's
 * failures (exit status, stderr, a cut or empty PNG, gnuplot missing) as
 * errors naming the file, with nothing left at the path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/plot.c"
#include "tests/util/fixtures.h"

static void test_pareto(void **state)
{
    (void)state;
    /* time (minimise), accuracy (maximise) */
    const double t[] = {1.0, 2.0, 0.5, 3.0, 2.0, NAN, 4.0, 0.5};
    const double a[] = {90., 95., 80., 94., 95., 99., 97., 80.};
    int front[8];
    int n = plot_pareto(front, t, a, 8);
    /* 0.5/80 (first of the two equal points), 1/90, 2/95 (first), 4/97 */
    assert_int_equal(n, 4);
    assert_int_equal(front[0], 2);
    assert_int_equal(front[1], 0);
    assert_int_equal(front[2], 1);
    assert_int_equal(front[3], 6);
    for (int i = 1; i < n; i++) {
        assert_true(t[front[i]] > t[front[i - 1]]);
        assert_true(a[front[i]] > a[front[i - 1]]);
    }
    assert_int_equal(plot_pareto(front, t, a, 0), 0);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *b = malloc(1 << 22);
    *len = b ? fread(b, 1, 1 << 22, f) : 0;
    fclose(f);
    return b;
}

static int is_png(const char *path)
{
    size_t n;
    unsigned char *b = slurp(path, &n);
    int ok = b && plot_png_check(b, n, NULL, 0) == 0;
    free(b);
    return ok;
}

/* Files in dir (to see that nothing but the expected is there). */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

/* Texts with every gnuplot quoting hazard: run through plot_gp_string into
 * `print` commands of the real gnuplot, they come out as plain text (control
 * characters dropped, bad UTF-8 as '?') and run nothing. */
static void test_gp_string(void **state)
{
    (void)state;
    if (!plot_available()) { skip(); return; }
    char *dir = fx_tmpdir();
    assert_non_null(dir);
    char in[12][400], want[12][400];
    int n = 0;
#define CASE(text, expect) do { snprintf(in[n], sizeof in[n], "%s", text); \
        snprintf(want[n], sizeof want[n], "%s", expect); n++; } while (0)
    char t[400], w[400];
    snprintf(t, sizeof t, "a`touch %s/X1`b", dir);
    CASE(t, t);
    snprintf(t, sizeof t, "system(\"touch %s/X2\") and `touch %s/X3`", dir, dir);
    CASE(t, t);
    snprintf(t, sizeof t, "it's '; @m; print '");
    CASE(t, t);                                  /* breaking out would run the macro */
    snprintf(t, sizeof t, "\"; @m; print \"");
    CASE(t, t);
    CASE("@m and @@m", "@m and @@m");
    CASE("x\\\\' y \\", "x\\\\' y \\");         /* backslashes are plain in '...' */
    CASE("semi; # hash {^_} $1", "semi; # hash {^_} $1");
    CASE("two\nlines", "two\nlines");
    CASE("ctl\x01\x1b[31m\r\tx\x7f", "ctl[31mx");
    CASE("bad \xff\xc3 utf8 \xc3\xa9 ok", "bad ?? utf8 \xc3\xa9 ok");
    CASE("", "");
    snprintf(w, sizeof w, "'");
    CASE(w, w);
#undef CASE
    /* a macro that would touch X4 if any text escaped its quotes */
    char *prog = NULL;
    size_t plen = 0;
    FILE *g = open_memstream(&prog, &plen);
    fprintf(g, "set print '-'\nm = \"print system('touch %s/X4')\"\n", dir);
    for (int i = 0; i < n; i++) {
        fputs("print ", g);
        plot_gp_string(g, in[i]);
        fputc('\n', g);
    }
    fclose(g);
    char *out = NULL, emsg[240];
    size_t olen = 0;
    fsvc_error err;
    if (run_gnuplot("test", prog, plen, &out, &olen, emsg, sizeof emsg, &err))
        fail_msg("%s", err.msg);
    char *line = out;
    for (int i = 0; i < n; i++) {
        size_t wl = strlen(want[i]);
        assert_true(olen - (size_t)(line - out) > wl);
        if (memcmp(line, want[i], wl) || line[wl] != '\n')
            fail_msg("case %d: got '%.*s', want '%s'", i, (int)wl + 1, line, want[i]);
        line += wl + 1;
    }
    assert_int_equal((size_t)(line - out), olen);
    assert_int_equal(count_files(dir), 0);       /* no X1..X4 */
    free(out);
    free(prog);
    fx_rmtree(dir);
    free(dir);
}

static void test_png(void **state)
{
    (void)state;
    if (!plot_available()) { skip(); return; }
    char *dir = fx_tmpdir(), path[600];
    assert_non_null(dir);
    fsvc_error err;
    /* a name and texts gnuplot would otherwise interpret */
    fx_join(path, sizeof path, dir, "a 'quoted' \"name\" `touch X` @m.png");
    const double x[] = {3, 1, 2}, y[] = {30, 10, 20}, e[] = {1, 1, 2};
    plot_series s[2] = {{"it's a \"series\" `touch Y`", x, y, NULL, 3, NULL, NULL},
                        {"with errors", x, y, e, 3, NULL, "dt 2"}};
    plot_spec sp = {"title\nsecond line system(\"touch Z\")", "x (s)", "y (%)", 1, 1, 400, 300,
                    "top left"};
    assert_int_equal(plot_png(path, &sp, s, 2, &err), FSVC_OK);
    assert_true(is_png(path));
    assert_int_equal(count_files(dir), 1);       /* the PNG, no temporary file */
    /* no finite data (or none > 0 on a log axis): PLOT_EMPTY, no file */
    fx_join(path, sizeof path, dir, "empty.png");
    const double z[] = {0, -1, NAN};
    plot_series s0 = {"none", z, y, NULL, 3, NULL, NULL};
    assert_int_equal(plot_png(path, &sp, &s0, 1, &err), PLOT_EMPTY);
    assert_non_null(strstr(err.msg, "no data"));
    assert_false(fx_exists(path));
    /* gnuplot rejecting the program: its exit status and error line */
    plot_series sb = {"bad", x, y, NULL, 3, "nosuchstyle", NULL};
    plot_spec lin = {"t", "x", "y", 0, 0, 0, 0, NULL};
    fx_join(path, sizeof path, dir, "bad.png");
    assert_int_equal(plot_png(path, &lin, &sb, 1, &err), FSVC_ERESOURCE);
    assert_non_null(strstr(err.msg, "bad.png: gnuplot failed (exit status"));
    assert_non_null(strstr(err.msg, "unrecognized plot type"));
    assert_null(strchr(err.msg, '\n'));
    assert_false(fx_exists(path));
    assert_int_equal(count_files(dir), 1);
    fx_rmtree(dir);
    free(dir);
}

/* A PNG from libpng, then every way to spoil it. */
static void test_png_check(void **state)
{
    (void)state;
    char *dir = fx_tmpdir(), path[600], why[80];
    assert_non_null(dir);
    fx_join(path, sizeof path, dir, "ok.png");
    uint8_t pix[4 * 3 * 3];
    for (size_t i = 0; i < sizeof pix; i++) pix[i] = (uint8_t)(i * 37);
    assert_int_equal(fx_write_png(path, 4, 3, 2, 8, pix, NULL, 0), 0);
    size_t n;
    unsigned char *b = slurp(path, &n);
    assert_non_null(b);
    assert_int_equal(plot_png_check(b, n, why, sizeof why), 0);
    /* every cut: no IEND or a chunk cut short */
    for (size_t k = 0; k < n; k++)
        assert_int_equal(plot_png_check(b, k, why, sizeof why), -1);
    assert_int_equal(plot_png_check(b, 0, why, sizeof why), -1);
    assert_string_equal(why, "no PNG signature");
    /* a flipped bit anywhere after the signature: a CRC (or length) error */
    for (size_t k = 8; k < n; k++) {
        b[k] ^= 0x10;
        assert_int_equal(plot_png_check(b, n, why, sizeof why), -1);
        b[k] ^= 0x10;
    }
    /* data after IEND */
    unsigned char *big = malloc(n + 3);
    memcpy(big, b, n);
    memcpy(big + n, "xyz", 3);
    assert_int_equal(plot_png_check(big, n + 3, why, sizeof why), -1);
    assert_string_equal(why, "data after IEND");
    /* a zero width with a correct CRC: no valid IHDR */
    memcpy(big, b, n);
    memset(big + 16, 0, 4);
    uint32_t c = (uint32_t)crc32(crc32(0, NULL, 0), big + 12, 17);
    big[29] = (unsigned char)(c >> 24); big[30] = (unsigned char)(c >> 16);
    big[31] = (unsigned char)(c >> 8); big[32] = (unsigned char)c;
    assert_int_equal(plot_png_check(big, n, why, sizeof why), -1);
    assert_string_equal(why, "no valid IHDR chunk first");
    free(big);
    free(b);
    fx_rmtree(dir);
    free(dir);
}

/* A stand-in gnuplot on PATH: what it gets (no shell, no path in the
 * program) and each way it can fail. */
static void test_fake_gnuplot(void **state)
{
    (void)state;
    char *dir = fx_tmpdir(), bin[600], out[600], path[600], script[2400], good[600];
    assert_non_null(dir);
    fx_join(bin, sizeof bin, dir, "bin");
    fx_join(out, sizeof out, dir, "out");
    assert_int_equal(mkdir(bin, 0777), 0);
    assert_int_equal(mkdir(out, 0777), 0);
    char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", bin, 1);
    assert_false(plot_available());
    fx_join(path, sizeof path, out, "p.png");
    const double x[] = {1, 2}, y[] = {3, 4};
    plot_series s = {"s", x, y, NULL, 2, NULL, NULL};
    plot_spec sp = {"title", "x", "y", 0, 0, 200, 100, NULL};
    fsvc_error err;
    /* gnuplot missing */
    assert_int_equal(plot_png(path, &sp, &s, 1, &err), FSVC_ERESOURCE);
    assert_non_null(strstr(err.msg, "p.png: cannot run gnuplot"));
    /* a valid PNG to hand out, and an old file at the path that must stay */
    fx_join(good, sizeof good, dir, "good.png");
    uint8_t pix[2 * 2 * 3] = {0};
    assert_int_equal(fx_write_png(good, 2, 2, 2, 8, pix, NULL, 0), 0);
    assert_int_equal(fx_write_text(path, "old"), 0);
    static const struct { const char *body, *msg; } cases[] = {
        {"echo 'gnuplot> plot x' >&2; echo '  ^' >&2; echo '  line 0: boom' >&2; exit 1",
         "gnuplot failed (exit status 1): line 0: boom"},
        {"kill -9 $$", "gnuplot failed (killed by signal 9)"},
        {"head -c 60 \"$GOOD\"", "gnuplot wrote no valid PNG (a chunk cut short, 60 bytes)"},
        {"echo 'cannot open output' >&2", "gnuplot wrote no valid PNG (no PNG signature, 0 bytes): cannot open output"},
        {"cat \"$GOOD\"; echo junk", "gnuplot wrote no valid PNG (data after IEND"},
    };
    char fake[700];
    fx_join(fake, sizeof fake, bin, "gnuplot");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(script, sizeof script, "#!/bin/sh\nPATH=/usr/bin:/bin\nGOOD='%s'\ncat > /dev/null\n%s\n", good,
                 cases[i].body);
        assert_int_equal(fx_write_text(fake, script), 0);
        assert_int_equal(chmod(fake, 0755), 0);
        assert_true(plot_available());
        fsvc_error_clear(&err);
        assert_int_equal(plot_png(path, &sp, &s, 1, &err), FSVC_ERESOURCE);
        if (!strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: '%s' does not hold '%s'", i, err.msg, cases[i].msg);
        assert_non_null(strstr(err.msg, path));
        assert_null(strchr(err.msg, '\n'));
        size_t n;
        unsigned char *b = slurp(path, &n);             /* the old file, untouched */
        assert_true(b && n == 3 && !memcmp(b, "old", 3));
        free(b);
        assert_int_equal(count_files(out), 1);          /* no temporary file left */
    }
    /* success: what gnuplot was given (argv, the program on stdin) */
    char prog[700], args[700];
    fx_join(prog, sizeof prog, dir, "prog.gp");
    fx_join(args, sizeof args, dir, "args");
    snprintf(script, sizeof script, "#!/bin/sh\nPATH=/usr/bin:/bin\necho \"$0|$*\" > '%s'\ncat > '%s'\ncat '%s'\n",
             args, prog, good);
    assert_int_equal(fx_write_text(fake, script), 0);
    assert_int_equal(plot_png(path, &sp, &s, 1, &err), FSVC_OK);
    assert_true(is_png(path));
    size_t n;
    char *a = (char *)slurp(args, &n), *p = (char *)slurp(prog, &n);
    assert_true(a && p);
    p[n] = 0;
    assert_non_null(strstr(a, "gnuplot|-d"));           /* exec'd directly, -d */
    assert_null(strstr(p, "p.png"));                    /* the path is not in the program */
    assert_null(strstr(p, dir));
    assert_non_null(strstr(p, "set output\n"));         /* to stdout */
    assert_non_null(strstr(p, "set title ('title')"));
    free(a);
    free(p);
    if (old_path) { setenv("PATH", old_path, 1); free(old_path); }
    else unsetenv("PATH");
    fx_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pareto),
        cmocka_unit_test(test_gp_string),
        cmocka_unit_test(test_png),
        cmocka_unit_test(test_png_check),
        cmocka_unit_test(test_fake_gnuplot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
