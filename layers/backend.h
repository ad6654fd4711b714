/* backend.h - the engine's internal interface between the front (bnl.c),
 * the planner (plan.c) and the backends (ref.c, cpu_*.c). Not installed. */
#ifndef FSVC_BACKEND_H
#define FSVC_BACKEND_H

#include "act.h"
#include "bnl.h"
#include "kernels.h"

/* ref.c: the oracle (same arguments as the public calls, minus ctx). */
int bnl_ref_forward(const bnl_op *op, void *H, int64_t ldh, const void *W, int64_t m,
                    const void *X, int64_t N, int n, fsvc_error *err);
int bnl_ref_actsum(const bnl_op *op, double *S, const void *W, int64_t m,
                   const void *X, int64_t N, int n, fsvc_error *err);
int bnl_ref_scores(const bnl_op *op, double *Y, const void *W, int64_t m,
                   const void *X, int64_t N, int n, const double *R, int K,
                   fsvc_error *err);

/* bnl.c: the checks of shapes and pointers every call on samples makes. */
int bnl_check_call(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
                   const void *X, int64_t N, int n, const void *out, fsvc_error *err);

/* bnl.c: monotonic seconds (progress lines and timings of the engine). */
double bnl_clock(void);

/* plan.c: 1 when the CPU backend computes this op through BLAS GEMM. */
int bnl_cpu_uses_gemm(const bnl_op *op);

/* cpu_*.c */
int bnl_cpu_forward(const bnl_ctx *ctx, const bnl_op *op, void *H, int64_t ldh,
                    const void *W, int64_t m, const void *X, int64_t N, int n,
                    fsvc_error *err);
int bnl_cpu_actsum(const bnl_ctx *ctx, const bnl_op *op, double *S,
                   const void *W, int64_t m, const void *X, int64_t N, int n,
                   fsvc_error *err);
int bnl_cpu_scores(const bnl_ctx *ctx, const bnl_op *op, double *Y,
                   const void *W, int64_t m, const void *X, int64_t N, int n,
                   const double *R, int K, fsvc_error *err);

/* cpu_novelty.c: T[i] += h(x_i, c) for one centroid row c: on the
 * host's one thread (host), else on a device context's own actsum (the
 * rule of small calls). The CPU table's other entries: cpu_ops.c. */
int bnl_cpu_nov_one(const bnl_ctx *ctx, int host, const bnl_op *op, double *T, const void *c,
                    const void *X, int64_t N, int n, fsvc_error *err);

/* cpu_normal.c: a CPU session of the normal equations holding the host G
 * the engine hands it: adopt a device's fetched G (double, m x m, both
 * triangles; taken over) in the precision the CPU would have used; the
 * host G and its dtype; diag(G) again after the host changed G; the
 * seconds of H and of its products in the last accumulation. */
/* The CPU table's LMS epoch with per-sample weights sw (N values > 0 or
 * NULL: all 1): sample i's step is eta sw[i] (cpu_lms.c); the devices'
 * epochs take none, so bnl_lms_epoch_w comes here with weights. */
int bnl_cpu_lms_w(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                  const void *X, const int *cls, const double *sw, int64_t N, int n, int K,
                  double eta, int64_t *bad, fsvc_error *err);
int bnl_cpu_normal_adopt(bnl_normal_impl *s, double *G, int64_t m, int K, int gram_f32,
                         fsvc_error *err);
void *bnl_cpu_normal_gram(bnl_normal_impl *s, fsvc_dtype *t);
void bnl_cpu_normal_diag(bnl_normal_impl *s, double *dg);
void bnl_cpu_normal_times(const bnl_normal_impl *s, double *t_h, double *t_g);

/* session.c: 1 if ctx's table offers for op the block products of the
 * normal equations (normal_rhs / normal_apply on a handle opened with
 * bnl_normal_opt.products). */
int bnl_normal_products(const bnl_ctx *ctx, const bnl_op *op);

/* dev_hprod.c: the engine's block products over a device's normal_rhs /
 * normal_apply, as a table holding the hprod entries only (hprod.c picks
 * it for a device table that lists no products of its own). */
extern const bnl_backend_ops bnl_dev_hprod_ops;

#endif /* FSVC_BACKEND_H */
