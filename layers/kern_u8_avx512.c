/*
 * kern_u8_avx512.c - exact u8 distance kernels, AVX-512 BW + VNNI.
 *
 *   l1_u8_avx512_4x4    sum_k |x_k - w_k| with vpsadbw: 64 byte differences
 *                       per instruction into 8 u64 lanes; 4 samples x 4
 *                       neurons of accumulators (16 zmm), n by 64, masked
 *                       tail (tails <= 16 bytes: 4 samples per register).
 *   l2sq_u8_avx512_4x4  sum_k (x_k - w_k)^2 = Sx2 + Sw2 - 2 sum_k x_k w_k, the
 *                       dot with vpdpbusd (u8 x s8, 64 products/instruction):
 *                       x . w = x . (w ^ 0x80) + 128 Sx, w ^ 0x80 = w - 128 as
 *                       s8. int32 arithmetic modulo 2^32: exact whenever the
 *                       result fits (n <= BNL_L2SQ_U8_MAX_N).
 *
 * Loops: group of JG neurons (their rows kept in L1) > 4 samples > 4 neurons;
 * l2sq first sums the rows of up to 256 samples (stack), then the same.
 * Tuning (this shared 2-core Sapphire Rapids, CPU-time rates): a register-only
 * vpsadbw + vpaddq loop peaks at 0.73-0.75 vpsadbw/cycle (the adds share port 5),
 * i.e. ~48 synapses/cycle, ~115 G/s per core at 2.4 GHz; l1_u8 reaches
 * ~98 G/s on a 256 x 256 x 784 tile (~85%). n = 768 / 784 / 832 (aligned
 * rows, tail) made no measurable difference, so rows are not repacked.
 * Rows past an edge repeat the last valid row; their results are not stored.
 * D: N x m (ldd >= m), W: m x n, X: N x n, row-major.
 */
#include <immintrin.h>
#include "kern_macro.h"

#define U8_JG_MAX 256      /* neurons per group (stack sums for l2sq) */
#define U8_HG 256          /* samples per group of row sums (l2sq) */
#define U8_L1_BYTES 24576  /* W group bytes aimed at L1 (48 KB) */

/* Neurons per group: about U8_L1_BYTES of W, a multiple of 4, in [4, 256]. */
static int64_t u8_group(int n)
{
    int64_t g = (U8_L1_BYTES / n) & ~(int64_t)3;
    if (g < 4) g = 4;
    if (g > U8_JG_MAX) g = U8_JG_MAX;
    return g;
}

/* Four 16 x int32 vectors a0..a3 of partial sums (one per neuron) -> one
 * vector whose 128-bit lanes hold [a0 a1 a2 a3] partials. */
static inline __m512i u8_pairs_d(__m512i a0, __m512i a1, __m512i a2, __m512i a3)
{
    __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(a0, a1), _mm512_unpackhi_epi32(a0, a1));
    __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(a2, a3), _mm512_unpackhi_epi32(a2, a3));
    return _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
}

/* Same for vpsadbw accumulators (8 x u64 lanes, each < 2^32). */
static inline __m512i u8_pairs_q(__m512i a0, __m512i a1, __m512i a2, __m512i a3)
{
    __m512i t01 = _mm512_or_si512(a0, _mm512_slli_epi64(a1, 32));
    __m512i t23 = _mm512_or_si512(a2, _mm512_slli_epi64(a3, 32));
    return _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
}

/* c0..c3 (one per sample, lanes of [4 neurons] partials) -> 128-bit lane r
 * of the result = sample r's 4 sums. */
static inline __m512i u8_lanes(__m512i c0, __m512i c1, __m512i c2, __m512i c3)
{
    __m512i e01 = _mm512_add_epi32(_mm512_shuffle_i64x2(c0, c1, _MM_SHUFFLE(1, 0, 1, 0)),
                                   _mm512_shuffle_i64x2(c0, c1, _MM_SHUFFLE(3, 2, 3, 2)));
    __m512i e23 = _mm512_add_epi32(_mm512_shuffle_i64x2(c2, c3, _MM_SHUFFLE(1, 0, 1, 0)),
                                   _mm512_shuffle_i64x2(c2, c3, _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm512_add_epi32(_mm512_shuffle_i64x2(e01, e23, _MM_SHUFFLE(2, 0, 2, 0)),
                            _mm512_shuffle_i64x2(e01, e23, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* Stores rows r < rows of the 4 x 4 tile f (lane r = sample r), cols neurons. */
static inline void u8_store4x4(int32_t *D, int64_t ldd, __m512i f, int rows, int cols)
{
    __mmask8 cm = (__mmask8)((1u << cols) - 1);
    _mm_mask_storeu_epi32(D, cm, _mm512_castsi512_si128(f));
    if (rows > 1) _mm_mask_storeu_epi32(D + ldd, cm, _mm512_extracti32x4_epi32(f, 1));
    if (rows > 2) _mm_mask_storeu_epi32(D + 2 * ldd, cm, _mm512_extracti32x4_epi32(f, 2));
    if (rows > 3) _mm_mask_storeu_epi32(D + 3 * ldd, cm, _mm512_extracti32x4_epi32(f, 3));
}

/* 4 x 4 accumulators: ACC(a<r><c>, x_r, w_c) over one 64-byte chunk at k;
 * W_PREP maps a loaded W chunk before use. */
#define U8_CHUNK(LOAD, ACC)                                                     \
    do {                                                                        \
        __m512i x0 = LOAD(xr[0] + k), x1 = LOAD(xr[1] + k);                     \
        __m512i x2 = LOAD(xr[2] + k), x3 = LOAD(xr[3] + k);                     \
        __m512i w;                                                              \
        w = W_PREP(LOAD(wr[0] + k));                                            \
        ACC(a00, x0, w); ACC(a10, x1, w); ACC(a20, x2, w); ACC(a30, x3, w);     \
        w = W_PREP(LOAD(wr[1] + k));                                            \
        ACC(a01, x0, w); ACC(a11, x1, w); ACC(a21, x2, w); ACC(a31, x3, w);     \
        w = W_PREP(LOAD(wr[2] + k));                                            \
        ACC(a02, x0, w); ACC(a12, x1, w); ACC(a22, x2, w); ACC(a32, x3, w);     \
        w = W_PREP(LOAD(wr[3] + k));                                            \
        ACC(a03, x0, w); ACC(a13, x1, w); ACC(a23, x2, w); ACC(a33, x3, w);     \
    } while (0)

#define U8_ACC_DECL                                                             \
    __m512i a00 = _mm512_setzero_si512(), a01 = a00, a02 = a00, a03 = a00;      \
    __m512i a10 = a00, a11 = a00, a12 = a00, a13 = a00;                         \
    __m512i a20 = a00, a21 = a00, a22 = a00, a23 = a00;                         \
    __m512i a30 = a00, a31 = a00, a32 = a00, a33 = a00

#define LOAD_FULL(p) _mm512_loadu_si512((const void *)(p))
#define LOAD_TAIL(p) _mm512_maskz_loadu_epi8(tail, (const void *)(p))

/* A tail of at most 16 bytes: the 4 samples' tails share one register (128-bit
 * lane r = sample r) against each neuron's tail broadcast to all 4 lanes, so
 * 4 instructions do what a masked 64-byte chunk does with 16 (n = 784 = 12 x
 * 64 + 16 is the MNIST case). TAIL_OP(x4, w4) -> per-lane partial sums,
 * combined by PAIRS into lane r = [d(r,0..3)] partials. */
#define U8_TAIL16(TAIL_OP, PAIRS, out)                                          \
    do {                                                                        \
        __mmask16 t16 = (__mmask16)((1u << (n - k)) - 1);                       \
        __m512i x4 = _mm512_castsi128_si512(_mm_maskz_loadu_epi8(t16, xr[0] + k)); \
        x4 = _mm512_inserti32x4(x4, _mm_maskz_loadu_epi8(t16, xr[1] + k), 1);   \
        x4 = _mm512_inserti32x4(x4, _mm_maskz_loadu_epi8(t16, xr[2] + k), 2);   \
        x4 = _mm512_inserti32x4(x4, _mm_maskz_loadu_epi8(t16, xr[3] + k), 3);   \
        __m512i t[4];                                                           \
        for (int c = 0; c < 4; c++)                                             \
            t[c] = TAIL_OP(x4, W_PREP(_mm512_broadcast_i32x4(                   \
                                   _mm_maskz_loadu_epi8(t16, wr[c] + k))));     \
        out = PAIRS(t[0], t[1], t[2], t[3]);                                    \
    } while (0)

/* ---- L1 ------------------------------------------------------------------ */

#define SAD_ACC(a, x, w) ((a) = _mm512_add_epi64((a), _mm512_sad_epu8((x), (w))))
#define W_PREP(w) (w)

/* 4 samples x 4 neurons, all n: returns lane r = [d(r,0..3)]. */
static inline __m512i l1_u8_tile(const uint8_t *const xr[4], const uint8_t *const wr[4], int n)
{
    U8_ACC_DECL;
    int k = 0;
    __m512i t4 = _mm512_setzero_si512();
    for (; k + 64 <= n; k += 64) U8_CHUNK(LOAD_FULL, SAD_ACC);
    if (k < n && n - k <= 16) {
        U8_TAIL16(_mm512_sad_epu8, u8_pairs_q, t4);
    } else if (k < n) {
        __mmask64 tail = _bzhi_u64(~0ULL, (unsigned)(n - k));
        U8_CHUNK(LOAD_TAIL, SAD_ACC);
    }
    return _mm512_add_epi32(t4, u8_lanes(u8_pairs_q(a00, a01, a02, a03), u8_pairs_q(a10, a11, a12, a13),
                                         u8_pairs_q(a20, a21, a22, a23), u8_pairs_q(a30, a31, a32, a33)));
}

#undef W_PREP

#define L1_U8_TILE(Dt, ldd, xr, wr, n, rows, cols) \
    u8_store4x4(Dt, ldd, l1_u8_tile(xr, wr, n), rows, cols)
KERN_MACRO_U8(l1_u8_avx512_4x4, u8_group, L1_U8_TILE)

/* ---- L2 squared ------------------------------------------------------------ */

#define W_PREP(w) _mm512_xor_si512((w), _mm512_set1_epi8((char)0x80))
#define VNNI_ACC(a, x, w) ((a) = _mm512_dpbusd_epi32((a), (x), (w)))
#define VNNI_DOT(x, w) _mm512_dpbusd_epi32(_mm512_setzero_si512(), (x), (w))

/* sum x and sum x^2 of one row (vectorised), modulo 2^32; shared with the
 * avx512vnni kernel (kern_impl.h). */
void u8_rowsums_avx512(const uint8_t *x, int n, uint32_t *s1, uint32_t *s2)
{
    __m512i z = _mm512_setzero_si512(), a = z, b = z;
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    int k = 0;
    for (; k + 64 <= n; k += 64) {
        __m512i v = _mm512_loadu_si512((const void *)(x + k));
        a = _mm512_add_epi64(a, _mm512_sad_epu8(v, z));
        b = _mm512_dpbusd_epi32(b, v, _mm512_xor_si512(v, flip)); /* x^2 - 128 x */
    }
    if (k < n) {
        __mmask64 tail = _bzhi_u64(~0ULL, (unsigned)(n - k));
        __m512i v = _mm512_maskz_loadu_epi8(tail, (const void *)(x + k));
        a = _mm512_add_epi64(a, _mm512_sad_epu8(v, z));
        b = _mm512_dpbusd_epi32(b, v, _mm512_xor_si512(v, flip)); /* 0 past n */
    }
    uint32_t sum = (uint32_t)_mm512_reduce_add_epi64(a);
    *s1 = sum;
    *s2 = (uint32_t)_mm512_reduce_add_epi32(b) + 128u * sum;
}

static inline __m512i l2sq_u8_tile(const uint8_t *const xr[4], const uint8_t *const wr[4], int n)
{
    U8_ACC_DECL;
    int k = 0;
    __m512i t4 = _mm512_setzero_si512();
    for (; k + 64 <= n; k += 64) U8_CHUNK(LOAD_FULL, VNNI_ACC);
    if (k < n && n - k <= 16) {
        U8_TAIL16(VNNI_DOT, u8_pairs_d, t4);
    } else if (k < n) {
        __mmask64 tail = _bzhi_u64(~0ULL, (unsigned)(n - k));
        U8_CHUNK(LOAD_TAIL, VNNI_ACC);
    }
    return _mm512_add_epi32(t4, u8_lanes(u8_pairs_d(a00, a01, a02, a03), u8_pairs_d(a10, a11, a12, a13),
                                         u8_pairs_d(a20, a21, a22, a23), u8_pairs_d(a30, a31, a32, a33)));
}

void l2sq_u8_avx512_4x4(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                        const uint8_t *X, int64_t N, int n)
{
    int64_t jg = u8_group(n);
    uint32_t sw2[U8_JG_MAX + 4]; /* sum w^2 of the group's neurons */
    uint32_t xs[U8_HG + 4];      /* Sx2 - 256 Sx of the group's samples */
    const __m512i lane_of = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    for (int64_t h0 = 0; h0 < N; h0 += U8_HG) {
        int64_t h1 = kern_min64(N, h0 + U8_HG);
        for (int64_t i = h0; i < h1; i++) {
            uint32_t s1, s2;
            u8_rowsums_avx512(X + i * (int64_t)n, n, &s1, &s2);
            xs[i - h0] = s2 - 256u * s1;
        }
        for (int r = 0; r < 4; r++) xs[h1 - h0 + r] = 0; /* edge lanes, not stored */
        for (int64_t g0 = 0; g0 < m; g0 += jg) {
            int64_t g1 = kern_min64(m, g0 + jg);
            for (int64_t j = g0; j < g1; j++) {
                uint32_t s1;
                u8_rowsums_avx512(W + j * (int64_t)n, n, &s1, &sw2[j - g0]);
            }
            for (int c = 0; c < 4; c++) sw2[g1 - g0 + c] = 0;
            for (int64_t i0 = h0; i0 < h1; i0 += 4) {
                int rows = (int)kern_min64(4, h1 - i0);
                const uint8_t *xr[4];
                for (int r = 0; r < 4; r++) xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n;
                /* lane r of xsv = xs of sample r in all 4 dwords */
                __m512i xsv = _mm512_permutexvar_epi32(
                    lane_of, _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)&xs[i0 - h0])));
                for (int64_t j0 = g0; j0 < g1; j0 += 4) {
                    int cols = (int)kern_min64(4, g1 - j0);
                    const uint8_t *wr[4];
                    for (int c = 0; c < 4; c++) wr[c] = W + (j0 + (c < cols ? c : cols - 1)) * (int64_t)n;
                    __m512i dot = l2sq_u8_tile(xr, wr, n); /* sum x (w - 128) */
                    __m512i swv = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)&sw2[j0 - g0]));
                    __m512i d = _mm512_sub_epi32(_mm512_add_epi32(xsv, swv), _mm512_slli_epi32(dot, 1));
                    u8_store4x4(D + i0 * ldd + j0, ldd, d, rows, cols);
                }
            }
        }
    }
}
