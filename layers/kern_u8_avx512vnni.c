/*
 * kern_u8_avx512vnni.c - exact u8 squared L2 and dot as a packed int8 GEMM
 * on AVX-512 VNNI (the avx512vnni tier; BLIS shape).
 *
 *   l2sq_u8_avx512vnni_8x48   D = (Sx2 - 256 Sx) + Sw2 - 2 sum_k x_k (w_k - 128),
 *                             the dot by vpdpbusd (u8 x s8, 4 products per
 *                             int32 lane): a register tile of 8 samples x 48
 *                             neurons (24 zmm accumulators), per 4 k one
 *                             broadcast of 4 sample bytes against 3 vectors
 *                             of 16 neurons x 4 k from a packed panel.
 *   dot_u8_avx512vnni_8x48    the same GEMM finished as x.w = x.(w - 128) + 128 Sx.
 *
 * Today's avx512 l2sq kernel does 16 vpdpbusd per 8 loads on 4 x 4 tiles and
 * reduces 16 accumulators horizontally per tile; here 24 vpdpbusd share 11
 * loads and the lanes are the outputs (no reduction).
 * int32 arithmetic modulo 2^32, exact whenever D fits (n <= BNL_L2SQ_U8_MAX_N,
 * which the engine checks; the dot the same). Measured (bench_kernels, 1
 * thread, CPU time, this Zen 5): 92-95 synapses/cycle of the 128 that 2
 * vpdpbusd/cycle give; the avx512 4 x 4 kernel 51-55. Loops:
 *   samples by VN_HG (row sums on the stack) > neurons by 48 (panel) >
 *   k by up to VN_KQ quads (pack: kern_pack4_avx512, w ^ 0x80 = w - 128 as s8) >
 *   samples by 8: the micro-kernel, adding into D after the first k block.
 * Rows past an edge repeat the last valid row and are not stored; neurons
 * past m are zero in the panel and masked at the store.
 * D: N x m (ldd >= m), W: m x n, X: N x n, row-major.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define VN_MR 8
#define VN_NR 48
#define VN_KQ 128  /* quads per k block: a 48 x 512-byte panel, 24 KB (L1 half) */
#define VN_HG 1024 /* samples per group of row sums */

static inline __m512i vn_bcast(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

/* One quad (4 k) for the 8 x 48 tile: wq holds 48 neurons x 4 bytes. */
#define VN_QUAD(wq, XPTR)                                                       \
    do {                                                                        \
        __m512i w0 = _mm512_load_si512((const void *)(wq));                     \
        __m512i w1 = _mm512_load_si512((const void *)((wq) + 64));              \
        __m512i w2 = _mm512_load_si512((const void *)((wq) + 128));             \
        __m512i b;                                                              \
        VN_ROW(0, XPTR); VN_ROW(1, XPTR); VN_ROW(2, XPTR); VN_ROW(3, XPTR);     \
        VN_ROW(4, XPTR); VN_ROW(5, XPTR); VN_ROW(6, XPTR); VN_ROW(7, XPTR);     \
    } while (0)
#define VN_ROW(r, XPTR)                                                         \
    b = vn_bcast(XPTR(r));                                                      \
    c##r##0 = _mm512_dpbusd_epi32(c##r##0, b, w0);                              \
    c##r##1 = _mm512_dpbusd_epi32(c##r##1, b, w1);                              \
    c##r##2 = _mm512_dpbusd_epi32(c##r##2, b, w2)

/* Row r of the tile: sum into / finish / store 48 lanes. */
#define VN_STORE(r)                                                             \
    if ((r) < rows) {                                                           \
        int32_t *d = D + (r) * ldd;                                             \
        __m512i xv = _mm512_set1_epi32((int32_t)xs[r]);                         \
        VN_STORE1(d, c##r##0, 0, xv); VN_STORE1(d, c##r##1, 1, xv);             \
        VN_STORE1(d, c##r##2, 2, xv);                                           \
    }
#define VN_STORE1(d, acc, v, xv)                                                \
    do {                                                                        \
        __m512i a = (acc);                                                      \
        if (!first) a = _mm512_add_epi32(a, _mm512_maskz_loadu_epi32(cm[v], (d) + 16 * (v))); \
        if (last && dot)                                                        \
            a = _mm512_add_epi32(a, xv);                                        \
        else if (last)                                                          \
            a = _mm512_sub_epi32(_mm512_add_epi32(xv, _mm512_loadu_si512(sw + 16 * (v))), \
                                 _mm512_slli_epi32(a, 1));                      \
        _mm512_mask_storeu_epi32((d) + 16 * (v), cm[v], a);                     \
    } while (0)

/* D tile (rows x cols of 8 x 48) = sum over nq quads of the panel wp (and
 * one tail quad from xt, 8 x 4 bytes, when xt != NULL); finished on the
 * last k block with xs (8 sample terms) and sw (48 neuron sums): L2
 * xs + sw - 2 a, dot a + xs. */
static void vn_tile(int32_t *D, int64_t ldd, const uint8_t *wp, const uint8_t *const xr[VN_MR],
                    int nq, const uint8_t *xt, int rows, int cols, int first, int last,
                    const uint32_t *xs, const uint32_t *sw, int dot)
{
    __m512i c00 = _mm512_setzero_si512(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00;
    __m512i c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00;
    __m512i c40 = c00, c41 = c00, c42 = c00, c50 = c00, c51 = c00, c52 = c00;
    __m512i c60 = c00, c61 = c00, c62 = c00, c70 = c00, c71 = c00, c72 = c00;
    const uint8_t *x0 = xr[0], *x1 = xr[1], *x2 = xr[2], *x3 = xr[3];
    const uint8_t *x4 = xr[4], *x5 = xr[5], *x6 = xr[6], *x7 = xr[7];
    for (int q = 0; q < nq; q++) {
        const uint8_t *wq = wp + (size_t)q * VN_NR * 4;
#define XP(r) (x##r + 4 * q)
        VN_QUAD(wq, XP);
#undef XP
    }
    if (xt) {
        const uint8_t *wq = wp + (size_t)nq * VN_NR * 4;
#define XT(r) (xt + 4 * (r))
        VN_QUAD(wq, XT);
#undef XT
    }
    __mmask16 cm[3];
    for (int v = 0; v < 3; v++) {
        int left = cols - 16 * v;
        cm[v] = left >= 16 ? 0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
    }
    VN_STORE(0) VN_STORE(1) VN_STORE(2) VN_STORE(3)
    VN_STORE(4) VN_STORE(5) VN_STORE(6) VN_STORE(7)
}

/* The driver: dot = 0: D = squared L2, 1: D = x.w = x.(w - 128) + 128 Sx. */
static void vn_gemm(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X,
                    int64_t N, int n, int dot)
{
    _Alignas(64) uint8_t wp[(VN_KQ + 1) * VN_NR * 4]; /* quads x 48 x 4 */
    _Alignas(64) uint32_t sw[VN_NR];                  /* Sw2 of the panel (L2) */
    uint32_t xs[VN_HG + VN_MR];                       /* Sx2 - 256 Sx (L2), 128 Sx (dot) */
    const int nq = n / 4, tail = n % 4;
    const int nb = nq > VN_KQ ? (nq + VN_KQ - 1) / VN_KQ : 1; /* k blocks */
    const int kqb = (nq + nb - 1) / nb;
    for (int64_t h0 = 0; h0 < N; h0 += VN_HG) {
        int64_t h1 = kern_min64(N, h0 + VN_HG);
        for (int64_t i = h0; i < h1; i++) {
            uint32_t s1, s2;
            u8_rowsums_avx512(X + i * (int64_t)n, n, &s1, &s2);
            xs[i - h0] = dot ? 128u * s1 : s2 - 256u * s1;
        }
        for (int64_t j0 = 0; j0 < m; j0 += VN_NR) {
            int cols = (int)kern_min64(VN_NR, m - j0);
            for (int c = 0; c < VN_NR; c++) {
                uint32_t s1;
                sw[c] = 0;
                if (c < cols && !dot) u8_rowsums_avx512(W + (j0 + c) * (int64_t)n, n, &s1, &sw[c]);
            }
            for (int b = 0; b < nb; b++) {
                int q0 = b * kqb, kq = (int)kern_min64(kqb, nq - q0);
                int last = b == nb - 1, tq = last && tail;
                kern_pack4_avx512(wp, W, m, n, n, j0, VN_NR, q0, kq + tq, 0x80);
                for (int64_t i0 = h0; i0 < h1; i0 += VN_MR) {
                    int rows = (int)kern_min64(VN_MR, h1 - i0);
                    const uint8_t *xr[VN_MR];
                    _Alignas(16) uint8_t xt[VN_MR * 4] = {0};
                    for (int r = 0; r < VN_MR; r++) {
                        xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n + 4 * q0;
                        if (tq) memcpy(xt + 4 * r, xr[r] + 4 * kq, (size_t)tail);
                    }
                    vn_tile(D + i0 * ldd + j0, ldd, wp, xr, kq, tq ? xt : NULL, rows, cols,
                            b == 0, last, xs + (i0 - h0), sw, dot);
                }
            }
        }
    }
}

void l2sq_u8_avx512vnni_8x48(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                             const uint8_t *X, int64_t N, int n)
{
    vn_gemm(D, ldd, W, m, X, N, n, 0);
}

void dot_u8_avx512vnni_8x48(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                            const uint8_t *X, int64_t N, int n)
{
    vn_gemm(D, ldd, W, m, X, N, n, 1);
}
