/*
 * bnl_cuda_none.c - the CUDA backend when nvcc was not found at build time
 * (or NO_CUDA=1): open fails and describe says so in one line, the
 * tuning hooks answer as without a device; cuda/ops.c leaves every op of
 * the table NULL ("not offered"), so the engine computes on the CPU.
 * The real backend is in cuda/<x>.cu, built only with FSVC_HAVE_CUDA.
 */
#include "bnl_cuda.h"

#include <stdio.h>

#ifndef FSVC_HAVE_CUDA

#define NOT_BUILT "cuda: not compiled in (nvcc was not found at build time)"

int bnl_cuda_open(bnl_cuda **out, int strict, fsvc_error *err)
{
    if (out)
        *out = NULL;
    return fsvc_fail(err, FSVC_ERESOURCE, "%s%s", NOT_BUILT,
                     strict ? "" : " \xe2\x80\x94 using CPU");
}

void bnl_cuda_close(bnl_cuda *c) { (void)c; }

int bnl_cuda_describe(char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "%s", NOT_BUILT);
    return 0;
}

void bnl_cuda_device_tag(const bnl_cuda *c, char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "none");
}

void bnl_cuda_limits(bnl_cuda *c, bnlc_limits *get, const bnlc_limits *set)
{
    if (get)
        bnlc_limits_default(get);
}

int bnl_cuda_props(const bnl_cuda *c, bnlc_device *d, char *tune_path, size_t len)
{
    return -1;
}

#else
/* Built with nvcc: the backend lives in cuda/device.cu and friends. ISO C
 * forbids an empty translation unit. */
typedef int bnl_cuda_none_unused;
#endif
