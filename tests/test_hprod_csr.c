/* test_hprod_csr.c - the engine's block products (bnl.h bnl_hprod_*) on a
 * CSR source (layers/cpu_hprod.c: H chunks by bnl_sparse_forward, then the
 * dense source's chunk loop) against the same products on the dense copy
 * of the data. Bit for bit where the two layers make the same H: integer
 * features give exact distances, and both layers apply one activation
 * (act_hd.h) to the same float, so the same GEMMs in the same order see
 * the same bits. On real values, within a bound derived from float
 * rounding. Also: sample weights, targets, the cache and bf16 H; K_mm is
 * the sparse layer's; bad CSR sources are refused; a device context runs
 * a CSR source on the CPU table; and the sparse pcg readout
 * (fsvc_sparse_ridge) gives the dense pcg readout's bits on such data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/sparse.h"
#include "tests/util/emu_device.h"

/* N spans several chunks (4096 rows each at these m) */
enum { N = 9000, n = 24, M = 60, K = 3 };

typedef struct {
    float *X;           /* N x n dense */
    fsvc_csr xs, cs;    /* all samples as CSR; the first M of them (the centroids) */
    bnl_csr xv, cv;
    bnl_csc Ct;
    int *cls;
    double *y, *w;      /* targets; sample weights 1..3 */
    bnl_hprod_csr csr;
} data;

static bnl_ctx ctx;
static int setup(void **s) { (void)s; fsvc_error e; return bnl_ctx_open(&ctx, "cpu", 2, 0, &e); }
static int teardown(void **s) { (void)s; bnl_ctx_close(&ctx); return 0; }

/* About 30% nonzeros: integers 1..3 (exact) or reals in (0, 1]. */
static void make(data *d, int exact, const bnl_op *op, uint64_t seed)
{
    uint64_t st = seed;
    d->X = calloc((size_t)N * n, sizeof *d->X);
    d->cls = malloc(N * sizeof *d->cls);
    d->y = malloc(N * sizeof *d->y);
    d->w = malloc(N * sizeof *d->w);
    int64_t *ptr = malloc((N + 1) * sizeof *ptr);
    int32_t *col = malloc((size_t)N * n * sizeof *col);
    float *val = malloc((size_t)N * n * sizeof *val);
    int64_t nz = 0;
    ptr[0] = 0;
    for (int64_t i = 0; i < N; i++) {
        d->cls[i] = (int)(fsvc_rng_next(&st) % K);
        d->w[i] = 1 + (double)(fsvc_rng_next(&st) % 3);
        d->y[i] = 0;
        for (int j = 0; j < n; j++) {
            if (fsvc_rng_next(&st) % 10 >= 3 - (j % 3 == d->cls[i] % 3)) continue;
            float v = exact ? (float)(1 + fsvc_rng_next(&st) % 3)
                            : (float)(1 + fsvc_rng_next(&st) % 1000) / 1000;
            d->X[i * n + j] = v;
            col[nz] = j;
            val[nz++] = v;
            d->y[i] += sin(v + j);
        }
        ptr[i + 1] = nz;
    }
    d->xs = (fsvc_csr){N, nz, ptr, col, val};
    d->cs = (fsvc_csr){M, ptr[M], ptr, col, val};
    d->xv = fsvc_csr_view(&d->xs, 0, N);
    d->cv = fsvc_csr_view(&d->cs, 0, M);
    fsvc_error err;
    assert_int_equal(bnl_csc_make(&d->Ct, &d->cv, n, op->dist, &err), 0);
    d->csr = (bnl_hprod_csr){&d->Ct, &d->cv, &d->xv};
}

static void drop(data *d)
{
    free(d->X); free(d->cls); free(d->y); free(d->w);
    free(d->xs.row_ptr); free(d->xs.col); free(d->xs.val);
    bnl_csc_free(&d->Ct);
}

/* A variant of the problem: targets or classes, weights, cache, bf16 H. */
typedef struct { int regr, weighted, cache, bf16; } variant;
static const variant variants[] = {{0, 0, 0, 0}, {0, 0, 1, 0}, {0, 1, 0, 0}, {0, 1, 1, 0},
                                   {1, 0, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}, {0, 1, 1, 1}};

static bnl_hprod_problem problem(const data *d, const bnl_op *op, const variant *v, int csr)
{
    return (bnl_hprod_problem){op, csr ? NULL : d->X, M, csr ? NULL : d->X, N, n,
                               v->regr ? 1 : K, v->regr ? NULL : d->cls, v->regr ? d->y : NULL,
                               NULL, v->weighted ? d->w : NULL, FSVC_AUG_NONE, 0, 0,
                               csr ? &d->csr : NULL};
}

/* The products of one source: B and trace, H^T H V twice (the second
 * pass from the cache when cached), K_mm in float (widened) and double. */
typedef struct { double B[M * K], ss, Y1[M * K], Y2[M * K], Kf[M * M], Kd[M * M]; int dev; } prods;

static void run(prods *o, const bnl_ctx *c, const bnl_hprod_problem *pb, const variant *v,
                const double *V)
{
    bnl_hprod_opt ho = {v->cache, 0, 0, v->bf16};
    bnl_hprod *h;
    fsvc_error err;
    float *Kf = malloc(M * M * sizeof *Kf);
    memset(o, 0, sizeof *o);
    assert_int_equal(bnl_hprod_open(c, pb, &ho, &h, &err), 0);
    assert_int_equal(bnl_hprod_rhs(h, o->B, &o->ss, &err), 0);
    assert_int_equal(bnl_hprod_apply(h, o->Y1, V, &err), 0);
    assert_int_equal(bnl_hprod_apply(h, o->Y2, V, &err), 0);
    assert_int_equal(bnl_hprod_kmm(h, Kf, 1, &err), 0);
    assert_int_equal(bnl_hprod_kmm(h, o->Kd, 0, &err), 0);
    for (int q = 0; q < M * M; q++) o->Kf[q] = Kf[q];
    bnl_hprod_stats st;
    bnl_hprod_stats_get(h, &st);
    o->dev = st.device;
    assert_int_equal(st.N, N);
    bnl_hprod_close(h);
    free(Kf);
}

static void random_v(double *V, uint64_t seed)
{
    for (int q = 0; q < M * K; q++) V[q] = (double)(fsvc_rng_next(&seed) % 2001) / 1000 - 1;
}

/* K_mm as the sparse layer makes it: the centroids' rows against Ct. */
static void kmm_sparse(float *Kmm, const data *d, const bnl_op *op)
{
    fsvc_error err;
    assert_int_equal(bnl_sparse_forward(&ctx, op, Kmm, M, &d->Ct, &d->cv, &err), 0);
}

/* Integer features: the dense and sparse layers make the same H (checked
 * first: the premise), so every product of the CSR source has the dense
 * source's bits, for each variant. K_mm is the sparse layer's (for bf16
 * the dense source takes it from its rounded cache, the CSR source never
 * does: compared to the layer only). */
static void exact_data_same_bits(void **s)
{
    (void)s;
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 3.0, BNL_PREC_FULL};
    data d;
    make(&d, 1, &op, 11);
    fsvc_error err;
    float *Hd = malloc((size_t)N * M * sizeof *Hd), *Hs = malloc((size_t)N * M * sizeof *Hs);
    assert_int_equal(bnl_forward(&ctx, &op, Hd, M, d.X, M, d.X, N, n, &err), 0);
    assert_int_equal(bnl_sparse_forward(&ctx, &op, Hs, M, &d.Ct, &d.xv, &err), 0);
    assert_memory_equal(Hd, Hs, (size_t)N * M * sizeof *Hd);
    float Kl[M * M];
    kmm_sparse(Kl, &d, &op);
    double V[M * K];
    random_v(V, 5);
    prods *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    for (size_t t = 0; t < sizeof variants / sizeof *variants; t++) {
        const variant *v = &variants[t];
        bnl_hprod_problem pd = problem(&d, &op, v, 0), pc = problem(&d, &op, v, 1);
        run(a, &ctx, &pd, v, V);
        run(b, &ctx, &pc, v, V);
        int k = v->regr ? 1 : K;
        assert_memory_equal(a->B, b->B, (size_t)M * k * sizeof *a->B);
        assert_memory_equal(&a->ss, &b->ss, sizeof a->ss);
        assert_memory_equal(a->Y1, b->Y1, (size_t)M * k * sizeof *a->Y1);
        assert_memory_equal(a->Y2, b->Y2, (size_t)M * k * sizeof *a->Y2);
        for (int q = 0; q < M * M; q++) {
            assert_true(b->Kf[q] == Kl[q]);
            assert_true(b->Kd[q] == Kl[q]);
            if (!v->bf16) assert_true(a->Kf[q] == b->Kf[q] && a->Kd[q] == b->Kd[q]);
        }
    }
    free(a); free(b); free(Hd); free(Hs);
    drop(&d);
}

/* The rounding bound on real values. Per H entry, relative: the dense
 * layer's d = |x|^2 + |c|^2 - 2 x.c in float is off by at most
 * gamma(n+2) 2 (|x|^2 + |c|^2), the sparse one's (double, then rounded)
 * by u d; exp(-g d) moves by g times that, plus a few ulps of exp: delta.
 * Each product then sums in float over at most L = N + m terms on each
 * side (gamma(L) of the sum of |terms|, A), and the two H differ by
 * delta per factor: |dY| <= (2 gamma(L) + 3 delta + 4u) A. */
static double gam(double k) { double u = ldexp(1, -24); return k * u / (1 - k * u); }

static void real_data_within_rounding(void **s)
{
    (void)s;
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 1.5, BNL_PREC_FULL};
    data d;
    make(&d, 0, &op, 12);
    fsvc_error err;
    double u = ldexp(1, -24), g = 1 / (2 * op.radius * op.radius), smax = 0, dmax = 0;
    float *H = malloc((size_t)N * M * sizeof *H);
    assert_int_equal(bnl_forward(&ctx, &op, H, M, d.X, M, d.X, N, n, &err), 0);
    for (int64_t i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            double xx = 0, cc = 0, dd = 0;
            for (int f = 0; f < n; f++) {
                double x = d.X[i * n + f], c = d.X[j * n + f];
                xx += x * x; cc += c * c; dd += (x - c) * (x - c);
            }
            smax = fmax(smax, xx + cc);
            dmax = fmax(dmax, dd);
        }
    double delta = g * (2 * gam(n + 2) * smax + u * dmax) + 8 * u;
    double tol = 2 * gam(N + M) + 3 * delta + 4 * u;
    double V[M * K];
    random_v(V, 6);
    prods *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    for (size_t t = 0; t < sizeof variants / sizeof *variants; t++) {
        const variant *v = &variants[t];
        if (v->bf16) continue; /* rounding to bf16 may round the two H apart */
        bnl_hprod_problem pd = problem(&d, &op, v, 0), pc = problem(&d, &op, v, 1);
        run(a, &ctx, &pd, v, V);
        run(b, &ctx, &pc, v, V);
        int k = v->regr ? 1 : K;
        /* A for Y: sum_i w_i |h_i| (|h_i| |V|); for B: sum_i w_i |t_i| |h_i| */
        double *AY = calloc(M * K, sizeof *AY), *AB = calloc(M * K, sizeof *AB), AS = 0;
        for (int64_t i = 0; i < N; i++) {
            const float *h = H + i * M;
            double w = v->weighted ? d.w[i] : 1;
            for (int c = 0; c < k; c++) {
                double hv = 0, tc = v->regr ? fabs(d.y[i]) : d.cls[i] == c;
                for (int j = 0; j < M; j++) hv += fabs(h[j] * V[c * M + j]);
                for (int j = 0; j < M; j++) {
                    AY[c * M + j] += w * fabs(h[j]) * hv;
                    AB[c * M + j] += w * tc * fabs(h[j]);
                }
            }
            for (int j = 0; j < M; j++) AS += w * (double)h[j] * h[j];
        }
        for (int q = 0; q < M * k; q++) {
            assert_true(fabs(a->B[q] - b->B[q]) <= tol * AB[q]);
            assert_true(fabs(a->Y1[q] - b->Y1[q]) <= tol * AY[q]);
            assert_true(fabs(a->Y2[q] - b->Y2[q]) <= tol * AY[q]);
        }
        assert_true(fabs(a->ss - b->ss) <= tol * AS);
        for (int q = 0; q < M * M; q++)
            assert_true(fabs(a->Kd[q] - b->Kd[q]) <= delta * fabs(a->Kd[q]) + u);
        free(AY); free(AB);
    }
    free(a); free(b); free(H);
    drop(&d);
}

/* On an (emulated) device context a CSR source runs on the CPU table,
 * with the CPU context's bits. */
static void device_runs_csr_on_cpu(void **s)
{
    (void)s;
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 3.0, BNL_PREC_FULL};
    data d;
    make(&d, 1, &op, 13);
    emu_device_reset(0, 0, 0);
    bnl_ctx dev;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open_device(&dev, emu_device_ops(), 2, 1, &err), 0);
    double V[M * K];
    random_v(V, 7);
    prods *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    const variant v = {0, 0, 0, 0};
    bnl_hprod_problem pc = problem(&d, &op, &v, 1), pd = problem(&d, &op, &v, 0);
    run(a, &dev, &pd, &v, V);
    assert_int_equal(a->dev, 1); /* the dense source: on the device */
    run(a, &dev, &pc, &v, V);
    run(b, &ctx, &pc, &v, V);
    assert_int_equal(a->dev, 0);
    assert_memory_equal(a, b, sizeof *a);
    bnl_ctx_close(&dev);
    free(a); free(b);
    drop(&d);
}

/* A CSR source whose parts disagree with the problem, or with virtual
 * samples, is a usage error. */
static void bad_csr_source(void **s)
{
    (void)s;
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 3.0, BNL_PREC_FULL};
    data d;
    make(&d, 1, &op, 14);
    const variant v = {0, 0, 0, 0};
    bnl_hprod *h = NULL;
    fsvc_error err;
    bnl_hprod_problem p = problem(&d, &op, &v, 1);
    p.N = N - 1; /* the samples' rows are N */
    assert_int_equal(bnl_hprod_open(&ctx, &p, NULL, &h, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "CSR source"));
    p = problem(&d, &op, &v, 1);
    p.m = M - 1;
    assert_int_equal(bnl_hprod_open(&ctx, &p, NULL, &h, &err), FSVC_EUSAGE);
    p = problem(&d, &op, &v, 1);
    bnl_op l1 = op;
    l1.dist = BNL_L1; /* Ct made for L2 */
    p.op = &l1;
    assert_int_equal(bnl_hprod_open(&ctx, &p, NULL, &h, &err), FSVC_EUSAGE);
    p = problem(&d, &op, &v, 1);
    p.aug = FSVC_AUG_SHIFT1;
    assert_int_equal(bnl_hprod_open(&ctx, &p, NULL, &h, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "virtual samples"));
    bnl_hprod_csr part = {&d.Ct, NULL, &d.xv};
    p = problem(&d, &op, &v, 1);
    p.csr = &part;
    assert_int_equal(bnl_hprod_open(&ctx, &p, NULL, &h, &err), FSVC_EUSAGE);
    assert_null(h);
    drop(&d);
}

/* The sparse pcg readout is the dense pcg readout over the same H: on
 * integer features, the model's readout R has the same bits, with and
 * without sample weights, classes and targets. */
static void sparse_pcg_is_dense_pcg(void **s)
{
    (void)s;
    bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 3.0, BNL_PREC_FULL};
    data d;
    make(&d, 1, &op, 15);
    fsvc_error err;
    double *Rs = malloc(M * K * sizeof *Rs), *Rd = malloc(M * K * sizeof *Rd);
    for (int t = 0; t < 4; t++) {
        int regr = t & 1, weighted = t >> 1, k = regr ? 1 : K;
        const int *cls = regr ? NULL : d.cls;
        const double *y = regr ? d.y : NULL, *w = weighted ? d.w : NULL;
        fsvc_ridge_opt o = {1e-4, FSVC_SOLVER_PCG, 1e-6, FSVC_AUG_NONE, 0, 0, 0, 0, 0};
        fsvc_sparse_problem sp = {&ctx, &op, &d.Ct, &d.cs, &d.xs, cls, y, w, k};
        fsvc_ridge_problem dp = {&ctx, &op, d.X, M, d.X, cls, y, NULL, N, N, n, k,
                                 fsvc_comm_one(), w, NULL};
        fsvc_train_info is, id;
        memset(&is, 0, sizeof is);
        memset(&id, 0, sizeof id);
        assert_int_equal(fsvc_sparse_ridge(Rs, &sp, &o, &is, &err), 0);
        assert_int_equal(fsvc_readout_solve(Rd, &dp, &o, &id, &err), 0);
        assert_int_equal(is.solver, FSVC_SOLVER_PCG);
        assert_true(is.cg_iter > 0);
        assert_int_equal(is.cg_iter, id.cg_iter);
        assert_memory_equal(Rs, Rd, (size_t)M * k * sizeof *Rs);
    }
    free(Rs); free(Rd);
    drop(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_data_same_bits),
        cmocka_unit_test(real_data_within_rounding),
        cmocka_unit_test(device_runs_csr_on_cpu),
        cmocka_unit_test(bad_csr_source),
        cmocka_unit_test(sparse_pcg_is_dense_pcg),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
