/*
 * test_cuda_fallback.c - the CUDA backend without a usable device (this
 * machine and CI: nvcc maybe, no driver, no GPU): bnl_cuda_open fails
 * cleanly with one line, describe says the same, calls on a NULL backend
 * fail without crashing, and bnl_ctx_open(..., "cuda", ...) falls back to
 * the CPU (or fails with FSVC_ERESOURCE when strict). On a machine with a
 * device the same test checks that the backend opens and describes it.
 * Also the tune file: round trip, missing file, bad lines; and the engine's
 * public face of the backend (bnl_backend_describe, bnl_gpu_*: what `fsvc
 * info` and `fsvc tune` use) reaching it through bnl_cuda_table() (bnl_backend_ops).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cuda/bnl_cuda.h"
#include "cuda/tune_file.h"
#include "layers/bnl.h"

static int sentinel;

static int have_device(void)
{
    char buf[4096];
    return bnl_cuda_describe(buf, sizeof buf);
}

static const char *expected_cause(void)
{
#ifdef FSVC_HAVE_CUDA
    return "cuda: no device (";
#else
    return "cuda: not compiled in (nvcc was not found at build time)";
#endif
}

static void test_open_fails_cleanly(void **s)
{
    (void)s;
    if (have_device()) {
        bnl_cuda *c = NULL;
        fsvc_error err;
        assert_int_equal(bnl_cuda_open(&c, 1, &err), FSVC_OK);
        assert_non_null(c);
        bnl_cuda_close(c);
        return;
    }
    for (int strict = 0; strict < 2; strict++) {
        bnl_cuda *c = (bnl_cuda *)&sentinel;
        fsvc_error err;
        fsvc_error_clear(&err);
        assert_int_equal(bnl_cuda_open(&c, strict, &err), FSVC_ERESOURCE);
        assert_null(c);
        assert_int_equal(err.code, FSVC_ERESOURCE);
        assert_null(strchr(err.msg, '\n'));
        assert_non_null(strstr(err.msg, expected_cause()));
        assert_true(strncmp(err.msg, "cuda: ", 6) == 0);
        const char *tail = " \xe2\x80\x94 using CPU";
        size_t L = strlen(err.msg), T = strlen(tail);
        int has_tail = L > T && strcmp(err.msg + L - T, tail) == 0;
        assert_int_equal(has_tail, !strict);
        print_message("open (strict %d): %s\n", strict, err.msg);
    }
}

static void test_describe(void **s)
{
    (void)s;
    char buf[4096];
    memset(buf, 'x', sizeof buf);
    int dev = bnl_cuda_describe(buf, sizeof buf);
    assert_true(strlen(buf) < sizeof buf);
    if (dev) {
        assert_non_null(strstr(buf, "Compute capability"));
        return;
    }
    assert_non_null(strstr(buf, expected_cause()));
    assert_null(strchr(buf, '\n'));
    char small[8];
    assert_int_equal(bnl_cuda_describe(small, sizeof small), 0);
    assert_int_equal(strlen(small), 7);
    assert_int_equal(bnl_cuda_describe(NULL, 0), 0);
    char tag[16];
    bnl_cuda_device_tag(NULL, tag, sizeof tag);
    assert_string_equal(tag, "none");
}

static void test_calls_without_backend(void **s)
{
    (void)s;
    fsvc_error err;
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_U8, 10.0, BNL_PREC_FULL};
    uint8_t W[4] = {1, 2, 3, 4}, X[4] = {4, 3, 2, 1};
#ifdef FSVC_HAVE_CUDA /* built without nvcc the table holds no ops (below) */
    float H[1];
    double S[1] = {0};
    assert_int_not_equal(bnl_cuda_forward(NULL, &op, H, 1, W, 1, X, 1, 4, &err), FSVC_OK);
    assert_int_not_equal(bnl_cuda_actsum(NULL, &op, S, W, 1, X, 1, 4, &err), FSVC_OK);
    bnlc_plan p;
    assert_int_not_equal(bnl_cuda_plan(NULL, &op, 0, 1, 1, 4, &p, &err), FSVC_OK);
#else
    (void)op; (void)W; (void)X; (void)err;
#endif
    assert_int_equal(bnl_cuda_props(NULL, NULL, NULL, 0), -1);
    bnl_cuda_close(NULL);
    bnlc_limits lim;
    bnl_cuda_limits(NULL, &lim, NULL); /* no crash */
}

/* The engine: "cuda" falls back to the CPU and computes; strict fails. */
static void test_ctx_fallback(void **s)
{
    (void)s;
    if (have_device())
        skip();
    bnl_ctx ctx;
    fsvc_error err;
    fsvc_error_clear(&err);
    assert_int_equal(bnl_ctx_open(&ctx, "cuda", 1, 0, &err), FSVC_OK);
    assert_int_equal(ctx.backend, BNL_CPU);
    assert_null(ctx.dev);
    bnl_op op = {BNL_L1, BNL_IDENT, FSVC_U8, 1.0, BNL_PREC_FULL};
    uint8_t W[2 * 3] = {0, 0, 0, 10, 20, 30}, X[3] = {1, 2, 3};
    float H[2] = {-1, -1};
    assert_int_equal(bnl_forward(&ctx, &op, H, 2, W, 2, X, 1, 3, &err), FSVC_OK);
    assert_true(H[0] == 6.0f && H[1] == 54.0f);
    bnl_ctx_close(&ctx);
    assert_int_equal(bnl_ctx_open(&ctx, "cuda", 1, 1, &err), FSVC_ERESOURCE);
    assert_non_null(strstr(err.msg, expected_cause()));
    assert_null(strstr(err.msg, "using CPU"));
}

static void test_tune_file(void **s)
{
    (void)s;
    char dir[] = "/tmp/fsvc-tune-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], bad[256];
    snprintf(path, sizeof path, "%s/a/b/tune-x.txt", dir);
    bnlc_limits lim, back;
    bnlc_limits_default(&lim);
    lim.max_M = 8192;
    lim.launch_s = 0.125;
    lim.streams = 3;
    fsvc_error err;
    assert_int_equal(bnlc_tune_write(path, "NVIDIA-Test", &lim, "unit test", &err), FSVC_OK);
    bnlc_limits_default(&back);
    assert_int_equal(bnlc_tune_read(path, &back, &err), FSVC_OK);
    assert_int_equal(back.max_M, 8192);
    assert_true(back.launch_s == 0.125);
    assert_int_equal(back.streams, 3);
    /* missing: 1, limits untouched */
    bnlc_limits_default(&back);
    snprintf(bad, sizeof bad, "%s/none.txt", dir);
    assert_int_equal(bnlc_tune_read(bad, &back, &err), 1);
    assert_int_equal(back.max_M, 0);
    /* bad lines: FSVC_EINPUT naming the line, limits untouched */
    snprintf(bad, sizeof bad, "%s/bad.txt", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fprintf(f, "# ok\nmax_M 4096\nstreams many\n");
    fclose(f);
    assert_int_equal(bnlc_tune_read(bad, &back, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, ":3:"));
    assert_int_equal(back.max_M, 0);
    f = fopen(bad, "w");
    fprintf(f, "streams 99\n");
    fclose(f);
    assert_int_equal(bnlc_tune_read(bad, &back, &err), FSVC_EINPUT);
    /* the default path follows FSVC_TUNE_FILE, then XDG_CACHE_HOME */
    char p2[512];
    setenv("FSVC_TUNE_FILE", "/x/y.txt", 1);
    assert_int_equal(bnlc_tune_path(p2, sizeof p2, "dev"), 0);
    assert_string_equal(p2, "/x/y.txt");
    unsetenv("FSVC_TUNE_FILE");
    setenv("XDG_CACHE_HOME", "/c", 1);
    assert_int_equal(bnlc_tune_path(p2, sizeof p2, "dev"), 0);
    assert_string_equal(p2, "/c/fsvc/tune-dev.txt");
    unsetenv("XDG_CACHE_HOME");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The engine's entry points reach the backend through bnl_cuda_table():
 * built with nvcc, the plugin's table, loaded from next to this test
 * (build/tests/fsvc-cuda.so, a link to build/fsvc-cuda.so), with its own
 * copy of the backend; without nvcc the none table. */
static void test_engine_entries(void **s)
{
    (void)s;
    char a[1024], b[1024];
    int da = bnl_cuda_describe(a, sizeof a), db = bnl_backend_describe(BNL_CUDA, b, sizeof b);
    assert_int_equal(da, db);
    assert_string_equal(a, b);
    assert_int_equal(bnl_backend_describe(BNL_CPU, b, sizeof b), 1);
    assert_string_equal(b, "cpu");
    const bnl_backend_ops *t = bnl_cuda_table();
    assert_ptr_equal(bnl_cuda_table(), t); /* loaded once */
#ifdef FSVC_HAVE_CUDA
    assert_ptr_equal(bnl_cuda_ops.open, bnl_cuda_open); /* the tests' archive */
    assert_non_null(bnl_cuda_ops.forward);
    assert_ptr_not_equal(t, &bnlc_none_ops); /* the plugin loaded */
    assert_ptr_not_equal(t, &bnl_cuda_ops);
    assert_non_null(t->forward);
    assert_non_null(t->normal_open);
    assert_non_null(t->nov_open);
#else /* no op compiled in: a NULL entry, the engine computes on the CPU */
    assert_ptr_equal(t, &bnlc_none_ops);
    assert_null(t->forward);
    assert_null(t->normal_open);
    assert_null(t->nov_open);
#endif
    assert_string_equal(t->name, "cuda");
    /* the tuning entries on a context without a device */
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), FSVC_OK);
    bnlc_device dev;
    assert_int_equal(bnl_gpu_props(&ctx, &dev, a, sizeof a), -1);
    bnl_gpu_device_tag(&ctx, a, sizeof a);
    assert_string_equal(a, "none");
    bnlc_limits lim, def;
    memset(&lim, 0, sizeof lim);
    bnlc_limits_default(&def);
    bnl_gpu_limits(&ctx, &lim, NULL);
#ifndef FSVC_HAVE_CUDA
    assert_memory_equal(&lim, &def, sizeof lim); /* the none backend gives the defaults */
#endif
    bnl_ctx_close(&ctx);
    /* strict "cuda" without a device: the error of the backend */
    if (!have_device()) {
        fsvc_error_clear(&err);
        assert_int_equal(bnl_ctx_open(&ctx, "cuda", 1, 1, &err), FSVC_ERESOURCE);
        assert_non_null(strstr(err.msg, "cuda: "));
    }
    char path[512];
    setenv("XDG_CACHE_HOME", "/tmp/fsvc-test-cache", 1);
    assert_int_equal(bnl_gpu_tune_path(path, sizeof path, "dev"), 0);
    assert_non_null(strstr(path, "/tmp/fsvc-test-cache"));
    unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_fails_cleanly),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_calls_without_backend),
        cmocka_unit_test(test_ctx_fallback),
        cmocka_unit_test(test_tune_file),
        cmocka_unit_test(test_engine_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
