/* test_weights.c - class weights of the ridge readout (issue 14 point 7)
 * and the fixed-block dense kernels behind the direct and pcg solves
 * (layers/chol.c; issue 14 points 9 and 11):
 *   - a class weight of 2 is the class's samples given twice (direct);
 *   - with weights, pcg reaches the direct solution; weights 1 give the
 *     bits of no weights (both solvers);
 *   - bnl_chol / bnl_chol_solve / bnl_syrk_acc agree with LAPACK and
 *     BLAS, give the same bits on 1, 2 and 3 threads, report the column
 *     where a matrix is not positive definite, and print progress only
 *     when asked; the blocked solve matches potrs at edge sizes, f32 and
 *     f64;
 *   - the class-weight setting: its values, its errors, its checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/solver.h"
#include "fsvc/comm.h"

/* N samples of n features in K noisy clusters (double, float copies). */
typedef struct {
    int64_t N;
    int n, K;
    double *X;
    float *Xf;
    int *cls;
} prob;

static prob make(int64_t N, int n, int K, uint64_t seed)
{
    prob P = {N, n, K, malloc(N * n * sizeof(double)), malloc(N * n * sizeof(float)),
              malloc(N * sizeof(int))};
    uint64_t st = seed;
    for (int64_t i = 0; i < N; i++) {
        P.cls[i] = (int)(fsvc_rng_next(&st) % (uint64_t)K);
        for (int j = 0; j < n; j++) {
            double v = 0.5 * (P.cls[i] * (j % 3 + 1) % 5) + (double)(fsvc_rng_next(&st) % 1000) / 1000;
            P.Xf[i * n + j] = (float)v;
            P.X[i * n + j] = P.Xf[i * n + j];
        }
    }
    return P;
}

static void drop(prob *P) { free(P->X); free(P->Xf); free(P->cls); }

static bnl_ctx ctx;
static int setup(void **s) { (void)s; fsvc_error e; return bnl_ctx_open(&ctx, "cpu", 2, 0, &e); }
static int teardown(void **s) { (void)s; bnl_ctx_close(&ctx); return 0; }

static int solve(double *R, const prob *P, int64_t m, const double *cw, fsvc_solver s,
                 fsvc_dtype t, fsvc_error *err)
{
    bnl_op op = {BNL_L2, BNL_GAUSS, t, 1.5, BNL_PREC_FULL};
    const void *X = t == FSVC_F32 ? (const void *)P->Xf : (const void *)P->X;
    fsvc_ridge_problem pb = {&ctx, &op, X, m, X, P->cls, NULL, cw, P->N, P->N, P->n, P->K,
                             fsvc_comm_one(), NULL, NULL};
    fsvc_ridge_opt o = {1e-4, s, 1e-10, FSVC_AUG_NONE, 0, 0, 0, 0, 0};
    return fsvc_readout_solve(R, &pb, &o, NULL, err);
}

static double maxabs(const double *a, size_t n)
{
    double v = 0;
    for (size_t q = 0; q < n; q++) if (fabs(a[q]) > v) v = fabs(a[q]);
    return v;
}

static double maxdiff(const double *a, const double *b, size_t n)
{
    double v = 0;
    for (size_t q = 0; q < n; q++) if (fabs(a[q] - b[q]) > v) v = fabs(a[q] - b[q]);
    return v;
}

/* weight 2 on class 1 == class 1's samples twice: the same normal
 * equations (and the same lambda, relative to the weighted diagonal) */
static void test_weight_is_duplication(void **s)
{
    (void)s;
    prob P = make(300, 6, 3, 7);
    int64_t m = 60, extra = 0;
    for (int64_t i = 0; i < P.N; i++) extra += P.cls[i] == 1;
    prob Q = {P.N + extra, P.n, P.K, malloc((P.N + extra) * P.n * sizeof(double)), NULL,
              malloc((P.N + extra) * sizeof(int))};
    memcpy(Q.X, P.X, P.N * P.n * sizeof(double));
    memcpy(Q.cls, P.cls, P.N * sizeof(int));
    for (int64_t i = 0, t = P.N; i < P.N; i++)
        if (P.cls[i] == 1) {
            memcpy(Q.X + t * P.n, P.X + i * P.n, P.n * sizeof(double));
            Q.cls[t++] = 1;
        }
    double cw[3] = {1, 2, 1}, *Rw = malloc(m * 3 * sizeof *Rw), *Rd = malloc(m * 3 * sizeof *Rd);
    fsvc_error err;
    /* the centroids: the first m samples, the same rows in P and Q */
    assert_int_equal(solve(Rw, &P, m, cw, FSVC_SOLVER_DIRECT, FSVC_F64, &err), FSVC_OK);
    assert_int_equal(solve(Rd, &Q, m, NULL, FSVC_SOLVER_DIRECT, FSVC_F64, &err), FSVC_OK);
    double d = maxdiff(Rw, Rd, m * 3), a = maxabs(Rd, m * 3);
    if (!(d <= 1e-7 * a)) fail_msg("weight 2 vs duplicated class: %g of %g", d, a);
    /* and the weights do something */
    double *Ru = malloc(m * 3 * sizeof *Ru);
    assert_int_equal(solve(Ru, &P, m, NULL, FSVC_SOLVER_DIRECT, FSVC_F64, &err), FSVC_OK);
    assert_true(maxdiff(Ru, Rw, m * 3) > 1e-3 * a);
    free(Rw); free(Rd); free(Ru); free(Q.X); free(Q.cls);
    drop(&P);
}

/* pcg reaches the weighted direct solution; weights 1 = no weights */
static void test_pcg_matches_direct(void **s)
{
    (void)s;
    prob P = make(800, 8, 4, 11);
    int64_t m = 120;
    double cw[4] = {0.5, 3, 1, 7.25};
    double *Rd = malloc(m * 4 * sizeof *Rd), *Rp = malloc(m * 4 * sizeof *Rp);
    fsvc_error err;
    assert_int_equal(solve(Rd, &P, m, cw, FSVC_SOLVER_DIRECT, FSVC_F64, &err), FSVC_OK);
    assert_int_equal(solve(Rp, &P, m, cw, FSVC_SOLVER_PCG, FSVC_F64, &err), FSVC_OK);
    double d = maxdiff(Rd, Rp, m * 4), a = maxabs(Rd, m * 4);
    if (!(d <= 1e-5 * a)) fail_msg("weighted pcg vs direct: %g of %g", d, a);
    double ones[4] = {1, 1, 1, 1};
    for (int t = 0; t < 2; t++) {
        fsvc_dtype dt = t ? FSVC_F32 : FSVC_F64;
        for (int sv = 0; sv < 2; sv++) {
            fsvc_solver so = sv ? FSVC_SOLVER_PCG : FSVC_SOLVER_DIRECT;
            assert_int_equal(solve(Rd, &P, m, ones, so, dt, &err), FSVC_OK);
            assert_int_equal(solve(Rp, &P, m, NULL, so, dt, &err), FSVC_OK);
            /* all 1 take the unweighted path (solver.c): the same bits */
            assert_memory_equal(Rd, Rp, m * 4 * sizeof *Rd);
        }
    }
    free(Rd); free(Rp);
    drop(&P);
}

/* an SPD m x m matrix (column-major) from a random Gram matrix */
static double *spd(int64_t m, uint64_t seed)
{
    int64_t k = m + 8;
    double *H = malloc(k * m * sizeof *H), *A = calloc(m * m, sizeof *A);
    uint64_t st = seed;
    for (int64_t q = 0; q < k * m; q++) H[q] = (double)(fsvc_rng_next(&st) % 2001) / 1000 - 1;
    cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, (int)m, (int)k, 1.0, H, (int)k, 0.0, A,
                (int)m);
    for (int64_t j = 0; j < m; j++) A[j * m + j] += 1;
    free(H);
    return A;
}

static bnl_ctx ctx_t(int T)
{
    bnl_ctx c;
    fsvc_error e;
    assert_int_equal(bnl_ctx_open(&c, "cpu", T, 0, &e), FSVC_OK);
    return c;
}

/* 700 columns: 3 blocks of 256 (the last partial) */
static void test_chol_lapack_and_threads(void **s)
{
    (void)s;
    int64_t m = 700;
    double *A = spd(m, 3), *L0 = malloc(m * m * sizeof *L0), *L = malloc(m * m * sizeof *L);
    float *Af = malloc(m * m * sizeof *Af), *Lf0 = malloc(m * m * sizeof *Lf0),
          *Lf = malloc(m * m * sizeof *Lf);
    for (int64_t q = 0; q < m * m; q++) Af[q] = (float)A[q];
    memcpy(L0, A, m * m * sizeof *L0);
    assert_int_equal(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)m, L0, (lapack_int)m), 0);
    const int KB = 40; /* 3 groups of right-hand sides (16, 16, 8) */
    double *B = malloc(m * KB * sizeof *B), *B0 = malloc(m * KB * sizeof *B0);
    for (int64_t q = 0; q < m * KB; q++) B0[q] = sin((double)q);
    double *X1 = malloc(m * KB * sizeof *X1);
    for (int T = 1; T <= 3; T++) {
        bnl_ctx c = ctx_t(T);
        memcpy(L, A, m * m * sizeof *L);
        assert_int_equal(bnl_chol(&c, L, m, m, 0, NULL), 0);
        double d = 0, a = 0;
        for (int64_t j = 0; j < m; j++)
            for (int64_t i = j; i < m; i++) {
                d = fmax(d, fabs(L[j * m + i] - L0[j * m + i]));
                a = fmax(a, fabs(L0[j * m + i]));
            }
        if (!(d <= 1e-12 * a)) fail_msg("bnl_chol vs dpotrf: %g of %g", d, a);
        memcpy(B, B0, m * KB * sizeof *B);
        assert_int_equal(bnl_chol_solve(&c, L, m, m, 0, B, KB, m), 0);
        if (T == 1) {
            memcpy(L0, L, m * m * sizeof *L); /* the bits every count must give */
            memcpy(X1, B, m * KB * sizeof *B);
            /* A X = B0 */
            double *R = malloc(m * KB * sizeof *R);
            memcpy(R, B0, m * KB * sizeof *R);
            cblas_dsymm(CblasColMajor, CblasLeft, CblasLower, (int)m, KB, -1.0, A, (int)m, X1,
                        (int)m, 1.0, R, (int)m);
            assert_true(maxabs(R, m * KB) <= 1e-9 * maxabs(B0, m * KB) * m);
            free(R);
        } else {
            assert_memory_equal(L, L0, m * m * sizeof *L);
            assert_memory_equal(B, X1, m * KB * sizeof *B);
        }
        memcpy(Lf, Af, m * m * sizeof *Lf);
        assert_int_equal(bnl_chol(&c, Lf, m, m, 1, NULL), 0);
        if (T == 1) memcpy(Lf0, Lf, m * m * sizeof *Lf);
        else assert_memory_equal(Lf, Lf0, m * m * sizeof *Lf);
        bnl_ctx_close(&c);
    }
    free(A); free(L0); free(L); free(Af); free(Lf0); free(Lf); free(B); free(B0); free(X1);
}

/* bnl_chol_solve by blocks against LAPACK's potrs on the same factor, at
 * sizes around the 256-column blocks, the 512-row forward and 16-column
 * backward update chunks (one column, one partial block, exact blocks,
 * chunks with a partial tail), right-hand sides 1..17, ldb > m, float and
 * double, on the CPU's tier (float updates on its kernels.h tri kernels
 * where it has them) and on scalar (sgemm); the same bits on 1, 2 and 3
 * threads; bad sizes refused. */
static void test_chol_solve_shapes(void **s)
{
    (void)s;
    const int64_t ms[] = {1, 5, 255, 256, 257, 769, 1100};
    const int ks[] = {1, 3, 17};
    for (size_t a = 0; a < sizeof ms / sizeof *ms; a++) {
        int64_t m = ms[a], ldb = m + 3;
        double *L = spd(m, 11 + (uint64_t)a);
        assert_int_equal(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)m, L, (lapack_int)m), 0);
        float *Lf = malloc(m * m * sizeof *Lf);
        for (int64_t q = 0; q < m * m; q++) Lf[q] = (float)L[q];
        for (size_t b = 0; b < sizeof ks / sizeof *ks; b++) {
            int K = ks[b];
            double *B0 = malloc(ldb * K * sizeof *B0), *Br = malloc(ldb * K * sizeof *Br),
                   *B = malloc(ldb * K * sizeof *B), *B1 = malloc(ldb * K * sizeof *B1);
            float *Bf0 = malloc(ldb * K * sizeof *Bf0), *Bfr = malloc(ldb * K * sizeof *Bfr),
                  *Bf = malloc(ldb * K * sizeof *Bf), *Bf1 = malloc(ldb * K * sizeof *Bf1);
            for (int64_t q = 0; q < ldb * K; q++) Bf0[q] = (float)(B0[q] = cos(0.37 * (double)q));
            memcpy(Br, B0, ldb * K * sizeof *Br);
            memcpy(Bfr, Bf0, ldb * K * sizeof *Bfr);
            assert_int_equal(LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)m, K, L,
                                            (lapack_int)m, Br, (lapack_int)ldb), 0);
            assert_int_equal(LAPACKE_spotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)m, K, Lf,
                                            (lapack_int)m, Bfr, (lapack_int)ldb), 0);
            for (int run = 0; run < 6; run++) {
                int T = 1 + run % 3;
                bnl_ctx c = ctx_t(T);
                if (run >= 3) assert_int_equal(bnl_ctx_set_arch(&c, BNL_ARCH_SCALAR, NULL), FSVC_OK);
                memcpy(B, B0, ldb * K * sizeof *B);
                memcpy(Bf, Bf0, ldb * K * sizeof *Bf);
                assert_int_equal(bnl_chol_solve(&c, L, m, m, 0, B, K, ldb), 0);
                assert_int_equal(bnl_chol_solve(&c, Lf, m, m, 1, Bf, K, ldb), 0);
                double d = 0, df = 0, r = 0;
                for (int k = 0; k < K; k++)
                    for (int64_t i = 0; i < ldb; i++) {
                        size_t q = (size_t)k * ldb + i;
                        if (i >= m) { /* the rows past m are not touched */
                            assert_true(B[q] == B0[q] && Bf[q] == Bf0[q]);
                            continue;
                        }
                        d = fmax(d, fabs(B[q] - Br[q]));
                        df = fmax(df, fabs((double)Bf[q] - Bfr[q]));
                        r = fmax(r, fabs(Br[q]));
                    }
                if (!(d <= 1e-10 * r) || !(df <= 2e-3 * r))
                    fail_msg("chol_solve m %lld K %d: %g (float %g) of %g", (long long)m, K, d,
                             df, r);
                if (T == 1) { /* each tier's bits */
                    memcpy(B1, B, ldb * K * sizeof *B);
                    memcpy(Bf1, Bf, ldb * K * sizeof *Bf);
                } else {
                    assert_memory_equal(B, B1, ldb * K * sizeof *B);
                    assert_memory_equal(Bf, Bf1, ldb * K * sizeof *Bf);
                }
                bnl_ctx_close(&c);
            }
            free(B0); free(Br); free(B); free(B1); free(Bf0); free(Bfr); free(Bf); free(Bf1);
        }
        free(L); free(Lf);
    }
    double one = 1, b = 1;
    assert_int_equal(bnl_chol_solve(&ctx, &one, 2, 1, 0, &b, 1, 2), -1); /* lda < m */
    assert_int_equal(bnl_chol_solve(&ctx, &one, 1, 1, 0, &b, -1, 1), -1);
    assert_int_equal(bnl_chol_solve(&ctx, &one, 1, 1, 0, &b, 0, 1), 0);
}

/* not positive definite at column 301 (in the second block): info 301 */
static void test_chol_not_pd(void **s)
{
    (void)s;
    int64_t m = 600;
    double *A = calloc(m * m, sizeof *A);
    for (int64_t j = 0; j < m; j++) A[j * m + j] = j == 300 ? -1 : 2;
    assert_int_equal(bnl_chol(&ctx, A, m, m, 0, NULL), 301);
    free(A);
}

/* syrk by fixed blocks: cblas_dsyrk's values, the same bits on 1..3 threads */
static void test_syrk_threads(void **s)
{
    (void)s;
    int64_t b = 333, ma = 530;
    double *H = malloc(b * ma * sizeof *H), *G0 = calloc(ma * ma, sizeof *G0),
           *G = malloc(ma * ma * sizeof *G), *G1 = malloc(ma * ma * sizeof *G1);
    uint64_t st = 5;
    for (int64_t q = 0; q < b * ma; q++) H[q] = (double)(fsvc_rng_next(&st) % 1000) / 999;
    /* H row-major b x ma: G row-major upper = column-major lower */
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)ma, (int)b, 1.0, H, (int)ma, 0.0, G0,
                (int)ma);
    for (int T = 1; T <= 3; T++) {
        bnl_ctx c = ctx_t(T);
        for (int64_t q = 0; q < ma * ma; q++) G[q] = 1; /* beta 0 overwrites */
        bnl_syrk_acc(&c, G, ma, H, ma, ma, b, 0.0, 0);
        double d = 0;
        for (int64_t i = 0; i < ma; i++)
            for (int64_t j = i; j < ma; j++) d = fmax(d, fabs(G[i * ma + j] - G0[i * ma + j]));
        if (!(d <= 1e-10 * b)) fail_msg("syrk by blocks vs dsyrk: %g", d);
        bnl_syrk_acc(&c, G, ma, H, ma, ma, b, 1.0, 0); /* beta 1 adds: 2 x */
        if (T == 1) memcpy(G1, G, ma * ma * sizeof *G);
        else assert_memory_equal(G, G1, ma * ma * sizeof *G);
        assert_true(fabs(G[5 * ma + 9] - 2 * G0[5 * ma + 9]) <= 1e-9 * fabs(G0[5 * ma + 9]));
        bnl_ctx_close(&c);
    }
    free(H); free(G0); free(G); free(G1);
}

static int lines, done_lines;
static char last[256];
static void capture(const char *line)
{
    lines++;
    if (strstr(line, "Cholesky done")) done_lines++;
    snprintf(last, sizeof last, "%s", line);
}

/* progress only when asked (the library prints nothing unless asked) */
static void test_chol_progress(void **s)
{
    (void)s;
    int64_t m = 800;
    double *A = spd(m, 9), *L = malloc(m * m * sizeof *L);
    fsvc_set_print(capture);
    lines = done_lines = 0;
    memcpy(L, A, m * m * sizeof *L);
    assert_int_equal(bnl_chol(&ctx, L, m, m, 0, NULL), 0);
    assert_int_equal(lines, 0);
    bnl_chol_progress pr = {"test", 0};
    memcpy(L, A, m * m * sizeof *L);
    assert_int_equal(bnl_chol(&ctx, L, m, m, 0, &pr), 0);
    assert_true(lines >= 2);
    assert_int_equal(done_lines, 1);
    assert_non_null(strstr(last, "test: Cholesky done in"));
    /* the solvers with progress 0: silent */
    lines = 0;
    prob P = make(400, 6, 3, 2);
    double *R = malloc(100 * 3 * sizeof *R);
    fsvc_error err;
    assert_int_equal(solve(R, &P, 100, NULL, FSVC_SOLVER_DIRECT, FSVC_F32, &err), FSVC_OK);
    assert_int_equal(solve(R, &P, 100, NULL, FSVC_SOLVER_PCG, FSVC_F32, &err), FSVC_OK);
    assert_int_equal(lines, 0);
    fsvc_set_print(NULL);
    free(R); drop(&P); free(A); free(L);
}

static void test_setting(void **s)
{
    (void)s;
    fsvc_param p;
    fsvc_error err;
    char v[300];
    fsvc_param_default(&p);
    assert_int_equal(fsvc_param_get(&p, "class-weight", v, sizeof v), 0);
    assert_string_equal(v, "none");
    assert_int_equal(fsvc_param_set(&p, "class-weight", "balanced", &err), FSVC_OK);
    assert_string_equal(p.class_weight, "balanced");
    assert_int_equal(fsvc_param_set(&p, "class-weight", "3:5,cat:2.5,a:b:1", &err), FSVC_OK);
    assert_int_equal(fsvc_param_get(&p, "class-weight", v, sizeof v), 0);
    assert_string_equal(v, "3:5,cat:2.5,a:b:1");
    assert_int_equal(fsvc_param_check(&p, &err), FSVC_OK);
    const char *bad[] = {"3", "3:", ":2", "3:0", "3:-1", "3:x", "3:nan", "3:1,", "3:1,,4:2",
                         "3:inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fsvc_param q = p;
        assert_int_equal(fsvc_param_set(&q, "class-weight", bad[i], &err), FSVC_EUSAGE);
        assert_string_equal(q.class_weight, p.class_weight); /* unchanged */
        assert_non_null(strstr(err.msg, "class-weight"));
    }
    char longs[400];
    memset(longs, 'a', sizeof longs - 3);
    memcpy(longs + sizeof longs - 3, ":1", 3);
    assert_int_equal(fsvc_param_set(&p, "class-weight", longs, &err), FSVC_EUSAGE);
    p.readout = FSVC_READOUT_LMS;
    assert_int_equal(fsvc_param_check(&p, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "lms readout cannot weight"));
    p.readout = FSVC_READOUT_RIDGE;
    p.regression = 1;
    assert_int_equal(fsvc_param_check(&p, &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_param_set(&p, "class-weight", "none", &err), FSVC_OK);
    assert_string_equal(p.class_weight, "");
    assert_int_equal(fsvc_param_check(&p, &err), FSVC_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weight_is_duplication),
        cmocka_unit_test(test_pcg_matches_direct),
        cmocka_unit_test(test_chol_lapack_and_threads),
        cmocka_unit_test(test_chol_solve_shapes),
        cmocka_unit_test(test_chol_not_pd),
        cmocka_unit_test(test_syrk_threads),
        cmocka_unit_test(test_chol_progress),
        cmocka_unit_test(test_setting),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
