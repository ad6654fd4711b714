/*
 * kern_u8gemm_avx2.c - exact u8 squared L2 and dot as a packed int16 GEMM
 * on AVX2 (the avx2 tier):
 *
 *   l2sq_u8_avx2_4x16   D = Sx2 + Sw2 - 2 x.w
 *   dot_u8_avx2_4x16    D = x.w
 *
 * Bytes widened to 16 bits once, outside the micro-kernel: per pair of k,
 * one broadcast of a sample's two values (x_k | x_k+1 << 16) against 2
 * vectors of 8 neurons x the same two k from a packed panel, vpmaddwd (two
 * products <= 255^2 each, their sum fits int32) and vpaddd: a register
 * tile of 4 samples x 16 neurons, 8 ymm accumulators (4 x 24 needs 12 and
 * a temporary per vpmaddwd: one accumulator spilled; 3 x 24 is no
 * faster). The 4 x 4 kernel before it widened both operands for every
 * pair of rows: 0.133 s for the 4096^2 x 784 layer's products on a Zen 4
 * (2 threads), this one 0.091 s, 70 % of its vpmaddwd probe. int32 modulo
 * 2^32: exact while D fits (n <=
 * BNL_L2SQ_U8_MAX_N). Loops: samples by A2G_HG (their k block widened on
 * the stack) > k by A2G_KP pairs > neurons by 16 (the panel) > samples by
 * 4, adding into D after the first k block. Rows past an edge repeat the
 * last valid row and are not stored; neurons past m are zero in the panel
 * and masked at the store. D: N x m (ldd >= m), W: m x n, X: N x n,
 * row-major.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define A2G_MR 4
#define A2G_NR 16
#define A2G_KP 64  /* k pairs per block: a 16 x 256-byte panel, 4 KB */
#define A2G_HG 256 /* samples per group: their block, 64 KB on the stack */

/* sum of x_k^2 over a row, modulo 2^32 */
static uint32_t a2g_sumsq(const uint8_t *x, int n)
{
    __m256i a = _mm256_setzero_si256();
    int k = 0;
    for (; k + 16 <= n; k += 16) {
        __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(x + k)));
        a = _mm256_add_epi32(a, _mm256_madd_epi16(v, v));
    }
    uint32_t t[8], s = 0;
    _mm256_storeu_si256((__m256i *)t, a);
    for (int l = 0; l < 8; l++) s += t[l];
    for (; k < n; k++) s += (uint32_t)x[k] * x[k];
    return s;
}

/* k pairs p0 .. p0 + kp - 1 of one row as 32-bit pairs x_2p | x_2p+1 << 16
 * (0 past n): out[0 .. kp - 1] */
static void a2g_pairs(uint32_t *out, const uint8_t *x, int n, int p0, int kp)
{
    const uint8_t *s = x + 2 * p0;
    int full = n / 2 - p0; /* pairs with both values */
    if (full > kp) full = kp;
    int p = 0;
    for (; p + 8 <= full; p += 8)
        _mm256_storeu_si256((__m256i *)(out + p),
                            _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(s + 2 * p))));
    for (; p < kp; p++) {
        int k = 2 * (p0 + p);
        uint32_t lo = k < n ? x[k] : 0, hi = k + 1 < n ? x[k + 1] : 0;
        out[p] = lo | hi << 16;
    }
}

#define A2G_ROW(r)                                                              \
    b = _mm256_set1_epi32((int32_t)x##r[p]);                                    \
    c##r##0 = _mm256_add_epi32(c##r##0, _mm256_madd_epi16(b, w0));              \
    c##r##1 = _mm256_add_epi32(c##r##1, _mm256_madd_epi16(b, w1))

#define A2G_STORE(r)                                                            \
    if ((r) < rows) {                                                           \
        int32_t *d = D + (r) * ldd;                                             \
        __m256i xv = _mm256_set1_epi32((int32_t)xs[r]);                         \
        A2G_STORE1(d, c##r##0, 0, xv); A2G_STORE1(d, c##r##1, 1, xv);           \
    }
/* full tiles by plain loads and stores: vpmaskmovd stores are slow on AMD
 * (the kernel 1.2x slower on a Zen 4 with masks everywhere) */
#define A2G_STORE1(d, acc, v, xv)                                               \
    do {                                                                        \
        __m256i a = (acc), *dv = (__m256i *)((d) + 8 * (v));                    \
        if (!first)                                                             \
            a = _mm256_add_epi32(a, full ? _mm256_loadu_si256(dv)               \
                                         : _mm256_maskload_epi32((d) + 8 * (v), cm[v])); \
        if (last && !dot)                                                       \
            a = _mm256_sub_epi32(_mm256_add_epi32(xv, _mm256_loadu_si256(      \
                                     (const __m256i *)(sw + 8 * (v)))),         \
                                 _mm256_slli_epi32(a, 1));                      \
        if (full)                                                               \
            _mm256_storeu_si256(dv, a);                                         \
        else                                                                    \
            _mm256_maskstore_epi32((d) + 8 * (v), cm[v], a);                    \
    } while (0)

/* D tile (rows x cols of 4 x 16) over kp pairs of the panel wp (kp x 16)
 * and the sample rows xr (their pairs); finished on the last k block (L2:
 * xs + sw - 2 a). */
static void a2g_tile(int32_t *D, int64_t ldd, const uint32_t *wp,
                     const uint32_t *const xr[A2G_MR], int kp, int rows, int cols, int first,
                     int last, const uint32_t *xs, const uint32_t *sw, int dot)
{
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00;
    __m256i c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    const uint32_t *x0 = xr[0], *x1 = xr[1], *x2 = xr[2], *x3 = xr[3];
    for (int p = 0; p < kp; p++) {
        const uint32_t *wq = wp + (size_t)p * A2G_NR;
        __m256i w0 = _mm256_load_si256((const __m256i *)wq);
        __m256i w1 = _mm256_load_si256((const __m256i *)(wq + 8));
        __m256i b;
        A2G_ROW(0); A2G_ROW(1); A2G_ROW(2); A2G_ROW(3);
    }
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const int full = cols == A2G_NR;
    __m256i cm[2]; /* lane < cols - 8 v: all ones */
    for (int v = 0; v < 2; v++)
        cm[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols - 8 * v), lane);
    A2G_STORE(0) A2G_STORE(1) A2G_STORE(2) A2G_STORE(3)
}

static void a2g_gemm(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X,
                     int64_t N, int n, int dot)
{
    _Alignas(32) uint32_t xb[A2G_HG * A2G_KP]; /* the group's pairs, ld kp */
    _Alignas(32) uint32_t wp[A2G_KP * A2G_NR]; /* pairs x 16 neurons */
    _Alignas(32) uint32_t sw[A2G_NR];          /* Sw2 of the panel (L2) */
    uint32_t xs[A2G_HG + A2G_MR];              /* Sx2 of the group (L2) */
    const int np = (n + 1) / 2, nb = (np + A2G_KP - 1) / A2G_KP;
    for (int64_t h0 = 0; h0 < N; h0 += A2G_HG) {
        int64_t h1 = kern_min64(N, h0 + A2G_HG);
        for (int64_t i = h0; i < h1; i++)
            xs[i - h0] = dot ? 0 : a2g_sumsq(X + i * (int64_t)n, n);
        for (int b = 0; b < nb; b++) {
            int p0 = b * A2G_KP, kp = (int)kern_min64(A2G_KP, np - p0), last = b == nb - 1;
            for (int64_t i = h0; i < h1; i++)
                a2g_pairs(xb + (i - h0) * kp, X + i * (int64_t)n, n, p0, kp);
            for (int64_t j0 = 0; j0 < m; j0 += A2G_NR) {
                int cols = (int)kern_min64(A2G_NR, m - j0);
                for (int c = 0; c < A2G_NR; c++) {
                    uint32_t col[A2G_KP];
                    if (c < cols)
                        a2g_pairs(col, W + (j0 + c) * (int64_t)n, n, p0, kp);
                    for (int p = 0; p < kp; p++)
                        wp[p * A2G_NR + c] = c < cols ? col[p] : 0;
                    sw[c] = last && !dot && c < cols ? a2g_sumsq(W + (j0 + c) * (int64_t)n, n)
                                                     : 0;
                }
                for (int64_t i0 = h0; i0 < h1; i0 += A2G_MR) {
                    int rows = (int)kern_min64(A2G_MR, h1 - i0);
                    const uint32_t *xr[A2G_MR];
                    for (int r = 0; r < A2G_MR; r++)
                        xr[r] = xb + (i0 - h0 + (r < rows ? r : rows - 1)) * kp;
                    a2g_tile(D + i0 * ldd + j0, ldd, wp, xr, kp, rows, cols, b == 0, last,
                             xs + (i0 - h0), sw, dot);
                }
            }
        }
    }
}

void l2sq_u8_avx2_4x16(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                       const uint8_t *X, int64_t N, int n)
{
    a2g_gemm(D, ldd, W, m, X, N, n, 0);
}

void dot_u8_avx2_4x16(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                      const uint8_t *X, int64_t N, int n)
{
    a2g_gemm(D, ldd, W, m, X, N, n, 1);
}
