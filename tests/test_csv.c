/* test_csv.c - the study CSV module (fsvc/csv.c): quoting on write, the
 * reader of quoted fields, round trips of any text, comments, an
 * unfinished last record, malformed input named by line, file limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsvc/csv.h"
#include "tests/util/fixtures.h"

static void parse_ok(fsvc_csv *t, const char *text)
{
    fsvc_error err;
    if (fsvc_csv_parse(t, text, strlen(text), "t.csv", &err)) fail_msg("%s", err.msg);
}

static void test_write(void **state)
{
    (void)state;
    fsvc_csv_out o = {0};
    fsvc_csv_field(&o, "plain");
    fsvc_csv_field(&o, "a,b");
    fsvc_csv_field(&o, "say \"hi\"");
    fsvc_csv_field(&o, "two\nlines");
    fsvc_csv_field(&o, "cr\r");
    fsvc_csv_field(&o, "#hash");
    fsvc_csv_field(&o, "");
    fsvc_csv_field(&o, NULL);
    fsvc_csv_fieldf(&o, "%d%%", 5);
    fsvc_csv_endrow(&o);
    fsvc_csv_field(&o, "\"");
    fsvc_csv_endrow(&o);
    fsvc_csv_field(&o, "");                      /* a lone empty field: not an empty line */
    fsvc_csv_endrow(&o);
    fsvc_csv_field(&o, NULL);
    fsvc_csv_field(&o, "");
    fsvc_csv_endrow(&o);
    fsvc_csv_comment(&o, "note: %s", "a\nb\x01" "c");
    assert_false(o.oom);
    assert_string_equal(o.s, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",\"#hash\",,,5%\n"
                             "\"\"\"\"\n\"\"\n\"\",\n# note: a?b?c\n");
    fsvc_csv t;
    fsvc_error err;
    assert_int_equal(fsvc_csv_parse(&t, o.s, o.len, "w", &err), FSVC_OK);
    assert_int_equal(t.nrec, 4);
    assert_int_equal(fsvc_csv_nfields(&t, 2), 1);
    assert_string_equal(fsvc_csv_get(&t, 2, 0), "");
    assert_int_equal(fsvc_csv_nfields(&t, 3), 2);
    fsvc_csv_free(&t);
    assert_int_equal(o.len, strlen(o.s));
    fsvc_csv_reset(&o);
    assert_int_equal(o.len, 0);
    fsvc_csv_field(&o, "x");
    assert_string_equal(o.s, "x");                /* a new row: no leading comma */
    fsvc_csv_out_free(&o);
}

/* Every byte but NUL, in fields of every position: written, read back. */
static void test_round_trip(void **state)
{
    (void)state;
    char f[6][300];
    for (int k = 0; k < 6; k++) {
        int n = 0;
        for (int c = 1 + k; c < 256; c += 1 + k) f[k][n++] = (char)c;
        f[k][n] = 0;
    }
    strcpy(f[5], "\"");                          /* a lone quote */
    fsvc_csv_out o = {0};
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 6; k++) fsvc_csv_field(&o, f[(k + r) % 6]);
        fsvc_csv_endrow(&o);
    }
    fsvc_csv t;
    fsvc_error err;
    assert_int_equal(fsvc_csv_parse(&t, o.s, o.len, "rt", &err), FSVC_OK);
    assert_int_equal(t.nrec, 3);
    assert_int_equal(t.partial, 0);
    assert_int_equal(t.complete, o.len);
    for (int r = 0; r < 3; r++) {
        assert_int_equal(fsvc_csv_nfields(&t, r), 6);
        for (int k = 0; k < 6; k++) assert_string_equal(fsvc_csv_get(&t, r, k), f[(k + r) % 6]);
    }
    fsvc_csv_free(&t);
    fsvc_csv_out_free(&o);
}

static void test_read(void **state)
{
    (void)state;
    fsvc_csv t;
    parse_ok(&t, "# a comment, with \"quotes\n"
                 "\n"
                 "point,data,acc\r\n"
                 "p1,\"/x/a,b\ntrain\",98.5\n"
                 "# between rows\n"
                 "p2,,\"\"\r\n"
                 "p3,short\n");
    assert_int_equal(t.nrec, 4);
    assert_int_equal(t.partial, 0);
    assert_int_equal(fsvc_csv_col(&t, "data"), 1);
    assert_int_equal(fsvc_csv_col(&t, "acc"), 2);
    assert_int_equal(fsvc_csv_col(&t, "nope"), -1);
    assert_string_equal(fsvc_csv_get(&t, 1, 1), "/x/a,b\ntrain");
    assert_string_equal(fsvc_csv_get(&t, 1, 2), "98.5");
    assert_string_equal(fsvc_csv_get(&t, 2, 0), "p2");
    assert_string_equal(fsvc_csv_get(&t, 2, 1), "");
    assert_string_equal(fsvc_csv_get(&t, 2, 2), "");
    assert_int_equal(fsvc_csv_nfields(&t, 3), 2);
    assert_string_equal(fsvc_csv_get(&t, 3, 2), "");     /* past the end: "" */
    assert_string_equal(fsvc_csv_get(&t, 9, 0), "");
    assert_string_equal(fsvc_csv_get(&t, -1, 0), "");
    assert_int_equal(t.line[0], 3);
    assert_int_equal(t.line[1], 4);
    assert_int_equal(t.line[2], 7);                     /* after a field of two lines */
    assert_int_equal(t.line[3], 8);
    fsvc_csv_free(&t);
    /* empty input, comments only */
    parse_ok(&t, "");
    assert_int_equal(t.nrec, 0);
    assert_int_equal(fsvc_csv_col(&t, "x"), -1);
    fsvc_csv_free(&t);
    parse_ok(&t, "# only\n# comments\n");
    assert_int_equal(t.nrec, 0);
    assert_int_equal(t.complete, 18);
    fsvc_csv_free(&t);
}

/* An input cut anywhere in its last record: that record is dropped and
 * `complete` points at its start. */
static void test_partial(void **state)
{
    (void)state;
    const char *head = "h1,h2\nv1,\"v,2\"\n";
    static const char *const tails[] = {"x", "x,", "x,y", "\"x", "\"x\"", "\"x\"\"", "x,\"a\nb",
                                        "x\r", "# cut comment"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        char text[100];
        snprintf(text, sizeof text, "%s%s", head, tails[i]);
        fsvc_csv t;
        parse_ok(&t, text);
        assert_int_equal(t.partial, 1);
        assert_int_equal(t.nrec, 2);
        assert_int_equal(t.complete, strlen(head));
        assert_string_equal(fsvc_csv_get(&t, 1, 1), "v,2");
        fsvc_csv_free(&t);
    }
}

static void test_malformed(void **state)
{
    (void)state;
    static const struct { const char *text; size_t len; const char *msg; } bad[] = {
        {"a,b\n\"x\"y,z\n", 0, "t.csv:2: text after a closing quote"},
        {"a,b\nx\"y,z\n", 0, "t.csv:2: a quote inside an unquoted field"},
        {"a,b\nx,y\rz\n", 0, "t.csv:2: CR without LF"},
        {"a,b\nx,\"q\nq\"\"\"z\n", 0, "t.csv:3: text after a closing quote"},
        {"a,b\nx,y\0z\n", 10, "t.csv:2: NUL byte"},
        {"a,b\nx,\"y\0\"\n", 11, "t.csv:2: NUL byte"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fsvc_csv t;
        fsvc_error err;
        size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);
        assert_int_equal(fsvc_csv_parse(&t, bad[i].text, len, "t.csv", &err), FSVC_EINPUT);
        if (!strstr(err.msg, bad[i].msg)) fail_msg("case %zu: '%s'", i, err.msg);
        assert_int_equal(t.nrec, 0);
        assert_null(t.field);
    }
    /* too many fields in a record */
    size_t n = 2 * (FSVC_CSV_MAX_FIELDS + 1);
    char *many = malloc(n + 1);
    for (size_t i = 0; i < n; i += 2) { many[i] = 'x'; many[i + 1] = ','; }
    many[n - 1] = '\n';
    fsvc_csv t;
    fsvc_error err;
    assert_int_equal(fsvc_csv_parse(&t, many, n, "t.csv", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "t.csv:1: more than 4096 fields"));
    assert_int_equal(fsvc_csv_parse(&t, many + 2, n - 2, "t.csv", &err), FSVC_OK);
    assert_int_equal(fsvc_csv_nfields(&t, 0), FSVC_CSV_MAX_FIELDS);
    fsvc_csv_free(&t);
    free(many);
}

static void test_load(void **state)
{
    (void)state;
    char *dir = fx_tmpdir(), path[600];
    assert_non_null(dir);
    fsvc_csv t;
    fsvc_error err;
    fx_join(path, sizeof path, dir, "none.csv");
    assert_int_equal(fsvc_csv_load(&t, path, &err), FSVC_OK);     /* no file: no rows */
    assert_int_equal(t.nrec, 0);
    fsvc_csv_free(&t);
    fx_join(path, sizeof path, dir, "s.csv");
    assert_int_equal(fx_write_text(path, "a,b\n1,\"2\n3\"\n4,5"), 0);
    assert_int_equal(fsvc_csv_load(&t, path, &err), FSVC_OK);
    assert_int_equal(t.nrec, 2);
    assert_int_equal(t.partial, 1);
    assert_int_equal(t.complete, 12);
    assert_string_equal(fsvc_csv_get(&t, 1, 1), "2\n3");
    fsvc_csv_free(&t);
    /* not a regular file: refused at once (a FIFO would block a reader) */
    assert_int_equal(fsvc_csv_load(&t, dir, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "not a regular file"));
    fx_join(path, sizeof path, dir, "fifo.csv");
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(fsvc_csv_load(&t, path, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "not a regular file"));
    /* larger than the limit: refused before reading (a sparse file) */
    fx_join(path, sizeof path, dir, "big.csv");
    assert_int_equal(fx_write_text(path, ""), 0);
    assert_int_equal(truncate(path, (off_t)FSVC_CSV_MAX_BYTES + 1), 0);
    assert_int_equal(fsvc_csv_load(&t, path, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "more than the"));
    fx_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_partial),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
