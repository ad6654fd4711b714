/* cpu_tile.h - one BNL tile on the CPU backend (cpu_tile.c), shared by the
 * forward pass and the fused reductions (cpu_fwd.c, cpu_reduce.c). */
#ifndef FSVC_CPU_TILE_H
#define FSVC_CPU_TILE_H

#include "backend.h"
#include "cpu_dnnl.h"

typedef struct bnl_cpu_job {
    const bnl_op *op;
    bnl_actp p;
    const bnl_kernels *kern;
    const bnl_epi *epi;
    const void *W;      /* m x n */
    const void *X;      /* N x n */
    int64_t m, N;
    int n;
    int gemm;           /* f32/f64 dot or L2 through BLAS */
    void *xn, *wn;      /* squared norms: N and m (float, double, or int32
                           for u8 dot); NULL when not needed */
    float *wr, *xr;     /* tf32 / bf16 (bnl_op_reduced): W and X rounded
                           (round_hd.h), what W and X then point at; the
                           norms stay those of the full f32 values */
    uint16_t *wb, *xb;  /* bf16 on a tier with kern->dot_bf16: W and X as
                           bf16 bit patterns (the same rounding), rows of
                           n2 (n padded to even with zeros); else NULL */
    int n2;
    bnl_dnnl_w *dw;     /* the product on oneDNN (bnl_cpu_job_dnnl), else NULL */
    struct bnl_wcache *wcache;      /* the context's (cpu_wcache.h), or NULL */
    struct bnl_wc_entry *wc;        /* W held (f32 GEMM ops): wn, wb and oneDNN's
                                       packed W are this entry's, kept across
                                       calls; NULL: the job's own */
    int dnnl_failed;    /* set (atomically) by a tile oneDNN failed on */
} bnl_cpu_job;

/* Fills the job (kernels, epilogue, norms, rounded operands). Free with
 * bnl_cpu_job_free. */
int bnl_cpu_job_init(bnl_cpu_job *job, const bnl_ctx *ctx, const bnl_op *op,
                     const void *W, int64_t m, const void *X, int64_t N, int n,
                     fsvc_error *err);
void bnl_cpu_job_free(bnl_cpu_job *job);

/* Below this many synapses (m N n), or samples N, the onednn tier keeps the
 * avx512bf16 tier's path: the primitives' set-up, and packing W (m n, paid
 * once per call), cost more than oneDNN gains (measured, 2 threads: at m =
 * 10000, n = 784, N = 16 oneDNN takes 1.25-1.4x the time, N = 64 about 1;
 * square layers from 64^2 gain 1.1-1.6x). */
#define BNL_DNNL_MIN_SYN ((int64_t)1 << 24)
#define BNL_DNNL_MIN_N 256
/* 1 when the product of op runs on oneDNN on ctx (the planner's path). */
int bnl_cpu_uses_dnnl(const bnl_ctx *ctx, const bnl_op *op, int64_t m, int64_t N, int n);
/* Where the planner chose oneDNN: packs W for tiles of tile_N x tile_m
 * (job->dw). If oneDNN cannot run it, job->dw stays NULL and the tiles
 * take the tier's other path. After bnl_cpu_job_init. */
void bnl_cpu_job_dnnl(bnl_cpu_job *job, const bnl_ctx *ctx, int64_t tile_N, int64_t tile_m);

/* H tile = act(dist(W rows j0.., X rows i0..)): rows x cols at H (ldh),
 * float or double by dtype. scratch: rows x cols int32 (u8), or float
 * (job->dw, unless ldh == cols). Single threaded; BLAS calls run with
 * whatever thread count OpenBLAS has. A oneDNN failure sets
 * job->dnnl_failed (the caller's error). */
void bnl_cpu_tile(const bnl_cpu_job *job, void *H, int64_t ldh, int32_t *scratch,
                  int64_t i0, int64_t rows, int64_t j0, int64_t cols);

/* Below this many synapses (m N n) a call runs on one thread: waking an
 * OpenMP team costs more than the work (milliseconds on a loaded machine).
 * Tiles do not depend on the thread count, so neither do the results. */
#define BNL_PAR_MIN_SYN ((int64_t)1 << 22)
/* Threads for a call of this size on ctx. */
static inline int bnl_par_threads(const bnl_ctx *ctx, int64_t m, int64_t N, int n)
{
    double lim = ctx->par_min_syn ? (double)ctx->par_min_syn : (double)BNL_PAR_MIN_SYN;
    return (double)m * (double)N * n >= lim ? ctx->threads : 1;
}


#endif
