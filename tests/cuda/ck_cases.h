/*
 * ck_cases.h - the cases of check_kernels (tests/cuda/check_kernels.cu)
 * and what makes each one able to fail (issue 25), in C that nvcc and the
 * host's C compiler both take, so that tests/test_cuda_cases.c checks on
 * the CPU what only a GPU run would otherwise reveal:
 *   - the data of a case (ck_fill, seeded per case and shape) and its
 *     radius (ck_radius), which grows with n so that H spans (0, 1):
 *     distances of random rows concentrate around n * E|a - b| (L1) or
 *     sqrt(n E(a - b)^2) (L2), and the radius puts H = 0.5 there;
 *   - the tolerance of one element (ck_tol), derived from its sums: f32
 *     data in multiples of 2^-2 (2^-7 for dot) keep every partial sum exact
 *     (ck_exact), so only the activation's ulps remain; otherwise any
 *     order of n float sums is within n u sum|terms| of the exact one,
 *     twice that between two orders, carried through the activation;
 *   - the guard (ck_guard): on the host's reference H, the case spans
 *     (0, 1) and a planted fault (one k element dropped: the last, zeroed
 *     in W and X) exceeds the tolerance somewhere in H and in S.
 */
#ifndef FSVC_TESTS_CK_CASES_H
#define FSVC_TESTS_CK_CASES_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layers/act.h"
#include "layers/bnl.h"

/* What a case's rows hold. */
typedef enum {
    CK_U8,       /* random bytes */
    CK_DYADIC,   /* k / 4, k in [0, 32): L1 / L2 / norms exact in float for n < 8738 */
    CK_ROUGH,    /* uniform [0, 1) with full mantissas: rounding exercised */
    CK_CENTERED  /* (k - 32) / 128, k in [0, 64): dots of O(1), exact in float for n < 16384 */
} ck_data;

typedef struct {
    bnl_dist d;
    bnl_act a;
    fsvc_dtype t;
    ck_data data;
    bnl_precision p;
    int max_n; /* the largest n at which the tolerance still sees a dropped element */
} ck_case;

/* check_one's ops and shapes (m, N, n). The u8 dot runs the identity: its
 * int32 dot is exact and tanh of it saturates beyond n ~ 20. */
static const ck_case ck_fwd_cases[] = {
    {BNL_L1, BNL_TRI, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_IDENT, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_GAUSS, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_DOT, BNL_IDENT, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_TRI, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_GAUSS, FSVC_F32, CK_ROUGH, BNL_PREC_FULL, 1025},
    {BNL_L2, BNL_GAUSS, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30},
    {BNL_DOT, BNL_TANH, FSVC_F32, CK_CENTERED, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_TRI, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30},
    /* issue 10: tensor cores (ref emulates the rounding) and f64 */
    {BNL_L2, BNL_GAUSS, FSVC_F32, CK_ROUGH, BNL_PREC_TF32, 1025},
    {BNL_L2, BNL_GAUSS, FSVC_F32, CK_ROUGH, BNL_PREC_BF16, 1025},
    {BNL_DOT, BNL_IDENT, FSVC_F32, CK_ROUGH, BNL_PREC_BF16, 1025},
    {BNL_L1, BNL_TRI, FSVC_F64, CK_ROUGH, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_GAUSS, FSVC_F64, CK_ROUGH, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_GAUSS, FSVC_F64, CK_ROUGH, BNL_PREC_FULL, 1 << 30},
    {BNL_DOT, BNL_TANH, FSVC_F64, CK_CENTERED, BNL_PREC_FULL, 1 << 30}};
#define CK_NFWD ((int)(sizeof ck_fwd_cases / sizeof ck_fwd_cases[0]))

static const int ck_shapes[][3] = {{1, 1, 1},       {7, 5, 13},      {128, 128, 128},
                                   {131, 257, 97},  {300, 1000, 784}, {1000, 300, 784},
                                   {2, 3, 4099},    {513, 129, 1025}};
#define CK_NSHAPES ((int)(sizeof ck_shapes / sizeof ck_shapes[0]))

/* The many-tile check (BNL <= 384): u8, f32, f64 L1 tri at 1000 x 1500 x 300. */
static const ck_case ck_tile_cases[] = {
    {BNL_L1, BNL_TRI, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_TRI, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_TRI, FSVC_F64, CK_ROUGH, BNL_PREC_FULL, 1 << 30}};

/* The device readout (check_readout) at shapes (m, N, n); then u8 L1
 * Gaussian streamed at 300 x 40000 x 784. f32 data dyadic: H then differs
 * from the CPU's by the activation's ulps only, which the solve amplifies
 * by cond(G + lambda I) (full-mantissa data moved R by 0.5 % at m 1000). */
static const ck_case ck_readout_cases[] = {
    {BNL_L1, BNL_GAUSS, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_TRI, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_GAUSS, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_GAUSS, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30}};
static const int ck_readout_shapes[][3] = {{1, 1, 3}, {133, 301, 50}, {1000, 5000, 784}};

/* The ridge check's lambda, CK_RIDGE_C trace(G) / m, and its tolerance on
 * R relative to max |R|. G of random rows is nearly rank one plus a small
 * spread (every h near the same value), so cond(G + lambda I) ~ m / C:
 * tests/test_cuda_cases.c checks that R moves by less than a quarter of
 * the tolerance when H (f32) or G (u8: the Dsyrk order) is perturbed as
 * the device's differ from the CPU's. */
#define CK_RIDGE_C 1.0
static inline double ck_tol_r(fsvc_dtype t) { return t == FSVC_U8 ? 1e-8 : 1e-3; }
/* The readout's relative tolerance on Y (times m), diag(G) and B (times
 * 1 + |value|): float64 sums of the same H bits (u8) or of H within
 * activation ulps (dyadic f32). */
static inline double ck_tol_readout(fsvc_dtype t) { return t == FSVC_U8 ? 1e-9 : 1e-4; }

/* The LMS readout (check_lms): Gaussian, shapes (m, N, n, K). */
static const ck_case ck_lms_cases[] = {
    {BNL_L1, BNL_GAUSS, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_GAUSS, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_GAUSS, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_GAUSS, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30}};
static const int ck_lms_shapes[][4] = {{1, 1, 3, 2}, {133, 301, 50, 10}, {300, 997, 784, 17},
                                       {2000, 10000, 784, 10}};

/* The novelty session: sums over 1 .. 1137 centroids, n 785, N 333. */
static const ck_case ck_nov_cases[] = {
    {BNL_L1, BNL_TRI, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_GAUSS, FSVC_U8, CK_U8, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_TRI, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_GAUSS, FSVC_F32, CK_DYADIC, BNL_PREC_FULL, 1 << 30},
    {BNL_L1, BNL_TRI, FSVC_F64, CK_ROUGH, BNL_PREC_FULL, 1 << 30},
    {BNL_L2, BNL_GAUSS, FSVC_F64, CK_ROUGH, BNL_PREC_FULL, 1 << 30}};
#define CK_NOV_N 785
#define CK_NOV_SAMPLES 333
#define CK_NOV_CENTROIDS 1137

/* ---- data ---- */

/* A seed per (table, case, shape): the host test sees check_kernels' data. */
static inline uint64_t ck_seed(int table, int c, int s)
{
    uint64_t z = 0x9e3779b97f4a7c15ull * (uint64_t)(1 + table * 1000003 + c * 1009 + s);
    z ^= z >> 31;
    return z ? z : 88172645463325252ull;
}

static inline uint64_t ck_next(uint64_t *rs)
{
    *rs ^= *rs << 13;
    *rs ^= *rs >> 7;
    *rs ^= *rs << 17;
    return *rs;
}

/* count elements of dtype t (u8, f32, f64) drawn as data says; malloc'ed. */
static inline void *ck_fill(int64_t count, fsvc_dtype t, ck_data data, uint64_t *rs)
{
    size_t es = t == FSVC_U8 ? 1 : t == FSVC_F64 ? 8 : 4;
    void *p = malloc((size_t)(count > 0 ? count : 1) * es);
    if (!p)
        return NULL;
    for (int64_t e = 0; e < count; e++) {
        uint64_t r = ck_next(rs);
        double v;
        if (t == FSVC_U8) {
            ((uint8_t *)p)[e] = (uint8_t)(r >> 40);
            continue;
        }
        if (data == CK_DYADIC)
            v = (double)((r >> 40) % 32) / 4.0;
        else if (data == CK_CENTERED)
            v = ((double)((r >> 40) % 64) - 32.0) / 128.0;
        else if (t == FSVC_F64)
            v = (double)(r >> 11) * 0x1p-53;
        else
            v = (double)(float)((double)(r >> 40) * 0x1p-24); /* 24 random bits */
        if (t == FSVC_F64)
            ((double *)p)[e] = v;
        else
            ((float *)p)[e] = (float)v;
    }
    return p;
}

/* E|a - b| and E(a - b)^2 of two independent elements of the data. */
static inline void ck_moments(ck_data data, double *mu1, double *mu2)
{
    switch (data) {
    case CK_U8: *mu1 = (256.0 * 256 - 1) / (3 * 256.0); *mu2 = (256.0 * 256 - 1) / 6; break;
    case CK_DYADIC: *mu1 = (32.0 * 32 - 1) / (3 * 32.0) / 4; *mu2 = (32.0 * 32 - 1) / 6 / 16; break;
    case CK_CENTERED: *mu1 = (64.0 * 64 - 1) / (3 * 64.0) / 128; *mu2 = (64.0 * 64 - 1) / 6 / 16384; break;
    default: *mu1 = 1.0 / 3; *mu2 = 1.0 / 6; break;
    }
}

/* The radius that puts H = 0.5 at the typical distance (tri: 1 - d / (2.5066 r);
 * Gaussian exp(-d^2 / (2 r^2))); 1 for tanh and the identity (no radius). */
static inline double ck_radius(bnl_dist d, bnl_act a, ck_data data, int n)
{
    double mu1, mu2;
    ck_moments(data, &mu1, &mu2);
    double dt = d == BNL_L1 ? n * mu1 : sqrt(n * mu2);
    if (a == BNL_TRI)
        return 2.0 * dt / BNL_TRI_SCALE;
    if (a == BNL_GAUSS)
        return dt / sqrt(2.0 * log(2.0));
    return 1.0;
}

static inline bnl_op ck_op(const ck_case *c, int n)
{
    bnl_op op;
    memset(&op, 0, sizeof op);
    op.dist = c->d;
    op.act = c->a;
    op.dtype = c->t;
    op.radius = ck_radius(c->d, c->a, c->data, n);
    op.precision = c->p;
    return op;
}

/* 1 when every partial sum of the case is exact in float: dyadic L1 (terms
 * multiples of 2^-2 below 8), L2 and norms (2^-4, below 64; |x|^2 + |w|^2
 * too), centered dots (2^-14, below 2^-4). */
static inline int ck_exact(const ck_case *c, int n)
{
    if (c->t != FSVC_F32 || c->p != BNL_PREC_FULL)
        return 0;
    if (c->data == CK_DYADIC)
        return c->d == BNL_L1 ? (double)n * 8 * 4 < 0x1p24 : (double)n * 2 * 64 * 16 < 0x1p24;
    if (c->data == CK_CENTERED)
        return c->d == BNL_DOT && (double)n * 0.0625 * 16384 < 0x1p24;
    return 0;
}

static inline double ck_elem(const void *p, int64_t e, fsvc_dtype t)
{
    return t == FSVC_U8 ? (double)((const uint8_t *)p)[e]
         : t == FSVC_F64 ? ((const double *)p)[e] : (double)((const float *)p)[e];
}

/* The tolerance of H[i][j] against the reference: w, x rows of n. u8: 0
 * (bit-exact). Else the bound delta on the pre-activation value v (the L1
 * distance, the squared L2 distance through |x|^2 + |w|^2 - 2 x.w on the
 * GEMM paths, the dot) carried through the activation at v +- delta, plus
 * the activation's own ulps (the device's contraction of its polynomial). */
static inline double ck_tol(const ck_case *c, const bnl_op *op, const void *w, const void *x,
                            int n)
{
    if (c->t == FSVC_U8)
        return 0.0;
    double v = 0, mag = 0;
    for (int k = 0; k < n; k++) {
        double a = ck_elem(x, k, c->t), b = ck_elem(w, k, c->t);
        if (c->d == BNL_L1) { v += fabs(a - b); mag += fabs(a - b); }
        else if (c->d == BNL_L2) { v += (a - b) * (a - b); mag += a * a + b * b + 2 * fabs(a * b); }
        else { v += a * b; mag += fabs(a * b); }
    }
    double u = c->t == FSVC_F64 ? 0x1p-53 : 0x1p-24;
    double delta = ck_exact(c, n) ? 0.0 : 2.0 * (n + 2) * u * mag;
    bnl_actp ap = bnl_actp_make(op);
    double h = bnl_act_d(&ap, v), hp = bnl_act_d(&ap, v + delta), hm = bnl_act_d(&ap, v - delta);
    double eps = (c->t == FSVC_F64 ? 1e-13 : 1e-6) * fmax(1.0, fabs(h));
    return fmax(fabs(hp - h), fabs(hm - h)) + eps;
}

/* An activation sum's tolerance: its elements' (sum_tol) plus the double
 * sum's rounding; u8 triangular sums are bit-exact (0). */
static inline double ck_tol_s(const ck_case *c, double sum_tol, int64_t m, double s)
{
    if (c->t == FSVC_U8 && c->a == BNL_TRI)
        return 0.0;
    if (c->t == FSVC_U8)
        return 1e-6 * (double)m + 1e-12 * fabs(s); /* the float activation's ulps */
    return sum_tol + 1e-12 * fabs(s);
}

static inline int ck_ok(const ck_case *c, double got, double ref, double tol)
{
    if (c->t == FSVC_U8 && tol == 0.0) { /* bit-exact, as the device's float H */
        float g = (float)got, r = (float)ref;
        return memcmp(&g, &r, sizeof g) == 0;
    }
    return fabs(got - ref) <= tol;
}

/* ---- the guard ---- */

typedef struct {
    int64_t total, inside; /* elements of H; those in (0.001, 0.999) (|h| for tanh; > 0 ident) */
    int64_t fault_h;       /* elements where the planted fault fails ck_ok */
    int64_t fault_s;       /* samples where it fails the activation sum's check */
} ck_guard_res;

/* On ref: H of W (m rows) against the first Ng rows of X, and again with
 * the last element of every row zeroed in both (one k element dropped).
 * Returns an FSVC_* code (the ref engine's), the counts in r. */
static inline int ck_guard(bnl_ctx *ref, const ck_case *c, const bnl_op *op, const void *W,
                           int64_t m, const void *X, int64_t Ng, int n, ck_guard_res *r,
                           fsvc_error *err)
{
    size_t es = c->t == FSVC_U8 ? 1 : c->t == FSVC_F64 ? 8 : 4, hs = c->t == FSVC_F64 ? 8 : 4;
    void *W2 = malloc((size_t)(m * n) * es), *X2 = malloc((size_t)(Ng * n) * es);
    void *H = malloc((size_t)(m * Ng) * hs), *H2 = malloc((size_t)(m * Ng) * hs);
    int rc = FSVC_OK;
    memset(r, 0, sizeof *r);
    if (!W2 || !X2 || !H || !H2)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "ck_guard: out of memory");
    if (!rc) {
        memcpy(W2, W, (size_t)(m * n) * es);
        memcpy(X2, X, (size_t)(Ng * n) * es);
        for (int64_t j = 0; j < m; j++) memset((char *)W2 + ((size_t)(j * n) + n - 1) * es, 0, es);
        for (int64_t i = 0; i < Ng; i++) memset((char *)X2 + ((size_t)(i * n) + n - 1) * es, 0, es);
        rc = bnl_forward(ref, op, H, m, W, m, X, Ng, n, err);
    }
    if (!rc)
        rc = bnl_forward(ref, op, H2, m, W2, m, X2, Ng, n, err);
    for (int64_t i = 0; !rc && i < Ng; i++) {
        double s = 0, s2 = 0, st = 0;
        for (int64_t j = 0; j < m; j++) {
            double h = ck_elem(H, i * m + j, c->t == FSVC_F64 ? FSVC_F64 : FSVC_F32);
            double h2 = ck_elem(H2, i * m + j, c->t == FSVC_F64 ? FSVC_F64 : FSVC_F32);
            double tol = ck_tol(c, op, (const char *)W + (size_t)(j * n) * es,
                                (const char *)X + (size_t)(i * n) * es, n);
            double ah = fabs(h);
            r->total++;
            r->inside += c->a == BNL_IDENT ? ah > 0 : ah > 0.001 && ah < 0.999;
            r->fault_h += !ck_ok(c, h2, h, tol);
            s += h; s2 += h2; st += tol;
        }
        double ts = ck_tol_s(c, st, m, s);
        r->fault_s += ts == 0.0 ? s2 != s : !(fabs(s2 - s) <= ts);
    }
    free(W2); free(X2); free(H); free(H2);
    return rc;
}

/* H spans (0, 1): a tenth of it inside, where there are 16 elements or
 * more (one element of a 1 x 1 x 1 edge check may fall anywhere). */
static inline int ck_spans(const ck_guard_res *r)
{
    return r->total > 0 && (r->total < 16 || r->inside * 10 >= r->total);
}

/* The verdict: H spans (0, 1) and the fault is seen in H and, when the
 * case checks sums, in S. */
static inline int ck_guard_ok(const ck_guard_res *r, int sums)
{
    return ck_spans(r) && r->fault_h > 0 && (!sums || r->fault_s > 0);
}

#endif /* FSVC_TESTS_CK_CASES_H */
