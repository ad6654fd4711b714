/*
 * test_cuda_emu2.c - the device-resident readout of cuda/ridge.cu run on
 * the host: every kernel body it launches (kernels_hd.h: the tile kernel,
 * the GEMM epilogue and row norms, bnlc_widen_body, bnlc_target_body,
 * bnlc_getdiag_body, bnlc_mirror_body, bnlc_diag_body) over its emulated
 * grid, and each cuBLAS / cuSOLVER call replaced by the CBLAS / LAPACKE
 * call with the same arguments (column-major, the same leading dimensions
 * and triangles), in the driver's chunk (Xc samples) and tile (Nt samples)
 * loops, with edge tiles: m not a multiple of 4 or of 128, the last chunk
 * and tile partial. Checked against the CPU path: diag(H^T H) and H^T T
 * against sums of the engine's own H, the ridge weights against
 * fsvc_readout_ridge on a cpu context, a retry after a failed
 * factorisation against a fresh solve (bit for bit), the scores against
 * bnl_scores on a cpu context, and the block products of an iterative
 * solver (H^T (H V), H^T T, sum H^2) against float64 sums of the CPU's H. No GPU and no nvcc needed.
 * The emulated jobs live in tests/util/emu_device.c (shared with the
 * emulated device of tests/test_device_pipeline.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>
#include <cblas.h>
#include <lapacke.h>

#include "cuda/kernels_hd.h"
#include "layers/act.h"
#include "fsvc/internal.h"
#include "fsvc/solver.h"

#include "tests/util/emu_device.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static void *rand_data(fsvc_dtype t, int64_t rows, int n)
{
    size_t cnt = (size_t)(rows * n);
    if (t == FSVC_U8) {
        uint8_t *A = malloc(cnt ? cnt : 1);
        assert_non_null(A);
        for (size_t q = 0; q < cnt; q++) A[q] = (uint8_t)(rnd() % 200);
        return A;
    }
    float *A = malloc(sizeof(float) * (cnt ? cnt : 1));
    assert_non_null(A);
    for (size_t q = 0; q < cnt; q++) A[q] = (float)(rnd() % 1000) / 1000.0f;
    return A;
}

static double rel(double a, double b, double scale)
{
    return fabs(a - b) / (scale > 0 ? scale : 1);
}

/* One shape: the emulated device ridge against the CPU. */
static void check_ridge(bnl_op op, int64_t m, int64_t N, int n, int K, int regress,
                        int64_t Nt, int64_t Xc)
{
    void *X = rand_data(op.dtype, N, n);
    /* centroids: the first m samples (as the novelty pass picks them) */
    void *W = malloc((size_t)(m * n) * (op.dtype == FSVC_U8 ? 1 : 4));
    assert_non_null(W);
    memcpy(W, X, (size_t)(m * n) * (op.dtype == FSVC_U8 ? 1 : 4));
    int *cls = malloc(sizeof(int) * (size_t)N);
    double *y = malloc(sizeof(double) * (size_t)N);
    assert_non_null(cls); assert_non_null(y);
    for (int64_t i = 0; i < N; i++) {
        cls[i] = (int)(rnd() % (unsigned)K);
        y[i] = (double)(rnd() % 100) / 10.0 - 5.0;
    }
    int Ke = regress ? 1 : K;
    emu e;
    emu_init(&e, op, W, m, N, n, Ke, Nt, Xc);
    emu_accum(&e, X, regress ? NULL : cls, regress ? y : NULL);

    /* diag(H^T H), H^T T and the lower G against the engine's H */
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 1, &err), FSVC_OK);
    float *H = malloc(sizeof(float) * (size_t)(N * m));
    assert_non_null(H);
    assert_int_equal(bnl_forward(&ctx, &op, H, m, W, m, X, N, n, &err), FSVC_OK);
    double gmax = 0;
    for (int64_t j = 0; j < m; j++) gmax = fmax(gmax, e.dg[j]);
    double *Gr = calloc((size_t)(m * m), sizeof(double)), *Br = calloc((size_t)(m * Ke), sizeof(double));
    assert_non_null(Gr); assert_non_null(Br);
    int bad = 0;
    for (int64_t a = 0; a < m; a++) {
        for (int64_t b = 0; b <= a; b++) {
            double g = 0;
            for (int64_t i = 0; i < N; i++) g += (double)H[i * m + a] * H[i * m + b];
            Gr[a + b * m] = g;
            double got = e.G[a + b * m], mir = e.G[b + a * m];
            if (rel(got, g, gmax) > 1e-6 || memcmp(&got, &mir, sizeof got)) {
                if (bad++ < 5)
                    print_message("G[%lld][%lld] = %.17g (mirror %.17g), want %.17g\n",
                                  (long long)a, (long long)b, got, mir, g);
            }
        }
        for (int k = 0; k < Ke; k++) {
            double t = 0;
            for (int64_t i = 0; i < N; i++)
                t += (double)H[i * m + a] * (regress ? y[i] : cls[i] == k ? 1.0 : 0.0);
            Br[a + (int64_t)k * m] = t;
            if (rel(e.B0[a + (int64_t)k * m], t, fmax(gmax, 1) * 10) > 1e-6 && bad++ < 5)
                print_message("B[%lld][%d] = %.17g, want %.17g\n", (long long)a, k,
                              e.B0[a + (int64_t)k * m], t);
        }
    }
    assert_int_equal(bad, 0);

    /* the weights: against a float64 reference solve of the sums above
     * (tight: both are float64 products), and against the CPU trainer,
     * whose chunk Gram blocks are float32 products (ssyrk of float H, summed
     * into a float64 G): there the difference is that rounding times the
     * condition number (~1/lambda), so only layout errors (O(1)) fail it */
    double lambda = 1e-3, md = 0;
    for (int64_t j = 0; j < m; j++) md += e.dg[j];
    md /= (double)m;
    double *Rc = malloc(sizeof(double) * (size_t)(m * Ke));
    double *Re = malloc(sizeof(double) * (size_t)(m * Ke));
    assert_non_null(Rc); assert_non_null(Re);
    fsvc_ridge_problem pb = {.ctx = &ctx, .op = &op, .C = W, .m = m, .X = X,
                             .cls = regress ? NULL : cls, .y = regress ? y : NULL, .N = N,
                             .n = n, .K = Ke};
    assert_int_equal(fsvc_readout_ridge(Rc, &pb, lambda, 0, 0, NULL, &err), FSVC_OK);
    assert_int_equal(emu_solve(&e, lambda * md, Re), 0);
    for (int64_t j = 0; j < m; j++) Gr[j + j * m] += lambda * md;
    assert_int_equal(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (int)m, Gr, (int)m), 0);
    assert_int_equal(LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (int)m, Ke, Gr, (int)m, Br, (int)m), 0);
    double rmax = 0;
    for (int64_t q = 0; q < m * Ke; q++) rmax = fmax(rmax, fabs(Rc[q]));
    /* u8: the device's H is the engine's H bit for bit, so only the order
     * of the float64 sums differs; f32: the distances differ by float
     * rounding (n 2^-24 relative), times the condition number */
    double tol = op.dtype == FSVC_U8 ? 1e-8 : 1e-3;
    for (int64_t j = 0; j < m; j++)
        for (int k = 0; k < Ke; k++) {
            double got = Re[j + (int64_t)k * m];
            if (rel(got, Br[j + (int64_t)k * m], rmax) > tol && bad++ < 5)
                print_message("R[%lld][%d] = %.17g, float64 reference %.17g\n", (long long)j,
                              k, got, Br[j + (int64_t)k * m]);
            if (rel(got, Rc[j * Ke + k], rmax) > 2e-2 && bad++ < 5)
                print_message("R[%lld][%d] = %.17g, cpu %.17g\n", (long long)j, k, got,
                              Rc[j * Ke + k]);
        }
    assert_int_equal(bad, 0);
    free(Gr); free(Br);

    /* a second solve on the same G (a retry) gives the same bits */
    double *R2 = malloc(sizeof(double) * (size_t)(m * Ke));
    assert_non_null(R2);
    assert_int_equal(emu_solve(&e, lambda * md * 3, R2), 0);
    assert_int_equal(emu_solve(&e, lambda * md, R2), 0);
    assert_memory_equal(R2, Re, sizeof(double) * (size_t)(m * Ke));

    bnl_ctx_close(&ctx);
    emu_free(&e);
    free(X); free(W); free(cls); free(y); free(H); free(Rc); free(Re); free(R2);
}

static void test_ridge_u8_l1(void **s)
{
    (void)s;
    bnl_op op = {BNL_L1, BNL_GAUSS, FSVC_U8, 900.0, BNL_PREC_FULL};
    check_ridge(op, 133, 301, 50, 3, 0, 128, 256);  /* 2 block rows, ldo 136, chunks 256 + 45 */
    check_ridge(op, 1, 1, 5, 2, 0, 128, 128);        /* one of everything */
    check_ridge(op, 37, 90, 9, 1, 1, 32, 64);        /* regression: y, K = 1 */
}

static void test_ridge_u8_tri(void **s)
{
    (void)s;
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_U8, 2500.0, BNL_PREC_FULL};  /* exact zeros in H */
    check_ridge(op, 70, 200, 33, 4, 0, 64, 200);     /* one resident chunk, tiles 64 + .. + 8 */
}

static void test_ridge_f32_l1(void **s)
{
    (void)s;
    bnl_op op = {BNL_L1, BNL_GAUSS, FSVC_F32, 8.0, BNL_PREC_FULL};
    check_ridge(op, 130, 257, 21, 3, 0, 128, 160);
}

static void test_ridge_f32_l2_gemm(void **s)
{
    (void)s;
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 2.0, BNL_PREC_FULL};  /* the cuBLAS + epilogue path */
    check_ridge(op, 61, 150, 17, 3, 0, 48, 96);
}

/* A failed factorisation (lam = 0, fewer samples than centroids: H^T H is
 * singular), then the retry with a ridge: the same bits as a fresh solve. */
static void test_retry_restores_G(void **s)
{
    (void)s;
    bnl_op op = {BNL_L1, BNL_GAUSS, FSVC_U8, 900.0, BNL_PREC_FULL};
    int64_t m = 40, N = 12;
    int n = 16, K = 2;
    uint8_t *X = rand_data(FSVC_U8, N + m, n);
    int cls[12];
    for (int i = 0; i < 12; i++) cls[i] = i % K;
    emu a, b;
    emu_init(&a, op, X + N * n, m, N, n, K, 8, 8);
    emu_init(&b, op, X + N * n, m, N, n, K, 8, 8);
    emu_accum(&a, X, cls, NULL);
    emu_accum(&b, X, cls, NULL);
    double Ra[80], Rb[80];
    assert_true(emu_solve(&a, 0.0, Ra) > 0);         /* not positive definite */
    assert_int_equal(emu_solve(&a, 1e-2, Ra), 0);
    assert_int_equal(emu_solve(&b, 1e-2, Rb), 0);
    assert_memory_equal(Ra, Rb, sizeof Ra);
    emu_free(&a); emu_free(&b);
    free(X);
}

static void check_scores(bnl_op op, int64_t m, int64_t N, int n, int K, int64_t Nt, int64_t Xc)
{
    void *X = rand_data(op.dtype, N, n), *W = rand_data(op.dtype, m, n);
    double *R = malloc(sizeof(double) * (size_t)(m * K));
    double *Y = malloc(sizeof(double) * (size_t)(N * K)), *Yc = malloc(sizeof(double) * (size_t)(N * K));
    assert_non_null(R); assert_non_null(Y); assert_non_null(Yc);
    for (int64_t q = 0; q < m * K; q++) R[q] = (double)((int)(rnd() % 2001) - 1000) / 1000.0;
    for (int64_t q = 0; q < N * K; q++) Y[q] = NAN;
    emu e;
    emu_init(&e, op, W, m, N, n, K, Nt, Xc);
    struct emu_scores_u u = {R, Y};
    emu_run(&e, X, NULL, NULL, emu_scores_fn, &u);
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_scores(&ctx, &op, Yc, W, m, X, N, n, R, K, &err), FSVC_OK);
    int bad = 0;
    for (int64_t q = 0; q < N * K; q++)
        if (!(rel(Y[q], Yc[q], (double)m) < 1e-6) && bad++ < 5)
            print_message("Y[%lld] = %.17g, cpu %.17g\n", (long long)q, Y[q], Yc[q]);
    assert_int_equal(bad, 0);
    bnl_ctx_close(&ctx);
    emu_free(&e);
    free(X); free(W); free(R); free(Y); free(Yc);
}

static void test_scores(void **s)
{
    (void)s;
    bnl_op u8 = {BNL_L1, BNL_TRI, FSVC_U8, 2000.0, BNL_PREC_FULL};
    check_scores(u8, 131, 270, 40, 10, 128, 256);
    check_scores(u8, 1, 1, 3, 1, 128, 128);
    bnl_op l2 = {BNL_L2, BNL_GAUSS, FSVC_F32, 2.0, BNL_PREC_FULL};
    check_scores(l2, 45, 100, 13, 3, 32, 64);
}

/* The block products of an iterative solver (bnl_cuda_normal_apply /
 * _rhs): Y = H^T (H V) and B = H^T T with sum H^2, tile by tile
 * (emu_apply_fn). */
static void check_apply(bnl_op op, int64_t m, int64_t N, int n, int K, int64_t Nt, int64_t Xc)
{
    void *X = rand_data(op.dtype, N, n), *W = rand_data(op.dtype, m, n);
    double *V = malloc(sizeof(double) * (size_t)(m * K)), *Y = calloc((size_t)(m * K), 8);
    double *B = calloc((size_t)(m * K), 8), *Z = malloc(sizeof(double) * (size_t)(Nt * K));
    int *cls = malloc(sizeof(int) * (size_t)N);
    float *H = malloc(sizeof(float) * (size_t)(N * m));
    assert_non_null(V); assert_non_null(Y); assert_non_null(B); assert_non_null(Z);
    assert_non_null(cls); assert_non_null(H);
    for (int64_t q = 0; q < m * K; q++) V[q] = (double)((int)(rnd() % 2001) - 1000) / 1000.0;
    for (int64_t i = 0; i < N; i++) cls[i] = (int)(rnd() % (unsigned)K);
    emu e;
    emu_init(&e, op, W, m, N, n, K, Nt, Xc);
    struct emu_apply_u u = {V, Y, Z, B, 0};
    emu_run(&e, X, cls, NULL, emu_apply_fn, &u);
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_forward(&ctx, &op, H, m, W, m, X, N, n, &err), FSVC_OK);
    double tol = op.dtype == FSVC_U8 ? 1e-12 : 1e-5, ss = 0, ymax = 1;
    double *Yr = calloc((size_t)(m * K), 8), *Br = calloc((size_t)(m * K), 8);
    assert_non_null(Yr); assert_non_null(Br);
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < K; k++) {
            double z = 0;
            for (int64_t j = 0; j < m; j++) z += (double)H[i * m + j] * V[j + (int64_t)k * m];
            for (int64_t j = 0; j < m; j++) Yr[j + (int64_t)k * m] += (double)H[i * m + j] * z;
        }
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++) {
            ss += (double)H[i * m + j] * H[i * m + j];
            Br[j + (int64_t)cls[i] * m] += H[i * m + j];
        }
    for (int64_t q = 0; q < m * K; q++) ymax = fmax(ymax, fabs(Yr[q]));
    int bad = 0;
    for (int64_t q = 0; q < m * K; q++) {
        if (rel(Y[q], Yr[q], ymax) > tol && bad++ < 5)
            print_message("Y[%lld] = %.17g, want %.17g\n", (long long)q, Y[q], Yr[q]);
        if (rel(B[q], Br[q], fmax(1, fabs(Br[q]))) > tol && bad++ < 5)
            print_message("B[%lld] = %.17g, want %.17g\n", (long long)q, B[q], Br[q]);
    }
    if (rel(u.sumsq, ss, ss) > tol && bad++ < 5)
        print_message("sum H^2 = %.17g, want %.17g\n", u.sumsq, ss);
    assert_int_equal(bad, 0);
    bnl_ctx_close(&ctx);
    emu_free(&e);
    free(X); free(W); free(V); free(Y); free(B); free(Z); free(cls); free(H); free(Yr); free(Br);
}

static void test_block_products(void **s)
{
    (void)s;
    bnl_op u8 = {BNL_L1, BNL_GAUSS, FSVC_U8, 900.0, BNL_PREC_FULL};
    check_apply(u8, 133, 301, 50, 3, 128, 256);
    check_apply(u8, 1, 1, 4, 1, 128, 128);
    bnl_op l2 = {BNL_L2, BNL_GAUSS, FSVC_F32, 2.0, BNL_PREC_FULL};
    check_apply(l2, 61, 150, 17, 2, 48, 96);
}

/* The targets body: one-hot rows, or the regression value. */
static void test_targets(void **s)
{
    (void)s;
    int cls[3] = {2, 0, 1};
    double T[9], y[3] = {1.5, -2, 0}, Ty[3];
    for (int r = 0; r < 3; r++) bnlc_target_body(T, 3, cls, NULL, r);
    const double want[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
    assert_memory_equal(T, want, sizeof T);
    for (int r = 0; r < 3; r++) bnlc_target_body(Ty, 1, NULL, y, r);
    assert_memory_equal(Ty, y, sizeof y);
}

/* Without a device the normal equations are the CPU table's session. */
static void test_no_device_cpu_path(void **s)
{
    (void)s;
    bnl_ctx ctx;
    fsvc_error err;
    bnl_op op = {BNL_L1, BNL_GAUSS, FSVC_U8, 900.0, BNL_PREC_FULL};
    bnl_normal *nq = (bnl_normal *)&ctx;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_normal_open(&ctx, &op, NULL, &nq, &err), FSVC_OK);
    assert_non_null(nq);
    bnl_normal_close(nq);
    bnl_normal_opt po = {-1, 0, 0, 1, NULL}; /* the block products: a device's only */
    assert_int_equal(bnl_normal_open(&ctx, &op, &po, &nq, &err), FSVC_OK);
    assert_null(nq);
    double t = -1;
    uint8_t w = 1;
    assert_int_equal(bnl_gpu_time_forward(&ctx, &op, &w, 1, &w, 1, 1, 1, &t, &err),
                     FSVC_EUSAGE);
    bnl_ctx_close(&ctx);
}

/* Kernel-only timing is offered for every dtype the device computes,
 * f64 included (issue 25: the engine refused f64, so `fsvc bench` and
 * scripts/gpu_targets.sh had no kernel-only f64 figure). */
static void test_time_forward_all_dtypes(void **s)
{
    (void)s;
    bnl_ctx ctx;
    fsvc_error err;
    emu_device_reset(0, 0, 0);
    assert_int_equal(bnl_ctx_open_device(&ctx, emu_device_ops(), 1, 1, &err), FSVC_OK);
    const fsvc_dtype dt[] = {FSVC_U8, FSVC_F32, FSVC_F64, FSVC_F64};
    const bnl_dist ds[] = {BNL_L1, BNL_L1, BNL_L1, BNL_L2};
    double buf[2 * 7 * 5] = {0}; /* room for 7 x 5 doubles, W and X */
    for (int i = 0; i < 4; i++) {
        bnl_op op = {ds[i], BNL_GAUSS, dt[i], 3.0, BNL_PREC_FULL};
        double t = -1;
        int rc = bnl_gpu_time_forward(&ctx, &op, buf, 7, buf + 35, 3, 5, 2, &t, &err);
        if (rc) fail_msg("%s %s: %s", fsvc_dtype_name(dt[i]), bnl_dist_name(ds[i]), err.msg);
        assert_true(t > 0);
    }
    assert_int_equal(emu_device_stats().time_forward, 4);
    bnl_ctx_close(&ctx);
}

/* The backend is the context's (ctx->ops), not the process's: a context
 * on the emulated device and a CPU context open at once each run their
 * own table; an entry the device table leaves NULL (forward here), or a
 * layer its supports() refuses (f64 scores), runs on the CPU table with
 * the CPU's bits. */
static void test_backend_per_context(void **s)
{
    (void)s;
    bnl_ctx dev, cpu;
    fsvc_error err;
    emu_device_reset(0, 0, 0);
    bnl_backend_ops o = *emu_device_ops();
    o.forward = NULL;
    assert_int_equal(bnl_ctx_open_device(&dev, &o, 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 1, 1, &err), FSVC_OK);
    assert_ptr_equal(dev.ops, &o);
    assert_ptr_equal(cpu.ops, &bnl_cpu_ops);
    bnl_op op = {BNL_L1, BNL_GAUSS, FSVC_F32, 3.0, BNL_PREC_FULL};
    float W[3 * 5], X[4 * 5], Hd[4 * 3], Hc[4 * 3];
    for (int i = 0; i < 15; i++) W[i] = (float)(i % 7) * 0.25f;
    for (int i = 0; i < 20; i++) X[i] = (float)(i % 5) * 0.5f;
    double Sd[4] = {0}, Sc[4] = {0}, R[3] = {1, -1, 0.5}, Yd[4], Yc[4];
    assert_int_equal(bnl_forward(&dev, &op, Hd, 3, W, 3, X, 4, 5, &err), FSVC_OK);
    assert_int_equal(bnl_forward(&cpu, &op, Hc, 3, W, 3, X, 4, 5, &err), FSVC_OK);
    assert_memory_equal(Hd, Hc, sizeof Hd);
    assert_int_equal(bnl_actsum(&dev, &op, Sd, W, 3, X, 4, 5, &err), FSVC_OK);
    assert_int_equal(bnl_actsum(&cpu, &op, Sc, W, 3, X, 4, 5, &err), FSVC_OK);
    emu_stats st = emu_device_stats();
    assert_int_equal(st.forward, 0); /* NULL entry: the CPU's */
    assert_int_equal(st.actsum, 1);  /* the device context's call only */
    /* f64 scores: refused by the device's supports(), the CPU's bits */
    bnl_op o64 = {BNL_L1, BNL_GAUSS, FSVC_F64, 3.0, BNL_PREC_FULL};
    double W64[3 * 5], X64[4 * 5];
    for (int i = 0; i < 15; i++) W64[i] = W[i];
    for (int i = 0; i < 20; i++) X64[i] = X[i];
    assert_int_equal(bnl_scores(&dev, &o64, Yd, W64, 3, X64, 4, 5, R, 1, &err), FSVC_OK);
    assert_int_equal(bnl_scores(&cpu, &o64, Yc, W64, 3, X64, 4, 5, R, 1, &err), FSVC_OK);
    assert_memory_equal(Yd, Yc, sizeof Yd);
    assert_int_equal(emu_device_stats().scores, 0);
    assert_int_equal(bnl_scores(&dev, &op, Yd, W, 3, X, 4, 5, R, 1, &err), FSVC_OK);
    assert_int_equal(emu_device_stats().scores, 1);
    bnl_ctx_close(&dev);
    bnl_ctx_close(&cpu);
}

static int accum_no_memory(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                           const void *X, int64_t N, int n, const int *cls, const double *y,
                           const double *cw, int K, double *diag, double *B, fsvc_error *err)
{
    (void)s; (void)op; (void)W; (void)m; (void)X; (void)N; (void)n; (void)cls; (void)y;
    (void)cw; (void)K; (void)diag; (void)B;
    return fsvc_fail(err, FSVC_ERESOURCE, "emu: out of device memory");
}

/* A device whose accumulation runs out of memory: the engine says so and
 * the CPU table accumulates and solves, with the CPU context's bits. */
static void test_normal_falls_back_to_cpu(void **s)
{
    (void)s;
    bnl_ctx dev, cpu;
    fsvc_error err;
    emu_device_reset(0, 0, 0);
    bnl_backend_ops o = *emu_device_ops();
    o.normal_accum = accum_no_memory;
    assert_int_equal(bnl_ctx_open_device(&dev, &o, 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 1, 1, &err), FSVC_OK);
    bnl_op op = {BNL_L1, BNL_GAUSS, FSVC_U8, 900.0, BNL_PREC_FULL};
    enum { M = 4, NS = 9, NN = 6, KK = 3 };
    uint8_t W[M * NN], X[NS * NN];
    int cls[NS];
    for (int i = 0; i < M * NN; i++) W[i] = (uint8_t)(37 * i % 251);
    for (int i = 0; i < NS * NN; i++) X[i] = (uint8_t)(53 * i % 241);
    for (int i = 0; i < NS; i++) cls[i] = i % KK;
    double dg[2][M], B[2][M * KK];
    bnl_ctx *c[2] = {&dev, &cpu};
    for (int k = 0; k < 2; k++) {
        bnl_normal *h = NULL;
        memset(B[k], 0, sizeof B[k]);
        assert_int_equal(bnl_normal_open(c[k], &op, NULL, &h, &err), FSVC_OK);
        assert_int_equal(bnl_normal_accum(h, &op, W, M, X, NS, NN, cls, NULL, NULL, KK, dg[k],
                                          B[k], &err), FSVC_OK);
        int info = -1;
        assert_int_equal(bnl_normal_solve(h, 1e-3, B[k], &info, &err), FSVC_OK);
        assert_int_equal(info, 0);
        bnl_normal_close(h);
    }
    assert_memory_equal(dg[0], dg[1], sizeof dg[0]);
    assert_memory_equal(B[0], B[1], sizeof B[0]);
    assert_int_equal(emu_device_stats().solve, 0);
    bnl_ctx_close(&dev);
    bnl_ctx_close(&cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_ridge_u8_l1),
        cmocka_unit_test(test_ridge_u8_tri),
        cmocka_unit_test(test_ridge_f32_l1),
        cmocka_unit_test(test_ridge_f32_l2_gemm),
        cmocka_unit_test(test_retry_restores_G),
        cmocka_unit_test(test_scores),
        cmocka_unit_test(test_block_products),
        cmocka_unit_test(test_no_device_cpu_path),
        cmocka_unit_test(test_time_forward_all_dtypes),
        cmocka_unit_test(test_backend_per_context),
        cmocka_unit_test(test_normal_falls_back_to_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
