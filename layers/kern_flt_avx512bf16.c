/*
 * kern_flt_avx512bf16.c - the GEMM of a bf16 f32 layer (--precision bf16)
 * on AVX-512 BF16 (the avx512bf16 tier; BLIS shape, as the avx512vnni u8
 * kernel): C = alpha X W^T with vdpbf16ps, 2 bf16 products per f32 lane,
 * accumulated in f32.
 *
 *   dot_bf16_avx512bf16_8x48   register tile of 8 samples x 48 neurons
 *                              (24 zmm of f32 sums); per 2 k, 3 vectors of
 *                              16 neurons x 2 bf16 from a packed panel
 *                              (kern_pack4_avx512) against each sample's pair
 *                              broadcast; k blocks of VB_KU pairs.
 *
 * The operands are bf16 already (the engine rounds X and W once, RNE, as
 * round_hd.h, rows padded with a zero to even n2), so every product is
 * that of the reference's rounded operands, exact in f32 (8 x 8 bits);
 * only the order of the f32 sums differs, and vdpbf16ps flushes subnormal
 * inputs and results to zero (DAZ/FTZ). Error bound for the tests: the
 * f32 sums' gamma_n sum |x_k w_k| against the reference's own.
 * C: N x m (ldc >= m), W: m x n2, X: N x n2, bf16 bit patterns, row-major.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define VB_MR 8
#define VB_NR 48
#define VB_KU 128 /* bf16 pairs per k block: a 48 x 512-byte panel, 24 KB */

static inline __m512bh vb_bcast(const uint16_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return (__m512bh)_mm512_set1_epi32(v);
}

#define VB_ROW(r)                                                               \
    b = vb_bcast(x##r + 2 * u);                                                 \
    c##r##0 = _mm512_dpbf16_ps(c##r##0, b, w0);                                 \
    c##r##1 = _mm512_dpbf16_ps(c##r##1, b, w1);                                 \
    c##r##2 = _mm512_dpbf16_ps(c##r##2, b, w2)

#define VB_STORE(r)                                                             \
    if ((r) < rows) {                                                           \
        float *d = C + (r) * ldc;                                               \
        VB_STORE1(d, c##r##0, 0); VB_STORE1(d, c##r##1, 1); VB_STORE1(d, c##r##2, 2); \
    }
#define VB_STORE1(d, acc, v)                                                    \
    do {                                                                        \
        __m512 a = (acc);                                                       \
        if (!first) a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(cm[v], (d) + 16 * (v))); \
        if (last) a = _mm512_mul_ps(a, al);                                     \
        _mm512_mask_storeu_ps((d) + 16 * (v), cm[v], a);                        \
    } while (0)

/* C tile (rows x cols of 8 x 48): sums over nu pairs of the panel wp, the
 * sample rows at xr (pairs from their k block); adds into C unless first,
 * times alpha when last. */
static void vb_tile(float *C, int64_t ldc, const uint8_t *wp, const uint16_t *const xr[VB_MR],
                    int nu, int rows, int cols, int first, int last, float alpha)
{
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00;
    __m512 c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00;
    __m512 c40 = c00, c41 = c00, c42 = c00, c50 = c00, c51 = c00, c52 = c00;
    __m512 c60 = c00, c61 = c00, c62 = c00, c70 = c00, c71 = c00, c72 = c00;
    const uint16_t *x0 = xr[0], *x1 = xr[1], *x2 = xr[2], *x3 = xr[3];
    const uint16_t *x4 = xr[4], *x5 = xr[5], *x6 = xr[6], *x7 = xr[7];
    for (int u = 0; u < nu; u++) {
        const uint8_t *wq = wp + (size_t)u * VB_NR * 4;
        __m512bh w0 = (__m512bh)_mm512_load_si512((const void *)wq);
        __m512bh w1 = (__m512bh)_mm512_load_si512((const void *)(wq + 64));
        __m512bh w2 = (__m512bh)_mm512_load_si512((const void *)(wq + 128));
        __m512bh b;
        VB_ROW(0); VB_ROW(1); VB_ROW(2); VB_ROW(3);
        VB_ROW(4); VB_ROW(5); VB_ROW(6); VB_ROW(7);
    }
    __mmask16 cm[3];
    for (int v = 0; v < 3; v++) {
        int left = cols - 16 * v;
        cm[v] = left >= 16 ? 0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
    }
    const __m512 al = _mm512_set1_ps(alpha);
    VB_STORE(0) VB_STORE(1) VB_STORE(2) VB_STORE(3)
    VB_STORE(4) VB_STORE(5) VB_STORE(6) VB_STORE(7)
}

void dot_bf16_avx512bf16_8x48(float *C, int64_t ldc, const uint16_t *W, int64_t m,
                              const uint16_t *X, int64_t N, int n2, float alpha)
{
    _Alignas(64) uint8_t wp[VB_KU * VB_NR * 4]; /* pairs x 48 neurons x 2 bf16 */
    const int np = n2 / 2;
    const int nb = (np + VB_KU - 1) / VB_KU; /* k blocks, balanced */
    const int kub = (np + nb - 1) / nb;
    for (int64_t j0 = 0; j0 < m; j0 += VB_NR) {
        int cols = (int)kern_min64(VB_NR, m - j0);
        for (int b = 0; b < nb; b++) {
            int u0 = b * kub, nu = (int)kern_min64(kub, np - u0);
            kern_pack4_avx512(wp, (const uint8_t *)W, m, 2 * (int64_t)n2, 2 * (int64_t)n2, j0, VB_NR,
                       u0, nu, 0);
            for (int64_t i0 = 0; i0 < N; i0 += VB_MR) {
                int rows = (int)kern_min64(VB_MR, N - i0);
                const uint16_t *xr[VB_MR];
                for (int r = 0; r < VB_MR; r++) /* past the edge: the last row again */
                    xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n2 + 2 * u0;
                vb_tile(C + i0 * ldc + j0, ldc, wp, xr, nu, rows, cols, b == 0, b == nb - 1,
                        alpha);
            }
        }
    }
}
