/* ops.c - the CUDA backend's table for the engine (layers/bnl_backend_ops.h).
 * Built with nvcc every op of the backend (cuda/<x>.cu); built without,
 * only open and describe (cuda/bnl_cuda_none.c: "not compiled in") and
 * the tune-file hooks: a NULL entry is "not offered", the engine runs the
 * call on the CPU. */
#include "bnl_cuda.h"
#include "tune_file.h"

#include <stdio.h>
#include <string.h>

/* The device computes in float64 what comes from u8 and f32 layers: f64
 * scores, normal equations, block products and LMS stay on the CPU. */
int bnl_cuda_supports(const bnl_ctx *ctx, bnl_opkind k, const bnl_op *op)
{
    (void)ctx;
    switch (k) {
    case BNL_OP_SCORES:
    case BNL_OP_NORMAL:
    case BNL_OP_NORMAL_FETCH:
    case BNL_OP_PRODUCTS:
    case BNL_OP_LMS:
        return op->dtype != FSVC_F64;
    default:
        return 1;
    }
}

/* Device bytes of the direct solve (cuda/ridge.cu): G = H^T H in float64
 * (m^2) and as much again for the Cholesky workspace, the upper triangle
 * it mirrors and the tile buffers (a bound), + B, its copy, diag. */
static double device_direct_bytes(int64_t m, int K)
{
    return 2.0 * 8 * (double)m * (double)m + 2.0 * 8 * (double)m * K + 8.0 * m;
}

#define DEVICE_MEM_USE 0.9 /* share of the device's free memory we plan on */

/* auto on the device: direct (whole on the device) while its Gram fits the
 * device memory and the direct solve runs there (one process, class
 * weights or not), else pcg with the device's products. */
void bnl_cuda_plan_ridge(const bnl_ctx *ctx, const bnl_op *op, bnl_ridge_plan *p)
{
    bnlc_device d;
    memset(&d, 0, sizeof d);
    (void)op;
    double need = device_direct_bytes(p->m, p->K);
    double have = ctx->dev && ctx->ops->props && ctx->ops->props(ctx->dev, &d, NULL, 0) == 0 &&
                          d.mem_free > 0
                      ? (double)d.mem_free * DEVICE_MEM_USE : -1;
    p->pcg = p->ranks > 1 || (have >= 0 && need > have);
    p->by_device = 1;
    if (p->ranks > 1)
        snprintf(p->why, sizeof p->why, "ridge: solver auto on the device: pcg (across "
                 "processes the direct solve brings each rank's m x m Gram to the host)");
    else if (have >= 0)
        snprintf(p->why, sizeof p->why, "ridge: solver auto on the device: %s (the float64 "
                 "Gram of %lld centroids needs %.3g GB, %.3g GB of the device's memory usable)",
                 p->pcg ? "pcg" : "direct", (long long)p->m, need / 1e9, have / 1e9);
    else
        snprintf(p->why, sizeof p->why, "ridge: solver auto on the device: direct (its free "
                 "memory is unknown)");
}

#ifdef FSVC_HAVE_CUDA
static int forward(const bnl_ctx *ctx, const bnl_op *op, void *H, int64_t ldh, const void *W,
                   int64_t m, const void *X, int64_t N, int n, fsvc_error *err)
{
    return bnl_cuda_forward(ctx->dev, op, H, ldh, W, m, X, N, n, err);
}

static int actsum(const bnl_ctx *ctx, const bnl_op *op, double *S, const void *W, int64_t m,
                  const void *X, int64_t N, int n, fsvc_error *err)
{
    return bnl_cuda_actsum(ctx->dev, op, S, W, m, X, N, n, err);
}

static int scores(const bnl_ctx *ctx, const bnl_op *op, double *Y, const void *W, int64_t m,
                  const void *X, int64_t N, int n, const double *R, int K, fsvc_error *err)
{
    return bnl_cuda_scores(ctx->dev, op, Y, W, m, X, N, n, R, K, err);
}

static int normal_open(const bnl_ctx *ctx, const bnl_op *op, const bnl_normal_opt *opt,
                       bnl_normal_impl **out, fsvc_error *err)
{
    (void)op; (void)opt;
    return bnl_cuda_normal_open(ctx->dev, out, err);
}

static int lms(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
               const void *X, const int *cls, int64_t N, int n, int K, double eta,
               int64_t *bad, fsvc_error *err)
{
    return bnl_cuda_lms(ctx->dev, op, R, W, m, X, cls, N, n, K, eta, bad, err);
}

static int time_forward(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
                        const void *X, int64_t N, int n, int reps, double *sec,
                        fsvc_error *err)
{
    return bnl_cuda_time_forward(ctx->dev, op, W, m, X, N, n, reps, sec, err);
}

static int nov_open(const bnl_ctx *ctx, const bnl_op *op, int n, int64_t cap,
                    bnl_novelty_impl **out, fsvc_error *err)
{
    return bnl_cuda_nov_open(ctx->dev, op, n, cap, out, err);
}

static int mind_open(const bnl_ctx *ctx, const bnl_op *op, const void *X, int64_t N, int n,
                     bnl_mind_impl **out, fsvc_error *err)
{
    return bnl_cuda_mind_open(ctx->dev, op, X, N, n, out, err);
}
#endif

const bnl_backend_ops bnl_cuda_ops = {
    .name = "cuda",
    .supports = bnl_cuda_supports,
    .open = bnl_cuda_open,
    .close = bnl_cuda_close,
    .describe = bnl_cuda_describe,
    .device_tag = bnl_cuda_device_tag,
    .props = bnl_cuda_props,
    .limits = bnl_cuda_limits,
    .tune_path = bnlc_tune_path,
    .tune_write = bnlc_tune_write,
    .plan_ridge = bnl_cuda_plan_ridge,
#ifdef FSVC_HAVE_CUDA
    .forward = forward,
    .actsum = actsum,
    .scores = scores,
    .normal_open = normal_open,
    .normal_accum = bnl_cuda_normal_accum,
    .normal_solve = bnl_cuda_normal_solve,
    .normal_fetch = bnl_cuda_normal_fetch,
    .normal_close = bnl_cuda_normal_close,
    .normal_rhs = bnl_cuda_normal_rhs,
    .normal_apply = bnl_cuda_normal_apply,
    .lms = lms,
    .time_forward = time_forward,
    .nov_open = nov_open,
    .nov_add = bnl_cuda_nov_add,
    .nov_sums = bnl_cuda_nov_sums,
    .nov_close = bnl_cuda_nov_close,
    .mind_open = mind_open,
    .mind_update = bnl_cuda_mind_update,
    .mind_close = bnl_cuda_mind_close,
#endif
};
