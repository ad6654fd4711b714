/*
 * test_peak.c - the measured peak behind "% of peak" (layers/peak.c):
 *   - which mix each plan kernel maps to, and none where there is no probe;
 *   - each probe against the same mix written here with intrinsics (a
 *     plain loop the compiler schedules): within 0.80-1.25 of it, so a
 *     probe that counts half or twice its units, or issues a slower block,
 *     fails;
 *   - the real kernels on cache-resident tiles, one thread, per CPU second:
 *     never above 105 % of their mix's peak (the "by construction" claim;
 *     a kernel mapped to a mix it does not run, or a probe below the
 *     kernel's ceiling, fails).
 * Rates are per CPU second of the measuring thread: other jobs on a
 * shared machine slow the wall clock, not these.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <immintrin.h>
#include <cmocka.h>

#include "layers/bnl.h"
#include "layers/kernels.h"
#include "layers/peak_impl.h"

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* ---- the mapping ---------------------------------------------------------- */

static int mix_of(const char *kernel, fsvc_dtype dt, bnl_dist dist, bnl_precision prec)
{
    bnl_plan p = {0};
    p.kernel = kernel;
    bnl_op op = {0};
    op.dtype = dt;
    op.dist = dist;
    op.precision = prec;
    return bnl_plan_mix(&p, &op);
}

static void test_mapping(void **state)
{
    (void)state;
    const bnl_precision F = BNL_PREC_FULL;
    assert_int_equal(mix_of("avx512", FSVC_U8, BNL_L1, F), BNL_MIX_SAD_Z);
    assert_int_equal(mix_of("avx512", FSVC_F32, BNL_L1, F), BNL_MIX_MINADD_Z);
    assert_int_equal(mix_of("avx512", FSVC_F64, BNL_L1, F), BNL_MIX_ABSADD_Z);
    assert_int_equal(mix_of("avx512", FSVC_U8, BNL_L2, F), BNL_MIX_DPBUSD_Z);
    assert_int_equal(mix_of("avx512vnni", FSVC_U8, BNL_DOT, F), BNL_MIX_DPBUSD_Z);
    assert_int_equal(mix_of("avx512bf16", FSVC_F32, BNL_L2, BNL_PREC_BF16), BNL_MIX_DPBF16_Z);
    assert_int_equal(mix_of("onednn-bf16", FSVC_F32, BNL_DOT, BNL_PREC_BF16), BNL_MIX_DPBF16_Z);
    assert_int_equal(mix_of("onednn-f32", FSVC_F32, BNL_L2, F), BNL_MIX_FMAPS_Z);
    assert_int_equal(mix_of("avx2", FSVC_U8, BNL_L1, F), BNL_MIX_SAD_Y);
    assert_int_equal(mix_of("avx2", FSVC_F32, BNL_L1, F), BNL_MIX_MINADD_Y);
    assert_int_equal(mix_of("avx2", FSVC_F64, BNL_L1, F), BNL_MIX_ABSADD_Y);
    assert_int_equal(mix_of("avx2", FSVC_U8, BNL_L2, F), BNL_MIX_MADDWD_Y);
    assert_int_equal(mix_of("avxvnni", FSVC_U8, BNL_L2, F), BNL_MIX_DPBUSD_Y);
    assert_int_equal(mix_of("amx", FSVC_U8, BNL_L2, F), BNL_MIX_TDPBUUD);
    assert_int_equal(mix_of("amx", FSVC_U8, BNL_DOT, F), BNL_MIX_TDPBUUD);
    assert_int_equal(bnl_mix_syn(BNL_MIX_TDPBUUD), 16 * 16 * 64);
    assert_int_equal(mix_of("amx", FSVC_F32, BNL_L2, BNL_PREC_BF16), BNL_MIX_TDPBF16);
    assert_int_equal(bnl_mix_syn(BNL_MIX_TDPBF16), 16 * 16 * 32);
    assert_int_equal(mix_of("amx", FSVC_U8, BNL_L1, F), BNL_MIX_NONE); /* avx512's L1 */
    /* no probe: no peak, never a guess */
    assert_int_equal(mix_of("scalar", FSVC_U8, BNL_L1, F), BNL_MIX_NONE);
    assert_int_equal(mix_of("ref", FSVC_F32, BNL_L1, F), BNL_MIX_NONE);
    assert_int_equal(mix_of("cuda (cuda/ planner)", FSVC_U8, BNL_L2, F), BNL_MIX_NONE);
    assert_true(bnl_mix_peak(BNL_MIX_NONE, 2) == 0);
    assert_string_equal(bnl_mix_name(BNL_MIX_SAD_Z), "vpsadbw + vpaddq zmm");
    assert_int_equal(bnl_mix_syn(BNL_MIX_SAD_Z), 64);
    assert_int_equal(bnl_mix_syn(BNL_MIX_ABSADD_Y), 4);
    /* the GEMM's width follows OpenBLAS's core (Haswell, Zen: 256-bit) */
    int s = mix_of("openblas-sgemm", FSVC_F32, BNL_L2, F);
    int d = mix_of("openblas-dgemm", FSVC_F64, BNL_DOT, F);
    const char *core = bnl_blas_core_name();
    if (!strcasecmp(core, "Haswell") || !strcasecmp(core, "Zen")) {
        assert_int_equal(s, BNL_MIX_FMAPS_Y);
        assert_int_equal(d, BNL_MIX_FMAPD_Y);
    } else if (!strcasecmp(core, "SkylakeX") || !strcasecmp(core, "Cooperlake") ||
               !strcasecmp(core, "SapphireRapids")) {
        assert_int_equal(s, BNL_MIX_FMAPS_Z);
        assert_int_equal(d, BNL_MIX_FMAPD_Z);
    }
}

/* ---- the probes against plain intrinsics loops ------------------------------ */

/* Units per CPU second of a loop of 8 x NA units on NA accumulators; the
 * empty asm after each unit makes its sources look new, so the compiler
 * can neither share one unit's result among accumulators nor hoist it. */
#define E11(M) M(x0) M(x1) M(x2) M(x3) M(x4) M(x5) M(x6) M(x7) M(x8) M(x9) M(x10)
#define E16(M) E11(M) M(x11) M(x12) M(x13) M(x14) M(x15)
#define REF_LOOP(fn, tgt, V, EACH, NA, ZERO, UNIT, SETUP)                                   \
    __attribute__((target(tgt), noinline)) static double fn(void)                           \
    {                                                                                       \
        SETUP;                                                                              \
        double best = 0;                                                                    \
        for (int rep = 0; rep < 5; rep++) {                                                 \
            V EACH(DECL_##V) unused_ = ZERO;                                                \
            (void)unused_;                                                                  \
            double t0 = thread_cpu();                                                       \
            for (long it = 0; it < (1L << 15); it++)                                        \
                for (int u = 0; u < 8; u++) {                                               \
                    EACH(UNIT)                                                              \
                }                                                                           \
            double r = 8.0 * NA * (1L << 15) / (thread_cpu() - t0);                         \
            EACH(KEEP)                                                                      \
            best = r > best ? r : best;                                                     \
        }                                                                                   \
        return best;                                                                        \
    }
/* "V x0 = 0, x1 = 0, ..., unused_ = 0;": the accumulators as named variables
 * (an array of them was spilled to the stack by gcc 12) */
#define DECL___m512i(x) x = _mm512_setzero_si512(),
#define DECL___m512(x) x = _mm512_setzero_ps(),
#define DECL___m512d(x) x = _mm512_setzero_pd(),
#define DECL___m256i(x) x = _mm256_setzero_si256(),
#define DECL___m256(x) x = _mm256_setzero_ps(),
#define DECL___m256d(x) x = _mm256_setzero_pd(),
#define KEEP(x) __asm__ volatile("" : : "v"(x));
#define BAR __asm__("" : "+v"(a), "+v"(b));

#define Z512 "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma"
#define SETUP_ZI __m512i a = _mm512_set1_epi32(0x3f803f80), b = a
#define SETUP_ZF __m512 a = _mm512_castsi512_ps(_mm512_set1_epi32(0x3f803f80)), b = a
#define SETUP_ZD __m512d a = _mm512_castsi512_pd(_mm512_set1_epi32(0x3f803f80)), b = a;    \
                 const __m512d c = _mm512_castsi512_pd(_mm512_set1_epi64(0x7fffffffffffffffLL)); (void)c
#define U_SAD_Z(x) (x = _mm512_add_epi64(x, _mm512_sad_epu8(a, b))); BAR
#define U_MINADD_Z(x) (x = _mm512_add_ps(x, _mm512_min_ps(a, b))); BAR
#define U_ABSADD_Z(x) (x = _mm512_add_pd(x, _mm512_and_pd(_mm512_sub_pd(a, b), c))); BAR
#define U_FMAPS_Z(x) (x = _mm512_fmadd_ps(a, b, x)); BAR
#define U_FMAPD_Z(x) (x = _mm512_fmadd_pd(a, b, x)); BAR
#define U_DPBUSD_Z(x) (x = _mm512_dpbusd_epi32(x, a, b)); BAR
#define U_DPBF16_Z(x) (x = _mm512_dpbf16_ps(x, (__m512bh)a, (__m512bh)b)); BAR
REF_LOOP(ref_sad_z, Z512, __m512i, E16, 16, _mm512_setzero_si512(), U_SAD_Z, SETUP_ZI)
REF_LOOP(ref_minadd_z, Z512, __m512, E16, 16, _mm512_setzero_ps(), U_MINADD_Z, SETUP_ZF)
REF_LOOP(ref_absadd_z, Z512, __m512d, E16, 16, _mm512_setzero_pd(), U_ABSADD_Z, SETUP_ZD)
REF_LOOP(ref_fmaps_z, Z512, __m512, E16, 16, _mm512_setzero_ps(), U_FMAPS_Z, SETUP_ZF)
REF_LOOP(ref_fmapd_z, Z512, __m512d, E16, 16, _mm512_setzero_pd(), U_FMAPD_Z, SETUP_ZD)
REF_LOOP(ref_dpbusd_z, Z512, __m512i, E16, 16, _mm512_setzero_si512(), U_DPBUSD_Z, SETUP_ZI)
REF_LOOP(ref_dpbf16_z, Z512 ",avx512bf16", __m512, E16, 16, _mm512_setzero_ps(), U_DPBF16_Z,
         SETUP_ZF)

#define Y256 "avx2,fma"
#define SETUP_YI __m256i a = _mm256_set1_epi32(0x3f803f80), b = a
#define SETUP_YF __m256 a = _mm256_castsi256_ps(_mm256_set1_epi32(0x3f803f80)), b = a
#define SETUP_YD __m256d a = _mm256_castsi256_pd(_mm256_set1_epi32(0x3f803f80)), b = a;    \
                 const __m256d c = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL)); (void)c
#define U_SAD_Y(x) (x = _mm256_add_epi64(x, _mm256_sad_epu8(a, b))); BAR
#define U_MINADD_Y(x) (x = _mm256_add_ps(x, _mm256_min_ps(a, b))); BAR
#define U_ABSADD_Y(x) (x = _mm256_add_pd(x, _mm256_and_pd(_mm256_sub_pd(a, b), c))); BAR
#define U_FMAPS_Y(x) (x = _mm256_fmadd_ps(a, b, x)); BAR
#define U_FMAPD_Y(x) (x = _mm256_fmadd_pd(a, b, x)); BAR
#define U_MADDWD_Y(x) (x = _mm256_add_epi32(x, _mm256_madd_epi16(a, b))); BAR
#define U_DPBUSD_Y(x) (x = _mm256_dpbusd_avx_epi32(x, a, b)); BAR
REF_LOOP(ref_sad_y, Y256, __m256i, E11, 11, _mm256_setzero_si256(), U_SAD_Y, SETUP_YI)
REF_LOOP(ref_minadd_y, Y256, __m256, E11, 11, _mm256_setzero_ps(), U_MINADD_Y, SETUP_YF)
REF_LOOP(ref_absadd_y, Y256, __m256d, E11, 11, _mm256_setzero_pd(), U_ABSADD_Y, SETUP_YD)
REF_LOOP(ref_fmaps_y, Y256, __m256, E11, 11, _mm256_setzero_ps(), U_FMAPS_Y, SETUP_YF)
REF_LOOP(ref_fmapd_y, Y256, __m256d, E11, 11, _mm256_setzero_pd(), U_FMAPD_Y, SETUP_YD)
REF_LOOP(ref_maddwd_y, Y256, __m256i, E11, 11, _mm256_setzero_si256(), U_MADDWD_Y, SETUP_YI)
REF_LOOP(ref_dpbusd_y, Y256 ",avxvnni", __m256i, E11, 11, _mm256_setzero_si256(), U_DPBUSD_Y,
         SETUP_YI)

/* tdpbuud (bf = 0) or tdpbf16ps on 6 accumulator tiles, 16 rows x 64
 * bytes each, in the intrinsics' own loop (the probe's rounds are 6 x
 * 2^12 of them). */
__attribute__((target("amx-tile,amx-int8,amx-bf16"), noinline)) static double ref_tiles(int bf)
{
    _Alignas(64) unsigned char cfg[64] = {1};
    for (int t = 0; t < 8; t++) {
        cfg[16 + 2 * t] = 64;
        cfg[48 + t] = 16;
    }
    _tile_loadconfig(cfg);
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = thread_cpu();
        for (long it = 0; it < (1L << 11); it++)
            for (int u = 0; u < 2; u++) {
                if (bf) {
                    _tile_dpbf16ps(5, 6, 7); _tile_dpbf16ps(4, 6, 7); _tile_dpbf16ps(3, 6, 7);
                    _tile_dpbf16ps(2, 6, 7); _tile_dpbf16ps(1, 6, 7); _tile_dpbf16ps(0, 6, 7);
                } else {
                    _tile_dpbuud(5, 6, 7); _tile_dpbuud(4, 6, 7); _tile_dpbuud(3, 6, 7);
                    _tile_dpbuud(2, 6, 7); _tile_dpbuud(1, 6, 7); _tile_dpbuud(0, 6, 7);
                }
            }
        double r = 12.0 * (1L << 11) / (thread_cpu() - t0);
        best = r > best ? r : best;
    }
    _tile_release();
    return best;
}

static double ref_tdpbuud(void) { return ref_tiles(0); }
static double ref_tdpbf16(void) { return ref_tiles(1); }

/* A sanitizer build (-O1, instrumented loops) times other code than the
 * probes measure against: the timing tests skip there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TIMING_SKIP() skip()
#else
#define TIMING_SKIP() (void)0
#endif

static void test_probe_vs_loop(void **state)
{
    (void)state;
    TIMING_SKIP();
    static const struct { int mix; double (*loop)(void); } t[] = {
        {BNL_MIX_SAD_Z, ref_sad_z}, {BNL_MIX_MINADD_Z, ref_minadd_z},
        {BNL_MIX_ABSADD_Z, ref_absadd_z}, {BNL_MIX_FMAPS_Z, ref_fmaps_z},
        {BNL_MIX_FMAPD_Z, ref_fmapd_z}, {BNL_MIX_DPBUSD_Z, ref_dpbusd_z},
        {BNL_MIX_DPBF16_Z, ref_dpbf16_z}, {BNL_MIX_SAD_Y, ref_sad_y},
        {BNL_MIX_MINADD_Y, ref_minadd_y}, {BNL_MIX_ABSADD_Y, ref_absadd_y},
        {BNL_MIX_FMAPS_Y, ref_fmaps_y}, {BNL_MIX_FMAPD_Y, ref_fmapd_y},
        {BNL_MIX_MADDWD_Y, ref_maddwd_y}, {BNL_MIX_DPBUSD_Y, ref_dpbusd_y},
        {BNL_MIX_TDPBUUD, ref_tdpbuud}, {BNL_MIX_TDPBF16, ref_tdpbf16},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        if (!bnl_mix_supported(t[i].mix))
            continue;
        double probe = bnl_mix_rate(t[i].mix), loop = t[i].loop();
        printf("  %-40s probe %.3g units/s, intrinsics loop %.3g (%.2f)\n",
               bnl_mix_name(t[i].mix), probe, loop, loop / probe);
        assert_true(probe > 0);
        /* 0.96-1.03 measured under load 5-9; the faults this guards
         * (a unit counted twice, or half of one) are factors of 2 */
        assert_true(loop <= 1.25 * probe);
        assert_true(loop >= 0.80 * probe);
        ran++;
    }
    if (!ran)
        skip();
}

/* ---- the kernels under their mix's peak ---------------------------------- */

/* Synapses per CPU second of one kernel call repeated for >= 0.03 s, best
 * of 3, on W and X of 96 rows x n (cache-resident). */
typedef void (*kfn)(void *D, int64_t ldd, const void *W, int64_t m, const void *X, int64_t N,
                    int n);

static double kernel_rate(kfn f, void *D, const void *W, const void *X, int64_t m, int n)
{
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        long calls = 0;
        double t0 = thread_cpu(), t;
        do {
            f(D, m, W, m, X, m, n);
            calls++;
        } while ((t = thread_cpu() - t0) < 0.03);
        double r = (double)calls * m * m * n / t;
        best = r > best ? r : best;
    }
    return best;
}

/* the bf16 GEMM kernel of the tier under test in the distance kernels'
 * shape (alpha 1) */
static bnl_arch bf16_arch;
static void dot_bf16_call(void *D, int64_t ldd, const void *W, int64_t m, const void *X,
                          int64_t N, int n)
{
    bnl_kernels_get(bf16_arch)->dot_bf16(D, ldd, W, m, X, N, n, 1.0f);
}

static void test_kernels_under_peak(void **state)
{
    (void)state;
    TIMING_SKIP();
    enum { M = 96, NN = 768 };
    uint8_t *Wu = malloc(M * NN), *Xu = malloc(M * NN);
    float *Wf = malloc(sizeof(float) * M * NN), *Xf = malloc(sizeof(float) * M * NN);
    double *Wd = malloc(sizeof(double) * M * NN), *Xd = malloc(sizeof(double) * M * NN);
    uint16_t *Wb = malloc(2 * M * NN), *Xb = malloc(2 * M * NN);
    void *D = malloc(sizeof(double) * M * M);
    assert_non_null(D);
    for (int i = 0; i < M * NN; i++) {
        Wu[i] = (uint8_t)(i * 37 + 11), Xu[i] = (uint8_t)(i * 91 + 5);
        Wf[i] = (float)Wu[i] / 255.0f, Xf[i] = (float)Xu[i] / 255.0f;
        Wd[i] = Wf[i], Xd[i] = Xf[i];
        Wb[i] = (uint16_t)(0x3f00 | Wu[i] >> 1), Xb[i] = (uint16_t)(0x3f00 | Xu[i] >> 1);
    }
    const bnl_arch archs[] = {BNL_ARCH_AVX2, BNL_ARCH_AVXVNNI, BNL_ARCH_AVX512,
                              BNL_ARCH_AVX512VNNI, BNL_ARCH_AVX512BF16, BNL_ARCH_AMX};
    int ran = 0;
    for (size_t a = 0; a < sizeof archs / sizeof *archs; a++) {
        if (!bnl_arch_supported(archs[a]))
            continue;
        const bnl_kernels *k = bnl_kernels_get(archs[a]);
        bf16_arch = archs[a];
        struct { fsvc_dtype dt; bnl_dist dist; kfn f; const void *W, *X; } c[] = {
            {FSVC_U8, BNL_L1, (kfn)k->l1_u8, Wu, Xu},
            {FSVC_F32, BNL_L1, (kfn)k->l1_f32, Wf, Xf},
            {FSVC_F64, BNL_L1, (kfn)k->l1_f64, Wd, Xd},
            {FSVC_U8, BNL_L2, (kfn)k->l2sq_u8, Wu, Xu},
            {FSVC_F32, BNL_DOT, k->dot_bf16 ? dot_bf16_call : NULL, Wb, Xb},
        };
        for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
            if (!c[i].f)
                continue;
            bnl_op op = {0};
            op.dtype = c[i].dt;
            op.dist = c[i].dist;
            op.precision = c[i].dist == BNL_DOT ? BNL_PREC_BF16 : BNL_PREC_FULL;
            bnl_plan p = {0};
            p.kernel = bnl_kernels_op_tier(archs[a], &op);
            p.threads = 1;
            int mix = bnl_plan_mix(&p, &op);
            assert_true(mix != BNL_MIX_NONE);
            double peak = bnl_mix_peak(mix, 1);
            double rate = kernel_rate(c[i].f, D, c[i].W, c[i].X, M, NN);
            printf("  %-10s %s %s on %-36s %.3g G synapses/s = %.0f%% of %.3g\n", p.kernel,
                   fsvc_dtype_name(c[i].dt), bnl_dist_name(c[i].dist),
                   bnl_mix_name(mix), rate / 1e9, 100 * rate / peak, peak / 1e9);
            assert_true(rate <= 1.05 * peak);
            ran++;
        }
    }
    free(Wu), free(Xu), free(Wf), free(Xf), free(Wd), free(Xd), free(Wb), free(Xb), free(D);
    if (!ran)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping),
        cmocka_unit_test(test_probe_vs_loop),
        cmocka_unit_test(test_kernels_under_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
