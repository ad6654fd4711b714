/*
 * bnl_cuda_none.c - the CUDA table without a backend: built without nvcc
 * (or NO_CUDA=1: "not compiled in"), or built with nvcc when fsvc-cuda.so
 * does not load (the loader's line, cuda/load.c). open fails with that
 * line and describe says it, the tuning hooks answer as without a device,
 * every op is NULL ("not offered"), so the engine computes on the CPU.
 */
#include "bnl_cuda.h"
#include "tune_file.h"

#include <stdio.h>

#define NOT_BUILT "cuda: not compiled in (nvcc was not found at build time)"

static char g_why[1000] = NOT_BUILT; /* set once, before the table is handed out */

void bnlc_none_set_why(const char *why)
{
    snprintf(g_why, sizeof g_why, "%s", why);
}

static int none_open(bnl_cuda **out, int strict, fsvc_error *err)
{
    if (out)
        *out = NULL;
    return fsvc_fail(err, FSVC_ERESOURCE, "%s%s", g_why, strict ? "" : " \xe2\x80\x94 using CPU");
}

static void none_close(bnl_cuda *c) { (void)c; }

static int none_describe(char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "%s", g_why);
    return 0;
}

static void none_device_tag(const bnl_cuda *c, char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "none");
}

static void none_limits(bnl_cuda *c, bnlc_limits *get, const bnlc_limits *set)
{
    if (get)
        bnlc_limits_default(get);
}

static int none_props(const bnl_cuda *c, bnlc_device *d, char *tune_path, size_t len)
{
    return -1;
}

const bnl_backend_ops bnlc_none_ops = {
    .name = "cuda",
    .supports = bnl_cuda_supports,
    .open = none_open,
    .close = none_close,
    .describe = none_describe,
    .device_tag = none_device_tag,
    .props = none_props,
    .limits = none_limits,
    .tune_path = bnlc_tune_path,
    .tune_write = bnlc_tune_write,
    .plan_ridge = bnl_cuda_plan_ridge,
};

#ifndef FSVC_HAVE_CUDA
/* The backend's own names, which the tests call directly; built with nvcc
 * they are cuda/<x>.cu's. */
int bnl_cuda_open(bnl_cuda **out, int strict, fsvc_error *err)
{
    return none_open(out, strict, err);
}

void bnl_cuda_close(bnl_cuda *c) { none_close(c); }

int bnl_cuda_describe(char *buf, size_t len) { return none_describe(buf, len); }

void bnl_cuda_device_tag(const bnl_cuda *c, char *buf, size_t len)
{
    none_device_tag(c, buf, len);
}

void bnl_cuda_limits(bnl_cuda *c, bnlc_limits *get, const bnlc_limits *set)
{
    none_limits(c, get, set);
}

int bnl_cuda_props(const bnl_cuda *c, bnlc_device *d, char *tune_path, size_t len)
{
    return none_props(c, d, tune_path, len);
}
#endif
