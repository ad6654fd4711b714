/*
 * ridge.cu - the readout's work resident on the device: the ridge normal
 * equations (G = H^T H, B = H^T T, then the Cholesky solve) and the
 * scores Y = H R, and the block products of an iterative solver (B = H^T T
 * with the trace of H^T H, Y = H^T (H V)). H is computed tile by tile on the device and consumed
 * there; nothing of size N x m crosses PCIe:
 *   up:   W once (packed as the forward kernels read it), X once (u8 stays
 *         u8) or, when it does not fit, in chunks through two pinned
 *         buffers on a copy stream, the packing and H2D of chunk c + 1
 *         overlapping the compute of chunk c; the targets T (N x K).
 *   down: diag(G) and B (m and m x K) after the accumulation, R (m x K)
 *         after the solve; Y (N x K) for the scores; across processes G
 *         (m x m, normal_fetch) instead of the solve.
 * Per sample tile (Nt rows) on the compute stream: the tile kernel or
 * cuBLAS Sgemm + GEMM epilogue (as forward.cu) -> H (Nt x ldo, float) ->
 * widened to float64 (bnlc_widen_body) -> with class weights each
 * sample's column scaled by sqrt(w) (bnlc_rowscale_body; its target row
 * too, on the host: H^T D H, H^T D T) -> Dsyrk G += H^T H (lower) and
 * Dgemm B += H^T T, or Dgemm Y = H R. Float64 products because an f32
 * Gram of MNIST at m = 10000 is not positive definite at lambda 1e-5.
 * The solve: cuSOLVER Dpotrf / Dpotrs on G's lower triangle; the upper
 * triangle keeps a pristine mirror (bnlc_mirror_body), so a retry with a
 * larger lambda (fsvc/ridge.c) restores G on the device.
 * The memory budget comes from cudaMemGetInfo at the call. The sample
 * stream (W, chunks, tiles of H) is cuda/dstream.cu, shared with the LMS
 * readout (cuda/lms.cu).
 */
#include "dstream.h"

#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>

#define CUSOLVER_CHECK(err, call)                                                      \
    do {                                                                               \
        cusolverStatus_t s_ = (call);                                                  \
        if (s_ != CUSOLVER_STATUS_SUCCESS)                                             \
            return fsvc_fail((err), FSVC_ERESOURCE, "cusolver: %s:%d: %s: status %d",  \
                             __FILE__, __LINE__, #call, (int)s_);                      \
    } while (0)

/* The solve uses cuSOLVER's 64-bit API (Xpotrf / Xpotrs) and the products
 * cuBLAS's _64 calls: m^2 passes 2^31 at m = 46341 and m * Nt at far less,
 * while the direct solve is chosen up to m ~ 67k on an 80 GB device. */
struct bnl_normal_impl {
    bnl_cuda *c;
    cusolverDnHandle_t sol;
    cusolverDnParams_t par;
    int64_t m;
    int K;
    double *dG, *dB, *dB0, *ddg;
    void *dwork, *hwork;
    int *dinfo;
    size_t lwork, hlwork;
};

/* ---- kernels: the bodies are in kernels_hd.h ---- */
static __global__ void mirror_kernel(double *G, int64_t m, int to_upper)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int64_t j = blockIdx.y; j < m; j += gridDim.y)
        bnlc_mirror_body(G, m, i, j, to_upper);
}

static __global__ void diag_kernel(double *G, int64_t m, const double *dg, double lam, int get)
{
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    if (get)
        bnlc_getdiag_body((double *)dg, G, m, j);
    else
        bnlc_diag_body(G, m, dg, lam, j);
}

/* ---- the normal equations ---- */
extern "C" int bnl_cuda_normal_open(bnl_cuda *c, bnl_normal_impl **out, fsvc_error *err)
{
    *out = NULL;
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: backend not open");
    bnl_normal_impl *s = (bnl_normal_impl *)calloc(1, sizeof *s);
    if (!s)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: out of memory");
    s->c = c;
    /* the handle binds to the current device: make it c's (issue 25) */
    if (cudaSetDevice(c->dev) != cudaSuccess || cusolverDnCreate(&s->sol) != CUSOLVER_STATUS_SUCCESS) {
        cudaGetLastError();
        free(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "cusolver: cannot create a handle");
    }
    if (cusolverDnCreateParams(&s->par) != CUSOLVER_STATUS_SUCCESS) {
        cusolverDnDestroy(s->sol);
        free(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "cusolver: cannot create its parameters");
    }
    *out = s;
    return FSVC_OK;
}

extern "C" void bnl_cuda_normal_close(bnl_normal_impl *s)
{
    if (!s)
        return;
    cudaSetDevice(s->c->dev); /* the synchronize and frees are the session's device */
    cudaDeviceSynchronize();
    cudaFree(s->dG); cudaFree(s->dB); cudaFree(s->dB0); cudaFree(s->ddg); cudaFree(s->dwork);
    cudaFree(s->dinfo);
    free(s->hwork);
    cusolverDnDestroyParams(s->par);
    cusolverDnDestroy(s->sol);
    cudaGetLastError();
    free(s);
}

struct ridge_u {
    bnl_normal_impl *s;
};

static int ridge_tile(void *u, dstream *d, int b, int64_t i0, int64_t t0, int64_t nt,
                      fsvc_error *err)
{
    bnl_normal_impl *s = ((ridge_u *)u)->s;
    const double one = 1.0;
    cublasHandle_t h = d->c->blas;
    CUBLAS_CHECK(err, cublasSetStream(h, d->s));
    CUBLAS_CHECK(err, cublasDsyrk_64(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, d->m, nt, &one,
                                     d->dHd, d->m, &one, s->dG, d->m));
    CUBLAS_CHECK(err, cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_T, d->m, d->K, nt, &one, d->dHd,
                                     d->m, d->dT[b] + t0 * d->K, d->K, &one, s->dB, d->m));
    return FSVC_OK;
}

static int normal_accum(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                        const void *X, int64_t N, int n, const int *cls, const double *y,
                        const double *cw, int K, double *diag, double *B, dstream *d,
                        fsvc_error *err)
{
    CUDA_CHECK(err, cudaSetDevice(s->c->dev));
    cudaFree(s->dG); cudaFree(s->dB); cudaFree(s->dB0); cudaFree(s->ddg); cudaFree(s->dwork);
    cudaFree(s->dinfo);
    free(s->hwork);
    s->dG = s->dB = s->dB0 = s->ddg = NULL;
    s->dwork = s->hwork = NULL;
    s->dinfo = NULL;
    s->m = m; s->K = K;
    DALLOC(err, s->dG, m * m * 8);
    DALLOC(err, s->dB, m * K * 8);
    DALLOC(err, s->dB0, m * K * 8);
    DALLOC(err, s->ddg, m * 8);
    DALLOC(err, s->dinfo, sizeof(int));
    CUSOLVER_CHECK(err, cusolverDnXpotrf_bufferSize(s->sol, s->par, CUBLAS_FILL_MODE_LOWER, m,
                                                    CUDA_R_64F, s->dG, m, CUDA_R_64F, &s->lwork,
                                                    &s->hlwork));
    DALLOC(err, s->dwork, s->lwork);
    if (s->hlwork && !(s->hwork = malloc(s->hlwork)))
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: out of memory");
    int rc = dstream_open(d, s->c, op, W, m, N, n, K, cw ? 2 : 1, 0, 0, err);
    if (rc)
        return rc;
    /* zeroed on the compute stream that accumulates into them (issue 25:
     * a legacy-stream memset is ordered before d->s only by accident) */
    CUDA_CHECK(err, cudaMemsetAsync(s->dG, 0, (size_t)(m * m * 8), d->s));
    CUDA_CHECK(err, cudaMemsetAsync(s->dB, 0, (size_t)(m * K * 8), d->s));
    d->cw = cw; /* H tiles and targets scaled by sqrt(w) per sample */
    ridge_u u = {s};
    if ((rc = dstream_run(d, X, N, cls, y, ridge_tile, NULL, &u, err)))
        return rc;
    unsigned gm = (unsigned)((m + 255) / 256);
    diag_kernel<<<gm, 256, 0, d->s>>>(s->dG, m, s->ddg, 0.0, 1);
    mirror_kernel<<<grid2(m, m), 256, 0, d->s>>>(s->dG, m, 1);
    CUDA_CHECK(err, cudaGetLastError());
    CUDA_CHECK(err, cudaMemcpyAsync(s->dB0, s->dB, (size_t)(m * K * 8), cudaMemcpyDeviceToDevice,
                                    d->s));
    CUDA_CHECK(err, cudaStreamSynchronize(d->s));
    CUDA_CHECK(err, cudaMemcpy(diag, s->ddg, (size_t)(m * 8), cudaMemcpyDeviceToHost));
    CUDA_CHECK(err, cudaMemcpy(B, s->dB0, (size_t)(m * K * 8), cudaMemcpyDeviceToHost));
    return FSVC_OK;
}

extern "C" int bnl_cuda_normal_accum(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                                     const void *X, int64_t N, int n, const int *cls,
                                     const double *y, const double *cw, int K, double *diag,
                                     double *B, fsvc_error *err)
{
    if (!s)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: normal equations not open");
    if (m < 1 || N < 1 || n < 1 || K < 1 || (!cls && !y) || (y && K != 1) || (cw && !cls))
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: bad normal-equation shape (m %lld, N %lld, "
                         "n %d, K %d)", (long long)m, (long long)N, n, K);
    dstream d;
    memset(&d, 0, sizeof d);
    int rc = normal_accum(s, op, W, m, X, N, n, cls, y, cw, K, diag, B, &d, err);
    dstream_free(&d);
    return rc;
}

extern "C" int bnl_cuda_normal_solve(bnl_normal_impl *s, double lam, double *R, int *info,
                                     fsvc_error *err)
{
    if (!s || !s->dG)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: normal equations not accumulated");
    int64_t m = s->m;
    unsigned gm = (unsigned)((m + 255) / 256);
    /* everything on the legacy stream 0, in order, on the session's device */
    CUDA_CHECK(err, cudaSetDevice(s->c->dev));
    CUSOLVER_CHECK(err, cusolverDnSetStream(s->sol, 0));
    mirror_kernel<<<grid2(m, m), 256, 0, 0>>>(s->dG, m, 0);
    diag_kernel<<<gm, 256, 0, 0>>>(s->dG, m, s->ddg, lam, 0);
    CUDA_CHECK(err, cudaGetLastError());
    CUDA_CHECK(err, cudaMemcpyAsync(s->dB, s->dB0, (size_t)(m * s->K * 8),
                                    cudaMemcpyDeviceToDevice, 0));
    CUSOLVER_CHECK(err, cusolverDnXpotrf(s->sol, s->par, CUBLAS_FILL_MODE_LOWER, m, CUDA_R_64F,
                                         s->dG, m, CUDA_R_64F, s->dwork, s->lwork, s->hwork,
                                         s->hlwork, s->dinfo));
    CUDA_CHECK(err, cudaMemcpy(info, s->dinfo, sizeof(int), cudaMemcpyDeviceToHost));
    if (*info != 0)
        return FSVC_OK;
    CUSOLVER_CHECK(err, cusolverDnXpotrs(s->sol, s->par, CUBLAS_FILL_MODE_LOWER, m, s->K,
                                         CUDA_R_64F, s->dG, m, CUDA_R_64F, s->dB, m, s->dinfo));
    CUDA_CHECK(err, cudaMemcpy(info, s->dinfo, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(err, cudaMemcpy(R, s->dB, (size_t)(m * s->K * 8), cudaMemcpyDeviceToHost));
    return FSVC_OK;
}

/* G after the accumulation: the lower triangle and its mirror make the
 * whole symmetric matrix (a solve overwrites the lower one: fetch first). */
extern "C" int bnl_cuda_normal_fetch(bnl_normal_impl *s, double *G, fsvc_error *err)
{
    if (!s || !s->dG)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: normal equations not accumulated");
    CUDA_CHECK(err, cudaSetDevice(s->c->dev));
    CUDA_CHECK(err, cudaMemcpy(G, s->dG, (size_t)(s->m * s->m * 8), cudaMemcpyDeviceToHost));
    return FSVC_OK;
}

/* ---- block products for an iterative solver (PCG): one pass each ---- */
struct apply_u {
    const double *dV;
    double *dY, *dZ, *dB, sumsq;
    int rhs;
};

static int apply_tile(void *u, dstream *d, int b, int64_t i0, int64_t t0, int64_t nt,
                      fsvc_error *err)
{
    apply_u *q = (apply_u *)u;
    const double one = 1.0, zero = 0.0;
    cublasHandle_t h = d->c->blas;
    CUBLAS_CHECK(err, cublasSetStream(h, d->s));
    if (q->rhs) { /* B += H^T T, sumsq += sum H^2 */
        double ss = 0;
        CUBLAS_CHECK(err, cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_T, d->m, d->K, nt, &one,
                                         d->dHd, d->m, d->dT[b] + t0 * d->K, d->K, &one, q->dB,
                                         d->m));
        CUBLAS_CHECK(err, cublasDdot_64(h, d->m * nt, d->dHd, 1, d->dHd, 1, &ss));
        q->sumsq += ss;
        return FSVC_OK;
    }
    /* Z (nt x K) = H V; Y += H^T Z */
    CUBLAS_CHECK(err, cublasDgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, nt, d->K, d->m, &one, d->dHd,
                                     d->m, q->dV, d->m, &zero, q->dZ, nt));
    CUBLAS_CHECK(err, cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, d->m, d->K, nt, &one, d->dHd,
                                     d->m, q->dZ, nt, &one, q->dY, d->m));
    return FSVC_OK;
}

/* rhs: B = H^T T and *sumsq = sum H^2; else Y = H^T (H V). */
static int products(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m, const void *X,
                    int64_t N, int n, const int *cls, const double *y, const double *V, int K,
                    double *out, double *sumsq, fsvc_error *err)
{
    if (!s)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: normal equations not open");
    if (m < 1 || N < 1 || n < 1 || K < 1 || (sumsq && ((!cls && !y) || (y && K != 1))))
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: bad block-product shape (m %lld, N %lld, "
                         "n %d, K %d)", (long long)m, (long long)N, n, K);
    apply_u q;
    memset(&q, 0, sizeof q);
    q.rhs = sumsq != NULL;
    double *dV = NULL;
    dstream d;
    memset(&d, 0, sizeof d);
    size_t vb = (size_t)m * K * 8;
    int rc = FSVC_OK;
    cudaError_t e = cudaSetDevice(s->c->dev);
    if (e == cudaSuccess) e = cudaMalloc((void **)&q.dY, vb);
    if (e == cudaSuccess && !q.rhs) e = cudaMalloc((void **)&dV, vb);
    if (e != cudaSuccess)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: block products: %s", cudaGetErrorString(e));
    if (!rc)
        rc = dstream_open(&d, s->c, op, W, m, N, n, K, q.rhs, 0, q.rhs ? 0 : K * 8.0, err);
    /* Y zeroed and V up on d.s, the stream whose tiles use them (issue 25);
     * the synchronize: V is pageable */
    if (!rc) {
        e = cudaMemsetAsync(q.dY, 0, vb, d.s);
        if (e == cudaSuccess && !q.rhs)
            e = cudaMemcpyAsync(dV, V, vb, cudaMemcpyHostToDevice, d.s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(d.s);
        if (e != cudaSuccess)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: block products: %s",
                           cudaGetErrorString(e));
    }
    if (!rc && !q.rhs) {
        e = cudaMalloc((void **)&q.dZ, (size_t)d.Nt * K * 8);
        if (e != cudaSuccess)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: block products: %s",
                           cudaGetErrorString(e));
    }
    q.dV = dV;
    q.dB = q.dY;
    if (!rc)
        rc = dstream_run(&d, X, N, cls, y, apply_tile, NULL, &q, err);
    if (!rc) {
        e = cudaMemcpy(out, q.dY, vb, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: block products: %s",
                           cudaGetErrorString(e));
    }
    if (!rc && sumsq)
        *sumsq = q.sumsq;
    dstream_free(&d);
    cudaFree(q.dY); cudaFree(q.dZ); cudaFree(dV);
    cudaGetLastError();
    return rc;
}

extern "C" int bnl_cuda_normal_rhs(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                                   const void *X, int64_t N, int n, const int *cls,
                                   const double *y, int K, double *B, double *sumsq,
                                   fsvc_error *err)
{
    double ss = 0;
    return products(s, op, W, m, X, N, n, cls, y, NULL, K, B, sumsq ? sumsq : &ss, err);
}

extern "C" int bnl_cuda_normal_apply(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                                     const void *X, int64_t N, int n, const double *V, int K,
                                     double *Y, fsvc_error *err)
{
    if (!V)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: block product without V");
    return products(s, op, W, m, X, N, n, NULL, NULL, V, K, Y, NULL, err);
}

/* ---- scores ---- */
struct scores_u {
    double *dR, *dY, *Y;
};

static int scores_tile(void *u, dstream *d, int b, int64_t i0, int64_t t0, int64_t nt,
                       fsvc_error *err)
{
    scores_u *q = (scores_u *)u;
    const double one = 1.0, zero = 0.0;
    CUBLAS_CHECK(err, cublasSetStream(d->c->blas, d->s));
    /* column-major K x nt = R^T (K x m, R row-major m x K) times H^T (m x nt) */
    CUBLAS_CHECK(err, cublasDgemm_64(d->c->blas, CUBLAS_OP_N, CUBLAS_OP_N, d->K, nt, d->m, &one,
                                     q->dR, d->K, d->dHd, d->m, &zero, q->dY + t0 * d->K,
                                     d->K));
    return FSVC_OK;
}

static int scores_done(void *u, dstream *d, int64_t i0, int64_t rows, fsvc_error *err)
{
    scores_u *q = (scores_u *)u;
    CUDA_CHECK(err, cudaStreamSynchronize(d->s));
    CUDA_CHECK(err, cudaMemcpy(q->Y + i0 * d->K, q->dY, (size_t)(rows * d->K * 8),
                               cudaMemcpyDeviceToHost));
    return FSVC_OK;
}

extern "C" int bnl_cuda_scores(bnl_cuda *c, const bnl_op *op, double *Y, const void *W,
                               int64_t m, const void *X, int64_t N, int n, const double *R, int K,
                               fsvc_error *err)
{
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: backend not open");
    if (m < 1 || N < 1 || n < 1 || K < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: empty scores (m %lld, N %lld, n %d, K %d)",
                         (long long)m, (long long)N, n, K);
    CUDA_CHECK(err, cudaSetDevice(c->dev));
    dstream d;
    scores_u q = {NULL, NULL, Y};
    int rc = dstream_open(&d, c, op, W, m, N, n, K, 0, (size_t)m * K * 8, K * 8.0, err);
    if (!rc) {
        cudaError_t e = cudaMalloc((void **)&q.dR, (size_t)m * K * 8);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&q.dY, (size_t)d.Xc * K * 8);
        /* on d.s, where scores_tile reads it (issue 25); R is pageable */
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(q.dR, R, (size_t)m * K * 8, cudaMemcpyHostToDevice, d.s);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(d.s);
        if (e != cudaSuccess)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: scores: %s", cudaGetErrorString(e));
    }
    if (!rc)
        rc = dstream_run(&d, X, N, NULL, NULL, scores_tile, scores_done, &q, err);
    dstream_free(&d);
    cudaFree(q.dR);
    cudaFree(q.dY);
    cudaGetLastError();
    return rc;
}
