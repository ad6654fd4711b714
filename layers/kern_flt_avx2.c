/*
 * kern_flt_avx2.c - float L1 distance kernels, AVX2 (same schemes as
 * kern_flt_avx512.c with 8 / 4 lanes and 16 ymm registers).
 *
 *   l1_f32_avx2_6x16  Sx + Sw - 2 sum_k min(x_k, w_k); 2 vectors (16 neurons)
 *                     x 6 samples = 12 ymm accumulators; blocked by KC.
 *   l1_f64_avx2_6x8   sub, abs, add in k order (bit-exact); 2 vectors
 *                     (8 neurons) x 6 samples = 12 ymm accumulators.
 *
 * D: N x m (ldd >= m), W: m x n, X: N x n, row-major. Finite inputs.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define A2F_MR 6
#define A2F_NR 16
#define A2F_KC 256 /* panel 256 x 16 floats = 16 KB */
#define A2F_G 512

#define A2D_MR 6
#define A2D_NR 8
#define A2D_KC 256 /* panel 256 x 8 doubles = 16 KB */

/* Lane masks for vmaskmov: lane l active when l < c (lanes of 32 / 64 bits). */
static inline __m256i lanes32(int c)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(c), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline __m256i lanes64(int c)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(c), _mm256_setr_epi64x(0, 1, 2, 3));
}

/* ---- f32 ----------------------------------------------------------------- */

#define A2F_ROW(r)                                                              \
    do {                                                                        \
        __m256 xb = _mm256_broadcast_ss(xr[r] + k);                             \
        c##r##0 = _mm256_add_ps(c##r##0, _mm256_min_ps(w0, xb));                \
        c##r##1 = _mm256_add_ps(c##r##1, _mm256_min_ps(w1, xb));                \
    } while (0)

#define A2F_OUT(r)                                                              \
    if (rows > r) {                                                             \
        float *d = D + r * ldd;                                                 \
        if (!first) {                                                           \
            c##r##0 = _mm256_add_ps(c##r##0, _mm256_maskload_ps(d, k0m));       \
            c##r##1 = _mm256_add_ps(c##r##1, _mm256_maskload_ps(d + 8, k1m));   \
        }                                                                       \
        if (last) {                                                             \
            __m256 s = _mm256_set1_ps(sx[r]), two = _mm256_set1_ps(2.0f);       \
            c##r##0 = _mm256_sub_ps(_mm256_add_ps(s, sw0), _mm256_mul_ps(two, c##r##0)); \
            c##r##1 = _mm256_sub_ps(_mm256_add_ps(s, sw1), _mm256_mul_ps(two, c##r##1)); \
        }                                                                       \
        _mm256_maskstore_ps(d, k0m, c##r##0);                                   \
        _mm256_maskstore_ps(d + 8, k1m, c##r##1);                               \
    }

static inline void l1_f32_avx2_tile(float *D, int64_t ldd, const float *wp,
                                    const float *const xr[A2F_MR], int kc, int rows,
                                    __m256i k0m, __m256i k1m, int first, int last,
                                    const float *sx, __m256 sw0, __m256 sw1)
{
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00;
    __m256 c20 = c00, c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00;
    __m256 c50 = c00, c51 = c00;
    for (int k = 0; k < kc; k++) {
        __m256 w0 = _mm256_load_ps(wp + k * A2F_NR);
        __m256 w1 = _mm256_load_ps(wp + k * A2F_NR + 8);
        A2F_ROW(0); A2F_ROW(1); A2F_ROW(2); A2F_ROW(3); A2F_ROW(4); A2F_ROW(5);
    }
    A2F_OUT(0) A2F_OUT(1) A2F_OUT(2) A2F_OUT(3) A2F_OUT(4) A2F_OUT(5)
}

void l1_f32_avx2_6x16(float *D, int64_t ldd, const float *W, int64_t m,
                      const float *X, int64_t N, int n)
{
    _Alignas(64) float wp[A2F_KC * A2F_NR];
    float sw[A2F_G + A2F_NR], sx[A2F_G];
    for (int64_t g0 = 0; g0 < m; g0 += A2F_G) {
        int64_t g1 = kern_min64(m, g0 + A2F_G);
        kern_rowsum_f32_kc(sw, W + g0 * (int64_t)n, g1 - g0, n, A2F_KC);
        for (int c = 0; c < A2F_NR; c++) sw[g1 - g0 + c] = 0.0f;
        for (int64_t h0 = 0; h0 < N; h0 += A2F_G) {
            int64_t h1 = kern_min64(N, h0 + A2F_G);
            kern_rowsum_f32_kc(sx, X + h0 * (int64_t)n, h1 - h0, n, A2F_KC);
            for (int64_t j0 = g0; j0 < g1; j0 += A2F_NR) {
                int cols = (int)kern_min64(A2F_NR, g1 - j0);
                __m256i k0m = lanes32(cols), k1m = lanes32(cols - 8);
                __m256 sw0 = _mm256_loadu_ps(sw + (j0 - g0));
                __m256 sw1 = _mm256_loadu_ps(sw + (j0 - g0) + 8);
                for (int k0 = 0; k0 < n; k0 += A2F_KC) {
                    int kc = (int)kern_min64(A2F_KC, n - k0);
                    kern_pack_f32(wp, W, m, n, j0, A2F_NR, k0, kc);
                    for (int64_t i0 = h0; i0 < h1; i0 += A2F_MR) {
                        int rows = (int)kern_min64(A2F_MR, h1 - i0);
                        const float *xr[A2F_MR];
                        for (int r = 0; r < A2F_MR; r++)
                            xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n + k0;
                        l1_f32_avx2_tile(D + i0 * ldd + j0, ldd, wp, xr, kc, rows, k0m, k1m,
                                         k0 == 0, k0 + kc >= n, sx + (i0 - h0), sw0, sw1);
                    }
                }
            }
        }
    }
}

/* ---- f64 ----------------------------------------------------------------- */

#define A2D_ROW(r)                                                              \
    do {                                                                        \
        __m256d xb = _mm256_broadcast_sd(xr[r] + k);                            \
        c##r##0 = _mm256_add_pd(c##r##0, _mm256_andnot_pd(sign, _mm256_sub_pd(xb, w0))); \
        c##r##1 = _mm256_add_pd(c##r##1, _mm256_andnot_pd(sign, _mm256_sub_pd(xb, w1))); \
    } while (0)

#define A2D_IN(r)                                                               \
    __m256d c##r##0 = _mm256_setzero_pd(), c##r##1 = c##r##0;                   \
    if (!first && rows > r) {                                                   \
        c##r##0 = _mm256_maskload_pd(D + r * ldd, k0m);                         \
        c##r##1 = _mm256_maskload_pd(D + r * ldd + 4, k1m);                     \
    }

#define A2D_OUT(r)                                                              \
    if (rows > r) {                                                             \
        _mm256_maskstore_pd(D + r * ldd, k0m, c##r##0);                         \
        _mm256_maskstore_pd(D + r * ldd + 4, k1m, c##r##1);                     \
    }

static inline void l1_f64_avx2_tile(double *D, int64_t ldd, const double *wp,
                                    const double *const xr[A2D_MR], int kc, int rows,
                                    __m256i k0m, __m256i k1m, int first)
{
    const __m256d sign = _mm256_set1_pd(-0.0);
    A2D_IN(0) A2D_IN(1) A2D_IN(2) A2D_IN(3) A2D_IN(4) A2D_IN(5)
    for (int k = 0; k < kc; k++) {
        __m256d w0 = _mm256_load_pd(wp + k * A2D_NR);
        __m256d w1 = _mm256_load_pd(wp + k * A2D_NR + 4);
        A2D_ROW(0); A2D_ROW(1); A2D_ROW(2); A2D_ROW(3); A2D_ROW(4); A2D_ROW(5);
    }
    A2D_OUT(0) A2D_OUT(1) A2D_OUT(2) A2D_OUT(3) A2D_OUT(4) A2D_OUT(5)
}

void l1_f64_avx2_6x8(double *D, int64_t ldd, const double *W, int64_t m,
                     const double *X, int64_t N, int n)
{
    _Alignas(64) double wp[A2D_KC * A2D_NR];
    for (int64_t j0 = 0; j0 < m; j0 += A2D_NR) {
        int cols = (int)kern_min64(A2D_NR, m - j0);
        __m256i k0m = lanes64(cols), k1m = lanes64(cols - 4);
        for (int k0 = 0; k0 < n; k0 += A2D_KC) {
            int kc = (int)kern_min64(A2D_KC, n - k0);
            kern_pack_f64(wp, W, m, n, j0, A2D_NR, k0, kc);
            for (int64_t i0 = 0; i0 < N; i0 += A2D_MR) {
                int rows = (int)kern_min64(A2D_MR, N - i0);
                const double *xr[A2D_MR];
                for (int r = 0; r < A2D_MR; r++)
                    xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n + k0;
                l1_f64_avx2_tile(D + i0 * ldd + j0, ldd, wp, xr, kc, rows, k0m, k1m, k0 == 0);
            }
        }
    }
}
