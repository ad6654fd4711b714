/* bnl.c - the engine's front: contexts (backend, CPU arch, threads), input
 * checks, and dispatch of forward / actsum / scores to the backends: ref.c
 * (backend "ref", or arch ref on the CPU backend), the CPU kernels
 * (cpu_*.c) and device backends through their bnl_device_ops table. */
#include "backend.h"
#include "bnl_device.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device backend of a context (the only one today: cuda/), or the
 * one a test installed (bnl_device_ops_use). */
static const bnl_device_ops *dev_use;
static const bnl_device_ops *dev_ops(void) { return dev_use ? dev_use : &bnl_cuda_ops; }

void bnl_device_ops_use(const bnl_device_ops *ops) { dev_use = ops; }

/* "not offered" (a NULL entry point) is the CPU path or "no device" */
#define OFFERS(f) (dev_ops()->f != NULL)

int bnl_ctx_open(bnl_ctx *ctx, const char *backend, int threads, int strict,
                 fsvc_error *err)
{
    if (!ctx)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no context given");
    memset(ctx, 0, sizeof *ctx);
    bnl_backend b;
    if (!backend || bnl_backend_parse(backend, &b) != 0)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: unknown backend '%s' (ref, cpu or cuda)",
                         backend ? backend : "(null)");
    bnl_blas_core_fix(); /* before any GEMM of this process's engine */
    ctx->threads = threads > 0 ? threads : omp_get_num_procs();
    ctx->arch = bnl_arch_detect(NULL, 0);
    ctx->backend = b;
    if (b == BNL_CUDA) {
        fsvc_error e2;
        fsvc_error_clear(&e2);
        bnl_cuda *c = NULL;
        int rc = OFFERS(open) ? dev_ops()->open(&c, strict, &e2)
                              : fsvc_fail(&e2, FSVC_ERESOURCE, "%s: no device backend",
                                          dev_ops()->name ? dev_ops()->name : "device");
        if (rc != FSVC_OK) {
            if (strict) {
                if (err)
                    *err = e2;
                return rc;
            }
            fsvc_printf("%s\n", e2.msg);
            ctx->backend = BNL_CPU;
        } else {
            ctx->cuda = c;
        }
    }
    return FSVC_OK;
}

void bnl_ctx_close(bnl_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->cuda && OFFERS(close))
        dev_ops()->close(ctx->cuda);
    ctx->cuda = NULL;
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
static int check_call(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
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
    int rc = check_call(ctx, op, W, m, X, N, n, H, err);
    if (rc)
        return rc;
    if (ldh < m)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: ldh=%lld < m=%lld", (long long)ldh,
                         (long long)m);
    if (m == 0 || N == 0)
        return FSVC_OK;
    switch (ctx->backend) {
    case BNL_REF:
        return bnl_ref_forward(op, H, ldh, W, m, X, N, n, err);
    case BNL_CUDA:
        if (ctx->cuda && OFFERS(forward)) /* u8, f32 and f64 (issue 10) */
            return dev_ops()->forward(ctx->cuda, op, H, ldh, W, m, X, N, n, err);
        /* fall through */
    case BNL_CPU:
    default:
        if (ctx->arch == BNL_ARCH_REF)
            return bnl_ref_forward(op, H, ldh, W, m, X, N, n, err);
        return bnl_cpu_forward(ctx, op, H, ldh, W, m, X, N, n, err);
    }
}

int bnl_actsum(const bnl_ctx *ctx, const bnl_op *op, double *S, const void *W, int64_t m,
               const void *X, int64_t N, int n, fsvc_error *err)
{
    int rc = check_call(ctx, op, W, m, X, N, n, S, err);
    if (rc)
        return rc;
    if (m == 0 || N == 0)
        return FSVC_OK;
    switch (ctx->backend) {
    case BNL_REF:
        return bnl_ref_actsum(op, S, W, m, X, N, n, err);
    case BNL_CUDA:
        if (ctx->cuda && OFFERS(actsum))
            return dev_ops()->actsum(ctx->cuda, op, S, W, m, X, N, n, err);
        /* fall through */
    case BNL_CPU:
    default:
        if (ctx->arch == BNL_ARCH_REF)
            return bnl_ref_actsum(op, S, W, m, X, N, n, err);
        return bnl_cpu_actsum(ctx, op, S, W, m, X, N, n, err);
    }
}

int bnl_scores(const bnl_ctx *ctx, const bnl_op *op, double *Y, const void *W, int64_t m,
               const void *X, int64_t N, int n, const double *R, int K, fsvc_error *err)
{
    int rc = check_call(ctx, op, W, m, X, N, n, Y, err);
    if (rc)
        return rc;
    if (K < 1 || (m > 0 && !R))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: scores need K >= 1 and R (m x K)");
    if (N == 0)
        return FSVC_OK;
    if (ctx->backend == BNL_REF || ctx->arch == BNL_ARCH_REF)
        return bnl_ref_scores(op, Y, W, m, X, N, n, R, K, err);
    if (op->dtype != FSVC_F64 && ctx->cuda && OFFERS(scores)) /* H, Y = H R on the device (f64: CPU) */
        return dev_ops()->scores(ctx->cuda, op, Y, W, m, X, N, n, R, K, err);
    return bnl_cpu_scores(ctx, op, Y, W, m, X, N, n, R, K, err);
}

int bnl_backend_describe(bnl_backend b, char *buf, size_t len)
{
    if (b == BNL_CUDA && OFFERS(describe))
        return dev_ops()->describe(buf, len);
    if (b == BNL_CUDA) {
        if (buf && len)
            snprintf(buf, len, "no device backend");
        return 0;
    }
    if (buf && len)
        snprintf(buf, len, "%s", bnl_backend_name(b));
    return 1;
}

int bnl_gpu_props(const bnl_ctx *ctx, bnlc_device *d, char *tune_path, size_t len)
{
    if (!ctx || !ctx->cuda || !OFFERS(props))
        return -1;
    return dev_ops()->props(ctx->cuda, d, tune_path, len);
}

void bnl_gpu_device_tag(const bnl_ctx *ctx, char *buf, size_t len)
{
    if (OFFERS(device_tag))
        dev_ops()->device_tag(ctx ? ctx->cuda : NULL, buf, len);
    else if (buf && len)
        snprintf(buf, len, "none");
}

void bnl_gpu_limits(const bnl_ctx *ctx, bnlc_limits *get, const bnlc_limits *set)
{
    if (OFFERS(limits))
        dev_ops()->limits(ctx ? ctx->cuda : NULL, get, ctx && ctx->cuda ? set : NULL);
    else if (get)
        memset(get, 0, sizeof *get);
}

int bnl_gpu_tune_path(char *buf, size_t len, const char *tag)
{
    if (!OFFERS(tune_path))
        return -1;
    return dev_ops()->tune_path(buf, len, tag);
}

int bnl_gpu_tune_write(const char *path, const char *device, const bnlc_limits *lim,
                       const char *comment, fsvc_error *err)
{
    if (!OFFERS(tune_write))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the device backend writes no tune file");
    return dev_ops()->tune_write(path, device, lim, comment, err);
}

int bnl_normal_open(const bnl_ctx *ctx, const bnl_op *op, bnl_normal **out, fsvc_error *err)
{
    *out = NULL;
    if (!ctx || !op || !ctx->cuda || op->dtype == FSVC_F64 || !OFFERS(normal_open) ||
        !OFFERS(normal_accum) || !OFFERS(normal_solve))
        return FSVC_OK;
    return dev_ops()->normal_open(ctx->cuda, out, err);
}

int bnl_normal_accum(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                     const void *X, int64_t N, int n, const int *cls, const double *y,
                     const double *cw, int K, double *diag, double *B, fsvc_error *err)
{
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (!s || !OFFERS(normal_accum))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: normal equations not open on a device");
    if (cw && (!cls || y))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: class weights need the classes");
    return dev_ops()->normal_accum(s, op, W, m, X, N, n, cls, y, cw, K, diag, B, err);
}

int bnl_normal_solve(bnl_normal *s, double lam, double *R, int *info, fsvc_error *err)
{
    if (!s || !OFFERS(normal_solve))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: normal equations not open on a device");
    return dev_ops()->normal_solve(s, lam, R, info, err);
}

int bnl_normal_fetch(bnl_normal *s, double *G, fsvc_error *err)
{
    if (!s || !OFFERS(normal_fetch))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the device offers no fetch of H^T H");
    return dev_ops()->normal_fetch(s, G, err);
}

int bnl_normal_fetch_offered(const bnl_ctx *ctx, const bnl_op *op)
{
    return ctx && op && ctx->cuda && op->dtype != FSVC_F64 && OFFERS(normal_open) &&
           OFFERS(normal_accum) && OFFERS(normal_solve) && OFFERS(normal_fetch);
}

int bnl_normal_rhs(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                   const void *X, int64_t N, int n, const int *cls, const double *y,
                   int K, double *B, double *sumsq, fsvc_error *err)
{
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (!s || !OFFERS(normal_rhs))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the device offers no block products");
    return dev_ops()->normal_rhs(s, op, W, m, X, N, n, cls, y, K, B, sumsq, err);
}

int bnl_normal_apply(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                     const void *X, int64_t N, int n, const double *V, int K, double *Y,
                     fsvc_error *err)
{
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (!s || !OFFERS(normal_apply))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the device offers no block products");
    return dev_ops()->normal_apply(s, op, W, m, X, N, n, V, K, Y, err);
}

int bnl_normal_products(const bnl_ctx *ctx, const bnl_op *op)
{
    return ctx && op && ctx->cuda && op->dtype != FSVC_F64 && OFFERS(normal_open) &&
           OFFERS(normal_accum) && OFFERS(normal_solve) && OFFERS(normal_rhs) &&
           OFFERS(normal_apply);
}

int bnl_lms_offered(const bnl_ctx *ctx, const bnl_op *op)
{
    return ctx && op && ctx->cuda && op->dtype != FSVC_F64 && OFFERS(lms);
}

int bnl_lms_epoch(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                  const void *X, const int *cls, int64_t N, int n, int K, double eta,
                  int64_t *bad, fsvc_error *err)
{
    int rc = check_call(ctx, op, W, m, X, N, n, R, err);
    if (rc)
        return rc;
    if (!bnl_lms_offered(ctx, op))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the LMS readout is not offered on a device "
                         "for this layer");
    if (K < 1 || !cls || !bad)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the LMS readout needs K >= 1, the classes "
                         "and a status");
    *bad = -1;
    if (N == 0 || m == 0)
        return FSVC_OK;
    return dev_ops()->lms(ctx->cuda, op, R, W, m, X, cls, N, n, K, eta, bad, err);
}

void bnl_normal_close(bnl_normal *s)
{
    if (s && OFFERS(normal_close))
        dev_ops()->normal_close(s);
}

/* ---- the novelty session ---- */
int bnl_novelty_open(const bnl_ctx *ctx, const bnl_op *op, int n, int64_t cap,
                     bnl_novelty **out, fsvc_error *err)
{
    *out = NULL;
    if (!ctx || !op || ctx->backend != BNL_CUDA || !ctx->cuda || !OFFERS(nov_open) ||
        !OFFERS(nov_add) || !OFFERS(nov_sums))
        return FSVC_OK;
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (n < 1 || n > 65536 || (op->dtype == FSVC_U8 && op->dist != BNL_L1 &&
                               n > BNL_L2SQ_U8_MAX_N))
        return FSVC_OK; /* bnl_actsum says why */
    return dev_ops()->nov_open(ctx->cuda, op, n, cap, out, err);
}

int bnl_novelty_add(bnl_novelty *s, const void *C, int64_t rows, fsvc_error *err)
{
    if (!s || !OFFERS(nov_add))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no novelty session open on a device");
    if (rows < 0 || (rows > 0 && !C))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: novelty: bad rows (%lld)", (long long)rows);
    return rows ? dev_ops()->nov_add(s, C, rows, err) : FSVC_OK;
}

int bnl_novelty_sums(bnl_novelty *s, double *S, const void *X, int64_t N, fsvc_error *err)
{
    if (!s || !OFFERS(nov_sums))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no novelty session open on a device");
    if (N < 0 || (N > 0 && (!S || !X)))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: novelty: bad samples (%lld)", (long long)N);
    return N ? dev_ops()->nov_sums(s, S, X, N, err) : FSVC_OK;
}

void bnl_novelty_close(bnl_novelty *s)
{
    if (s && OFFERS(nov_close))
        dev_ops()->nov_close(s);
}

/* ---- the min-distance session (k-means++) ---- */
int bnl_mind_open(const bnl_ctx *ctx, const bnl_op *op, const void *X, int64_t N, int n,
                  bnl_mind **out, fsvc_error *err)
{
    *out = NULL;
    if (!ctx || !op || ctx->backend != BNL_CUDA || !ctx->cuda || !OFFERS(mind_open) ||
        !OFFERS(mind_update))
        return FSVC_OK;
    bnl_op id = *op;
    id.act = BNL_IDENT;
    int rc = bnl_op_check(&id, err);
    if (rc)
        return rc;
    if (!X || N < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: min distances: no samples");
    if ((id.dist != BNL_L1 && id.dist != BNL_L2) || n < 1 || n > 65536 ||
        (id.dtype == FSVC_U8 && id.dist != BNL_L1 && n > BNL_L2SQ_U8_MAX_N))
        return FSVC_OK; /* bnl_forward says why */
    return dev_ops()->mind_open(ctx->cuda, &id, X, N, n, out, err);
}

int bnl_mind_update(bnl_mind *s, const void *C, int64_t B, double *D2, fsvc_error *err)
{
    if (!s || !OFFERS(mind_update))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no min-distance session open on a device");
    if (B < 0 || (B > 0 && !C) || !D2)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: min distances: bad centroids (%lld)",
                         (long long)B);
    return dev_ops()->mind_update(s, C, B, D2, err);
}

void bnl_mind_close(bnl_mind *s)
{
    if (s && OFFERS(mind_close))
        dev_ops()->mind_close(s);
}

int bnl_gpu_time_forward(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
                         const void *X, int64_t N, int n, int reps, double *sec,
                         fsvc_error *err)
{
    if (!ctx || !ctx->cuda || !op || !OFFERS(time_forward))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: kernel-only timing needs a device");
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    return dev_ops()->time_forward(ctx->cuda, op, W, m, X, N, n, reps, sec, err);
}
