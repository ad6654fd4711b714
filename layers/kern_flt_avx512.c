/*
 * kern_flt_avx512.c - float L1 distance kernels, AVX-512F.
 *
 *   l1_f32_avx512_8x32  sum_k |x_k - w_k| = Sx + Sw - 2 sum_k min(x_k, w_k):
 *                       2 ops per 16 synapses (vminps + vaddps) instead of 3
 *                       (sub, abs, add). Lanes = 16 neurons of a k-major
 *                       packed W panel, 2 vectors (32 neurons) x 8 samples
 *                       broadcast = 16 zmm accumulators. The min sums restart
 *                       per k block (KC) and add into D (blocked summation);
 *                       Sx, Sw are summed in the same float order, so a row's
 *                       distance to itself is exactly 0. Reordered sums:
 *                       within BNL_L1_F32_RTOL (kernels.h) of the exact result;
 *                       exact on integer-valued data while sums stay < 2^24.
 *   l1_f64_avx512_8x24  sub, abs, add in each pair's k order (bit-exact with
 *                       the sequential reference); 3 vectors (24 neurons) x 8
 *                       samples = 24 zmm accumulators; k blocks continue the
 *                       partial sums stored in D, so the order is unchanged.
 *
 * Tuning (this 2-core Sapphire Rapids, shared and noisy: CPU-time rates, best
 * of repeats, tests/bench_kernels.c; tiles 128 x 256 and 160 x 160 (the
 * engine planner's f32 tile), n = 784, one thread):
 *   - ceiling: a register-only vminps + vaddps loop (8 x 32 block, no loads)
 *     runs 15.75 synapses/cycle (36.7 G/s at the 2.33 GHz imul-probe clock);
 *     this kernel reaches ~34.6 G/s on a cache-resident tile (~94% of it).
 *   - 8 x 32 (16 accumulators) vs 12 x 32 (24): 12 x 32 was 10-40% slower
 *     (edge waste at 160 samples, 12 row pointers spill); kept 8 x 32.
 *   - row sums and W packing first as plain C loops: perf showed 12% (sums)
 *     + ~6% (transposing pack); now 16 x 16 in-register transposes, ~3%.
 * D: N x m (ldd >= m), W: m x n, X: N x n, row-major. Finite inputs.
 */
#include <immintrin.h>
#include "kern_macro.h"
#include "kern_xpose16.h"

#define F32_MR 8
#define F32_NR 32
#define F32_KC 256 /* panel 256 x 32 floats = 32 KB, L1 */
#define F32_G 512  /* samples / neurons per group of row sums (stack) */

#define F64_MR 8
#define F64_NR 24
#define F64_KC 128 /* panel 128 x 24 doubles = 24 KB */

static inline __mmask16 mask16(int c) { return c <= 0 ? 0 : c >= 16 ? 0xFFFF : (__mmask16)((1u << c) - 1); }
static inline __mmask8 mask8(int c) { return c <= 0 ? 0 : c >= 8 ? 0xFF : (__mmask8)((1u << c) - 1); }

/* Columns k0..k0+kc-1 of 16 rows (row pointers) as k-major vectors: calls
 * EACH(k, col) for k in order, col = [row_0[k] .. row_15[k]]. */
#define XPOSE_ROWS16(rows16, k0, kc, EACH)                                      \
    for (int kk = 0; kk < (kc); kk += 16) {                                     \
        int kv = (kc) - kk < 16 ? (kc) - kk : 16;                               \
        __mmask16 lm = mask16(kv);                                              \
        __m512 r[16];                                                           \
        for (int i = 0; i < 16; i++) r[i] = _mm512_maskz_loadu_ps(lm, (rows16)[i] + (k0) + kk); \
        xpose16(r);                                                             \
        for (int q = 0; q < kv; q++) EACH(kk + q, r[q]);                        \
    }

/* 16 row pointers from row i0 of A (rows x n), clamped to the last row. */
static inline void rows16(const float *p[16], const float *A, int64_t i0, int64_t rows, int n)
{
    for (int i = 0; i < 16; i++) p[i] = A + kern_min64(i0 + i, rows - 1) * (int64_t)n;
}

/* out[i] = sum_k X[i][k], i < rows: in the kernel's float order (sequential
 * per row within each k block of F32_KC, block sums added in order). */
static void rowsum_f32_avx512(float *out, const float *X, int64_t rows, int n)
{
    for (int64_t i0 = 0; i0 < rows; i0 += 16) {
        const float *p[16];
        rows16(p, X, i0, rows, n);
        __m512 t = _mm512_setzero_ps();
        for (int k0 = 0; k0 < n; k0 += F32_KC) {
            int kc = (int)kern_min64(F32_KC, n - k0);
            __m512 b = _mm512_setzero_ps();
#define RS_ADD(k, col) (b = _mm512_add_ps(b, (col)))
            XPOSE_ROWS16(p, k0, kc, RS_ADD)
#undef RS_ADD
            t = _mm512_add_ps(t, b);
        }
        _mm512_mask_storeu_ps(out + i0, mask16((int)(rows - i0)), t);
    }
}

/* wp: kc x 32 panel of neurons j0..j0+31 (k-major; rows past m repeat the
 * last row); *s0, *s1 += the block's per-neuron sums in the kernel's order. */
static void pack_f32_avx512(float *wp, const float *W, int64_t m, int n, int64_t j0,
                            int k0, int kc, __m512 *s0, __m512 *s1)
{
    for (int h = 0; h < 2; h++) {
        const float *p[16];
        rows16(p, W, j0 + 16 * h, m, n);
        __m512 b = _mm512_setzero_ps();
        float *dst = wp + 16 * h;
#define PK_ADD(k, col) (_mm512_store_ps(dst + (int64_t)(k) * F32_NR, (col)), b = _mm512_add_ps(b, (col)))
        XPOSE_ROWS16(p, k0, kc, PK_ADD)
#undef PK_ADD
        if (h == 0) *s0 = _mm512_add_ps(*s0, b);
        else *s1 = _mm512_add_ps(*s1, b);
    }
}

/* ---- f32 ----------------------------------------------------------------- */

#define F32_ROW(r)                                                              \
    do {                                                                        \
        __m512 xb = _mm512_set1_ps(xr[r][k]);                                   \
        c##r##0 = _mm512_add_ps(c##r##0, _mm512_min_ps(w0, xb));                \
        c##r##1 = _mm512_add_ps(c##r##1, _mm512_min_ps(w1, xb));                \
    } while (0)

#define F32_OUT(r)                                                              \
    if (rows > r) {                                                             \
        float *d = D + r * ldd;                                                 \
        if (!first) {                                                           \
            c##r##0 = _mm512_add_ps(c##r##0, _mm512_maskz_loadu_ps(m0, d));     \
            c##r##1 = _mm512_add_ps(c##r##1, _mm512_maskz_loadu_ps(m1, d + 16)); \
        }                                                                       \
        if (last) {                                                             \
            __m512 s = _mm512_set1_ps(sx[r]);                                  \
            __m512 two = _mm512_set1_ps(2.0f);                                  \
            c##r##0 = _mm512_sub_ps(_mm512_add_ps(s, sw0), _mm512_mul_ps(two, c##r##0)); \
            c##r##1 = _mm512_sub_ps(_mm512_add_ps(s, sw1), _mm512_mul_ps(two, c##r##1)); \
        }                                                                       \
        _mm512_mask_storeu_ps(d, m0, c##r##0);                                  \
        _mm512_mask_storeu_ps(d + 16, m1, c##r##1);                             \
    }

/* D (rows x 32, masks m0 m1) (+)= sum_{k<kc} min(x_r[k], wp[k][c]); on the last
 * k block D = Sx + Sw - 2 D. wp: kc x 32, 64-byte aligned. */
static inline void l1_f32_avx512_tile(float *D, int64_t ldd, const float *wp,
                                      const float *const xr[F32_MR], int kc, int rows,
                                      __mmask16 m0, __mmask16 m1, int first, int last,
                                      const float *sx, __m512 sw0, __m512 sw1)
{
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00;
    __m512 c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    __m512 c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    __m512 c60 = c00, c61 = c00, c70 = c00, c71 = c00;
    for (int k = 0; k < kc; k++) {
        __m512 w0 = _mm512_load_ps(wp + k * F32_NR);
        __m512 w1 = _mm512_load_ps(wp + k * F32_NR + 16);
        F32_ROW(0); F32_ROW(1); F32_ROW(2); F32_ROW(3);
        F32_ROW(4); F32_ROW(5); F32_ROW(6); F32_ROW(7);
    }
    F32_OUT(0) F32_OUT(1) F32_OUT(2) F32_OUT(3)
    F32_OUT(4) F32_OUT(5) F32_OUT(6) F32_OUT(7)
}

/* the macro-kernel's hooks (kern_macro.h) */
#define F32_PANEL(cols)                                                         \
    __mmask16 m0 = mask16(cols), m1 = mask16((cols) - 16);                      \
    __m512 sw0 = _mm512_setzero_ps(), sw1 = sw0 /* Sw, complete on the last block */
#define F32_PACK(wp, W, m, n, j0, k0, kc) pack_f32_avx512(wp, W, m, n, j0, k0, kc, &sw0, &sw1)
#define F32_TILE(Dt, ldd, wp, xr, kc, rows, cols, first, last, sxt)             \
    l1_f32_avx512_tile(Dt, ldd, wp, xr, kc, rows, m0, m1, first, last, sxt, sw0, sw1)

KERN_MACRO(l1_f32_avx512_8x32, float, F32_MR, F32_NR, F32_KC, F32_G, rowsum_f32_avx512,
           F32_PANEL, F32_PACK, F32_TILE)

/* ---- f64 ----------------------------------------------------------------- */

#define F64_ROW(r)                                                              \
    do {                                                                        \
        __m512d xb = _mm512_set1_pd(xr[r][k]);                                  \
        c##r##0 = _mm512_add_pd(c##r##0, _mm512_abs_pd(_mm512_sub_pd(xb, w0))); \
        c##r##1 = _mm512_add_pd(c##r##1, _mm512_abs_pd(_mm512_sub_pd(xb, w1))); \
        c##r##2 = _mm512_add_pd(c##r##2, _mm512_abs_pd(_mm512_sub_pd(xb, w2))); \
    } while (0)

#define F64_IN(r)                                                               \
    __m512d c##r##0 = _mm512_setzero_pd(), c##r##1 = c##r##0, c##r##2 = c##r##0; \
    if (!first && rows > r) {                                                   \
        c##r##0 = _mm512_maskz_loadu_pd(m0, D + r * ldd);                       \
        c##r##1 = _mm512_maskz_loadu_pd(m1, D + r * ldd + 8);                   \
        c##r##2 = _mm512_maskz_loadu_pd(m2, D + r * ldd + 16);                  \
    }

#define F64_OUT(r)                                                              \
    if (rows > r) {                                                             \
        _mm512_mask_storeu_pd(D + r * ldd, m0, c##r##0);                        \
        _mm512_mask_storeu_pd(D + r * ldd + 8, m1, c##r##1);                    \
        _mm512_mask_storeu_pd(D + r * ldd + 16, m2, c##r##2);                   \
    }

/* D (rows x 24, masks m0..m2) = D (unless first) + sum_{k<kc} |x_r[k] - wp[k][c]|
 * added in k order. wp: kc x 24, 64-byte aligned. */
static inline void l1_f64_avx512_tile(double *D, int64_t ldd, const double *wp,
                                      const double *const xr[F64_MR], int kc, int rows,
                                      __mmask8 m0, __mmask8 m1, __mmask8 m2, int first)
{
    F64_IN(0) F64_IN(1) F64_IN(2) F64_IN(3)
    F64_IN(4) F64_IN(5) F64_IN(6) F64_IN(7)
    for (int k = 0; k < kc; k++) {
        __m512d w0 = _mm512_load_pd(wp + k * F64_NR);
        __m512d w1 = _mm512_load_pd(wp + k * F64_NR + 8);
        __m512d w2 = _mm512_load_pd(wp + k * F64_NR + 16);
        F64_ROW(0); F64_ROW(1); F64_ROW(2); F64_ROW(3);
        F64_ROW(4); F64_ROW(5); F64_ROW(6); F64_ROW(7);
    }
    F64_OUT(0) F64_OUT(1) F64_OUT(2) F64_OUT(3)
    F64_OUT(4) F64_OUT(5) F64_OUT(6) F64_OUT(7)
}

#define F64_PANEL(cols)                                                         \
    __mmask8 m0 = mask8(cols), m1 = mask8((cols) - 8), m2 = mask8((cols) - 16)
#define F64_PACK(wp, W, m, n, j0, k0, kc) kern_pack_f64(wp, W, m, n, j0, F64_NR, k0, kc)
#define F64_TILE(Dt, ldd, wp, xr, kc, rows, cols, first, last, sxt)             \
    l1_f64_avx512_tile(Dt, ldd, wp, xr, kc, rows, m0, m1, m2, first)

KERN_MACRO(l1_f64_avx512_8x24, double, F64_MR, F64_NR, F64_KC, 0, KERN_NO_ROWSUM,
           F64_PANEL, F64_PACK, F64_TILE)
