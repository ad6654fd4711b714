/*
 * bnl.h - the basic neural layer (BNL) engine: H = act(dist(W, X)).
 *
 * One operation for m neurons (rows of W, n values each) over a batch X of
 * N samples, computed into caller memory, on a backend chosen at run time
 * through a context (no global backend state).
 *
 * Layouts (all row-major):
 *   W: m x n, element type op->dtype   (centroids or weight rows)
 *   X: N x n, element type op->dtype   (samples)
 *   H: N x m with leading dimension ldh >= m; float for u8/f32, double for f64
 *
 * Distances: L1 = sum_k |x_k - w_k|; L2 = sqrt(sum_k (x_k - w_k)^2) (the
 * kernels below take care of the square); dot = sum_k x_k * w_k.
 * Activations, r = op->radius:
 *   triangular h = max(0, 1 - d / (2.5066 r))
 *   Gaussian   h = exp(-d^2 / (2 r^2))
 *   tanh       h = tanh(d)          (the MUL neuron with dist = dot)
 *   identity   h = d                (raw distances or dot products)
 * u8 distances are exact integers (L1 sums of |a-b|, L2 sums of squares).
 *
 * The activation, exactly (so that every backend gives the same bits from
 * the same distances; layers/act.h has the code):
 *   f64 outputs: double arithmetic with libm, v = the distance (L1), the
 *     squared distance (L2) or the dot product:
 *       tri   max(0, 1 - d / (2.5066 r))       d = v (L1) or sqrt(v) (L2)
 *       gauss exp(-d2 / (2 r^2))               d2 = v*v (L1) or v (L2)
 *       tanh  tanh(v)      ident d (L1, dot) or sqrt(v) (L2)
 *   float outputs (u8, f32): float arithmetic, no FMA contraction, with
 *     a = (float)(1 / (2.5066 r)) and g = (float)(1 / (2 r^2)):
 *       tri   h = 1 - d * a; h = h > 0 ? h : 0 d = v or sqrtf(v) (L2)
 *       gauss h = bnl_expf(-(d2 * g))          d2 = v*v (L1) or v (L2)
 *       tanh  h = bnl_tanhf(v)                 ident as for f64
 *     where bnl_expf / bnl_tanhf are the float polynomials of act.h
 *     (within 2e-7 of libm). u8 distances enter as (float)(int32).
 * u8 limits: L2 and dot need n <= 33025 (int32 sums of 255^2 terms).
 */
#ifndef FSVC_BNL_H
#define FSVC_BNL_H

#include "../fsvc/fsvc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BNL_TRI_SCALE 2.5066 /* paper eq. 2: support of the triangle */

typedef enum { BNL_L1 = 0, BNL_L2 = 1, BNL_DOT = 2 } bnl_dist;
typedef enum { BNL_TRI = 0, BNL_GAUSS = 1, BNL_TANH = 2, BNL_IDENT = 3 } bnl_act;
typedef enum { BNL_REF = 0, BNL_CPU = 1, BNL_CUDA = 2 } bnl_backend;
typedef enum { BNL_ARCH_REF = 0, BNL_ARCH_SCALAR = 1, BNL_ARCH_AVX2 = 2,
               BNL_ARCH_AVX512 = 3 } bnl_arch;

typedef struct bnl_op {
    bnl_dist dist;
    bnl_act act;
    fsvc_dtype dtype;
    double radius;   /* r > 0 for triangular and Gaussian */
} bnl_op;

typedef struct bnl_cuda bnl_cuda; /* opaque, cuda/ */

/* Tile sizes picked by the planner for one call (printed by bench -v). */
typedef struct bnl_plan {
    int64_t tile_m;  /* neurons per tile */
    int64_t tile_N;  /* samples per tile */
    int64_t tiles;   /* number of tiles */
    int threads;
    /* additions (engine): how the tiles are computed */
    const char *path;    /* "ref-loops", "kernels", "gemm", "cuda" */
    const char *kernel;  /* kernel table name or "openblas-sgemm" ... */
} bnl_plan;

typedef struct bnl_ctx {
    bnl_backend backend;  /* what runs (after any fallback) */
    bnl_arch arch;        /* CPU kernels chosen (cpuid or FSVC_ARCH) */
    int threads;          /* CPU threads (>= 1) */
    int verbose;
    bnl_cuda *cuda;       /* device state when backend == BNL_CUDA */
    /* additions: planner overrides (0 = the planner's choice; bench, tune) */
    int64_t tile_m, tile_N;
    int gemm_mode;        /* CPU GEMM ops: 0 per-thread tiles (OpenBLAS 1
                             thread each), 1 row panels threaded by OpenBLAS */
    int64_t par_min_syn;  /* calls below this many synapses (m N n) run on
                             one thread; 0 = default 2^22, -1 = never (tests) */
} bnl_ctx;

const char *bnl_dist_name(bnl_dist d);
const char *bnl_act_name(bnl_act a);
const char *bnl_backend_name(bnl_backend b);
const char *bnl_arch_name(bnl_arch a);
int bnl_dist_parse(const char *s, bnl_dist *out);   /* "l1" "l2" "dot" */
int bnl_act_parse(const char *s, bnl_act *out);     /* "tri" "gauss" "tanh" "ident" */
int bnl_backend_parse(const char *s, bnl_backend *out); /* "ref" "cpu" "cuda" */

/* Opens a context. backend "ref", "cpu" or "cuda"; threads <= 0 means all
 * cores. A "cuda" request with no usable device prints one line and falls
 * back to "cpu" unless strict, in which case it fails with FSVC_ERESOURCE.
 * FSVC_ARCH=ref|scalar|avx2|avx512 in the environment overrides cpuid.
 * Threading: the CPU backend runs OpenMP teams of ctx->threads over the
 * planner's tiles; for f32/f64 dot and L2 it calls OpenBLAS inside them,
 * setting OpenBLAS to 1 thread for the call and restoring its count after
 * (OpenBLAS's count is process-wide: do not run GEMM ops from several
 * threads of the caller at once). f64 on a "cuda" context runs on the CPU;
 * bnl_scores always reduces on the CPU. */
int bnl_ctx_open(bnl_ctx *ctx, const char *backend, int threads, int strict,
                 fsvc_error *err);
void bnl_ctx_close(bnl_ctx *ctx);

/* Checks an op (radius > 0 where needed, dist/act pairs that make sense). */
int bnl_op_check(const bnl_op *op, fsvc_error *err);

/* H = act(dist(W, X)). */
int bnl_forward(const bnl_ctx *ctx, const bnl_op *op,
                void *H, int64_t ldh,               /* N x m */
                const void *W, int64_t m,           /* m x n */
                const void *X, int64_t N, int n,    /* N x n */
                fsvc_error *err);

/* Activation sums S[i] += sum_{j=0..m-1} h(x_i, w_j), accumulated in
 * float64 in increasing j for each sample (the FSVC novelty test). H is
 * not materialised. Exactly: s = S[i]; for j = 0..m-1: s += (double)h_ij;
 * S[i] = s. Threads split the samples, never the neurons, so the sums are
 * the same bits for any thread count. */
int bnl_actsum(const bnl_ctx *ctx, const bnl_op *op,
               double *S,                            /* N */
               const void *W, int64_t m,
               const void *X, int64_t N, int n,
               fsvc_error *err);

/* Readout scores Y = H R without materialising all of H:
 * Y: N x K (float64), R: m x K (float64), Y is overwritten. */
int bnl_scores(const bnl_ctx *ctx, const bnl_op *op,
               double *Y,                            /* N x K */
               const void *W, int64_t m,
               const void *X, int64_t N, int n,
               const double *R, int K,               /* m x K */
               fsvc_error *err);

/* The tiling the planner would use for this call on ctx. */
bnl_plan bnl_plan_for(const bnl_ctx *ctx, const bnl_op *op,
                      int64_t m, int64_t N, int n);

/* Activation of one distance value, the definition every backend follows
 * (d: L1 distance, Euclidean distance, or dot product). */
double bnl_act_apply(bnl_act act, double d, double radius);

/* ---- additions: CPU architecture selection ---- */
/* The arch cpuid gives, or FSVC_ARCH when set and runnable; why (may be
 * NULL) gets one line saying which and why. */
bnl_arch bnl_arch_detect(char *why, size_t len);
int bnl_arch_parse(const char *s, bnl_arch *out);  /* "ref" "scalar" "avx2" "avx512" */
/* Sets the CPU kernels of an open context (tests, bench); FSVC_EUSAGE if
 * this CPU cannot run them. */
int bnl_ctx_set_arch(bnl_ctx *ctx, bnl_arch arch, fsvc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_BNL_H */
