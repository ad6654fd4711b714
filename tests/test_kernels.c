/*
 * test_kernels.c - every distance micro-kernel (layers/kernels.h) on every
 * arch this CPU supports, against plain reference loops written here, at
 * many shapes: 1x1x1, primes, just under / over the register tiles, the k
 * blocks and the row groups, ldd > m (padding must stay untouched), m or
 * N = 1, and the u8 worst cases at the largest n.
 *
 *   u8: bit-exact int32.  f64: bit-exact with d += fabs(x_k - w_k), k = 0..n-1.
 *   f32: |D - exact| <= BNL_L1_F32_RTOL * sum_k(|x_k| + |w_k|) + BNL_L1_F32_ATOL
 *        (exact = float64 sum); scalar f32 bit-exact with the float loop;
 *        all archs exact on integer-valued floats.
 * Results never depend on how (m, N) is cut into calls (bitwise). Where
 * the CPU has AVX-512 VNNI but not AVX-VNNI, the avxvnni kernels run too,
 * on the EVEX form of the same instruction (tests/util/vnni256.h).
 * FSVC_TEST_QUICK=1 runs a subset (for the sanitizer build).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "layers/kernels.h"
#include "layers/bnl.h"
#include "tests/util/archs.h"
#include "tests/util/vnni256.h"
#include "layers/kern_impl.h"
#include "layers/kern_pack4.h"

static int quick;

/* ---- data ---------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double urand(void) { return (double)(rnd() >> 11) * 0x1.0p-53; }

/* kinds of float data: 0 uniform [-1,1), 1 [0,1), 2 integers 0..255,
 * 3 wide magnitudes (signed, 1e-3 .. 1e3) */
static double fval(int kind)
{
    switch (kind) {
    case 0: return 2.0 * urand() - 1.0;
    case 1: return urand();
    case 2: return (double)(rnd() % 256);
    default: return (urand() < 0.5 ? -1.0 : 1.0) * pow(10.0, 6.0 * urand() - 3.0);
    }
}

/* ---- the kernel under test, with padding sentinels --------------------------- */

#define PAD 3 /* ldd = m + PAD in the padded runs */
static const int32_t SENT_I = 0x5A5A5A5A;

static const char *arch_names[] = {"ref", "scalar", "avx2", "avx512", "avx512vnni",
                                   "avx512bf16", "avxvnni", "onednn", "amx"};

typedef struct caseinfo {
    const char *arch, *kern;
    int64_t m, N;
    int n;
    int64_t ldd;
} caseinfo;

static int report(const caseinfo *c, int *shown, int64_t i, int64_t j, const char *fmt, ...)
{
    if (*shown < 5) {
        va_list ap;
        fprintf(stderr, "MISMATCH %s %s m=%lld N=%lld n=%d ldd=%lld at (i=%lld, j=%lld): ",
                c->arch, c->kern, (long long)c->m, (long long)c->N, c->n, (long long)c->ldd,
                (long long)i, (long long)j);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return 1;
}

/* D has (N-1)*ldd + m elements exactly (ASan sees any write past it). */
static int check_u8(const bnl_kernels *k, const char *arch, int l2, const uint8_t *W, int64_t m,
                    const uint8_t *X, int64_t N, int n, int64_t ldd)
{
    /* l2: 0 l1_u8, 1 l2sq_u8, 2 dot_u8 (tables that have it) */
    caseinfo c = {arch, l2 == 2 ? "dot_u8" : l2 ? "l2sq_u8" : "l1_u8", m, N, n, ldd};
    size_t len = (size_t)((N - 1) * ldd + m);
    int32_t *D = malloc(len * sizeof *D);
    assert_non_null(D);
    for (size_t t = 0; t < len; t++) D[t] = SENT_I;
    (l2 == 2 ? k->dot_u8 : l2 ? k->l2sq_u8 : k->l1_u8)(D, ldd, W, m, X, N, n);
    int bad = 0;
    for (int64_t i = 0; i < N; i++) {
        for (int64_t j = 0; j < ldd && i * ldd + j < (int64_t)len; j++) {
            int32_t got = D[i * ldd + j];
            if (j >= m) {
                if (got != SENT_I) bad += report(&c, &bad, i, j, "padding overwritten");
                continue;
            }
            uint64_t s = 0;
            for (int t = 0; t < n; t++) {
                int d = (int)X[i * n + t] - (int)W[j * n + t];
                s += l2 == 2 ? (uint64_t)X[i * n + t] * W[j * n + t]
                     : l2 ? (uint64_t)(d * d) : (uint64_t)abs(d);
            }
            if ((int64_t)got != (int64_t)s)
                bad += report(&c, &bad, i, j, "got %d want %llu", got, (unsigned long long)s);
        }
    }
    free(D);
    return bad;
}

static int check_f64(const bnl_kernels *k, const char *arch, const double *W, int64_t m,
                     const double *X, int64_t N, int n, int64_t ldd)
{
    caseinfo c = {arch, "l1_f64", m, N, n, ldd};
    size_t len = (size_t)((N - 1) * ldd + m);
    double *D = malloc(len * sizeof *D);
    assert_non_null(D);
    for (size_t t = 0; t < len; t++) D[t] = -7.25;
    k->l1_f64(D, ldd, W, m, X, N, n);
    int bad = 0;
    for (int64_t i = 0; i < N; i++) {
        for (int64_t j = 0; j < ldd && i * ldd + j < (int64_t)len; j++) {
            double got = D[i * ldd + j];
            if (j >= m) {
                if (got != -7.25) bad += report(&c, &bad, i, j, "padding overwritten");
                continue;
            }
            double d = 0.0; /* the reference order */
            for (int t = 0; t < n; t++) d += fabs(X[i * n + t] - W[j * n + t]);
            if (memcmp(&got, &d, sizeof d) != 0)
                bad += report(&c, &bad, i, j, "got %.17g want %.17g (not bit-exact)", got, d);
        }
    }
    free(D);
    return bad;
}

/* exact: 1 requires bit equality with the sequential float loop (scalar arch,
 * or integer-valued data for every arch) */
static int check_f32(const bnl_kernels *k, const char *arch, const float *W, int64_t m,
                     const float *X, int64_t N, int n, int64_t ldd, int exact)
{
    caseinfo c = {arch, "l1_f32", m, N, n, ldd};
    size_t len = (size_t)((N - 1) * ldd + m);
    float *D = malloc(len * sizeof *D);
    assert_non_null(D);
    for (size_t t = 0; t < len; t++) D[t] = -7.25f;
    k->l1_f32(D, ldd, W, m, X, N, n);
    int bad = 0;
    for (int64_t i = 0; i < N; i++) {
        for (int64_t j = 0; j < ldd && i * ldd + j < (int64_t)len; j++) {
            float got = D[i * ldd + j];
            if (j >= m) {
                if (got != -7.25f) bad += report(&c, &bad, i, j, "padding overwritten");
                continue;
            }
            double e = 0.0, mag = 0.0;
            float fs = 0.0f;
            for (int t = 0; t < n; t++) {
                float x = X[i * n + t], w = W[j * n + t];
                e += fabs((double)x - (double)w);
                mag += fabs((double)x) + fabs((double)w);
                fs += fabsf(x - w);
            }
            if (exact) {
                if (memcmp(&got, &fs, sizeof fs) != 0)
                    bad += report(&c, &bad, i, j, "got %.9g want %.9g (exact)", got, fs);
            } else {
                double tol = BNL_L1_F32_RTOL * mag + BNL_L1_F32_ATOL;
                if (!(fabs((double)got - e) <= tol))
                    bad += report(&c, &bad, i, j, "got %.9g want %.9g (tol %.3g)", got, e, tol);
            }
        }
    }
    free(D);
    return bad;
}

/* ---- the kernel sets under test ------------------------------------------- */

typedef struct kset {
    const bnl_kernels *k;
    const char *name;
    int gemm_only; /* only its u8 L2 and dot are its own (the others: avx2's, run already) */
} kset;

static bnl_kernels vnni256; /* avx2's table with the avxvnni u8 GEMMs on EVEX */

/* Every set this CPU runs, scalar first; plus the avxvnni GEMMs on AVX-512
 * VNNI where the CPU lacks AVX-VNNI (else the tier itself runs them). */
static int ksets(kset out[BNL_ARCH_COUNT + 1], int say)
{
    int n = 0;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
        if (bnl_arch_supported((bnl_arch)a))
            out[n++] = (kset){bnl_kernels_get((bnl_arch)a), arch_names[a], 0};
        else if (say)
            printf("  arch %s not supported here, skipped\n", arch_names[a]);
    }
    if (!bnl_arch_supported(BNL_ARCH_AVXVNNI) && bnl_arch_supported(BNL_ARCH_AVX512VNNI)) {
        vnni256 = *bnl_kernels_get(BNL_ARCH_AVX2);
        vnni256.name = "avxvnni-on-evex";
        vnni256.l2sq_u8 = l2sq_u8_vnni256_4x24;
        vnni256.dot_u8 = dot_u8_vnni256_4x24;
        out[n++] = (kset){&vnni256, vnni256.name, 1};
        if (say) printf("  arch avxvnni: its u8 GEMMs on AVX-512 VNNI's EVEX vpdpbusd\n");
    }
    return n;
}

/* All four kernels of one arch on one shape, dense (ldd = m) and padded. */
static int run_shape(kset ks, int64_t m, int64_t N, int n, int fkind)
{
    const bnl_kernels *k = ks.k;
    const char *an = ks.name;
    size_t wn = (size_t)(m * n), xn = (size_t)(N * n);
    uint8_t *Wu = malloc(wn), *Xu = malloc(xn);
    float *Wf = malloc(wn * sizeof(float)), *Xf = malloc(xn * sizeof(float));
    double *Wd = malloc(wn * sizeof(double)), *Xd = malloc(xn * sizeof(double));
    assert_true(Wu && Xu && Wf && Xf && Wd && Xd);
    for (size_t t = 0; t < wn; t++) {
        Wu[t] = (uint8_t)rnd();
        Wd[t] = fval(fkind);
        Wf[t] = (float)fval(fkind);
    }
    for (size_t t = 0; t < xn; t++) {
        Xu[t] = (uint8_t)rnd();
        Xd[t] = fval(fkind);
        Xf[t] = (float)fval(fkind);
    }
    int bad = 0;
    int f32_exact = !strcmp(an, "scalar") || (fkind == 2 && n <= 32768); /* sums < 2^24 */
    for (int padded = 0; padded < 2; padded++) {
        int64_t ldd = m + (padded ? PAD : 0);
        if (n <= BNL_L2SQ_U8_MAX_N) bad += check_u8(k, an, 1, Wu, m, Xu, N, n, ldd);
        if (n <= BNL_L2SQ_U8_MAX_N && k->dot_u8) bad += check_u8(k, an, 2, Wu, m, Xu, N, n, ldd);
        if (ks.gemm_only) continue;
        bad += check_u8(k, an, 0, Wu, m, Xu, N, n, ldd);
        bad += check_f64(k, an, Wd, m, Xd, N, n, ldd);
        bad += check_f32(k, an, Wf, m, Xf, N, n, ldd, f32_exact);
    }
    free(Wu); free(Xu); free(Wf); free(Xf); free(Wd); free(Xd);
    return bad;
}

/* ---- tests --------------------------------------------------------------- */

static void test_dispatch(void **state)
{
    (void)state;
    const char *want[] = {"scalar", "scalar", "avx2", "avx512", "avx512vnni", "avx512bf16",
                          "avxvnni", "avx512bf16", "amx"}; /* onednn: avx512bf16's kernels */
    for (int a = BNL_ARCH_REF; a < BNL_ARCH_COUNT; a++) {
        const bnl_kernels *k = bnl_kernels_get((bnl_arch)a);
        assert_non_null(k);
        assert_true(k->l1_f32 && k->l1_f64 && k->l1_u8 && k->l2sq_u8);
        if (bnl_arch_supported((bnl_arch)a)) assert_string_equal(k->name, want[a]);
    }
    assert_true(bnl_arch_supported(BNL_ARCH_SCALAR));
    assert_true(bnl_arch_supported(BNL_ARCH_REF));
    /* the tier per op: avx512vnni shares avx512's L1, has its own u8 L2 */
    if (bnl_arch_supported(BNL_ARCH_AVX512VNNI)) {
        bnl_op l1 = {BNL_L1, BNL_IDENT, FSVC_U8, 0, BNL_PREC_FULL}, l2 = l1, f2 = l1;
        l2.dist = BNL_L2;
        f2.dist = BNL_L2;
        f2.dtype = FSVC_F32;
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AVX512VNNI, &l1), "avx512");
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AVX512VNNI, &l2), "avx512vnni");
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AVX512, &l2), "avx512");
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_REF, &l2), "ref");
        assert_null(bnl_kernels_op_tier(BNL_ARCH_AVX512VNNI, &f2)); /* GEMM */
        f2.precision = BNL_PREC_BF16; /* emulated on sgemm below avx512bf16 */
        assert_null(bnl_kernels_op_tier(BNL_ARCH_AVX512VNNI, &f2));
        if (bnl_arch_supported(BNL_ARCH_AVX512BF16)) {
            assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AVX512BF16, &f2), "avx512bf16");
            assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AVX512BF16, &l2), "avx512vnni");
        }
    }
    /* the benchmarks' kernel-only entry (bnl_kernel_dist): u8 dot runs (it
     * once refused dot, so bench timed nothing), f32 dot has no kernel */
    {
        bnl_op d8 = {BNL_DOT, BNL_IDENT, FSVC_U8, 0, BNL_PREC_FULL}, df = d8;
        df.dtype = FSVC_F32;
        uint8_t w[2 * 5] = {1, 2, 3, 4, 5, 255, 0, 7, 9, 200}, x[5] = {3, 1, 4, 1, 5};
        int32_t D[2] = {-1, -1};
        float Df[2];
        for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
            if (!bnl_arch_supported((bnl_arch)a)) continue;
            const bnl_kernels *k = bnl_kernels_get((bnl_arch)a);
            assert_int_equal(bnl_kernel_dist((bnl_arch)a, &d8, D, 2, w, 2, x, 1, 5, NULL), 0);
            if (k->dot_u8) {
                assert_int_equal(D[0], 3 + 2 + 12 + 4 + 25);
                assert_int_equal(D[1], 765 + 0 + 28 + 9 + 1000);
            }
            assert_int_not_equal(bnl_kernel_dist((bnl_arch)a, &df, Df, 2, Df, 1, Df, 1, 1, NULL), 0);
        }
    }
    /* avxvnni: avx2's L1, its own u8 L2 and dot; ranked between avx2 and avx512 */
    assert_true(bnl_arch_rank(BNL_ARCH_AVX2) < bnl_arch_rank(BNL_ARCH_AVXVNNI) &&
                bnl_arch_rank(BNL_ARCH_AVXVNNI) < bnl_arch_rank(BNL_ARCH_AVX512));
    if (bnl_arch_supported(BNL_ARCH_AVXVNNI)) {
        bnl_op l1 = {BNL_L1, BNL_IDENT, FSVC_U8, 0, BNL_PREC_FULL}, d8 = l1;
        d8.dist = BNL_DOT;
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AVXVNNI, &l1), "avx2");
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AVXVNNI, &d8), "avxvnni");
    }
    /* every tier cpuid (asked apart) says this CPU has is run: an AMX CPU
     * whose amx kernels failed their start-up self-check fails here */
    bnl_arch have[BNL_ARCH_COUNT];
    if (fx_cpu_archs(have) < 1)
        fail_msg("the engine refuses a tier this CPU has (amx: %s)",
                 bnl_arch_note(BNL_ARCH_AMX) ? bnl_arch_note(BNL_ARCH_AMX) : "used or absent");
    /* amx: avx512's L1, its own u8 L2 and dot; ranked above onednn */
    assert_true(bnl_arch_rank(BNL_ARCH_ONEDNN) < bnl_arch_rank(BNL_ARCH_AMX));
    if (bnl_arch_supported(BNL_ARCH_AMX)) {
        bnl_op l1 = {BNL_L1, BNL_IDENT, FSVC_U8, 0, BNL_PREC_FULL}, l2 = l1, d8 = l1;
        l2.dist = BNL_L2;
        d8.dist = BNL_DOT;
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AMX, &l1), "avx512");
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AMX, &l2), "amx");
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AMX, &d8), "amx");
        bnl_op b16 = {BNL_L2, BNL_GAUSS, FSVC_F32, 1.0, BNL_PREC_BF16};
        assert_string_equal(bnl_kernels_op_tier(BNL_ARCH_AMX, &b16), "amx");
    } else {
        assert_ptr_equal(bnl_kernels_get(BNL_ARCH_AMX), bnl_kernels_get(BNL_ARCH_AVX512BF16));
    }
    /* an arch the CPU lacks falls back below it */
    if (!bnl_arch_supported(BNL_ARCH_AVX512))
        assert_ptr_equal(bnl_kernels_get(BNL_ARCH_AVX512), bnl_kernels_get(BNL_ARCH_AVX2));
}

/* The size grid: primes and sizes around the register tiles (4, 6, 8, 16,
 * 24, 32) for m and N; around vector widths, 64-byte chunks, k blocks
 * (128, 256, 512) for n. */
static const int grid_mN[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 24, 25, 31, 32, 33, 65};
static const int grid_n[] = {1, 2, 3, 5, 7, 13, 17, 31, 33, 63, 64, 65, 100, 127, 129,
                             255, 257, 513, 784, 785};
#define LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_grid(void **state)
{
    (void)state;
    int bad = 0, shapes = 0;
    kset ks[BNL_ARCH_COUNT + 1];
    int nk = ksets(ks, 1);
    for (int a = 0; a < nk; a++) {
        for (int p = 0; p < LEN(grid_mN); p++)
            for (int q = 0; q < LEN(grid_mN); q++)
                for (int r = 0; r < LEN(grid_n); r++) {
                    int64_t m = grid_mN[p], N = grid_mN[q];
                    int n = grid_n[r];
                    /* keep the full grid where cheap, a diagonal sample elsewhere */
                    double cost = (double)m * (double)N * n;
                    int keep = cost <= (quick ? 4e3 : 3e4) || (p + 3 * q + 7 * r) % (quick ? 37 : 7) == 0;
                    if (!keep) continue;
                    bad += run_shape(ks[a], m, N, n, (p + q + r) % 4);
                    shapes++;
                }
    }
    printf("  grid: %d shapes x 4 kernels x {ldd=m, ldd=m+%d}\n", shapes, PAD);
    assert_int_equal(bad, 0);
}

/* Shapes across the row groups (512 samples / neurons in the float
 * kernels, up to 256 neurons in u8) and the k blocks, and long rows. */
static void test_edges(void **state)
{
    (void)state;
    static const int shapes[][3] = {
        {513, 9, 3},   {9, 513, 3},   {520, 17, 5},  {33, 1030, 2},  {257, 5, 96},
        {1, 1, 1},     {1, 1, 65536}, {1, 3, 4099},  {5, 1, 4099},   {3, 2, 1025},
        {29, 7, 784},  {57, 6, 785},  {30, 9, 770},  {260, 3, 64},   {4, 4, 65536},
        /* the avx512vnni GEMM: 8 x 48 register tiles, k blocks of 768 bytes
         * (balanced), quads with a 1-3 byte tail, sample groups of 1024 */
        {47, 7, 767},  {48, 8, 768},  {49, 9, 769},  {95, 15, 771},  {97, 17, 1537},
        {96, 16, 1539}, {49, 1025, 6}, {50, 3, 2305}, {145, 23, 4099}, {1, 1031, 772},
        /* the avxvnni GEMM: 4 x 24 tiles, k blocks of 1024 bytes */
        {23, 3, 1023}, {25, 5, 1025}, {24, 4, 1027}, {71, 9, 2051},
    };
    int bad = 0;
    kset ks[BNL_ARCH_COUNT + 1];
    int nk = ksets(ks, 0);
    for (int a = 0; a < nk; a++) {
        for (int s = 0; s < LEN(shapes); s++) {
            if (quick && (int64_t)shapes[s][0] * shapes[s][1] * shapes[s][2] > 70000) continue;
            bad += run_shape(ks[a], shapes[s][0], shapes[s][1], shapes[s][2], s % 4);
        }
    }
    assert_int_equal(bad, 0);
}

/* Largest values: all 0 against all 255 at the largest n for each kernel
 * (the dot: 255 against 255). */
static void test_u8_worst(void **state)
{
    (void)state;
    int bad = 0;
    kset ks[BNL_ARCH_COUNT + 1];
    int nk = ksets(ks, 0);
    for (int a = 0; a < nk; a++) {
        const bnl_kernels *k = ks[a].k;
        for (int l2 = 0; l2 < (k->dot_u8 ? 3 : 2); l2++) { /* 2: dot */
            int n = l2 ? BNL_L2SQ_U8_MAX_N : 65536;
            int64_t m = 5, N = 3;
            uint8_t *W = malloc((size_t)(m * n)), *X = malloc((size_t)(N * n));
            int32_t D[3 * 5];
            assert_true(W && X);
            memset(W, 255, (size_t)(m * n));
            memset(X, l2 == 2 ? 255 : 0, (size_t)(N * n));
            W[n - 1] = 0; /* neuron 0 differs in its last byte */
            (l2 == 2 ? k->dot_u8 : l2 ? k->l2sq_u8 : k->l1_u8)(D, m, W, m, X, N, n);
            int64_t full = l2 ? (int64_t)n * 255 * 255 : (int64_t)n * 255;
            int64_t less = l2 ? full - 255 * 255 : full - 255;
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < m; j++) {
                    int64_t want = j == 0 ? less : full;
                    if (D[i * m + j] != want) {
                        fprintf(stderr, "MISMATCH %s %s worst case n=%d (%lld,%lld): got %d want %lld\n",
                                ks[a].name, l2 == 2 ? "dot_u8" : l2 ? "l2sq_u8" : "l1_u8",
                                n, (long long)i,
                                (long long)j, D[i * m + j], (long long)want);
                        bad++;
                    }
                }
            free(W);
            free(X);
        }
    }
    assert_int_equal(bad, 0);
}

/* A pair at distance 0 gives exactly 0 in f32 (the min identity cancels
 * exactly when x == w) and in every dtype. */
static void test_self_zero(void **state)
{
    (void)state;
    enum { M = 37, NN = 784 };
    float *Wf = malloc(sizeof(float) * M * NN);
    double *Wd = malloc(sizeof(double) * M * NN);
    uint8_t *Wu = malloc(M * NN);
    float Df[M * M];
    double Dd[M * M];
    int32_t Du[M * M];
    assert_true(Wf && Wd && Wu);
    for (int t = 0; t < M * NN; t++) {
        Wd[t] = fval(t % 4);
        Wf[t] = (float)Wd[t];
        Wu[t] = (uint8_t)rnd();
    }
    kset ks[BNL_ARCH_COUNT + 1];
    int nk = ksets(ks, 0);
    for (int a = 0; a < nk; a++) {
        const bnl_kernels *k = ks[a].k;
        k->l1_f32(Df, M, Wf, M, Wf, M, NN);
        k->l1_f64(Dd, M, Wd, M, Wd, M, NN);
        k->l1_u8(Du, M, Wu, M, Wu, M, NN);
        for (int i = 0; i < M; i++) {
            if (Df[i * M + i] != 0.0f || Dd[i * M + i] != 0.0 || Du[i * M + i] != 0)
                fprintf(stderr, "MISMATCH %s self distance of row %d: f32 %g f64 %g u8 %d\n",
                        ks[a].name, i, Df[i * M + i], Dd[i * M + i], Du[i * M + i]);
            assert_true(Df[i * M + i] == 0.0f);
            assert_true(Dd[i * M + i] == 0.0);
            assert_int_equal(Du[i * M + i], 0);
        }
        k->l2sq_u8(Du, M, Wu, M, Wu, M, NN);
        for (int i = 0; i < M; i++) assert_int_equal(Du[i * M + i], 0);
    }
    free(Wf);
    free(Wd);
    free(Wu);
}

/* Every result depends only on its own pair of rows, not on how (m, N) is
 * cut into calls: a layer computed whole and as uneven sub-tiles (what the
 * planner and its threads do) is bitwise identical, for every kernel. */
static void test_tiling_invariance(void **state)
{
    (void)state;
    enum { M = 77, NN = 45, NV = 785 };
    static const int cuts_m[] = {0, 1, 9, 40, 77}, cuts_N[] = {0, 8, 13, 45};
    float *Wf = malloc(sizeof(float) * M * NV), *Xf = malloc(sizeof(float) * NN * NV);
    double *Wd = malloc(sizeof(double) * M * NV), *Xd = malloc(sizeof(double) * NN * NV);
    uint8_t *Wu = malloc(M * NV), *Xu = malloc(NN * NV);
    float *Af = malloc(sizeof(float) * M * NN), *Bf = malloc(sizeof(float) * M * NN);
    double *Ad = malloc(sizeof(double) * M * NN), *Bd = malloc(sizeof(double) * M * NN);
    int32_t *Au = malloc(sizeof(int32_t) * M * NN), *Bu = malloc(sizeof(int32_t) * M * NN);
    int32_t *Al = malloc(sizeof(int32_t) * M * NN), *Bl = malloc(sizeof(int32_t) * M * NN);
    assert_true(Wf && Xf && Wd && Xd && Wu && Xu && Af && Bf && Ad && Bd && Au && Bu && Al && Bl);
    for (int t = 0; t < M * NV; t++) { Wd[t] = fval(0); Wf[t] = (float)fval(3); Wu[t] = (uint8_t)rnd(); }
    for (int t = 0; t < NN * NV; t++) { Xd[t] = fval(0); Xf[t] = (float)fval(3); Xu[t] = (uint8_t)rnd(); }
    kset ks[BNL_ARCH_COUNT + 1];
    int nk = ksets(ks, 0);
    for (int a = 0; a < nk; a++) {
        const bnl_kernels *k = ks[a].k;
        k->l1_f32(Af, M, Wf, M, Xf, NN, NV);
        k->l1_f64(Ad, M, Wd, M, Xd, NN, NV);
        k->l1_u8(Au, M, Wu, M, Xu, NN, NV);
        k->l2sq_u8(Al, M, Wu, M, Xu, NN, NV);
        for (int p = 0; p + 1 < LEN(cuts_m); p++)
            for (int q = 0; q + 1 < LEN(cuts_N); q++) {
                int64_t j0 = cuts_m[p], mj = cuts_m[p + 1] - j0;
                int64_t i0 = cuts_N[q], ni = cuts_N[q + 1] - i0;
                k->l1_f32(Bf + i0 * M + j0, M, Wf + j0 * NV, mj, Xf + i0 * NV, ni, NV);
                k->l1_f64(Bd + i0 * M + j0, M, Wd + j0 * NV, mj, Xd + i0 * NV, ni, NV);
                k->l1_u8(Bu + i0 * M + j0, M, Wu + j0 * NV, mj, Xu + i0 * NV, ni, NV);
                k->l2sq_u8(Bl + i0 * M + j0, M, Wu + j0 * NV, mj, Xu + i0 * NV, ni, NV);
            }
        if (memcmp(Af, Bf, sizeof(float) * M * NN) || memcmp(Ad, Bd, sizeof(double) * M * NN) ||
            memcmp(Au, Bu, sizeof(int32_t) * M * NN) || memcmp(Al, Bl, sizeof(int32_t) * M * NN))
            fprintf(stderr, "MISMATCH %s: results depend on the tiling\n", ks[a].name);
        assert_memory_equal(Af, Bf, sizeof(float) * M * NN);
        assert_memory_equal(Ad, Bd, sizeof(double) * M * NN);
        assert_memory_equal(Au, Bu, sizeof(int32_t) * M * NN);
        assert_memory_equal(Al, Bl, sizeof(int32_t) * M * NN);
    }
    free(Wf); free(Xf); free(Wd); free(Xd); free(Wu); free(Xu);
    free(Af); free(Bf); free(Ad); free(Bd); free(Au); free(Bu); free(Al); free(Bl);
}

/* The AVX-512 panel packing = the scalar one, byte for byte, at every edge:
 * rows past m, units past len (a partial last unit), offsets u0, panels of
 * 16 / 32 / 48 rows. */
static void test_pack4(void **state)
{
    (void)state;
    if (!bnl_arch_supported(BNL_ARCH_AVX512))
        skip();
    enum { ROWS = 60, LD = 300 };
    uint8_t *A = malloc(ROWS * LD), *p = malloc(48 * 80 * 4), *q = malloc(48 * 80 * 4);
    assert_true(A && p && q);
    for (int i = 0; i < ROWS * LD; i++) A[i] = (uint8_t)rnd();
    static const int nrs[] = {16, 32, 48}, lens[] = {1, 4, 63, 64, 65, 127, 128, 200, 255, 300};
    static const int u0s[] = {0, 3, 16, 17}, nus[] = {1, 15, 16, 17, 32, 48, 80};
    static const int64_t rows[] = {1, 15, 16, 17, 31, 32, 33, 47, 48, 60};
    int cases = 0;
    for (size_t a = 0; a < sizeof nrs / sizeof *nrs; a++)
        for (size_t b = 0; b < sizeof lens / sizeof *lens; b++)
            for (size_t c = 0; c < sizeof u0s / sizeof *u0s; c++)
                for (size_t d = 0; d < sizeof nus / sizeof *nus; d++)
                    for (size_t e = 0; e < sizeof rows / sizeof *rows; e++) {
                        int nr = nrs[a], nu = nus[d];
                        int64_t j0 = ROWS - rows[e] > 10 ? 10 : 0, m = j0 + rows[e];
                        uint8_t flip = (uint8_t)(cases & 1 ? 0x80 : 0);
                        size_t sz = (size_t)nr * nu * 4;
                        memset(p, 0xA5, sz);
                        memset(q, 0x5A, sz);
                        kern_pack4(p, A, m, LD, lens[b], j0, nr, u0s[c], nu, flip);
                        kern_pack4_avx512(q, A, m, LD, lens[b], j0, nr, u0s[c], nu, flip);
                        if (memcmp(p, q, sz))
                            fail_msg("pack4: nr %d len %d u0 %d nu %d rows %lld flip %d differ",
                                     nr, lens[b], u0s[c], nu, (long long)rows[e], flip);
                        cases++;
                    }
    printf("  %d panels, identical\n", cases);
    free(A); free(p); free(q);
}

int main(void)
{
    const char *q = getenv("FSVC_TEST_QUICK");
    quick = q && *q && strcmp(q, "0") != 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_u8_worst),
        cmocka_unit_test(test_self_zero),
        cmocka_unit_test(test_tiling_invariance),
        cmocka_unit_test(test_pack4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
