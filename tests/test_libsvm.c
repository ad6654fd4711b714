/* test_libsvm.c - LIBSVM reader and writer: parsing, errors with file:line,
 * exact float64 round trips, no half-written output, the real satimg set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/loaders.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

static int parse(fsvc_dataset *d, const char *text, int n, fsvc_error *err)
{
    fsvc_error_clear(err);
    return ds_libsvm_parse(d, text, strlen(text), "t.txt", n, DS_MAX_BYTES, err);
}

static void test_basic(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    const char *text = "# a comment\n"
                       "1 1:0.5 3:-2\n"
                       "\n"
                       "-1 2:1e-3\t4:7 # trailing comment\r\n"
                       "  2.5\n"
                       "1 4:+3.25";
    int rc = parse(&d, text, 0, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(d.N, 4);
    assert_int_equal(d.n, 4);
    assert_int_equal(d.dtype, FSVC_F64);
    /* X: 4 x 4 */
    const double want[16] = {0.5, 0, -2, 0, 0, 1e-3, 0, 7, 0, 0, 0, 0, 0, 0, 0, 3.25};
    assert_memory_equal(d.x, want, sizeof want);
    assert_true(d.y[0] == 1 && d.y[1] == -1 && d.y[2] == 2.5 && d.y[3] == 1);
    assert_int_equal(d.K, 3);
    fsvc_dataset_free(&d);
}

static void test_last_line_and_classes(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(parse(&d, "3 1:1\n1 2:2\n3 1:4\n2 3:+3.25", 0, &err), FSVC_OK);
    assert_int_equal(d.N, 4);
    assert_int_equal(d.n, 3);
    assert_true(((double *)d.x)[3 * 3 + 2] == 3.25);
    assert_int_equal(d.K, 3);
    assert_true(d.class_values[0] == 1 && d.class_values[1] == 2 && d.class_values[2] == 3);
    assert_int_equal(d.cls[0], 2);
    assert_int_equal(d.cls[1], 0);
    assert_int_equal(d.cls[3], 1);
    fsvc_dataset_free(&d);
    /* forced n */
    assert_int_equal(parse(&d, "1 2:1\n", 5, &err), FSVC_OK);
    assert_int_equal(d.n, 5);
    fsvc_dataset_free(&d);
    assert_int_equal(parse(&d, "1 2:1\n0 6:1\n", 5, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "t.txt:2:"));
    assert_non_null(strstr(err.msg, "forced n = 5"));
    assert_null(d.x);
}

/* text -> expected FSVC_EINPUT with "t.txt:LINE:" and `want` in one line */
static void bad(const char *text, int line, const char *want)
{
    fsvc_dataset d;
    fsvc_error err;
    int rc = parse(&d, text, 0, &err);
    char loc[32];
    snprintf(loc, sizeof loc, line ? "t.txt:%d: " : "t.txt: ", line);
    if (rc != FSVC_EINPUT || !strstr(err.msg, loc) || !strstr(err.msg, want) ||
        strchr(err.msg, '\n'))
        fail_msg("'%s': rc %d, message '%s'; wanted '%s' and '%s'", text, rc, err.msg, loc,
                 want);
    assert_null(d.x);
    assert_null(d.y);
}

static void test_errors(void **state)
{
    (void)state;
    bad("1 1:1\n2 0:5\n", 2, "index 0");
    bad("1 1:1\n2 1:abc\n", 2, "value is not a number: 'abc'");
    bad("1 1:1 2:3x\n", 1, "value is not a number: '3x'");
    bad("1 1:1\n\n2 2:1 2:3\n", 3, "duplicate index in '2:3'");
    bad("1 3:1 2:1\n", 1, "descending index (after 3) in '2:1'");
    bad("1 1:1 2 3:1\n", 1, "missing ':' in '2'");
    bad("1 1:1 x:1\n", 1, "expected index:value, got 'x:1'");
    bad("one 1:1\n", 1, "label is not a number: 'one'");
    bad("1:1 2:1\n", 1, "label is not a number: '1:1'");
    bad("1 1:nan\n", 1, "NaN or Inf");
    bad("1 1:inf\n", 1, "NaN or Inf");
    bad("1 1:1e999\n", 1, "NaN or Inf");
    bad("nan 1:1\n", 1, "label is NaN");
    bad("1 1:\n", 1, "missing value");
    bad("1 1: 2\n", 1, "missing value");
    bad("1 99999999999:1\n", 1, "index too large");
    bad("", 0, "no samples (empty file)");
    bad("\n\n# only comments\n", 0, "no samples");
    bad("1\n2\n", 0, "no features");
}

static void test_size_limit(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    const char *t = "1 2000000000:1\n2 1:1\n";
    assert_int_equal(ds_libsvm_parse(&d, t, strlen(t), "big", 0, 1 << 20, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "load limit (1048576 bytes)"));
    assert_null(d.x);
}

/* Defect 8: a 15-byte file with index 1e9 asked for an 8 GB dense matrix.
 * Above 128 MiB the dense size must be justified by the values stored. */
static void test_index_out_of_proportion(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    const char *t = "1 1000000000:1\n";
    assert_int_equal(ds_libsvm_parse(&d, t, strlen(t), "tiny", 0, DS_MAX_BYTES, &err),
                     FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "tiny: dense 1 x 1000000000 matrix"));
    assert_non_null(strstr(err.msg, "out of proportion"));
    assert_null(d.x);
    /* forcing such an n is refused the same way */
    t = "1 1:1\n";
    assert_int_equal(ds_libsvm_parse(&d, t, strlen(t), "tiny", 2000000000, DS_MAX_BYTES, &err),
                     FSVC_EINPUT);
    /* sparse but justified: 5000 x 4000 (160 MB) with 10 values a row */
    size_t cap = 5000 * 10 * 12 + 5000 * 4 + 1;
    char *big = malloc(cap), *p = big;
    for (int i = 0; i < 5000; i++) {
        p += sprintf(p, "%d", i % 3);
        for (int k = 1; k <= 10; k++)
            p += sprintf(p, " %d:1", k * 400);
        *p++ = '\n';
    }
    int rc = ds_libsvm_parse(&d, big, (size_t)(p - big), "sparse", 0, DS_MAX_BYTES, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(d.n, 4000);
    fsvc_dataset_free(&d);
    free(big);
}

/* Defect 8: CR-only line ends loaded as one sample; a stray CR inside a
 * line silently ended it. LF and CRLF (also a last CR without LF) load. */
static void test_cr_line_ends(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(parse(&d, "1 1:1\r2 1:2\r3 1:3\r", 0, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "t.txt:1: carriage return inside a line"));
    assert_non_null(strstr(err.msg, "CR line ends are not supported"));
    assert_null(d.x);
    assert_int_equal(parse(&d, "1 1:1\n2 1:2\r3:4\n", 0, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "t.txt:2:"));
    assert_int_equal(parse(&d, "1 1:1\r\n2 1:2\r\n3 2:3\r", 0, &err), FSVC_OK);
    assert_int_equal(d.N, 3);
    assert_int_equal(d.n, 2);
    fsvc_dataset_free(&d);
}

/* Bit patterns of doubles that are hard to print: they must come back. */
static void test_roundtrip_exact(void **state)
{
    const char *dir = *state;
    enum { N = 40, n = 7 };
    double *x = malloc(N * n * sizeof *x), *y = malloc(N * sizeof *y);
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < N * n; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        double v;
        uint64_t bits = s;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v)) v = (double)(int64_t)s / 3.0;
        if (i % 11 == 0) v = 0.1 * (i % 5);
        if (i % 13 == 0) v = 5e-324;     /* smallest subnormal */
        if (i % 17 == 0) v = -1.7976931348623157e308;
        if (i % 19 == 0) v = 0;
        x[i] = v;
    }
    for (int i = 0; i < N; i++)
        y[i] = i % 3 == 0 ? -1 : i % 3 == 1 ? 1.5 : 7;
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = N; d.n = n; d.dtype = FSVC_F64; d.x = x; d.y = y; d.has_labels = 1;
    snprintf(d.source, sizeof d.source, "mem");
    char p[4096];
    fx_join(p, sizeof p, dir, "rt.txt");
    fsvc_error err;
    int rc = fsvc_dataset_write_libsvm(p, &d, &err);
    if (rc)
        fail_msg("%s", err.msg);
    fsvc_dataset r;
    rc = fsvc_dataset_load(&r, p, NULL, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(r.N, N);
    assert_int_equal(r.n, n);
    assert_memory_equal(r.x, x, N * n * sizeof *x);
    assert_memory_equal(r.y, y, N * sizeof *y);
    fsvc_dataset_free(&r);
    free(x);
    free(y);
}

static void test_roundtrip_u8_keeps_n(void **state)
{
    const char *dir = *state;
    uint8_t x[3 * 4] = {0, 5, 0, 0, 255, 0, 1, 0, 0, 0, 0, 0};
    double y[3] = {4, 0, 9};
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = 3; d.n = 4; d.dtype = FSVC_U8; d.x = x; d.y = y; d.has_labels = 1;
    char p[4096];
    fx_join(p, sizeof p, dir, "u8.txt");
    fsvc_error err;
    assert_int_equal(fsvc_dataset_write_libsvm(p, &d, &err), FSVC_OK);
    fsvc_dataset r;
    assert_int_equal(fsvc_dataset_load(&r, p, NULL, &err), FSVC_OK);
    assert_int_equal(r.n, 4); /* the last feature is written even when 0 */
    assert_int_equal(fsvc_dataset_convert(&r, FSVC_U8, FSVC_SCALE_NONE, &err), FSVC_OK);
    assert_memory_equal(r.x, x, sizeof x);
    fsvc_dataset_free(&r);
}

static void test_writer_leaves_nothing_on_error(void **state)
{
    const char *dir = *state;
    double x[2] = {1, NAN}, y[2] = {0, 1};
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = 2; d.n = 1; d.dtype = FSVC_F64; d.x = x; d.y = y; d.has_labels = 1;
    char p[4096];
    fx_join(p, sizeof p, dir, "nan.txt");
    fsvc_error err;
    assert_int_equal(fsvc_dataset_write_libsvm(p, &d, &err), FSVC_EINPUT);
    assert_false(fx_exists(p));
    /* an existing file stays as it was */
    assert_int_equal(fx_write_text(p, "old\n"), 0);
    assert_int_equal(fsvc_dataset_write_libsvm(p, &d, &err), FSVC_EINPUT);
    unsigned char *buf;
    size_t len;
    assert_int_equal(ds_read_file(&buf, &len, p, &err), FSVC_OK);
    assert_int_equal(len, 4);
    assert_memory_equal(buf, "old\n", 4);
    free(buf);
    /* no temporary files left in the folder */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", dir);
    assert_int_not_equal(system(cmd), 0);
    /* an unwritable place is a resource error */
    assert_int_equal(fsvc_dataset_write_libsvm("/nonexistent-dir/x.txt", &d, &err),
                     FSVC_ERESOURCE);
}

static void test_file_errors_name_the_file(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "bad.libsvm");
    assert_int_equal(fx_write_text(p, "1 1:1\n1 1:2 1:3\n"), 0);
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(fsvc_dataset_load(&d, p, NULL, &err), FSVC_EINPUT);
    char want[4200];
    snprintf(want, sizeof want, "%s:2: duplicate index", p);
    assert_non_null(strstr(err.msg, want));
    /* an empty file */
    assert_int_equal(fx_write_text(p, ""), 0);
    assert_int_equal(fsvc_dataset_load(&d, p, NULL, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "empty"));
}

/* The real satimg.train: 3217 x 36, labels 1..6, values identical to an
 * independent strtod of the text. */
static void test_satimg(void **state)
{
    (void)state;
    char sh[4096], p[4200];
    snprintf(p, sizeof p, "%s/uci-dogaru/satimg.train", fx_data(sh, sizeof sh));
    FX_REQUIRE(p);
    fsvc_dataset d;
    fsvc_error err;
    if (fsvc_dataset_load(&d, p, NULL, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(d.N, 3217);
    assert_int_equal(d.n, 36);
    assert_int_equal(d.K, 6);
    for (int k = 0; k < 6; k++)
        assert_true(d.class_values[k] == k + 1);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    static char line[1 << 16];
    const double *x = d.x;
    for (int64_t i = 0; fgets(line, sizeof line, f); i++) {
        if (i % 97 != 0 && i != d.N - 1)
            continue;
        char *s = line, *e;
        double lab = strtod(s, &e);
        assert_true(lab == d.y[i]);
        for (s = e; *s == ' ';) {
            long j = strtol(s, &e, 10);
            assert_int_equal(*e, ':');
            double v = strtod(e + 1, &s);
            assert_true(j >= 1 && j <= 36);
            double got = x[i * 36 + j - 1];
            if (memcmp(&got, &v, sizeof v))
                fail_msg("row %lld feature %ld: %.17g != %.17g", (long long)i, j, got, v);
        }
    }
    fclose(f);
    fsvc_dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_last_line_and_classes),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_index_out_of_proportion),
        cmocka_unit_test(test_cr_line_ends),
        cmocka_unit_test(test_roundtrip_exact),
        cmocka_unit_test(test_roundtrip_u8_keeps_n),
        cmocka_unit_test(test_writer_leaves_nothing_on_error),
        cmocka_unit_test(test_file_errors_name_the_file),
        cmocka_unit_test(test_satimg),
    };
    return cmocka_run_group_tests(tests, fx_tmpdir_setup, fx_tmpdir_teardown);
}
