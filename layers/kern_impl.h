/*
 * kern_impl.h - private to the distance kernels: the per-ISA kernel symbols
 * (for the dispatch table in kernels.c) and small plain-C helpers shared by
 * every kernel file. The helpers are static inline, so each ISA file compiles
 * the same body with its own flags (one body, no drift).
 *
 * Blocking shared by the float kernels (sizes in each ISA file):
 *   for each neuron panel of NR rows of W:   pack W panel, k-major, KC x NR
 *     for each k block of KC:                (panel on the stack, L1 sized)
 *       for each block of MR samples:        MR x NR register tile
 * No heap memory: every scratch buffer is a fixed-size stack array.
 */
#ifndef FSVC_KERN_IMPL_H
#define FSVC_KERN_IMPL_H

#include <stdint.h>
#include <string.h>
#include "kernels.h"

/* Scalar, SSE2 auto-vectorised (kern_scalar.c). */
void l1_f32_scalar_4x8(float *D, int64_t ldd, const float *W, int64_t m,
                       const float *X, int64_t N, int n);
void l1_f64_scalar_4x4(double *D, int64_t ldd, const double *W, int64_t m,
                       const double *X, int64_t N, int n);
void l1_u8_scalar_2x2(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                      const uint8_t *X, int64_t N, int n);
void l2sq_u8_scalar_2x2(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                        const uint8_t *X, int64_t N, int n);

/* AVX2 (kern_flt_avx2.c, kern_u8_avx2.c). */
void l1_f32_avx2_6x16(float *D, int64_t ldd, const float *W, int64_t m,
                      const float *X, int64_t N, int n);
void l1_f64_avx2_6x8(double *D, int64_t ldd, const double *W, int64_t m,
                     const double *X, int64_t N, int n);
void l1_u8_avx2_4x4(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                    const uint8_t *X, int64_t N, int n);
void l2sq_u8_avx2_4x4(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                      const uint8_t *X, int64_t N, int n);

/* AVX-512 F/BW/VL/DQ/VNNI (kern_flt_avx512.c, kern_u8_avx512.c). */
void l1_f32_avx512_8x32(float *D, int64_t ldd, const float *W, int64_t m,
                        const float *X, int64_t N, int n);
void l1_f64_avx512_8x24(double *D, int64_t ldd, const double *W, int64_t m,
                        const double *X, int64_t N, int n);
void l1_u8_avx512_4x4(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                      const uint8_t *X, int64_t N, int n);
void l2sq_u8_avx512_4x4(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                        const uint8_t *X, int64_t N, int n);

static inline int64_t kern_min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* wp: kc x nr, k-major: wp[k*nr + c] = W[(j0+c)*n + k0+k]; rows past m are
 * zero. W: m x n. */
static inline void kern_pack_f32(float *wp, const float *W, int64_t m, int n,
                                 int64_t j0, int nr, int k0, int kc)
{
    for (int c = 0; c < nr; c++) {
        if (j0 + c < m) {
            const float *w = W + (j0 + c) * (int64_t)n + k0;
            for (int k = 0; k < kc; k++) wp[(int64_t)k * nr + c] = w[k];
        } else {
            for (int k = 0; k < kc; k++) wp[(int64_t)k * nr + c] = 0.0f;
        }
    }
}

static inline void kern_pack_f64(double *wp, const double *W, int64_t m, int n,
                                 int64_t j0, int nr, int k0, int kc)
{
    for (int c = 0; c < nr; c++) {
        if (j0 + c < m) {
            const double *w = W + (j0 + c) * (int64_t)n + k0;
            for (int k = 0; k < kc; k++) wp[(int64_t)k * nr + c] = w[k];
        } else {
            for (int k = 0; k < kc; k++) wp[(int64_t)k * nr + c] = 0.0;
        }
    }
}

/* out[i] = sum_k X[i][k], i < rows, in the float order of the min-identity
 * f32 kernels: sequential within each k block of kc, block sums added in
 * order; so for x == w the kernel's Sx + Sw - 2 sum min(x, w) is exactly 0.
 * 8 rows at a time for independent dependency chains. X: rows x n. */
static inline void kern_rowsum_f32_kc(float *out, const float *X, int64_t rows, int n, int kc)
{
    for (int64_t i0 = 0; i0 < rows; i0 += 8) {
        int nr = (int)kern_min64(8, rows - i0);
        const float *x[8];
        for (int r = 0; r < 8; r++) x[r] = X + (i0 + (r < nr ? r : nr - 1)) * (int64_t)n;
        const float *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
        const float *x4 = x[4], *x5 = x[5], *x6 = x[6], *x7 = x[7];
        float t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0, t7 = 0;
        for (int k0 = 0; k0 < n; k0 += kc) {
            int ke = (int)kern_min64(n, (int64_t)k0 + kc);
            float b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0;
            for (int k = k0; k < ke; k++) {
                b0 += x0[k]; b1 += x1[k]; b2 += x2[k]; b3 += x3[k];
                b4 += x4[k]; b5 += x5[k]; b6 += x6[k]; b7 += x7[k];
            }
            t0 += b0; t1 += b1; t2 += b2; t3 += b3; t4 += b4; t5 += b5; t6 += b6; t7 += b7;
        }
        float t[8] = {t0, t1, t2, t3, t4, t5, t6, t7};
        for (int r = 0; r < nr; r++) out[i0 + r] = t[r];
    }
}

#endif /* FSVC_KERN_IMPL_H */
