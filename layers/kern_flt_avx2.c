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
#include "kern_macro.h"

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

/* In-register 8 x 8 transpose: r[i] = row i -> r[k] = column k (24 shuffles). */
static inline __attribute__((always_inline)) void xpose8(__m256 r[8])
{
    __m256 t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) { /* u[4i+c], 128-bit lane L: rows 4i..4i+3 of column 4L+c */
        u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int c = 0; c < 4; c++) {
        r[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
        r[c + 4] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
    }
}

/* Columns k0..k0+kc-1 of 8 rows as k-major vectors: EACH(k, col) in k order. */
#define XPOSE_ROWS8(rows8, k0, kc, EACH)                                        \
    for (int kk = 0; kk < (kc); kk += 8) {                                      \
        int kv = (kc) - kk < 8 ? (kc) - kk : 8;                                 \
        __m256i lm = lanes32(kv);                                               \
        __m256 r[8];                                                            \
        for (int i = 0; i < 8; i++) r[i] = _mm256_maskload_ps((rows8)[i] + (k0) + kk, lm); \
        xpose8(r);                                                              \
        for (int q = 0; q < kv; q++) EACH(kk + q, r[q]);                        \
    }

static inline void rows8(const float *p[8], const float *A, int64_t i0, int64_t rows, int n)
{
    for (int i = 0; i < 8; i++) p[i] = A + kern_min64(i0 + i, rows - 1) * (int64_t)n;
}

/* out[i] = sum_k X[i][k] in the kernel's float order (as kern_flt_avx512.c). */
static void rowsum_f32_avx2(float *out, const float *X, int64_t rows, int n)
{
    for (int64_t i0 = 0; i0 < rows; i0 += 8) {
        const float *p[8];
        rows8(p, X, i0, rows, n);
        __m256 t = _mm256_setzero_ps();
        for (int k0 = 0; k0 < n; k0 += A2F_KC) {
            int kc = (int)kern_min64(A2F_KC, n - k0);
            __m256 b = _mm256_setzero_ps();
#define RS_ADD(k, col) (b = _mm256_add_ps(b, (col)))
            XPOSE_ROWS8(p, k0, kc, RS_ADD)
#undef RS_ADD
            t = _mm256_add_ps(t, b);
        }
        _mm256_maskstore_ps(out + i0, lanes32((int)kern_min64(8, rows - i0)), t);
    }
}

/* wp: kc x 16 panel of neurons j0..j0+15 (rows past m repeat the last);
 * *s0, *s1 += the block's per-neuron sums in the kernel's order. */
static void pack_f32_avx2(float *wp, const float *W, int64_t m, int n, int64_t j0, int k0,
                          int kc, __m256 *s0, __m256 *s1)
{
    for (int h = 0; h < 2; h++) {
        const float *p[8];
        rows8(p, W, j0 + 8 * h, m, n);
        __m256 b = _mm256_setzero_ps();
        float *dst = wp + 8 * h;
#define PK_ADD(k, col) (_mm256_store_ps(dst + (int64_t)(k) * A2F_NR, (col)), b = _mm256_add_ps(b, (col)))
        XPOSE_ROWS8(p, k0, kc, PK_ADD)
#undef PK_ADD
        if (h == 0) *s0 = _mm256_add_ps(*s0, b);
        else *s1 = _mm256_add_ps(*s1, b);
    }
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

/* the macro-kernel's hooks (kern_macro.h) */
#define A2F_PANEL(cols)                                                         \
    __m256i k0m = lanes32(cols), k1m = lanes32((cols) - 8);                     \
    __m256 sw0 = _mm256_setzero_ps(), sw1 = sw0 /* Sw, complete on the last block */
#define A2F_PACK(wp, W, m, n, j0, k0, kc) pack_f32_avx2(wp, W, m, n, j0, k0, kc, &sw0, &sw1)
#define A2F_TILE(Dt, ldd, wp, xr, kc, rows, cols, first, last, sxt)             \
    l1_f32_avx2_tile(Dt, ldd, wp, xr, kc, rows, k0m, k1m, first, last, sxt, sw0, sw1)

KERN_MACRO(l1_f32_avx2_6x16, float, A2F_MR, A2F_NR, A2F_KC, A2F_G, rowsum_f32_avx2,
           A2F_PANEL, A2F_PACK, A2F_TILE)

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

#define A2D_PANEL(cols) __m256i k0m = lanes64(cols), k1m = lanes64((cols) - 4)
#define A2D_PACK(wp, W, m, n, j0, k0, kc) kern_pack_f64(wp, W, m, n, j0, A2D_NR, k0, kc)
#define A2D_TILE(Dt, ldd, wp, xr, kc, rows, cols, first, last, sxt)             \
    l1_f64_avx2_tile(Dt, ldd, wp, xr, kc, rows, k0m, k1m, first)

KERN_MACRO(l1_f64_avx2_6x8, double, A2D_MR, A2D_NR, A2D_KC, 0, KERN_NO_ROWSUM,
           A2D_PANEL, A2D_PACK, A2D_TILE)
