/*
 * device.cu - open / close the CUDA backend, device properties (the
 * paper's Fig. 4), the tune file. No device or no driver at run time is a
 * clear one-line FSVC_ERESOURCE, never a crash.
 */
#include "cuda_internal.h"
#include "perf_model.h"
#include "tune_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FP32 / INT32 (dp4a) / FP64 lanes per SM by compute capability. */
static void lanes_for(int major, int minor, int *fp32, int *i32, int *fp64)
{
    *fp32 = 64; *i32 = 64; *fp64 = 32;                     /* 7.0, 8.0 */
    if (major == 7 && minor == 5) { *fp64 = 2; }
    if (major == 8 && minor > 0) { *fp32 = 128; *fp64 = 2; }
    if (major == 9) { *fp32 = 128; *fp64 = 64; }
    if (major >= 10) { *fp32 = 128; *fp64 = major == 10 ? 64 : 2; }
    if (major < 6 || (major == 6 && minor == 0)) { *fp32 = 128; *i32 = 0; *fp64 = 4; }
}

int bnlc_query(int dev, bnlc_device *d, fsvc_error *err)
{
    cudaDeviceProp pr;
    memset(d, 0, sizeof *d);
    CUDA_CHECK(err, cudaGetDeviceProperties(&pr, dev));
    snprintf(d->name, sizeof d->name, "%s", pr.name);
    d->cc_major = pr.major;
    d->cc_minor = pr.minor;
    d->sms = pr.multiProcessorCount;
    lanes_for(pr.major, pr.minor, &d->fp32_per_sm, &d->int32_per_sm, &d->fp64_per_sm);
    int clk = 0, mclk = 0, bus = 0;
    CUDA_CHECK(err, cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev));
    CUDA_CHECK(err, cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, dev));
    CUDA_CHECK(err, cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev));
    d->clock_ghz = clk / 1e6;
    d->mem_bw_gbs = 2.0 * mclk * 1e3 * (bus / 8.0) / 1e9;
    d->mem_total = (int64_t)pr.totalGlobalMem;
    /* free memory is the current device's: switch, then switch back, so that
     * a query (bnl_cuda_describe over all devices) leaves the caller's
     * device current (issue 25) */
    size_t fr = 0, tot = 0;
    int cur = 0;
    CUDA_CHECK(err, cudaGetDevice(&cur));
    CUDA_CHECK(err, cudaSetDevice(dev));
    cudaError_t e = cudaMemGetInfo(&fr, &tot);
    cudaError_t e2 = cudaSetDevice(cur);
    CUDA_CHECK(err, e);
    CUDA_CHECK(err, e2);
    d->mem_free = (int64_t)fr;
    d->max_grid_x = pr.maxGridSize[0];
    d->max_grid_y = pr.maxGridSize[1];
    d->smem_per_block = (int)pr.sharedMemPerBlock;
    return FSVC_OK;
}

/* Why there is no device, in one line; 0 when there is one. */
static int no_device(char *why, size_t len, int *count)
{
    int drv = 0;
    *count = 0;
    cudaDriverGetVersion(&drv);
    cudaError_t e = cudaGetDeviceCount(count);
    if (drv == 0) {
        snprintf(why, len, "cuda: no device (driver not found)");
    } else if (e == cudaErrorInsufficientDriver) {
        int rt = 0;
        cudaRuntimeGetVersion(&rt);
        snprintf(why, len, "cuda: no device (driver %d.%d is older than the runtime %d.%d)",
                 drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
    } else if (e != cudaSuccess) {
        snprintf(why, len, "cuda: no device (%s)", cudaGetErrorString(e));
    } else if (*count <= 0) {
        snprintf(why, len, "cuda: no device (none found)");
    } else {
        return 0;
    }
    cudaGetLastError(); /* clear the sticky-free error state */
    return 1;
}

static void make_tag(char *tag, size_t len, const char *name)
{
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < len; p++)
        tag[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-') ? *p : '-';
    tag[k] = 0;
}

extern "C" void bnl_cuda_close(bnl_cuda *c)
{
    if (!c)
        return;
    cudaSetDevice(c->dev); /* streams, buffers and the handle are c's device's */
    for (int i = 0; i < c->nstreams; i++) {
        struct bnlc_stream *s = &c->st[i];
        if (s->s)
            cudaStreamSynchronize(s->s);
        cudaFree(s->dW); cudaFree(s->dX); cudaFree(s->dH); cudaFree(s->dS);
        cudaFree(s->dxn); cudaFree(s->dwn); cudaFree(s->dQ);
        cudaFreeHost(s->hW); cudaFreeHost(s->hX); cudaFreeHost(s->hH); cudaFreeHost(s->hS);
        if (s->done) cudaEventDestroy(s->done);
        if (s->s) cudaStreamDestroy(s->s);
    }
    if (c->blas)
        cublasDestroy(c->blas);
    free(c);
}

static int open_dev(bnl_cuda *c, int dev, fsvc_error *err)
{
    c->dev = dev;
    CUDA_CHECK(err, cudaSetDevice(dev));
    int rc = bnlc_query(dev, &c->props, err);
    if (rc)
        return rc;
    bnlc_limits_default(&c->lim);
    make_tag(c->tag, sizeof c->tag, c->props.name);
    if (bnlc_tune_path(c->tune_path, sizeof c->tune_path, c->tag) == 0) {
        fsvc_error terr;
        int t = bnlc_tune_read(c->tune_path, &c->lim, &terr);
        if (t == 1)
            c->tune_path[0] = 0;
        else if (t != FSVC_OK)
            return fsvc_fail(err, t, "%s", terr.msg);
    } else {
        c->tune_path[0] = 0;
    }
    c->nstreams = c->lim.streams < 2 ? 2 : c->lim.streams > BNLC_MAX_STREAMS ? BNLC_MAX_STREAMS
                                                                            : c->lim.streams;
    c->lim.streams = c->nstreams;
    for (int i = 0; i < c->nstreams; i++) {
        CUDA_CHECK(err, cudaStreamCreateWithFlags(&c->st[i].s, cudaStreamNonBlocking));
        CUDA_CHECK(err, cudaEventCreateWithFlags(&c->st[i].done, cudaEventDisableTiming));
    }
    CUBLAS_CHECK(err, cublasCreate(&c->blas));
    CUBLAS_CHECK(err, cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH)); /* FP32, no TF32 */
    return FSVC_OK;
}

extern "C" int bnl_cuda_open(bnl_cuda **out, int strict, fsvc_error *err)
{
    const char *tail = strict ? "" : " \xe2\x80\x94 using CPU";
    char why[256];
    int count = 0;
    *out = NULL;
    if (no_device(why, sizeof why, &count))
        return fsvc_fail(err, FSVC_ERESOURCE, "%s%s", why, tail);
    /* FSVC_CUDA_DEVICE, else the mpirun local rank modulo the devices */
    const char *e = getenv("FSVC_CUDA_DEVICE");
    int dev = bnl_cuda_pick_device(count, e, getenv("OMPI_COMM_WORLD_LOCAL_RANK"));
    if (dev < 0)
        return fsvc_fail(err, FSVC_ERESOURCE,
                         "cuda: FSVC_CUDA_DEVICE=%s: no such device (%d present)%s", e ? e : "",
                         count, tail);
    bnl_cuda *c = (bnl_cuda *)calloc(1, sizeof *c);
    if (!c)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: out of host memory");
    int rc = open_dev(c, dev, err);
    if (rc) {
        bnl_cuda_close(c);
        if (!strict && err)
            strncat(err->msg, tail, sizeof err->msg - strlen(err->msg) - 1);
        return rc;
    }
    *out = c;
    return FSVC_OK;
}

extern "C" int bnl_cuda_describe(char *buf, size_t len)
{
    char why[256];
    int count = 0;
    if (!buf || !len)
        return 0;
    if (no_device(why, sizeof why, &count)) {
        snprintf(buf, len, "%s", why);
        return 0;
    }
    size_t k = 0;
    buf[0] = 0;
    for (int dev = 0; dev < count && k + 1 < len; dev++) {
        bnlc_device d;
        fsvc_error err;
        if (bnlc_query(dev, &d, &err)) {
            k += snprintf(buf + k, len - k, "%sdevice %d: %s", k ? "\n" : "", dev, err.msg);
            continue;
        }
        k += snprintf(buf + k, len - k,
                      "%sRunning on GPU: %s (device %d)\n"
                      "Compute capability: %d.%d\n"
                      "Number of streaming multiprocessor: %d\n"
                      "Number of cores per multiprocessor: %d\n"
                      "Number of cores on GPU: %d\n"
                      "Clock: %.3f GHz; memory %.1f GiB (%.1f GiB free), %.0f GB/s\n"
                      "Peak t_syn (model): u8 L1 %.4f ns, f32 L1 %.4f ns",
                      k ? "\n" : "", d.name, dev, d.cc_major, d.cc_minor, d.sms,
                      d.fp32_per_sm, d.sms * d.fp32_per_sm, d.clock_ghz,
                      d.mem_total / 1073741824.0, d.mem_free / 1073741824.0, d.mem_bw_gbs,
                      bnlc_tsyn_peak_ns(&d, FSVC_U8), bnlc_tsyn_peak_ns(&d, FSVC_F32));
        if (k >= len)
            k = len - 1;
    }
    return 1;
}

extern "C" void bnl_cuda_device_tag(const bnl_cuda *c, char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "%s", c ? c->tag : "none");
}
