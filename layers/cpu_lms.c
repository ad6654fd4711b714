/* cpu_lms.c - the CPU table's LMS epoch (bnl.h bnl_lms_epoch): H from
 * bnl_forward on the caller's context per chunk of samples (a device's
 * forward where the device computes H but offers no epoch: f64), the
 * update on the host in sample order over the non-zero activations. */
#include "backend.h"

#include <math.h>
#include <stdlib.h>

int bnl_cpu_lms(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                const void *X, const int *cls, int64_t N, int n, int K, double eta,
                int64_t *bad, fsvc_error *err)
{
    return bnl_cpu_lms_w(ctx, op, R, W, m, X, cls, NULL, N, n, K, eta, bad, err);
}

int bnl_cpu_lms_w(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                  const void *X, const int *cls, const double *sw, int64_t N, int n, int K,
                  double eta, int64_t *bad, fsvc_error *err)
{
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
    for (int64_t i0 = 0; i0 < N; i0 += Nc) {
        int64_t b = N - i0 < Nc ? N - i0 : Nc;
        rc = bnl_forward(ctx, op, H, m, W, m, (const char *)X + (size_t)i0 * row, b, n, err);
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
                    *bad = i0 + i;
                    goto done;
                }
            double step = sw ? eta * sw[i0 + i] : eta; /* weight w: w steps of one */
            for (int64_t q = 0; q < cnt; q++)
                for (int k = 0; k < K; k++)
                    R[nz[q] * K + k] += step * z[q] * e[k];
        }
    }
done:
    free(H); free(z); free(nz); free(e);
    return rc;
}
