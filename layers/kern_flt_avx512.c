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
 * Tried (m = N = 512, n = 784, 1 thread, see tests/bench_kernels.c): see
 * the tuning note at the end of this file.
 * D: N x m (ldd >= m), W: m x n, X: N x n, row-major. Finite inputs.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define F32_MR 8
#define F32_NR 32
#define F32_KC 256 /* panel 256 x 32 floats = 32 KB, L1 */
#define F32_G 512  /* samples / neurons per group of row sums (stack) */

#define F64_MR 8
#define F64_NR 24
#define F64_KC 128 /* panel 128 x 24 doubles = 24 KB */

static inline __mmask16 mask16(int c) { return c <= 0 ? 0 : c >= 16 ? 0xFFFF : (__mmask16)((1u << c) - 1); }
static inline __mmask8 mask8(int c) { return c <= 0 ? 0 : c >= 8 ? 0xFF : (__mmask8)((1u << c) - 1); }

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
            __m512 s = _mm512_set1_ps(sx[r]);                                   \
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

void l1_f32_avx512_8x32(float *D, int64_t ldd, const float *W, int64_t m,
                        const float *X, int64_t N, int n)
{
    _Alignas(64) float wp[F32_KC * F32_NR]; /* KC x NR, k-major */
    float sw[F32_G + F32_NR], sx[F32_G];     /* row sums of the groups */
    for (int64_t g0 = 0; g0 < m; g0 += F32_G) {
        int64_t g1 = kern_min64(m, g0 + F32_G);
        kern_rowsum_f32_kc(sw, W + g0 * (int64_t)n, g1 - g0, n, F32_KC);
        for (int c = 0; c < F32_NR; c++) sw[g1 - g0 + c] = 0.0f;
        for (int64_t h0 = 0; h0 < N; h0 += F32_G) {
            int64_t h1 = kern_min64(N, h0 + F32_G);
            kern_rowsum_f32_kc(sx, X + h0 * (int64_t)n, h1 - h0, n, F32_KC);
            for (int64_t j0 = g0; j0 < g1; j0 += F32_NR) {
                int cols = (int)kern_min64(F32_NR, g1 - j0);
                __mmask16 m0 = mask16(cols), m1 = mask16(cols - 16);
                __m512 sw0 = _mm512_loadu_ps(sw + (j0 - g0));
                __m512 sw1 = _mm512_loadu_ps(sw + (j0 - g0) + 16);
                for (int k0 = 0; k0 < n; k0 += F32_KC) {
                    int kc = (int)kern_min64(F32_KC, n - k0);
                    kern_pack_f32(wp, W, m, n, j0, F32_NR, k0, kc);
                    for (int64_t i0 = h0; i0 < h1; i0 += F32_MR) {
                        int rows = (int)kern_min64(F32_MR, h1 - i0);
                        const float *xr[F32_MR];
                        for (int r = 0; r < F32_MR; r++)
                            xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n + k0;
                        l1_f32_avx512_tile(D + i0 * ldd + j0, ldd, wp, xr, kc, rows, m0, m1,
                                           k0 == 0, k0 + kc >= n, sx + (i0 - h0), sw0, sw1);
                    }
                }
            }
        }
    }
}

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

void l1_f64_avx512_8x24(double *D, int64_t ldd, const double *W, int64_t m,
                        const double *X, int64_t N, int n)
{
    _Alignas(64) double wp[F64_KC * F64_NR]; /* KC x NR, k-major */
    for (int64_t j0 = 0; j0 < m; j0 += F64_NR) {
        int cols = (int)kern_min64(F64_NR, m - j0);
        __mmask8 m0 = mask8(cols), m1 = mask8(cols - 8), m2 = mask8(cols - 16);
        for (int k0 = 0; k0 < n; k0 += F64_KC) {
            int kc = (int)kern_min64(F64_KC, n - k0);
            kern_pack_f64(wp, W, m, n, j0, F64_NR, k0, kc);
            for (int64_t i0 = 0; i0 < N; i0 += F64_MR) {
                int rows = (int)kern_min64(F64_MR, N - i0);
                const double *xr[F64_MR];
                for (int r = 0; r < F64_MR; r++)
                    xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n + k0;
                l1_f64_avx512_tile(D + i0 * ldd + j0, ldd, wp, xr, kc, rows, m0, m1, m2,
                                   k0 == 0);
            }
        }
    }
}
