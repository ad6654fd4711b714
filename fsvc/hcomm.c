/* hcomm.c - the PCG block products across processes (solver.h,
 * fsvc_hsrc_sum): each rank's products over its slice of the samples,
 * summed in rank order with comm->sum. H^T T, the trace, the ranks'
 * (weighted) sample counts and bf16 rounding errors travel in one sum,
 * H^T (H V) in one sum per iteration; K_mm needs no exchange (every
 * rank holds the centroids). Before each sum the ranks agree on their own
 * product's status, so a rank that failed stops all of them at the same
 * collective. */
#include "solver.h"
#include "comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sum_src {
    fsvc_hsrc *inner, *outer;
    const fsvc_comm *comm;
    double *buf;           /* m x K + 3: H^T T, the trace, the sample count, h_err2 */
} sum_src;

static int summed(sum_src *s, double *v, size_t n, fsvc_error *err)
{
    if (s->comm->sum(s->comm->self, v, n, FSVC_F64))
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: the sum of the products over the "
                         "processes failed");
    return FSVC_OK;
}

static int d_rhs(void *self, double *B, double *sumsq, fsvc_error *err)
{
    sum_src *s = self;
    size_t mk = (size_t)s->inner->m * s->inner->K;
    int rc = s->inner->ops->rhs(s->inner->self, s->buf, &s->buf[mk], err);
    s->buf[mk + 1] = (double)s->inner->N;
    s->buf[mk + 2] = s->inner->h_err2;
    rc = fsvc_comm_agreed(s->comm, rc, err);
    if (!rc) rc = summed(s, s->buf, mk + 3, err);
    if (rc) return rc;
    memcpy(B, s->buf, mk * sizeof *B);
    *sumsq = s->buf[mk];
    s->outer->N = (int64_t)llround(s->buf[mk + 1]); /* integers: exact in a double sum */
    s->outer->h_err2 = s->buf[mk + 2];
    return FSVC_OK;
}

static int d_gram_apply(void *self, double *Y, const double *V, fsvc_error *err)
{
    sum_src *s = self;
    int rc = s->inner->ops->gram_apply(s->inner->self, Y, V, err);
    rc = fsvc_comm_agreed(s->comm, rc, err);
    return rc ? rc : summed(s, Y, (size_t)s->inner->m * s->inner->K, err);
}

static int d_kmm(void *self, void *Kmm, int f32, fsvc_error *err)
{
    sum_src *s = self;
    return s->inner->ops->kmm(s->inner->self, Kmm, f32, err); /* local: pcg agrees after */
}

static int d_agree(void *self, int status)
{
    sum_src *s = self;
    return s->comm->agree(s->comm->self, status);
}

static void d_close(void *self)
{
    sum_src *s = self;
    if (!s) return;
    free(s->buf);
    free(s);
}

static const fsvc_hops dist_ops = {d_rhs, d_gram_apply, d_kmm, d_close, d_agree};

int fsvc_hsrc_sum(fsvc_hsrc *out, fsvc_hsrc *inner, const fsvc_comm *comm, fsvc_error *err)
{
    memset(out, 0, sizeof *out);
    sum_src *s = calloc(1, sizeof *s);
    if (s) s->buf = malloc(((size_t)inner->m * inner->K + 3) * sizeof *s->buf);
    if (!s || !s->buf) {
        d_close(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    }
    s->inner = inner;
    s->outer = out;
    s->comm = comm;
    *out = (fsvc_hsrc){&dist_ops, s, inner->m, inner->N, inner->K, 0, 0, inner->ctx, 0, NULL, 0};
    return FSVC_OK;
}
