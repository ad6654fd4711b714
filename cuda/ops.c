/* ops.c - the CUDA backend's table of entry points for the engine
 * (layers/bnl_device.h): the real backend (cuda/<x>.cu) or, built without
 * nvcc, cuda/bnl_cuda_none.c; both define every function named here. */
#include "bnl_cuda.h"
#include "tune_file.h"

const bnl_device_ops bnl_cuda_ops = {
    "cuda",
    bnl_cuda_open,
    bnl_cuda_close,
    bnl_cuda_forward,
    bnl_cuda_actsum,
    bnl_cuda_scores,
    bnl_cuda_normal_open,
    bnl_cuda_normal_accum,
    bnl_cuda_normal_solve,
    bnl_cuda_normal_close,
    bnl_cuda_normal_rhs,
    bnl_cuda_normal_apply,
    bnl_cuda_time_forward,
    bnl_cuda_describe,
    bnl_cuda_device_tag,
    bnl_cuda_props,
    bnl_cuda_limits,
    bnlc_tune_path,
    bnlc_tune_write,
    /* the novelty session (cuda/novelty.cu) */
    bnl_cuda_nov_open,
    bnl_cuda_nov_add,
    bnl_cuda_nov_sums,
    bnl_cuda_nov_close,
};
