/*
 * kern_u8_avx2.c - exact u8 distance kernels, AVX2.
 *
 *   l1_u8_avx2_4x4    vpsadbw on 32 bytes into 4 u64 lanes; 4 samples x 4
 *                     neurons = 16 ymm accumulators; n by 32.
 * (L2 and dot: the packed int16 GEMM of kern_u8gemm_avx2.c.)
 *
 * The last n % 32 bytes of the 8 rows of a tile are copied into zeroed
 * 32-byte buffers (|0 - 0| = 0, 0 * 0 = 0). Loops: group of neurons (about
 * 24 KB of W, L1) > 4 samples > 4 neurons; rows past an edge repeat the last
 * valid row and are not stored.
 * D: N x m (ldd >= m), W: m x n, X: N x n, row-major.
 */
#include <immintrin.h>
#include "kern_macro.h"

#define A2U_JG_MAX 256
#define A2U_L1_BYTES 24576

static int64_t a2u_group(int n)
{
    int64_t g = (A2U_L1_BYTES / n) & ~(int64_t)3;
    if (g < 4) g = 4;
    if (g > A2U_JG_MAX) g = A2U_JG_MAX;
    return g;
}

/* Four vectors of 8 x int32 partial sums (one per neuron) -> [a0 a1 a2 a3]. */
static inline __m128i a2u_sum4(__m256i t01, __m256i t23)
{
    __m256i c = _mm256_add_epi32(_mm256_unpacklo_epi64(t01, t23), _mm256_unpackhi_epi64(t01, t23));
    return _mm_add_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
}
static inline __m128i a2u_sum4_q(__m256i a0, __m256i a1, __m256i a2, __m256i a3)
{
    return a2u_sum4(_mm256_or_si256(a0, _mm256_slli_epi64(a1, 32)),
                    _mm256_or_si256(a2, _mm256_slli_epi64(a3, 32)));
}
static inline void a2u_store(int32_t *d, __m128i v, int cols)
{
    if (cols == 4) _mm_storeu_si128((__m128i *)d, v);
    else {
        int32_t t[4];
        _mm_storeu_si128((__m128i *)t, v);
        for (int c = 0; c < cols; c++) d[c] = t[c];
    }
}

#define A2U_DECL                                                                \
    __m256i a00 = _mm256_setzero_si256(), a01 = a00, a02 = a00, a03 = a00;      \
    __m256i a10 = a00, a11 = a00, a12 = a00, a13 = a00;                         \
    __m256i a20 = a00, a21 = a00, a22 = a00, a23 = a00;                         \
    __m256i a30 = a00, a31 = a00, a32 = a00, a33 = a00

/* ACC(a<r><c>, x_r, w_c) for the 32 bytes at xp[r] + k, wp[c] + k. */
#define A2U_CHUNK(ACC, xp, wp, k)                                               \
    do {                                                                        \
        __m256i x0 = _mm256_loadu_si256((const __m256i *)(xp[0] + k));          \
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(xp[1] + k));          \
        __m256i x2 = _mm256_loadu_si256((const __m256i *)(xp[2] + k));          \
        __m256i x3 = _mm256_loadu_si256((const __m256i *)(xp[3] + k));          \
        __m256i w;                                                              \
        w = _mm256_loadu_si256((const __m256i *)(wp[0] + k));                   \
        ACC(a00, x0, w); ACC(a10, x1, w); ACC(a20, x2, w); ACC(a30, x3, w);     \
        w = _mm256_loadu_si256((const __m256i *)(wp[1] + k));                   \
        ACC(a01, x0, w); ACC(a11, x1, w); ACC(a21, x2, w); ACC(a31, x3, w);     \
        w = _mm256_loadu_si256((const __m256i *)(wp[2] + k));                   \
        ACC(a02, x0, w); ACC(a12, x1, w); ACC(a22, x2, w); ACC(a32, x3, w);     \
        w = _mm256_loadu_si256((const __m256i *)(wp[3] + k));                   \
        ACC(a03, x0, w); ACC(a13, x1, w); ACC(a23, x2, w); ACC(a33, x3, w);     \
    } while (0)

/* Runs the full chunks, then the tail from zero-padded copies. */
#define A2U_LOOP(ACC)                                                           \
    do {                                                                        \
        int k = 0;                                                              \
        for (; k + 32 <= n; k += 32) A2U_CHUNK(ACC, xr, wr, k);                 \
        if (k < n) {                                                            \
            uint8_t tb[8][32];                                                  \
            const uint8_t *tx[4], *tw[4];                                       \
            memset(tb, 0, sizeof tb);                                           \
            for (int r = 0; r < 4; r++) {                                       \
                memcpy(tb[r], xr[r] + k, (size_t)(n - k));                      \
                memcpy(tb[4 + r], wr[r] + k, (size_t)(n - k));                  \
                tx[r] = tb[r];                                                  \
                tw[r] = tb[4 + r];                                              \
            }                                                                   \
            A2U_CHUNK(ACC, tx, tw, 0);                                          \
        }                                                                       \
    } while (0)

/* sad of 32 bytes into 4 u64 lanes */
#define A2U_SAD(a, x, w) ((a) = _mm256_add_epi64((a), _mm256_sad_epu8((x), (w))))
static void l1_u8_avx2_tile(int32_t *D, int64_t ldd, const uint8_t *const xr[4],
                            const uint8_t *const wr[4], int n, int rows, int cols)
{
    A2U_DECL;
    A2U_LOOP(A2U_SAD);
    __m128i s[4] = {a2u_sum4_q(a00, a01, a02, a03), a2u_sum4_q(a10, a11, a12, a13),
                    a2u_sum4_q(a20, a21, a22, a23), a2u_sum4_q(a30, a31, a32, a33)};
    for (int r = 0; r < rows; r++) a2u_store(D + r * ldd, s[r], cols);
}

KERN_MACRO_U8(l1_u8_avx2_4x4, a2u_group, l1_u8_avx2_tile)
