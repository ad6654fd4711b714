/* hprod.c - the engine's block products of an iterative ridge solve
 * (bnl.h bnl_hprod_*) and its solver rule (bnl_plan_ridge): the
 * context's table picks. A table that lists its own products (the CPU's,
 * cpu_hprod.c) runs them; a device that offers the normal products for
 * the layer gets the engine's over them (dev_hprod.c), unless rows carry
 * sample weights; the CPU table's run everything else (a CSR source:
 * the sparse layer is the CPU's), and whatever a device could not open
 * (FSVC_ERESOURCE). */
#include "backend.h"
#include "bnl_backend_ops.h"
#include "sparse.h"

#include <stdlib.h>

struct bnl_hprod {
    const bnl_backend_ops *t; /* the table of s */
    bnl_hprod_impl *s;
};

static int has_hprod(const bnl_backend_ops *t)
{
    return t && t->hprod_open && t->hprod_rhs && t->hprod_apply && t->hprod_kmm &&
           t->hprod_stats;
}

/* The table whose products serve pb on ctx (before any fallback). */
static const bnl_backend_ops *hprod_table(const bnl_ctx *ctx, const bnl_hprod_problem *pb)
{
    const bnl_backend_ops *t = ctx->ops;
    if (pb->csr)
        return &bnl_cpu_ops;
    if (has_hprod(t) && (!t->supports || t->supports(ctx, BNL_OP_PRODUCTS, pb->op)))
        return t;
    if (!pb->sw && bnl_normal_products(ctx, pb->op))
        return &bnl_dev_hprod_ops;
    return &bnl_cpu_ops;
}

/* A CSR source: its parts agree with m, N, n and the layer's distance;
 * any number of features; no virtual samples (image variants). */
static int check_csr(const bnl_hprod_problem *pb, fsvc_error *err)
{
    const bnl_hprod_csr *c = pb->csr;
    int rc = bnl_op_check(pb->op, err);
    if (rc)
        return rc;
    if (!c->Ct || !c->C || !c->X)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: block products: a CSR source needs the "
                         "centroids by feature, their rows and the samples' rows");
    if (c->Ct->m != pb->m || c->C->rows != pb->m || c->X->rows != pb->N || c->Ct->n != pb->n ||
        c->Ct->dist != pb->op->dist || pb->n < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: block products: the CSR source (%lld "
                         "centroids, %lld rows of them, %lld samples, %d features) is not the "
                         "problem's (m = %lld, N = %lld, n = %d) or not made for its distance",
                         (long long)c->Ct->m, (long long)c->C->rows, (long long)c->X->rows,
                         c->Ct->n, (long long)pb->m, (long long)pb->N, pb->n);
    if (fsvc_augment_count(pb->aug) > 1)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: virtual samples need dense images, not CSR "
                         "rows");
    return FSVC_OK;
}

static int check_problem(const bnl_ctx *ctx, const bnl_hprod_problem *pb, fsvc_error *err)
{
    if (!ctx || !pb || !pb->op)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: block products: no context or layer");
    int rc = pb->csr ? check_csr(pb, err)
                     : bnl_check_call(ctx, pb->op, pb->C, pb->m, pb->X, pb->N, pb->n, pb->C, err);
    if (rc)
        return rc;
    if (pb->m < 1 || pb->N < 1 || pb->K < 1 || (!pb->cls && !pb->y))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: block products need m, N >= 1 and the "
                         "classes (K >= 1) or the targets (K = 1)");
    if (pb->cw && !pb->cls && !pb->y)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: class weights need the classes");
    if (fsvc_augment_count(pb->aug) > 1 &&
        (pb->rows < 1 || pb->cols < 1 || (int64_t)pb->rows * pb->cols != pb->n))
        return fsvc_fail(err, FSVC_EINPUT, "bnl: virtual samples need images: %d x %d is "
                         "not n = %d", pb->rows, pb->cols, pb->n);
    return FSVC_OK;
}

int bnl_hprod_open(const bnl_ctx *ctx, const bnl_hprod_problem *pb, const bnl_hprod_opt *opt,
                   bnl_hprod **out, fsvc_error *err)
{
    *out = NULL;
    int rc = check_problem(ctx, pb, err);
    if (rc)
        return rc;
    bnl_hprod_opt o = opt ? *opt : (bnl_hprod_opt){0, 0, 0, 0};
    bnl_hprod_problem p = *pb;
    if (p.y)
        p.cw = NULL; /* class weights are per class */
    bnl_hprod *h = calloc(1, sizeof *h);
    if (!h)
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    h->t = hprod_table(ctx, &p);
    rc = h->t->hprod_open(ctx, &p, &o, &h->s, err);
    if (rc == FSVC_ERESOURCE && h->t != &bnl_cpu_ops) { /* the device could not: the CPU can */
        if (o.notes)
            fsvc_printf("pcg: %s; computing on the CPU\n", err ? err->msg : "device failed");
        fsvc_error_clear(err);
        h->t = &bnl_cpu_ops;
        rc = h->t->hprod_open(ctx, &p, &o, &h->s, err);
    }
    if (rc) {
        free(h);
        return rc;
    }
    *out = h;
    return FSVC_OK;
}

int bnl_hprod_rhs(bnl_hprod *h, double *B, double *sumsq, fsvc_error *err)
{
    if (!h)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no block products open");
    return h->t->hprod_rhs(h->s, B, sumsq, err);
}

int bnl_hprod_apply(bnl_hprod *h, double *Y, const double *V, fsvc_error *err)
{
    if (!h)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no block products open");
    return h->t->hprod_apply(h->s, Y, V, err);
}

int bnl_hprod_kmm(bnl_hprod *h, void *Kmm, int f32, fsvc_error *err)
{
    if (!h)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no block products open");
    return h->t->hprod_kmm(h->s, Kmm, f32, err);
}

void bnl_hprod_stats_get(const bnl_hprod *h, bnl_hprod_stats *st)
{
    if (h)
        h->t->hprod_stats(h->s, st);
    else
        *st = (bnl_hprod_stats){0, 0, 0, 0, 0, 0};
}

void bnl_hprod_close(bnl_hprod *h)
{
    if (!h)
        return;
    if (h->t->hprod_close)
        h->t->hprod_close(h->s);
    free(h);
}

void bnl_plan_ridge(const bnl_ctx *ctx, const bnl_op *op, bnl_ridge_plan *p)
{
    const bnl_backend_ops *t = ctx && ctx->ops && ctx->ops->plan_ridge &&
                                       bnl_normal_products(ctx, op) ? ctx->ops : &bnl_cpu_ops;
    t->plan_ridge(ctx, op, p);
}
