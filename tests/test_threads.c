/*
 * test_threads.c - one thread count per context: the OpenMP teams and the
 * OpenBLAS/LAPACK calls of the engine and of the ridge readout (training)
 * are bounded by bnl_ctx.threads, whatever OpenBLAS's process-wide count
 * was, and that count is restored after each call.
 *
 * The BLAS and LAPACK entry points fsvc calls are interposed here (the
 * executable's definitions win over libopenblas.so's): each records the
 * OpenBLAS thread count and the OpenMP team size it runs with, then calls
 * the real function (dlsym RTLD_NEXT). So is GOMP_parallel, libgomp's entry
 * for every `#pragma omp parallel`: it records the team size asked for
 * (0 = the OpenMP default, i.e. unbounded by the context).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "fsvc/internal.h"
#include "fsvc/solver.h"

static int seen_calls, seen_blas_max, seen_team_max;
static int teams, team_ask_max, team_ask_default; /* GOMP_parallel requests */

static void seen_reset(void)
{
    seen_calls = seen_blas_max = seen_team_max = 0;
    teams = team_ask_max = team_ask_default = 0;
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    teams++;
    if (num_threads == 0)
        team_ask_default++;
    if ((int)num_threads > team_ask_max)
        team_ask_max = (int)num_threads;
    ((void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(RTLD_NEXT, "GOMP_parallel"))(
        fn, data, num_threads, flags);
}

static void seen_record(void)
{
    int b = openblas_get_num_threads(), t = omp_get_num_threads();
    #pragma omp critical(seen)
    {
        seen_calls++;
        if (b > seen_blas_max) seen_blas_max = b;
        if (t > seen_team_max) seen_team_max = t;
    }
}

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        abort();
    return f;
}

void cblas_sgemm(const CBLAS_ORDER o, const CBLAS_TRANSPOSE ta, const CBLAS_TRANSPOSE tb,
                 const blasint M, const blasint N, const blasint K, const float alpha,
                 const float *A, const blasint lda, const float *B, const blasint ldb,
                 const float beta, float *C, const blasint ldc)
{
    seen_record();
    ((void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
               const float *, blasint, const float *, blasint, float, float *,
               blasint))real("cblas_sgemm"))(o, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta,
                                            C, ldc);
}

void cblas_dsyrk(const CBLAS_ORDER o, const CBLAS_UPLO u, const CBLAS_TRANSPOSE t,
                 const blasint N, const blasint K, const double alpha, const double *A,
                 const blasint lda, const double beta, double *C, const blasint ldc)
{
    seen_record();
    ((void (*)(CBLAS_ORDER, CBLAS_UPLO, CBLAS_TRANSPOSE, blasint, blasint, double,
               const double *, blasint, double, double *, blasint))real("cblas_dsyrk"))(
        o, u, t, N, K, alpha, A, lda, beta, C, ldc);
}

void cblas_ssyrk(const CBLAS_ORDER o, const CBLAS_UPLO u, const CBLAS_TRANSPOSE t,
                 const blasint N, const blasint K, const float alpha, const float *A,
                 const blasint lda, const float beta, float *C, const blasint ldc)
{
    seen_record();
    ((void (*)(CBLAS_ORDER, CBLAS_UPLO, CBLAS_TRANSPOSE, blasint, blasint, float,
               const float *, blasint, float, float *, blasint))real("cblas_ssyrk"))(
        o, u, t, N, K, alpha, A, lda, beta, C, ldc);
}

lapack_int LAPACKE_dpotrf(int layout, char uplo, lapack_int n, double *a, lapack_int lda)
{
    seen_record();
    return ((lapack_int(*)(int, char, lapack_int, double *, lapack_int))real(
        "LAPACKE_dpotrf"))(layout, uplo, n, a, lda);
}

/* OpenBLAS set to `wide` threads process-wide (2, or 1 on a 1-core box:
 * then every bound below holds trivially, and the test says so). */
static int set_wide(void)
{
    openblas_set_num_threads(2);
    int wide = openblas_get_num_threads();
    if (wide < 2)
        print_message("OpenBLAS runs 1 thread here: bounds hold trivially\n");
    return wide;
}

static void fill(float *a, size_t k, unsigned seed)
{
    for (size_t i = 0; i < k; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = (float)((seed >> 16) & 255) / 255.0f;
    }
}

/* The engine's GEMM path (f32 L2): BLAS at 1 thread inside teams of at
 * most ctx.threads, the process count restored after. */
static void test_engine_gemm_bounded(void **state)
{
    const int64_t m = 64, N = 96;
    const int n = 24;
    float *W = malloc(sizeof(float) * m * n), *X = malloc(sizeof(float) * N * n);
    float *H = malloc(sizeof(float) * N * m);
    assert_non_null(W); assert_non_null(X); assert_non_null(H);
    fill(W, (size_t)(m * n), 1);
    fill(X, (size_t)(N * n), 2);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 1.0, BNL_PREC_FULL};
    for (int threads = 1; threads <= 2; threads++) {
        int wide = set_wide();
        bnl_ctx ctx;
        fsvc_error err;
        assert_int_equal(bnl_ctx_open(&ctx, "cpu", threads, 0, &err), FSVC_OK);
        ctx.par_min_syn = -1; /* a team even for this small call */
        seen_reset();
        assert_int_equal(bnl_forward(&ctx, &op, H, m, W, m, X, N, n, &err), FSVC_OK);
        assert_true(seen_calls > 0);
        assert_int_equal(seen_blas_max, 1);
        assert_true(seen_team_max >= 1 && seen_team_max <= threads);
        assert_int_equal(openblas_get_num_threads(), wide); /* restored */
        bnl_ctx_close(&ctx);
    }
    free(W); free(X); free(H);
}

/* The ridge readout's Gram (syrk) and Cholesky (potrf) run on ctx.threads
 * OpenBLAS threads, not on the process-wide count (training, study). */
static void test_ridge_bounded(void **state)
{
    const int64_t m = 8, N = 64;
    const int n = 6, K = 2;
    float *X = malloc(sizeof(float) * N * n);
    int *cls = malloc(sizeof(int) * N);
    double *R = malloc(sizeof(double) * m * K);
    assert_non_null(X); assert_non_null(cls); assert_non_null(R);
    fill(X, (size_t)(N * n), 7);
    for (int64_t i = 0; i < N; i++)
        cls[i] = (int)(i % K);
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_F32, 2.0, BNL_PREC_FULL};
    int wide = set_wide();
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), FSVC_OK);
    seen_reset();
    fsvc_ridge_problem pb = {.ctx = &ctx, .op = &op, .C = X, .m = m, .X = X, .cls = cls,
                             .N = N, .n = n, .K = K};
    int rc = fsvc_readout_ridge(R, &pb, 1e-3, -1, 0, NULL, &err);
    assert_int_equal(rc, FSVC_OK);
    assert_true(seen_calls >= 2); /* dsyrk and dpotrf at least */
    assert_int_equal(seen_blas_max, 1);
    assert_int_equal(openblas_get_num_threads(), wide);
    bnl_ctx_close(&ctx);
    free(X); free(cls); free(R);
}

/* fsvc_train with threads = 1: every BLAS/LAPACK call on 1 thread. */
static void test_train_bounded(void **state)
{
    const int64_t N = 80;
    const int n = 5;
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = N;
    d.n = n;
    d.dtype = FSVC_F32;
    d.x = malloc(sizeof(float) * N * n);
    d.y = malloc(sizeof(double) * N);
    d.has_labels = 1;
    assert_non_null(d.x); assert_non_null(d.y);
    fill(d.x, (size_t)(N * n), 11);
    for (int64_t i = 0; i < N; i++)
        d.y[i] = (double)(i % 3);
    fsvc_error err;
    assert_int_equal(fsvc_dataset_index_classes(&d, &err), FSVC_OK);
    fsvc_param p;
    fsvc_param_default(&p);
    p.readout = FSVC_READOUT_RIDGE;
    p.select = FSVC_SELECT_RANDOM;
    p.max_neurons = 20;
    p.radius = 1.0;
    p.threads = 1;
    p.progress = 0;
    int wide = set_wide();
    fsvc_model model;
    memset(&model, 0, sizeof model);
    seen_reset();
    assert_int_equal(fsvc_train(&model, NULL, &d, &p, &err), FSVC_OK);
    assert_true(seen_calls >= 2);
    assert_int_equal(seen_blas_max, 1);
    assert_int_equal(seen_team_max, 1);
    assert_int_equal(openblas_get_num_threads(), wide);
    fsvc_free_model(&model);
    fsvc_dataset_free(&d);
}

/* Training with deskew (an OpenMP pass of its own, fsvc/deskew.c) on
 * threads = 1: every OpenMP team fsvc starts asks for 1 thread, none for
 * the OpenMP default. */
static void test_train_deskew_teams(void **state)
{
    const int64_t N = 60;
    const int rows = 8, cols = 8, n = rows * cols;
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = N;
    d.n = n;
    d.rows = rows;
    d.cols = cols;
    d.dtype = FSVC_U8;
    d.x = malloc((size_t)(N * n));
    d.y = malloc(sizeof(double) * N);
    d.has_labels = 1;
    assert_non_null(d.x); assert_non_null(d.y);
    unsigned seed = 5;
    for (int64_t i = 0; i < N * n; i++) {
        seed = seed * 1103515245u + 12345u;
        ((unsigned char *)d.x)[i] = (unsigned char)(seed >> 24);
    }
    for (int64_t i = 0; i < N; i++)
        d.y[i] = (double)(i % 2);
    fsvc_error err;
    assert_int_equal(fsvc_dataset_index_classes(&d, &err), FSVC_OK);
    fsvc_param p;
    fsvc_param_default(&p);
    p.preprocess = FSVC_PRE_DESKEW;
    p.dtype = FSVC_F32;
    p.readout = FSVC_READOUT_RIDGE;
    p.select = FSVC_SELECT_RANDOM;
    p.max_neurons = 16;
    p.radius = 500.0;
    p.threads = 1;
    p.progress = 0;
    fsvc_model model;
    memset(&model, 0, sizeof model);
    seen_reset();
    assert_int_equal(fsvc_train(&model, NULL, &d, &p, &err), FSVC_OK);
    assert_true(teams > 0);
    assert_int_equal(team_ask_default, 0);
    assert_int_equal(team_ask_max, 1);
    int *pred = malloc(sizeof(int) * N);
    assert_non_null(pred);
    seen_reset();
    assert_int_equal(fsvc_predict(pred, NULL, &model, &d, "cpu", 1, &err), FSVC_OK);
    assert_true(teams > 0);
    assert_int_equal(team_ask_default, 0);
    assert_int_equal(team_ask_max, 1);
    free(pred);
    fsvc_free_model(&model);
    fsvc_dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_gemm_bounded),
        cmocka_unit_test(test_ridge_bounded),
        cmocka_unit_test(test_train_bounded),
        cmocka_unit_test(test_train_deskew_teams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
