/*
 * kern_macro.h - THE macro-kernel of the float L1 distance kernels, written
 * once and instantiated by each ISA file (BLIS style): the loops that cut
 * (m, N, n) into register tiles are here; an ISA file supplies only its
 * sizes and four hooks, and gets a driver with the kernels.h signature.
 *
 *   for each group of G samples (G = 0: all N in one group):
 *     ROWSUM(sx, Xgroup, rows, n)            per-sample sums (or nothing)
 *     for each panel of NR neurons j0:       PANEL(cols): per-panel state
 *       for each k block of KC:              PACK(wp, W, m, n, j0, k0, kc):
 *                                            the panel, k-major KC x NR
 *         for each block of MR samples i0:   TILE(Dt, ldd, wp, xr, kc, rows,
 *                                            cols, first, last, sxt)
 *   xr[r]: the MR sample rows at k0 (rows past the edge repeat the last
 *   valid row; TILE stores rows < `rows`, columns < `cols` only);
 *   first/last: the first/last k block (TILE continues the sums in D
 *   unless first, so each pair's k order stays the ISA's own).
 *
 * PANEL may declare variables that PACK and TILE then use (masks, neuron
 * sums): the hooks expand in the driver's scope. The stack holds the panel
 * (KC x NR, 64-byte aligned) and G sums; no heap.
 */
#ifndef FSVC_KERN_MACRO_H
#define FSVC_KERN_MACRO_H

#include "kern_impl.h"

#define KERN_NO_ROWSUM(sx, X, rows, n) ((void)0)

#define KERN_MACRO(NAME, T, MR, NR, KC, G, ROWSUM, PANEL, PACK, TILE)           \
    void NAME(T *D, int64_t ldd, const T *W, int64_t m, const T *X, int64_t N,  \
              int n)                                                            \
    {                                                                           \
        _Alignas(64) T wp[(KC) * (NR)]; /* KC x NR, k-major */                  \
        T sx[(G) > 0 ? (G) : 1];        /* sums of the sample group */          \
        (void)sx;                                                               \
        const int64_t g = (G) > 0 ? (int64_t)(G) : N;                           \
        for (int64_t h0 = 0; h0 < N; h0 += g) {                                 \
            int64_t h1 = kern_min64(N, h0 + g);                                 \
            ROWSUM(sx, X + h0 * (int64_t)n, h1 - h0, n);                        \
            for (int64_t j0 = 0; j0 < m; j0 += (NR)) {                          \
                int cols = (int)kern_min64((NR), m - j0);                       \
                PANEL(cols);                                                    \
                for (int k0 = 0; k0 < n; k0 += (KC)) {                          \
                    int kc = (int)kern_min64((KC), n - k0);                     \
                    PACK(wp, W, m, n, j0, k0, kc);                              \
                    for (int64_t i0 = h0; i0 < h1; i0 += (MR)) {                \
                        int rows = (int)kern_min64((MR), h1 - i0);              \
                        const T *xr[(MR)];                                      \
                        for (int r = 0; r < (MR); r++)                          \
                            xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n + k0; \
                        TILE(D + i0 * ldd + j0, ldd, wp, xr, kc, rows, cols,    \
                             k0 == 0, k0 + kc >= n, sx + (i0 - h0));            \
                    }                                                           \
                }                                                               \
            }                                                                   \
        }                                                                       \
    }

/* The u8 L1 macro-kernel (no packing: psadbw reads rows as they are):
 *   for each group of GROUP(n) neurons (about an L1 of W rows):
 *     for each block of 4 samples i0:
 *       for each block of 4 neurons j0:   TILE(Dt, ldd, xr, wr, n, rows, cols)
 * xr / wr: the 4 sample / neuron rows, past an edge repeating the last
 * valid row (TILE stores rows x cols only). */
#define KERN_MACRO_U8(NAME, GROUP, TILE)                                        \
    void NAME(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,             \
              const uint8_t *X, int64_t N, int n)                               \
    {                                                                           \
        const int64_t jg = GROUP(n);                                            \
        for (int64_t g0 = 0; g0 < m; g0 += jg) {                                \
            int64_t g1 = kern_min64(m, g0 + jg);                                \
            for (int64_t i0 = 0; i0 < N; i0 += 4) {                             \
                int rows = (int)kern_min64(4, N - i0);                          \
                const uint8_t *xr[4];                                           \
                for (int r = 0; r < 4; r++)                                     \
                    xr[r] = X + (i0 + (r < rows ? r : rows - 1)) * (int64_t)n;  \
                for (int64_t j0 = g0; j0 < g1; j0 += 4) {                       \
                    int cols = (int)kern_min64(4, g1 - j0);                     \
                    const uint8_t *wr[4];                                       \
                    for (int c = 0; c < 4; c++)                                 \
                        wr[c] = W + (j0 + (c < cols ? c : cols - 1)) * (int64_t)n; \
                    TILE(D + i0 * ldd + j0, ldd, xr, wr, n, rows, cols);        \
                }                                                               \
            }                                                                   \
        }                                                                       \
    }

#endif /* FSVC_KERN_MACRO_H */
