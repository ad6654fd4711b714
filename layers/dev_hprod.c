/* dev_hprod.c - the engine's block products of an iterative ridge solve
 * on a device (bnl.h bnl_hprod_*): B = H^T T with sum H^2, and Y = H^T
 * (H V), each one bnl_normal_rhs / bnl_normal_apply call on one open
 * bnl_normal handle per batch of samples. H (N x m) is made and consumed
 * on the device; only m x K values (and the trace) come back per call.
 *
 * Class weights (the rows of H and T of a sample of class k scaled by
 * sqrt(cw[k])): the samples are grouped by class once (a host copy of X
 * in class order) and each class's products are scaled by cw[k] on the
 * host, as sum_i cw_i h_i h_i^T V = sum_k cw_k H_k^T H_k V (and the same
 * for H^T T and the trace). Sample weights are not taken here (hprod.c
 * gives them to the CPU's products).
 * Augmentation: the virtual samples (base/augment.c) are made on the
 * host per chunk of samples and uploaded chunk by chunk, one call each.
 * Times: H is made inside each product (fused on the device), so t_h
 * holds only K_mm and t_prod the products with their H. */
#include "backend.h"
#include "bnl_backend_ops.h"

#include <stdlib.h>
#include <string.h>

#define DEV_CHUNK_BYTES ((size_t)1 << 26) /* virtual samples per upload */

typedef struct dev_batch {
    const char *X;       /* N rows of n values */
    const int *cls;
    const double *y;
    int64_t N;
    double w;            /* the class weight (1 without weights) */
} dev_batch;

typedef struct dev_src {
    const bnl_ctx *ctx;
    const bnl_op *op;
    const void *C;
    int64_t m, Nc;       /* Nc: samples per chunk with augmentation */
    int n, K, nv, rows, cols;
    fsvc_augment aug;
    size_t row;          /* bytes of one sample */
    bnl_normal *h;
    dev_batch *b;
    int nb;
    char *Xg;            /* X in class order (weights), else NULL */
    int *cg;
    char *Xv;            /* one chunk of virtual samples, Nc nv x n */
    int *cv;
    double *yv, *tmp;    /* tmp: one call's m x K */
    int64_t Nv;          /* virtual samples */
    double t_h, t_prod;
} dev_src;

/* The samples o0 .. o0+cnt-1 of batch b as the engine gets them: as they
 * are, or their nv virtual samples each. */
static int64_t batch_part(dev_src *s, const dev_batch *b, int64_t o0, int64_t cnt,
                          const void **X, const int **cls, const double **y)
{
    *X = b->X + (size_t)o0 * s->row;
    *cls = b->cls ? b->cls + o0 : NULL;
    *y = b->y ? b->y + o0 : NULL;
    if (s->nv == 1) return cnt;
    size_t es = fsvc_dtype_size(s->op->dtype);
    for (int64_t v = 0; v < cnt * s->nv; v++) {
        int64_t o = o0 + v / s->nv;
        fsvc_augment_apply(s->Xv + (size_t)v * s->row, b->X + (size_t)o * s->row, s->rows,
                           s->cols, es, s->aug, (int)(v % s->nv));
        if (b->cls) s->cv[v] = b->cls[o];
        if (b->y) s->yv[v] = b->y[o];
    }
    *X = s->Xv;
    *cls = b->cls ? s->cv : NULL;
    *y = b->y ? s->yv : NULL;
    return cnt * s->nv;
}

/* rhs: out = H^T T, *sumsq = sum H^2; else out = H^T (H V). */
static int products(dev_src *s, int rhs, const double *V, double *out, double *sumsq,
                    fsvc_error *err)
{
    size_t mk = (size_t)s->m * s->K;
    double ss = 0, t = bnl_clock();
    int rc = FSVC_OK;
    memset(out, 0, mk * sizeof *out);
    for (int q = 0; q < s->nb && !rc; q++) {
        const dev_batch *b = &s->b[q];
        int64_t step = s->nv > 1 ? s->Nc : b->N;
        for (int64_t o0 = 0; o0 < b->N && !rc; o0 += step) {
            const void *X;
            const int *cls;
            const double *y;
            double ssp = 0;
            int64_t Np = batch_part(s, b, o0, b->N - o0 < step ? b->N - o0 : step, &X, &cls, &y);
            rc = rhs ? bnl_normal_rhs(s->h, s->op, s->C, s->m, X, Np, s->n, cls, y, s->K,
                                      s->tmp, &ssp, err)
                     : bnl_normal_apply(s->h, s->op, s->C, s->m, X, Np, s->n, V, s->K, s->tmp,
                                        err);
            for (size_t i = 0; !rc && i < mk; i++) out[i] += b->w * s->tmp[i];
            ss += b->w * ssp;
        }
    }
    if (sumsq) *sumsq = ss;
    s->t_prod += bnl_clock() - t;
    return rc;
}

static int dev_rhs(bnl_hprod_impl *self, double *B, double *sumsq, fsvc_error *err)
{
    return products((dev_src *)self, 1, NULL, B, sumsq, err);
}

static int dev_gram_apply(bnl_hprod_impl *self, double *Y, const double *V, fsvc_error *err)
{
    return products((dev_src *)self, 0, V, Y, NULL, err);
}

/* K_mm = act(dist(C, C)) by the engine on the device context (float for
 * the u8 and f32 layers a device serves), m x m: the model's own size. */
static int dev_kmm(bnl_hprod_impl *self, void *Kmm, int f32, fsvc_error *err)
{
    dev_src *s = (dev_src *)self;
    int64_t m = s->m;
    double t = bnl_clock();
    float *F = f32 ? Kmm : malloc((size_t)m * m * sizeof *F);
    if (!F) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory for K_mm");
    int rc = bnl_forward(s->ctx, s->op, F, m, s->C, m, s->C, m, s->n, err);
    if (!f32) {
        for (size_t q = 0; !rc && q < (size_t)m * m; q++) ((double *)Kmm)[q] = F[q];
        free(F);
    }
    s->t_h += bnl_clock() - t;
    return rc;
}

static void dev_stats(const bnl_hprod_impl *self, bnl_hprod_stats *st)
{
    const dev_src *s = (const dev_src *)self;
    *st = (bnl_hprod_stats){s->Nv, s->t_h, s->t_prod, 0, 1, 0};
}

static void dev_close(bnl_hprod_impl *self)
{
    dev_src *s = (dev_src *)self;
    if (!s) return;
    bnl_normal_close(s->h);
    free(s->b); free(s->Xg); free(s->cg); free(s->Xv); free(s->cv); free(s->yv); free(s->tmp);
    free(s);
}

/* The batches: all samples at weight 1, or one per class of non-zero
 * weight (X gathered in class order). */
static int make_batches(dev_src *s, const void *X, const int *cls, const double *y,
                        const double *cw, int64_t N)
{
    if (!cw) {
        if (!(s->b = malloc(sizeof *s->b))) return -1;
        s->b[0] = (dev_batch){X, cls, y, N, 1.0};
        s->nb = 1;
        return 0;
    }
    int K = s->K;
    int64_t *start = calloc((size_t)K + 1, sizeof *start);
    s->b = calloc((size_t)K, sizeof *s->b);
    s->Xg = malloc((size_t)N * s->row);
    s->cg = malloc((size_t)N * sizeof *s->cg);
    if (!start || !s->b || !s->Xg || !s->cg) { free(start); return -1; }
    for (int64_t i = 0; i < N; i++) start[cls[i] + 1]++;
    for (int k = 0; k < K; k++) start[k + 1] += start[k];
    for (int k = 0; k < K; k++) /* the batches point into Xg, cg from start[k] */
        if (start[k + 1] > start[k] && cw[k] != 0)
            s->b[s->nb++] = (dev_batch){s->Xg + (size_t)start[k] * s->row, s->cg + start[k],
                                        NULL, start[k + 1] - start[k], cw[k]};
    for (int64_t i = 0; i < N; i++) { /* stable: each class in sample order */
        int64_t d = start[cls[i]]++;
        memcpy(s->Xg + (size_t)d * s->row, (const char *)X + (size_t)i * s->row, s->row);
        s->cg[d] = cls[i];
    }
    free(start);
    return 0;
}

static int dev_open(const bnl_ctx *ctx, const bnl_hprod_problem *pb, const bnl_hprod_opt *opt,
                    bnl_hprod_impl **out, fsvc_error *err)
{
    const bnl_op *op = pb->op;
    int64_t m = pb->m, N = pb->N;
    int n = pb->n, K = pb->K, nv = fsvc_augment_count(pb->aug);
    (void)opt;
    *out = NULL;
    dev_src *s = calloc(1, sizeof *s);
    if (!s) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    s->ctx = ctx; s->op = op; s->C = pb->C; s->m = m; s->n = n; s->K = K; s->nv = nv;
    s->rows = pb->rows; s->cols = pb->cols; s->aug = pb->aug;
    s->row = (size_t)n * fsvc_dtype_size(op->dtype);
    s->Nc = (int64_t)(DEV_CHUNK_BYTES / (s->row * (size_t)nv));
    if (s->Nc < 1) s->Nc = 1;
    if (s->Nc > N) s->Nc = N > 0 ? N : 1;
    int bad = make_batches(s, pb->X, pb->cls, pb->y, pb->cw, N) != 0;
    s->tmp = malloc((size_t)m * K * sizeof *s->tmp);
    if (nv > 1) {
        s->Xv = malloc((size_t)s->Nc * nv * s->row);
        s->cv = malloc((size_t)s->Nc * nv * sizeof *s->cv);
        s->yv = malloc((size_t)s->Nc * nv * sizeof *s->yv);
        bad |= !s->Xv || !s->cv || !s->yv;
    }
    if (bad || !s->tmp) {
        dev_close((bnl_hprod_impl *)s);
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory for the device batches");
    }
    bnl_normal_opt no = {-1, 0, 0, 1, NULL}; /* the block products, on the device */
    int rc = bnl_normal_open(ctx, op, &no, &s->h, err);
    if (!rc && !s->h)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "pcg: the device opened no normal equations");
    if (rc) {
        dev_close((bnl_hprod_impl *)s);
        return rc;
    }
    s->Nv = N * nv;
    *out = (bnl_hprod_impl *)s;
    return FSVC_OK;
}

const bnl_backend_ops bnl_dev_hprod_ops = {
    .name = "device products",
    .hprod_open = dev_open,
    .hprod_rhs = dev_rhs,
    .hprod_apply = dev_gram_apply,
    .hprod_kmm = dev_kmm,
    .hprod_stats = dev_stats,
    .hprod_close = dev_close,
};
