/*
 * kern_gram_avx512.c - one row block of pcg's products in one kernel:
 * U = H V^T, then Y += H^T U (kernels.h bnl_hgram_fn), H f32 or bf16
 * widened in registers, so a bf16 H is never written out widened.
 *   U: 4 rows x up to 6 columns of 16-lane sums over m, then each reduced
 *      (a fixed tree): 24 accumulators, 4 H and 6 V loads per 24 FMAs.
 *   Y: 64 columns x up to 6 rows of Y held while the block's rows stream
 *      by (from cache: U read them just before), in row order.
 * Full vectors take plain loads and stores and only the tails masked
 * ones: masked ones cost 1.6x on the U pass of a Zen 5. The prefetch of
 * the next block (PF_BYTES) reads past the block's rows: harmless.
 * Every sum has a fixed order, so the bits depend on the shapes only.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define AI static inline __attribute__((always_inline))
#define GR 4 /* rows of U per tile */
#define GK 6 /* columns of U (rows of Y) per tile */
#define GA 4 /* 16-lane vectors of Y's columns per tile */
#define UNROLL _Pragma("GCC unroll 8")
/* Y's pass prefetches the next rb rows (callers walk H in order) while
 * the block and the next fit in L2 (Zen 5, 2 threads, K = 10: 1.1-1.3x
 * at m 5000-20000 bf16 and 5000 f32; 0.9x at f32 m 20000, past L2) */
#define PF_BYTES (512.0 * 1024)

/* 16 values of H (f32, or bf16 bits: bf) from element q; masked: those
 * past mk zero */
AI __m512 load_h(const void *H, const int bf, int64_t q, const int masked, __mmask16 mk)
{
    if (bf) {
        const uint16_t *p = (const uint16_t *)H + q;
        __m256i b = masked ? _mm256_maskz_loadu_epi16(mk, p) : _mm256_loadu_si256((const void *)p);
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(b), 16));
    }
    const float *p = (const float *)H + q;
    return masked ? _mm512_maskz_loadu_ps(mk, p) : _mm512_loadu_ps(p);
}

AI __mmask16 tail(int64_t left)
{
    return left >= 16 ? (__mmask16)0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
}

/* acc[r][k] += H(row r, a..a+15) V(k, a..a+15) */
AI void u_step(__m512 acc[GR][GK], const void *H, const int bf, const int64_t row[GR],
               int64_t m, const float *V, const int NK, int64_t a, const int masked, __mmask16 mk)
{
    __m512 h[GR];
    UNROLL for (int r = 0; r < GR; r++) h[r] = load_h(H, bf, row[r] + a, masked, mk);
    UNROLL for (int k = 0; k < NK; k++) {
        const float *v = V + (int64_t)k * m + a;
        __m512 vv = masked ? _mm512_maskz_loadu_ps(mk, v) : _mm512_loadu_ps(v);
        UNROLL for (int r = 0; r < GR; r++) acc[r][k] = _mm512_fmadd_ps(h[r], vv, acc[r][k]);
    }
}

/* U rows at H offsets row[0..3] (past the block's end: repeats, not
 * stored), columns of V's first NK rows, into U (ldu) */
AI void u_tile(const void *H, const int bf, const int64_t row[GR], int nr, int64_t m,
               const float *V, const int NK, float *U, int ldu)
{
    __m512 acc[GR][GK];
    UNROLL for (int r = 0; r < GR; r++)
        UNROLL for (int k = 0; k < NK; k++) acc[r][k] = _mm512_setzero_ps();
    int64_t a = 0;
    for (; a + 16 <= m; a += 16) u_step(acc, H, bf, row, m, V, NK, a, 0, 0);
    if (a < m) u_step(acc, H, bf, row, m, V, NK, a, 1, tail(m - a));
    for (int r = 0; r < nr; r++)
        UNROLL for (int k = 0; k < NK; k++) U[r * ldu + k] = _mm512_reduce_add_ps(acc[r][k]);
}

/* Y's NK rows (ldy m) at columns a.. (masked: lanes past mk[j] left
 * alone) += sum over the rb rows of H(r, a..) U(r, k) */
AI void y_tile(const void *H, const int bf, int rb, int64_t m, int64_t a, const int masked,
               const __mmask16 mk[GA], const float *U, int ldu, const int NK, float *Y, int pf)
{
    __m512 acc[GK][GA];
    UNROLL for (int k = 0; k < NK; k++)
        UNROLL for (int j = 0; j < GA; j++) {
            const float *y = Y + (int64_t)k * m + a + 16 * j;
            acc[k][j] = masked ? _mm512_maskz_loadu_ps(mk[j], y) : _mm512_loadu_ps(y);
        }
    for (int r = 0; r < rb; r++) {
        __m512 h[GA];
        if (pf) { /* the same columns of the rows rb on: the next block's U pass */
            const char *nx = (const char *)H + ((int64_t)(rb + r) * m + a) * (bf ? 2 : 4);
            for (int l = 0; l < (bf ? 2 : 4); l++) _mm_prefetch(nx + 64 * l, _MM_HINT_T2);
        }
        UNROLL for (int j = 0; j < GA; j++)
            h[j] = load_h(H, bf, (int64_t)r * m + a + 16 * j, masked, masked ? mk[j] : 0);
        UNROLL for (int k = 0; k < NK; k++) {
            __m512 u = _mm512_set1_ps(U[r * ldu + k]);
            UNROLL for (int j = 0; j < GA; j++) acc[k][j] = _mm512_fmadd_ps(h[j], u, acc[k][j]);
        }
    }
    UNROLL for (int k = 0; k < NK; k++)
        UNROLL for (int j = 0; j < GA; j++) {
            float *y = Y + (int64_t)k * m + a + 16 * j;
            if (masked) _mm512_mask_storeu_ps(y, mk[j], acc[k][j]);
            else _mm512_storeu_ps(y, acc[k][j]);
        }
}

/* call(NK) with NK a constant 1..GK */
#define BY_NK(nk, call)                                                                      \
    switch (nk) {                                                                            \
    case 1: call(1); break;                                                                  \
    case 2: call(2); break;                                                                  \
    case 3: call(3); break;                                                                  \
    case 4: call(4); break;                                                                  \
    case 5: call(5); break;                                                                  \
    default: call(6); break;                                                                 \
    }

AI void gram(const void *H, const int bf, int rb, int64_t m, int K, const float *V, float *U,
             float *Y)
{
    for (int r0 = 0; r0 < rb; r0 += GR) {
        int nr = rb - r0 < GR ? rb - r0 : GR;
        int64_t row[GR];
        UNROLL for (int r = 0; r < GR; r++) row[r] = (int64_t)(r0 + (r < nr ? r : nr - 1)) * m;
        for (int k0 = 0; k0 < K; k0 += GK) {
#define U_TILE(NK) u_tile(H, bf, row, nr, m, V + (int64_t)k0 * m, NK, U + r0 * K + k0, K)
            BY_NK(K - k0, U_TILE)
        }
    }
    __mmask16 mk[GA];
    int pf = (double)rb * (double)m * (bf ? 2 : 4) <= PF_BYTES;
    for (int64_t a = 0; a < m; a += 16 * GA) {
        int masked = a + 16 * GA > m;
        UNROLL for (int j = 0; j < GA; j++) mk[j] = tail(m - a - 16 * j);
        for (int k0 = 0; k0 < K; k0 += GK) {
#define Y_FULL(NK) y_tile(H, bf, rb, m, a, 0, mk, U + k0, K, NK, Y + (int64_t)k0 * m, pf && !k0)
#define Y_MASKED(NK) y_tile(H, bf, rb, m, a, 1, mk, U + k0, K, NK, Y + (int64_t)k0 * m, pf && !k0)
            if (masked) BY_NK(K - k0, Y_MASKED)
            else BY_NK(K - k0, Y_FULL)
        }
    }
}

void hgram_avx512(const void *H, int bf, int rb, int64_t m, int K, const float *V, float *U,
                  float *Y)
{
    if (bf) gram(H, 1, rb, m, K, V, U, Y);
    else gram(H, 0, rb, m, K, V, U, Y);
}
