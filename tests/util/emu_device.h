/*
 * emu_device.h - the device backend of cuda/ emulated on the host, for
 * tests (include after cmocka.h: failures are cmocka assertions).
 *
 * Two layers:
 *   - emu jobs: the drivers of cuda/ridge.cu (chunks of Xc samples, tiles
 *     of Nt) over the kernel bodies of cuda/kernels_hd.h on emulated grids
 *     (tests/cuda_emu_grid.h), each cuBLAS / cuSOLVER call replaced by the
 *     CBLAS / LAPACKE call with the same arguments;
 *   - emu_device_ops(): a bnl_backend_ops table made of those jobs (open,
 *     close, forward, actsum, scores, normal_*, lms, describe, props, nov_*,
 *     mind_*), to open a context on (bnl_ctx_open_device, or fsvc_param's
 *     device for training) so that it runs the whole device pipeline
 *     without a GPU. It counts the bytes that would
 *     cross PCIe (uploads, downloads) per entry point.
 */
#ifndef FSVC_TESTS_EMU_DEVICE_H
#define FSVC_TESTS_EMU_DEVICE_H

#include <stdint.h>

#include "layers/bnl.h"
#include "layers/bnl_backend_ops.h"

/* ---- one emulated job (a layer, its tiling, the state on "device") ---- */
typedef struct emu {
    bnl_op op;
    int tile_op, l2, es; /* tile_op < 0: the GEMM path */
    int64_t m, N, ldk, ldo, Nt, Xc;
    int n, K;
    uint32_t *Wp;        /* m x ldk */
    float *wn;
    double *G, *dg, *B0; /* m x m, m, m x K (column-major) */
    const double *cw;    /* class weights (K) or NULL, set after emu_init:
                          * emu_run with cls weights each tile (dstream_run) */
} emu;

void emu_init(emu *e, bnl_op op, const void *W, int64_t m, int64_t N, int n, int K,
              int64_t Nt, int64_t Xc);
void emu_free(emu *e);
/* Called per tile: Hd column-major m x nt (float64, widened from the float
 * tile), T the tile's nt x K targets, samples i0 .. i0+nt-1. */
typedef void (*emu_fn)(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt,
                       void *u);
/* dstream_run: chunks of Xc samples (packed, uploaded), tiles of Nt, targets
 * (one-hot of cls, or y, or none) per chunk; with e->cw and cls the
 * targets and Hd scaled by sqrt(cw[cls]) per sample (bnlc_weight_body,
 * bnlc_rowscale_body on the tile's grid). */
void emu_run(emu *e, const void *X, const int *cls, const double *y, emu_fn fn, void *u);
/* bnl_cuda_normal_accum (G, dg, B0) and bnl_cuda_normal_solve (R column-
 * major m x K; the potrf / potrs info). */
void emu_accum(emu *e, const void *X, const int *cls, const double *y);
int emu_solve(emu *e, double lam, double *R);

/* The tile functions of the scores (Y = H R, Y N x K row-major) and of the
 * block products (Y += H^T (H V) with Z nt x K; B += H^T T and sum H^2). */
struct emu_scores_u { const double *R; double *Y; };
void emu_scores_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u);
struct emu_apply_u { const double *V; double *Y, *Z, *B, sumsq; };
void emu_apply_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u);
/* The tile function of the LMS epoch (cuda/lms.cu's lms_kernel over its
 * one emulated block): R m x K row-major, E the K errors, *bad the status. */
struct emu_lms_u { double *R, *E, eta; int64_t *bad; };
void emu_lms_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u);

/* ---- the emulated device ---- */
typedef struct emu_stats {
    int64_t up, down;        /* bytes host -> device, device -> host */
    int64_t max_down;        /* the largest single download */
    int64_t forward_down;    /* of down: H from forward */
    int forward, actsum, scores, accum, solve, rhs, apply, lms, fetch; /* calls */
    int time_forward;        /* kernel-only timings (any dtype, as cuda/timing.cu) */
} emu_stats;

const bnl_backend_ops *emu_device_ops(void);
/* Zeroes the counts and sets the device's free memory in bytes (<= 0: 16
 * GiB) and its tiling (Nt samples per tile, Xc per chunk; <= 0: 48, 112). */
void emu_device_reset(int64_t mem_free, int64_t Nt, int64_t Xc);
emu_stats emu_device_stats(void);

/* ---- the novelty session (nov_*): its own counts, zeroed by reset ----
 * add_up: bytes of centroid rows uploaded (add); sums_up: bytes uploaded
 * by sums (the chunk rows and their S), sums_up_row: the most of one sums
 * call per chunk row; grows: the store doubled. Also in emu_stats' up. */
typedef struct emu_nov_stats {
    int64_t add_up, sums_up, sums_up_row;
    int opens, adds, sums, grows;
} emu_nov_stats;
emu_nov_stats emu_novelty_stats(void);

/* ---- the k-means++ min-distance session (mind_*): own counts, zeroed by
 * reset ----
 * x_up: bytes of X uploaded (open, packed rows); c_up: bytes of centroid
 * rows uploaded by updates, max_update_up the most of one update; d2_down:
 * bytes of D2 downloaded; not_fit: opens refused for X over the device
 * memory (*out NULL). Also in emu_stats' up and down. */
typedef struct emu_mind_stats {
    int64_t x_up, c_up, max_update_up, d2_down;
    int opens, updates, not_fit;
} emu_mind_stats;
emu_mind_stats emu_mind_stats_get(void);
/* emu_device_ops() less the min-distance session (NULL entries). */
const bnl_backend_ops *emu_device_ops_no_mind(void);

#endif /* FSVC_TESTS_EMU_DEVICE_H */
