/*
 * mind.cu - the k-means++ min-distance session of the CUDA backend
 * (bnl_backend_ops.h mind_*, issue 10): fsvc/select_kmeans.c's X and D2 stay
 * on the device for the whole selection.
 *
 * open: X packed (forward.cu's layout, ldk words a row) and copied up once
 *   in chunks through pinned staging, its norms computed there on the
 *   GEMM path; D2 (N doubles) set to +inf there. X, its norms and D2 must
 *   fit half the free memory (cudaMemGetInfo), else *out NULL and FSVC_OK:
 *   the caller keeps its forward loop. u8 and f32 (f64: not offered).
 * update: the B centroid rows packed and copied up (norms on the device);
 *   per sample tile of X (in place, no copy) and neuron tile of the
 *   centroids, forward.cu's tile computation (tile kernel or GEMM +
 *   epilogue, identity activation, transposed) and the fold kernel
 *   (bnlc_mind_body): D2[i] = min(D2[i], d^2) in double. Only D2 comes
 *   back. One stream (the context's first), synchronous per call; the
 *   session's own tile buffers (a stream view over the resident X).
 */
#include "cuda_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIND_CHUNK 8192 /* rows of X per upload at open */

struct bnl_mind_impl {
    bnl_cuda *c;
    bnl_op op;
    job_kind k;
    int n;
    int64_t N, ldk;
    uint32_t *dXall;      /* N x ldk words, resident */
    float *dxnall;        /* N norms (GEMM path) */
    double *dD2;          /* N, resident */
    double *hD2;          /* pinned, N */
    struct bnlc_stream v; /* view: the context's stream, own dW/dH/dQ, dX into dXall */
};

static int gemm_of(const bnl_mind_impl *s) { return s->k.tile_op < 0; }

static int64_t r4(int64_t v) { return (v + 3) / 4 * 4; }

__global__ void bnl_mind_kernel(double *D2, const float *__restrict__ Ht, int64_t ldo,
                                int64_t mt, int64_t Nt)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < Nt)
        bnlc_mind_body(D2, Ht, ldo, mt, i);
}

__global__ void bnl_mind_inf_kernel(double *D2, int64_t N)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        D2[i] = HUGE_VAL;
}

extern "C" void bnl_cuda_mind_close(bnl_mind_impl *s)
{
    if (!s)
        return;
    cudaSetDevice(s->c->dev);
    cudaFree(s->dXall);
    cudaFree(s->dxnall);
    cudaFree(s->dD2);
    cudaFree(s->v.dW);
    cudaFree(s->v.dwn);
    cudaFree(s->v.dH);
    cudaFree(s->v.dQ);
    if (s->hD2)
        cudaFreeHost(s->hD2);
    if (s->v.hW)
        cudaFreeHost(s->v.hW);
    free(s);
}

/* X up in chunks of MIND_CHUNK rows (packed into pinned v.hW), norms. */
static int upload_x(bnl_mind_impl *s, const void *X, fsvc_error *err)
{
    struct bnlc_stream *v = &s->v;
    int rc;
    int64_t rows = s->N < MIND_CHUNK ? s->N : MIND_CHUNK;
    if ((rc = bnlc_reserve_host((void **)&v->hW, &v->pcapW, (size_t)(rows * s->ldk * 4), err)))
        return rc;
    for (int64_t r0 = 0; r0 < s->N; r0 += MIND_CHUNK) {
        int64_t nr = s->N - r0 < MIND_CHUNK ? s->N - r0 : MIND_CHUNK;
        CUDA_CHECK(err, cudaStreamSynchronize(v->s)); /* hW is free */
        bnlc_pack_rows(v->hW, s->ldk, X, r0, nr, s->n, s->k.es);
        CUDA_CHECK(err, cudaMemcpyAsync(s->dXall + r0 * s->ldk, v->hW, (size_t)(nr * s->ldk * 4),
                                        cudaMemcpyHostToDevice, v->s));
    }
    if (gemm_of(s))
        CUDA_CHECK(err, bnlc_launch_norms(s->dxnall, (const float *)s->dXall, s->N, s->ldk,
                                          s->n, v->s));
    bnl_mind_inf_kernel<<<(unsigned)((s->N + 255) / 256), 256, 0, v->s>>>(s->dD2, s->N);
    CUDA_CHECK(err, cudaGetLastError());
    CUDA_CHECK(err, cudaStreamSynchronize(v->s));
    return FSVC_OK;
}

extern "C" int bnl_cuda_mind_open(bnl_cuda *c, const bnl_op *op, const void *X, int64_t N,
                                  int n, bnl_mind_impl **out, fsvc_error *err)
{
    *out = NULL;
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: backend not open");
    if (op->dtype == FSVC_F64 || N < 1 ||
        (op->dtype != FSVC_U8 && op->dist != BNL_L1 && N > 2147483647))
        return FSVC_OK; /* not offered: the forward loop */
    job_kind k;
    int rc = bnlc_kind_of(op, n, &k, err);
    if (rc)
        return rc;
    int64_t ldk = bnlc_ldk(n, k.es);
    size_t fr = 0, tot = 0;
    size_t need = (size_t)N * ((size_t)ldk * 4 + 8 + (k.tile_op < 0 ? 4 : 0));
    if (cudaSetDevice(c->dev) != cudaSuccess || cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
        cudaGetLastError();
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: min distances: the device does not answer");
    }
    if (need > fr / 2)
        return FSVC_OK; /* X does not fit: the forward loop */
    bnl_mind_impl *s = (bnl_mind_impl *)calloc(1, sizeof *s);
    if (!s)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: min distances: out of memory");
    s->c = c;
    s->op = *op;
    s->k = k;
    s->n = n;
    s->N = N;
    s->ldk = ldk;
    s->v.s = c->st[0].s;
    s->v.ob = 4;
    if (cudaMalloc((void **)&s->dXall, (size_t)N * ldk * 4) != cudaSuccess ||
        cudaMalloc((void **)&s->dD2, (size_t)N * 8) != cudaSuccess ||
        (gemm_of(s) && cudaMalloc((void **)&s->dxnall, (size_t)N * 4) != cudaSuccess) ||
        cudaMallocHost((void **)&s->hD2, (size_t)N * 8) != cudaSuccess) {
        cudaGetLastError();
        bnl_cuda_mind_close(s);
        return FSVC_OK; /* no room after all: the forward loop */
    }
    if ((rc = upload_x(s, X, err))) {
        cudaStreamSynchronize(s->v.s);
        cudaGetLastError();
        bnl_cuda_mind_close(s);
        return rc;
    }
    *out = s;
    return FSVC_OK;
}

static int update_tiles(bnl_mind_impl *s, const void *C, int64_t B, fsvc_error *err)
{
    struct bnlc_stream *v = &s->v;
    bnlc_plan p;
    int rc = bnl_cuda_plan(s->c, &s->op, 1, B, s->N, s->n, &p, err);
    if (rc)
        return rc;
    if (p.ldk != s->ldk)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: min distances: row layout %lld != %lld words",
                         (long long)p.ldk, (long long)s->ldk);
    int gemm = gemm_of(s);
    size_t h = (size_t)(p.tile_m * r4(p.tile_N) * 4), w = (size_t)(B * s->ldk * 4);
    if ((rc = bnlc_reserve_dev((void **)&v->dW, &v->capW, w, err)) ||
        (rc = bnlc_reserve_host((void **)&v->hW, &v->pcapW, w, err)) ||
        (rc = bnlc_reserve_dev((void **)&v->dH, &v->capH, h, err)) ||
        (gemm && (rc = bnlc_reserve_dev((void **)&v->dwn, &v->capWn, (size_t)B * 4, err))))
        return rc;
    CUDA_CHECK(err, cudaStreamSynchronize(v->s)); /* hW is free */
    bnlc_pack_rows(v->hW, s->ldk, C, 0, B, s->n, s->k.es);
    CUDA_CHECK(err, cudaMemcpyAsync(v->dW, v->hW, w, cudaMemcpyHostToDevice, v->s));
    if (gemm)
        CUDA_CHECK(err, bnlc_launch_norms(v->dwn, (const float *)v->dW, B, s->ldk, s->n, v->s));
    bnlc_actp ap = bnlc_actp_of(&s->op);
    bnlc_actpd apd = bnlc_actpd_of(&s->op);
    for (int64_t i0 = 0; i0 < s->N; i0 += p.tile_N) {
        int64_t Nt = s->N - i0 < p.tile_N ? s->N - i0 : p.tile_N, ldo = r4(Nt);
        v->dX = s->dXall + i0 * s->ldk; /* the resident samples, in place */
        v->dxn = gemm ? s->dxnall + i0 : NULL;
        for (int64_t m0 = 0; m0 < B; m0 += p.tile_m) { /* increasing j */
            int64_t mt = B - m0 < p.tile_m ? B - m0 : p.tile_m;
            const void *wn = gemm ? (const void *)(v->dwn + m0) : NULL;
            if ((rc = bnlc_compute(s->c, v, &s->k, ap, apd, v->dW + m0 * s->ldk, wn, mt, Nt,
                                   s->n, s->ldk, 1, ldo, err)))
                return rc;
            bnl_mind_kernel<<<(unsigned)((Nt + 127) / 128), 128, 0, v->s>>>(s->dD2 + i0, v->dH,
                                                                            ldo, mt, Nt);
            CUDA_CHECK(err, cudaGetLastError());
        }
    }
    return FSVC_OK;
}

extern "C" int bnl_cuda_mind_update(bnl_mind_impl *s, const void *C, int64_t B, double *D2,
                                    fsvc_error *err)
{
    if (!s || B < 0 || !D2)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: min distances: no session or bad centroids");
    CUDA_CHECK(err, cudaSetDevice(s->c->dev));
    struct bnlc_stream *v = &s->v;
    /* the context's stream may hold a job of forward / actsum: they finish
     * their jobs before returning, so it is idle here */
    int rc = B > 0 ? update_tiles(s, C, B, err) : FSVC_OK;
    if (!rc) {
        cudaError_t e = cudaMemcpyAsync(s->hD2, s->dD2, (size_t)s->N * 8,
                                        cudaMemcpyDeviceToHost, v->s);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(v->s);
        if (e != cudaSuccess)
            rc = fsvc_fail(err, FSVC_ERESOURCE, "cuda: min distances: D2 back: %s",
                           cudaGetErrorString(e));
    }
    if (rc) {
        v->dX = NULL;
        v->dxn = NULL;
        cudaStreamSynchronize(v->s);
        cudaGetLastError();
        return rc;
    }
    v->dX = NULL; /* not the view's: close must not free it */
    v->dxn = NULL;
    memcpy(D2, s->hD2, (size_t)s->N * 8);
    return FSVC_OK;
}
