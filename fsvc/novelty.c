/* novelty.c - the FSVC novelty pass (Dogaru & Dogaru 2016): one pass over
 * the samples; a sample becomes a centroid when the sum of the activations
 * of all current centroids on it is strictly below prag.
 *
 * fsvc_novelty_seq is the plain sequential loop, the reference. The batched
 * pass computes, for a chunk of samples, the activation sums against the
 * centroids known before the chunk with bnl_actsum (float64, increasing
 * centroid order), then resolves the chunk in order: a sample accepted in
 * the chunk adds its activation to the sums of the later chunk samples, one
 * term at a time, so every sum is the sequential loop's sum, bit for bit,
 * and the same centroids are selected. fsvc_novelty_dist is the batched
 * pass across processes (see novelty_core): every rank selects the
 * one-process centroids. On a device that offers the novelty session
 * (bnl.h bnl_novelty_*), the centroids live on the device, added once
 * each, and only the chunk rows go up per chunk (issue 10). */
#include "internal.h"
#include "dist.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double fsvc_pair_dist(int dist, fsvc_dtype t, const void *x, const void *c, int n)
{
    double d = 0;
    for (int k = 0; k < n; k++) {
        double u = t == FSVC_U8 ? ((const uint8_t *)x)[k] - (double)((const uint8_t *)c)[k]
                 : t == FSVC_F32 ? (double)((const float *)x)[k] - ((const float *)c)[k]
                 : ((const double *)x)[k] - ((const double *)c)[k];
        d += dist == BNL_L1 ? fabs(u) : u * u;
    }
    return dist == BNL_L1 ? d : sqrt(d);
}

/* The plain sequential loop: for each sample, a = 0, a += h(x_i, c_j) for
 * j = 0..m-1 (the reference backend's actsum, i.e. its activation
 * definition), accept when a < prag. */
int fsvc_novelty_seq(int64_t *sel, int64_t *m, const bnl_op *op, double prag,
                     int64_t max_m, const void *X, const int64_t *order,
                     int64_t N, int n, fsvc_error *err)
{
    size_t row = (size_t)n * fsvc_dtype_size(op->dtype);
    const char *x0 = X;
    int64_t cnt = 0, cap = 256;
    char *C = malloc(cap * row); /* C: cap x n */
    bnl_ctx ref;
    int rc = bnl_ctx_open(&ref, "ref", 1, 1, err);
    *m = 0;
    if (rc) { free(C); return rc; }
    if (!C) { bnl_ctx_close(&ref); return fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory"); }
    for (int64_t t = 0; t < N && (max_m <= 0 || cnt < max_m); t++) {
        int64_t i = order ? order[t] : t;
        double a = 0;
        if (cnt > 0 && (rc = bnl_actsum(&ref, op, &a, C, cnt, x0 + (size_t)i * row, 1, n, err)))
            break;
        if (cnt > 0 && !(a < prag))
            continue;
        if (cnt == cap) {
            char *nc = realloc(C, 2 * cap * row);
            if (!nc) { rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory"); break; }
            C = nc;
            cap *= 2;
        }
        memcpy(C + (size_t)cnt * row, x0 + (size_t)i * row, row);
        sel[cnt++] = i;
    }
    *m = cnt;
    free(C);
    bnl_ctx_close(&ref);
    return rc;
}

static void progress_line(double t0, int64_t done, int64_t N, int64_t m, int last)
{
    double el = fsvc_clock() - t0, rate = el > 0 ? done / el : 0;
    fsvc_printf("\rnovelty: %lld/%lld samples, %lld centroids, %.0f samples/s, ETA %.0f s   %s",
                (long long)done, (long long)N, (long long)m, rate,
                rate > 0 ? (N - done) / rate : 0.0, last ? "\n" : "");
}

/* The batched pass over the global order, X holding the global rows
 * [first, first + Nloc) of the N in order. Per chunk:
 *  1. the sums of the chunk samples held here against the centroids so
 *     far (bnl_actsum, float64, increasing centroid order; zeros for the
 *     samples held elsewhere), merged across processes by one OR exchange
 *     (a status word | the sums: every value arrives exactly);
 *  2. the candidates: the activations are >= 0 (tri, gauss), so only a
 *     sample whose sum is already below prag can still be accepted; their
 *     rows are shared by a second OR exchange (a few rows per chunk once
 *     the centroids settle, not the whole chunk);
 *  3. every process resolves the candidates in order, adding each
 *     accepted candidate's activation to the later candidates' sums one
 *     term at a time: the sequential loop's sums and centroids, bit for
 *     bit, on every process; then one status agreement.
 * One process (dist NULL or of size 1) does the same without exchanges.
 * The centroids live in the engine's novelty session (bnl.h
 * bnl_novelty_*: on a device that offers it, else the CPU's): step 1 is
 * its sums, the chunk's accepted rows are added after step 3, and the
 * resolve is its bnl_novelty_one (a few rows against one centroid). */
static int novelty_core(int64_t *sel, int64_t *m, double *syn, const bnl_ctx *ctx,
                        const bnl_op *op, double prag, int64_t max_m, int progress,
                        const void *X, const int64_t *order, int64_t N, int n,
                        int64_t first, int64_t Nloc, const fsvc_dist *dist, fsvc_error *err)
{
    enum { BMIN = 16, BMAX = 4096 };
    int multi = dist && dist->size > 1;
    size_t row = (size_t)n * fsvc_dtype_size(op->dtype);
    const char *x0 = X;
    int64_t cnt = 0, B = 64;
    /* the synaptic operations: the chunk sums of this process's samples
     * (added over the processes at the end) and the resolves (the same on
     * every process, counted once) */
    double ops = 0, ops_res = 0, t0 = fsvc_clock(), tlast = t0;
    char *A = malloc((size_t)BMAX * row);      /* the chunk's accepted rows */
    int64_t *P = malloc((1 + BMAX) * sizeof *P); /* status word | b sums */
    double *S = (double *)(P ? P + 1 : NULL);
    char *Xl = malloc((size_t)BMAX * row);     /* the chunk rows held here */
    char *Xc = malloc((size_t)BMAX * row);     /* the candidates' rows */
    double *T = malloc(BMAX * sizeof *T), *Sl = malloc(BMAX * sizeof *Sl);
    int64_t *ci = malloc(BMAX * sizeof *ci), *own = malloc(BMAX * sizeof *own);
    int64_t *cand = malloc(BMAX * sizeof *cand);
    int rc = FSVC_OK;
    bnl_novelty *ses = NULL;
    *m = 0;
    if (!A || !P || !Xl || !Xc || !T || !Sl || !ci || !own || !cand)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory");
    else
        rc = bnl_novelty_open(ctx, op, n, max_m > 0 && max_m < N ? max_m : N < 1024 ? N : 1024,
                              &ses, err);
    if (multi) { /* a process short of memory stops every process */
        rc = fsvc_dist_agreed(dist, rc, err);
    }
    if (rc) goto done;
    for (int64_t t0i = 0; t0i < N && (max_m <= 0 || cnt < max_m);) {
        int64_t b = N - t0i < B ? N - t0i : B, nl = 0, nc = 0;
        for (int64_t k = 0; k < b; k++) {
            ci[k] = order ? order[t0i + k] : t0i + k;
            S[k] = 0;
            if (ci[k] >= first && ci[k] < first + Nloc) {
                memcpy(Xl + (size_t)nl * row, x0 + (size_t)(ci[k] - first) * row, row);
                own[nl++] = k;
            }
        }
        if (cnt > 0 && nl > 0) {
            memset(Sl, 0, (size_t)nl * sizeof *Sl);
            rc = bnl_novelty_sums(ses, Sl, Xl, nl, err);
            for (int64_t q = 0; !rc && q < nl; q++) S[own[q]] = Sl[q];
            ops += (double)cnt * nl * n;
        }
        if (multi) { /* exchange 1: the sums; a failure travels in the status word */
            int mine = rc;
            P[0] = rc;
            if (dist->bor(dist->self, P, (size_t)(1 + b) * sizeof *P)) {
                if (!mine) rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: the exchange of "
                                          "%lld sums failed", (long long)b);
                goto done;
            }
            if (!mine && P[0]) {
                int code = (int)P[0];
                rc = fsvc_fail(err, code >= FSVC_EUSAGE && code <= FSVC_ERESOURCE ? code
                               : FSVC_ERESOURCE, FSVC_DIST_ELSEWHERE);
            }
        }
        if (rc) goto done;
        /* the candidates and their rows (q walks this process's rows) */
        for (int64_t k = 0, q = 0; k < b; k++) {
            int here = q < nl && own[q] == k;
            if (cnt == 0 || S[k] < prag) {
                if (here) memcpy(Xc + (size_t)nc * row, Xl + (size_t)q * row, row);
                else memset(Xc + (size_t)nc * row, 0, row);
                cand[nc++] = k;
            }
            q += here;
        }
        if (multi && nc > 0 && dist->bor(dist->self, Xc, (size_t)nc * row)) {
            rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: the exchange of %lld rows failed",
                           (long long)nc);
            goto done;
        }
        int64_t acc = 0;
        for (int64_t j = 0; j < nc && (max_m <= 0 || cnt < max_m); j++) {
            if (!(cnt == 0 || S[cand[j]] < prag))
                continue;
            memcpy(A + (size_t)acc * row, Xc + (size_t)j * row, row);
            sel[cnt++] = ci[cand[j]];
            acc++;
            int64_t rest = nc - j - 1;
            if (rest > 0) {
                memset(T, 0, rest * sizeof *T);
                rc = bnl_novelty_one(ses, T, Xc + (size_t)j * row, Xc + (size_t)(j + 1) * row,
                                     rest, err);
                if (rc) break;
                ops_res += (double)rest * n;
                for (int64_t q = 0; q < rest; q++)
                    S[cand[j + 1 + q]] += T[q];
            }
        }
        if (!rc && acc > 0) /* the chunk's new centroids, added once */
            rc = bnl_novelty_add(ses, A, acc, err);
        t0i += b;
        if (multi) { /* whether every process resolved the chunk */
            rc = fsvc_dist_agreed(dist, rc, err);
        }
        if (rc) goto done;
        /* adapt: small chunks while centroids are accepted often */
        if (acc * 8 > b && B > BMIN) B /= 2;
        else if (acc * 64 < b && B < BMAX) B *= 2;
        if (progress && fsvc_clock() - tlast > 0.5) {
            tlast = fsvc_clock();
            progress_line(t0, t0i, N, cnt, 0);
        }
    }
    if (progress)
        progress_line(t0, N, N, cnt, 1);
    if (multi && dist->sum(dist->self, &ops, 1, FSVC_F64))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: the sum of the operation counts failed");
    *m = cnt;
done:
    if (syn) *syn = ops + ops_res;
    bnl_novelty_close(ses);
    free(A); free(P); free(Xl); free(Xc); free(T); free(Sl); free(ci); free(own); free(cand);
    return rc;
}

int fsvc_novelty_batched(int64_t *sel, int64_t *m, double *syn,
                         const bnl_ctx *ctx, const bnl_op *op, double prag,
                         int64_t max_m, int progress, const void *X,
                         const int64_t *order, int64_t N, int n,
                         fsvc_error *err)
{
    /* every row of X is here: order may pick N of more rows (a class) */
    return novelty_core(sel, m, syn, ctx, op, prag, max_m, progress, X, order, N, n,
                        0, INT64_MAX, NULL, err);
}

int fsvc_novelty_dist(int64_t *sel, int64_t *m, double *syn, const bnl_ctx *ctx,
                      const bnl_op *op, double prag, int64_t max_m, int progress,
                      const void *X, const int64_t *order, int64_t N, int n,
                      int64_t first, int64_t Nloc, const fsvc_dist *dist, fsvc_error *err)
{
    return novelty_core(sel, m, syn, ctx, op, prag, max_m, progress, X, order, N, n,
                        first, Nloc, dist, err);
}
