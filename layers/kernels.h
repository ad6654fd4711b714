/*
 * kernels.h - distance micro-kernels per ISA; chosen at run time.
 *
 * Single-threaded block functions: the planner hands one tile per thread.
 *   D: N x m (ldd >= m), D[i*ldd + j] = dist(X row i, W row j)
 *   W: m x n row-major (neurons), X: N x n row-major (samples)
 * Exact edge tiles: every D[i*ldd+j] for i<N, j<m is written, nothing else.
 * Any m >= 1, N >= 1, 1 <= n <= 65536. Thread-safe (no global mutable state),
 * no heap: scratch is on the stack (up to ~44 KB per call: amx's).
 *
 * Per-call costs, for the planner: the float kernels pack W (m x n, once per
 * 512 samples) and sum the rows of X and W (O((m + N) n), vectorised), so a
 * tile should have m, N >= ~64 to keep that under a few %; register tiles are
 * 8 samples x 32 neurons (f32), 8 x 24 (f64), 4 x 4 (u8): multiples avoid
 * edge waste. The u8 kernels read W in groups of ~24 KB of rows (L1) and
 * stream X; any N is fine.
 *
 * Per-core ceilings in synapses/cycle (instruction bounds; L1 needs at
 * least 2 vector ops per synapse-lane, so not 2 x FMA width); the "% of
 * peak" fsvc bench prints measures each mix instead (layers/peak.c):
 *   l1_f32  avx512 16 (vminps + vaddps, 16 lanes, ports 0 and 5)  avx2 ~12
 *   l1_f64  avx512 16/3 (sub, abs, add, 8 lanes; bit-exact order)  avx2 4
 *   l1_u8   avx512 64 (one vpsadbw zmm/cycle; with its vpaddq the ports
 *           give 0.73 vpsadbw/cycle measured here, ~47)            avx2 32
 *   l2sq_u8 avx512 64 (one vpdpbusd zmm, 64 products, per cycle)   avx2 16
 *           per vpmaddwd (Zen 4 issues 1.6 a cycle, ~26); scalar (SSE2) 8
 *           per pmaddwd
 *           (Zen 5 issues 2 vpdpbusd/cycle: 128; avx512's 4x4 kernel ~55,
 *           avx512vnni's packed 8x48 GEMM ~93, measured)
 *   dot_u8  avx512vnni, avx2, scalar: as their l2sq_u8 (the same GEMM, another
 *           finish)
 *   dot_bf16 avx512bf16 32 per vdpbf16ps (Zen 5: 2 per cycle, 64)
 *   amx      l2sq_u8 / dot_u8 16384 per tdpbuud, dot_bf16 8192 per
 *           tdpbf16ps (Sapphire Rapids, by Intel's figures, not measured
 *           here: one per 16 cycles, 1024 / 512)
 *
 * Results:
 *   l1_u8   exact int32 (max 65536 * 255 fits).
 *   dot_u8  exact int32 x.w, the same limit as l2sq_u8 (255^2 x 33025 fits).
 *   dot_bf16 f32 sums of exact bf16 products, in the kernel's order (DAZ/FTZ).
 *   l2sq_u8 exact int32 sum of squared differences; it overflows int32 past
 *           n = BNL_L2SQ_U8_MAX_N (33025 * 255^2 = 2147450625 <= INT32_MAX).
 *           ENGINE: check n <= BNL_L2SQ_U8_MAX_N before calling, else use
 *           another path (f32/f64 or a split-n sum in int64).
 *   l1_f64  bit-exact with the reference loop: for each pair, d = 0.0;
 *           for k = 0..n-1: d += fabs(x[k] - w[k]).
 *   l1_f32  within BNL_L1_F32_RTOL * sum_k(|x_k|+|w_k|) + BNL_L1_F32_ATOL of
 *           the sequential float64 sum (SIMD kernels reorder the sum); a row's
 *           distance to an identical row is exactly 0 on every arch. Finite
 *           inputs only (SIMD f32 uses |a-b| = a + b - 2 min(a,b): inf - inf).
 * Every D entry depends only on its own two rows (and the arch), never on how
 * (m, N) is cut into calls: tilings and thread counts give identical bits.
 */
#ifndef FSVC_KERNELS_H
#define FSVC_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include "bnl_types.h" /* bnl_arch */

#ifdef __cplusplus
extern "C" {
#endif

#define BNL_L2SQ_U8_MAX_N 33025
#define BNL_L1_F32_RTOL 1e-5
#define BNL_L1_F32_ATOL 1e-6

typedef void (*bnl_l1_f32_fn)(float *D, int64_t ldd, const float *W, int64_t m,
                              const float *X, int64_t N, int n);
typedef void (*bnl_l1_f64_fn)(double *D, int64_t ldd, const double *W, int64_t m,
                              const double *X, int64_t N, int n);
typedef void (*bnl_l1_u8_fn)(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                             const uint8_t *X, int64_t N, int n);
typedef void (*bnl_l2sq_u8_fn)(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                               const uint8_t *X, int64_t N, int n);

/* C (N x m, ldc) = alpha X W^T, X: N x n2 and W: m x n2 bf16 bit patterns
 * (n2 even, rows padded with zeros), f32 sums; the GEMM of a bf16 layer. */
typedef void (*bnl_dot_bf16_fn)(float *C, int64_t ldc, const uint16_t *W, int64_t m,
                                const uint16_t *X, int64_t N, int n2, float alpha);

/* out (rows x n2, n2 >= n) = A (rows x n f32) as bf16 bit patterns, RNE
 * as round_hd.h's bnl_bf16_bits, the pad zero; subnormal inputs may give
 * a zero of their sign (vcvtne2ps2bf16: DAZ, as vdpbf16ps reads them). */
typedef void (*bnl_bf16_rows_fn)(uint16_t *out, const float *A, int64_t rows, int n, int n2);
/* out[q] = the f32 value of bf16 bits in[q] (exact), q < count. */
typedef void (*bnl_bf16_widen_fn)(float *out, const uint16_t *in, size_t count);
/* out[i] = (float) sum_k A[i][k]^2, summed in double (any order). */
typedef void (*bnl_norms_f32_fn)(float *out, const float *A, int64_t rows, int n);

/* out[q] = the f16 bits of in[q] (round_hd.h bnl_f16_bits), q < count. */
typedef void (*bnl_f16_round_fn)(uint16_t *out, const float *in, size_t count);

/* One row block of pcg's products: U (rb x K) = H V^T, then Y (K x m) +=
 * H^T U; H rb x m in format fmt (bnl_hfmt: f32, or bf16 / f16 bits widened
 * exactly), V K x m; f32 sums, each in an order fixed by the shapes alone. */
typedef void (*bnl_hgram_fn)(const void *H, int fmt, int rb, int64_t m, int K, const float *V,
                             float *U, float *Y);

/* Y (rows x K) += H (rows x cols, f32) R (cols x K): readout scores in
 * float64, each Y[i][k] by y = fma((double)H[i][j], R[j][k], y) for j =
 * 0..cols-1 in order, so every tier gives a scalar fma loop's bits. */
typedef void (*bnl_hscore_fn)(double *Y, const float *H, int64_t rows, int64_t cols,
                              const double *R, int K);

/* The block updates of the f32 triangular solves (chol.c), each sum over
 * j in order: forward, B(r, k) -= sum_{j < kb} L(r, j) X(j, k) for r < rb;
 * backward, B(c, k) -= sum_{i < len} L(i, c) X(i, k) for c < cb (L^T's
 * block: the columns of L are contiguous). Column-major, k < K. */
typedef void (*bnl_tri_fn)(float *B, int64_t ldb, const float *L, int64_t lda, const float *X,
                           int64_t ldx, int64_t rows, int64_t len, int K);

typedef struct bnl_kernels {
    const char *name;
    bnl_l1_f32_fn l1_f32;
    bnl_l1_f64_fn l1_f64;
    bnl_l1_u8_fn l1_u8;
    bnl_l2sq_u8_fn l2sq_u8;
    bnl_dot_bf16_fn dot_bf16; /* NULL: the bf16 layer runs emulated on sgemm */
    bnl_l2sq_u8_fn dot_u8;    /* D = x.w exactly (n <= BNL_L2SQ_U8_MAX_N); NULL:
                                 the engine derives it from l2sq_u8 */
    bnl_bf16_rows_fn bf16_rows; /* NULL: the scalar loop of cpu_tile.c */
    bnl_norms_f32_fn norms_f32; /* NULL: the scalar loop of cpu_tile.c */
    bnl_bf16_widen_fn bf16_widen; /* NULL: a scalar loop (cpu_hprod.c) */
    bnl_hgram_fn hgram;           /* NULL: two GEMMs (cpu_hprod.c) */
    int gemm_panel;               /* neurons per panel of the u8 and bf16
                                     GEMMs (the planner's tile multiple);
                                     0: 48 or 24 */
    bnl_f16_round_fn f16_round;   /* NULL: scalar loops (cpu_hprod.c) */
    bnl_bf16_widen_fn f16_widen;  /* f16 bits to f32, as bf16_widen */
    bnl_hscore_fn hscore;         /* NULL: BLAS dgemm per tile (cpu_reduce.c) */
    bnl_tri_fn tri_fwd, tri_back; /* NULL: sgemm per block (chol.c) */
} bnl_kernels;

/* 1 when l2sq and dot (a dot_u8) give the scalar kernels' bits on a 33 x
 * 35 x 70 shape (partial register tiles, a partial last k chunk). */
int bnl_u8_kernels_agree(bnl_l2sq_u8_fn l2sq, bnl_l2sq_u8_fn dot);
/* 1 when dot (a bf16 GEMM) gives the exact sums on that shape (values whose
 * sums are exact in f32 in any order), alpha -2. */
int bnl_bf16_kernel_agrees(bnl_dot_bf16_fn dot);

/* Never NULL; an arch the CPU lacks or that was not built falls back to the
 * best available below it, down to scalar. BNL_ARCH_REF has no kernels (the
 * engine runs ref.c for it); here it gives scalar. */
const bnl_kernels *bnl_kernels_get(bnl_arch arch);

/* The tier whose code computes op's distance kernel on arch: tables share
 * kernels (avx512vnni runs avx512's L1), so the lowest table holding the
 * same function. "ref" for BNL_ARCH_REF; NULL when op has no kernel here
 * (f32 / f64 L2 and dot run on BLAS GEMM; f32 bf16 L2 and dot on
 * dot_bf16 where a tier has it, else emulated on sgemm). */
const char *bnl_kernels_op_tier(bnl_arch arch, const bnl_op *op);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_KERNELS_H */
