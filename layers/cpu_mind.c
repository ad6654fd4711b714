/* cpu_mind.c - the CPU table's k-means++ min-distance session (bnl.h
 * bnl_mind_*): D2 held here, each update an N x B block of distances from
 * bnl_forward on the caller's context (identity activation) over blocks
 * of samples, D2[i] = min(D2[i], d^2) in increasing j. */
#include "backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIND_BLOCK 8192 /* samples per bnl_forward call */

struct bnl_mind_impl {
    const bnl_ctx *ctx;
    bnl_op op;
    const void *X;
    int64_t N, Bcap;
    int n;
    double *D2;
    void *H; /* MIND_BLOCK x Bcap */
};

int bnl_cpu_mind_open(const bnl_ctx *ctx, const bnl_op *op, const void *X, int64_t N, int n,
                      bnl_mind_impl **out, fsvc_error *err)
{
    bnl_mind_impl *s = calloc(1, sizeof *s);
    double *D2 = malloc((size_t)N * sizeof *D2);
    if (!s || !D2) {
        free(s); free(D2);
        return fsvc_fail(err, FSVC_ERESOURCE, "kmeans++: out of memory for %lld samples",
                         (long long)N);
    }
    for (int64_t i = 0; i < N; i++) D2[i] = INFINITY;
    *s = (bnl_mind_impl){ctx, *op, X, N, 0, n, D2, NULL};
    *out = s;
    return FSVC_OK;
}

int bnl_cpu_mind_update(bnl_mind_impl *s, const void *C, int64_t B, double *D2,
                        fsvc_error *err)
{
    size_t row = (size_t)s->n * fsvc_dtype_size(s->op.dtype);
    size_t hsz = s->op.dtype == FSVC_F64 ? sizeof(double) : sizeof(float);
    if (B > s->Bcap) {
        void *H = realloc(s->H, (size_t)MIND_BLOCK * B * hsz);
        if (!H)
            return fsvc_fail(err, FSVC_ERESOURCE, "kmeans++: out of memory for %lld centroids",
                             (long long)B);
        s->H = H;
        s->Bcap = B;
    }
    for (int64_t i0 = 0; i0 < s->N; i0 += MIND_BLOCK) {
        int64_t nb = s->N - i0 < MIND_BLOCK ? s->N - i0 : MIND_BLOCK;
        int rc = bnl_forward(s->ctx, &s->op, s->H, B, C, B,
                             (const char *)s->X + (size_t)i0 * row, nb, s->n, err);
        if (rc) return rc;
        for (int64_t i = 0; i < nb; i++) {
            double best = s->D2[i0 + i];
            for (int64_t j = 0; j < B; j++) {
                double d = s->op.dtype == FSVC_F64 ? ((const double *)s->H)[i * B + j]
                                                   : ((const float *)s->H)[i * B + j];
                if (d * d < best) best = d * d;
            }
            s->D2[i0 + i] = best;
        }
    }
    memcpy(D2, s->D2, (size_t)s->N * sizeof *D2);
    return FSVC_OK;
}

void bnl_cpu_mind_close(bnl_mind_impl *s)
{
    if (!s) return;
    free(s->D2);
    free(s->H);
    free(s);
}
