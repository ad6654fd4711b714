/*
 * kern_impl.h - private to the distance kernels: the per-ISA kernel symbols
 * (for the dispatch table in kernels.c) and small plain-C helpers shared by
 * every kernel file. The helpers are static inline, so each ISA file compiles
 * the same body with its own flags (one body, no drift).
 *
 * The SIMD f32 kernels sum rows (Sx, Sw) with in-register transposes in the
 * same float order as their min sums, so identical rows give exactly 0.
 * Blocking shared by the float kernels (kern_macro.h, the one macro-kernel
 * body each ISA file instantiates; sizes in each ISA file):
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
/* the packed int16 GEMM on SSE2 (kern_u8gemm_sse2.c) */
void l2sq_u8_sse2_4x8(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                      const uint8_t *X, int64_t N, int n);
void dot_u8_sse2_4x8(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                     const uint8_t *X, int64_t N, int n);

/* AVX2 (kern_flt_avx2.c, kern_u8_avx2.c, kern_u8gemm_avx2.c). */
void l1_f32_avx2_6x16(float *D, int64_t ldd, const float *W, int64_t m,
                      const float *X, int64_t N, int n);
void l1_f64_avx2_6x8(double *D, int64_t ldd, const double *W, int64_t m,
                     const double *X, int64_t N, int n);
void l1_u8_avx2_4x4(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                    const uint8_t *X, int64_t N, int n);
/* the packed int16 GEMM (kern_u8gemm_avx2.c, kern_u8gemm_body.h) */
void l2sq_u8_avx2_4x16(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                       const uint8_t *X, int64_t N, int n);
void dot_u8_avx2_4x16(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
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
/* sum x and sum x^2 of a row of n bytes, modulo 2^32 (kern_u8_avx512.c). */
void u8_rowsums_avx512(const uint8_t *x, int n, uint32_t *s1, uint32_t *s2);

/* Squared row norms of f32 rows, 8 double lanes (kern_norm_avx512.c). */
void norms_f32_avx512(float *out, const float *A, int64_t rows, int n);
/* f32 rows to bf16 by vcvtne2ps2bf16 (kern_cvt_avx512bf16.c). */
void bf16_rows_avx512bf16(uint16_t *out, const float *A, int64_t rows, int n, int n2);
void bf16_widen_avx512bf16(float *out, const uint16_t *in, size_t count);
/* pcg's block products, fused (kern_gram_body.h in kern_gram_avx512.c,
 * kern_gram_avx2.c). */
void hgram_avx512(const void *H, int fmt, int rb, int64_t m, int K, const float *V, float *U,
                  float *Y);
void hgram_avx2(const void *H, int fmt, int rb, int64_t m, int K, const float *V, float *U,
                float *Y);
/* pcg's cached H in f16: RNE rounding and exact widening, F16C (same files) */
void f16_round_avx512(uint16_t *out, const float *in, size_t count);
void f16_widen_avx512(float *out, const uint16_t *in, size_t count);
void f16_round_avx2(uint16_t *out, const float *in, size_t count);
void f16_widen_avx2(float *out, const uint16_t *in, size_t count);

/* the triangular solves' block updates (kern_tri_body.h, in the same files) */
void tri_fwd_avx512(float *B, int64_t ldb, const float *L, int64_t lda, const float *X,
                    int64_t ldx, int64_t rows, int64_t len, int K);
void tri_back_avx512(float *B, int64_t ldb, const float *L, int64_t lda, const float *X,
                     int64_t ldx, int64_t rows, int64_t len, int K);
void tri_fwd_avx2(float *B, int64_t ldb, const float *L, int64_t lda, const float *X,
                  int64_t ldx, int64_t rows, int64_t len, int K);
void tri_back_avx2(float *B, int64_t ldb, const float *L, int64_t lda, const float *X,
                   int64_t ldx, int64_t rows, int64_t len, int K);

/* readout scores of an f32 H tile (kern_score_body.h in kern_score_avx512.c,
 * kern_score_avx2.c) */
void hscore_avx512(double *Y, const float *H, int64_t rows, int64_t cols, const double *R,
                   int K);
void hscore_avx2(double *Y, const float *H, int64_t rows, int64_t cols, const double *R, int K);

/* AVX-VNNI packed GEMM, 256-bit (kern_u8_avxvnni.c). */
void l2sq_u8_avxvnni_4x24(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                          const uint8_t *X, int64_t N, int n);
void dot_u8_avxvnni_4x24(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                         const uint8_t *X, int64_t N, int n);

/* AVX-512 BF16 GEMM (kern_flt_avx512bf16.c). */
void dot_bf16_avx512bf16_8x48(float *C, int64_t ldc, const uint16_t *W, int64_t m,
                              const uint16_t *X, int64_t N, int n2, float alpha);

/* AVX-512 VNNI packed GEMM (kern_u8_avx512vnni.c). */
void l2sq_u8_avx512vnni_8x48(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                             const uint8_t *X, int64_t N, int n);
void dot_u8_avx512vnni_8x48(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                            const uint8_t *X, int64_t N, int n);

/* kern_pack4 (kern_pack4.h) by AVX-512 transposes, the same bytes
 * (kern_pack_avx512.c). */
void kern_pack4_avx512(uint8_t *wp, const uint8_t *A, int64_t m, int64_t ld, int64_t len,
                       int64_t j0, int nr, int64_t u0, int nu, uint8_t flip);

/* AMX int8 and bf16 tiles (kern_amx.c, the body kern_amx_body.h). */
void l2sq_u8_amx(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X,
                 int64_t N, int n);
void dot_u8_amx(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X,
                int64_t N, int n);
void dot_bf16_amx(float *C, int64_t ldc, const uint16_t *W, int64_t m, const uint16_t *X,
                  int64_t N, int n2, float alpha);

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

#endif /* FSVC_KERN_IMPL_H */
