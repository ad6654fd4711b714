/* ops.c - the CUDA backend's table of entry points for the engine
 * (layers/bnl_device.h): the real backend (cuda/<x>.cu) or, built without
 * nvcc, cuda/bnl_cuda_none.c; both define every function named here. */
#include "bnl_cuda.h"
#include "tune_file.h"

const bnl_device_ops bnl_cuda_ops = {
    .name = "cuda",
    .open = bnl_cuda_open,
    .close = bnl_cuda_close,
    .forward = bnl_cuda_forward,
    .actsum = bnl_cuda_actsum,
    .scores = bnl_cuda_scores,
    .normal_open = bnl_cuda_normal_open,
    .normal_accum = bnl_cuda_normal_accum,
    .normal_solve = bnl_cuda_normal_solve,
    .normal_fetch = bnl_cuda_normal_fetch,
    .normal_close = bnl_cuda_normal_close,
    .normal_rhs = bnl_cuda_normal_rhs,
    .normal_apply = bnl_cuda_normal_apply,
    .lms = bnl_cuda_lms,
    .time_forward = bnl_cuda_time_forward,
    .describe = bnl_cuda_describe,
    .device_tag = bnl_cuda_device_tag,
    .props = bnl_cuda_props,
    .limits = bnl_cuda_limits,
    .tune_path = bnlc_tune_path,
    .tune_write = bnlc_tune_write,
    .nov_open = bnl_cuda_nov_open,
    .nov_add = bnl_cuda_nov_add,
    .nov_sums = bnl_cuda_nov_sums,
    .nov_close = bnl_cuda_nov_close,
    .mind_open = bnl_cuda_mind_open,
    .mind_update = bnl_cuda_mind_update,
    .mind_close = bnl_cuda_mind_close,
};
