/*
 * timing.cu - kernel-only timing of a layer for `fsvc bench`: W, X and
 * the whole H resident on the device, the forward kernels timed with
 * events on one stream, best of reps after a warm-up run. u8 / f32 reuse
 * the readout's sample stream (dstream.cu) for W and X; f64 layers (the
 * f64 tile kernel for L1, cublasDgemm + the f64 epilogue for L2 / dot, as
 * forward.cu's compute_f64) have their own buffers, since the stream's H
 * tiles are float.
 */
#include "dstream.h"

#include <stdlib.h>
#include <string.h>

static int time_fwd(dstream *d, const void *X, int64_t N, int reps, double *sec,
                    fsvc_error *err)
{
    if (d->nb != 1)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: the layer does not fit the device memory "
                         "for a resident timing");
    int gemm = d->k.tile_op < 0;
    bnlc_pack_rows(d->hX[0], d->ldk, X, 0, N, d->n, d->k.es);
    CUDA_CHECK(err, cudaMemcpyAsync(d->dX[0], d->hX[0], (size_t)(N * d->ldk * 4),
                                    cudaMemcpyHostToDevice, d->s));
    float *dHall = NULL;
    CUDA_CHECK(err, cudaMalloc((void **)&dHall, (size_t)(N * d->ldo * 4)));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    double best = 1e300;
    int rc = FSVC_OK;
    for (int r = 0; r < reps + 1 && !rc; r++) { /* the first run warms up */
        cudaEventRecord(a, d->s);
        if (!gemm) {
            cudaError_t e = bnlc_launch_tile(d->k.tile_op, d->ap, dHall, d->ldo, 0, d->dW, d->m,
                                             d->dX[0], N, d->ldk, d->s);
            if (e != cudaSuccess)
                rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: %s", cudaGetErrorString(e));
        } else {
            const float alpha = d->k.l2 ? -2.0f : 1.0f;
            bnlc_launch_norms(d->dxn, (const float *)d->dX[0], N, d->ldk, d->n, d->s);
            rc = bnlc_gemm_prec(d->c->blas, d->s, d->k.prec, (int)d->m, (int)N, d->n, alpha,
                                (const float *)d->dW, (int)d->ldk, (const float *)d->dX[0],
                                (int)d->ldk, dHall, (int)d->ldo, &d->dQ, &d->capQ, err);
            bnlc_launch_gemm_epi(dHall, d->ldo, N, d->m, 0, d->dxn, d->dwn, d->k.l2, d->ap,
                                 d->s);
        }
        cudaEventRecord(b, d->s);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (r > 0 && ms / 1e3 < best)
            best = ms / 1e3;
    }
    cudaError_t e = cudaGetLastError();
    if (!rc && e != cudaSuccess)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: %s", cudaGetErrorString(e));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaFree(dHall);
    *sec = best;
    return rc;
}

/* Best of reps seconds of one resident f64 layer (issue 25: f64 was not
 * timed; bnlc_launch_tile would have run the f32 kernel for it). */
static int time_f64(bnl_cuda *c, const bnl_op *op, const job_kind *k, const void *W,
                    int64_t m, const void *X, int64_t N, int n, int reps, double *sec,
                    fsvc_error *err)
{
    int64_t ldk = bnlc_ldk(n, 8), ldd = ldk / 2, ldo = r4(m);
    int gemm = k->tile_op < 0;
    size_t wb = (size_t)(m * ldk * 4), xb = (size_t)(N * ldk * 4), hb = (size_t)(N * ldo * 8);
    size_t nb = gemm ? (size_t)(m + N) * 8 : 0, fr = 0, tot = 0;
    CUDA_CHECK(err, cudaMemGetInfo(&fr, &tot));
    if ((double)(wb + xb + hb + nb) > 0.9 * (double)fr)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: the layer does not fit the device memory "
                         "for a resident timing");
    uint32_t *hb_ = (uint32_t *)malloc(wb > xb ? wb : xb);
    if (!hb_)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: out of memory");
    uint32_t *dW = NULL, *dX = NULL;
    double *dH = NULL, *dwn = NULL, *dxn = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t a = NULL, b = NULL;
    const double alpha = k->l2 ? -2.0 : 1.0, beta = 0.0;
    bnlc_actpd ap = bnlc_actpd_of(op);
    double best = 1e300;
    int rc = FSVC_OK;
    /* W and X packed as forward.cu packs them, up on s (pageable: wait) */
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreate(&a);
    if (e == cudaSuccess) e = cudaEventCreate(&b);
    if (e == cudaSuccess) e = cudaMalloc((void **)&dW, wb);
    if (e == cudaSuccess) e = cudaMalloc((void **)&dX, xb);
    if (e == cudaSuccess) e = cudaMalloc((void **)&dH, hb);
    if (e == cudaSuccess && gemm) e = cudaMalloc((void **)&dwn, (size_t)m * 8);
    if (e == cudaSuccess && gemm) e = cudaMalloc((void **)&dxn, (size_t)N * 8);
    if (e == cudaSuccess) {
        bnlc_pack_rows(hb_, ldk, W, 0, m, n, 8);
        e = cudaMemcpyAsync(dW, hb_, wb, cudaMemcpyHostToDevice, s);
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e == cudaSuccess) {
        bnlc_pack_rows(hb_, ldk, X, 0, N, n, 8);
        e = cudaMemcpyAsync(dX, hb_, xb, cudaMemcpyHostToDevice, s);
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e == cudaSuccess && gemm) e = bnlc_launch_norms_d(dwn, (const double *)dW, m, ldd, n, s);
    if (e == cudaSuccess && gemm && cublasSetStream(c->blas, s) != CUBLAS_STATUS_SUCCESS)
        e = cudaErrorUnknown;
    for (int r = 0; r < reps + 1 && e == cudaSuccess; r++) { /* the first run warms up */
        e = cudaEventRecord(a, s);
        if (e == cudaSuccess && !gemm)
            e = bnlc_launch_tile_f64(ap, dH, ldo, 0, dW, m, dX, N, ldk, s);
        if (e == cudaSuccess && gemm) {
            e = bnlc_launch_norms_d(dxn, (const double *)dX, N, ldd, n, s);
            if (e == cudaSuccess &&
                cublasDgemm_64(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, m, N, n, &alpha,
                               (const double *)dW, ldd, (const double *)dX, ldd, &beta, dH,
                               ldo) != CUBLAS_STATUS_SUCCESS)
                e = cudaErrorUnknown;
            if (e == cudaSuccess)
                e = bnlc_launch_gemm_epi_d(dH, ldo, N, m, 0, dxn, dwn, k->l2, ap, s);
        }
        if (e == cudaSuccess) e = cudaEventRecord(b, s);
        if (e == cudaSuccess) e = cudaEventSynchronize(b);
        float ms = 0;
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, a, b);
        if (e == cudaSuccess && r > 0 && ms / 1e3 < best)
            best = ms / 1e3;
    }
    if (e != cudaSuccess)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: f64 timing: %s", cudaGetErrorString(e));
    if (s) cudaStreamSynchronize(s);
    if (gemm) cublasSetStream(c->blas, 0); /* s is destroyed below */
    cudaFree(dW); cudaFree(dX); cudaFree(dH); cudaFree(dwn); cudaFree(dxn);
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    if (s) cudaStreamDestroy(s);
    cudaGetLastError();
    free(hb_);
    *sec = best;
    return rc;
}

extern "C" int bnl_cuda_time_forward(bnl_cuda *c, const bnl_op *op, const void *W, int64_t m,
                                     const void *X, int64_t N, int n, int reps, double *sec,
                                     fsvc_error *err)
{
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: backend not open");
    if (m < 1 || N < 1 || n < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: empty layer");
    CUDA_CHECK(err, cudaSetDevice(c->dev));
    job_kind k;
    int rk = bnlc_kind_of(op, n, &k, err);
    if (rk)
        return rk;
    if (k.es == 8)
        return time_f64(c, op, &k, W, m, X, N, n, reps < 1 ? 1 : reps, sec, err);
    dstream d;
    /* the whole H (N x ldo floats) besides the stream's buffers */
    int rc = dstream_open(&d, c, op, W, m, N, n, 1, 0, (size_t)N * r4(m) * 4, 0, err);
    if (!rc)
        rc = time_fwd(&d, X, N, reps < 1 ? 1 : reps, sec, err);
    dstream_free(&d);
    return rc;
}
