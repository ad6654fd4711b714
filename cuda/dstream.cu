/*
 * dstream.cu - the sample stream of the device-resident readout work
 * (see dstream.h): planning against cudaMemGetInfo, W once, the samples
 * resident or chunked through two pinned buffers (the packing and H2D of
 * chunk c + 1 overlapping the compute of chunk c), H per tile on the
 * compute stream (the tile kernel, or cuBLAS Sgemm + the GEMM epilogue as
 * forward.cu) widened to float64 (bnlc_widen_body).
 */
#include "dstream.h"

#include <stdlib.h>
#include <string.h>

static __global__ void widen_kernel(double *Hd, int64_t ldd, const float *H, int64_t ldh, int64_t rows,
                             int64_t cols)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
        bnlc_widen_body(Hd, ldd, H, ldh, r, c);
}

static __global__ void rowscale_kernel(double *Hd, int64_t ldd, const double *sw, int64_t rows,
                                int64_t cols)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
        bnlc_rowscale_body(Hd, ldd, sw, r, c);
}

void dstream_free(dstream *d)
{
    if (d->s) cudaStreamSynchronize(d->s);
    if (d->cs) cudaStreamSynchronize(d->cs);
    cudaFree(d->dW); cudaFree(d->dwn); cudaFree(d->dxn); cudaFree(d->dH); cudaFree(d->dHd);
    cudaFree(d->dQ);
    for (int b = 0; b < 2; b++) {
        cudaFree(d->dX[b]); cudaFree(d->dT[b]); cudaFree(d->dw[b]);
        cudaFreeHost(d->hX[b]); cudaFreeHost(d->hT[b]); cudaFreeHost(d->hw[b]);
        if (d->events) { cudaEventDestroy(d->up[b]); cudaEventDestroy(d->used[b]); }
    }
    if (d->s) cudaStreamDestroy(d->s);
    if (d->cs) cudaStreamDestroy(d->cs);
    cudaGetLastError();
    memset(d, 0, sizeof *d);
}

/* Plans and allocates: fixed = device bytes the caller holds besides. */
int dstream_open(dstream *d, bnl_cuda *c, const bnl_op *op, const void *W, int64_t m,
                   int64_t N, int n, int K, int targets, size_t fixed, double extra_row,
                   fsvc_error *err)
{
    memset(d, 0, sizeof *d);
    d->c = c; d->m = m; d->n = n; d->K = K;
    int rc = bnlc_kind_of(op, n, &d->k, err);
    if (rc)
        return rc;
    if (d->k.es == 8) /* f64: forward and actsum only; the readout work stays on the CPU */
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: f64 readout work is not offered on the GPU "
                         "(use cpu)");
    if (m > 2147483647 || N > 2147483647)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: cuBLAS sizes over int range");
    d->ap = bnlc_actp_of(op);
    d->ldk = bnlc_ldk(n, d->k.es);
    d->ldo = r4(m);
    int gemm = d->k.tile_op < 0;
    size_t fr = 0, tot = 0;
    CUDA_CHECK(err, cudaSetDevice(c->dev));
    CUDA_CHECK(err, cudaMemGetInfo(&fr, &tot));
    double budget = (double)fr * (c->lim.mem_frac > 0 ? c->lim.mem_frac : 0.9) -
                    (double)(c->lim.mem_reserve > 0 ? c->lim.mem_reserve : (256 << 20)) -
                    (double)fixed;
    double wbytes = (double)m * d->ldk * 4 + (gemm ? m * 4.0 : 0);
    double rowx = (double)d->ldk * 4 + (targets ? K * 8.0 : 0) + (targets == 2 ? 8 : 0) + (gemm ? 4 : 0) + extra_row;
    budget -= wbytes;
    /* the H tile: float (ldo) + float64 (m) per sample */
    d->Nt = N < 4096 ? N : 4096;
    while (d->Nt > 128 && (double)d->Nt * (d->ldo * 4.0 + m * 8.0) > budget / 3)
        d->Nt /= 2;
    budget -= (double)d->Nt * (d->ldo * 4.0 + m * 8.0);
    if (budget < (double)d->Nt * rowx)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: not enough device memory for %lld "
                         "centroids (%.2f GB free)", (long long)m, (double)fr / 1e9);
    if ((double)N * rowx <= budget) {
        d->nb = 1; d->Xc = N;
    } else {
        d->nb = 2;
        d->Xc = (int64_t)(budget / (2 * rowx)) / d->Nt * d->Nt;
        if (d->Xc < d->Nt) d->Xc = d->Nt;
    }
    CUDA_CHECK(err, cudaStreamCreateWithFlags(&d->s, cudaStreamNonBlocking));
    CUDA_CHECK(err, cudaStreamCreateWithFlags(&d->cs, cudaStreamNonBlocking));
    for (int b = 0; b < 2; b++) {
        CUDA_CHECK(err, cudaEventCreateWithFlags(&d->up[b], cudaEventDisableTiming));
        CUDA_CHECK(err, cudaEventCreateWithFlags(&d->used[b], cudaEventDisableTiming));
    }
    d->events = 1;
    DALLOC(err, d->dW, m * d->ldk * 4);
    DALLOC(err, d->dH, d->Nt * d->ldo * 4);
    DALLOC(err, d->dHd, d->Nt * m * 8);
    if (gemm) {
        DALLOC(err, d->dwn, m * 4);
        DALLOC(err, d->dxn, d->Xc * 4);
    }
    for (int b = 0; b < d->nb; b++) {
        DALLOC(err, d->dX[b], d->Xc * d->ldk * 4);
        HALLOC(err, d->hX[b], d->Xc * d->ldk * 4);
        if (targets) {
            DALLOC(err, d->dT[b], d->Xc * K * 8);
            HALLOC(err, d->hT[b], d->Xc * K * 8);
        }
        if (targets == 2) {
            DALLOC(err, d->dw[b], d->Xc * 8);
            HALLOC(err, d->hw[b], d->Xc * 8);
        }
    }
    /* W once (pageable: one copy does not pay for pinning), on the compute
     * stream: a legacy-stream copy is not ordered before the norms kernel
     * on the non-blocking d->s, and a pageable H2D may return before its
     * DMA lands. The synchronize also makes freeing hW safe. */
    uint32_t *hW = (uint32_t *)malloc((size_t)(m * d->ldk * 4));
    if (!hW)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: out of memory");
    bnlc_pack_rows(hW, d->ldk, W, 0, m, n, d->k.es);
    cudaError_t e = cudaMemcpyAsync(d->dW, hW, (size_t)(m * d->ldk * 4), cudaMemcpyHostToDevice,
                                    d->s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(d->s);
    free(hW);
    CUDA_CHECK(err, e);
    if (gemm)
        CUDA_CHECK(err, bnlc_launch_norms(d->dwn, (const float *)d->dW, m, d->ldk, n, d->s));
    return FSVC_OK;
}

/* H of samples t0 .. t0 + nt - 1 of the chunk in buffer b, widened into
 * dHd (column-major m x nt). */
int dstream_tile(dstream *d, int b, int64_t t0, int64_t nt, fsvc_error *err)
{
    const uint32_t *X = d->dX[b] + t0 * d->ldk;
    if (d->k.tile_op >= 0) {
        CUDA_CHECK(err, bnlc_launch_tile(d->k.tile_op, d->ap, d->dH, d->ldo, 0, d->dW, d->m, X,
                                         nt, d->ldk, d->s));
    } else {
        const float alpha = d->k.l2 ? -2.0f : 1.0f;
        int rc = bnlc_gemm_prec(d->c->blas, d->s, d->k.prec, (int)d->m, (int)nt, d->n, alpha,
                                (const float *)d->dW, (int)d->ldk, (const float *)X,
                                (int)d->ldk, d->dH, (int)d->ldo, &d->dQ, &d->capQ, err);
        if (rc)
            return rc;
        CUDA_CHECK(err, bnlc_launch_gemm_epi(d->dH, d->ldo, nt, d->m, 0, d->dxn + t0, d->dwn,
                                             d->k.l2, d->ap, d->s));
    }
    widen_kernel<<<grid2(d->m, nt), 256, 0, d->s>>>(d->dHd, d->m, d->dH, d->ldo, nt, d->m);
    CUDA_CHECK(err, cudaGetLastError());
    return FSVC_OK;
}

/* Streams every sample through dstream_tile and fn; done(u) after each chunk's
 * tiles are queued (scores: copy Y back). */
int dstream_run(dstream *d, const void *X, int64_t N, const int *cls, const double *y,
                  tile_fn fn, chunk_fn done, void *u, fsvc_error *err)
{
    int gemm = d->k.tile_op < 0;
    int wt = d->cw && cls && !y && d->hw[0]; /* weighted samples */
    int rc;
    if (d->cw && !wt)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: class weights without classes or weight "
                         "buffers");
    for (int64_t i0 = 0, ch = 0; i0 < N; i0 += d->Xc, ch++) {
        int b = (int)(ch % d->nb);
        int64_t rows = N - i0 < d->Xc ? N - i0 : d->Xc;
        if (ch >= d->nb) /* the compute is done with buffer b (and so its copy) */
            CUDA_CHECK(err, cudaEventSynchronize(d->used[b]));
        bnlc_pack_rows(d->hX[b], d->ldk, X, i0, rows, d->n, d->k.es);
        CUDA_CHECK(err, cudaMemcpyAsync(d->dX[b], d->hX[b], (size_t)(rows * d->ldk * 4),
                                        cudaMemcpyHostToDevice, d->cs));
        if (d->hT[b]) {
            for (int64_t r = 0; r < rows; r++)
                bnlc_target_body(d->hT[b], d->K, cls ? cls + i0 : NULL, y ? y + i0 : NULL, r);
            if (wt)
                for (int64_t r = 0; r < rows; r++)
                    bnlc_weight_body(d->hw[b], d->hT[b], d->K, cls + i0, d->cw, r);
            CUDA_CHECK(err, cudaMemcpyAsync(d->dT[b], d->hT[b], (size_t)(rows * d->K * 8),
                                            cudaMemcpyHostToDevice, d->cs));
            if (wt)
                CUDA_CHECK(err, cudaMemcpyAsync(d->dw[b], d->hw[b], (size_t)(rows * 8),
                                                cudaMemcpyHostToDevice, d->cs));
        }
        CUDA_CHECK(err, cudaEventRecord(d->up[b], d->cs));
        CUDA_CHECK(err, cudaStreamWaitEvent(d->s, d->up[b], 0));
        if (gemm)
            CUDA_CHECK(err, bnlc_launch_norms(d->dxn, (const float *)d->dX[b], rows, d->ldk,
                                              d->n, d->s));
        for (int64_t t0 = 0; t0 < rows; t0 += d->Nt) {
            int64_t nt = rows - t0 < d->Nt ? rows - t0 : d->Nt;
            if ((rc = dstream_tile(d, b, t0, nt, err)))
                return rc;
            if (wt) {
                rowscale_kernel<<<grid2(d->m, nt), 256, 0, d->s>>>(d->dHd, d->m, d->dw[b] + t0,
                                                                   nt, d->m);
                CUDA_CHECK(err, cudaGetLastError());
            }
            if ((rc = fn(u, d, b, i0, t0, nt, err)))
                return rc;
        }
        CUDA_CHECK(err, cudaEventRecord(d->used[b], d->s));
        if (done && (rc = done(u, d, i0, rows, err)))
            return rc;
    }
    CUDA_CHECK(err, cudaStreamSynchronize(d->s));
    return FSVC_OK;
}
