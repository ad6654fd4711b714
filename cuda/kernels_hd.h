/*
 * kernels_hd.h - the CUDA kernel bodies, per thread and per phase, as
 * __host__ __device__ functions shared by the .cu kernels and by the host
 * tests (tests/test_cuda_emu.c), which run them over emulated grids.
 *
 * Kept in the C/C++ common subset: gcc -std=c11 compiles it (FSVC_HD is
 * `static inline`), nvcc compiles it as __host__ __device__. Device-only
 * intrinsics are behind __CUDA_ARCH__ with a portable C twin beside them.
 *
 * The tile kernel (one block = 16 x 16 threads = 256):
 *   block (bx, by) owns samples i0 = bx*128 .. +127, neurons m0 = by*128 ..
 *   thread t: tx = t % 16 (samples), ty = t / 16 (neurons); it computes an
 *   8 x 8 register block: neurons m0 + ty*4 + a + 64*i, samples
 *   i0 + tx*4 + b + 64*j (a, b < 4; i, j < 2).
 *   Phase loop over k (32-bit words of a row, 32 per stage):
 *     phase 1  bnlc_stage: all 256 threads copy a 128-row x 32-word slice
 *              of W and of X from global (16-byte loads, a warp reads 4
 *              whole 128-byte row segments) into shared memory, transposed
 *              (k-major, stride BNLC_LDS words), zero outside the matrix;
 *     barrier
 *     phase 2  bnlc_compute_*: each thread reads 2 + 2 16-byte vectors per
 *              k word and updates its 64 accumulators;
 *     barrier
 *   Then bnlc_epilogue_*: the activation and the 16-byte stores of H.
 *
 * Device layouts (what the host driver packs into pinned buffers):
 *   W: rows x ldk words (u8: 4 bytes a word, f32: one float a word),
 *      ldk a multiple of 8 words (32-byte sectors; bnlc_ldk), zero beyond n: |0 - 0| = 0 and 0 * 0 = 0
 *      so the padding adds exactly nothing to L1, L2^2 or dot.
 *   X: the same with the samples.
 *   out: rows x ldo floats (ldo a multiple of 4): H (rows = samples,
 *      columns = neurons) or, transposed for the activation sums, Ht (rows
 *      = neurons, columns = samples).
 *
 * Shared memory (per block): sW, sX: BNLC_KW x BNLC_LDS words each
 * (2 x 32 x 132 x 4 = 33792 bytes). Stride 132 keeps rows 16-byte aligned;
 * the staging stores rotate which word of the 16-byte vector each thread
 * writes first so that a warp's 32 stores hit 32 different banks (the
 * host test checks every store and load of every warp for bank conflicts).
 */
#ifndef FSVC_CUDA_KERNELS_HD_H
#define FSVC_CUDA_KERNELS_HD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../layers/act_hd.h"   /* the activation, as on the host */
#include "../layers/round_hd.h" /* tf32 / bf16 operands (gemm.cu) */

#ifdef __CUDACC__
#define FSVC_HD static __host__ __device__ __forceinline__
#define FSVC_HD_CALL static __host__ __device__ __forceinline__
#define BNLC_UNROLL _Pragma("unroll")
#else
#define FSVC_HD static inline
#define FSVC_HD_CALL static inline
#define BNLC_UNROLL
#endif

/* ---- geometry ---- */
#define BNLC_TX 16                   /* threads along samples */
#define BNLC_TY 16                   /* threads along neurons */
#define BNLC_THREADS (BNLC_TX * BNLC_TY)
#define BNLC_TN 128                  /* samples per block tile */
#define BNLC_TM 128                  /* neurons per block tile */
#define BNLC_KW 32                   /* words per stage */
#define BNLC_LDS (BNLC_TM + 4)       /* shared row stride, words */
#define BNLC_SMEM_WORDS (BNLC_KW * BNLC_LDS)
#define BNLC_EPB 64                  /* accumulators per thread (8 x 8) */

/* The ops of the tile kernel. f32 L2 and dot go through cuBLAS + the
 * GEMM epilogue below instead. */
typedef enum { BNLC_U8_L1 = 0, BNLC_U8_L2 = 1, BNLC_U8_DOT = 2, BNLC_F32_L1 = 3,
               BNLC_F64_L1 = 4 } bnlc_tile_op;

/* Activation parameters, as layers/act.h's bnl_actp (act.h is host-only;
 * the test checks that bnlc_act_f gives the same bits as bnl_act_f). */
typedef struct bnlc_actp {
    int act;   /* bnl_act: 0 tri, 1 gauss, 2 tanh, 3 ident */
    int vk;    /* bnl_vkind: 0 distance, 1 squared distance, 2 dot */
    float a;   /* tri: (float)(1 / (2.5066 r)) */
    float g;   /* gauss: (float)(1 / (2 r^2)) */
} bnlc_actp;

/* ---- IEEE float operations, never contracted into FMA ---- */
#ifdef __CUDA_ARCH__
#define BNLC_MUL(a, b) __fmul_rn((a), (b))
#define BNLC_ADD(a, b) __fadd_rn((a), (b))
#define BNLC_SUB(a, b) __fsub_rn((a), (b))
#define BNLC_DIV(a, b) __fdiv_rn((a), (b))
#define BNLC_SQRT(a) __fsqrt_rn(a)
#define BNLC_DADD(a, b) __dadd_rn((a), (b))
#else
#define BNLC_MUL(a, b) ((a) * (b))
#define BNLC_ADD(a, b) ((a) + (b))
#define BNLC_SUB(a, b) ((a) - (b))
#define BNLC_DIV(a, b) ((a) / (b))
#define BNLC_SQRT(a) sqrtf(a)
#define BNLC_DADD(a, b) ((a) + (b))
#endif

FSVC_HD float bnlc_as_float(uint32_t u) { return bnl_hd_bits_float((int32_t)u); }

/* Row stride in words of a packed device matrix: n elements of es bytes
 * (1 or 4) in whole 32-byte sectors. */
FSVC_HD int64_t bnlc_ldk(int n, int es)
{
    int64_t words = ((int64_t)n * es + 3) / 4;
    return (words + 7) / 8 * 8;
}

FSVC_HD float bnlc_bits_float(int32_t bits) { return bnl_hd_bits_float(bits); }

/* ---- byte-SIMD synapses: 4 u8 synapses per 32-bit word, exact ---- */
/* acc + sum_b |a_b - c_b| */
FSVC_HD uint32_t bnlc_sad4(uint32_t a, uint32_t c, uint32_t acc)
{
#ifdef __CUDA_ARCH__
    return __dp4a(__vabsdiffu4(a, c), 0x01010101u, acc);
#else
    for (int b = 0; b < 4; b++) {
        int x = (int)((a >> (8 * b)) & 255u), y = (int)((c >> (8 * b)) & 255u);
        acc += (uint32_t)(x > y ? x - y : y - x);
    }
    return acc;
#endif
}

/* acc + sum_b (a_b - c_b)^2 */
FSVC_HD uint32_t bnlc_ssd4(uint32_t a, uint32_t c, uint32_t acc)
{
#ifdef __CUDA_ARCH__
    uint32_t d = __vabsdiffu4(a, c);
    return __dp4a(d, d, acc);
#else
    for (int b = 0; b < 4; b++) {
        int x = (int)((a >> (8 * b)) & 255u), y = (int)((c >> (8 * b)) & 255u);
        acc += (uint32_t)((x - y) * (x - y));
    }
    return acc;
#endif
}

/* acc + sum_b a_b * c_b */
FSVC_HD uint32_t bnlc_dot4(uint32_t a, uint32_t c, uint32_t acc)
{
#ifdef __CUDA_ARCH__
    return __dp4a(a, c, acc);
#else
    for (int b = 0; b < 4; b++)
        acc += ((a >> (8 * b)) & 255u) * ((c >> (8 * b)) & 255u);
    return acc;
#endif
}

/* ---- 16-byte vector loads and stores (4 words) ---- */
FSVC_HD void bnlc_ld4(const uint32_t *p, uint32_t v[4]) /* p 16-byte aligned */
{
#ifdef __CUDA_ARCH__
    uint4 q = *(const uint4 *)p;
    v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
#else
    v[0] = p[0]; v[1] = p[1]; v[2] = p[2]; v[3] = p[3];
#endif
}

FSVC_HD void bnlc_st4_f(float *p, float a, float b, float c, float d)
{
#ifdef __CUDA_ARCH__
    __stcs((float4 *)p, make_float4(a, b, c, d)); /* streaming: H is not re-read */
#else
    p[0] = a; p[1] = b; p[2] = c; p[3] = d;
#endif
}

FSVC_HD uint32_t bnlc_pick(uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3, int c)
{
    return c == 0 ? v0 : c == 1 ? v1 : c == 2 ? v2 : v3;
}

/* ---- phase 1: staging ----
 * Thread t of 256 copies 4 of the 1024 16-byte vectors of a 128-row x
 * 32-word slice: vector q = s*256 + t, row q / 8, word quad q % 8. Rows
 * >= rows and quads at or beyond ldk are zero.
 *   G: rows x ldk words (global), row0: first row of the tile, k0: first
 *   word of the stage; S: BNLC_KW x BNLC_LDS words (shared), S[k][row].
 * The word of quad wq written at sub-step cc is (cc + wq/2) & 3: with the
 * stride 132 (4 mod 32, 16 for four rows) the 32 stores of a warp hit 32
 * banks. `wave` (tests only, may be NULL) records each store's word
 * address as [s][cc]: bnlc_stage_addr gives the same without storing. */
FSVC_HD int bnlc_stage_addr(int t, int s, int cc, int *row_out, int *wq_out, int *c_out)
{
    int q = s * BNLC_THREADS + t;
    int row = q >> 3, wq = q & 7;
    int c = (cc + (wq >> 1)) & 3;
    if (row_out) *row_out = row;
    if (wq_out) *wq_out = wq;
    if (c_out) *c_out = c;
    return (wq * 4 + c) * BNLC_LDS + row;
}

FSVC_HD void bnlc_stage(uint32_t *S, const uint32_t *G, int64_t rows, int64_t ldk,
                        int64_t row0, int64_t k0, int t)
{
    BNLC_UNROLL for (int s = 0; s < 4; s++) {
        int row, wq, c;
        bnlc_stage_addr(t, s, 0, &row, &wq, &c);
        uint32_t v[4] = {0u, 0u, 0u, 0u};
        int64_t gr = row0 + row, gk = k0 + 4 * wq;
        if (gr < rows && gk < ldk)
            bnlc_ld4(G + gr * ldk + gk, v);
        BNLC_UNROLL for (int cc = 0; cc < 4; cc++) {
            int a = bnlc_stage_addr(t, s, cc, 0, 0, &c);
            S[a] = bnlc_pick(v[0], v[1], v[2], v[3], c);
        }
    }
}

/* ---- phase 2: compute over kw words of the stage (kw <= BNLC_KW) ----
 * acc[(4*i + a) * 8 + 4*j + b]: neuron ty*4 + a + 64*i, sample tx*4 + b + 64*j
 * Each k word: 4 LDS.128 (two of sW at ty*4, ty*4 + 64; two of sX at
 * tx*4, tx*4 + 64) and 64 synapse ops. */
FSVC_HD void bnlc_compute_u8(uint32_t acc[BNLC_EPB], const uint32_t *sW, const uint32_t *sX,
                             int t, int kw, int op)
{
    int tx = t % BNLC_TX, ty = t / BNLC_TX;
    for (int k = 0; k < kw; k++) {
        uint32_t w[8], x[8];
        bnlc_ld4(sW + k * BNLC_LDS + ty * 4, w);
        bnlc_ld4(sW + k * BNLC_LDS + ty * 4 + 64, w + 4);
        bnlc_ld4(sX + k * BNLC_LDS + tx * 4, x);
        bnlc_ld4(sX + k * BNLC_LDS + tx * 4 + 64, x + 4);
        if (op == BNLC_U8_L1) {
            BNLC_UNROLL for (int r = 0; r < 8; r++)
                BNLC_UNROLL for (int c = 0; c < 8; c++)
                    acc[r * 8 + c] = bnlc_sad4(w[r], x[c], acc[r * 8 + c]);
        } else if (op == BNLC_U8_L2) {
            BNLC_UNROLL for (int r = 0; r < 8; r++)
                BNLC_UNROLL for (int c = 0; c < 8; c++)
                    acc[r * 8 + c] = bnlc_ssd4(w[r], x[c], acc[r * 8 + c]);
        } else {
            BNLC_UNROLL for (int r = 0; r < 8; r++)
                BNLC_UNROLL for (int c = 0; c < 8; c++)
                    acc[r * 8 + c] = bnlc_dot4(w[r], x[c], acc[r * 8 + c]);
        }
    }
}

/* ---- the activation: layers/act_hd.h, shared with the host ---- */
FSVC_HD float bnlc_act_f(const bnlc_actp *p, float v)
{
    return bnl_hd_act_f(p->act, p->vk, p->a, p->g, v);
}

/* The activation in the tile kernel's epilogue. Inlined: a real call
 * (__noinline__) took the kernel to 128 registers with 36 bytes of spills
 * on sm_80 (call ABI); inlined it needs ~180-200 registers, no spills, one
 * 256-thread block per SM either way. */
FSVC_HD_CALL float bnlc_act_call(bnlc_actp p, float v)
{
    return bnlc_act_f(&p, v);
}

FSVC_HD void bnlc_acc_to_float_u8(float v[BNLC_EPB], const uint32_t acc[BNLC_EPB])
{
    for (int e = 0; e < BNLC_EPB; e++)
        v[e] = (float)(int32_t)acc[e];
}

/* ---- k-means++ min distances (cuda/mind.cu): one thread a sample ----
 * Ht: mt centroid rows x ldo distances (the transposed identity tile);
 * D2[i] = min(D2[i], d_ij^2) in increasing j, the float distance squared
 * in double as fsvc/select_kmeans.c's CPU loop does (same bits). */
FSVC_HD void bnlc_mind_body(double *D2, const float *Ht, int64_t ldo, int64_t mt, int64_t i)
{
    double best = D2[i];
    for (int64_t j = 0; j < mt; j++) {
        double d = (double)Ht[j * ldo + i];
        if (d * d < best) best = d * d;
    }
    D2[i] = best;
}

/* ---- device-resident ridge and scores (cuda/ridge.cu) ----
 * H tiles (samples x ldh floats, from the tile kernel or the GEMM epilogue)
 * are widened to float64 (samples x m, column-major m x samples for cuBLAS)
 * before the f64 Gram G += H^T H (Dsyrk) and B += H^T T / Y = H R (Dgemm):
 * an f32 Gram of MNIST at m = 10000 is not positive definite at lambda
 * 1e-5, so every product that feeds the solve is float64. */

/* Hd[r * ldd + c] = (double)H[r * ldh + c] for one element (r < rows,
 * c < cols = m: the tile kernel's padding columns m .. ldh - 1 are never
 * read). */
FSVC_HD void bnlc_widen_body(double *Hd, int64_t ldd, const float *H, int64_t ldh, int64_t r,
                             int64_t c)
{
    Hd[r * ldd + c] = (double)H[r * ldh + c];
}

/* G: m x m column-major; Dsyrk fills the lower triangle (i >= j at
 * G[i + j * m]). Element (i, j) with i > j: to_upper = 1 copies the lower
 * value to its mirror G[j + i * m] (kept as the pristine copy: potrf
 * overwrites only the lower triangle and the diagonal); to_upper = 0
 * restores the lower from that mirror before a retry. Diagonal and upper
 * elements (i <= j) are left alone. */
FSVC_HD void bnlc_mirror_body(double *G, int64_t m, int64_t i, int64_t j, int to_upper)
{
    if (i <= j)
        return;
    if (to_upper)
        G[j + i * m] = G[i + j * m];
    else
        G[i + j * m] = G[j + i * m];
}

/* G[j + j * m] = dg[j] + lam: the diagonal of H^T H plus the ridge. */
FSVC_HD void bnlc_diag_body(double *G, int64_t m, const double *dg, double lam, int64_t j)
{
    G[j + j * m] = dg[j] + lam;
}

/* dg[j] = G[j + j * m]: the diagonal of H^T H before any ridge. */
FSVC_HD void bnlc_getdiag_body(double *dg, const double *G, int64_t m, int64_t j)
{
    dg[j] = G[j + j * m];
}

/* One row of the targets T (rows x K, row-major float64): one-hot of
 * cls[r] (0 <= cls[r] < K) or, with y != NULL, the single value y[r]. */
FSVC_HD void bnlc_target_body(double *T, int K, const int *cls, const double *y, int64_t r)
{
    if (y) {
        T[r] = y[r];
        return;
    }
    for (int k = 0; k < K; k++)
        T[r * K + k] = k == cls[r] ? 1.0 : 0.0;
}

/* Class weights in the normal equations (G = H^T D H, B = H^T D T with
 * D = diag(w), w_r = cw[cls[r]]): the host gives each sample of a chunk
 * sw[r] = sqrt(cw[cls[r]]) and scales its target row by it (T one-hot,
 * rows x K row-major); the device scales the sample's column of the
 * float64 H tile by the same sw (bnlc_rowscale_body), so the unweighted
 * Dsyrk / Dgemm give the weighted sums, as fsvc/ridge.c cpu_accum scales
 * the rows of H by sqrt(w). */
FSVC_HD void bnlc_weight_body(double *sw, double *T, int K, const int *cls, const double *cw,
                              int64_t r)
{
    double s = sqrt(cw[cls[r]]);
    sw[r] = s;
    for (int k = 0; k < K; k++)
        T[r * K + k] *= s;
}

/* Hd[r * ldd + c] *= sw[r] for one element of the tile (c < m). */
FSVC_HD void bnlc_rowscale_body(double *Hd, int64_t ldd, const double *sw, int64_t r,
                                int64_t c)
{
    Hd[r * ldd + c] *= sw[r];
}

/* ---- the LMS readout on the device (cuda/lms.cu) ----
 * One block of BNLC_LMS_THREADS (T) threads runs the samples of a tile in
 * order (sequential over the samples, as the CPU's epoch; parallel over
 * the m neurons). R: m x K row-major float64, resident; z = Hd + s * m the
 * sample's float64 H row; tgt its K targets (one-hot). Per sample:
 *   for each slice of kn <= BNLC_LMS_KC outputs k0 ..:
 *     phase 1 bnlc_lms_dot_body: thread t sums z_j R[j][k] over its
 *             neurons j = t, t + T, ... (z_j != 0 only, as the CPU skips
 *             the zeros of H) into part[kk * T + t]; barrier;
 *     phase 2 bnlc_lms_fold_body with half = T/2, T/4, .. 1, a barrier
 *             after each: part[kk * T] = the whole dot;
 *     phase 3 bnlc_lms_err_body (threads t < kn): e[k0 + t] = tgt - dot;
 *             an e that is not finite sets *bad = the sample; barrier;
 *   *bad set: every thread stops (R as before this sample, as the CPU);
 *   phase 4 bnlc_lms_update_body: R[j][k] += eta z_j e[k] for thread t's
 *             neurons j (z_j != 0); barrier.
 * part: BNLC_LMS_KC * T doubles (shared), e: K doubles. */
#define BNLC_LMS_THREADS 256
#define BNLC_LMS_KC 16

FSVC_HD void bnlc_lms_dot_body(double *part, const double *z, const double *R, int64_t m,
                               int K, int k0, int kn, int t, int T)
{
    double acc[BNLC_LMS_KC];
    for (int kk = 0; kk < BNLC_LMS_KC; kk++)
        acc[kk] = 0.0;
    for (int64_t j = t; j < m; j += T) {
        double h = z[j];
        if (h == 0.0)
            continue;
        const double *r = R + j * K + k0;
        for (int kk = 0; kk < kn; kk++)
            acc[kk] += h * r[kk];
    }
    for (int kk = 0; kk < kn; kk++)
        part[kk * T + t] = acc[kk];
}

/* part[kk * T + t] += part[kk * T + t + half] for t < half (T a power of 2). */
FSVC_HD void bnlc_lms_fold_body(double *part, int T, int kn, int half, int t)
{
    if (t >= half)
        return;
    for (int kk = 0; kk < kn; kk++)
        part[kk * T + t] += part[kk * T + t + half];
}

/* Thread t < kn: e[k0 + t] = tgt[k0 + t] - part[t * T]; not finite: *bad = i. */
FSVC_HD void bnlc_lms_err_body(double *e, const double *part, int T, const double *tgt, int k0,
                               int kn, int64_t i, int64_t *bad, int t)
{
    if (t >= kn)
        return;
    double v = tgt[k0 + t] - part[t * T];
    e[k0 + t] = v;
    if (!isfinite(v))
        *bad = i;
}

FSVC_HD void bnlc_lms_update_body(double *R, const double *z, const double *e, int64_t m, int K,
                                  double eta, int t, int T)
{
    for (int64_t j = t; j < m; j += T) {
        double h = z[j];
        if (h == 0.0)
            continue;
        double *r = R + j * K;
        for (int k = 0; k < K; k++)
            r[k] += eta * h * e[k];
    }
}

/* ==== f64 layers (Hopper's full FP64 pipe) ====
 * The same tile kernel geometry and staging (bnlc_stage copies 32-bit
 * words; an f64 row is 2n words, little-endian: word 2k the low half of
 * element k, word 2k + 1 the high half, ldk = bnlc_ldk(n, 8)), the
 * accumulation in double, H in double (rows x ldo doubles). L2 and dot go
 * through cublasDgemm + the GEMM epilogue; the L1, epilogue, norm and sum
 * bodies are kernels_real_hd.h's, generated for double below. They restate
 * layers/ref.c / act.h / epi.c's f64 operations in their order: L1 sums
 * |x - w| in increasing k (bit-exact with the CPU), the L2 epilogue is
 * epi.c's (xn + wn) + G. The activations use exp / tanh / sqrt of the
 * platform (CUDA's double exp is within 1 ulp of glibc's, not always the
 * same bits). */

/* The activation of an f64 layer, as act.h's bnl_act_d. */
typedef struct bnlc_actpd {
    int act;    /* bnl_act */
    int vk;     /* bnl_vkind */
    double s;   /* tri: BNL_TRI_SCALE r */
    double g2;  /* gauss: 2 r^2 */
} bnlc_actpd;

#ifdef __CUDA_ARCH__
#define BNLC_DSUB(a, b) __dsub_rn((a), (b))
#define BNLC_DMUL(a, b) __dmul_rn((a), (b))
#define BNLC_DDIV(a, b) __ddiv_rn((a), (b))
#else
#define BNLC_DSUB(a, b) ((a) - (b))
#define BNLC_DMUL(a, b) ((a) * (b))
#define BNLC_DDIV(a, b) ((a) / (b))
#endif

FSVC_HD double bnlc_as_double(uint32_t lo, uint32_t hi)
{
#ifdef __CUDA_ARCH__
    return __hiloint2double((int)hi, (int)lo);
#else
    uint64_t u = (uint64_t)hi << 32 | lo;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
#endif
}

FSVC_HD double bnlc_act_d(const bnlc_actpd *p, double v)
{
    return bnl_hd_act_d(p->act, p->vk, p->s, p->g2, v);
}

FSVC_HD void bnlc_st4_d(double *p, double a, double b, double c, double d)
{
#ifdef __CUDA_ARCH__
    __stcs((double2 *)p, make_double2(a, b)); /* 16-byte aligned: ldo % 4 == 0 */
    __stcs((double2 *)(p + 2), make_double2(c, d));
#else
    p[0] = a; p[1] = b; p[2] = c; p[3] = d;
#endif
}


/* ---- the bodies f32 and f64 share (kernels_real_hd.h), generated twice ----
 * bnlc_ld8_*: the 8 elements a thread reads at stage row k (4 at ty*4 or
 * tx*4, 4 at +64); f64 elements are two words, rows k (low) and k+1 (high). */
FSVC_HD void bnlc_ld8_f(const uint32_t *p, float v[8])
{
    uint32_t u[8];
    bnlc_ld4(p, u);
    bnlc_ld4(p + 64, u + 4);
    BNLC_UNROLL for (int e = 0; e < 8; e++)
        v[e] = bnlc_as_float(u[e]);
}

FSVC_HD void bnlc_ld8_d(const uint32_t *p, double v[8])
{
    uint32_t lo[8], hi[8];
    bnlc_ld4(p, lo);
    bnlc_ld4(p + 64, lo + 4);
    bnlc_ld4(p + BNLC_LDS, hi);
    bnlc_ld4(p + BNLC_LDS + 64, hi + 4);
    BNLC_UNROLL for (int e = 0; e < 8; e++)
        v[e] = bnlc_as_double(lo[e], hi[e]);
}

#define BNLC_R float
#define BNLC_RN(x) x##_f
#define BNLC_WPE 1
#define BNLC_RADD BNLC_ADD
#define BNLC_RSUB BNLC_SUB
#define BNLC_RMUL BNLC_MUL
#define BNLC_RABS fabsf
#define BNLC_ACTP bnlc_actp
#define BNLC_ACT(p, v) bnlc_act_call(*(p), (v))
#include "kernels_real_hd.h"

#define BNLC_R double
#define BNLC_RN(x) x##_d
#define BNLC_WPE 2
#define BNLC_RADD BNLC_DADD
#define BNLC_RSUB BNLC_DSUB
#define BNLC_RMUL BNLC_DMUL
#define BNLC_RABS fabs
#define BNLC_ACTP bnlc_actpd
#define BNLC_ACT(p, v) bnlc_act_d((p), (v))
#include "kernels_real_hd.h"

#endif /* FSVC_CUDA_KERNELS_HD_H */
