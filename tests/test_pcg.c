/* test_pcg.c - the PCG ridge solve (fsvc/pcg.c, layers/cpu_hprod.c, fsvc/solver.c)
 * against the direct Cholesky solve of the same system on small problems:
 * several shapes, K = 1..10, f64 and f32 inputs, dense (Gaussian) and
 * sparse (triangular) H, regression; the block products against a dense
 * H^T H V; warm starts; the stopping rule and the non-convergence verdict;
 * bad lambda and tolerance; the memory check and its largest m; auto. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/solver.h"
#include "fsvc/comm.h"

typedef struct {
    int64_t N, m;
    int n, K;
    double *X;   /* N x n, double */
    float *Xf;   /* the same rounded to float (and X holds the rounded values) */
    int *cls;
    double *y;
} prob;

/* N samples in K noisy clusters; the first m samples are the centroids. */
static prob make(int64_t N, int64_t m, int n, int K, uint64_t seed)
{
    prob P = {N, m, n, K, malloc(N * n * sizeof(double)), malloc(N * n * sizeof(float)),
              malloc(N * sizeof(int)), malloc(N * sizeof(double))};
    uint64_t st = seed;
    for (int64_t i = 0; i < N; i++) {
        P.cls[i] = (int)(fsvc_rng_next(&st) % (uint64_t)K);
        P.y[i] = 0;
        for (int j = 0; j < n; j++) {
            double v = 0.5 * (P.cls[i] * (j % 3 + 1) % 5) + (double)(fsvc_rng_next(&st) % 1000) / 1000;
            P.Xf[i * n + j] = (float)v;
            P.X[i * n + j] = P.Xf[i * n + j];
            P.y[i] += sin(v + j);
        }
    }
    return P;
}

static void drop(prob *P) { free(P->X); free(P->Xf); free(P->cls); free(P->y); }

static bnl_ctx ctx;
static int setup(void **s) { (void)s; fsvc_error e; return bnl_ctx_open(&ctx, "cpu", 0, 0, &e); }
static int teardown(void **s) { (void)s; bnl_ctx_close(&ctx); return 0; }

static int solve(double *R, const prob *P, const bnl_op *op, int regr, double lambda,
                 fsvc_solver s, double tol, fsvc_train_info *info, fsvc_error *err)
{
    const void *X = op->dtype == FSVC_F32 ? (const void *)P->Xf : (const void *)P->X;
    fsvc_ridge_problem pb = {&ctx, op, X, P->m, X, regr ? NULL : P->cls, regr ? P->y : NULL,
                             NULL, P->N, P->N, P->n, regr ? 1 : P->K, fsvc_comm_one(), NULL, NULL};
    fsvc_ridge_opt o = {lambda, s, tol, FSVC_AUG_NONE, 0, 0, 0, 0, 0};
    return fsvc_readout_solve(R, &pb, &o, info, err);
}

/* PCG and direct on one problem: weights within wtol (relative to the
 * largest weight), scores H W on the training samples within stol (of the
 * largest score), and the same argmax on every sample whose direct margin
 * is above 1e-6 of the score scale. */
static void compare(int64_t N, int64_t m, int n, int K, bnl_dist dist, bnl_act act, double r,
                    fsvc_dtype t, int regr, double lambda, double tol, double wtol,
                    double stol)
{
    prob P = make(N, m, n, K, (uint64_t)(N * 31 + m * 7 + K));
    bnl_op op = {dist, act, t, r, BNL_PREC_FULL};
    int Ko = regr ? 1 : K;
    double *Rd = malloc(m * Ko * sizeof *Rd), *Rp = malloc(m * Ko * sizeof *Rp);
    fsvc_train_info id, ip;
    fsvc_error err;
    int rc = solve(Rd, &P, &op, regr, lambda, FSVC_SOLVER_DIRECT, tol, &id, &err);
    if (rc) fail_msg("direct: %s", err.msg);
    rc = solve(Rp, &P, &op, regr, lambda, FSVC_SOLVER_PCG, tol, &ip, &err);
    if (rc) fail_msg("pcg: %s", err.msg);
    assert_int_equal(id.solver, FSVC_SOLVER_DIRECT);
    assert_int_equal(ip.solver, FSVC_SOLVER_PCG);
    if (!ip.cg_converged || !(ip.cg_res <= tol))
        fail_msg("pcg: residual %g > %g after %d iterations", ip.cg_res, tol, ip.cg_iter);
    /* fewer iterations than unknowns (here 7 to 55 for m = 40 to 200 at
     * tol 1e-10; MNIST, m = 10000: 12 at 1e-4) */
    if (ip.cg_iter >= m)
        fail_msg("pcg: %d iterations for m = %lld", ip.cg_iter, (long long)m);
    double scale = 0, diff = 0;
    for (int64_t q = 0; q < m * Ko; q++) {
        scale = fmax(scale, fabs(Rd[q]));
        diff = fmax(diff, fabs(Rd[q] - Rp[q]));
    }
    if (!(diff <= wtol * scale))
        fail_msg("N %lld m %lld K %d %s: max |W_pcg - W_direct| = %g, %g of the largest "
                 "weight (allowed %g; %d iterations, residual %g)", (long long)N, (long long)m,
                 K, fsvc_dtype_name(t), diff, diff / scale, wtol, ip.cg_iter, ip.cg_res);
    /* predictions on the training samples, H from the engine */
    double *H = malloc(N * m * sizeof *H);
    bnl_op op64 = {dist, act, FSVC_F64, r, BNL_PREC_FULL};
    assert_int_equal(bnl_forward(&ctx, &op64, H, m, P.X, m, P.X, N, n, &err), 0);
    int64_t differ = 0;
    double smax = 0, sdiff = 0;
    for (int64_t i = 0; i < N; i++) {
        double sd[10], sp[10];
        for (int k = 0; k < Ko; k++) {
            sd[k] = sp[k] = 0;
            for (int64_t j = 0; j < m; j++) {
                sd[k] += H[i * m + j] * Rd[j * Ko + k];
                sp[k] += H[i * m + j] * Rp[j * Ko + k];
            }
            smax = fmax(smax, fabs(sd[k]));
            sdiff = fmax(sdiff, fabs(sd[k] - sp[k]));
        }
        if (regr) continue;
        int ad = 0, ap = 0;
        for (int k = 1; k < K; k++) { if (sd[k] > sd[ad]) ad = k; if (sp[k] > sp[ap]) ap = k; }
        double second = -INFINITY;
        for (int k = 0; k < K; k++) if (k != ad && sd[k] > second) second = sd[k];
        if (ad != ap && sd[ad] - second > 1e-6 * smax) differ++;
    }
    if (!(sdiff <= stol * smax))
        fail_msg("scores differ by %g of the largest (allowed %g)", sdiff / smax, stol);
    if (differ) fail_msg("%lld of %lld predictions differ", (long long)differ, (long long)N);
    free(H); free(Rd); free(Rp);
    drop(&P);
}

static void shapes_f64(void **s)
{
    (void)s;
    /* tall, square, few centroids, many classes; dense and sparse H */
    compare(300, 40, 5, 1, BNL_L2, BNL_GAUSS, 1.5, FSVC_F64, 0, 1e-3, 1e-10, 1e-6, 1e-8);
    compare(400, 80, 6, 3, BNL_L2, BNL_GAUSS, 1.0, FSVC_F64, 0, 1e-4, 1e-10, 1e-6, 1e-8);
    compare(500, 120, 8, 10, BNL_L2, BNL_GAUSS, 1.2, FSVC_F64, 0, 1e-5, 1e-10, 1e-5, 1e-8);
    compare(150, 150, 4, 2, BNL_L2, BNL_GAUSS, 0.8, FSVC_F64, 0, 1e-3, 1e-10, 1e-6, 1e-8);
    compare(600, 100, 6, 5, BNL_L1, BNL_TRI, 2.5, FSVC_F64, 0, 1e-3, 1e-10, 1e-6, 1e-8);
}

static void shapes_f32(void **s)
{
    (void)s;
    /* float H and a float preconditioner: the residual floor is ~1e-6, and
     * the weights of the system's ill-conditioned directions (cond ~ 1e3
     * here) move by 1e3 x the residual; the scores are what it fixes */
    compare(400, 60, 6, 4, BNL_L2, BNL_GAUSS, 1.0, FSVC_F32, 0, 1e-3, 1e-5, 1e-2, 1e-3);
    compare(700, 200, 8, 10, BNL_L2, BNL_GAUSS, 1.2, FSVC_F32, 0, 1e-3, 1e-5, 1e-2, 1e-3);
    compare(500, 90, 6, 7, BNL_L1, BNL_TRI, 2.5, FSVC_F32, 0, 1e-3, 1e-5, 1e-2, 1e-3);
}

static void regression(void **s)
{
    (void)s;
    compare(400, 70, 5, 1, BNL_L2, BNL_GAUSS, 1.3, FSVC_F64, 1, 1e-4, 1e-10, 1e-6, 1e-8);
    compare(400, 70, 5, 1, BNL_L2, BNL_GAUSS, 1.3, FSVC_F32, 1, 1e-3, 1e-5, 1e-2, 1e-3);
}

/* The block products: H^T (H V) and H^T T against a dense H, with and
 * without the cache (the cache's second pass reads what it stored). */
static void products(void **s)
{
    (void)s;
    prob P = make(5000, 50, 4, 3, 9); /* several chunks of samples */
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.0, BNL_PREC_FULL};
    int64_t N = P.N, m = P.m;
    int K = P.K;
    fsvc_error err;
    double *H = malloc(N * m * sizeof *H);
    assert_int_equal(bnl_forward(&ctx, &op, H, m, P.X, m, P.X, N, P.n, &err), 0);
    double *V = malloc(m * K * sizeof *V), *Y = malloc(m * K * sizeof *Y);
    double *want = calloc(m * K, sizeof *want), *Bw = calloc(m * K, sizeof *Bw), *B = malloc(m * K * sizeof *B);
    uint64_t st = 3;
    for (int64_t q = 0; q < m * K; q++) V[q] = (double)(fsvc_rng_next(&st) % 2001) / 1000 - 1;
    double ssw = 0;
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < K; k++) {
            double u = 0;
            for (int64_t j = 0; j < m; j++) u += H[i * m + j] * V[k * m + j];
            for (int64_t j = 0; j < m; j++) want[k * m + j] += H[i * m + j] * u;
        }
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++) {
            Bw[P.cls[i] * m + j] += H[i * m + j];
            ssw += H[i * m + j] * H[i * m + j];
        }
    for (int cache = 0; cache <= 1; cache++) {
        fsvc_hsrc src;
        fsvc_ridge_problem pb = {&ctx, &op, P.X, m, P.X, P.cls, NULL, NULL, N, N, P.n, K,
                                 fsvc_comm_one(), NULL, NULL};
        fsvc_hsrc_opt ho = {FSVC_AUG_NONE, 0, 0, cache, 0, 0, 0};
        assert_int_equal(fsvc_hsrc_open(&src, &pb, &ho, &err), 0);
        double ss;
        assert_int_equal(src.ops->rhs(src.self, B, &ss, &err), 0);
        assert_true(fabs(ss - ssw) <= 1e-12 * ssw);
        for (int pass = 0; pass < 2; pass++) {
            assert_int_equal(src.ops->gram_apply(src.self, Y, V, &err), 0);
            for (int64_t q = 0; q < m * K; q++) {
                assert_true(fabs(Y[q] - want[q]) <= 1e-9 * (1 + fabs(want[q])));
                assert_true(fabs(B[q] - Bw[q]) <= 1e-9 * (1 + fabs(Bw[q])));
            }
        }
        double *Kmm = malloc(m * m * sizeof *Kmm);
        assert_int_equal(src.ops->kmm(src.self, Kmm, 0, &err), 0);
        for (int64_t q = 0; q < m * m; q++) assert_true(fabs(Kmm[q] - H[q]) <= 1e-15);
        free(Kmm);
        fsvc_hsrc_close(&src);
    }
    free(H); free(V); free(Y); free(want); free(Bw); free(B);
    drop(&P);
}

/* K_mm from the cached H (layers/cpu_hprod.c kmm_from_cache): with centroids that
 * are samples anywhere in X (augmented or not), the same matrix, bit for
 * bit, as the engine's own K_mm (uncached source); a centroid that is no
 * sample, or class weights, take the engine's path. f32 and f64. */
/* The first entry (i*m + j) where two K_mm of Gaussian L2 (radius r) over
 * the centroids C differ by more than the GEMM's rounding allows, else -1.
 * Not bits: the cache holds H's rows made from blocks of samples, the
 * engine's K_mm from the centroids, and a BLAS kernel's edge tiles sum x.c
 * in another order (which depends on the CPU and OPENBLAS_CORETYPE). Each
 * side's d = |x|^2 + |c|^2 - 2 x.c is off by at most (n+2) u (|x|^2 +
 * |c|^2) doubled for |x.c|, exp(-g d) moves by g times that, plus the
 * last rounding of exp on each side. */
static int64_t kmm_far(const void *A, const void *B, const char *C, int64_t m, int n, int f32,
                       double r)
{
    double u = f32 ? 0x1p-24 : 0x1p-53, g = 1.0 / (2 * r * r);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            double ni = 0, nj = 0;
            for (int k = 0; k < n; k++) {
                double a = f32 ? ((const float *)C)[i * n + k] : ((const double *)C)[i * n + k];
                double b = f32 ? ((const float *)C)[j * n + k] : ((const double *)C)[j * n + k];
                ni += a * a, nj += b * b;
            }
            double tol = 2 * (g * 2 * (n + 2) * u * (ni + nj) + 4 * u);
            double a = f32 ? ((const float *)A)[i * m + j] : ((const double *)A)[i * m + j];
            double b = f32 ? ((const float *)B)[i * m + j] : ((const double *)B)[i * m + j];
            if (!(fabs(a - b) <= tol)) return i * m + j;
        }
    return -1;
}

static void kmm_rows_from_cache(void **s)
{
    (void)s;
    enum { N = 3000, m = 41, n = 16 };
    prob P = make(N, m, n, 4, 21);
    fsvc_error err;
    for (int f32 = 0; f32 <= 1; f32++)
        for (int aug = 0; aug <= 1; aug++)
            for (int odd = 0; odd <= 2; odd++) { /* 1: a centroid no sample; 2: class weights */
                bnl_op op = {BNL_L2, BNL_GAUSS, f32 ? FSVC_F32 : FSVC_F64, 2.0, BNL_PREC_FULL};
                size_t es = f32 ? sizeof(float) : sizeof(double), row = (size_t)n * es;
                const char *X = f32 ? (const char *)P.Xf : (const char *)P.X;
                char *C = malloc((size_t)m * row);
                for (int j = 0; j < m; j++) /* scattered samples, the last one twice */
                    memcpy(C + (size_t)j * row, X + (size_t)((j * 71 + 5) % N) * row, row);
                memcpy(C + (size_t)(m - 1) * row, C, row);
                if (odd == 1) { /* centroid 3 moved off every sample */
                    if (f32) ((float *)(C + 3 * row))[0] += 0.25f;
                    else ((double *)(C + 3 * row))[0] += 0.25;
                }
                double cw[4] = {1, 2, 0.5, 1};
                void *Kc = malloc((size_t)m * m * es), *Ke = malloc((size_t)m * m * es);
                for (int cache = 1; cache >= 0; cache--) {
                    fsvc_hsrc src;
                    fsvc_ridge_problem pb = {&ctx, &op, C, m, X, P.cls, NULL,
                                             odd == 2 ? cw : NULL, N, N, n, 4,
                                             fsvc_comm_one(), NULL, NULL};
                    fsvc_hsrc_opt ho = {aug ? FSVC_AUG_SHIFT1 : FSVC_AUG_NONE, aug ? 4 : 0,
                                        aug ? 4 : 0, cache, 0, 0, 0};
                    assert_int_equal(fsvc_hsrc_open(&src, &pb, &ho, &err), 0);
                    double *B = malloc((size_t)m * 4 * sizeof *B), ss;
                    assert_int_equal(src.ops->rhs(src.self, B, &ss, &err), 0);
                    assert_int_equal(src.ops->kmm(src.self, cache ? Kc : Ke, f32, &err), 0);
                    assert_int_equal(src.kmm_cached, cache && odd == 0);
                    free(B);
                    fsvc_hsrc_close(&src);
                }
                int64_t bad = kmm_far(Kc, Ke, C, m, n, f32, op.radius);
                if (bad >= 0)
                    fail_msg("f32 %d aug %d case %d: K_mm from the cache differs from the "
                             "engine's at (%lld, %lld)", f32, aug, odd, (long long)(bad / m),
                             (long long)(bad % m));
                free(Kc); free(Ke); free(C);
            }
    drop(&P);
}

/* K_mm asked first, as pcg asks it (layers/cpu_hprod.c kmm_first_pass):
 * a source that caches H makes its first pass then, K_mm from the
 * centroids' rows of it before any 16-bit rounding. What follows has the
 * bits of the other order (H^T T and its trace, then K_mm): H^T T, the
 * trace, a product; K_mm is the engine's within kmm_far (u8: bit for bit).
 * f64, f32 and u8 layers; H cached in f32, bf16 and f16; with --augment;
 * a centroid that is no sample, class weights or no cache: the engine's
 * pass. */
static void kmm_first_pass(void **s)
{
    (void)s;
    enum { N = 3000, m = 41, n = 16, K = 4 };
    prob P = make(N, m, n, K, 29);
    uint8_t *Xu = malloc(N * n);
    for (int q = 0; q < N * n; q++) Xu[q] = (uint8_t)(P.Xf[q] * 60);
    double *V = malloc(m * K * sizeof *V), cw[K] = {1, 2, 0.5, 1};
    for (int q = 0; q < m * K; q++) V[q] = sin(0.7 * q);
    fsvc_error err;
    int cases = 0;
    for (int dt = 0; dt < 3; dt++) /* f64, f32, u8 */
        for (int h16 = BNL_H_F32; h16 <= (dt ? BNL_H_F16 : BNL_H_F32); h16++)
            for (int aug = 0; aug <= 1; aug++)
                for (int odd = 0; odd <= 3; odd++) { /* 1: a centroid no sample; 2: weights;
                                                        3: H not cached */
                    fsvc_dtype t = dt == 0 ? FSVC_F64 : dt == 1 ? FSVC_F32 : FSVC_U8;
                    bnl_op op = {BNL_L2, BNL_GAUSS, t, dt == 2 ? 150.0 : 2.0, BNL_PREC_FULL};
                    size_t row = (size_t)n * fsvc_dtype_size(t), es = dt ? 4 : 8;
                    const char *X = dt == 0 ? (const char *)P.X
                                    : dt == 1 ? (const char *)P.Xf : (const char *)Xu;
                    char *C = malloc((size_t)m * row);
                    for (int j = 0; j < m; j++)
                        memcpy(C + (size_t)j * row, X + (size_t)((j * 53 + 11) % N) * row, row);
                    if (odd == 1) C[3 * row] ^= 1; /* centroid 3 off every sample */
                    void *Km[2] = {malloc((size_t)m * m * es), malloc((size_t)m * m * es)};
                    double *B[2], ss[2], *Y[2];
                    int cached[2];
                    for (int first = 0; first <= 1; first++) { /* 1: K_mm first */
                        fsvc_hsrc src;
                        fsvc_ridge_problem pb = {&ctx, &op, C, m, X, P.cls, NULL,
                                                 odd == 2 ? cw : NULL, N, N, n, K,
                                                 fsvc_comm_one(), NULL, NULL};
                        fsvc_hsrc_opt ho = {aug ? FSVC_AUG_SHIFT1 : FSVC_AUG_NONE, aug ? 4 : 0,
                                            aug ? 4 : 0, odd != 3, 0, 0, odd != 3 ? h16 : 0};
                        assert_int_equal(fsvc_hsrc_open(&src, &pb, &ho, &err), 0);
                        B[first] = malloc(m * K * sizeof(double));
                        Y[first] = malloc(m * K * sizeof(double));
                        if (first) assert_int_equal(src.ops->kmm(src.self, Km[1], dt > 0, &err), 0);
                        assert_int_equal(src.ops->rhs(src.self, B[first], &ss[first], &err), 0);
                        if (!first) assert_int_equal(src.ops->kmm(src.self, Km[0], dt > 0, &err), 0);
                        cached[first] = src.kmm_cached;
                        assert_int_equal(src.ops->gram_apply(src.self, Y[first], V, &err), 0);
                        fsvc_hsrc_close(&src);
                    }
                    if (cached[1] != (odd == 0))
                        fail_msg("dt %d h16 %d aug %d case %d: K_mm first from the first pass: "
                                 "%d", dt, h16, aug, odd, cached[1]);
                    assert_memory_equal(B[0], B[1], m * K * sizeof(double));
                    assert_memory_equal(&ss[0], &ss[1], sizeof(double));
                    assert_memory_equal(Y[0], Y[1], m * K * sizeof(double));
                    if (dt == 2) {
                        assert_memory_equal(Km[0], Km[1], (size_t)m * m * es);
                    } else {
                        int64_t bad = kmm_far(Km[0], Km[1], C, m, n, dt == 1, op.radius);
                        if (bad >= 0)
                            fail_msg("dt %d h16 %d aug %d case %d: K_mm first differs from the "
                                     "engine's at (%lld, %lld)", dt, h16, aug, odd,
                                     (long long)(bad / m), (long long)(bad % m));
                    }
                    for (int f = 0; f < 2; f++) { free(Km[f]); free(B[f]); free(Y[f]); }
                    free(C);
                    cases++;
                }
    printf("  %d cases\n", cases);
    free(Xu); free(V);
    drop(&P);
}

static int pcg_run(double *W, const prob *P, const bnl_op *op, double lambda, double tol,
                   int max_iter, int warm, fsvc_pcg_out *out, fsvc_error *err)
{
    fsvc_hsrc src;
    fsvc_ridge_problem pb = {&ctx, op, P->X, P->m, P->X, P->cls, NULL, NULL, P->N, P->N, P->n,
                             P->K, fsvc_comm_one(), NULL, NULL};
    fsvc_hsrc_opt ho = {FSVC_AUG_NONE, 0, 0, 1, 0, 0, 0};
    int rc = fsvc_hsrc_open(&src, &pb, &ho, err);
    if (rc) return rc;
    fsvc_pcg_opt opt = {lambda, tol, max_iter, warm, 0};
    rc = fsvc_pcg_solve(W, &src, op, &opt, out, err);
    fsvc_hsrc_close(&src);
    return rc;
}

/* A warm start from the solution needs no iteration; from the solution of
 * a nearby lambda, fewer than a cold start. */
static void warm_start(void **s)
{
    (void)s;
    prob P = make(600, 150, 6, 4, 11);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.0, BNL_PREC_FULL};
    size_t mk = (size_t)P.m * P.K;
    double *W = malloc(mk * sizeof *W), *W2 = malloc(mk * sizeof *W2);
    fsvc_pcg_out o1, o2, o3;
    fsvc_error err;
    assert_int_equal(pcg_run(W, &P, &op, 1e-4, 1e-9, 500, 0, &o1, &err), 0);
    assert_true(o1.converged && o1.iter > 2);
    memcpy(W2, W, mk * sizeof *W);
    assert_int_equal(pcg_run(W2, &P, &op, 1e-4, 1e-9, 500, 1, &o2, &err), 0);
    assert_int_equal(o2.iter, 0);
    assert_true(o2.converged);
    assert_int_equal(pcg_run(W2, &P, &op, 2e-4, 1e-9, 500, 1, &o2, &err), 0);
    assert_int_equal(pcg_run(W, &P, &op, 2e-4, 1e-9, 500, 0, &o3, &err), 0);
    assert_true(o2.converged && o3.converged);
    if (!(o2.iter < o3.iter)) fail_msg("warm %d iterations, cold %d", o2.iter, o3.iter);
    free(W); free(W2);
    drop(&P);
}

/* A source wrapped around the engine's: the first `bad` products off by
 * 1e-3 (relative), and K_mm spinning `book` seconds booked as engine
 * time and as many as products (a first pass of H, cpu_hprod.c). */
typedef struct {
    fsvc_hsrc in, *outer;
    int calls, bad;
    double book;
} wrap_src;

static int wrap_rhs(void *self, double *B, double *ss, fsvc_error *err)
{
    wrap_src *w = self;
    return w->in.ops->rhs(w->in.self, B, ss, err);
}

static int wrap_apply(void *self, double *Y, const double *V, fsvc_error *err)
{
    wrap_src *w = self;
    int rc = w->in.ops->gram_apply(w->in.self, Y, V, err);
    if (!rc && w->calls++ < w->bad)
        for (size_t q = 0; q < (size_t)w->in.m * w->in.K; q++) Y[q] *= 1 + 1e-3 * sin((double)q);
    return rc;
}

static void spin(double s)
{
    double t0 = fsvc_clock();
    while (fsvc_clock() - t0 < s) {}
}

static int wrap_kmm(void *self, void *Kmm, int f32, fsvc_error *err)
{
    wrap_src *w = self;
    if (w->book > 0) {
        spin(w->book);
        w->outer->t_h += w->book;
        spin(w->book);
        w->outer->t_prod += w->book;
    }
    return w->in.ops->kmm(w->in.self, Kmm, f32, err);
}

/* pcg (tol 1e-8) over the engine's source on a 600 x 150 problem, wrapped
 * by w */
static void solve_wrapped(wrap_src *w, fsvc_pcg_out *o)
{
    static const fsvc_hops wrap_ops = {wrap_rhs, wrap_apply, wrap_kmm, NULL, NULL};
    prob P = make(600, 150, 6, 4, 17);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.0, BNL_PREC_FULL};
    double *W = malloc(P.m * P.K * sizeof *W);
    fsvc_error err;
    fsvc_ridge_problem pb = {&ctx, &op, P.X, P.m, P.X, P.cls, NULL, NULL, P.N, P.N, P.n,
                             P.K, fsvc_comm_one(), NULL, NULL};
    fsvc_hsrc_opt ho = {FSVC_AUG_NONE, 0, 0, 1, 0, 0, 0};
    assert_int_equal(fsvc_hsrc_open(&w->in, &pb, &ho, &err), 0);
    fsvc_hsrc src = w->in;
    src.ops = &wrap_ops;
    src.self = w;
    src.t_h = src.t_prod = 0;
    w->outer = &src;
    fsvc_pcg_opt opt = {1e-5, 1e-8, 500, 0, 0};
    assert_int_equal(fsvc_pcg_solve(W, &src, &op, &opt, o, &err), 0);
    fsvc_hsrc_close(&w->in);
    free(W);
    drop(&P);
}

/* Products off by 1e-3 in their first calls, as float rounding is off a
 * little in every call: the recursion's residual then leaves the true one,
 * reaches tol while the truth does not, and CG restarts from the true
 * residual until it is within tol. */
static void restart_on_drift(void **s)
{
    (void)s;
    for (int bad = 0; bad <= 4; bad += 4) {
        wrap_src w = {.bad = bad};
        fsvc_pcg_out o;
        solve_wrapped(&w, &o);
        if (!o.converged || !(o.res <= 1e-8))
            fail_msg("bad %d: residual %g after %d iterations, %d restarts", bad, o.res, o.iter,
                     o.restarts);
        if (bad) assert_true(o.restarts >= 1);
        else assert_int_equal(o.restarts, 0); /* exact products: no restart */
    }
}

/* A K_mm that comes with a first pass of H: its 0.15 s of engine and 0.15 s
 * of products are H's and the products', never the preconditioner's
 * (m 150: its own work takes milliseconds). */
static void pre_time_own(void **s)
{
    (void)s;
    wrap_src w = {.book = 0.15};
    fsvc_pcg_out o;
    solve_wrapped(&w, &o);
    if (!(o.t_pre < 0.1))
        fail_msg("preconditioner %.3f s: holds the first pass's engine or product seconds",
                 o.t_pre);
}

/* max_iter stops the CG short: not converged, the residual reported is the
 * true one (recomputed from W), and the verdict follows the rule. */
static void no_convergence(void **s)
{
    (void)s;
    prob P = make(500, 120, 6, 3, 13);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.0, BNL_PREC_FULL};
    double *W = malloc(P.m * P.K * sizeof *W);
    fsvc_pcg_out o;
    fsvc_error err;
    assert_int_equal(pcg_run(W, &P, &op, 1e-6, 1e-12, 1, 0, &o, &err), 0);
    assert_int_equal(o.iter, 1);
    assert_false(o.converged);
    assert_true(o.res > 1e-12 && isfinite(o.res));
    /* the true residual, densely */
    double *H = malloc(P.N * P.m * sizeof *H);
    assert_int_equal(bnl_forward(&ctx, &op, H, P.m, P.X, P.m, P.X, P.N, P.n, &err), 0);
    double md = 0, worst = 0;
    for (int64_t q = 0; q < P.N * P.m; q++) md += H[q] * H[q];
    md /= P.m;
    for (int k = 0; k < P.K; k++) {
        double rn = 0, bn = 0;
        for (int64_t a = 0; a < P.m; a++) {
            double b = 0, aw = 1e-6 * md * W[k * P.m + a];
            for (int64_t i = 0; i < P.N; i++) {
                double hw = 0;
                for (int64_t c = 0; c < P.m; c++) hw += H[i * P.m + c] * W[k * P.m + c];
                aw += H[i * P.m + a] * hw;
                b += H[i * P.m + a] * (P.cls[i] == k);
            }
            rn += (b - aw) * (b - aw);
            bn += b * b;
        }
        worst = fmax(worst, sqrt(rn / bn));
    }
    assert_true(fabs(worst - o.res) <= 1e-6 * worst);
    /* the rule: converged 0; up to max(100 tol, 1e-2) a warning; beyond, error 2 */
    int warn;
    char msg[256];
    fsvc_pcg_out v = {40, 5e-3, 0, 0, 0};
    assert_int_equal(fsvc_pcg_verdict(&v, 1e-4, &warn, msg, sizeof msg, &err), FSVC_OK);
    assert_int_equal(warn, 1);
    assert_non_null(strstr(msg, "0.005"));
    v.res = 0.02;
    assert_int_equal(fsvc_pcg_verdict(&v, 1e-4, &warn, msg, sizeof msg, &err), FSVC_EINPUT);
    assert_int_equal(warn, 0);
    assert_non_null(strstr(err.msg, "0.02"));
    assert_int_equal(fsvc_pcg_verdict(&v, 1e-3, &warn, msg, sizeof msg, &err), FSVC_OK);
    assert_int_equal(warn, 1); /* 100 x 1e-3 = 0.1 */
    v.converged = 1;
    assert_int_equal(fsvc_pcg_verdict(&v, 1e-4, &warn, msg, sizeof msg, &err), FSVC_OK);
    assert_int_equal(warn, 0);
    free(W); free(H);
    drop(&P);
}

static void bad_input(void **s)
{
    (void)s;
    prob P = make(100, 20, 3, 2, 17);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.0, BNL_PREC_FULL};
    double R[40];
    fsvc_error err;
    double bad[] = {0, -1, NAN, INFINITY};
    for (int sv = 0; sv < 3; sv++)
        for (int b = 0; b < 4; b++)
            assert_int_equal(solve(R, &P, &op, 0, bad[b], (fsvc_solver)sv, 1e-6, NULL, &err),
                             FSVC_EUSAGE);
    assert_int_equal(solve(R, &P, &op, 0, 1e-3, FSVC_SOLVER_PCG, 0, NULL, &err), FSVC_EUSAGE);
    assert_int_equal(solve(R, &P, &op, 0, 1e-3, FSVC_SOLVER_PCG, NAN, NULL, &err), FSVC_EUSAGE);
    /* a radius no sample reaches: words, not a LAPACK code */
    bnl_op tiny = {BNL_L1, BNL_TRI, FSVC_F64, 1e-9, BNL_PREC_FULL};
    double *Cf = malloc(P.m * P.n * sizeof *Cf); /* centroids away from every sample */
    for (int64_t q = 0; q < P.m * P.n; q++) Cf[q] = P.X[q] + 100;
    assert_int_equal(fsvc_readout_solve(R,
                                        &(fsvc_ridge_problem){&ctx, &tiny, Cf, P.m, P.X, P.cls,
                                                              NULL, NULL, P.N, P.N, P.n, P.K,
                                                              fsvc_comm_one(), NULL, NULL},
                                        &(fsvc_ridge_opt){1e-3, FSVC_SOLVER_PCG, 1e-6,
                                                          FSVC_AUG_NONE, 0, 0, 0, 0, 0}, NULL, &err),
                     FSVC_EINPUT);
    free(Cf);
    assert_non_null(strstr(err.msg, "every activation is 0"));
    drop(&P);
}

/* Beyond the memory: a resource error naming the largest m that fits,
 * before anything is allocated; the largest m is the exact boundary. */
static void memory(void **s)
{
    (void)s;
    for (int sv = 0; sv < 2; sv++)
        for (size_t hs = 4; hs <= 8; hs += 4) {
            double ram = 3e9;
            int64_t mf = fsvc_solver_max_m((fsvc_solver)sv, 60000, 10, hs, ram);
            assert_true(mf > 1000);
            assert_true(fsvc_solver_bytes((fsvc_solver)sv, mf, 60000, 10, hs) <= ram);
            assert_true(fsvc_solver_bytes((fsvc_solver)sv, mf + 1, 60000, 10, hs) > ram);
        }
    /* pcg holds one m x m matrix, direct two: pcg reaches further */
    assert_true(fsvc_solver_max_m(FSVC_SOLVER_PCG, 60000, 10, 4, 24e9) >
                fsvc_solver_max_m(FSVC_SOLVER_DIRECT, 60000, 10, 4, 24e9));
    /* 100000 centroids in float: 40 GB of factor */
    assert_true(fsvc_solver_bytes(FSVC_SOLVER_PCG, 100000, 60000, 10, 4) > 40e9);
    prob P = make(300, 200, 3, 2, 19);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F64, 1.0, BNL_PREC_FULL};
    double *R = malloc(P.m * P.K * sizeof *R);
    fsvc_error err;
    char want[64];
    for (int sv = 0; sv < 2; sv++) {
        double ram = 5e5; /* bytes: less than 200^2 x 8 x 2 */
        if (sv) ram = 2e5;
        int rc = fsvc_readout_solve(R,
                                    &(fsvc_ridge_problem){&ctx, &op, P.X, P.m, P.X, P.cls, NULL,
                                                          NULL, P.N, P.N, P.n, P.K,
                                                          fsvc_comm_one(), NULL, NULL},
                                    &(fsvc_ridge_opt){1e-3, (fsvc_solver)sv, 1e-6, FSVC_AUG_NONE,
                                                      0, 0, ram, 0, 0}, NULL, &err);
        assert_int_equal(rc, FSVC_ERESOURCE);
        snprintf(want, sizeof want, "the largest that fits is %lld",
                 (long long)fsvc_solver_max_m((fsvc_solver)sv, P.N, P.K, 8, 0.9 * ram));
        if (!strstr(err.msg, want)) fail_msg("'%s' lacks '%s'", err.msg, want);
    }
    free(R);
    drop(&P);
}

/* auto: direct below FSVC_PCG_AUTO_M centroids, pcg from there. */
static void auto_pick(void **s)
{
    (void)s;
    prob P = make(FSVC_PCG_AUTO_M, FSVC_PCG_AUTO_M, 2, 2, 23);
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 0.3, BNL_PREC_FULL};
    double *R = malloc(P.m * 2 * sizeof *R);
    fsvc_train_info info;
    fsvc_error err;
    P.m = FSVC_PCG_AUTO_M - 1;
    assert_int_equal(solve(R, &P, &op, 0, 1e-2, FSVC_SOLVER_AUTO, 1e-4, &info, &err), 0);
    assert_int_equal(info.solver, FSVC_SOLVER_DIRECT);
    P.m = FSVC_PCG_AUTO_M;
    int rc = solve(R, &P, &op, 0, 1e-2, FSVC_SOLVER_AUTO, 1e-4, &info, &err);
    if (rc) fail_msg("%s", err.msg);
    assert_int_equal(info.solver, FSVC_SOLVER_PCG);
    free(R);
    drop(&P);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shapes_f64),
        cmocka_unit_test(shapes_f32),
        cmocka_unit_test(regression),
        cmocka_unit_test(products),
        cmocka_unit_test(kmm_rows_from_cache),
        cmocka_unit_test(kmm_first_pass),
        cmocka_unit_test(warm_start),
        cmocka_unit_test(restart_on_drift),
        cmocka_unit_test(pre_time_own),
        cmocka_unit_test(no_convergence),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(memory),
        cmocka_unit_test(auto_pick),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
