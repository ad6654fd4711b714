/*
 * bnl_backend_ops.h - the one table of entry points every backend implements
 * (not installed): ref (layers/ref.c), cpu (layers/cpu_*.c) and a device's
 * (cuda/ops.c, or a host-emulated device in tests). bnl_ctx_open puts the
 * chosen table in the context (ctx->ops); the engine (layers/bnl.c) calls
 * a backend only through it. An entry left NULL, or an op the table's
 * supports() refuses, is "not offered": the engine runs that call on the
 * CPU table, so no caller above the engine asks what a backend offers.
 * A backend includes this header and bnl_types.h, never bnl.h; the engine
 * never includes a backend's headers: the dependency runs one way.
 *
 * To add an op: an entry here, its implementation in each backend that
 * offers it (at least the CPU table: layers/cpu_ops.c), its test
 * (ARCHITECTURE.md shows an example). Layouts as in bnl.h; all pointers
 * are host memory.
 */
#ifndef FSVC_BNL_BACKEND_OPS_H
#define FSVC_BNL_BACKEND_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "bnl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ops a table may offer for some layers only (supports()). */
typedef enum {
    BNL_OP_SCORES, BNL_OP_NORMAL, BNL_OP_NORMAL_FETCH, BNL_OP_PRODUCTS, BNL_OP_LMS,
    BNL_OP_NOVELTY, BNL_OP_MIND
} bnl_opkind;

struct bnl_backend_ops {
    const char *name;
    /* 1 if the table runs op kind k for layer op (its entries for k being
     * non-NULL); NULL: every non-NULL entry runs every layer. */
    int (*supports)(const bnl_ctx *ctx, bnl_opkind k, const bnl_op *op);
    /* Opens the device; on failure *out is NULL and err holds one line
     * (FSVC_ERESOURCE); strict only changes the wording. */
    int (*open)(bnl_cuda **out, int strict, fsvc_error *err);
    void (*close)(bnl_cuda *c);                      /* NULL is fine */
    /* H = act(dist(W, X)), u8, f32 and f64. */
    int (*forward)(const bnl_ctx *ctx, const bnl_op *op, void *H, int64_t ldh,
                   const void *W, int64_t m, const void *X, int64_t N, int n,
                   fsvc_error *err);
    /* S[i] += sum_j h(x_i, w_j), float64 in increasing j. */
    int (*actsum)(const bnl_ctx *ctx, const bnl_op *op, double *S, const void *W,
                  int64_t m, const void *X, int64_t N, int n, fsvc_error *err);
    /* Y = H R (N x K, float64) with H computed and consumed on the device:
     * only Y comes back. u8 and f32. */
    int (*scores)(const bnl_ctx *ctx, const bnl_op *op, double *Y, const void *W, int64_t m,
                  const void *X, int64_t N, int n, const double *R, int K, fsvc_error *err);
    /* The ridge normal equations resident on the device (bnl.h
     * bnl_normal_*): open; accumulate G = H^T H and B = H^T T over all
     * samples (T one-hot of cls, or y), returning diag(G) (m) and B
     * (m x K column-major); with class weights cw (K, with cls; NULL:
     * none) G = H^T D H and B = H^T D T, D = diag(cw[cls_i]); solve (G + lam I) R = B (info > 0: not
     * positive definite at that column; G is kept for a retry); close. */
    int (*normal_open)(const bnl_ctx *ctx, const bnl_op *op, const bnl_normal_opt *opt,
                       bnl_normal_impl **out, fsvc_error *err);
    int (*normal_accum)(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                        const void *X, int64_t N, int n, const int *cls, const double *y,
                        const double *cw, int K, double *diag, double *B, fsvc_error *err);
    int (*normal_solve)(bnl_normal_impl *s, double lam, double *R, int *info, fsvc_error *err);
    /* G of the last accum (m x m, column-major, both triangles), before
     * any solve; across processes the host sums it (fsvc/ridge.c). */
    int (*normal_fetch)(bnl_normal_impl *s, double *G, fsvc_error *err);
    void (*normal_close)(bnl_normal_impl *s);                 /* NULL is fine */
    /* Block products of an iterative solver on an open handle, one pass
     * over the samples each (V, Y, B: m x K column-major): B = H^T T and
     * *sumsq = sum of H_ij^2; Y = H^T (H V). */
    int (*normal_rhs)(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                      const void *X, int64_t N, int n, const int *cls, const double *y,
                      int K, double *B, double *sumsq, fsvc_error *err);
    int (*normal_apply)(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                        const void *X, int64_t N, int n, const double *V, int K, double *Y,
                        fsvc_error *err);
    /* ---- the block products of an iterative ridge solver (bnl.h
     * bnl_hprod_*) ----
     * open on the problem (its arrays kept by the caller), B = H^T T with
     * *sumsq = sum of H_ij^2, Y = H^T (H V), K_mm (m x m row-major, float
     * with f32, else double), the stats, close. The CPU table's:
     * layers/cpu_hprod.c. A device table that lists none but offers
     * normal_rhs / normal_apply gets the engine's device products over
     * them (layers/dev_hprod.c). */
    int (*hprod_open)(const bnl_ctx *ctx, const bnl_hprod_problem *pb, const bnl_hprod_opt *opt,
                      bnl_hprod_impl **out, fsvc_error *err);
    int (*hprod_rhs)(bnl_hprod_impl *s, double *B, double *sumsq, fsvc_error *err);
    int (*hprod_apply)(bnl_hprod_impl *s, double *Y, const double *V, fsvc_error *err);
    int (*hprod_kmm)(bnl_hprod_impl *s, void *Kmm, int f32, fsvc_error *err);
    void (*hprod_stats)(const bnl_hprod_impl *s, bnl_hprod_stats *st);
    void (*hprod_close)(bnl_hprod_impl *s);                   /* NULL is fine */
    /* The ridge solver for "auto" (bnl_ridge_plan): the CPU table's by m;
     * a device's, used where it offers the normal products for op. */
    void (*plan_ridge)(const bnl_ctx *ctx, const bnl_op *op, bnl_ridge_plan *p);
    /* One epoch of the online LMS readout (fsvc/readout.c) with H computed
     * and consumed on the device: samples in order, targets one-hot of cls,
     * per sample e = t - z.R, then R += eta z e (R: m x K row-major
     * float64, in and out). *bad: -1, or the first sample (0-based) whose
     * e is not finite (R as before it). Only R and *bad come back. */
    int (*lms)(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
               const void *X, const int *cls, int64_t N, int n, int K, double eta,
               int64_t *bad, fsvc_error *err);
    /* Kernel-only seconds of H = act(dist(W, X)) with W, X and H resident
     * (the best of reps runs, CUDA events). */
    int (*time_forward)(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
                        const void *X, int64_t N, int n, int reps, double *sec,
                        fsvc_error *err);
    /* One line on the device (or why there is none); 1 if usable. */
    int (*describe)(char *buf, size_t len);
    /* The tuning hooks of bnl.h (bnl_gpu_*). */
    void (*device_tag)(const bnl_cuda *c, char *buf, size_t len);
    int (*props)(const bnl_cuda *c, bnlc_device *d, char *tune_path, size_t len);
    void (*limits)(bnl_cuda *c, bnlc_limits *get, const bnlc_limits *set);
    int (*tune_path)(char *buf, size_t len, const char *tag);
    int (*tune_write)(const char *path, const char *device, const bnlc_limits *lim,
                      const char *comment, fsvc_error *err);
    /* ---- the novelty session (issue 10; bnl.h bnl_novelty_*) ----
     * open: centroid rows of n elements resident on the device, room for
     * cap to start with (grown by doubling; *out NULL and FSVC_OK when op
     * is not offered); add: append rows (uploaded once each); sums: S[i]
     * += sum over the resident centroids in increasing order (float64, as
     * actsum): only X's rows and S go up, only S comes back; close. */
    int (*nov_open)(const bnl_ctx *ctx, const bnl_op *op, int n, int64_t cap, bnl_novelty_impl **out,
                    fsvc_error *err);
    int (*nov_add)(bnl_novelty_impl *s, const void *C, int64_t rows, fsvc_error *err);
    int (*nov_sums)(bnl_novelty_impl *s, double *S, const void *X, int64_t N, fsvc_error *err);
    void (*nov_close)(bnl_novelty_impl *s);                   /* NULL is fine */
    /* ---- the k-means++ min-distance session (issue 10; bnl.h bnl_mind_*) ----
     * open: X (N x n of op->dtype) uploaded once and kept resident, D2 (N
     * float64) resident at +inf (*out NULL and FSVC_OK when op is not
     * offered or X does not fit the device memory); update: the B centroid
     * rows C go up, d = dist(c_j, x_i) (identity activation) on the device,
     * D2[i] = min(D2[i], (double)d^2) in increasing j there, then D2 (N
     * float64) comes back: nothing N x B crosses; close. */
    int (*mind_open)(const bnl_ctx *ctx, const bnl_op *op, const void *X, int64_t N, int n,
                     bnl_mind_impl **out, fsvc_error *err);
    int (*mind_update)(bnl_mind_impl *s, const void *C, int64_t B, double *D2, fsvc_error *err);
    void (*mind_close)(bnl_mind_impl *s);                     /* NULL is fine */
};

/* The tables: the CUDA backend's (cuda/load.c: the plugin fsvc-cuda.so's,
 * loaded by the first call; built without nvcc, or when the plugin does not
 * load, a table whose open and describe say why), the CPU kernels and the
 * oracle. */
const bnl_backend_ops *bnl_cuda_table(void);
extern const bnl_backend_ops bnl_cpu_ops;
extern const bnl_backend_ops bnl_ref_ops;

#ifdef __cplusplus
}
#endif
#endif /* FSVC_BNL_BACKEND_OPS_H */
