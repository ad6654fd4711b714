/*
 * lms.cu - one epoch of the online LMS readout (fsvc/readout.c) resident
 * on the device: nothing of size N x m crosses PCIe.
 *   up:   W (packed), the samples in chunks (u8 stays u8) with their
 *         one-hot targets (the sample stream of cuda/dstream.cu), R
 *         (m x K float64) at the start of the epoch;
 *   down: R after the epoch and the status (the first sample whose error
 *         was not finite, or -1).
 * Per tile of H (computed and widened on the device by the stream), one
 * block of BNLC_LMS_THREADS threads takes the tile's samples in file order:
 * e = t - z.R (a block reduction over the neurons), then R += eta z e
 * (parallel over the neurons); the bodies are in kernels_hd.h. The kernels
 * of successive tiles run in order on the compute stream, so the updates
 * are sequential over all samples as on the CPU; only the order of the
 * dot's sums differs.
 */
#include "dstream.h"

#include <stdlib.h>
#include <string.h>

static __global__ void __launch_bounds__(BNLC_LMS_THREADS)
    lms_kernel(double *R, const double *Hd, const double *tg, int64_t nt, int64_t m, int K,
               double eta, double *e, int64_t *bad, int64_t i0)
{
    __shared__ double part[BNLC_LMS_KC * BNLC_LMS_THREADS];
    __shared__ int64_t sbad;
    const int T = BNLC_LMS_THREADS, t = threadIdx.x;
    if (t == 0)
        sbad = *bad;
    __syncthreads();
    volatile int64_t *vb = &sbad;
    if (*vb >= 0) /* an earlier tile diverged */
        return;
    for (int64_t s = 0; s < nt; s++) {
        const double *z = Hd + s * m;
        for (int k0 = 0; k0 < K; k0 += BNLC_LMS_KC) {
            int kn = K - k0 < BNLC_LMS_KC ? K - k0 : BNLC_LMS_KC;
            bnlc_lms_dot_body(part, z, R, m, K, k0, kn, t, T);
            __syncthreads();
            for (int half = T / 2; half > 0; half /= 2) {
                bnlc_lms_fold_body(part, T, kn, half, t);
                __syncthreads();
            }
            bnlc_lms_err_body(e, part, T, tg + s * K, k0, kn, i0 + s, &sbad, t);
            __syncthreads();
        }
        if (*vb >= 0) {
            if (t == 0)
                *bad = *vb;
            return;
        }
        bnlc_lms_update_body(R, z, e, m, K, eta, t, T);
        __syncthreads();
    }
}

struct lms_u {
    double *dR, *de, eta;
    int64_t *dbad;
};

static int lms_tile(void *u, dstream *d, int b, int64_t i0, int64_t t0, int64_t nt,
                    fsvc_error *err)
{
    lms_u *q = (lms_u *)u;
    lms_kernel<<<1, BNLC_LMS_THREADS, 0, d->s>>>(q->dR, d->dHd, d->dT[b] + t0 * d->K, nt, d->m,
                                                 d->K, q->eta, q->de, q->dbad, i0 + t0);
    CUDA_CHECK(err, cudaGetLastError());
    return FSVC_OK;
}

extern "C" int bnl_cuda_lms(bnl_cuda *c, const bnl_op *op, double *R, const void *W, int64_t m,
                            const void *X, const int *cls, int64_t N, int n, int K, double eta,
                            int64_t *bad, fsvc_error *err)
{
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: backend not open");
    if (m < 1 || N < 1 || n < 1 || K < 1 || !cls || !R || !bad)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: bad LMS shape (m %lld, N %lld, n %d, K %d)",
                         (long long)m, (long long)N, n, K);
    *bad = -1;
    CUDA_CHECK(err, cudaSetDevice(c->dev));
    dstream d;
    lms_u q;
    memset(&q, 0, sizeof q);
    q.eta = eta;
    size_t rb = (size_t)m * K * 8;
    int rc = dstream_open(&d, c, op, W, m, N, n, K, 1, rb + (size_t)K * 8 + 8, 0, err);
    if (!rc) {
        cudaError_t e = cudaMalloc((void **)&q.dR, rb);
        if (e == cudaSuccess) e = cudaMalloc((void **)&q.de, (size_t)K * 8);
        if (e == cudaSuccess) e = cudaMalloc((void **)&q.dbad, sizeof(int64_t));
        /* on d.s, where lms_kernel reads them (issue 25: a legacy-stream copy
         * is not ordered before a non-blocking stream) */
        if (e == cudaSuccess) e = cudaMemcpyAsync(q.dR, R, rb, cudaMemcpyHostToDevice, d.s);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(q.dbad, bad, sizeof(int64_t), cudaMemcpyHostToDevice, d.s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(d.s); /* R and bad: pageable */
        if (e != cudaSuccess)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: lms: %s", cudaGetErrorString(e));
    }
    if (!rc)
        rc = dstream_run(&d, X, N, cls, NULL, lms_tile, NULL, &q, err);
    if (!rc) {
        cudaError_t e = cudaMemcpy(R, q.dR, rb, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaMemcpy(bad, q.dbad, sizeof(int64_t), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: lms: %s", cudaGetErrorString(e));
    }
    dstream_free(&d);
    cudaFree(q.dR);
    cudaFree(q.de);
    cudaFree(q.dbad);
    cudaGetLastError();
    return rc;
}
