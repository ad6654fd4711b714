/* select_kmeans.c - k-means++ seeding of the centroids (D^2 sampling).
 *
 * k-means++ (Arthur and Vassilvitskii, 2007): the first centroid is a
 * uniform draw; every next one is sample i with probability D(i)^2 / sum
 * D^2, D(i) the distance (the model's L1 or L2) from sample i to its
 * nearest centroid so far. Exact seeding updates D after every draw: m
 * passes over X of one centroid each. Here the draws come in rounds
 * ("batched D^2 seeding"): a round draws B samples (distinct, without
 * replacement) from the same D, then D is updated with those B centroids
 * at once through the engine's min-distance session (bnl.h bnl_mind_*:
 * an N x B block of distances, identity activation, GEMM-shaped for L2;
 * on a device X and D2 stay there, only the B rows go up and D2 comes
 * back, never the N x B block). B is
 * k/8 for k centroids so far (at least 1, at most KM_MAX_BATCH): the first
 * 8 draws are exact k-means++, later rounds add at most 1/8 of the set, so
 * about 70 rounds reach m = 10000 and the distance work stays N m n. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KM_MAX_BATCH 256
#define KM_RETRY 16     /* redraws when a draw hits a sample of this round */

/* Uniform in [0, bound) by rejection. */
static int64_t draw_index(uint64_t *st, int64_t bound)
{
    uint64_t b = (uint64_t)bound, lim = UINT64_MAX - UINT64_MAX % b, r;
    do r = fsvc_rng_next(st); while (r >= lim);
    return (int64_t)(r % b);
}

/* D2[i] = min(D2[i], d(x_i, c)^2) over the centroids sel[0..B) (rows of
 * X), on the engine's session: the B rows go in, D2 comes back. */
static int update_d2(bnl_mind *md, double *D2, void *W, const bnl_op *op, const int64_t *sel,
                     int64_t B, const void *X, int n, fsvc_error *err)
{
    size_t row = (size_t)n * fsvc_dtype_size(op->dtype);
    for (int64_t j = 0; j < B; j++)
        memcpy((char *)W + (size_t)j * row, (const char *)X + (size_t)sel[j] * row, row);
    return bnl_mind_update(md, W, B, D2, err);
}

/* The draws of one seeding: the running sums cum of D^2 over the N
 * samples, the samples chosen so far, the PRNG state. */
typedef struct draws {
    int64_t N;
    const double *cum;
    unsigned char *chosen;
    uint64_t st;
} draws;

/* Every sample left coincides with a centroid: B draws uniform over them
 * into sel[k..]; returns the new k. */
static int64_t draw_uniform(draws *w, int64_t *sel, int64_t k, int64_t B)
{
    for (int64_t b = 0; b < B; b++) {
        int64_t i = draw_index(&w->st, w->N);
        while (w->chosen[i]) i = i + 1 < w->N ? i + 1 : 0;
        sel[k++] = i;
        w->chosen[i] = 1;
    }
    return k;
}

/* Up to B draws by D^2 (cum, total tot) into sel[k..], distinct: a draw
 * of a sample chosen already is redrawn up to KM_RETRY times, then the
 * round ends (the next round sees it). Returns the new k. */
static int64_t draw_d2(draws *w, int64_t *sel, int64_t k, int64_t B, double tot)
{
    for (int64_t b = 0; b < B; b++) {
        int64_t i = -1;
        for (int t = 0; t < KM_RETRY && i < 0; t++) {
            double u = (double)(fsvc_rng_next(&w->st) >> 11) * 0x1.0p-53 * tot;
            int64_t lo = 0, hi = w->N - 1; /* the first i with cum[i] > u */
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (w->cum[mid] > u) hi = mid; else lo = mid + 1;
            }
            if (!w->chosen[lo]) i = lo;
        }
        if (i < 0) break; /* drawn already in this round: the next round sees it */
        sel[k++] = i;
        w->chosen[i] = 1;
    }
    return k;
}

static int check_args(const int64_t *sel, int64_t m, const fsvc_select_problem *pb,
                      const fsvc_select_opt *o, fsvc_error *err)
{
    if (!sel || !pb || !o || !pb->ctx || !pb->op || !pb->X || pb->N < 1 || pb->n < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "kmeans++: no samples");
    if (m < 1 || m > pb->N)
        return fsvc_fail(err, FSVC_EUSAGE, "kmeans++: %lld centroids out of 1..%lld samples",
                         (long long)m, (long long)pb->N);
    if (pb->op->dist != BNL_L1 && pb->op->dist != BNL_L2)
        return fsvc_fail(err, FSVC_EUSAGE, "kmeans++: the distance must be l1 or l2");
    return FSVC_OK;
}

int fsvc_select_kmeans(int64_t *sel, int64_t m, double *syn, const fsvc_select_problem *pb,
                       const fsvc_select_opt *o, fsvc_error *err)
{
    if (syn) *syn = 0;
    int rc = check_args(sel, m, pb, o, err);
    if (rc) return rc;
    const void *X = pb->X;
    int64_t N = pb->N;
    int n = pb->n;
    if (m == N) { /* every sample */
        for (int64_t i = 0; i < N; i++) sel[i] = i;
        return FSVC_OK;
    }
    bnl_op op = *pb->op;
    op.act = BNL_IDENT;
    size_t row = (size_t)n * fsvc_dtype_size(op.dtype);
    double *D2 = malloc((size_t)N * sizeof *D2), *cum = malloc((size_t)N * sizeof *cum);
    draws w = {N, cum, calloc((size_t)N, 1), o->seed};
    void *W = malloc((size_t)KM_MAX_BATCH * row);
    bnl_mind *md = NULL;
    if (!D2 || !cum || !w.chosen || !W) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "kmeans++: out of memory for %lld samples",
                       (long long)N);
        goto out;
    }
    for (int64_t i = 0; i < N; i++) D2[i] = INFINITY;
    if ((rc = bnl_mind_open(pb->ctx, &op, X, N, n, &md, err)))
        goto out;
    int64_t k = 0, folded = 0, shown = 0;
    sel[k] = draw_index(&w.st, N);
    w.chosen[sel[k++]] = 1;
    while (k < m) {
        /* fold the centroids of the last round into D2 */
        rc = update_d2(md, D2, W, &op, sel + folded, k - folded, X, n, err);
        if (rc) goto out;
        if (syn) *syn += (double)N * (double)(k - folded) * n;
        folded = k;
        double tot = 0;
        for (int64_t i = 0; i < N; i++) {
            if (w.chosen[i]) D2[i] = 0; /* exactly: a GEMM distance to itself may be > 0 */
            tot += D2[i];
            cum[i] = tot;
        }
        int64_t B = k / 8;
        if (B < 1) B = 1;
        if (B > KM_MAX_BATCH) B = KM_MAX_BATCH;
        if (B > m - k) B = m - k;
        if (!(tot > 0) || !isfinite(tot)) {
            k = draw_uniform(&w, sel, k, B);
            continue;
        }
        k = draw_d2(&w, sel, k, B, tot);
        if (o->progress && k * 10 / m > shown) {
            shown = k * 10 / m;
            fsvc_printf("kmeans++: %lld of %lld centroids\n", (long long)k, (long long)m);
        }
    }
out:
    bnl_mind_close(md);
    free(D2); free(cum); free(w.chosen); free(W);
    return rc;
}
