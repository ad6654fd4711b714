/* cpu_novelty.c - the CPU table's novelty session (bnl.h bnl_novelty_*):
 * the centroids in a host store grown by doubling, each chunk's sums by
 * bnl_actsum on the caller's context; small calls run on one thread (a
 * parallel region costs more than they do; the sums are the same on any
 * thread count). The store is also the host copy the engine falls back
 * to when a device's store cannot grow (layers/session.c). */
#include "backend.h"

#include <stdlib.h>
#include <string.h>

struct bnl_novelty_impl {
    const bnl_ctx *ctx;
    bnl_op op;
    int n;
    size_t row;
    char *C;          /* cap x n, the centroids */
    int64_t cnt, cap;
};

int bnl_cpu_nov_open(const bnl_ctx *ctx, const bnl_op *op, int n, int64_t cap,
                     bnl_novelty_impl **out, fsvc_error *err)
{
    bnl_novelty_impl *s = calloc(1, sizeof *s);
    if (cap < 256) cap = 256;
    size_t row = (size_t)n * fsvc_dtype_size(op->dtype);
    char *C = malloc((size_t)cap * row);
    if (!s || !C) {
        free(s); free(C);
        return fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory");
    }
    *s = (bnl_novelty_impl){ctx, *op, n, row, C, 0, cap};
    *out = s;
    return FSVC_OK;
}

int bnl_cpu_nov_add(bnl_novelty_impl *s, const void *C, int64_t rows, fsvc_error *err)
{
    if (s->cnt + rows > s->cap) {
        int64_t cap = s->cap;
        while (cap < s->cnt + rows) cap *= 2;
        char *grown = realloc(s->C, (size_t)cap * s->row);
        if (!grown)
            return fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory for %lld centroids",
                             (long long)cap);
        s->C = grown;
        s->cap = cap;
    }
    memcpy(s->C + (size_t)s->cnt * s->row, C, (size_t)rows * s->row);
    s->cnt += rows;
    return FSVC_OK;
}

/* The context of small calls: a device context's own (its actsum), else
 * the host on one thread. */
static bnl_ctx small_ctx(const bnl_ctx *ctx)
{
    return ctx->dev ? *ctx : bnl_ctx_host(ctx, 1);
}

int bnl_cpu_nov_sums(bnl_novelty_impl *s, double *S, const void *X, int64_t N, fsvc_error *err)
{
    if (s->cnt == 0)
        return FSVC_OK;
    bnl_ctx one = small_ctx(s->ctx);
    const bnl_ctx *c = (double)s->cnt * N * s->n < 4e6 ? &one : s->ctx;
    return bnl_actsum(c, &s->op, S, s->C, s->cnt, X, N, s->n, err);
}

int bnl_cpu_nov_one(const bnl_ctx *ctx, int host, const bnl_op *op, double *T, const void *c,
                    const void *X, int64_t N, int n, fsvc_error *err)
{
    bnl_ctx one = host ? bnl_ctx_host(ctx, 1) : small_ctx(ctx);
    return bnl_actsum(&one, op, T, c, 1, X, N, n, err);
}

void bnl_cpu_nov_close(bnl_novelty_impl *s)
{
    if (!s) return;
    free(s->C);
    free(s);
}
