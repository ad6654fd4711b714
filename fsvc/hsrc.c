/* hsrc.c - the engine's block products (bnl.h bnl_hprod_*) as a source
 * of the pcg solve (solver.h fsvc_hops): the engine picks where they
 * run; this keeps the source's times and K_mm flag in step with it. */
#include "solver.h"

#include <stdlib.h>
#include <string.h>

typedef struct eng_src {
    bnl_hprod *h;
    fsvc_hsrc *src;
} eng_src;

static int synced(eng_src *s, int rc)
{
    bnl_hprod_stats st;
    bnl_hprod_stats_get(s->h, &st);
    s->src->t_h = st.t_h;
    s->src->t_prod = st.t_prod;
    s->src->kmm_cached = st.kmm_cached;
    s->src->h_err2 = st.h_err2;
    return rc;
}

static int e_rhs(void *self, double *B, double *sumsq, fsvc_error *err)
{
    eng_src *s = self;
    return synced(s, bnl_hprod_rhs(s->h, B, sumsq, err));
}

static int e_gram_apply(void *self, double *Y, const double *V, fsvc_error *err)
{
    eng_src *s = self;
    return synced(s, bnl_hprod_apply(s->h, Y, V, err));
}

static int e_kmm(void *self, void *Kmm, int f32, fsvc_error *err)
{
    eng_src *s = self;
    return synced(s, bnl_hprod_kmm(s->h, Kmm, f32, err));
}

static void e_close(void *self)
{
    eng_src *s = self;
    if (!s) return;
    bnl_hprod_close(s->h);
    free(s);
}

static const fsvc_hops eng_ops = {e_rhs, e_gram_apply, e_kmm, e_close, NULL};

int fsvc_hsrc_open(fsvc_hsrc *src, const fsvc_ridge_problem *pb, const fsvc_hsrc_opt *o,
                   fsvc_error *err)
{
    memset(src, 0, sizeof *src);
    int nv = fsvc_augment_count(o->aug);
    if (nv > 1 && (o->rows < 1 || o->cols < 1 || (int64_t)o->rows * o->cols != pb->n))
        return fsvc_fail(err, FSVC_EINPUT, "--augment %s needs images (rows x cols); these "
                         "samples of %d values have no image geometry",
                         fsvc_augment_name(o->aug), pb->n);
    eng_src *s = calloc(1, sizeof *s);
    if (!s) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    bnl_hprod_problem hp = {pb->op, pb->C, pb->m, pb->X, pb->N, pb->n, pb->K, pb->cls,
                            pb->y, pb->cw, pb->sw, o->aug, o->rows, o->cols, pb->csr};
    bnl_hprod_opt ho = {o->cache, o->progress, o->notes, o->h16};
    int rc = bnl_hprod_open(pb->ctx, &hp, &ho, &s->h, err);
    if (rc) {
        free(s);
        return rc;
    }
    bnl_hprod_stats st;
    bnl_hprod_stats_get(s->h, &st);
    /* the preconditioner's N (pcg.c) is the written-out data's count */
    int64_t Nw = fsvc_weighted_count(pb->sw, pb->N, st.N);
    *src = (fsvc_hsrc){&eng_ops, s, pb->m, Nw, pb->K, 0, 0, pb->ctx, 0, NULL, 0};
    s->src = src;
    return FSVC_OK;
}

void fsvc_hsrc_close(fsvc_hsrc *src)
{
    if (src && src->ops && src->ops->close) src->ops->close(src->self);
    if (src) src->self = NULL;
}
