/* ops.c - the CUDA backend's table for the engine (layers/bnl_backend_ops.h):
 * every op of the backend (cuda/<x>.cu), and the plugin's entry
 * (cuda/plugin.h) that hands it to the library. Built only with nvcc, into
 * fsvc-cuda.so (and the tests' archive of the backend). */
#include "bnl_cuda.h"
#include "plugin.h"
#include "tune_file.h"

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
};

const bnl_cuda_plugin *fsvc_cuda_plugin(void)
{
    static const bnl_cuda_plugin p = {
        BNL_CUDA_PLUGIN_ABI, sizeof(bnl_backend_ops), sizeof(bnl_ctx), sizeof(bnl_op),
        sizeof(fsvc_error), &bnl_cuda_ops,
    };
    return &p;
}
