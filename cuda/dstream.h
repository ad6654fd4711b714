/*
 * dstream.h - the sample stream of the device-resident readout work
 * (C++ / nvcc only; cuda/dstream.cu): W resident on the device, the
 * samples resident or in chunks through two pinned buffers on a copy
 * stream (u8 stays u8), the targets of each chunk (one-hot of cls, or y)
 * when asked, and per tile of Nt samples H computed on the device and
 * widened to float64 (dHd, column-major m x nt). Shared by the ridge
 * products and scores (cuda/ridge.cu) and the LMS readout (cuda/lms.cu):
 * each says what a tile feeds (tile_fn) and what ends a chunk (chunk_fn).
 */
#ifndef FSVC_CUDA_DSTREAM_H
#define FSVC_CUDA_DSTREAM_H

#include "cuda_internal.h"

typedef struct dstream {
    bnl_cuda *c;
    job_kind k;
    bnlc_actp ap;
    int64_t m, ldk, ldo, Nt, Xc;
    int n, nb, K;          /* nb: 1 (X resident) or 2 (chunks) */
    uint32_t *dW, *dX[2], *hX[2];
    double *dT[2], *hT[2]; /* ridge: targets of the chunk */
    double *dw[2], *hw[2]; /* sqrt of the class weight per sample (targets 2) */
    const double *cw;      /* class weights (K), set before dstream_run; NULL: none */
    float *dwn, *dxn, *dH;
    void *dQ;              /* tf32 / bf16 GEMM operands (gemm.cu) */
    size_t capQ;
    double *dHd;
    cudaStream_t s, cs;
    cudaEvent_t up[2], used[2];
    int events;
} dstream;


static inline int64_t r4(int64_t v) { return (v + 3) / 4 * 4; }

/* A 2-D grid of 256-thread blocks over cols x rows (rows capped at 65535:
 * the kernels stride over the rest). */
static inline dim3 grid2(int64_t cols, int64_t rows)
{
    return dim3((unsigned)((cols + 255) / 256), (unsigned)(rows < 65535 ? (rows > 0 ? rows : 1) : 65535));
}

#define DALLOC(err, p, bytes) CUDA_CHECK(err, cudaMalloc((void **)&(p), (size_t)(bytes) ? (size_t)(bytes) : 8))
#define HALLOC(err, p, bytes) CUDA_CHECK(err, cudaMallocHost((void **)&(p), (size_t)(bytes) ? (size_t)(bytes) : 8))

/* Plans and allocates the stream of N samples against the m rows of W and
 * uploads W: fixed = device bytes the caller holds besides, extra_row =
 * its device bytes per sample of a chunk; targets: upload T per chunk (1),
 * and with it the per-sample weights (2: d->cw, when set, scales each
 * sample's target row and H column by sqrt(cw[cls]), bnlc_weight_body). */
int dstream_open(dstream *d, bnl_cuda *c, const bnl_op *op, const void *W, int64_t m, int64_t N,
            int n, int K, int targets, size_t fixed, double extra_row, fsvc_error *err);
void dstream_free(dstream *d);
/* H of samples t0 .. t0 + nt - 1 of the chunk in buffer b into dHd. */
int dstream_tile(dstream *d, int b, int64_t t0, int64_t nt, fsvc_error *err);

/* What a tile feeds (samples i0 + t0 .. of the chunk in buffer b). */
typedef int (*tile_fn)(void *u, dstream *d, int b, int64_t i0, int64_t t0, int64_t nt,
                       fsvc_error *err);
typedef int (*chunk_fn)(void *u, dstream *d, int64_t i0, int64_t rows, fsvc_error *err);

/* Streams every sample through dstream_tile and fn, in order; done(u) after
 * each chunk's tiles are queued (NULL: nothing). With d->cw and cls (and
 * targets 2) each tile of H reaches fn weighted (bnlc_rowscale_body). */
int dstream_run(dstream *d, const void *X, int64_t N, const int *cls, const double *y, tile_fn fn,
           chunk_fn done, void *u, fsvc_error *err);

#endif /* FSVC_CUDA_DSTREAM_H */
