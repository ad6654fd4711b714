/*
 * kern_u8_avxvnni.c - exact u8 squared L2 and dot as a packed int8 GEMM on
 * AVX-VNNI (the avxvnni tier: 256-bit vpdpbusd without AVX-512, e.g. Intel
 * client cores). The avx512vnni kernel's scheme on ymm registers:
 *
 *   l2sq_u8_avxvnni_4x24   D = (Sx2 - 256 Sx) + Sw2 - 2 sum_k x_k (w_k - 128)
 *   dot_u8_avxvnni_4x24    D = x.(w - 128) + 128 Sx
 *
 * a register tile of 4 samples x 24 neurons (12 ymm accumulators of the 16
 * registers), per 4 k one broadcast of 4 sample bytes against 3 vectors of
 * 8 neurons x 4 k from a packed panel (kern_pack4.h, w ^ 0x80 as s8).
 * int32 modulo 2^32: exact while D fits (n <= BNL_L2SQ_U8_MAX_N). Loops:
 * samples by AV_HG (row sums) > neurons by 24 > k by up to AV_KQ quads >
 * samples by 4, adding into D after the first k block. Rows past an edge
 * repeat the last valid row and are not stored; neurons past m are zero in
 * the panel and masked at the store. D: N x m (ldd >= m), W: m x n, X: N x
 * n, row-major.
 */
#include <immintrin.h>
#include "kern_impl.h"
#include "kern_pack4.h"

#define AV_MR 4
#define AV_NR 24
#define AV_KQ 256  /* quads per k block: a 24 x 1024-byte panel, 24 KB */
#define AV_HG 1024 /* samples per group of row sums */

/* sum x and sum x^2 of a row, modulo 2^32 (x^2 = x (x - 128) + 128 x). */
static void av_rowsums(const uint8_t *x, int n, uint32_t *s1, uint32_t *s2)
{
    __m256i z = _mm256_setzero_si256(), a = z, b = z;
    const __m256i flip = _mm256_set1_epi8((char)0x80);
    int k = 0;
    for (; k + 32 <= n; k += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(x + k));
        a = _mm256_add_epi64(a, _mm256_sad_epu8(v, z));
        b = _mm256_dpbusd_avx_epi32(b, v, _mm256_xor_si256(v, flip));
    }
    uint64_t sa[4], t1 = 0;
    uint32_t sb[8], t2 = 0;
    _mm256_storeu_si256((__m256i *)sa, a);
    _mm256_storeu_si256((__m256i *)sb, b);
    for (int i = 0; i < 4; i++) t1 += sa[i];
    for (int i = 0; i < 8; i++) t2 += sb[i];
    for (; k < n; k++) {
        t1 += x[k];
        t2 += (uint32_t)x[k] * (uint32_t)((int)x[k] - 128);
    }
    *s1 = (uint32_t)t1;
    *s2 = t2 + 128u * (uint32_t)t1;
}

static inline __m256i av_bcast(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

#define AV_QUAD(wq, XPTR)                                                       \
    do {                                                                        \
        __m256i w0 = _mm256_load_si256((const __m256i *)(wq));                  \
        __m256i w1 = _mm256_load_si256((const __m256i *)((wq) + 32));           \
        __m256i w2 = _mm256_load_si256((const __m256i *)((wq) + 64));           \
        __m256i b;                                                              \
        AV_ROW(0, XPTR); AV_ROW(1, XPTR); AV_ROW(2, XPTR); AV_ROW(3, XPTR);     \
    } while (0)
#define AV_ROW(r, XPTR)                                                         \
    b = av_bcast(XPTR(r));                                                      \
    c##r##0 = _mm256_dpbusd_avx_epi32(c##r##0, b, w0);                          \
    c##r##1 = _mm256_dpbusd_avx_epi32(c##r##1, b, w1);                          \
    c##r##2 = _mm256_dpbusd_avx_epi32(c##r##2, b, w2)

#define AV_STORE(r)                                                             \
    if ((r) < rows) {                                                           \
        int32_t *d = D + (r) * ldd;                                             \
        __m256i xv = _mm256_set1_epi32((int32_t)xs[r]);                         \
        AV_STORE1(d, c##r##0, 0, xv); AV_STORE1(d, c##r##1, 1, xv);             \
        AV_STORE1(d, c##r##2, 2, xv);                                           \
    }
/* full tiles by plain loads and stores (vpmaskmovd stores are slow on
 * AMD); the edge's partial vectors masked by cm[v] */
#define AV_STORE1(d, acc, v, xv)                                                \
    do {                                                                        \
        __m256i a = (acc);                                                      \
        int32_t *dv = (d) + 8 * (v);                                            \
        if (!first)                                                             \
            a = _mm256_add_epi32(a, full ? _mm256_loadu_si256((const __m256i *)dv) \
                                         : _mm256_maskload_epi32(dv, cm[v]));   \
        if (last && dot)                                                        \
            a = _mm256_add_epi32(a, xv);                                        \
        else if (last)                                                          \
            a = _mm256_sub_epi32(_mm256_add_epi32(xv, _mm256_loadu_si256(      \
                                     (const __m256i *)(sw + 8 * (v)))),         \
                                 _mm256_slli_epi32(a, 1));                      \
        if (full)                                                               \
            _mm256_storeu_si256((__m256i *)dv, a);                              \
        else                                                                    \
            _mm256_maskstore_epi32(dv, cm[v], a);                               \
    } while (0)

/* D tile (rows x cols of 4 x 24) over nq quads of the panel (and a tail
 * quad from xt when not NULL); finished on the last k block: L2 xs + sw -
 * 2 a, dot a + xs. */
static void av_tile(int32_t *D, int64_t ldd, const uint8_t *wp, const uint8_t *const xr[AV_MR],
                    int nq, const uint8_t *xt, int rows, int cols, int first, int last,
                    const uint32_t *xs, const uint32_t *sw, int dot)
{
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00;
    __m256i c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00;
    const uint8_t *x0 = xr[0], *x1 = xr[1], *x2 = xr[2], *x3 = xr[3];
    for (int q = 0; q < nq; q++) {
        const uint8_t *wq = wp + (size_t)q * AV_NR * 4;
#define XP(r) (x##r + 4 * q)
        AV_QUAD(wq, XP);
#undef XP
    }
    if (xt) {
        const uint8_t *wq = wp + (size_t)nq * AV_NR * 4;
#define XT(r) (xt + 4 * (r))
        AV_QUAD(wq, XT);
#undef XT
    }
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i cm[3]; /* lane < cols - 8 v: all ones */
    for (int v = 0; v < 3; v++)
        cm[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols - 8 * v), lane);
    const int full = cols == AV_NR;
    AV_STORE(0) AV_STORE(1) AV_STORE(2) AV_STORE(3)
}

static void av_gemm(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X,
                    int64_t N, int n, int dot)
{
    _Alignas(64) uint8_t wp[(AV_KQ + 1) * AV_NR * 4]; /* quads x 24 x 4 */
    _Alignas(32) uint32_t sw[AV_NR];                  /* Sw2 (L2) */
    uint32_t xs[AV_HG + AV_MR];                       /* Sx2 - 256 Sx (L2), 128 Sx (dot) */
    const int nq = n / 4, tail = n % 4;
    const int nb = nq > AV_KQ ? (nq + AV_KQ - 1) / AV_KQ : 1;
    const int kqb = (nq + nb - 1) / nb;
    for (int64_t h0 = 0; h0 < N; h0 += AV_HG) {
        int64_t h1 = kern_min64(N, h0 + AV_HG);
        for (int64_t i = h0; i < h1; i++) {
            uint32_t s1, s2;
            av_rowsums(X + i * (int64_t)n, n, &s1, &s2);
            xs[i - h0] = dot ? 128u * s1 : s2 - 256u * s1;
        }
        for (int64_t j0 = 0; j0 < m; j0 += AV_NR) {
            int cols = (int)kern_min64(AV_NR, m - j0);
            for (int c = 0; c < AV_NR; c++) {
                uint32_t s1;
                sw[c] = 0;
                if (c < cols && !dot) av_rowsums(W + (j0 + c) * (int64_t)n, n, &s1, &sw[c]);
            }
            for (int b = 0; b < nb; b++) {
                int q0 = b * kqb, kq = (int)kern_min64(kqb, nq - q0);
                int last = b == nb - 1, tq = last && tail;
                kern_pack4(wp, W, m, n, n, j0, AV_NR, q0, kq + tq, 0x80);
                for (int64_t i0 = h0; i0 < h1; i0 += AV_MR) {
                    int rows = (int)kern_min64(AV_MR, h1 - i0);
                    const uint8_t *xr[AV_MR];
                    _Alignas(16) uint8_t xt[AV_MR * 4] = {0};
                    for (int r = 0; r < AV_MR; r++) {
                        xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n + 4 * q0;
                        if (tq) memcpy(xt + 4 * r, xr[r] + 4 * kq, (size_t)tail);
                    }
                    av_tile(D + i0 * ldd + j0, ldd, wp, xr, kq, tq ? xt : NULL, rows, cols,
                            b == 0, last, xs + (i0 - h0), sw, dot);
                }
            }
        }
    }
}

void l2sq_u8_avxvnni_4x24(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                          const uint8_t *X, int64_t N, int n)
{
    av_gemm(D, ldd, W, m, X, N, n, 0);
}

void dot_u8_avxvnni_4x24(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                         const uint8_t *X, int64_t N, int n)
{
    av_gemm(D, ldd, W, m, X, N, n, 1);
}
