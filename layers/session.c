/* session.c - the engine's sessions (bnl.h bnl_normal_*, bnl_lms_*,
 * bnl_novelty_*, bnl_mind_*): each opens on the context's table when it
 * offers the session for the layer, and keeps that table, so every later
 * call of the session reaches the backend that holds its state. */
#include "backend.h"
#include "bnl_backend_ops.h"

#include <stdlib.h>
#include <string.h>

struct bnl_mind { const bnl_backend_ops *t; bnl_mind_impl *s; };

/* ctx's own table when it offers kind k for op (supports()), else NULL */
static const bnl_backend_ops *offered(const bnl_ctx *ctx, bnl_opkind k, const bnl_op *op)
{
    const bnl_backend_ops *t = ctx ? ctx->ops : NULL;
    if (!t || !op || (t->supports && !t->supports(ctx, k, op)))
        return NULL;
    return t;
}

/* ---- the ridge normal equations ----
 * On the context's device when it offers them for the layer (and their
 * fetch when G is wanted on the host), else on the CPU table. A device
 * that cannot (FSVC_ERESOURCE at open, accumulation or fetch) says so in
 * one line and the CPU table accumulates instead. With host_gram the
 * device's G comes back once after the accumulation, into a CPU session
 * that then solves, as the CPU's own would. */
static const bnl_backend_ops *normal_table(const bnl_ctx *ctx, const bnl_op *op)
{
    const bnl_backend_ops *t = offered(ctx, BNL_OP_NORMAL, op);
    return t && t->normal_open && t->normal_accum && t->normal_solve ? t : NULL;
}

struct bnl_normal {
    const bnl_ctx *ctx;
    bnl_normal_opt opt;
    const bnl_backend_ops *t; /* the table of s */
    bnl_normal_impl *s;
    double t_h, t_g;          /* the last accumulation's seconds */
};

static void say_cpu(const fsvc_error *err)
{
    fsvc_printf("ridge: %s; computing on the CPU\n", err ? err->msg : "device failed");
}

static int open_cpu(bnl_normal *h, const bnl_op *op, fsvc_error *err)
{
    h->t = &bnl_cpu_ops;
    h->s = NULL;
    return bnl_cpu_ops.normal_open(h->ctx, op, &h->opt, &h->s, err);
}

static void close_impl(bnl_normal *h)
{
    if (h->s && h->t->normal_close)
        h->t->normal_close(h->s);
    h->s = NULL;
}

int bnl_normal_open(const bnl_ctx *ctx, const bnl_op *op, const bnl_normal_opt *opt,
                    bnl_normal **out, fsvc_error *err)
{
    *out = NULL;
    if (!ctx || !op)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: normal equations: no context or layer");
    bnl_normal *h = calloc(1, sizeof *h);
    if (!h)
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory");
    h->ctx = ctx;
    h->opt = opt ? *opt : (bnl_normal_opt){-1, 0, 0, 0, NULL};
    const bnl_backend_ops *t = normal_table(ctx, op);
    if (h->opt.sw && !h->opt.products) /* per-sample weights: the CPU table's */
        t = NULL;
    if (h->opt.products && !bnl_normal_products(ctx, op)) {
        free(h);
        return FSVC_OK;
    }
    if (t && h->opt.host_gram && !(t->normal_fetch && offered(ctx, BNL_OP_NORMAL_FETCH, op)))
        t = NULL;
    int rc = FSVC_OK;
    if (t && t != &bnl_cpu_ops) {
        h->t = t;
        rc = t->normal_open(ctx, op, &h->opt, &h->s, err);
        if (rc == FSVC_ERESOURCE && !h->opt.products) { /* the device could not: the CPU can */
            say_cpu(err);
            fsvc_error_clear(err);
            rc = FSVC_OK;
            h->s = NULL;
        }
    }
    if (!rc && !h->s && !h->opt.products)
        rc = open_cpu(h, op, err);
    if (rc || !h->s) {
        free(h);
        return rc;
    }
    *out = h;
    return FSVC_OK;
}

/* After the device's accumulation with host_gram: its G into a CPU session. */
static int to_host(bnl_normal *h, const bnl_op *op, int64_t m, int K, fsvc_error *err)
{
    size_t mm = (size_t)m * m;
    double *G = malloc(mm * sizeof *G);
    if (!G)
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory for H^T H of %lld "
                         "centroids (%.1f GB)", (long long)m, (double)mm * 8 / 1e9);
    int rc = h->t->normal_fetch(h->s, G, err);
    if (rc) {
        free(G);
        return rc;
    }
    close_impl(h);
    if ((rc = open_cpu(h, op, err))) {
        free(G);
        return rc;
    }
    return bnl_cpu_normal_adopt(h->s, G, m, K, h->opt.gram_f32, err);
}

int bnl_normal_accum(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                     const void *X, int64_t N, int n, const int *cls, const double *y,
                     const double *cw, int K, double *diag, double *B, fsvc_error *err)
{
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (!s)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: normal equations not open");
    if (cw && (!cls || y))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: class weights need the classes");
    s->t_h = s->t_g = 0;
    if (s->t != &bnl_cpu_ops) { /* H and its products fused on the device */
        double ta = bnl_clock();
        rc = s->t->normal_accum(s->s, op, W, m, X, N, n, cls, y, cw, K, diag, B, err);
        if (!rc && s->opt.host_gram)
            rc = to_host(s, op, m, K, err);
        s->t_g = bnl_clock() - ta;
        if (rc != FSVC_ERESOURCE)
            return rc;
        say_cpu(err); /* the device could not: the CPU can */
        fsvc_error_clear(err);
        close_impl(s);
        if ((rc = open_cpu(s, op, err)))
            return rc;
        memset(B, 0, (size_t)m * K * sizeof *B);
    }
    rc = bnl_cpu_ops.normal_accum(s->s, op, W, m, X, N, n, cls, y, cw, K, diag, B, err);
    bnl_cpu_normal_times(s->s, &s->t_h, &s->t_g);
    return rc;
}

void bnl_normal_times(const bnl_normal *s, double *t_h, double *t_g)
{
    *t_h = s ? s->t_h : 0;
    *t_g = s ? s->t_g : 0;
}

int bnl_normal_solve(bnl_normal *s, double lam, double *R, int *info, fsvc_error *err)
{
    if (!s)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: normal equations not open");
    return s->t->normal_solve(s->s, lam, R, info, err);
}

int bnl_normal_gram(bnl_normal *s, void **G, fsvc_dtype *t, fsvc_error *err)
{
    if (!s || s->t != &bnl_cpu_ops)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: H^T H is not on the host (open with "
                         "host_gram)");
    *G = bnl_cpu_normal_gram(s->s, t);
    return *G ? FSVC_OK : fsvc_fail(err, FSVC_EUSAGE, "bnl: nothing accumulated");
}

void bnl_normal_diag(bnl_normal *s, double *dg)
{
    if (s && s->t == &bnl_cpu_ops)
        bnl_cpu_normal_diag(s->s, dg);
}

int bnl_normal_rhs(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                   const void *X, int64_t N, int n, const int *cls, const double *y,
                   int K, double *B, double *sumsq, fsvc_error *err)
{
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (!s || !s->t->normal_rhs)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the device offers no block products");
    return s->t->normal_rhs(s->s, op, W, m, X, N, n, cls, y, K, B, sumsq, err);
}

int bnl_normal_apply(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                     const void *X, int64_t N, int n, const double *V, int K, double *Y,
                     fsvc_error *err)
{
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (!s || !s->t->normal_apply)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the device offers no block products");
    return s->t->normal_apply(s->s, op, W, m, X, N, n, V, K, Y, err);
}

int bnl_normal_products(const bnl_ctx *ctx, const bnl_op *op)
{
    const bnl_backend_ops *t = normal_table(ctx, op);
    return t && t->normal_rhs && t->normal_apply && offered(ctx, BNL_OP_PRODUCTS, op);
}

void bnl_normal_close(bnl_normal *s)
{
    if (!s)
        return;
    close_impl(s);
    free(s);
}

/* ---- the LMS epoch ---- */
int bnl_lms_epoch(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                  const void *X, const int *cls, int64_t N, int n, int K, double eta,
                  int64_t *bad, fsvc_error *err)
{
    return bnl_lms_epoch_w(ctx, op, R, W, m, X, cls, NULL, N, n, K, eta, bad, err);
}

int bnl_lms_epoch_w(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                    const void *X, const int *cls, const double *sw, int64_t N, int n, int K,
                    double eta, int64_t *bad, fsvc_error *err)
{
    int rc = bnl_check_call(ctx, op, W, m, X, N, n, R, err);
    if (rc)
        return rc;
    if (K < 1 || !cls || !bad)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: the LMS readout needs K >= 1, the classes "
                         "and a status");
    *bad = -1;
    if (N == 0 || m == 0)
        return FSVC_OK;
    if (sw) /* per-sample steps: the CPU's epoch */
        return bnl_cpu_lms_w(ctx, op, R, W, m, X, cls, sw, N, n, K, eta, bad, err);
    const bnl_backend_ops *t = offered(ctx, BNL_OP_LMS, op);
    if (!t || !t->lms)
        t = &bnl_cpu_ops;
    return t->lms(ctx, op, R, W, m, X, cls, N, n, K, eta, bad, err);
}

/* ---- the novelty session ----
 * The CPU table's session is always open: the host store of the
 * centroids, and the sums when no device session runs. A device session
 * whose store cannot grow (FSVC_ERESOURCE on add) is closed and the sums
 * go on from the host store. */
struct bnl_novelty {
    const bnl_ctx *ctx;
    const bnl_backend_ops *t; /* the device session's table, or NULL */
    bnl_novelty_impl *dev;
    bnl_novelty_impl *cpu;
    bnl_op op;
    int n;
};

int bnl_novelty_open(const bnl_ctx *ctx, const bnl_op *op, int n, int64_t cap,
                     bnl_novelty **out, fsvc_error *err)
{
    *out = NULL;
    int rc = bnl_op_check(op, err);
    if (rc)
        return rc;
    if (n < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: novelty: bad n=%d", n);
    bnl_novelty *h = calloc(1, sizeof *h);
    if (!h)
        return fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory");
    *h = (bnl_novelty){ctx, NULL, NULL, NULL, *op, n};
    if ((rc = bnl_cpu_ops.nov_open(ctx, op, n, cap, &h->cpu, err))) {
        free(h);
        return rc;
    }
    const bnl_backend_ops *t = offered(ctx, BNL_OP_NOVELTY, op);
    int fits = n <= 65536 && !(op->dtype == FSVC_U8 && op->dist != BNL_L1 &&
                               n > BNL_L2SQ_U8_MAX_N); /* else bnl_actsum says why */
    if (t && t != &bnl_cpu_ops && t->nov_open && t->nov_add && t->nov_sums && fits) {
        rc = t->nov_open(ctx, op, n, cap, &h->dev, err);
        if (rc) {
            bnl_novelty_close(h);
            return rc;
        }
        h->t = h->dev ? t : NULL;
    }
    *out = h;
    return FSVC_OK;
}

int bnl_novelty_add(bnl_novelty *s, const void *C, int64_t rows, fsvc_error *err)
{
    if (!s)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no novelty session open");
    if (rows < 0 || (rows > 0 && !C))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: novelty: bad rows (%lld)", (long long)rows);
    if (!rows)
        return FSVC_OK;
    int rc = bnl_cpu_ops.nov_add(s->cpu, C, rows, err);
    if (rc || !s->dev)
        return rc;
    rc = s->t->nov_add(s->dev, C, rows, err);
    if (rc == FSVC_ERESOURCE) { /* the device store is full: on from the host store */
        if (s->t->nov_close)
            s->t->nov_close(s->dev);
        s->dev = NULL;
        s->t = NULL;
        fsvc_error_clear(err);
        rc = FSVC_OK;
    }
    return rc;
}

int bnl_novelty_sums(bnl_novelty *s, double *S, const void *X, int64_t N, fsvc_error *err)
{
    if (!s)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no novelty session open");
    if (N < 0 || (N > 0 && (!S || !X)))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: novelty: bad samples (%lld)", (long long)N);
    if (!N)
        return FSVC_OK;
    return s->dev ? s->t->nov_sums(s->dev, S, X, N, err) : bnl_cpu_ops.nov_sums(s->cpu, S, X, N, err);
}

int bnl_novelty_one(bnl_novelty *s, double *T, const void *c, const void *X, int64_t N,
                    fsvc_error *err)
{
    if (!s)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no novelty session open");
    return bnl_cpu_nov_one(s->ctx, s->dev != NULL, &s->op, T, c, X, N, s->n, err);
}

void bnl_novelty_close(bnl_novelty *s)
{
    if (!s)
        return;
    if (s->dev && s->t->nov_close)
        s->t->nov_close(s->dev);
    bnl_cpu_ops.nov_close(s->cpu);
    free(s);
}

/* ---- the min-distance session (k-means++): the context's table when it
 * offers the session for the layer and X fits its memory, else the CPU
 * table's ---- */
int bnl_mind_open(const bnl_ctx *ctx, const bnl_op *op, const void *X, int64_t N, int n,
                  bnl_mind **out, fsvc_error *err)
{
    *out = NULL;
    bnl_op id = *op;
    id.act = BNL_IDENT;
    int rc = bnl_check_call(ctx, &id, X, 1, X, N, n, X, err);
    if (rc)
        return rc;
    if (!X || N < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: min distances: no samples");
    if (id.dist != BNL_L1 && id.dist != BNL_L2)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: min distances: the distance must be l1 or l2");
    bnl_mind *h = calloc(1, sizeof *h);
    if (!h)
        return fsvc_fail(err, FSVC_ERESOURCE, "bnl: out of memory");
    const bnl_backend_ops *t = offered(ctx, BNL_OP_MIND, op);
    if (t && t != &bnl_cpu_ops && t->mind_open && t->mind_update) {
        h->t = t;
        rc = t->mind_open(ctx, &id, X, N, n, &h->s, err);
    }
    if (!rc && !h->s) {
        h->t = &bnl_cpu_ops;
        rc = bnl_cpu_ops.mind_open(ctx, &id, X, N, n, &h->s, err);
    }
    if (rc) {
        free(h);
        return rc;
    }
    *out = h;
    return FSVC_OK;
}

int bnl_mind_update(bnl_mind *s, const void *C, int64_t B, double *D2, fsvc_error *err)
{
    if (!s)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no min-distance session open");
    if (B < 0 || (B > 0 && !C) || !D2)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: min distances: bad centroids (%lld)",
                         (long long)B);
    return s->t->mind_update(s->s, C, B, D2, err);
}

void bnl_mind_close(bnl_mind *s)
{
    if (!s)
        return;
    if (s->t->mind_close)
        s->t->mind_close(s->s);
    free(s);
}
