/* bnl.c - the engine's front: contexts (backend table, CPU arch, threads),
 * input checks, and dispatch of every call through the context's table
 * (layers/bnl_backend_ops.h): the ref, cpu or a device's, with the CPU table
 * (layers/cpu_ops.c) where the context's does not offer the call. */
#include "backend.h"
#include "bnl_backend_ops.h"
#include "cpu_dnnl.h"
#include "cpu_wcache.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Whether ctx's table offers kind k (-1: no layer rule) for op, entry f
 * being non-NULL; else the CPU table runs the call. */
static int offers(const bnl_ctx *ctx, int k, const bnl_op *op)
{
    return k < 0 || !ctx->ops->supports || ctx->ops->supports(ctx, (bnl_opkind)k, op);
}
#define TABLE(ctx, f, k, op) \
    ((ctx)->ops && (ctx)->ops->f && offers((ctx), (k), (op)) ? (ctx)->ops : &bnl_cpu_ops)
/* the device table of backend b's open (info, tune): NULL on ref and cpu */
#define DEV(ctx) ((ctx) && (ctx)->dev ? (ctx)->ops : NULL)

double bnl_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int ctx_init(bnl_ctx *ctx, bnl_backend b, int threads)
{
    memset(ctx, 0, sizeof *ctx);
    bnl_blas_core_fix(); /* before any GEMM of this process's engine */
    ctx->threads = threads > 0 ? threads : omp_get_num_procs();
    ctx->arch = bnl_arch_detect(NULL, 0);
    ctx->backend = b;
    ctx->ops = b == BNL_REF ? &bnl_ref_ops : &bnl_cpu_ops;
    ctx->dnnl = b == BNL_REF ? NULL : bnl_dnnl_open(); /* NULL: the other paths */
    ctx->wcache = b == BNL_REF ? NULL : bnl_wcache_open(); /* NULL: nothing kept */
    return FSVC_OK;
}

int bnl_ctx_open_device(bnl_ctx *ctx, const bnl_backend_ops *dev, int threads, int strict,
                        fsvc_error *err)
{
    if (!ctx)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no context given");
    ctx_init(ctx, BNL_CUDA, threads);
    if (!dev)
        dev = bnl_cuda_table();
    fsvc_error e2;
    fsvc_error_clear(&e2);
    bnl_cuda *c = NULL;
    int rc = dev->open ? dev->open(&c, strict, &e2)
                       : fsvc_fail(&e2, FSVC_ERESOURCE, "%s: no device backend",
                                   dev->name ? dev->name : "device");
    if (rc != FSVC_OK) {
        if (strict) { /* a failed open leaves nothing to close */
            bnl_ctx_close(ctx);
            if (err)
                *err = e2;
            return rc;
        }
        fsvc_printf("%s\n", e2.msg);
        ctx->backend = BNL_CPU;
        return FSVC_OK;
    }
    ctx->ops = dev;
    ctx->dev = c;
    return FSVC_OK;
}

int bnl_ctx_open(bnl_ctx *ctx, const char *backend, int threads, int strict,
                 fsvc_error *err)
{
    return bnl_ctx_open_with(ctx, backend, NULL, threads, strict, err);
}

int bnl_ctx_open_with(bnl_ctx *ctx, const char *backend, const bnl_backend_ops *dev,
                      int threads, int strict, fsvc_error *err)
{
    if (!ctx)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no context given");
    memset(ctx, 0, sizeof *ctx);
    bnl_backend b;
    if (!backend || bnl_backend_parse(backend, &b) != 0)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: unknown backend '%s' (ref, cpu or cuda)",
                         backend ? backend : "(null)");
    if (b == BNL_CUDA)
        return bnl_ctx_open_device(ctx, dev, threads, strict, err);
    return ctx_init(ctx, b, threads);
}

void bnl_ctx_close(bnl_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->dev && ctx->ops && ctx->ops->close)
        ctx->ops->close(ctx->dev);
    ctx->dev = NULL;
    ctx->ops = ctx->backend == BNL_REF ? &bnl_ref_ops : &bnl_cpu_ops;
    bnl_dnnl_close(ctx->dnnl);
    ctx->dnnl = NULL;
    bnl_wcache_close(ctx->wcache);
    ctx->wcache = NULL;
}

bnl_ctx bnl_ctx_host(const bnl_ctx *ctx, int threads)
{
    bnl_ctx h = *ctx;
    h.dev = NULL;
    if (ctx->backend != BNL_REF) {
        h.backend = BNL_CPU;
        h.ops = &bnl_cpu_ops;
    }
    if (threads > 0)
        h.threads = threads;
    return h;
}

int bnl_ctx_set_arch(bnl_ctx *ctx, bnl_arch arch, fsvc_error *err)
{
    if ((unsigned)arch >= BNL_ARCH_COUNT)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: unknown arch %d", (int)arch);
    if (!bnl_arch_supported(arch))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: this CPU cannot run %s kernels",
                         bnl_arch_name(arch));
    ctx->arch = arch;
    return FSVC_OK;
}

/* Shapes and pointers shared by the three entry points. */
int bnl_check_call(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
                      const void *X, int64_t N, int n, const void *out, fsvc_error *err)
{
    if (!ctx)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no context given");
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (m < 0 || N < 0 || n < 1 || n > 65536)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: bad shape m=%lld N=%lld n=%d (n in [1, 65536])",
                         (long long)m, (long long)N, n);
    if (m > 0 && N > 0 && (!W || !X || !out))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: NULL matrix for m=%lld N=%lld",
                         (long long)m, (long long)N);
    if (op->dtype == FSVC_U8 && op->dist != BNL_L1 && n > BNL_L2SQ_U8_MAX_N)
        return fsvc_fail(err, FSVC_EUSAGE,
                         "bnl: u8 %s needs n <= %d (exact int32 sums), got n=%d; use f32 or f64",
                         bnl_dist_name(op->dist), BNL_L2SQ_U8_MAX_N, n);
    return FSVC_OK;
}

int bnl_forward(const bnl_ctx *ctx, const bnl_op *op, void *H, int64_t ldh,
                const void *W, int64_t m, const void *X, int64_t N, int n,
                fsvc_error *err)
{
    int rc = bnl_check_call(ctx, op, W, m, X, N, n, H, err);
    if (rc)
        return rc;
    if (ldh < m)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: ldh=%lld < m=%lld", (long long)ldh,
                         (long long)m);
    if (m == 0 || N == 0)
        return FSVC_OK;
    return TABLE(ctx, forward, -1, op)->forward(ctx, op, H, ldh, W, m, X, N, n, err);
}

int bnl_actsum(const bnl_ctx *ctx, const bnl_op *op, double *S, const void *W, int64_t m,
               const void *X, int64_t N, int n, fsvc_error *err)
{
    int rc = bnl_check_call(ctx, op, W, m, X, N, n, S, err);
    if (rc)
        return rc;
    if (m == 0 || N == 0)
        return FSVC_OK;
    return TABLE(ctx, actsum, -1, op)->actsum(ctx, op, S, W, m, X, N, n, err);
}

int bnl_scores(const bnl_ctx *ctx, const bnl_op *op, double *Y, const void *W, int64_t m,
               const void *X, int64_t N, int n, const double *R, int K, fsvc_error *err)
{
    int rc = bnl_check_call(ctx, op, W, m, X, N, n, Y, err);
    if (rc)
        return rc;
    if (K < 1 || (m > 0 && !R))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: scores need K >= 1 and R (m x K)");
    if (N == 0)
        return FSVC_OK;
    /* FSVC_ARCH=ref: the oracle's scores on every backend */
    const bnl_backend_ops *t = ctx->arch == BNL_ARCH_REF ? &bnl_cpu_ops
                                                          : TABLE(ctx, scores, BNL_OP_SCORES, op);
    return t->scores(ctx, op, Y, W, m, X, N, n, R, K, err);
}

int64_t bnl_scores_rows(const bnl_ctx *ctx, int64_t N, int64_t host_rows)
{
    return ctx && ctx->dev ? (N > 0 ? N : 1) : host_rows;
}

int bnl_backend_describe(bnl_backend b, char *buf, size_t len)
{
    const bnl_backend_ops *t = b == BNL_CUDA ? bnl_cuda_table() : NULL;
    if (t && t->describe)
        return t->describe(buf, len);
    if (t) {
        if (buf && len)
            snprintf(buf, len, "no device backend");
        return 0;
    }
    if (buf && len)
        snprintf(buf, len, "%s", bnl_backend_name(b));
    return 1;
}

/* The tuning hooks: the context's device table, else the CUDA backend's
 * answers without a device (or none when it has no such entry). */
static const bnl_backend_ops *tuner(const bnl_ctx *ctx)
{
    return DEV(ctx) ? ctx->ops : bnl_cuda_table();
}

int bnl_gpu_props(const bnl_ctx *ctx, bnlc_device *d, char *tune_path, size_t len)
{
    if (!DEV(ctx) || !ctx->ops->props)
        return -1;
    return ctx->ops->props(ctx->dev, d, tune_path, len);
}

void bnl_gpu_device_tag(const bnl_ctx *ctx, char *buf, size_t len)
{
    const bnl_backend_ops *t = tuner(ctx);
    if (t->device_tag)
        t->device_tag(DEV(ctx) ? ctx->dev : NULL, buf, len);
    else if (buf && len)
        snprintf(buf, len, "none");
}

void bnl_gpu_limits(const bnl_ctx *ctx, bnlc_limits *get, const bnlc_limits *set)
{
    const bnl_backend_ops *t = tuner(ctx);
    if (t->limits)
        t->limits(DEV(ctx) ? ctx->dev : NULL, get, DEV(ctx) ? set : NULL);
    else if (get)
        memset(get, 0, sizeof *get);
}

int bnl_gpu_tune_path(char *buf, size_t len, const char *tag)
{
    const bnl_backend_ops *t = bnl_cuda_table();
    if (!t->tune_path)
        return -1;
    return t->tune_path(buf, len, tag);
}

int bnl_gpu_tune_write(const char *path, const char *device, const bnlc_limits *lim,
                       const char *comment, fsvc_error *err)
{
    const bnl_backend_ops *t = bnl_cuda_table();
    if (!t->tune_write)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the device backend writes no tune file");
    return t->tune_write(path, device, lim, comment, err);
}

int bnl_gpu_time_forward(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
                         const void *X, int64_t N, int n, int reps, double *sec,
                         fsvc_error *err)
{
    if (!DEV(ctx) || !op || !ctx->ops->time_forward)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: kernel-only timing needs a device");
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    return ctx->ops->time_forward(ctx, op, W, m, X, N, n, reps, sec, err);
}
