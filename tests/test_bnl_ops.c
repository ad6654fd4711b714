/*
 * test_bnl_ops.c - every op x dtype x backend x arch against the `ref`
 * backend at many shapes (1x1x1, primes, just under/over the planner's tile
 * multiples, n around the vector widths, m or N = 1), plus structural checks
 * (h = 1 on a neuron's own centroid, RBF outputs in [0,1], 0 beyond the
 * triangle's support), threads 1 vs 2 identical, actsum and scores. The
 * cuda backend joins (u8 and f32, same tolerances) when a device opens.
 *
 * Tolerances (tol_for below): u8 bit-exact (exact int32 distances, the same
 * float activation code); f64 L1 bit-exact (kernels keep the k order); f32
 * L1 within the kernels' stated bound 1e-5 * sum(|x|+|w|) + 1e-6 on the
 * distance; GEMM paths (f32/f64 dot, L2) within 4 n eps max|x|^2 on the dot
 * product / squared distance; each propagated through the activation's
 * slope, plus 4e-7 for the float activations and the float rounding of H.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/bnl_cuda.h"
#include "layers/bnl.h"
#include "layers/kernels.h"

static int quick(void) { return getenv("FSVC_TEST_QUICK") != NULL; }

/* ---- data ---------------------------------------------------------------- */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

typedef struct data {
    fsvc_dtype dt;
    int64_t m, N;
    int n;
    void *W, *X;       /* m x n, N x n */
    double maxv;       /* largest |value| */
    double *dl1, *dl2; /* N x m: L1 and L2 distances in double */
} data;

/* X's first min(N, m) rows repeat W's rows (own-centroid checks). Values
 * are small integers scaled to [0, 1) for floats so that some pairs are
 * close and the triangle has zeros and non-zeros. */
static void data_make(data *d, fsvc_dtype dt, int64_t m, int64_t N, int n)
{
    d->dt = dt;
    d->m = m;
    d->N = N;
    d->n = n;
    size_t es = fsvc_dtype_size(dt);
    d->W = malloc((size_t)(m * n) * es);
    d->X = malloc((size_t)(N * n) * es);
    assert_non_null(d->W);
    assert_non_null(d->X);
    d->maxv = dt == FSVC_U8 ? 255.0 : 1.0;
    for (int64_t r = 0; r < m + N; r++) {
        int isx = r >= m;
        int64_t row = isx ? r - m : r;
        for (int k = 0; k < n; k++) {
            uint32_t u = rnd();
            double v;
            if (isx && row < m && row < N)
                continue; /* copied below */
            v = dt == FSVC_U8 ? (double)(u % 256) : (double)(u % 1000000) / 1000000.0;
            size_t at = (size_t)(row * n + k);
            void *base = isx ? d->X : d->W;
            if (dt == FSVC_U8) ((uint8_t *)base)[at] = (uint8_t)v;
            else if (dt == FSVC_F32) ((float *)base)[at] = (float)v;
            else ((double *)base)[at] = v;
        }
    }
    int64_t c = m < N ? m : N;
    memcpy(d->X, d->W, (size_t)(c * n) * es);
    d->dl1 = malloc((size_t)(N * m) * sizeof(double));
    d->dl2 = malloc((size_t)(N * m) * sizeof(double));
    assert_non_null(d->dl1);
    assert_non_null(d->dl2);
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++) {
            double s1 = 0.0, s2 = 0.0;
            for (int k = 0; k < n; k++) {
                size_t xi = (size_t)(i * n + k), wi = (size_t)(j * n + k);
                double a, b;
                if (dt == FSVC_U8) { a = ((uint8_t *)d->X)[xi]; b = ((uint8_t *)d->W)[wi]; }
                else if (dt == FSVC_F32) { a = ((float *)d->X)[xi]; b = ((float *)d->W)[wi]; }
                else { a = ((double *)d->X)[xi]; b = ((double *)d->W)[wi]; }
                s1 += fabs(a - b);
                s2 += (a - b) * (a - b);
            }
            d->dl1[i * m + j] = s1;
            d->dl2[i * m + j] = sqrt(s2);
        }
}

static void data_free(data *d)
{
    free(d->W);
    free(d->X);
    free(d->dl1);
    free(d->dl2);
}

/* Radius so that the triangle's support is near the typical distance. */
static double radius_for(bnl_dist dist, int n, double maxv)
{
    if (dist == BNL_L1)
        return maxv * n / 3.0 / BNL_TRI_SCALE;
    return maxv * sqrt(n / 6.0) / BNL_TRI_SCALE;
}

/* ---- tolerance -------------------------------------------------------------- */
typedef struct tol { double abs; int exact; } tol;

/* abs is set for exact ops too (the rounding of the float or double
 * activation alone): check_zeros compares with the exact triangle. */
static tol tol_for(const bnl_op *op, int n, double maxv)
{
    tol t = {0.0, op->dtype == FSVC_U8 || (op->dtype == FSVC_F64 && op->dist == BNL_L1)};
    double eps = op->dtype == FSVC_F32 ? FLT_EPSILON : DBL_EPSILON;
    double dv; /* bound on the error of v (distance, squared distance, dot) */
    if (op->dist == BNL_L1)
        dv = op->dtype == FSVC_F32 ? BNL_L1_F32_RTOL * 2.0 * n * maxv + BNL_L1_F32_ATOL
                                   : 0.0;
    else
        dv = 4.0 * n * eps * maxv * maxv * 4.0;
    double r = op->radius, a = 1.0 / (BNL_TRI_SCALE * r), g = 1.0 / (2.0 * r * r);
    double dd = op->dist == BNL_L2 ? sqrt(dv) : dv; /* bound on the distance error */
    switch (op->act) {
    case BNL_TRI: t.abs = a * dd; break;
    case BNL_GAUSS: t.abs = op->dist == BNL_L2 ? g * dv : sqrt(2.0 * g) * dd; break;
    case BNL_TANH: t.abs = dv; break;
    case BNL_IDENT: t.abs = dd; break;
    }
    double fl = op->dtype == FSVC_F64 ? 1e-13 : 4e-7; /* float H for u8 and f32 */
    t.abs += fl;
    if (op->act == BNL_IDENT)
        t.abs += fl * (op->dist == BNL_DOT ? n * maxv * maxv : n * maxv);
    return t;
}

static double hval(const void *H, fsvc_dtype dt, int64_t at)
{
    return dt == FSVC_F64 ? ((const double *)H)[at] : (double)((const float *)H)[at];
}

/* Compares got with want (N x m, ld ldh); prints the first mismatches.
 * Returns the number of bad entries. */
static int64_t compare_h(const char *what, const void *got, const void *want, fsvc_dtype dt,
                         int64_t N, int64_t m, int64_t ldh, tol t)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++) {
            double a = hval(got, dt, i * ldh + j), b = hval(want, dt, i * ldh + j);
            int ok;
            if (t.exact)
                ok = dt == FSVC_F64 ? memcmp(&((const double *)got)[i * ldh + j],
                                             &((const double *)want)[i * ldh + j], 8) == 0
                                    : memcmp(&((const float *)got)[i * ldh + j],
                                             &((const float *)want)[i * ldh + j], 4) == 0;
            else
                ok = fabs(a - b) <= t.abs;
            if (!ok) {
                if (bad < 5)
                    print_error("%s: H[%lld][%lld] = %.9g, want %.9g (diff %.3g, tol %s%.3g)\n",
                                what, (long long)i, (long long)j, a, b, a - b,
                                t.exact ? "exact " : "", t.abs);
                bad++;
            }
        }
    if (bad)
        print_error("%s: %lld of %lld entries differ\n", what, (long long)bad,
                    (long long)(N * m));
    return bad;
}

/* ---- the ops ------------------------------------------------------------------ */
typedef struct opdef { bnl_dist dist; bnl_act act; } opdef;
static const opdef OPS[] = {
    {BNL_L1, BNL_TRI}, {BNL_L1, BNL_GAUSS}, {BNL_L1, BNL_IDENT},
    {BNL_L2, BNL_TRI}, {BNL_L2, BNL_GAUSS}, {BNL_L2, BNL_IDENT},
    {BNL_DOT, BNL_TANH}, {BNL_DOT, BNL_IDENT},
};
#define NOPS ((int)(sizeof OPS / sizeof *OPS))
static const fsvc_dtype DTS[] = {FSVC_U8, FSVC_F32, FSVC_F64};

static void *xalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    return p;
}

/* The triangle's zeros where the exact triangle (double distances from
 * data_make) puts them: H = 0 only where the exact h = max(0, 1 - d/(S r))
 * is within the error band of 0, and H within the band of 0 wherever the
 * exact h is 0. band: tol_for's bound on |H - exact h| (for the exact
 * dtypes, the activation's own rounding). This holds ref to the definition
 * too, so a wrong support in the activation code that ref and the kernels
 * share (act.h) fails here although compare_h sees them agree. */
static void check_zeros(const char *what, const bnl_op *op, const data *d, const void *H,
                        int64_t ldh)
{
    double band = tol_for(op, d->n, d->maxv).abs;
    double s = BNL_TRI_SCALE * op->radius;
    const double *D = op->dist == BNL_L1 ? d->dl1 : d->dl2;
    int64_t bad = 0;
    for (int64_t i = 0; i < d->N; i++)
        for (int64_t j = 0; j < d->m; j++) {
            double h = hval(H, d->dt, i * ldh + j), dist = D[i * d->m + j];
            double exact = dist < s ? 1.0 - dist / s : 0.0;
            if ((h == 0.0 && exact > band) || (exact == 0.0 && h > band)) {
                if (bad++ < 5)
                    print_error("%s: H[%lld][%lld] = %.9g where the exact triangle is %.9g "
                                "(d = %.9g, support %.9g, band %.3g)\n", what, (long long)i,
                                (long long)j, h, exact, dist, s, band);
            }
        }
    if (bad) {
        print_error("%s: %lld zeros of the triangle misplaced\n", what, (long long)bad);
        fail();
    }
}

/* Structural facts on a reference-checked H. */
static void check_structure(const char *what, const bnl_op *op, const data *d, const void *H,
                            int64_t ldh, tol t)
{
    if (op->act != BNL_TRI && op->act != BNL_GAUSS)
        return;
    int64_t c = d->m < d->N ? d->m : d->N;
    /* exact 1 where the distance of a row to itself is exactly 0: u8, f64
     * L1 and the reference; f32 kernels may reorder (Sx + Sw - 2 Smin) */
    int exact_self = d->dt == FSVC_U8 || (op->dist == BNL_L1 && (d->dt == FSVC_F64 || t.exact));
    for (int64_t i = 0; i < d->N; i++)
        for (int64_t j = 0; j < d->m; j++) {
            double h = hval(H, d->dt, i * ldh + j);
            if (!(h >= 0.0 && h <= 1.0)) {
                print_error("%s: H[%lld][%lld] = %g outside [0,1]\n", what, (long long)i,
                            (long long)j, h);
                fail();
            }
            if (i < c && j == i) {
                if (exact_self ? h != 1.0 : fabs(h - 1.0) > t.abs) {
                    print_error("%s: own centroid H[%lld][%lld] = %.9g, want 1\n", what,
                                (long long)i, (long long)j, h);
                    fail();
                }
            }
        }
    if (op->act != BNL_TRI)
        return;
    check_zeros(what, op, d, H, ldh);
    /* beyond the support (distance computed in double): exactly 0 */
    const double *D = op->dist == BNL_L1 ? d->dl1 : d->dl2;
    for (int64_t i = 0; i < d->N; i++)
        for (int64_t j = 0; j < d->m; j++) {
            double dist = D[i * d->m + j];
            double support = BNL_TRI_SCALE * op->radius;
            if (dist > support * (1.0 + 1e-4) + 1e-3 * d->maxv &&
                hval(H, d->dt, i * ldh + j) != 0.0) {
                print_error("%s: H[%lld][%lld] = %g beyond the support (d=%g > %g)\n", what,
                            (long long)i, (long long)j, hval(H, d->dt, i * ldh + j), dist,
                            support);
                fail();
            }
        }
}

static int arch_list(bnl_arch *out)
{
    int k = 0;
    for (int a = BNL_ARCH_REF; a < BNL_ARCH_COUNT; a++)
        if (bnl_arch_supported((bnl_arch)a))
            out[k++] = (bnl_arch)a;
    return k;
}

/* One shape: every op (or only the first of each distance when few) x
 * dtype; cpu at every arch and 1/2 threads vs ref. */
static void run_shape_ops(int64_t m, int64_t N, int n, int few, int64_t tile_m,
                          int64_t tile_N, int only_dt)
{
    fsvc_error err;
    bnl_ctx ref, cpu;
    assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 1, 1, &err), FSVC_OK);
    cpu.tile_m = tile_m;
    cpu.tile_N = tile_N;
    cpu.par_min_syn = -1; /* small shapes too run on 2 threads */
    cpu.dnnl_min_syn = -1; /* and on oneDNN (the onednn tier) */
    /* the cuda backend too when a device is there (strict: no fallback) */
    bnl_ctx cu;
    fsvc_error cerr;
    int have_cuda = bnl_ctx_open(&cu, "cuda", 1, 1, &cerr) == FSVC_OK;
    bnl_arch archs[BNL_ARCH_COUNT];
    int na = arch_list(archs);
    for (int di = 0; di < 3; di++) {
        if (only_dt >= 0 && (int)DTS[di] != only_dt)
            continue;
        data d;
        data_make(&d, DTS[di], m, N, n);
        size_t hs = DTS[di] == FSVC_F64 ? 8 : 4;
        int64_t ldh = m + 3; /* a leading dimension > m; padding must stay untouched */
        void *Hr = xalloc((size_t)(N * ldh) * hs), *H1 = xalloc((size_t)(N * ldh) * hs);
        void *H2 = xalloc((size_t)(N * ldh) * hs);
        for (int oi = 0; oi < NOPS; oi++) {
            if (few && oi != 0 && oi != 4 && oi != 6)
                continue; /* l1/tri, l2/gauss, dot/tanh */
            bnl_op op = {OPS[oi].dist, OPS[oi].act, DTS[di], radius_for(OPS[oi].dist, n, d.maxv), BNL_PREC_FULL};
            if (OPS[oi].act == BNL_GAUSS && OPS[oi].dist == BNL_L2)
                op.radius *= 0.8;
            if (DTS[di] == FSVC_U8 && op.dist == BNL_DOT && op.act == BNL_TANH)
                op.act = BNL_IDENT; /* tanh of u8 dot products is 1 everywhere */
            tol t = tol_for(&op, n, d.maxv);
            memset(Hr, 0x5a, (size_t)(N * ldh) * hs);
            assert_int_equal(bnl_forward(&ref, &op, Hr, ldh, d.W, m, d.X, N, n, &err), FSVC_OK);
            char what[160];
            snprintf(what, sizeof what, "ref %s/%s/%s m=%lld N=%lld n=%d",
                     bnl_dist_name(op.dist), bnl_act_name(op.act), fsvc_dtype_name(op.dtype),
                     (long long)m, (long long)N, n);
            check_structure(what, &op, &d, Hr, ldh, (tol){0.0, 1});
            for (int ai = 0; ai < na; ai++) {
                assert_int_equal(bnl_ctx_set_arch(&cpu, archs[ai], &err), FSVC_OK);
                snprintf(what, sizeof what, "cpu/%s %s/%s/%s m=%lld N=%lld n=%d",
                         bnl_arch_name(archs[ai]), bnl_dist_name(op.dist), bnl_act_name(op.act),
                         fsvc_dtype_name(op.dtype), (long long)m, (long long)N, n);
                memset(H1, 0x5a, (size_t)(N * ldh) * hs);
                memset(H2, 0x5a, (size_t)(N * ldh) * hs);
                cpu.threads = 1;
                assert_int_equal(bnl_forward(&cpu, &op, H1, ldh, d.W, m, d.X, N, n, &err), FSVC_OK);
                cpu.threads = 2;
                assert_int_equal(bnl_forward(&cpu, &op, H2, ldh, d.W, m, d.X, N, n, &err), FSVC_OK);
                if (memcmp(H1, H2, (size_t)(N * ldh) * hs) != 0) {
                    print_error("%s: 1 and 2 threads differ\n", what);
                    fail();
                }
                /* the padding between m and ldh is untouched (0x5a bytes) */
                for (int64_t i = 0; i < N; i++)
                    for (size_t b = (size_t)m * hs; b < (size_t)ldh * hs; b++)
                        if (((unsigned char *)H1)[(size_t)i * ldh * hs + b] != 0x5a) {
                            print_error("%s: wrote past m in row %lld\n", what, (long long)i);
                            fail();
                        }
                if (compare_h(what, H1, Hr, op.dtype, N, m, ldh, t))
                    fail();
                check_structure(what, &op, &d, H1, ldh, t);
            }
            if (have_cuda && op.dtype != FSVC_F64) {
                snprintf(what, sizeof what, "cuda %s/%s/%s m=%lld N=%lld n=%d",
                         bnl_dist_name(op.dist), bnl_act_name(op.act), fsvc_dtype_name(op.dtype),
                         (long long)m, (long long)N, n);
                memset(H1, 0x5a, (size_t)(N * ldh) * hs);
                if (bnl_forward(&cu, &op, H1, ldh, d.W, m, d.X, N, n, &err) != FSVC_OK) {
                    print_error("%s: %s\n", what, err.msg);
                    fail();
                }
                if (compare_h(what, H1, Hr, op.dtype, N, m, ldh, t))
                    fail();
                check_structure(what, &op, &d, H1, ldh, t);
            }
        }
        free(Hr);
        free(H1);
        free(H2);
        data_free(&d);
    }
    bnl_ctx_close(&ref);
    bnl_ctx_close(&cpu);
    if (have_cuda)
        bnl_ctx_close(&cu);
}

static void run_shape(int64_t m, int64_t N, int n) { run_shape_ops(m, N, n, 0, 0, 0, -1); }

static void test_tiny_and_primes(void **state)
{
    static const int shapes[][3] = {
        {1, 1, 1}, {1, 7, 3}, {7, 1, 15}, {13, 17, 16}, {31, 37, 17}, {2, 3, 63},
        {64, 64, 64}, {65, 63, 65}, {17, 19, 1}, {3, 29, 784}, {41, 1, 784},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        run_shape(shapes[s][0], shapes[s][1], shapes[s][2]);
}

/* m and N just under and over the planner's tile sizes (any tile edges). */
static void test_tile_edges(void **state)
{
    fsvc_error err;
    bnl_ctx cpu;
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 1, &err), FSVC_OK);
    const int ns[] = {15, 64, 784};
    for (int k = 0; k < 3; k++) {
        int n = ns[k];
        if (quick() && n == 784)
            continue;
        for (int di = 0; di < 3; di++) {
            bnl_op op = {BNL_L1, BNL_TRI, DTS[di], 1.0, BNL_PREC_FULL};
            bnl_plan p = bnl_plan_for(&cpu, &op, 4096, 4096, n);
            int64_t tm = p.tile_m, tN = p.tile_N;
            /* the planner's tiles for a large layer; the tests force
             * small ones of the same kind (tile_m/tile_N) to keep the
             * reference affordable, then cross their edges */
            int64_t lim = quick() ? 400000 : 2000000;
            while (tm * tN * n > lim / 4 && (tN > 8 || tm > 8)) {
                if (tN > 8) tN = (tN + 1) / 2;
                if (tm * tN * n > lim / 4 && tm > 8) tm = (tm + 1) / 2;
            }
            cpu.tile_m = tm;
            cpu.tile_N = tN;
            int64_t ms[] = {tm - 1, tm + 1}, Ns[] = {tN + 1, 2 * tN - 1};
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++)
                    if (ms[a] >= 1 && Ns[b] >= 1)
                        run_shape_ops(ms[a], Ns[b], n, 1, tm, tN, (int)DTS[di]);
        }
    }
    bnl_ctx_close(&cpu);
}

/* actsum: equals the reference exactly for u8 and f64 L1 (within the
 * tolerance otherwise), equals the sequential sum of the CPU's own H, keeps
 * S's initial value, and is the same for 1 and 2 threads. scores: Y = H R. */
static void test_actsum_scores(void **state)
{
    fsvc_error err;
    bnl_ctx ref, cpu;
    assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 1, &err), FSVC_OK);
    cpu.par_min_syn = -1;
    cpu.dnnl_min_syn = -1;
    const int64_t m = 157, N = quick() ? 67 : 301;
    const int n = 97, K = 10;
    bnl_arch archs[BNL_ARCH_COUNT];
    int na = arch_list(archs);
    for (int di = 0; di < 3; di++) {
        data d;
        data_make(&d, DTS[di], m, N, n);
        size_t hs = DTS[di] == FSVC_F64 ? 8 : 4;
        void *H = xalloc((size_t)(N * m) * hs);
        double *S0 = xalloc(N * 8), *Sr = xalloc(N * 8), *S1 = xalloc(N * 8), *S2 = xalloc(N * 8);
        double *R = xalloc((size_t)(m * K) * 8), *Yr = xalloc((size_t)(N * K) * 8);
        double *Y = xalloc((size_t)(N * K) * 8), *Yh = xalloc((size_t)(N * K) * 8);
        for (int64_t i = 0; i < m * K; i++)
            R[i] = (double)(rnd() % 2001) / 1000.0 - 1.0;
        for (int oi = 0; oi < NOPS; oi++) {
            bnl_op op = {OPS[oi].dist, OPS[oi].act, DTS[di], radius_for(OPS[oi].dist, n, d.maxv), BNL_PREC_FULL};
            if (DTS[di] == FSVC_U8 && op.dist == BNL_DOT)
                continue;
            tol t = tol_for(&op, n, d.maxv);
            for (int64_t i = 0; i < N; i++)
                S0[i] = Sr[i] = 0.5 * (double)i;
            assert_int_equal(bnl_actsum(&ref, &op, Sr, d.W, m, d.X, N, n, &err), FSVC_OK);
            assert_int_equal(bnl_scores(&ref, &op, Yr, d.W, m, d.X, N, n, R, K, &err), FSVC_OK);
            for (int ai = 0; ai < na; ai++) {
                char what[128];
                snprintf(what, sizeof what, "actsum cpu/%s %s/%s/%s", bnl_arch_name(archs[ai]),
                         bnl_dist_name(op.dist), bnl_act_name(op.act), fsvc_dtype_name(op.dtype));
                assert_int_equal(bnl_ctx_set_arch(&cpu, archs[ai], &err), FSVC_OK);
                memcpy(S1, S0, N * 8);
                memcpy(S2, S0, N * 8);
                cpu.threads = 1;
                assert_int_equal(bnl_actsum(&cpu, &op, S1, d.W, m, d.X, N, n, &err), FSVC_OK);
                cpu.threads = 2;
                assert_int_equal(bnl_actsum(&cpu, &op, S2, d.W, m, d.X, N, n, &err), FSVC_OK);
                assert_memory_equal(S1, S2, N * 8);
                assert_int_equal(bnl_forward(&cpu, &op, H, m, d.W, m, d.X, N, n, &err), FSVC_OK);
                for (int64_t i = 0; i < N; i++) {
                    double s = S0[i];
                    for (int64_t j = 0; j < m; j++)
                        s += hval(H, op.dtype, i * m + j);
                    /* same bits where h is exact (u8, f64 L1); else the
                     * reduction's row blocks may differ from the forward
                     * tiles and BLAS rounds by block position */
                    if (t.exact ? s != S1[i] : fabs(s - S1[i]) > m * t.abs + 1e-9) {
                        print_error("%s: S[%lld] = %.17g, sequential sum of H %.17g\n", what,
                                    (long long)i, S1[i], s);
                        fail();
                    }
                    int exact = t.exact;
                    if (exact ? S1[i] != Sr[i] : fabs(S1[i] - Sr[i]) > m * t.abs + 1e-9) {
                        print_error("%s: S[%lld] = %.17g, ref %.17g\n", what, (long long)i,
                                    S1[i], Sr[i]);
                        fail();
                    }
                }
                /* scores: H R summed in j order, within float64 rounding
                 * (BLAS dgemm per tile) where h is exact, and bit for bit
                 * the fma loop where the tier has an hscore kernel; near
                 * the reference; the same bits for 1 and 2 threads */
                cpu.threads = 1;
                assert_int_equal(bnl_scores(&cpu, &op, Yh, d.W, m, d.X, N, n, R, K, &err), FSVC_OK);
                cpu.threads = 2;
                assert_int_equal(bnl_scores(&cpu, &op, Y, d.W, m, d.X, N, n, R, K, &err), FSVC_OK);
                assert_memory_equal(Y, Yh, (size_t)(N * K) * 8);
                if (t.exact && op.dtype != FSVC_F64 && bnl_kernels_get(archs[ai])->hscore)
                    for (int64_t i = 0; i < N; i++)
                        for (int k = 0; k < K; k++) {
                            double y = 0.0;
                            for (int64_t j = 0; j < m; j++)
                                y = fma(hval(H, op.dtype, i * m + j), R[j * K + k], y);
                            if (memcmp(&y, &Y[i * K + k], sizeof y))
                                fail_msg("%s: scores Y[%lld][%d] = %.17g, fma loop %.17g", what,
                                         (long long)i, k, Y[i * K + k], y);
                        }
                double *Ya = xalloc((size_t)(N * K) * 8);
                for (int64_t i = 0; i < N; i++)
                    for (int k = 0; k < K; k++) {
                        double y = 0.0, a = 0.0;
                        for (int64_t j = 0; j < m; j++) {
                            y += hval(H, op.dtype, i * m + j) * R[j * K + k];
                            a += fabs(hval(H, op.dtype, i * m + j) * R[j * K + k]);
                        }
                        Yh[i * K + k] = y;
                        Ya[i * K + k] = a;
                    }
                for (int64_t i = 0; i < N * K; i++) {
                    double tl = m * t.abs + 1e-9;
                    double te = t.exact ? 4.0 * m * 1.1102230246251565e-16 * Ya[i] + 1e-300
                                        : tl;
                    if (fabs(Y[i] - Yh[i]) > te || fabs(Y[i] - Yr[i]) > (t.exact ? te : tl)) {
                        print_error("%s: scores Y[%lld] = %.17g, H R %.17g, ref %.17g\n", what,
                                    (long long)i, Y[i], Yh[i], Yr[i]);
                        fail();
                    }
                }
                free(Ya);
            }
        }
        free(H); free(S0); free(Sr); free(S1); free(S2); free(R); free(Yr); free(Y); free(Yh);
        data_free(&d);
    }
    bnl_ctx_close(&ref);
    bnl_ctx_close(&cpu);
}

/* Bad calls are refused with a message, never a crash. */
static void test_errors(void **state)
{
    fsvc_error err;
    bnl_ctx ctx;
    assert_int_equal(bnl_ctx_open(&ctx, "gpu", 1, 1, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "unknown backend"));
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 1, &err), FSVC_OK);
    uint8_t w[4] = {0}, x[4] = {0};
    float h[4];
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_U8, 0.0, BNL_PREC_FULL};
    assert_int_equal(bnl_forward(&ctx, &op, h, 1, w, 1, x, 1, 4, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "radius"));
    op.radius = 1.0;
    assert_int_equal(bnl_forward(&ctx, &op, h, 0, w, 1, x, 1, 4, &err), FSVC_EUSAGE);
    op.dist = BNL_DOT;
    assert_int_equal(bnl_op_check(&op, &err), FSVC_EUSAGE);
    op.dist = BNL_L2;
    op.act = BNL_IDENT;
    assert_int_equal(bnl_forward(&ctx, &op, h, 1, w, 1, x, 1, 40000, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "33025"));
    assert_int_equal(bnl_forward(&ctx, &op, h, 1, w, 1, x, 1, 0, &err), FSVC_EUSAGE);
    /* m = 0 or N = 0 is a no-op */
    assert_int_equal(bnl_forward(&ctx, &op, h, 1, w, 0, x, 1, 4, &err), FSVC_OK);
    /* cuda, with the device probed on its own (bnl_cuda_describe): strict
     * opens the device or fails with FSVC_ERESOURCE and one line naming
     * cuda; non-strict opens the device or falls back to the CPU */
    char desc[4096];
    int have = bnl_cuda_describe(desc, sizeof desc);
    bnl_ctx c2;
    fsvc_error_clear(&err);
    int rc = bnl_ctx_open(&c2, "cuda", 1, 1, &err);
    if (have) {
        assert_int_equal(rc, FSVC_OK);
        assert_int_equal(c2.backend, BNL_CUDA);
        assert_non_null(c2.dev);
        bnl_ctx_close(&c2);
    } else {
        assert_int_equal(rc, FSVC_ERESOURCE);
        assert_int_equal(err.code, FSVC_ERESOURCE);
        assert_non_null(strstr(err.msg, "cuda"));
        assert_null(strchr(err.msg, '\n'));
    }
    rc = bnl_ctx_open(&c2, "cuda", 1, 0, &err);
    assert_int_equal(rc, FSVC_OK);
    assert_int_equal(c2.backend, have ? BNL_CUDA : BNL_CPU);
    assert_true(have ? c2.dev != NULL : c2.dev == NULL);
    bnl_ctx_close(&c2);
    bnl_ctx_close(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_tiny_and_primes),
        cmocka_unit_test(test_actsum_scores),
        cmocka_unit_test(test_tile_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
