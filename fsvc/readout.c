/* readout.c - the fixed one-hot readout and online LMS of FSVC (Dogaru &
 * Dogaru 2016): W[j][k] = (lab_j == k); then `epochs` passes over the
 * samples in file order with 0/1 targets and no bias,
 * W += eta * outer(z, T_i - z.W).
 * A learning rate too large for the data makes the error grow without
 * bound: the pass stops at the first error that is not finite and says so
 * (FSVC_EINPUT: lower -e), rather than leaving NaN weights behind.
 * On a device that offers it (bnl_lms_offered) each epoch runs there
 * whole (bnl_lms_epoch: H never comes back, only R and the status);
 * otherwise H comes from bnl_forward per chunk and the update runs here. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fsvc_readout_onehot(double *R, const int *lab, int64_t m, int K)
{
    memset(R, 0, (size_t)m * K * sizeof *R);
    for (int64_t j = 0; j < m; j++)
        R[j * K + lab[j]] = 1.0;
}

static int diverged(fsvc_error *err, int ep, int64_t i, double eta)
{
    return fsvc_fail(err, FSVC_EINPUT, "lms: the LMS readout diverged (NaN or infinite weights "
                     "at epoch %d, sample %lld) with learning rate %g: lower the learning rate "
                     "(-e)", ep, (long long)i, eta);
}

/* The epochs on the device: one call each, R up and down. */
static int lms_device(double *R, const bnl_ctx *ctx, const bnl_op *op, const void *C,
                      int64_t m, const void *X, const int *cls, int64_t N, int n, int K,
                      double eta, int epochs, int progress, fsvc_error *err)
{
    int rc = FSVC_OK;
    for (int ep = 0; ep < epochs && !rc; ep++) {
        int64_t bad = -1;
        rc = bnl_lms_epoch(ctx, op, R, C, m, X, cls, N, n, K, eta, &bad, err);
        if (!rc && bad >= 0)
            rc = diverged(err, ep + 1, bad + 1, eta);
        if (!rc && progress)
            fsvc_printf("\rlms: epoch %d/%d, %lld/%lld samples   ", ep + 1, epochs,
                        (long long)N, (long long)N);
    }
    if (progress)
        fsvc_printf("\n");
    return rc;
}

int fsvc_readout_lms(double *R, const bnl_ctx *ctx, const bnl_op *op,
                     const void *C, int64_t m, const void *X, const int *cls,
                     int64_t N, int n, int K, double eta, int epochs,
                     int progress, fsvc_error *err)
{
    if (bnl_lms_offered(ctx, op))
        return lms_device(R, ctx, op, C, m, X, cls, N, n, K, eta, epochs, progress, err);
    int dbl = op->dtype == FSVC_F64;
    size_t es = dbl ? sizeof(double) : sizeof(float);
    size_t row = (size_t)n * fsvc_dtype_size(op->dtype);
    int64_t Nc = (int64_t)((1 << 26) / ((size_t)m * es));
    if (Nc < 16) Nc = 16;
    if (Nc > 1024) Nc = 1024;
    void *H = malloc((size_t)Nc * m * es);      /* H: Nc x m */
    double *z = malloc((size_t)m * sizeof *z);  /* one row of H */
    int64_t *nz = malloc((size_t)m * sizeof *nz);
    double *e = malloc((size_t)K * sizeof *e);
    int rc = FSVC_OK;
    if (!H || !z || !nz || !e) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "lms: out of memory (m = %lld)", (long long)m);
        goto done;
    }
    for (int ep = 0; ep < epochs; ep++) {
        for (int64_t i0 = 0; i0 < N; i0 += Nc) {
            int64_t b = N - i0 < Nc ? N - i0 : Nc;
            rc = bnl_forward(ctx, op, H, m, C, m, (const char *)X + (size_t)i0 * row, b, n, err);
            if (rc) goto done;
            for (int64_t i = 0; i < b; i++) {
                int64_t cnt = 0;
                for (int64_t j = 0; j < m; j++) {
                    double h = dbl ? ((double *)H)[i * m + j] : ((float *)H)[i * m + j];
                    if (h != 0) { z[cnt] = h; nz[cnt++] = j; }
                }
                for (int k = 0; k < K; k++)
                    e[k] = cls[i0 + i] == k ? 1.0 : 0.0;
                for (int64_t q = 0; q < cnt; q++)
                    for (int k = 0; k < K; k++)
                        e[k] -= z[q] * R[nz[q] * K + k];
                for (int k = 0; k < K; k++)
                    if (!isfinite(e[k])) {
                        rc = diverged(err, ep + 1, i0 + i + 1, eta);
                        goto done;
                    }
                for (int64_t q = 0; q < cnt; q++)
                    for (int k = 0; k < K; k++)
                        R[nz[q] * K + k] += eta * z[q] * e[k];
            }
            if (progress)
                fsvc_printf("\rlms: epoch %d/%d, %lld/%lld samples   ", ep + 1, epochs,
                            (long long)(i0 + b), (long long)N);
        }
    }
done:
    if (progress)
        fsvc_printf("\n");
    free(H); free(z); free(nz); free(e);
    return rc;
}
