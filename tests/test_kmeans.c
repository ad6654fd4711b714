/* test_kmeans.c - k-means++ seeding (fsvc/select_kmeans.c): reproducible
 * with a seed, m distinct samples, m = N selects all, the D^2 property (two
 * far clusters, m = 2: one centroid in each, for almost every seed; a
 * uniform draw would miss half the time), the batched rounds past the
 * exact start, ref (plain loops) = cpu (tiled, GEMM) on exact u8 distances,
 * every dtype and distance, bad arguments; and fsvc_train
 * with -s kmeans++ (the model's centroids are the selected samples, its
 * refusals). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/internal.h"

/* X: N x n values in [0, 64) of type t. */
static void *rand_x(fsvc_dtype t, int64_t N, int n, uint64_t seed)
{
    void *X = malloc((size_t)N * n * fsvc_dtype_size(t));
    uint64_t st = seed;
    for (int64_t q = 0; q < N * n; q++) {
        int v = (int)(fsvc_rng_next(&st) % 64);
        if (t == FSVC_U8) ((uint8_t *)X)[q] = (uint8_t)v;
        else if (t == FSVC_F32) ((float *)X)[q] = (float)v / 4;
        else ((double *)X)[q] = (double)v / 4;
    }
    return X;
}

static int run_on(const char *backend, int64_t *sel, int64_t m, const void *X, int64_t N, int n,
                  fsvc_dtype t, bnl_dist dist, uint64_t seed)
{
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, backend, 2, 0, &err), 0);
    bnl_op op = {.dist = dist, .act = BNL_GAUSS, .dtype = t, .radius = 1.0,
                 .precision = BNL_PREC_FULL};
    double syn = -1;
    fsvc_select_problem pb = {.ctx = &ctx, .op = &op, .X = X, .N = N, .n = n};
    fsvc_select_opt o = {.seed = seed};
    int rc = fsvc_select_kmeans(sel, m, &syn, &pb, &o, &err);
    bnl_ctx_close(&ctx);
    if (!rc && m < N) assert_true(syn > 0 && syn <= (double)N * m * n);
    return rc;
}

static int run(int64_t *sel, int64_t m, const void *X, int64_t N, int n, fsvc_dtype t,
               bnl_dist dist, uint64_t seed)
{
    return run_on("cpu", sel, m, X, N, n, t, dist, seed);
}

static void assert_distinct(const int64_t *sel, int64_t m, int64_t N)
{
    unsigned char *seen = calloc((size_t)N, 1);
    for (int64_t j = 0; j < m; j++) {
        assert_true(sel[j] >= 0 && sel[j] < N);
        assert_int_equal(seen[sel[j]], 0);
        seen[sel[j]] = 1;
    }
    free(seen);
}

static void test_reproducible_distinct(void **state)
{
    (void)state;
    const fsvc_dtype types[] = {FSVC_U8, FSVC_F32, FSVC_F64};
    const int64_t N = 3000, m = 700; /* past 8: batched rounds, several blocks */
    const int n = 7;
    for (int ti = 0; ti < 3; ti++)
        for (int dist = BNL_L1; dist <= BNL_L2; dist++) {
            void *X = rand_x(types[ti], N, n, 5 + ti);
            int64_t a[700], b[700], c[700];
            assert_int_equal(run(a, m, X, N, n, types[ti], (bnl_dist)dist, 42), 0);
            assert_int_equal(run(b, m, X, N, n, types[ti], (bnl_dist)dist, 42), 0);
            assert_int_equal(run(c, m, X, N, n, types[ti], (bnl_dist)dist, 43), 0);
            assert_memory_equal(a, b, sizeof a);
            assert_memory_not_equal(a, c, sizeof a);
            assert_distinct(a, m, N);
            free(X);
        }
}

/* The engine's fast path (cpu: tiled kernels, GEMM for L2) against its
 * plain reference (ref): u8 distances are exact integers on both, so the
 * D^2 weights and every draw are the same. */
static void test_ref_equals_cpu(void **state)
{
    (void)state;
    const int64_t N = 1500, m = 300;
    const int n = 19; /* not a multiple of any vector width: edge tiles */
    void *X = rand_x(FSVC_U8, N, n, 21);
    for (int dist = BNL_L1; dist <= BNL_L2; dist++) {
        int64_t a[300], b[300];
        assert_int_equal(run_on("ref", a, m, X, N, n, FSVC_U8, (bnl_dist)dist, 8), 0);
        assert_int_equal(run_on("cpu", b, m, X, N, n, FSVC_U8, (bnl_dist)dist, 8), 0);
        assert_memory_equal(a, b, sizeof a);
    }
    free(X);
}

static void test_all(void **state)
{
    (void)state;
    const int64_t N = 50;
    void *X = rand_x(FSVC_F32, N, 3, 1);
    int64_t sel[50];
    assert_int_equal(run(sel, N, X, N, 3, FSVC_F32, BNL_L2, 9), 0);
    assert_distinct(sel, N, N);
    /* N - 1 too: every draw past the exact start, distinct */
    assert_int_equal(run(sel, N - 1, X, N, 3, FSVC_F32, BNL_L1, 9), 0);
    assert_distinct(sel, N - 1, N);
    free(X);
}

/* Duplicated rows: once every distinct row is chosen the D^2 weights are
 * all 0; the draws go on, distinct, up to m. */
static void test_duplicates(void **state)
{
    (void)state;
    const int64_t N = 40;
    float X[40 * 2];
    for (int64_t i = 0; i < N; i++) { X[2 * i] = (float)(i % 3); X[2 * i + 1] = 1; }
    int64_t sel[30];
    assert_int_equal(run(sel, 30, X, N, 2, FSVC_F32, BNL_L2, 3), 0);
    assert_distinct(sel, 30, N);
    int seen[3] = {0, 0, 0}; /* the 3 distinct rows come first */
    for (int j = 0; j < 3; j++) seen[(int)X[2 * sel[j]]] = 1;
    assert_true(seen[0] && seen[1] && seen[2]);
}

/* Two clusters far apart, the first much larger: m = 2 puts one centroid
 * in each for (almost) every seed. A uniform draw of 2 would put both in
 * the big cluster about 80% of the time. */
static void test_d2_two_clusters(void **state)
{
    (void)state;
    const int64_t N = 500, small = 50;
    const int n = 4;
    for (int dist = BNL_L1; dist <= BNL_L2; dist++) {
        float *X = rand_x(FSVC_F32, N, n, 77); /* values in [0, 16) */
        for (int64_t i = N - small; i < N; i++)
            for (int k = 0; k < n; k++) X[i * n + k] += 1000.0f;
        int split = 0;
        for (uint64_t seed = 1; seed <= 100; seed++) {
            int64_t sel[2];
            assert_int_equal(run(sel, 2, X, N, n, FSVC_F32, (bnl_dist)dist, seed), 0);
            split += (sel[0] >= N - small) != (sel[1] >= N - small);
        }
        assert_true(split >= 99);
        free(X);
    }
}

static void test_bad_args(void **state)
{
    (void)state;
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), 0);
    float X[10 * 2] = {0};
    int64_t sel[11];
    bnl_op op = {.dist = BNL_L2, .act = BNL_GAUSS, .dtype = FSVC_F32, .radius = 1.0,
                 .precision = BNL_PREC_FULL};
    fsvc_select_problem pb = {.ctx = &ctx, .op = &op, .X = X, .N = 10, .n = 2};
    fsvc_select_opt o = {.seed = 1};
    assert_int_equal(fsvc_select_kmeans(sel, 0, NULL, &pb, &o, &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_select_kmeans(sel, 11, NULL, &pb, &o, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "11 centroids"));
    pb.X = NULL;
    assert_int_equal(fsvc_select_kmeans(sel, 2, NULL, &pb, &o, &err), FSVC_EUSAGE);
    pb.X = X;
    pb.N = 0;
    assert_int_equal(fsvc_select_kmeans(sel, 2, NULL, &pb, &o, &err), FSVC_EUSAGE);
    pb.N = 10;
    assert_int_equal(fsvc_select_kmeans(sel, 2, NULL, NULL, &o, &err), FSVC_EUSAGE);
    op.dist = BNL_DOT;
    assert_int_equal(fsvc_select_kmeans(sel, 2, NULL, &pb, &o, &err), FSVC_EUSAGE);
    bnl_ctx_close(&ctx);
}

/* fsvc_train -s kmeans++: m = max-neurons centroids, the samples the
 * seeding picks (same seed, same model), the selection stored and read
 * back; refusals: no radius, a sparse dataset. */
static void test_train(void **state)
{
    (void)state;
    const int64_t N = 400;
    const int n = 5;
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    float *X = rand_x(FSVC_F32, N, n, 11);
    double *y = malloc(N * sizeof *y);
    int *cls = malloc(N * sizeof *cls);
    for (int64_t i = 0; i < N; i++) { cls[i] = X[i * n] > 8; y[i] = cls[i]; }
    double cv[2] = {0, 1};
    d.N = N; d.n = n; d.dtype = FSVC_F32; d.x = X; d.y = y; d.cls = cls; d.K = 2;
    d.class_values = cv; d.has_labels = 1;
    strcpy(d.source, "synthetic");
    fsvc_param p;
    fsvc_param_default(&p);
    p.select = FSVC_SELECT_KMEANS;
    p.max_neurons = 60;
    p.seed = 5;
    p.threads = 1;
    fsvc_model a, b;
    fsvc_train_info info;
    fsvc_error err;
    if (fsvc_train(&a, &info, &d, &p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(a.m, 60);
    assert_int_equal(a.select, FSVC_SELECT_KMEANS);
    assert_true(info.syn_select > 0);
    assert_int_equal(fsvc_train(&b, NULL, &d, &p, &err), 0);
    assert_memory_equal(a.C, b.C, 60 * n * sizeof(float));
    fsvc_free_model(&b);
    /* the model file keeps the selection */
    const char *path = "test_kmeans.fsvc";
    assert_int_equal(fsvc_model_save(&a, path, &err), 0);
    assert_int_equal(fsvc_model_load(&b, path, &err), 0);
    remove(path);
    assert_int_equal(b.select, FSVC_SELECT_KMEANS);
    assert_string_equal(fsvc_select_name(b.select), "kmeans++");
    fsvc_free_model(&b);
    /* every centroid is a training sample with its label */
    for (int64_t j = 0; j < a.m; j++) {
        int found = 0;
        for (int64_t i = 0; i < N && !found; i++)
            found = !memcmp((float *)a.C + j * n, X + i * n, n * sizeof(float)) &&
                    a.lab[j] == cls[i];
        assert_true(found);
    }
    /* the model check: kmeans++ (4) is a stored selection, auto (3) is not */
    assert_int_equal(fsvc_model_check(&a, "m", &err), 0);
    a.select = FSVC_SELECT_AUTO;
    assert_int_equal(fsvc_model_check(&a, "m", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "unknown selection 3"));
    a.select = (fsvc_select)5;
    assert_int_equal(fsvc_model_check(&a, "m", &err), FSVC_EINPUT);
    a.select = FSVC_SELECT_KMEANS;
    fsvc_free_model(&a);
    /* no radius: refused, as random selection */
    p.radius_rms = 0; p.radius = 0;
    assert_int_equal(fsvc_train(&a, NULL, &d, &p, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "kmeans++ selection needs a radius"));
    free(X); free(y); free(cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reproducible_distinct),
        cmocka_unit_test(test_ref_equals_cpu),
        cmocka_unit_test(test_all),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_d2_two_clusters),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_train),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
