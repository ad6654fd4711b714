/*
 * kern_scalar.c - portable distance kernels (the "scalar" arch), plain C for
 * the baseline x86-64 (SSE2); register-blocked so gcc vectorises across the
 * neurons of a packed panel without reassociating any float sum.
 *
 * f32 and f64 accumulate each pair's sum in increasing k, d += |x_k - w_k|,
 * so they are bit-exact with the sequential reference loop in their type.
 * u8 results are exact integers.
 *
 * D: N x m (ldd >= m), W: m x n, X: N x n, all row-major.
 */
#include <math.h>
#include <stdlib.h>
#include "kern_macro.h"

#define SC_MR 4    /* samples per register tile */
#define SC_NR_F32 8 /* neurons per packed panel: 2 SSE vectors of f32 */
#define SC_NR_F64 4 /* 2 SSE vectors of f64 (8 would need 16 xmm accumulators) */
#define SC_KC 512   /* k block: panel SC_KC x NR on the stack */

/* One MR x NR tile over k0..k0+kc-1, continuing the sums already in D
 * (first == 0) so the k order stays sequential. rows <= MR, cols <= NR valid. */
#define SC_TILE(T, ABS, SC_NR)                                                  \
    static void l1_##T##_scalar_tile(T *D, int64_t ldd, const T *wp,            \
                                     const T *const xr[SC_MR], int kc,          \
                                     int rows, int cols, int first)             \
    {                                                                           \
        T acc[SC_MR][SC_NR];                                                    \
        for (int r = 0; r < SC_MR; r++)                                         \
            for (int c = 0; c < SC_NR; c++)                                     \
                acc[r][c] = (!first && r < rows && c < cols) ? D[r * ldd + c] : 0; \
        for (int k = 0; k < kc; k++) {                                          \
            const T *w = wp + (int64_t)k * SC_NR;                               \
            for (int r = 0; r < SC_MR; r++) {                                   \
                T xv = xr[r][k];                                                \
                for (int c = 0; c < SC_NR; c++) acc[r][c] += ABS(xv - w[c]);    \
            }                                                                   \
        }                                                                       \
        for (int r = 0; r < rows; r++)                                          \
            for (int c = 0; c < cols; c++) D[r * ldd + c] = acc[r][c];          \
    }

SC_TILE(float, fabsf, SC_NR_F32)
SC_TILE(double, fabs, SC_NR_F64)

/* the macro-kernel's hooks (kern_macro.h): no row sums, no panel state */
#define SC_PANEL(cols) ((void)0)
#define SC_PACK_F32(wp, W, m, n, j0, k0, kc) kern_pack_f32(wp, W, m, n, j0, SC_NR_F32, k0, kc)
#define SC_PACK_F64(wp, W, m, n, j0, k0, kc) kern_pack_f64(wp, W, m, n, j0, SC_NR_F64, k0, kc)
#define SC_TILE_F32(Dt, ldd, wp, xr, kc, rows, cols, first, last, sxt)          \
    l1_float_scalar_tile(Dt, ldd, wp, xr, kc, rows, cols, first)
#define SC_TILE_F64(Dt, ldd, wp, xr, kc, rows, cols, first, last, sxt)          \
    l1_double_scalar_tile(Dt, ldd, wp, xr, kc, rows, cols, first)

KERN_MACRO(l1_f32_scalar_4x8, float, SC_MR, SC_NR_F32, SC_KC, 0, KERN_NO_ROWSUM, SC_PANEL,
           SC_PACK_F32, SC_TILE_F32)
KERN_MACRO(l1_f64_scalar_4x4, double, SC_MR, SC_NR_F64, SC_KC, 0, KERN_NO_ROWSUM, SC_PANEL,
           SC_PACK_F64, SC_TILE_F64)

/* u8: 2 samples x 2 neurons per pass over k, k in chunks of 16 with a
 * constant trip count so gcc -O2 (very-cheap vectoriser: no epilogues)
 * turns the sums of |a-b| into psadbw and the squares into pmaddwd. Rows
 * past the edge repeat the last row and are not stored. */
#define U8_CH 16
#define U8_DRIVER(NAME, TERM)                                                   \
    void NAME(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,             \
              const uint8_t *X, int64_t N, int n)                               \
    {                                                                           \
        for (int64_t i = 0; i < N; i += 2) {                                    \
            const uint8_t *x0 = X + i * (int64_t)n;                             \
            const uint8_t *x1 = i + 1 < N ? x0 + n : x0;                        \
            for (int64_t j = 0; j < m; j += 2) {                                \
                const uint8_t *w0 = W + j * (int64_t)n;                         \
                const uint8_t *w1 = j + 1 < m ? w0 + n : w0;                    \
                uint32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;                    \
                int k = 0;                                                      \
                for (; k + U8_CH <= n; k += U8_CH) {                            \
                    uint32_t b00 = 0, b01 = 0, b10 = 0, b11 = 0;                \
                    for (int t = 0; t < U8_CH; t++) {                           \
                        int p = x0[k + t], q = x1[k + t];                       \
                        int u = w0[k + t], v = w1[k + t];                       \
                        b00 += (uint32_t)TERM(p, u);                            \
                        b01 += (uint32_t)TERM(p, v);                            \
                        b10 += (uint32_t)TERM(q, u);                            \
                        b11 += (uint32_t)TERM(q, v);                            \
                    }                                                           \
                    a00 += b00; a01 += b01; a10 += b10; a11 += b11;             \
                }                                                               \
                for (; k < n; k++) {                                            \
                    int p = x0[k], q = x1[k], u = w0[k], v = w1[k];             \
                    a00 += (uint32_t)TERM(p, u);                                \
                    a01 += (uint32_t)TERM(p, v);                                \
                    a10 += (uint32_t)TERM(q, u);                                \
                    a11 += (uint32_t)TERM(q, v);                                \
                }                                                               \
                D[i * ldd + j] = (int32_t)a00;                                  \
                if (j + 1 < m) D[i * ldd + j + 1] = (int32_t)a01;               \
                if (i + 1 < N) {                                                \
                    D[(i + 1) * ldd + j] = (int32_t)a10;                        \
                    if (j + 1 < m) D[(i + 1) * ldd + j + 1] = (int32_t)a11;     \
                }                                                               \
            }                                                                   \
        }                                                                       \
    }

#define U8_ABSDIFF(a, b) abs((a) - (b))
/* squares as int16 x int16 -> int32 so SSE2 pmaddwd applies */
#define U8_SQDIFF(a, b) ((int32_t)(int16_t)((a) - (b)) * (int32_t)(int16_t)((a) - (b)))

U8_DRIVER(l1_u8_scalar_2x2, U8_ABSDIFF)
U8_DRIVER(l2sq_u8_scalar_2x2, U8_SQDIFF)
