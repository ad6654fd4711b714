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
 * and the same centroids are selected. Across processes (see
 * fsvc_novelty_batched) every rank selects the one-process centroids. On a device that offers the novelty session
 * (bnl.h bnl_novelty_*), the centroids live on the device, added once
 * each, and only the chunk rows go up per chunk (issue 10). */
#include "internal.h"
#include "comm.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double fsvc_pair_dist(int dist, fsvc_dtype t, const void *x, const void *c, int n)
{
    double d = 0;
    if (t == FSVC_U8) { /* integer sums, exact: the double sums' bits, vectorised
                           (int32 within blocks of 2^15 values: 255^2 2^15 < 2^31) */
        const uint8_t *a = x, *b = c;
        int64_t s = 0;
        for (int k0 = 0; k0 < n; k0 += 32768) {
            int k1 = n - k0 < 32768 ? n : k0 + 32768;
            int32_t s32 = 0;
            if (dist == BNL_L1) {
#pragma omp simd reduction(+ : s32)
                for (int k = k0; k < k1; k++) s32 += abs((int32_t)a[k] - (int32_t)b[k]);
            } else {
#pragma omp simd reduction(+ : s32)
                for (int k = k0; k < k1; k++) {
                    int32_t u = (int32_t)a[k] - (int32_t)b[k];
                    s32 += u * u;
                }
            }
            s += s32;
        }
        d = (double)s;
    } else {
        for (int k = 0; k < n; k++) {
            double u = t == FSVC_F32 ? (double)((const float *)x)[k] - ((const float *)c)[k]
                                     : ((const double *)x)[k] - ((const double *)c)[k];
            d += dist == BNL_L1 ? fabs(u) : u * u;
        }
    }
    return dist == BNL_L1 ? d : sqrt(d);
}

/* The plain sequential loop: for each sample, a = 0, a += h(x_i, c_j) for
 * j = 0..m-1 (the reference backend's actsum, i.e. its activation
 * definition), accept when a < prag. */
int fsvc_novelty_seq(int64_t *sel, int64_t *m, const fsvc_select_problem *pb,
                     const fsvc_select_opt *o, fsvc_error *err)
{
    const bnl_op *op = pb->op;
    const void *X = pb->X;
    const int64_t *order = pb->order;
    int64_t N = pb->N, max_m = o->max_m;
    int n = pb->n;
    double prag = o->prag;
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
 * One process (at.comm NULL or of size 1) does the same without exchanges.
 * The centroids live in the engine's novelty session (bnl.h
 * bnl_novelty_*: on a device that offers it, else the CPU's): step 1 is
 * its sums, the chunk's accepted rows are added after step 3, and the
 * resolve is its bnl_novelty_one (a few rows against one centroid). */

enum { BMIN = 16, BMAX = 4096 }; /* the chunk sizes */

/* One batched pass: where the rows are, the chunk buffers (BMAX rows or
 * values each), the session and the counts. */
typedef struct pass {
    const fsvc_select_problem *pb;
    const fsvc_select_opt *o;
    const fsvc_comm *multi;     /* the processes, NULL for one */
    int64_t first, Nloc;        /* the global rows held here */
    size_t row;
    char *A;                    /* the chunk's accepted rows */
    int64_t *P;                 /* status word | b sums */
    double *S;                  /* the sums, P + 1 */
    char *Xl, *Xc;              /* the chunk rows held here; the candidates' rows */
    double *T, *Sl;
    int64_t *ci, *own, *cand;   /* the chunk's global indices; its rows held here; the
                                   candidates */
    bnl_novelty *ses;
    int64_t cnt;                /* centroids so far */
    /* the synaptic operations: the chunk sums of this process's samples
     * (added over the processes at the end) and the resolves (the same on
     * every process, counted once) */
    double ops, ops_res;
} pass;

static int pass_open(pass *v, const fsvc_select_problem *pb, const fsvc_select_opt *o,
                     fsvc_error *err)
{
    const fsvc_comm *comm = pb->at.comm;
    int64_t N = pb->N, max_m = o->max_m;
    memset(v, 0, sizeof *v);
    v->pb = pb;
    v->o = o;
    v->multi = comm && comm->size > 1 ? comm : NULL;
    v->first = comm ? pb->at.first : 0; /* no processes: every row of X is here */
    v->Nloc = comm ? pb->at.Nloc : INT64_MAX;
    v->row = (size_t)pb->n * fsvc_dtype_size(pb->op->dtype);
    v->A = malloc((size_t)BMAX * v->row);
    v->P = malloc((1 + BMAX) * sizeof *v->P);
    v->S = (double *)(v->P ? v->P + 1 : NULL);
    v->Xl = malloc((size_t)BMAX * v->row);
    v->Xc = malloc((size_t)BMAX * v->row);
    v->T = malloc(BMAX * sizeof *v->T);
    v->Sl = malloc(BMAX * sizeof *v->Sl);
    v->ci = malloc(BMAX * sizeof *v->ci);
    v->own = malloc(BMAX * sizeof *v->own);
    v->cand = malloc(BMAX * sizeof *v->cand);
    int rc;
    if (!v->A || !v->P || !v->Xl || !v->Xc || !v->T || !v->Sl || !v->ci || !v->own || !v->cand)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory");
    else
        rc = bnl_novelty_open(pb->ctx, pb->op, pb->n,
                              max_m > 0 && max_m < N ? max_m : N < 1024 ? N : 1024, &v->ses, err);
    if (v->multi) /* a process short of memory stops every process */
        rc = fsvc_comm_agreed(v->multi, rc, err);
    return rc;
}

static void pass_close(pass *v)
{
    bnl_novelty_close(v->ses);
    free(v->A); free(v->P); free(v->Xl); free(v->Xc); free(v->T); free(v->Sl);
    free(v->ci); free(v->own); free(v->cand);
}

/* Step 1 on the chunk order[t0i .. t0i + b): its global indices (ci), the
 * rows held here (Xl, own[0..*nl)) and their sums into S (0 elsewhere). */
static int chunk_sums(pass *v, int64_t t0i, int64_t b, int64_t *nl_out, fsvc_error *err)
{
    const int64_t *order = v->pb->order;
    const char *x0 = v->pb->X;
    size_t row = v->row;
    int64_t nl = 0;
    int rc = FSVC_OK;
    for (int64_t k = 0; k < b; k++) {
        v->ci[k] = order ? order[t0i + k] : t0i + k;
        v->S[k] = 0;
        if (v->ci[k] >= v->first && v->ci[k] < v->first + v->Nloc) {
            memcpy(v->Xl + (size_t)nl * row, x0 + (size_t)(v->ci[k] - v->first) * row, row);
            v->own[nl++] = k;
        }
    }
    if (v->cnt > 0 && nl > 0) {
        memset(v->Sl, 0, (size_t)nl * sizeof *v->Sl);
        rc = bnl_novelty_sums(v->ses, v->Sl, v->Xl, nl, err);
        for (int64_t q = 0; !rc && q < nl; q++) v->S[v->own[q]] = v->Sl[q];
        v->ops += (double)v->cnt * nl * v->pb->n;
    }
    *nl_out = nl;
    return rc;
}

/* Exchange 1 (several processes): the b sums ORed, this process's status
 * rc in the status word; a failure elsewhere becomes FSVC_COMM_ELSEWHERE. */
static int exchange_sums(pass *v, int64_t b, int rc, fsvc_error *err)
{
    const fsvc_comm *comm = v->multi;
    int mine = rc;
    v->P[0] = rc;
    if (comm->bor(comm->self, v->P, (size_t)(1 + b) * sizeof *v->P)) {
        if (!mine) rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: the exchange of "
                                  "%lld sums failed", (long long)b);
        return rc;
    }
    if (!mine && v->P[0]) {
        int code = (int)v->P[0];
        rc = fsvc_fail(err, code >= FSVC_EUSAGE && code <= FSVC_ERESOURCE ? code
                       : FSVC_ERESOURCE, FSVC_COMM_ELSEWHERE);
    }
    return rc;
}

/* Step 2: the candidates cand[0..*nc) of the chunk and their rows (Xc; q
 * walks this process's rows), shared by the second exchange. */
static int candidates(pass *v, int64_t b, int64_t nl, int64_t *nc_out, fsvc_error *err)
{
    size_t row = v->row;
    double prag = v->o->prag;
    int64_t nc = 0;
    for (int64_t k = 0, q = 0; k < b; k++) {
        int here = q < nl && v->own[q] == k;
        if (v->cnt == 0 || v->S[k] < prag) {
            if (here) memcpy(v->Xc + (size_t)nc * row, v->Xl + (size_t)q * row, row);
            else memset(v->Xc + (size_t)nc * row, 0, row);
            v->cand[nc++] = k;
        }
        q += here;
    }
    *nc_out = nc;
    if (v->multi && nc > 0 && v->multi->bor(v->multi->self, v->Xc, (size_t)nc * row))
        return fsvc_fail(err, FSVC_ERESOURCE, "novelty: the exchange of %lld rows failed",
                         (long long)nc);
    return FSVC_OK;
}

/* Step 3: the candidates resolved in order into sel (*acc accepted), then
 * the chunk's new centroids added to the session, once. */
static int resolve(pass *v, int64_t *sel, int64_t nc, int64_t *acc_out, fsvc_error *err)
{
    size_t row = v->row;
    double prag = v->o->prag;
    int64_t acc = 0, max_m = v->o->max_m;
    int rc = FSVC_OK;
    for (int64_t j = 0; j < nc && (max_m <= 0 || v->cnt < max_m); j++) {
        if (!(v->cnt == 0 || v->S[v->cand[j]] < prag))
            continue;
        memcpy(v->A + (size_t)acc * row, v->Xc + (size_t)j * row, row);
        sel[v->cnt++] = v->ci[v->cand[j]];
        acc++;
        int64_t rest = nc - j - 1;
        if (rest > 0) {
            memset(v->T, 0, rest * sizeof *v->T);
            rc = bnl_novelty_one(v->ses, v->T, v->Xc + (size_t)j * row,
                                 v->Xc + (size_t)(j + 1) * row, rest, err);
            if (rc) break;
            v->ops_res += (double)rest * v->pb->n;
            for (int64_t q = 0; q < rest; q++)
                v->S[v->cand[j + 1 + q]] += v->T[q];
        }
    }
    if (!rc && acc > 0)
        rc = bnl_novelty_add(v->ses, v->A, acc, err);
    *acc_out = acc;
    return rc;
}

int fsvc_novelty_batched(int64_t *sel, int64_t *m, double *syn, const fsvc_select_problem *pb,
                         const fsvc_select_opt *o, fsvc_error *err)
{
    pass v;
    int64_t N = pb->N, max_m = o->max_m, B = 64;
    double t0 = fsvc_clock(), tlast = t0;
    *m = 0;
    int rc = pass_open(&v, pb, o, err);
    if (rc) goto done;
    for (int64_t t0i = 0; t0i < N && (max_m <= 0 || v.cnt < max_m);) {
        int64_t b = N - t0i < B ? N - t0i : B, nl = 0, nc = 0, acc = 0;
        rc = chunk_sums(&v, t0i, b, &nl, err);
        if (v.multi) /* the sums; a failure travels in the status word */
            rc = exchange_sums(&v, b, rc, err);
        if (rc || (rc = candidates(&v, b, nl, &nc, err))) goto done;
        rc = resolve(&v, sel, nc, &acc, err);
        t0i += b;
        if (v.multi) /* whether every process resolved the chunk */
            rc = fsvc_comm_agreed(v.multi, rc, err);
        if (rc) goto done;
        /* adapt: small chunks while centroids are accepted often */
        if (acc * 8 > b && B > BMIN) B /= 2;
        else if (acc * 64 < b && B < BMAX) B *= 2;
        if (o->progress && fsvc_clock() - tlast > 0.5) {
            tlast = fsvc_clock();
            progress_line(t0, t0i, N, v.cnt, 0);
        }
    }
    if (o->progress)
        progress_line(t0, N, N, v.cnt, 1);
    if (v.multi && v.multi->sum(v.multi->self, &v.ops, 1, FSVC_F64))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: the sum of the operation counts failed");
    *m = v.cnt;
done:
    if (syn) *syn = v.ops + v.ops_res;
    pass_close(&v);
    return rc;
}
