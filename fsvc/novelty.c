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
 * and the same centroids are selected. */
#include "internal.h"

#include <math.h>
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

int fsvc_novelty_batched(int64_t *sel, int64_t *m, double *syn,
                         const bnl_ctx *ctx, const bnl_op *op, double prag,
                         int64_t max_m, int progress, const void *X,
                         const int64_t *order, int64_t N, int n,
                         fsvc_error *err)
{
    enum { BMIN = 16, BMAX = 4096 };
    size_t row = (size_t)n * fsvc_dtype_size(op->dtype);
    const char *x0 = X;
    int64_t cnt = 0, cap = 256, B = 64;
    double ops = 0, t0 = fsvc_clock(), tlast = t0;
    char *C = malloc(cap * row);          /* C: cap x n, the centroids */
    char *Xc = malloc((size_t)BMAX * row); /* Xc: B x n, the chunk */
    double *S = malloc(BMAX * sizeof *S), *T = malloc(BMAX * sizeof *T);
    int64_t *ci = malloc(BMAX * sizeof *ci);
    int rc = FSVC_OK;
    /* small calls run on one thread: a parallel region costs more than
     * they do (the sums are the same on any thread count) */
    bnl_ctx one = *ctx;
    if (one.backend == BNL_CPU) one.threads = 1;
    *m = 0;
    if (!C || !Xc || !S || !T || !ci) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory");
        goto done;
    }
    for (int64_t t0i = 0; t0i < N && (max_m <= 0 || cnt < max_m);) {
        int64_t b = N - t0i < B ? N - t0i : B;
        for (int64_t k = 0; k < b; k++) {
            ci[k] = order ? order[t0i + k] : t0i + k;
            memcpy(Xc + (size_t)k * row, x0 + (size_t)ci[k] * row, row);
            S[k] = 0;
        }
        if (cnt > 0) {
            rc = bnl_actsum((double)cnt * b * n < 4e6 ? &one : ctx, op, S, C, cnt, Xc, b, n, err);
            if (rc) goto done;
            ops += (double)cnt * b * n;
        }
        int64_t acc = 0;
        for (int64_t k = 0; k < b && (max_m <= 0 || cnt < max_m); k++) {
            if (!(cnt == 0 || S[k] < prag))
                continue;
            if (cnt == cap) {
                char *nc = realloc(C, 2 * cap * row);
                if (!nc) {
                    rc = fsvc_fail(err, FSVC_ERESOURCE, "novelty: out of memory for %lld centroids",
                                   (long long)(2 * cap));
                    goto done;
                }
                C = nc;
                cap *= 2;
            }
            memcpy(C + (size_t)cnt * row, Xc + (size_t)k * row, row);
            sel[cnt++] = ci[k];
            acc++;
            int64_t rest = b - k - 1;
            if (rest > 0) {
                memset(T, 0, rest * sizeof *T);
                rc = bnl_actsum(&one, op, T, C + (size_t)(cnt - 1) * row, 1,
                                Xc + (size_t)(k + 1) * row, rest, n, err);
                if (rc) goto done;
                ops += (double)rest * n;
                for (int64_t q = 0; q < rest; q++)
                    S[k + 1 + q] += T[q];
            }
        }
        t0i += b;
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
    *m = cnt;
done:
    if (syn) *syn = ops;
    free(C); free(Xc); free(S); free(T); free(ci);
    return rc;
}
