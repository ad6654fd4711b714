/*
 * bnl_cuda.h - the CUDA backend of the BNL engine (layers/bnl.h).
 *
 * The engine reaches these only through the table bnl_cuda_table() hands
 * it (cuda/load.c, interface layers/bnl_backend_ops.h: bnl_backend_ops);
 * nothing above cuda/ includes this header.
 * Two implementations behind one header:
 *   - cuda/bnl_cuda_none.c  builds without nvcc (no FSVC_HAVE_CUDA): open
 *     fails with "cuda: not compiled in (nvcc was not found at build time)
 *     — using CPU", describe says so;
 *   - cuda/<x>.cu            the real backend (extern "C"), with its table
 *     bnl_cuda_ops (cuda/ops.c), in the plugin fsvc-cuda.so (cuda/plugin.h);
 *     with nvcc but no driver or device at run time, open fails with
 *     FSVC_ERESOURCE and "cuda: no device (driver not found) — using CPU".
 *     A plugin that does not load: the none table's open fails with the
 *     loader's line. Never a crash.
 *
 * Layouts as in bnl.h (all row-major):
 *   W: m x n  (op->dtype)     neurons / centroids
 *   X: N x n  (op->dtype)     samples
 *   H: N x m, ldh >= m        float for u8 and f32, double for f64 (forward
 *                             and actsum; f64 scores, normal equations,
 *                             block products and LMS are refused by the
 *                             table's bnl_cuda_supports, and the engine
 *                             runs them on the CPU table)
 *   S: N                      float64, S[i] += sum_j h(x_i, w_j)
 * All pointers are host memory; the backend stages them through pinned
 * buffers and streams, tiled by the planner (cuda/plan.h) so that any m, N
 * fit the device memory measured with cudaMemGetInfo.
 */
#ifndef FSVC_BNL_CUDA_H
#define FSVC_BNL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "../layers/bnl_backend_ops.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend's table (cuda/ops.c, built with nvcc: the plugin's, and in
 * the tests' archive of the backend). */
extern const bnl_backend_ops bnl_cuda_ops;
/* The table without a backend (cuda/bnl_cuda_none.c): open fails with the
 * line set here (default "cuda: not compiled in ..."), describe says it. */
extern const bnl_backend_ops bnlc_none_ops;
void bnlc_none_set_why(const char *why);

/* The table's supports(): u8 and f32 layers only for scores, the normal
 * equations, their block products and the LMS epoch (cuda/rules.c). */
int bnl_cuda_supports(const bnl_ctx *ctx, bnl_opkind k, const bnl_op *op);
/* The table's plan_ridge(): auto on the device (cuda/rules.c), read from
 * the context's own table (its props), so an emulated device shares it. */
void bnl_cuda_plan_ridge(const bnl_ctx *ctx, const bnl_op *op, bnl_ridge_plan *p);

/* Opens device 0 (or $FSVC_CUDA_DEVICE). strict only changes the wording
 * ("— using CPU" is left out when the caller will not fall back). On
 * failure *out is NULL and err holds one line, code FSVC_ERESOURCE. */
int bnl_cuda_open(bnl_cuda **out, int strict, fsvc_error *err);
void bnl_cuda_close(bnl_cuda *c); /* NULL is fine */

/* H = act(dist(W, X)) for u8 (exact int32 L1 / L2^2), f32 (L2 / dot at
 * op->precision: full, tf32 or bf16 tensor cores, cuda/gemm.cu) and f64
 * (L1: the tile kernel in double, bit-exact with the CPU up to exp / tanh;
 * L2 / dot: cublasDgemm + the f64 epilogue). */
int bnl_cuda_forward(bnl_cuda *c, const bnl_op *op,
                     void *H, int64_t ldh,            /* N x m */
                     const void *W, int64_t m,        /* m x n */
                     const void *X, int64_t N, int n, /* N x n */
                     fsvc_error *err);

/* S[i] += sum_{j<m} h(x_i, w_j), float64 in increasing j for each sample
 * (bit-exact with the CPU for u8; f32 within the distance tolerance). */
int bnl_cuda_actsum(bnl_cuda *c, const bnl_op *op,
                    double *S,                        /* N */
                    const void *W, int64_t m,         /* m x n */
                    const void *X, int64_t N, int n,  /* N x n */
                    fsvc_error *err);

/* Device-resident readout work (cuda/ridge.cu); see layers/bnl_backend_ops.h. */
int bnl_cuda_scores(bnl_cuda *c, const bnl_op *op, double *Y, const void *W, int64_t m,
                    const void *X, int64_t N, int n, const double *R, int K, fsvc_error *err);
int bnl_cuda_normal_open(bnl_cuda *c, bnl_normal_impl **out, fsvc_error *err);
int bnl_cuda_normal_accum(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                          const void *X, int64_t N, int n, const int *cls, const double *y,
                          const double *cw, int K, double *diag, double *B, fsvc_error *err);
int bnl_cuda_normal_solve(bnl_normal_impl *s, double lam, double *R, int *info, fsvc_error *err);
int bnl_cuda_normal_fetch(bnl_normal_impl *s, double *G, fsvc_error *err);
void bnl_cuda_normal_close(bnl_normal_impl *s);
int bnl_cuda_normal_rhs(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                        const void *X, int64_t N, int n, const int *cls, const double *y,
                        int K, double *B, double *sumsq, fsvc_error *err);
int bnl_cuda_normal_apply(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                          const void *X, int64_t N, int n, const double *V, int K, double *Y,
                          fsvc_error *err);
/* cuda/lms.cu */
int bnl_cuda_lms(bnl_cuda *c, const bnl_op *op, double *R, const void *W, int64_t m,
                 const void *X, const int *cls, int64_t N, int n, int K, double eta,
                 int64_t *bad, fsvc_error *err);
/* The novelty session (cuda/novelty.cu; layers/bnl_backend_ops.h nov_*): the
 * centroids packed once into device memory (grown by doubling), each
 * chunk's sums by the actsum tiles over them. u8, f32 and f64. */
int bnl_cuda_nov_open(bnl_cuda *c, const bnl_op *op, int n, int64_t cap, bnl_novelty_impl **out,
                      fsvc_error *err);
int bnl_cuda_nov_add(bnl_novelty_impl *s, const void *C, int64_t rows, fsvc_error *err);
int bnl_cuda_nov_sums(bnl_novelty_impl *s, double *S, const void *X, int64_t N, fsvc_error *err);
void bnl_cuda_nov_close(bnl_novelty_impl *s);
/* The k-means++ min-distance session (cuda/mind.cu; layers/bnl_backend_ops.h
 * mind_*): X and D2 resident, per update the centroid rows up and D2
 * back. u8 and f32. */
int bnl_cuda_mind_open(bnl_cuda *c, const bnl_op *op, const void *X, int64_t N, int n,
                       bnl_mind_impl **out, fsvc_error *err);
int bnl_cuda_mind_update(bnl_mind_impl *s, const void *C, int64_t B, double *D2, fsvc_error *err);
void bnl_cuda_mind_close(bnl_mind_impl *s);
int bnl_cuda_time_forward(bnl_cuda *c, const bnl_op *op, const void *W, int64_t m,
                          const void *X, int64_t N, int n, int reps, double *sec,
                          fsvc_error *err);

/* The device of this process among count: FSVC_CUDA_DEVICE's value
 * (fsvc_device, when set and not empty) if it is a number in 0..count-1,
 * else -1 (refused); otherwise, under mpirun, the node-local rank
 * (local_rank: OMPI_COMM_WORLD_LOCAL_RANK) modulo count, so the ranks of
 * one node spread over its devices; otherwise device 0. -1 when count < 1.
 * Pure: no CUDA call (cuda/device_pick.c, built with or without nvcc). */
int bnl_cuda_pick_device(int count, const char *fsvc_device, const char *local_rank);

/* Device properties as in the paper's Fig. 4 (name, compute capability,
 * SMs, cores per SM, memory, bandwidth), or the one no-device line.
 * Returns 1 if a device is usable, else 0. buf always NUL-terminated. */
int bnl_cuda_describe(char *buf, size_t len);

/* The device name with anything but [A-Za-z0-9_-] turned into '-', for
 * tune-file names; "none" without a device. */
void bnl_cuda_device_tag(const bnl_cuda *c, char *buf, size_t len);

/* ---- for `fsvc tune`, `fsvc bench -v` and the engine's bnl_plan_for ---- */
/* The tiling a call would use now (free memory read at the call). */
int bnl_cuda_plan(bnl_cuda *c, const bnl_op *op, int actsum, int64_t m, int64_t N, int n,
                  bnlc_plan *out, fsvc_error *err);
/* Reads (get) and/or replaces (set) the planner limits of the context
 * (from the tune file at open). Either may be NULL. */
void bnl_cuda_limits(bnl_cuda *c, bnlc_limits *get, const bnlc_limits *set);
/* The device properties and the tune file read at open ("" if none).
 * -1 when c is NULL. */
int bnl_cuda_props(const bnl_cuda *c, bnlc_device *d, char *tune_path, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_BNL_CUDA_H */
