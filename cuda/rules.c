/* rules.c - what the CUDA backend's table takes and its ridge solver rule:
 * pure host C, in the library (the tests' emulated device shares them)
 * and in the plugin's table (cuda/ops.c). */
#include "bnl_cuda.h"

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
