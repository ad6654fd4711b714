/*
 * plan.h - the GPU planner: BNL tiles by the paper's rules, generalised.
 *
 * A pure function of (device properties, free memory, m, N, n, dtype), so
 * tests run it on simulated devices (tests/test_cuda_plan.c). The rules
 * (Dogaru & Dogaru 2017, sec. II-III, VI):
 *   - M^2 = tile_m * tile_N synapse pairs per launch (the paper's threads;
 *     here each GPU thread computes an 8 x 8 block of them), as large as
 *     the device allows: bounded by the memory budget, by a cap on the
 *     work of one launch (synapses n * M^2, from a target launch time and
 *     the device's modelled t_syn, or from a tune file / the paper's
 *     2^34), by max_M, and by the grid limits;
 *   - block size B: 16 x 16 = 256 threads on a 128 x 128 tile (fixed by
 *     the kernel; `fsvc tune` measures the choice);
 *   - memory: eq. 4 generalised to the buffers the backend allocates, per
 *     stream: packed W and X tiles + the H tile (+ S for activation sums,
 *     + norms for the GEMM path), times the number of streams, within the
 *     budget min(free * mem_frac, free - mem_reserve) read from
 *     cudaMemGetInfo (never assumed);
 *   - any (m, N) larger than one tile is cut into tiles_m x tiles_N BNLs
 *     streamed through >= 2 streams (H2D, compute, D2H overlapped).
 */
#ifndef FSVC_CUDA_PLAN_H
#define FSVC_CUDA_PLAN_H

#include <stdint.h>

#include "../layers/bnl_types.h" /* bnlc_device, bnlc_limits */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bnlc_plan {
    int64_t tile_m, tile_N;      /* neurons, samples per BNL tile */
    int64_t tiles_m, tiles_N, tiles;
    int64_t ldk;                 /* 32-bit words per packed row */
    int64_t bytes_stream;        /* device bytes per stream */
    int64_t bytes_total;         /* all streams */
    int64_t budget;              /* bytes the planner could use */
    double pairs;                /* M^2 = tile_m * tile_N */
    double syn_launch;           /* n * M^2 */
    int64_t blocks_x, blocks_y;  /* grid of one full tile */
    int block;                   /* B = threads per block */
    int streams;
    char bound[32];              /* what limited M: "shape" "max_M" "grid"
                                    "launch" "pinned" "memory" */
} bnlc_plan;

void bnlc_limits_default(bnlc_limits *l);

/* The paper's eq. 4 in bytes: es_in (n m + N n) + es_out N m. */
double bnlc_mem_eq4(int es_in, int es_out, int64_t n, int64_t m, int64_t N);

/* Device bytes one stream needs for a tile_m x tile_N tile. */
int64_t bnlc_stream_bytes(fsvc_dtype dt, int gemm, int actsum, int n,
                          int64_t tile_m, int64_t tile_N);

/* Peak synaptic time (ns) of the tile kernel's inner loop on dev: the
 * instruction mix of cuda/perf_model.h against the lanes and clock. */
double bnlc_tsyn_peak_ns(const bnlc_device *dev, fsvc_dtype dt);

/* Plans H = act(dist(W, X)) (or the activation sums) for m neurons, N
 * samples of n values. dt: FSVC_U8 or FSVC_F32. gemm: the cuBLAS path.
 * FSVC_ERESOURCE when not even a minimal tile fits. */
int bnlc_plan_make(bnlc_plan *p, const bnlc_device *dev, const bnlc_limits *lim,
                   fsvc_dtype dt, int gemm, int actsum, int64_t m, int64_t N, int n,
                   fsvc_error *err);

/* The paper's own rule (Table III): the largest power of two M <= max_M
 * with n M^2 <= syn_cap and eq. 4 (float64) within budget bytes. */
int64_t bnlc_paper_M(int64_t n, int64_t max_M, double syn_cap, double budget);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_CUDA_PLAN_H */
