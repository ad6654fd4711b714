/* cpu_ops.c - the tables of the host backends (layers/bnl_backend_ops.h):
 * bnl_ref_ops, the oracle loops of ref.c, and bnl_cpu_ops, the CPU
 * kernels (cpu_*.c; arch ref runs the oracle). The CPU table is the one
 * the engine falls back to: it offers every op. */
#include "backend.h"
#include "bnl_backend_ops.h"

/* The CPU table's LMS epoch and sessions (cpu_lms.c, cpu_mind.c,
 * cpu_novelty.c), each on bnl_forward / bnl_actsum of the caller's
 * context; the engine reaches them only through bnl_cpu_ops. */
int bnl_cpu_lms(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                const void *X, const int *cls, int64_t N, int n, int K, double eta,
                int64_t *bad, fsvc_error *err);
int bnl_cpu_mind_open(const bnl_ctx *ctx, const bnl_op *op, const void *X, int64_t N, int n,
                      bnl_mind_impl **out, fsvc_error *err);
int bnl_cpu_mind_update(bnl_mind_impl *s, const void *C, int64_t B, double *D2,
                        fsvc_error *err);
void bnl_cpu_mind_close(bnl_mind_impl *s);
int bnl_cpu_nov_open(const bnl_ctx *ctx, const bnl_op *op, int n, int64_t cap,
                     bnl_novelty_impl **out, fsvc_error *err);
int bnl_cpu_nov_add(bnl_novelty_impl *s, const void *C, int64_t rows, fsvc_error *err);
int bnl_cpu_nov_sums(bnl_novelty_impl *s, double *S, const void *X, int64_t N,
                     fsvc_error *err);
void bnl_cpu_nov_close(bnl_novelty_impl *s);
int bnl_cpu_normal_open(const bnl_ctx *ctx, const bnl_op *op, const bnl_normal_opt *opt,
                        bnl_normal_impl **out, fsvc_error *err);
int bnl_cpu_normal_accum(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                         const void *X, int64_t N, int n, const int *cls, const double *y,
                         const double *cw, int K, double *diag, double *B, fsvc_error *err);
int bnl_cpu_normal_solve(bnl_normal_impl *s, double lam, double *R, int *info,
                         fsvc_error *err);
void bnl_cpu_normal_close(bnl_normal_impl *s);
int bnl_cpu_hprod_open(const bnl_ctx *ctx, const bnl_hprod_problem *pb,
                       const bnl_hprod_opt *opt, bnl_hprod_impl **out, fsvc_error *err);
int bnl_cpu_hprod_rhs(bnl_hprod_impl *s, double *B, double *sumsq, fsvc_error *err);
int bnl_cpu_hprod_apply(bnl_hprod_impl *s, double *Y, const double *V, fsvc_error *err);
int bnl_cpu_hprod_kmm(bnl_hprod_impl *s, void *Kmm, int f32, fsvc_error *err);
void bnl_cpu_hprod_stats(const bnl_hprod_impl *s, bnl_hprod_stats *st);
void bnl_cpu_hprod_close(bnl_hprod_impl *s);

/* auto on the host: pcg from p->pcg_m centroids (its cost grows as N m K
 * per iteration, the direct solve's as N m^2) */
static void cpu_plan_ridge(const bnl_ctx *ctx, const bnl_op *op, bnl_ridge_plan *p)
{
    (void)ctx; (void)op;
    p->pcg = p->m >= p->pcg_m;
    p->by_device = 0;
    p->why[0] = 0;
}

static int ref_forward(const bnl_ctx *ctx, const bnl_op *op, void *H, int64_t ldh,
                       const void *W, int64_t m, const void *X, int64_t N, int n,
                       fsvc_error *err)
{
    (void)ctx;
    return bnl_ref_forward(op, H, ldh, W, m, X, N, n, err);
}

static int ref_actsum(const bnl_ctx *ctx, const bnl_op *op, double *S, const void *W,
                      int64_t m, const void *X, int64_t N, int n, fsvc_error *err)
{
    (void)ctx;
    return bnl_ref_actsum(op, S, W, m, X, N, n, err);
}

static int ref_scores(const bnl_ctx *ctx, const bnl_op *op, double *Y, const void *W,
                      int64_t m, const void *X, int64_t N, int n, const double *R, int K,
                      fsvc_error *err)
{
    (void)ctx;
    return bnl_ref_scores(op, Y, W, m, X, N, n, R, K, err);
}

static int cpu_forward(const bnl_ctx *ctx, const bnl_op *op, void *H, int64_t ldh,
                       const void *W, int64_t m, const void *X, int64_t N, int n,
                       fsvc_error *err)
{
    if (ctx->arch == BNL_ARCH_REF)
        return bnl_ref_forward(op, H, ldh, W, m, X, N, n, err);
    return bnl_cpu_forward(ctx, op, H, ldh, W, m, X, N, n, err);
}

static int cpu_actsum(const bnl_ctx *ctx, const bnl_op *op, double *S, const void *W,
                      int64_t m, const void *X, int64_t N, int n, fsvc_error *err)
{
    if (ctx->arch == BNL_ARCH_REF)
        return bnl_ref_actsum(op, S, W, m, X, N, n, err);
    return bnl_cpu_actsum(ctx, op, S, W, m, X, N, n, err);
}

static int cpu_scores(const bnl_ctx *ctx, const bnl_op *op, double *Y, const void *W,
                      int64_t m, const void *X, int64_t N, int n, const double *R, int K,
                      fsvc_error *err)
{
    if (ctx->arch == BNL_ARCH_REF)
        return bnl_ref_scores(op, Y, W, m, X, N, n, R, K, err);
    return bnl_cpu_scores(ctx, op, Y, W, m, X, N, n, R, K, err);
}

const bnl_backend_ops bnl_ref_ops = {
    .name = "ref",
    .forward = ref_forward,
    .actsum = ref_actsum,
    .scores = ref_scores,
};

const bnl_backend_ops bnl_cpu_ops = {
    .name = "cpu",
    .forward = cpu_forward,
    .actsum = cpu_actsum,
    .scores = cpu_scores,
    .normal_open = bnl_cpu_normal_open,
    .normal_accum = bnl_cpu_normal_accum,
    .normal_solve = bnl_cpu_normal_solve,
    .normal_close = bnl_cpu_normal_close,
    .lms = bnl_cpu_lms,
    .nov_open = bnl_cpu_nov_open,
    .nov_add = bnl_cpu_nov_add,
    .nov_sums = bnl_cpu_nov_sums,
    .nov_close = bnl_cpu_nov_close,
    .mind_open = bnl_cpu_mind_open,
    .mind_update = bnl_cpu_mind_update,
    .mind_close = bnl_cpu_mind_close,
    .hprod_open = bnl_cpu_hprod_open,
    .hprod_rhs = bnl_cpu_hprod_rhs,
    .hprod_apply = bnl_cpu_hprod_apply,
    .hprod_kmm = bnl_cpu_hprod_kmm,
    .hprod_stats = bnl_cpu_hprod_stats,
    .hprod_close = bnl_cpu_hprod_close,
    .plan_ridge = cpu_plan_ridge,
};
