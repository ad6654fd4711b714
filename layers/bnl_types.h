/*
 * bnl_types.h - the engine's vocabulary, shared by the engine API (bnl.h)
 * and the backends behind it (layers/ CPU kernels, cuda/): the op (distance,
 * activation, dtype, radius), the enums with one name table each, the plan
 * a call reports, and the GPU device/limit records of the tuning API.
 * Above it only base/fsvc_base.h. Installed with bnl.h.
 */
#ifndef FSVC_BNL_TYPES_H
#define FSVC_BNL_TYPES_H

#include <stdint.h>

#include "../base/fsvc_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BNL_TRI_SCALE 2.5066 /* paper eq. 2: support of the triangle */

typedef enum { BNL_L1 = 0, BNL_L2 = 1, BNL_DOT = 2 } bnl_dist;
typedef enum { BNL_TRI = 0, BNL_GAUSS = 1, BNL_TANH = 2, BNL_IDENT = 3 } bnl_act;
typedef enum { BNL_REF = 0, BNL_CPU = 1, BNL_CUDA = 2 } bnl_backend;
/* CPU kernels: ref runs the oracle loops of layers/ref.c on the CPU
 * backend; scalar, avx2, avx512 the kernels of layers/kern_*.c;
 * avx512vnni (issue 24) avx512's with u8 L2 / dot on a packed vpdpbusd
 * GEMM; avx512bf16 those and the GEMM of f32 bf16 layers (--precision
 * bf16) on vdpbf16ps; avxvnni avx2's with u8 L2 / dot on a 256-bit
 * vpdpbusd GEMM (CPUs with AVX-VNNI and no AVX-512). Tiers rank scalar <
 * avx2 < avxvnni < avx512 < avx512vnni < avx512bf16 (bnl_arch_rank; the
 * values are not the ranks); an arch a CPU lacks runs the best-ranked
 * tier below it that the CPU has. onednn (above avx512bf16): its kernels,
 * and the products of f32 and bf16 L2 / dot layers on oneDNN's matmul
 * (layers/cpu_dnnl.c; builds with Debian's libdnnl, CPUs with AVX-512
 * BF16). amx (above onednn): onednn's path, and u8 L2 / dot on the AMX
 * int8 tiles (Sapphire Rapids and later, once Linux grants the tile
 * state). BNL_ARCH_COUNT: how many. */
typedef enum { BNL_ARCH_REF = 0, BNL_ARCH_SCALAR = 1, BNL_ARCH_AVX2 = 2,
               BNL_ARCH_AVX512 = 3, BNL_ARCH_AVX512VNNI = 4,
               BNL_ARCH_AVX512BF16 = 5, BNL_ARCH_AVXVNNI = 6,
               BNL_ARCH_ONEDNN = 7, BNL_ARCH_AMX = 8 } bnl_arch;
#define BNL_ARCH_COUNT 9
/* Precision of the GEMM operands of f32 L2 and dot (issue 10): full f32;
 * tf32 (operands rounded to 10 mantissa bits, TF32 tensor cores) or bf16
 * (7 mantissa bits, bf16 tensor cores), both round-to-nearest-even with
 * an f32 accumulation, the squared norms of L2 in full f32. L1, u8 and
 * f64 layers are exact and ignore it. The CPU backend emulates the mode
 * (layers/round_hd.h), or runs bf16 on the avx512bf16 tier's vdpbf16ps
 * kernel; the cuda backend runs it on the tensor cores. */
typedef enum { BNL_PREC_FULL = 0, BNL_PREC_TF32 = 1, BNL_PREC_BF16 = 2 } bnl_precision;

/* One name table per enum (layers/bnl_names.c); _name and _parse read it. */
extern const fsvc_name bnl_dist_names[];
extern const fsvc_name bnl_act_names[];
extern const fsvc_name bnl_backend_names[];
extern const fsvc_name bnl_arch_names[];
extern const fsvc_name bnl_precision_names[];
const char *bnl_dist_name(bnl_dist d);
const char *bnl_act_name(bnl_act a);
const char *bnl_backend_name(bnl_backend b);
const char *bnl_arch_name(bnl_arch a);
const char *bnl_precision_name(bnl_precision p);
int bnl_dist_parse(const char *s, bnl_dist *out);       /* "l1" "l2" "dot" */
int bnl_act_parse(const char *s, bnl_act *out);         /* "tri" "gauss" "tanh" "ident" */
int bnl_backend_parse(const char *s, bnl_backend *out); /* "ref" "cpu" "cuda" */
int bnl_arch_parse(const char *s, bnl_arch *out);       /* "ref" ... "onednn" "amx" */
int bnl_precision_parse(const char *s, bnl_precision *out); /* "full" "tf32" "bf16" */
/* The tier's place in the fallback order (ref 0, scalar 1, avx2 2,
 * avxvnni 3, avx512 4, avx512vnni 5, avx512bf16 6, onednn 7). */
int bnl_arch_rank(bnl_arch arch);
/* 1 if this CPU can run arch (cpuid); REF and SCALAR always 1. */
int bnl_arch_supported(bnl_arch arch);
/* Why a tier this CPU has is not used (amx: Linux's grant, the kernels'
 * self-check); NULL when it is used or the CPU lacks it. */
const char *bnl_arch_note(bnl_arch arch);

typedef struct bnl_op {
    bnl_dist dist;
    bnl_act act;
    fsvc_dtype dtype;
    double radius;   /* r > 0 for triangular and Gaussian */
    bnl_precision precision; /* f32 L2 / dot GEMM operands; 0 (full) when
                                left out of an initializer */
} bnl_op;

/* 1 when op's GEMM operands are rounded (f32 L2 or dot, precision not
 * full); 0 for exact layers, where the precision is ignored. */
static inline int bnl_op_reduced(const bnl_op *op)
{
    return op->precision != BNL_PREC_FULL && op->dtype == FSVC_F32 && op->dist != BNL_L1;
}

/* Checks an op (radius > 0 where needed, dist/act pairs that make sense). */
int bnl_op_check(const bnl_op *op, fsvc_error *err);

/* Tile sizes picked by the planner for one call (printed by bench -v). */
typedef struct bnl_plan {
    int64_t tile_m;  /* neurons per tile */
    int64_t tile_N;  /* samples per tile */
    int64_t tiles;   /* number of tiles */
    int threads;
    const char *path;    /* "ref-loops", "kernels", "gemm", "cuda" */
    const char *kernel;  /* kernel table name or "openblas-sgemm" ... */
} bnl_plan;

/* The GPU backend's state (cuda/), opaque to everything else. */
typedef struct bnl_cuda bnl_cuda;
/* The engine's sessions (bnl.h): the ridge normal equations (bnl_normal_*),
 * the novelty pass's centroids (bnl_novelty_*), k-means++ seeding's min
 * distances (bnl_mind_*); each runs on one backend's table, whose own
 * state is the matching _impl (opaque, defined by that backend). */
typedef struct bnl_normal bnl_normal;
typedef struct bnl_novelty bnl_novelty;
typedef struct bnl_mind bnl_mind;
typedef struct bnl_normal_impl bnl_normal_impl;
typedef struct bnl_novelty_impl bnl_novelty_impl;
typedef struct bnl_mind_impl bnl_mind_impl;

/* A context's oneDNN primitives (layers/cpu_dnnl.h), opaque. */
typedef struct bnl_dnnl bnl_dnnl;
/* A context's kept derivations of held weights (layers/cpu_wcache.h). */
typedef struct bnl_wcache bnl_wcache;

/* A backend's table of entry points (layers/bnl_backend_ops.h). */
typedef struct bnl_backend_ops bnl_backend_ops;

/* A context (bnl.h bnl_ctx_open): the backend that runs its calls and how.
 * ops is the table of that backend (ref, cpu, or a device's); an entry it
 * leaves NULL, or an op its supports() refuses, runs on the CPU table. */
typedef struct bnl_ctx {
    bnl_backend backend;  /* what runs (after any fallback) */
    const bnl_backend_ops *ops;
    bnl_cuda *dev;        /* the device backend's state, NULL on ref and cpu */
    bnl_arch arch;        /* CPU kernels chosen (cpuid or FSVC_ARCH) */
    int threads;          /* CPU threads (>= 1) */
    int verbose;
    /* planner overrides (0 = the planner's choice; bench, tune) */
    int64_t tile_m, tile_N;
    int64_t par_min_syn;  /* calls below this many synapses (m N n) run on
                             one thread; 0 = default 2^22, -1 = never (tests) */
    bnl_dnnl *dnnl;       /* oneDNN's engine and primitives (onednn tier);
                             NULL: none (built without, or a ref context) */
    int64_t dnnl_min_syn; /* onednn tier: calls below this many synapses (or
                             256 samples) keep avx512bf16's path; 0 = default
                             2^24, -1 = none (tests) */
    bnl_wcache *wcache;   /* what the CPU derives from held weights
                             (bnl_weights_hold); NULL: nothing kept */
} bnl_ctx;

/* How a session of the ridge normal equations runs (bnl.h bnl_normal_open;
 * NULL: the defaults, all 0 but gram_f32 -1). gram_f32: the CPU's G in
 * float32 (1), float64 (0) or by size (-1: float64 up to 24000
 * centroids); progress: progress lines and the solve's; host_gram: G is
 * wanted on the host after the accumulation (across processes: the host
 * sums the ranks' G, bnl_normal_gram), so a device must offer its fetch;
 * products: the session serves the block products of an iterative solver
 * (bnl_normal_rhs / _apply): only on a device that offers them (*out NULL
 * otherwise), and a device's failure to open is returned, not replaced.
 * sw: per-sample weights of the samples the accumulation will see (N
 * values > 0, kept by pointer; NULL: all 1): G = H^T D H and B = H^T D T
 * with D = diag(cw[cls_i] sw[i]); the CPU table accumulates them (the
 * device tables take class weights only). */
typedef struct bnl_normal_opt {
    int gram_f32;
    int progress;
    int host_gram;
    int products;
    const double *sw;
} bnl_normal_opt;

/* The block products of an iterative ridge solver (bnl.h bnl_hprod_*):
 * the problem of one process, H = act(dist(C, X)) (N x m) and T one-hot
 * of cls (K columns) or y (K = 1); each sample's rows of H and T scaled
 * by sqrt(cw[cls_i] sw_i) (cw: K class weights, ignored with y; sw: N
 * sample weights; either NULL: all 1); aug: every sample also as its
 * fsvc_augment_count(aug) variants (rows x cols == n). The caller keeps
 * the arrays until the products are closed. With csr the source is
 * sparse (C and X NULL, n the features, no aug): H by the sparse layer in
 * float, on the CPU table. */
typedef struct bnl_hprod bnl_hprod;
typedef struct bnl_hprod_impl bnl_hprod_impl;
/* A CSR source (layers/sparse.h): the centroids by feature (bnl_csc_make
 * with op->dist) for H, their rows for K_mm, the samples' rows. */
struct bnl_csc;
struct bnl_csr;
typedef struct bnl_hprod_csr {
    const struct bnl_csc *Ct;
    const struct bnl_csr *C, *X;
} bnl_hprod_csr;
typedef struct bnl_hprod_problem {
    const bnl_op *op;
    const void *C;       /* m x n centroids */
    int64_t m;
    const void *X;       /* N x n samples */
    int64_t N;
    int n, K;
    const int *cls;      /* N classes, or NULL with y */
    const double *y;     /* N targets (K = 1), or NULL */
    const double *cw;    /* K class weights, or NULL */
    const double *sw;    /* N sample weights, or NULL */
    fsvc_augment aug;
    int rows, cols;      /* the image geometry of aug */
    const bnl_hprod_csr *csr; /* a sparse source, or NULL: C and X dense */
} bnl_hprod_problem;
/* The format of pcg's cached H: f32, bf16 (f32's range, 8 significant
 * bits) or IEEE f16 (11 bits, |h| < 65520: activations bounded by 1). */
typedef enum bnl_hfmt { BNL_H_F32 = 0, BNL_H_BF16 = 1, BNL_H_F16 = 2 } bnl_hfmt;

/* cache: the CPU keeps all of H (N x m) after the first pass (one read
 * of H per product instead of an engine pass; K_mm from its rows when no
 * row is weighted); progress: the CPU's first pass prints a progress line
 * (fsvc_printf) once it runs over 0.5 s; notes: one line when the device
 * cannot open its products and the CPU computes them. */
typedef struct bnl_hprod_opt {
    int cache;
    int progress;
    int notes;
    int h16; /* bnl_hfmt of the CPU's cached H (cpu_hprod.c): bf16 or f16
                halve the bytes per product, the solve exact for H rounded */
} bnl_hprod_opt;
/* N: virtual samples (N x variants); t_h, t_prod: seconds in H (engine
 * passes) and in the products (on a device H is made inside them: t_h is
 * K_mm only); kmm_cached: the last K_mm came from the cached H's rows;
 * device: the device's products; h_err2: the sum of the squared rounding
 * errors of an H kept in bf16 (0: not rounded), the trace of E^T E. */
typedef struct bnl_hprod_stats {
    int64_t N;
    double t_h, t_prod;
    int kmm_cached;
    int device;
    double h_err2;
} bnl_hprod_stats;

/* The ridge solver for "auto" (bnl.h bnl_plan_ridge). In: m centroids, K
 * columns, ranks processes, pcg_m: the host's rule (pcg from pcg_m
 * centroids). Out: pcg (1) or direct (0); by_device: a device's rule
 * chose (not m alone); why: the choice in one line ("" when by m). */
typedef struct bnl_ridge_plan {
    int64_t m;
    int K, ranks;
    int64_t pcg_m;
    int pcg, by_device;
    char why[256];
} bnl_ridge_plan;

/* A GPU's properties (cuda/device.cu reads them at open). */
typedef struct bnlc_device {
    char name[128];
    int cc_major, cc_minor;
    int sms;                 /* multiprocessors */
    int fp32_per_sm;         /* FP32 lanes per SM ("cores per multiprocessor") */
    int int32_per_sm;        /* INT32 (dp4a) lanes per SM, 0 = no dp4a */
    int fp64_per_sm;         /* FP64 lanes per SM */
    double clock_ghz;        /* SM clock */
    double mem_bw_gbs;       /* DRAM bandwidth */
    int64_t mem_total;       /* bytes */
    int64_t mem_free;        /* bytes, cudaMemGetInfo */
    int64_t max_grid_x, max_grid_y;
    int smem_per_block;      /* bytes */
} bnlc_device;

/* The GPU planner's limits (defaults, or a tune file written by fsvc tune). */
typedef struct bnlc_limits {
    int64_t max_M;           /* cap on tile_m and tile_N, 0 = none */
    double max_launch_syn;   /* cap on n * tile_m * tile_N, 0 = launch_s / t_syn */
    double launch_s;         /* target seconds per launch */
    double mem_frac;         /* share of the free memory to use */
    int64_t mem_reserve;     /* bytes left free (context, cuBLAS workspace) */
    int streams;             /* >= 1; 2 overlaps transfers with compute */
    int pow2;                /* tiles rounded down to powers of two (paper) */
    int64_t max_out_bytes;   /* forward: H tile bytes per stream (pinned
                                host staging), 0 = none */
} bnlc_limits;

#ifdef __cplusplus
}
#endif
#endif /* FSVC_BNL_TYPES_H */
