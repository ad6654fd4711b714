/*
 * test_bf16_cache.c - the fast paths of a --precision bf16 job (issue 24):
 *
 *   convert: the tiers' vector f32 -> bf16 rows (vcvtne2ps2bf16) against
 *     round_hd.h's bnl_bf16_bits, exactly (ties, NaN, overflow to inf; a
 *     subnormal input may give the zero of its sign: the instruction's DAZ,
 *     which vdpbf16ps applies to its operands anyway), at widths around the
 *     32- and 16-wide steps, pads zero; bf16 -> f32 widening exact;
 *   norms: the AVX-512 squared norms against the scalar double loop: both
 *     round a double sum whose error is below n 2^-53 sum x^2, so the two
 *     floats are equal or neighbours (1 ulp);
 *   hold: layers with held weights (bnl_weights_hold: kept bf16 copy,
 *     norms, oneDNN packing) give the same bits as without, at shapes
 *     with edge tiles and calls of other sample counts; the cache fills
 *     once and is hit after;
 *   invalidation: a release drops the copies (a W changed after it, or a
 *     new W at the same address, gives the new W's bits); another pointer
 *     or another m never reads a held entry; pcg and predict leave no hold;
 *   pcg 16-bit H (bf16, f16): the solve with the cached H so rounded is
 *     the ridge solution of the rounded H (against a dense double solve of
 *     that system, within the pcg tolerance's bound), and within the
 *     perturbation bound of the f32-H solution (below);
 *   pcg 16-bit H, small lambda: the rounding's floor (h_err2, exact) in the
 *     preconditioner, the iterations about the f32-H ones; f16's floor
 *     below bf16's / 16 (64x in expectation).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/comm.h"
#include "fsvc/fsvc.h"
#include "fsvc/solver.h"
#include "layers/bnl.h"
#include "layers/cpu_wcache.h"
#include "layers/kernels.h"
#include "layers/round_hd.h"
#include "tests/util/fixtures.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void) { return fx_urand(&rng); }
static float fval(int kind)
{
    switch (kind) {
    case 0: return (float)(2 * urand() - 1);
    case 1: return (float)urand();
    default: return (float)((urand() < 0.5 ? -1 : 1) * pow(10.0, 12 * urand() - 6));
    }
}

static int is_subnormal(uint32_t u) { return (u & 0x7f800000u) == 0 && (u & 0x007fffffu); }

static void test_convert(void **state)
{
    (void)state;
    static const uint32_t special[] = {
        0x3f808000u, 0x3f818000u, 0xbf808000u, 0x3f808001u, 0x7f800001u, 0xffc00000u,
        0x7f800000u, 0xff800000u, 0x7f7f8000u, 0x7f7f7fffu, 0x00000001u, 0x807fffffu,
        0x00800000u, 0x80000000u, 0x00000000u, 0x3f7fffffu};
    static const int ns[] = {1, 2, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 784, 785};
    int tiers = 0, bad = 0;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
        const bnl_kernels *k = bnl_kernels_get((bnl_arch)a);
        if (!bnl_arch_supported((bnl_arch)a) || !k->bf16_rows || a != BNL_ARCH_AVX512BF16)
            continue; /* the tier that holds the code (onednn shares its table) */
        tiers++;
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (int pad = 0; pad < 2; pad++) {
                int n = ns[i], n2 = n + pad, rows = 3;
                float *A = malloc(sizeof *A * (size_t)(rows * n));
                uint16_t *o = malloc(sizeof *o * (size_t)(rows * n2));
                float *back = malloc(sizeof *back * (size_t)(rows * n2));
                assert_true(A && o && back);
                for (int q = 0; q < rows * n; q++) {
                    A[q] = fval(q % 3);
                    if (q % 5 == 2) {
                        uint32_t u = special[(q / 5) % (sizeof special / sizeof *special)];
                        memcpy(&A[q], &u, 4);
                    }
                }
                for (int q = 0; q < rows * n2; q++) o[q] = 0xAAAA;
                k->bf16_rows(o, A, rows, n, n2);
                for (int r = 0; r < rows; r++)
                    for (int c = 0; c < n2; c++) {
                        uint16_t got = o[r * n2 + c];
                        uint32_t u = 0;
                        if (c < n) memcpy(&u, &A[r * n + c], 4);
                        uint16_t want = c < n ? bnl_bf16_bits(A[r * n + c]) : 0;
                        int ok = got == want ||
                                 (c < n && is_subnormal(u) && got == (uint16_t)((u >> 16) & 0x8000u));
                        if (!ok && bad++ < 5)
                            fprintf(stderr, "MISMATCH bf16_rows n=%d n2=%d (%d,%d): in %08x got "
                                    "%04x want %04x\n", n, n2, r, c, u, got, want);
                    }
                if (k->bf16_widen) {
                    for (int q = 0; q < rows * n2; q++) back[q] = -1.0f;
                    size_t count = (size_t)(rows * n2 - (n2 > 1));
                    k->bf16_widen(back, o, count);
                    for (size_t q = 0; q < (size_t)(rows * n2); q++) {
                        uint32_t u;
                        memcpy(&u, &back[q], 4);
                        uint32_t want = q < count ? (uint32_t)o[q] << 16 : 0xbf800000u;
                        if (u != want && bad++ < 5)
                            fprintf(stderr, "MISMATCH bf16_widen count %zu at %zu: %08x want "
                                    "%08x\n", count, q, u, want);
                    }
                }
                free(A); free(o); free(back);
            }
    }
    if (!tiers) printf("  no tier with the vector bf16 conversion here: nothing to check\n");
    assert_int_equal(bad, 0);
}

static void test_norms(void **state)
{
    (void)state;
    static const int ns[] = {1, 7, 15, 16, 17, 31, 32, 33, 784, 785, 1031};
    int bad = 0, tiers = 0;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
        const bnl_kernels *k = bnl_kernels_get((bnl_arch)a);
        if (!bnl_arch_supported((bnl_arch)a) || !k->norms_f32 || a != BNL_ARCH_AVX512)
            continue; /* its code; the tiers above share it */
        tiers++;
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (int kind = 0; kind < 3; kind++) {
                int n = ns[i], rows = 5;
                float *A = malloc(sizeof *A * (size_t)(rows * n)), out[5];
                assert_true(A);
                for (int q = 0; q < rows * n; q++) A[q] = fval(kind);
                k->norms_f32(out, A, rows, n);
                for (int r = 0; r < rows; r++) {
                    double s = 0;
                    for (int c = 0; c < n; c++) s += (double)A[r * n + c] * A[r * n + c];
                    float ref = (float)s;
                    int ok = out[r] == ref || out[r] == nextafterf(ref, INFINITY) ||
                             out[r] == nextafterf(ref, -INFINITY);
                    if (!ok && bad++ < 5)
                        fprintf(stderr, "MISMATCH norms n=%d kind %d row %d: %.9g want %.9g\n",
                                n, kind, r, out[r], ref);
                }
                free(A);
            }
    }
    if (!tiers) printf("  no AVX-512 here: nothing to check\n");
    assert_int_equal(bad, 0);
}

/* The tiers that run f32 GEMM layers on their own paths here. */
static int gemm_tiers(bnl_arch *out)
{
    static const bnl_arch want[] = {BNL_ARCH_AVX512, BNL_ARCH_AVX512BF16, BNL_ARCH_ONEDNN,
                                    BNL_ARCH_AMX};
    int k = 0;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (bnl_arch_supported(want[i])) out[k++] = want[i];
    if (!k) printf("  no AVX-512 tier here: the held paths are the plain ones\n");
    return k;
}

static void open_tier(bnl_ctx *c, bnl_arch a)
{
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(c, "cpu", 2, 1, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_set_arch(c, a, &err), FSVC_OK);
    c->par_min_syn = -1;
    c->dnnl_min_syn = -1; /* oneDNN on small layers too */
    c->tile_m = 64;       /* several column tiles, an edge one */
    c->tile_N = 48;
}

static float *rnd(int64_t count, int kind)
{
    float *p = malloc(sizeof *p * (size_t)count);
    assert_true(p != NULL);
    for (int64_t q = 0; q < count; q++) p[q] = fval(kind);
    return p;
}

static const bnl_op hold_ops[] = {
    {BNL_L2, BNL_GAUSS, FSVC_F32, 3.0, BNL_PREC_BF16},
    {BNL_DOT, BNL_IDENT, FSVC_F32, 0, BNL_PREC_BF16},
    {BNL_L2, BNL_GAUSS, FSVC_F32, 3.0, BNL_PREC_FULL},
};

static void fwd(const bnl_ctx *c, const bnl_op *op, float *H, const float *W, int64_t m,
                const float *X, int64_t N, int n)
{
    fsvc_error err;
    if (bnl_forward(c, op, H, m, W, m, X, N, n, &err)) fail_msg("forward: %s", err.msg);
}

static void test_hold_same_bits(void **state)
{
    (void)state;
    static const int shapes[][3] = {{130, 77, 785}, {64, 100, 784}, {1, 1, 1}, {200, 49, 33}};
    bnl_arch t[5];
    int nt = gemm_tiers(t);
    for (int a = 0; a < nt; a++)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            for (size_t o = 0; o < sizeof hold_ops / sizeof *hold_ops; o++) {
                int64_t m = shapes[s][0], N = shapes[s][1];
                int n = shapes[s][2];
                float *W = rnd(m * n, 1), *X = rnd(N * n, 1);
                float *H0 = rnd(N * m, 0), *H1 = rnd(N * m, 0);
                bnl_ctx c;
                open_tier(&c, t[a]);
                const bnl_op *op = &hold_ops[o];
                int64_t N2 = N > 5 ? N - 5 : N; /* another call: other edge tiles */
                assert_int_equal(bnl_weights_hold(&c, W, m, n), 0);
                for (int rep = 0; rep < 2; rep++) {
                    int64_t Nc = rep ? N2 : N;
                    fwd(&c, op, H1, W, m, X, Nc, n);
                    bnl_weights_release(&c, W, m, n);
                    fwd(&c, op, H0, W, m, X, Nc, n); /* not held: per call */
                    assert_int_equal(bnl_weights_hold(&c, W, m, n), 0);
                    fwd(&c, op, H1, W, m, X, Nc, n); /* held, the copies made */
                    fwd(&c, op, H1, W, m, X, Nc, n); /* held, the copies kept */
                    if (memcmp(H0, H1, sizeof *H0 * (size_t)(Nc * m)))
                        fail_msg("%s %s/%s prec %d m=%lld N=%lld n=%d: held W gives other bits",
                                 bnl_arch_name(t[a]), bnl_dist_name(op->dist),
                                 bnl_act_name(op->act), (int)op->precision, (long long)m,
                                 (long long)Nc, n);
                }
                bnl_wcache_stats st;
                bnl_wcache_stats_get(c.wcache, &st);
                int kept = op->dist == BNL_L2 || t[a] == BNL_ARCH_ONEDNN || t[a] == BNL_ARCH_AMX ||
                           (op->precision == BNL_PREC_BF16 && t[a] != BNL_ARCH_AVX512);
                if (kept && !(st.fills >= 1 && st.hits >= 2))
                    fail_msg("%s m=%lld n=%d: cache fills %lld hits %lld", bnl_arch_name(t[a]),
                             (long long)m, n, (long long)st.fills, (long long)st.hits);
                /* the readout scores too */
                double R[3 * 200], *Y0 = malloc(sizeof *Y0 * (size_t)(3 * N)),
                                   *Y1 = malloc(sizeof *Y1 * (size_t)(3 * N));
                fsvc_error err;
                assert_true(Y0 && Y1);
                for (int64_t q = 0; q < 3 * m; q++) R[q] = urand() - 0.5;
                assert_int_equal(bnl_scores(&c, op, Y1, W, m, X, N, n, R, 3, &err), 0);
                bnl_weights_release(&c, W, m, n);
                assert_int_equal(bnl_scores(&c, op, Y0, W, m, X, N, n, R, 3, &err), 0);
                assert_memory_equal(Y0, Y1, sizeof *Y0 * (size_t)(3 * N));
                free(Y0); free(Y1);
                bnl_wcache_stats_get(c.wcache, &st);
                assert_int_equal(st.entries, 0);
                bnl_ctx_close(&c);
                free(W); free(X); free(H0); free(H1);
            }
}

/* H of W unheld (the truth) against what the held context gives. */
static void same_as_fresh(const bnl_ctx *c, const bnl_op *op, const float *W, int64_t m,
                          const float *X, int64_t N, int n, const char *what)
{
    bnl_ctx f;
    open_tier(&f, c->arch);
    float *H = rnd(N * m, 0), *E = rnd(N * m, 0);
    fwd(c, op, H, W, m, X, N, n);
    fwd(&f, op, E, W, m, X, N, n);
    if (memcmp(H, E, sizeof *H * (size_t)(N * m)))
        fail_msg("%s (%s, prec %d): stale copies of the weights", what, bnl_arch_name(c->arch),
                 (int)op->precision);
    bnl_ctx_close(&f);
    free(H); free(E);
}

static void test_invalidation(void **state)
{
    (void)state;
    bnl_arch t[5];
    int nt = gemm_tiers(t);
    const int64_t m = 96, N = 70;
    const int n = 131;
    for (int a = 0; a < nt; a++)
        for (size_t o = 0; o < sizeof hold_ops / sizeof *hold_ops; o++) {
            const bnl_op *op = &hold_ops[o];
            bnl_ctx c;
            open_tier(&c, t[a]);
            float *W = rnd(m * n, 1), *X = rnd(N * n, 1), *W2 = malloc(sizeof *W2 * (size_t)(m * n));
            assert_true(W2 != NULL);
            /* changed after a release (an LMS step, a k-means++ round) */
            assert_int_equal(bnl_weights_hold(&c, W, m, n), 0);
            same_as_fresh(&c, op, W, m, X, N, n, "held");
            bnl_weights_release(&c, W, m, n);
            for (int64_t q = 0; q < m * n; q++) W[q] = fval(1);
            same_as_fresh(&c, op, W, m, X, N, n, "changed after the release, not held");
            assert_int_equal(bnl_weights_hold(&c, W, m, n), 0);
            same_as_fresh(&c, op, W, m, X, N, n, "changed after the release, held again");
            /* another pointer, and the same pointer with fewer rows, while W is held */
            memcpy(W2, W, sizeof *W2 * (size_t)(m * n));
            for (int64_t q = 0; q < m * n; q += 7) W2[q] += 0.5f;
            same_as_fresh(&c, op, W2, m, X, N, n, "another W while one is held");
            same_as_fresh(&c, op, W, m - 1, X, N, n, "the held W's first m - 1 rows");
            bnl_weights_release(&c, W, m, n);
            /* a new model at the same address: freed, allocated again */
            free(W);
            W = rnd(m * n, 1);
            assert_int_equal(bnl_weights_hold(&c, W, m, n), 0);
            same_as_fresh(&c, op, W, m, X, N, n, "a new W (maybe the old address)");
            /* nested holds: the copies stay until the last release */
            assert_int_equal(bnl_weights_hold(&c, W, m, n), 0);
            bnl_weights_release(&c, W, m, n);
            bnl_wcache_stats st;
            bnl_wcache_stats_get(c.wcache, &st);
            assert_int_equal(st.entries, 1);
            bnl_weights_release(&c, W, m, n);
            bnl_wcache_stats_get(c.wcache, &st);
            assert_int_equal(st.entries, 0);
            bnl_ctx_close(&c);
            free(W); free(W2); free(X);
        }
}

/* ---- pcg with the cached H in bf16 ---- */

typedef struct pcg_prob {
    int64_t N, m;
    int n, K;
    float *X;
    int *cls;
} pcg_prob;

static double fro(const double *a, size_t count)
{
    double s = 0;
    for (size_t q = 0; q < count; q++) s += a[q] * a[q];
    return sqrt(s);
}

/* N samples of n features in K classes, the class in a shifted pattern
 * plus uniform noise; the first m samples are the centroids */
static pcg_prob prob_make(int64_t N, int64_t m, int n, int K)
{
    pcg_prob P = {N, m, n, K, NULL, NULL};
    P.X = malloc(sizeof *P.X * (size_t)(P.N * P.n));
    P.cls = malloc(sizeof *P.cls * (size_t)P.N);
    assert_true(P.X && P.cls);
    for (int64_t i = 0; i < P.N; i++) {
        P.cls[i] = (int)(i % P.K);
        for (int k = 0; k < P.n; k++)
            P.X[i * P.n + k] = (float)(0.3 * ((P.cls[i] * (k + 1)) % 4) + urand());
    }
    return P;
}

/* The ridge weights of H (N x m doubles) by a dense double solve, as pcg
 * sets the system up: lam = lambda sum H^2 / m, B = H^T T. W: m x K
 * row-major. Returns lam; *bn = ||B||_F. */
static double dense_ridge(double *W, const double *H, const pcg_prob *P, double lambda,
                          double *bn)
{
    int64_t N = P->N, m = P->m;
    int K = P->K;
    double *A = calloc((size_t)(m * m), sizeof *A), ss = 0;
    assert_true(A != NULL);
    for (int64_t q = 0; q < N * m; q++) ss += H[q] * H[q];
    double lam = lambda * ss / (double)m;
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++)
            for (int64_t l = 0; l <= j; l++) A[j * m + l] += H[i * m + j] * H[i * m + l];
    for (int64_t j = 0; j < m; j++) A[j * m + j] += lam;
    memset(W, 0, sizeof *W * (size_t)(m * K));
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++) W[j * K + P->cls[i]] += H[i * m + j];
    *bn = fro(W, (size_t)(m * K));
    assert_int_equal(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)m, K, A, (lapack_int)m, W, K),
                     0);
    free(A);
    return lam;
}

/* ||H^T T - (H^T H + lam I) W||_F / ||H^T T||_F in double (W m x K). */
static double rel_res(const double *H, const pcg_prob *P, double lam, const double *W)
{
    int64_t N = P->N, m = P->m;
    int K = P->K;
    double *r = calloc((size_t)(m * K), sizeof *r), *b = calloc((size_t)(m * K), sizeof *b);
    double *u = malloc(sizeof *u * (size_t)K);
    assert_true(r && b && u);
    for (int64_t i = 0; i < N; i++) {
        const double *h = H + i * m;
        for (int k = 0; k < K; k++) u[k] = 0;
        for (int64_t j = 0; j < m; j++)
            for (int k = 0; k < K; k++) u[k] += h[j] * W[j * K + k];
        for (int64_t j = 0; j < m; j++) {
            b[j * K + P->cls[i]] += h[j];
            for (int k = 0; k < K; k++) r[j * K + k] -= h[j] * u[k];
        }
    }
    for (int64_t q = 0; q < m * K; q++) r[q] += b[q] - lam * W[q];
    double res = fro(r, (size_t)(m * K)) / fro(b, (size_t)(m * K));
    free(r); free(b); free(u);
    return res;
}

/* The error bound of pcg's f32 products H^T (H V) at V = W (W in float:
 * 2^-24 each; f32 sums over m, then over N: gamma_m + gamma_N), per
 * component c |H|^T (|H| |W|), c = gamma_{N+m} + 2^-23 (H >= 0 here,
 * Gaussian), as ||.||_F. */
static double prod_err(const double *H, const pcg_prob *P, const double *W, double g)
{
    int64_t N = P->N, m = P->m;
    int K = P->K;
    double *y = calloc((size_t)(m * K), sizeof *y), *u = malloc(sizeof *u * (size_t)K);
    assert_true(y && u);
    for (int64_t i = 0; i < N; i++) {
        const double *h = H + i * m;
        for (int k = 0; k < K; k++) u[k] = 0;
        for (int64_t j = 0; j < m; j++)
            for (int k = 0; k < K; k++) u[k] += fabs(h[j]) * fabs(W[j * K + k]);
        for (int64_t j = 0; j < m; j++)
            for (int k = 0; k < K; k++) y[j * K + k] += fabs(h[j]) * u[k];
    }
    double e = (g + 0x1p-23) * fro(y, (size_t)(m * K));
    free(y); free(u);
    return e;
}

static double wdiff(const double *a, const double *b, size_t count)
{
    double s = 0;
    for (size_t q = 0; q < count; q++) s += (a[q] - b[q]) * (a[q] - b[q]);
    return sqrt(s);
}

/* H rounded to format fmt's values (RNE) */
static double h_round(float h, int fmt)
{
    return fmt == BNL_H_F16 ? bnl_f16_float(bnl_f16_bits(h)) : bnl_round_bf16(h);
}

static void pcg_h16(int fmt)
{
    const char *name = fmt == BNL_H_F16 ? "f16" : "bf16";
    pcg_prob P = prob_make(600, 90, 12, 4);
    const double lambda = 1e-3, tol = 1e-5;
    const bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 1.2, BNL_PREC_FULL};
    bnl_ctx c;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&c, "cpu", 2, 1, &err), FSVC_OK);
    int64_t m = P.m, N = P.N;
    int K = P.K;
    size_t mk = (size_t)(m * K);
    double *R[2], *Hd = malloc(sizeof *Hd * (size_t)(N * m)), *Hr = malloc(sizeof *Hr * (size_t)(N * m));
    float *H = malloc(sizeof *H * (size_t)(N * m));
    double *Wf = malloc(sizeof *Wf * mk), *Wb = malloc(sizeof *Wb * mk);
    assert_true(Hd && Hr && H && Wf && Wb);
    fsvc_train_info info[2];
    for (int hb = 0; hb < 2; hb++) {
        R[hb] = malloc(sizeof *R[hb] * mk);
        fsvc_ridge_problem pb = {&c, &op, P.X, m, P.X, P.cls, NULL, NULL, N, N, P.n, K,
                                 fsvc_comm_one(), NULL, NULL};
        fsvc_ridge_opt o = {lambda, FSVC_SOLVER_PCG, tol, FSVC_AUG_NONE, 0, 0, 0, 0,
                            hb ? fmt : BNL_H_F32};
        if (fsvc_readout_solve(R[hb], &pb, &o, &info[hb], &err))
            fail_msg("pcg (h_bf16 %d): %s", hb, err.msg);
        if (!info[hb].cg_converged)
            fail_msg("pcg (h_bf16 %d): residual %g after %d iterations", hb, info[hb].cg_res,
                     info[hb].cg_iter);
    }
    bnl_wcache_stats st;
    bnl_wcache_stats_get(c.wcache, &st);
    assert_int_equal(st.entries, 0); /* the products' hold of C released */
    /* H as the engine makes it (f32), and rounded to 16 bits (RNE) */
    assert_int_equal(bnl_forward(&c, &op, H, m, P.X, m, P.X, N, P.n, &err), 0);
    double hf = 0;
    for (int64_t q = 0; q < N * m; q++) {
        Hd[q] = H[q];
        Hr[q] = h_round(H[q], fmt);
        hf += Hd[q] * Hd[q];
    }
    hf = sqrt(hf);
    double bf, bb, lf = dense_ridge(Wf, Hd, &P, lambda, &bf), lb = dense_ridge(Wb, Hr, &P, lambda, &bb);
    /* pcg against its own system: ||W - W*|| <= ||A^-1|| ||B - A W|| <=
     * (tol ||B|| + the f32 products' error 2 gamma_{N+m} ||H||_F^2 ||W||) / lam */
    double g = (double)(N + m) * 0x1p-24, wn = fro(Wf, mk);
    double pf = (tol * bf + 2 * g * hf * hf * wn) / lf, pbd = (tol * bb + 2 * g * hf * hf * wn) / lb;
    double ef = wdiff(R[0], Wf, mk), eb = wdiff(R[1], Wb, mk), e_fb = wdiff(Wb, Wf, mk);
    printf("  pcg f32 H: %d iterations, |W - W*| %.3g (bound %.3g); %s H: %d iterations, "
           "|W - W~*| %.3g (bound %.3g); |W~* - W*| %.3g\n", info[0].cg_iter, ef, pf, name,
           info[1].cg_iter, eb, pbd, e_fb);
    if (!(ef <= pf)) fail_msg("pcg f32 H: off its system by %g > %g", ef, pf);
    if (!(eb <= pbd)) fail_msg("pcg %s H: off the %s system by %g > %g", name, name, eb, pbd);
    /* the two exact systems: H~ = H + E, bf16 |E| <= 2^-8 |H| (8
     * significant bits, + the subnormals DAZ flushes), f16 |E| <= 2^-11 |H|
     * + 2^-25 (its subnormals' half step), so e = ||E||_2 <= rel ||H||_F +
     * abs sqrt(N m); A~ - A = H^T E + E^T H + E^T E + (lam~ - lam) I;
     * W~* - W* = A~^-1 (E^T T - (A~ - A) W*), ||A~^-1|| <= 1 / lam~ */
    double rel = fmt == BNL_H_F16 ? 0x1p-11 : 0x1p-8, abs = fmt == BNL_H_F16 ? 0x1p-25 : 1e-30;
    double e = rel * hf + abs * sqrt((double)(N * m)), tn = sqrt((double)N);
    double bound = (e * tn + (2 * hf * e + e * e + fabs(lb - lf)) * wn) / lb;
    printf("  |W_pcg(%s H) - W_pcg(f32 H)| %.3g, bound %.3g\n", name, wdiff(R[0], R[1], mk),
           bound + pf + pbd);
    if (!(e_fb <= bound)) fail_msg("exact solutions %g apart > bound %g", e_fb, bound);
    if (!(wdiff(R[0], R[1], mk) <= bound + pf + pbd))
        fail_msg("pcg %s H vs f32 H: %g > %g", name, wdiff(R[0], R[1], mk), bound + pf + pbd);
    /* residuals in double: each run's own system within tol plus the f32
     * products' error (prod_err), the other system's beyond it */
    double thr = tol + prod_err(Hd, &P, R[0], g) / fmin(bf, bb);
    double rff = rel_res(Hd, &P, lf, R[0]), rbb = rel_res(Hr, &P, lb, R[1]);
    double rfb = rel_res(Hd, &P, lf, R[1]), rbf = rel_res(Hr, &P, lb, R[0]);
    printf("  relative residuals: f32 run %.3g in its system, %.3g in %s's; %s run %.3g in "
           "its system, %.3g in f32's (bound %.3g)\n", rff, rbf, name, name, rbb, rfb, thr);
    if (!(rff <= thr && rbb <= thr))
        fail_msg("residuals %g (f32 H), %g (%s H) in their systems > %g", rff, rbb, name, thr);
    /* the 16-bit run solved the rounded system, not the f32 one */
    if (!(wdiff(R[1], Wb, mk) < wdiff(R[1], Wf, mk)))
        fail_msg("pcg %s H: nearer the f32 system (%g) than the rounded one (%g)", name,
                 wdiff(R[1], Wf, mk), wdiff(R[1], Wb, mk));
    bnl_ctx_close(&c);
    free(R[0]); free(R[1]); free(Hd); free(Hr); free(H); free(Wf); free(Wb);
    free(P.X); free(P.cls);
}

static void test_pcg_h16(void **state)
{
    (void)state;
    pcg_h16(BNL_H_BF16);
    pcg_h16(BNL_H_F16);
}

/* pcg with a small lambda (MNIST's 1e-7): the rounding of a bf16 H adds
 * E^T E to H^T H, a floor above lam that the preconditioner must know
 * (pcg.c: s from lam + h_err2 / m, K_mm from f32 rows). The source's
 * h_err2 is the exact sum of the squared rounding errors (per-row float
 * sums: within 1e-4), 0 for an f32 H; with it the bf16-H solve takes
 * about the f32-H iterations: 10 against 11 here; K_mm from the rounded
 * rows gave 35, the shift from lam alone 40. */
static void test_pcg_h16_floor(void **state)
{
    (void)state;
    pcg_prob P = prob_make(3000, 400, 4, 4); /* few dimensions: K_mm near singular */
    const double lambda = 1e-7, tol = 1e-4;
    const bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 1.0, BNL_PREC_FULL};
    bnl_ctx c;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&c, "cpu", 2, 1, &err), FSVC_OK);
    int64_t m = P.m, N = P.N;
    size_t mk = (size_t)(m * P.K);
    double *R = malloc(sizeof *R * mk), e2[3];
    float *H = malloc(sizeof *H * (size_t)(N * m));
    assert_true(R && H);
    fsvc_ridge_problem pb = {&c, &op, P.X, m, P.X, P.cls, NULL, NULL, N, N, P.n, P.K,
                             fsvc_comm_one(), NULL, NULL};
    int it[3]; /* by bnl_hfmt: f32, bf16, f16 */
    for (int hb = BNL_H_F32; hb <= BNL_H_F16; hb++) {
        fsvc_hsrc src;
        fsvc_hsrc_opt ho = {FSVC_AUG_NONE, 0, 0, 1, 0, 0, hb};
        double sumsq;
        assert_int_equal(fsvc_hsrc_open(&src, &pb, &ho, &err), FSVC_OK);
        assert_int_equal(src.ops->rhs(src.self, R, &sumsq, &err), FSVC_OK);
        e2[hb] = src.h_err2;
        fsvc_hsrc_close(&src);
        fsvc_ridge_opt o = {lambda, FSVC_SOLVER_PCG, tol, FSVC_AUG_NONE, 0, 0, 0, 0, hb};
        fsvc_train_info info;
        if (fsvc_readout_solve(R, &pb, &o, &info, &err))
            fail_msg("pcg (h16 %d): %s", hb, err.msg);
        if (!info.cg_converged)
            fail_msg("pcg (h16 %d): residual %g after %d iterations", hb, info.cg_res,
                     info.cg_iter);
        it[hb] = info.cg_iter;
    }
    assert_int_equal(bnl_forward(&c, &op, H, m, P.X, m, P.X, N, P.n, &err), 0);
    double want[3] = {0, 0, 0}, ss = 0;
    for (int64_t q = 0; q < N * m; q++) {
        for (int f = BNL_H_BF16; f <= BNL_H_F16; f++) {
            double d = (double)H[q] - h_round(H[q], f);
            want[f] += d * d;
        }
        ss += (double)H[q] * H[q];
    }
    assert_true(e2[0] == 0);
    for (int f = BNL_H_BF16; f <= BNL_H_F16; f++) {
        printf("  lambda %g: pcg f32 H %d iterations, %s H %d; h_err2 %.6g (exact %.6g, %.3g x "
               "lam)\n", lambda, it[0], f == BNL_H_F16 ? "f16" : "bf16", it[f], e2[f], want[f],
               want[f] / (lambda * ss));
        if (!(fabs(e2[f] - want[f]) <= 1e-4 * want[f]))
            fail_msg("h_err2 %.9g, the rounding errors' squares sum to %.9g", e2[f], want[f]);
        if (!(it[f] <= it[0] + it[0] / 4 + 2))
            fail_msg("pcg h16 %d: %d iterations, f32 H %d", f, it[f], it[0]);
    }
    if (!(e2[BNL_H_F16] < e2[BNL_H_BF16] / 16))
        fail_msg("f16's floor %g not below bf16's / 16 (%g)", e2[BNL_H_F16], e2[BNL_H_BF16]);
    bnl_ctx_close(&c);
    free(R); free(H); free(P.X); free(P.cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_norms),
        cmocka_unit_test(test_hold_same_bits),
        cmocka_unit_test(test_invalidation),
        cmocka_unit_test(test_pcg_h16),
        cmocka_unit_test(test_pcg_h16_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
