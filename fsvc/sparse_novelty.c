/* sparse_novelty.c - the FSVC novelty pass on sparse rows (sparse.h).
 *
 * The definition (fsvc_sparse_novelty_seq): samples in the given order; a
 * sample becomes a centroid when the sum over the current centroids, in
 * increasing order, of its activations (bnl_sparse_pair, summed in
 * double) is below prag; the first sample always does. The batched pass
 * computes the sums of a chunk of samples against the centroids at once
 * with the sparse layer (the same bits as bnl_sparse_pair), then resolves
 * the chunk in order, adding the activations of centroids accepted in the
 * chunk: it selects exactly what the definition selects (test_csr.c). */
#include "sparse.h"

#include <stdlib.h>
#include <string.h>

/* A growing CSR of gathered rows. */
typedef struct rows {
    int64_t cnt, cap, nnz, vcap;
    int64_t *ptr;
    int32_t *col;
    float *val;
} rows;

static int rows_add(rows *r, const fsvc_csr *X, int64_t i)
{
    int64_t s = X->row_ptr[i], e = X->row_ptr[i + 1];
    if (r->cnt + 2 > r->cap) {
        int64_t c = r->cap ? 2 * r->cap : 256;
        int64_t *p = realloc(r->ptr, (size_t)c * sizeof *p);
        if (!p) return -1;
        r->ptr = p;
        r->cap = c;
    }
    if (r->nnz + (e - s) > r->vcap) {
        int64_t c = r->vcap ? 2 * r->vcap : 4096;
        while (c < r->nnz + (e - s)) c *= 2;
        int32_t *cc = realloc(r->col, (size_t)c * sizeof *cc);
        if (!cc) return -1;
        r->col = cc;
        float *vv = realloc(r->val, (size_t)c * sizeof *vv);
        if (!vv) return -1;
        r->val = vv;
        r->vcap = c;
    }
    if (r->cnt == 0) r->ptr[0] = 0;
    if (e > s) { /* an empty row copies nothing (and the arrays may not exist yet) */
        memcpy(r->col + r->nnz, X->col + s, (size_t)(e - s) * sizeof *r->col);
        memcpy(r->val + r->nnz, X->val + s, (size_t)(e - s) * sizeof *r->val);
    }
    r->nnz += e - s;
    r->ptr[++r->cnt] = r->nnz;
    return 0;
}

static void rows_free(rows *r)
{
    free(r->ptr); free(r->col); free(r->val);
    memset(r, 0, sizeof *r);
}

static bnl_csr rows_view(const rows *r, int64_t i0, int64_t b)
{
    bnl_csr v = {b, r->ptr + i0, r->col, r->val};
    return v;
}

int fsvc_sparse_novelty_seq(int64_t *sel, int64_t *m, const fsvc_select_problem *pb,
                            const fsvc_select_opt *o)
{
    const bnl_op *op = pb->op;
    const fsvc_csr *X = pb->Xs;
    const int64_t *order = pb->order;
    int64_t N = pb->N, max_m = o->max_m;
    double prag = o->prag;
    bnl_csr xv = fsvc_csr_view(X, 0, X->rows);
    int64_t cnt = 0;
    for (int64_t t = 0; t < N && (max_m <= 0 || cnt < max_m); t++) {
        int64_t i = order ? order[t] : t;
        double a = 0;
        for (int64_t j = 0; j < cnt; j++)
            a += (double)bnl_sparse_pair(op, &xv, i, &xv, sel[j]);
        if (cnt == 0 || a < prag) sel[cnt++] = i;
    }
    *m = cnt;
    return FSVC_OK;
}

int fsvc_sparse_novelty(int64_t *sel, int64_t *m, double *syn, const fsvc_select_problem *pb,
                        const fsvc_select_opt *o, fsvc_error *err)
{
    const bnl_ctx *ctx = pb->ctx;
    const bnl_op *op = pb->op;
    const fsvc_csr *X = pb->Xs;
    const int64_t *order = pb->order;
    int64_t N = pb->N, max_m = o->max_m;
    int n = pb->n;
    double prag = o->prag;
    enum { BMIN = 16, BMAX = 4096 };
    rows C = {0}, Xc = {0};
    bnl_csc T = {0};
    int64_t cnt = 0, built = -1, B = 64;
    double ops = 0;
    double *S = malloc(BMAX * sizeof *S);
    float *H = NULL;
    size_t hcap = 0;
    int rc = FSVC_OK;
    *m = 0;
    if (!S) { rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory"); goto done; }
    for (int64_t t0 = 0; t0 < N && (max_m <= 0 || cnt < max_m);) {
        int64_t b = N - t0 < B ? N - t0 : B;
        Xc.cnt = Xc.nnz = 0;
        for (int64_t k = 0; k < b; k++)
            if (rows_add(&Xc, X, order ? order[t0 + k] : t0 + k)) goto oom;
        for (int64_t k = 0; k < b; k++) S[k] = 0;
        bnl_csr xv = rows_view(&Xc, 0, b);
        if (cnt > 0) {
            if (built != cnt) { /* the centroids by feature, when they changed */
                bnl_csc_free(&T);
                bnl_csr cv = rows_view(&C, 0, cnt);
                if ((rc = bnl_csc_make(&T, &cv, n, op->dist, err))) goto done;
                built = cnt;
            }
            if ((size_t)(b * cnt) > hcap) {
                float *h = realloc(H, (size_t)b * cnt * sizeof *h);
                if (!h) goto oom;
                H = h;
                hcap = (size_t)(b * cnt);
            }
            if ((rc = bnl_sparse_forward(ctx, op, H, cnt, &T, &xv, err))) goto done;
            for (int64_t k = 0; k < b; k++) {
                double s = 0;
                for (int64_t j = 0; j < cnt; j++) s += (double)H[(size_t)k * cnt + j];
                S[k] = s;
            }
            ops += (double)cnt * (double)(Xc.nnz);
        }
        int64_t acc = 0;
        for (int64_t k = 0; k < b && (max_m <= 0 || cnt < max_m); k++) {
            if (!(cnt == 0 || S[k] < prag))
                continue;
            if (rows_add(&C, X, order ? order[t0 + k] : t0 + k)) goto oom;
            sel[cnt++] = order ? order[t0 + k] : t0 + k;
            acc++;
            bnl_csr cv = rows_view(&C, 0, cnt);
            for (int64_t q = k + 1; q < b; q++) /* later samples meet the new centroid */
                S[q] += (double)bnl_sparse_pair(op, &xv, q, &cv, cnt - 1);
        }
        t0 += b;
        if (acc * 8 > b && B > BMIN) B /= 2;
        else if (acc * 64 < b && B < BMAX) B *= 2;
    }
    *m = cnt;
    goto done;
oom:
    rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory (%lld centroids)",
                   (long long)cnt);
done:
    if (syn) *syn = ops;
    rows_free(&C); rows_free(&Xc);
    bnl_csc_free(&T);
    free(S); free(H);
    return rc;
}
