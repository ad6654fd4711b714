/* test_batch.c - pipelined batch inference (issue 10): the batch splitter
 * (fsvc_batch_count, fsvc_batch_range, fsvc_batch_size), fsvc_predict_batched
 * against fsvc_predict on the whole set (the same pred and score bits, for
 * batches of 1, a chunk, a chunk + 1, a size not dividing N, 0 and more than
 * N; fill ranges in order, tiling the set, at most two batches), its errors
 * (a fill failing in batch 1 or 2: that error, nothing scored after it), on
 * the emulated device (tests/util/emu_device: one scores call per batch,
 * the same classes, the scores within the f32 tolerance), and
 * a PNG folder listed (fsvc_pngdir_list) and decoded by ranges
 * (fsvc_pngdir_decode) against fsvc_dataset_load: the same listing, pixels
 * and error messages. */
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

#include "fsvc/batch.h"
#include "fsvc/internal.h" /* fsvc_rng_next */
#include "layers/bnl.h"
#include "tests/util/emu_device.h"
#include "tests/util/fixtures.h"

/* ---- the splitter ---- */

static void test_splitter(void **state)
{
    (void)state;
    static const int64_t Ns[] = {0, 1, 2, 10, 17};
    static const int64_t Bs[] = {-1, 0, 1, 3, 10, 11, 17, 100};
    for (size_t a = 0; a < sizeof Ns / sizeof *Ns; a++)
        for (size_t b = 0; b < sizeof Bs / sizeof *Bs; b++) {
            int64_t N = Ns[a], B = Bs[b], nb = fsvc_batch_count(N, B), at = 0;
            int64_t want = N == 0 ? 0 : B <= 0 || B >= N ? 1 : (N + B - 1) / B;
            assert_int_equal(nb, want);
            for (int64_t k = 0; k < nb; k++) {
                int64_t lo, hi;
                fsvc_batch_range(N, B, k, &lo, &hi);
                assert_int_equal(lo, at); /* in order, no gap, no overlap */
                assert_true(hi > lo);
                if (k + 1 < nb) assert_int_equal(hi - lo, B); /* only the last is short */
                at = hi;
            }
            assert_int_equal(at, N);
        }
    assert_int_equal(fsvc_batch_size(0), 0);
    assert_int_equal(fsvc_batch_size(-5), 0);
    assert_int_equal(fsvc_batch_size(1), FSVC_PREDICT_CHUNK);
    assert_int_equal(fsvc_batch_size(FSVC_PREDICT_CHUNK), FSVC_PREDICT_CHUNK);
    assert_int_equal(fsvc_batch_size(FSVC_PREDICT_CHUNK + 1), 2 * FSVC_PREDICT_CHUNK);
}

/* ---- fsvc_predict_batched ---- */

#define NS (2 * FSVC_PREDICT_CHUNK + 77) /* three chunks, the last short */
#define NF 16
#define KC 3

static uint8_t X[(size_t)NS * NF];
static double Yv[NS], CV[KC] = {1, 2, 3};
static int Cls[NS];

static fsvc_dataset make_set(void)
{
    uint64_t st = 7;
    for (int i = 0; i < NS; i++) {
        Cls[i] = (int)(fsvc_rng_next(&st) % KC);
        Yv[i] = CV[Cls[i]];
        for (int j = 0; j < NF; j++)
            X[(size_t)i * NF + j] = (uint8_t)(60 * ((Cls[i] + j) % 4) + fsvc_rng_next(&st) % 50);
    }
    fsvc_dataset D;
    memset(&D, 0, sizeof D);
    D.N = NS; D.n = NF; D.dtype = FSVC_U8; D.x = X;
    D.has_labels = 1; D.y = Yv; D.cls = Cls; D.K = KC; D.class_values = CV;
    D.rows = 4; D.cols = 4;
    strcpy(D.source, "synthetic");
    return D;
}

/* An f32 L2 model (the GEMM path, whose bits depend on the chunk) trained on
 * the first 400 samples. */
static void make_model(fsvc_model *M, const fsvc_dataset *D)
{
    fsvc_dataset T = *D;
    T.N = 400;
    fsvc_param p;
    fsvc_param_default(&p);
    p.select = FSVC_SELECT_RANDOM;
    p.max_neurons = 60;
    p.readout = FSVC_READOUT_RIDGE;
    p.dist = BNL_L2;
    p.act = BNL_GAUSS;
    p.radius = 0.8;
    p.dtype = FSVC_F32;
    p.scale = FSVC_SCALE_01;
    p.lambda = 1e-2;
    p.preprocess = FSVC_PRE_NONE;
    p.threads = 2;
    fsvc_error err;
    int rc = fsvc_train(M, NULL, &T, &p, &err);
    if (rc) fail_msg("train: %s", err.msg);
}

typedef struct fill_log {
    int64_t next;     /* the next sample expected */
    int64_t max_rows; /* the largest fill */
    int64_t fail_at;  /* a fill holding this sample fails (-1: none) */
    int calls;
} fill_log;

static int fill_rows(void *self, void *x, int64_t lo, int64_t hi, fsvc_error *err)
{
    fill_log *L = self;
    L->calls++;
    if (lo != L->next) return fsvc_fail(err, FSVC_EINPUT, "fill out of order: %lld", (long long)lo);
    L->next = hi;
    if (hi - lo > L->max_rows) L->max_rows = hi - lo;
    if (L->fail_at >= lo && L->fail_at < hi)
        return fsvc_fail(err, FSVC_EINPUT, "sample %lld: broken", (long long)L->fail_at);
    memcpy(x, X + (size_t)lo * NF, (size_t)(hi - lo) * NF);
    return FSVC_OK;
}

typedef struct prog_log {
    int64_t last;
    int calls;
} prog_log;

static void on_progress(void *self, int64_t done, int64_t N)
{
    prog_log *P = self;
    assert_int_equal(N, NS);
    assert_true(done > P->last);
    P->last = done;
    P->calls++;
}

static void test_batched_equals_whole(void **state)
{
    (void)state;
    fsvc_dataset D = make_set();
    fsvc_model M;
    make_model(&M, &D);
    int K = M.Kout;
    int *p0 = malloc(NS * sizeof *p0), *p1 = malloc(NS * sizeof *p1);
    double *s0 = malloc((size_t)NS * K * sizeof *s0), *s1 = malloc((size_t)NS * K * sizeof *s1);
    assert_non_null(p0); assert_non_null(p1); assert_non_null(s0); assert_non_null(s1);
    fsvc_error err;
    int rc = fsvc_predict(p0, s0, &M, &D, "cpu", 2, &err);
    if (rc) fail_msg("predict: %s", err.msg);
    static const int64_t Bs[] = {1, 5000, FSVC_PREDICT_CHUNK, FSVC_PREDICT_CHUNK + 1, 0, NS + 5};
    for (size_t b = 0; b < sizeof Bs / sizeof *Bs; b++) {
        int64_t B = Bs[b], E = B > 0 ? fsvc_batch_size(B) : NS;
        memset(p1, 0xff, NS * sizeof *p1);
        memset(s1, 0xff, (size_t)NS * K * sizeof *s1);
        fill_log L = {0, 0, -1, 0};
        prog_log P = {0, 0};
        fsvc_dataset meta = D;
        meta.x = NULL; /* unused: the samples come from fill_rows */
        rc = fsvc_predict_batched(p1, s1, &M, &meta, &(fsvc_batch_job){B, fill_rows, &L, on_progress, &P, "cpu", 2, NULL}, &err);
        if (rc) fail_msg("batch %lld: %s", (long long)B, err.msg);
        assert_int_equal(L.next, NS);
        assert_int_equal(L.calls, fsvc_batch_count(NS, E));
        assert_true(L.max_rows <= E);
        assert_int_equal(P.last, NS);
        assert_int_equal(P.calls, L.calls);
        if (memcmp(p0, p1, NS * sizeof *p0))
            fail_msg("batch %lld: predictions differ", (long long)B);
        if (memcmp(s0, s1, (size_t)NS * K * sizeof *s0))
            fail_msg("batch %lld: scores differ from the whole set's bits", (long long)B);
    }
    /* pred only (score NULL), as eval asks */
    fill_log L = {0, 0, -1, 0};
    memset(p1, 0xff, NS * sizeof *p1);
    rc = fsvc_predict_batched(p1, NULL, &M, &D, &(fsvc_batch_job){3, fill_rows, &L, NULL, NULL, "cpu", 1, NULL}, &err);
    assert_int_equal(rc, FSVC_OK);
    assert_memory_equal(p0, p1, NS * sizeof *p0);
    fsvc_free_model(&M);
    free(p0); free(p1); free(s0); free(s1);
}

static void test_batched_errors(void **state)
{
    (void)state;
    fsvc_dataset D = make_set();
    fsvc_model M;
    make_model(&M, &D);
    int *pred = malloc(NS * sizeof *pred);
    assert_non_null(pred);
    fsvc_error err;
    /* in batch 2: batch 1 scored, batch 2 not */
    fill_log L = {0, 0, FSVC_PREDICT_CHUNK + 100, 0};
    prog_log P = {0, 0};
    int rc = fsvc_predict_batched(pred, NULL, &M, &D, &(fsvc_batch_job){1, fill_rows, &L, on_progress, &P, "cpu", 2, NULL}, &err);
    assert_int_equal(rc, FSVC_EINPUT);
    assert_string_equal(err.msg, "sample 8292: broken");
    assert_int_equal(P.calls, 1);
    assert_int_equal(P.last, FSVC_PREDICT_CHUNK);
    assert_int_equal(L.calls, 2); /* batch 3 never filled */
    /* in batch 1: nothing scored */
    fill_log L1 = {0, 0, 5, 0};
    prog_log P1 = {0, 0};
    rc = fsvc_predict_batched(pred, NULL, &M, &D, &(fsvc_batch_job){1, fill_rows, &L1, on_progress, &P1, "cpu", 2, NULL}, &err);
    assert_int_equal(rc, FSVC_EINPUT);
    assert_string_equal(err.msg, "sample 5: broken");
    assert_int_equal(P1.calls, 0);
    assert_int_equal(L1.calls, 1);
    /* the scoring's own error (the set's n is not the model's) */
    fsvc_dataset W = D;
    W.n = NF + 1; /* fill_rows writes less than the rows: no overrun */
    fill_log L2 = {0, 0, -1, 0};
    rc = fsvc_predict_batched(pred, NULL, &M, &W, &(fsvc_batch_job){1, fill_rows, &L2, NULL, NULL, "cpu", 2, NULL}, &err);
    assert_int_equal(rc, FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "features, the model expects"));
    fsvc_free_model(&M);
    free(pred);
}

/* On the (emulated) device: one context for the run, one scores call per
 * batch on the device, the classes of the whole set's call and its scores
 * within the device's f32 tolerance (a device call's bits may depend on
 * its size). */
static void test_batched_device(void **state)
{
    (void)state;
    fsvc_dataset D = make_set();
    fsvc_model M;
    make_model(&M, &D);
    int K = M.Kout;
    int *p0 = malloc(NS * sizeof *p0), *p1 = malloc(NS * sizeof *p1);
    double *s0 = malloc((size_t)NS * K * sizeof *s0), *s1 = malloc((size_t)NS * K * sizeof *s1);
    assert_non_null(p0); assert_non_null(p1); assert_non_null(s0); assert_non_null(s1);
    fsvc_error err;
    bnl_ctx dc;
    assert_int_equal(bnl_ctx_open_device(&dc, emu_device_ops(), 1, 1, &err), FSVC_OK);
    emu_device_reset(0, 0, 0);
    int rc = fsvc_predict_ctx(p0, s0, &M, &D, &dc, 1, &err);
    bnl_ctx_close(&dc);
    emu_stats whole = emu_device_stats();
    emu_device_reset(0, 0, 0);
    fill_log L = {0, 0, -1, 0};
    int rc1 = fsvc_predict_batched(p1, s1, &M, &D, &(fsvc_batch_job){1, fill_rows, &L, NULL, NULL, "cuda", 1, emu_device_ops()}, &err);
    emu_stats batched = emu_device_stats();
    if (rc || rc1) fail_msg("predict on the device: %s", err.msg);
    assert_int_equal(whole.scores, 1);
    assert_int_equal(batched.scores, 3); /* 8192 + 8192 + 77 */
    assert_memory_equal(p0, p1, NS * sizeof *p0);
    for (size_t i = 0; i < (size_t)NS * K; i++)
        if (fabs(s0[i] - s1[i]) > 1e-5 * (1 + fabs(s0[i])))
            fail_msg("score %zu: %.17g vs %.17g", i, s1[i], s0[i]);
    fsvc_free_model(&M);
    free(p0); free(p1); free(s0); free(s1);
}

/* ---- a PNG folder listed, then decoded by ranges ---- */

static void png_at(const char *root, const char *name, int w, int h, int v)
{
    char p[4096];
    uint8_t g[64];
    for (int i = 0; i < w * h; i++) g[i] = (uint8_t)(v + 3 * i);
    fx_join(p, sizeof p, root, name);
    assert_int_equal(fx_write_png(p, w, h, 0, 8, g, NULL, 0), 0);
}

/* root/{a,b}/NN.png, 6 + 5 images of 4x3 */
static void make_folder(const char *root)
{
    char p[4096];
    assert_int_equal(mkdir(root, 0755), 0);
    assert_int_equal(mkdir(fx_join(p, sizeof p, root, "a"), 0755), 0);
    assert_int_equal(mkdir(fx_join(p, sizeof p, root, "b"), 0755), 0);
    for (int i = 0; i < 11; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s/%02d.png", i < 6 ? "a" : "b", i);
        png_at(root, name, 4, 3, 10 * i);
    }
}

static void test_pngdir_decode(void **state)
{
    char root[4096];
    fx_join(root, sizeof root, *state, "set");
    make_folder(root);
    fsvc_dataset full, meta;
    fsvc_error err;
    assert_int_equal(fsvc_dataset_load(&full, root, NULL, &err), FSVC_OK);
    int rc = fsvc_pngdir_list(&meta, root, NULL, &err);
    if (rc) fail_msg("list: %s", err.msg);
    assert_null(meta.x);
    assert_int_equal(meta.N, full.N);
    assert_int_equal(meta.n, full.n);
    assert_int_equal(meta.rows, 3);
    assert_int_equal(meta.cols, 4);
    assert_int_equal(meta.dtype, FSVC_U8);
    assert_int_equal(meta.has_labels, 1);
    assert_int_equal(meta.K, full.K);
    for (int k = 0; k < meta.K; k++) {
        assert_string_equal(meta.class_names[k], full.class_names[k]);
        assert_true(meta.class_values[k] == full.class_values[k]);
    }
    for (int64_t i = 0; i < meta.N; i++) {
        assert_string_equal(meta.paths[i], full.paths[i]);
        assert_true(meta.y[i] == full.y[i]);
        assert_int_equal(meta.cls[i], full.cls[i]);
    }
    uint8_t x[11 * 12];
    for (int64_t lo = 0; lo < meta.N; lo += 4) { /* ranges 4, 4, 3 */
        int64_t hi = lo + 4 < meta.N ? lo + 4 : meta.N;
        memset(x, 0, sizeof x);
        assert_int_equal(fsvc_pngdir_decode(x, &meta, lo, hi, 0, 2, &err), FSVC_OK);
        assert_memory_equal(x, (uint8_t *)full.x + lo * 12, (size_t)(hi - lo) * 12);
    }
    assert_int_equal(fsvc_pngdir_decode(x, &meta, 5, 12, 0, 2, &err), FSVC_EUSAGE);
    fsvc_dataset_free(&full);

    /* images 5 (another size) and 8 (not a PNG) broken: the first one in
     * a range is the error, the message fsvc_dataset_load gives */
    png_at(root, "a/05.png", 3, 3, 0);
    char p8[4096];
    assert_int_equal(fx_write_text(fx_join(p8, sizeof p8, root, "b/08.png"), "not a png\n"), 0);
    fsvc_error e_load, e_dec;
    assert_int_equal(fsvc_dataset_load(&full, root, NULL, &e_load), FSVC_EINPUT);
    assert_int_equal(fsvc_pngdir_decode(x, &meta, 0, 11, 0, 4, &e_dec), FSVC_EINPUT);
    assert_string_equal(e_dec.msg, e_load.msg);
    assert_non_null(strstr(e_dec.msg, "a/05.png: image is 3x3"));
    assert_int_equal(fsvc_pngdir_decode(x, &meta, 6, 11, 0, 4, &e_dec), FSVC_EINPUT);
    assert_non_null(strstr(e_dec.msg, "b/08.png"));
    assert_int_equal(fsvc_pngdir_decode(x, &meta, 0, 5, 0, 4, &e_dec), FSVC_OK);
    assert_int_equal(fsvc_pngdir_decode(x, &meta, 5, 6, 1, 1, &e_dec), FSVC_OK); /* resized */
    fsvc_dataset_free(&meta);

    /* a broken first image: the listing fails as the load does */
    assert_int_equal(fx_write_text(fx_join(p8, sizeof p8, root, "a/00.png"), "x"), 0);
    assert_int_equal(fsvc_dataset_load(&full, root, NULL, &e_load), FSVC_EINPUT);
    assert_int_equal(fsvc_pngdir_list(&meta, root, NULL, &e_dec), FSVC_EINPUT);
    assert_string_equal(e_dec.msg, e_load.msg);
    /* an unlabelled folder needs allow_unlabelled, as the load */
    char flat[4096];
    fx_join(flat, sizeof flat, *state, "flat");
    assert_int_equal(mkdir(flat, 0755), 0);
    png_at(flat, "1.png", 2, 2, 0);
    png_at(flat, "2.png", 2, 2, 9);
    assert_int_equal(fsvc_pngdir_list(&meta, flat, NULL, &e_dec), FSVC_EINPUT);
    fsvc_load_opts o = {0, 1, 0, FSVC_STORE_DENSE, 0, 0, 0, 0, 0};
    assert_int_equal(fsvc_pngdir_list(&meta, flat, &o, &e_dec), FSVC_OK);
    assert_int_equal(meta.N, 2);
    assert_int_equal(meta.has_labels, 0);
    assert_null(meta.y);
    fsvc_dataset_free(&meta);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitter),
        cmocka_unit_test(test_batched_equals_whole),
        cmocka_unit_test(test_batched_errors),
        cmocka_unit_test(test_batched_device),
        cmocka_unit_test(test_pngdir_decode),
    };
    return cmocka_run_group_tests(tests, fx_tmpdir_setup, fx_tmpdir_teardown);
}
