/* plugin.h - the CUDA backend as a plugin: fsvc-cuda.so.
 *
 * Built with nvcc, the backend (cuda/<x>.cu, cuda/ops.c and the host C
 * they call) is linked with cudart, cuBLAS and cuSOLVER into fsvc-cuda.so,
 * not into fsvc or libfsvc: loading those libraries takes about 85 ms, more
 * than a whole small job. The library loads the plugin the first time a
 * run asks for the CUDA table (cuda/load.c). The plugin exports this entry
 * only (cuda/plugin.map); its copies of base/ and the planner stay
 * private, so they never stand in for the host's. */
#ifndef FSVC_CUDA_PLUGIN_H
#define FSVC_CUDA_PLUGIN_H

#include <stddef.h>

#include "../layers/bnl_backend_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BNL_CUDA_PLUGIN_ABI 1 /* changes with bnl_backend_ops and what it passes */
#define BNL_CUDA_PLUGIN "fsvc-cuda.so"
#define BNL_CUDA_ENTRY "fsvc_cuda_plugin" /* const bnl_cuda_plugin *fsvc_cuda_plugin(void) */

/* What the entry returns: the ABI and the sizes of the shared types as the
 * plugin was built (a host of another build refuses a mismatch), and the
 * table. */
typedef struct bnl_cuda_plugin {
    int abi;
    size_t ops_size, ctx_size, op_size, err_size; /* sizeof: bnl_backend_ops, bnl_ctx, bnl_op, fsvc_error */
    const bnl_backend_ops *ops;
} bnl_cuda_plugin;

const bnl_cuda_plugin *fsvc_cuda_plugin(void);

#ifdef __cplusplus
}
#endif
#endif
