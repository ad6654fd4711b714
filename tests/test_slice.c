/* test_slice.c - fsvc_dataset_load_slice against fsvc_dataset_load: for K
 * = 1..5 ranks (threads standing in for the processes, their allgather a
 * barrier over shared slots), the slices put together are the whole
 * dataset (the same rows in the same order, the same labels, the same
 * global classes and n) for LIBSVM (plain and gzip, with comments, blank
 * lines and CRLF, classes missing from some slices), IDX pairs (plain and
 * gzip) and PNG folders; a bad line stops every rank, the owner naming the
 * global line; NaN in an IDX slice is named by its global element; a
 * truncated or garbage-tailed gzip file and a NUL byte give the one-process
 * message; the
 * pixel decision of --shape is taken over all ranks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "datasets/loaders.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"
#include "tests/util/slice_team.h"

/* The K slices of source put together are fsvc_dataset_load's dataset. */
static void same_as_whole(const char *source, const fsvc_load_opts *opts, int shape)
{
    fsvc_dataset w;
    fsvc_error err;
    assert_int_equal(fsvc_dataset_load(&w, source, opts, &err), FSVC_OK);
    if (shape) assert_int_equal(fsvc_dataset_set_shape(&w, shape, shape, &err), FSVC_OK);
    size_t row = (size_t)w.n * fsvc_dtype_size(w.dtype);
    for (int K = 1; K <= ST_MAXK; K++) {
        st_member ms[ST_MAXK];
        st_load_k(ms, K, source, opts, shape);
        int64_t at = 0;
        for (int r = 0; r < K; r++) {
            fsvc_dataset *d = &ms[r].d;
            if (ms[r].rc) fail_msg("K=%d rank %d: %s", K, r, ms[r].err.msg);
            assert_int_equal(ms[r].N_total, w.N);
            assert_int_equal(ms[r].first, w.N * r / K);
            assert_int_equal(ms[r].first, at);
            assert_int_equal(d->N, w.N * (r + 1) / K - w.N * r / K);
            assert_int_equal(d->n, w.n);
            assert_int_equal(d->dtype, w.dtype);
            assert_int_equal(d->rows, w.rows);
            assert_int_equal(d->cols, w.cols);
            assert_int_equal(d->K, w.K);
            assert_int_equal(d->has_labels, w.has_labels);
            assert_string_equal(d->source, w.source);
            if (w.K) assert_memory_equal(d->class_values, w.class_values, w.K * sizeof(double));
            if (d->N) assert_memory_equal(d->x, (char *)w.x + (size_t)at * row, d->N * row);
            for (int64_t i = 0; w.has_labels && i < d->N; i++) {
                assert_true(d->y[i] == w.y[at + i]);
                assert_int_equal(d->cls[i], w.cls[at + i]);
            }
            for (int k = 0; w.class_names && k < w.K; k++)
                assert_string_equal(d->class_names[k], w.class_names[k]);
            for (int64_t i = 0; w.paths && i < d->N; i++)
                assert_string_equal(d->paths[i], w.paths[at + i]);
            at += d->N;
            fsvc_dataset_free(d);
        }
        assert_int_equal(at, w.N);
    }
    fsvc_dataset_free(&w);
}

/* Comments, blank lines, CRLF, a trailing line without '\n'; label -1
 * only at the start, 7 only at the end, the largest index (9) on one line. */
static const char *const TEXT =
    "# a comment\n"
    "-1 1:0.5 3:2\n"
    "\n"
    "2 2:1 4:-3.25\r\n"
    "   \n"
    "2 1:1e-3 2:4  # trailing comment\n"
    "3 9:1\n"
    "#\n"
    "2 1:0.125\n"
    "3 3:3 5:5\n"
    "2 2:2\n"
    "\t# indented comment\n"
    "3 1:1 2:2 3:3\n"
    "7 4:4";

static void test_libsvm_plain_and_gz(void **state)
{
    char p[4096], g[4096];
    fx_join(p, sizeof p, *state, "t.txt");
    fx_join(g, sizeof g, *state, "t.txt.gz");
    assert_int_equal(fx_write_text(p, TEXT), 0);
    assert_int_equal(fx_write_gz(g, TEXT, strlen(TEXT)), 0);
    same_as_whole(p, NULL, 0);
    same_as_whole(g, NULL, 0);
    fsvc_load_opts o = { .n_features = 12, .storage = FSVC_STORE_DENSE }; /* forced n */
    same_as_whole(p, &o, 0);
}

/* A bigger file, so that the byte ranges fall inside lines everywhere. */
static void test_libsvm_many_lines(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "m.txt");
    size_t cap = 1 << 16, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    for (int i = 0; i < 500; i++) {
        if (i % 37 == 0) len += (size_t)snprintf(t + len, cap - len, "# c %d\n\n", i);
        len += (size_t)snprintf(t + len, cap - len, "%d 1:%d %d:%g\n", i % 4 + (i > 480) * 9,
                                i, 2 + i % 11, i * 0.25);
    }
    assert_int_equal(fx_write_text(p, t), 0);
    free(t);
    same_as_whole(p, NULL, 0);
}

static void test_libsvm_bad_line_stops_every_rank(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "bad.txt");
    /* line 9 (the 6th sample) is bad */
    assert_int_equal(fx_write_text(p, "1 1:1\n2 1:2\n# c\n1 1:3\n\n2 1:4\n1 1:5\n2 1:6\n"
                                      "1 1:x\n2 1:8\n1 1:9\n2 1:10\n"), 0);
    fsvc_dataset w;
    fsvc_error err;
    assert_int_not_equal(fsvc_dataset_load(&w, p, NULL, &err), FSVC_OK);
    for (int K = 1; K <= ST_MAXK; K++) {
        st_member ms[ST_MAXK];
        st_load_k(ms, K, p, NULL, 0);
        int owners = 0;
        for (int r = 0; r < K; r++) {
            assert_int_equal(ms[r].rc, FSVC_EINPUT);
            if (strcmp(ms[r].err.msg, FSVC_SLICE_ELSEWHERE) != 0) {
                owners++;
                assert_string_equal(ms[r].err.msg, err.msg); /* ...bad.txt:9: ... */
            }
        }
        assert_int_equal(owners, 1);
    }
    assert_non_null(strstr(err.msg, "bad.txt:9: value is not a number"));
}

/* source fails to load; on K ranks every rank fails, and the lowest rank
 * with an error of its own (the one the CLI reports) has the one-process
 * message. */
static void same_error(const char *source)
{
    fsvc_dataset w;
    fsvc_error err;
    assert_int_not_equal(fsvc_dataset_load(&w, source, NULL, &err), FSVC_OK);
    for (int K = 1; K <= ST_MAXK; K++) {
        st_member ms[ST_MAXK];
        st_load_k(ms, K, source, NULL, 0);
        int r0 = -1;
        for (int r = 0; r < K; r++) {
            assert_int_not_equal(ms[r].rc, FSVC_OK);
            if (r0 < 0 && strcmp(ms[r].err.msg, FSVC_SLICE_ELSEWHERE) != 0) r0 = r;
        }
        assert_true(r0 >= 0);
        assert_string_equal(ms[r0].err.msg, err.msg);
    }
}

static void test_gzip_faults_as_one_process(void **state)
{
    enum { N = 40, R = 4, C = 4 };
    uint8_t pix[N * R * C], lab[N];
    for (int i = 0; i < N * R * C; i++) pix[i] = (uint8_t)(i * 13 + 1);
    for (int i = 0; i < N; i++) lab[i] = (uint8_t)(i % 4);
    assert_int_equal(fx_write_mnist_pair(*state, "z", 1, N, R, C, pix, lab), 0);
    char img[4096], p[4096];
    fx_join(img, sizeof img, *state, "z-images-idx3-ubyte.gz");
    FILE *f = fopen(img, "rb");
    assert_non_null(f);
    unsigned char buf[8192];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    /* truncated in the middle of the compressed stream */
    assert_int_equal(fx_write_file(img, buf, len * 2 / 3), 0);
    same_error(fx_join(p, sizeof p, *state, "z"));
    /* trailing garbage after the gzip member */
    memcpy(buf + len, "garbage", 7);
    assert_int_equal(fx_write_file(img, buf, len + 7), 0);
    same_error(p);
    /* a NUL byte in LIBSVM text, in the last part */
    static const char text[] = "1 1:1\n2 1:2\n1 1:3\n2 1:4\n1 1:5\n2 1:\0006\n";
    fx_join(p, sizeof p, *state, "nul.txt");
    assert_int_equal(fx_write_file(p, text, sizeof text - 1), 0);
    same_error(p);
    /* gzipped LIBSVM with garbage after it */
    unsigned char *gz;
    size_t gl;
    assert_int_equal(fx_gzip(&gz, &gl, TEXT, strlen(TEXT)), 0);
    unsigned char *g2 = malloc(gl + 3);
    assert_non_null(g2);
    memcpy(g2, gz, gl);
    memcpy(g2 + gl, "xyz", 3);
    fx_join(p, sizeof p, *state, "tg.txt");
    assert_int_equal(fx_write_file(p, g2, gl + 3), 0);
    same_error(p);
    free(gz);
    free(g2);
}

/* Found by fuzz_slice: with no features anywhere, one process reports a
 * bad line before "no features on any line"; so do the ranks, whichever
 * holds the bad line. A header claiming more than the file holds reads
 * the same too (the load limit named first, then the room: plain and
 * gzip). */
static void test_no_features_and_claims_as_one_process(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "nf.txt");
    assert_int_equal(fx_write_text(p, "1\n2\n1: 1`12:2\n1 1\n2\n"), 0);
    same_error(p);
    assert_int_equal(fx_write_text(p, "1\n2\n1\n2 # none\n1\n"), 0);
    same_error(p);
    fsvc_dataset w;
    fsvc_error err;
    assert_int_not_equal(fsvc_dataset_load(&w, p, NULL, &err), FSVC_OK);
    assert_non_null(strstr(err.msg, "no features on any line"));
    /* IDX images: 7 x 61698 x 393219 claimed, 42 bytes there; and a claim
     * under the limit but over what the gzip stream can hold */
    unsigned char h[16 + 42] = {0, 0, 8, 3, 0, 0, 0, 7, 0, 0, 0xf1, 2, 0, 6, 0, 3};
    char g[4096];
    fx_join(p, sizeof p, *state, "c-images-idx3-ubyte");
    assert_int_equal(fx_write_file(p, h, sizeof h), 0);
    same_error(p);
    unsigned char h2[16 + 42] = {0, 0, 8, 2, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 2};
    fx_join(g, sizeof g, *state, "d-images-idx3-ubyte.gz");
    assert_int_equal(fx_write_gz(g, h2, sizeof h2), 0);
    same_error(g);
}

static void test_idx_pairs(void **state)
{
    enum { N = 23, R = 3, C = 2 };
    uint8_t pix[N * R * C], lab[N];
    for (int i = 0; i < N * R * C; i++) pix[i] = (uint8_t)(i * 7 + 3);
    for (int i = 0; i < N; i++) lab[i] = (uint8_t)(i < 2 ? 9 : i % 3); /* 9 only at the start */
    assert_int_equal(fx_write_mnist_pair(*state, "p", 0, N, R, C, pix, lab), 0);
    assert_int_equal(fx_write_mnist_pair(*state, "g", 1, N, R, C, pix, lab), 0);
    char p[4096];
    same_as_whole(fx_join(p, sizeof p, *state, "p"), NULL, 0);
    same_as_whole(fx_join(p, sizeof p, *state, "g"), NULL, 0);
    /* an images file alone: unlabelled */
    same_as_whole(fx_join(p, sizeof p, *state, "g-images-idx3-ubyte.gz"), NULL, 0);
}

static void test_idx_nan_named_globally(void **state)
{
    enum { N = 10, n = 3 };
    float v[N * n];
    for (int i = 0; i < N * n; i++) v[i] = (float)i;
    v[8 * n + 1] = NAN; /* element 25: in the last slice for every K */
    uint32_t dims[2] = { N, n };
    char p[4096];
    fx_join(p, sizeof p, *state, "f-images-idx3-ubyte");
    assert_int_equal(fx_write_idx(p, 0, 0x0D, 2, dims, v), 0);
    for (int K = 1; K <= ST_MAXK; K++) {
        st_member ms[ST_MAXK];
        st_load_k(ms, K, p, NULL, 0);
        assert_int_equal(ms[K - 1].rc, FSVC_EINPUT);
        assert_non_null(strstr(ms[K - 1].err.msg, "NaN or Inf at element 25 (byte offset 112"));
        for (int r = 0; r < K - 1; r++)
            assert_string_equal(ms[r].err.msg, FSVC_SLICE_ELSEWHERE);
    }
}

static void test_png_folder(void **state)
{
    const char *cls[3] = { "ant", "bee", "cat" };
    char p[1024], f[4096];
    fx_join(p, sizeof p, *state, "png");
    mkdir(p, 0777);
    for (int c = 0; c < 3; c++) {
        char dir[2048];
        snprintf(dir, sizeof dir, "%s/%s", p, cls[c]);
        mkdir(dir, 0777);
        for (int i = 0; i < 2 + c; i++) {
            uint8_t px[12];
            for (int k = 0; k < 12; k++) px[k] = (uint8_t)(c * 50 + i * 9 + k);
            snprintf(f, sizeof f, "%s/%02d.png", dir, i);
            assert_int_equal(fx_write_png(f, 4, 3, 0, 8, px, NULL, 0), 0);
        }
    }
    same_as_whole(p, NULL, 0);
}

static void test_shape_decided_over_ranks(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "px.txt");
    /* 4 features: pixels everywhere but in the last sample (300) */
    assert_int_equal(fx_write_text(p, "1 1:1 2:2 3:3 4:4\n2 1:5 4:255\n1 2:9\n2 1:300\n"), 0);
    same_as_whole(p, NULL, 2); /* stays f64 on every rank */
    assert_int_equal(fx_write_text(p, "1 1:1 2:2 3:3 4:4\n2 1:5 4:255\n1 2:9\n2 1:30\n"), 0);
    same_as_whole(p, NULL, 2); /* u8 on every rank */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_libsvm_plain_and_gz, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_libsvm_many_lines, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_libsvm_bad_line_stops_every_rank, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_idx_pairs, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_gzip_faults_as_one_process, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_no_features_and_claims_as_one_process, fx_tmpdir_setup,
                                        fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_idx_nan_named_globally, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_png_folder, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_shape_decided_over_ranks, fx_tmpdir_setup, fx_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
