/*
 * cuda_internal.h - what the .cu files of the CUDA backend share (C++ /
 * nvcc only): checked-call macros, the context, the kernel launchers.
 */
#ifndef FSVC_CUDA_INTERNAL_H
#define FSVC_CUDA_INTERNAL_H

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "bnl_cuda.h"
#include "kernels_hd.h"
#include "plan.h"

/* Checked calls: on failure fill err with file, line, call and the CUDA /
 * cuBLAS message, and return FSVC_ERESOURCE from the calling function. */
#define CUDA_CHECK(err, call)                                                          \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess)                                                         \
            return fsvc_fail((err), FSVC_ERESOURCE, "cuda: %s:%d: %s: %s", __FILE__,   \
                             __LINE__, #call, cudaGetErrorString(e_));                 \
    } while (0)

#define CUBLAS_CHECK(err, call)                                                        \
    do {                                                                               \
        cublasStatus_t s_ = (call);                                                    \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                               \
            return fsvc_fail((err), FSVC_ERESOURCE, "cublas: %s:%d: %s: %s", __FILE__, \
                             __LINE__, #call, cublasGetStatusString(s_));              \
    } while (0)

#define BNLC_MAX_STREAMS 4

/* One stream and the buffers its jobs use (device and pinned host). */
struct bnlc_stream {
    cudaStream_t s;
    cudaEvent_t done;
    uint32_t *dW, *dX;   /* packed tiles: rows x ldk words */
    float *dH;           /* H (samples x ldo) or Ht (neurons x ldo) */
    double *dS;          /* activation sums of the sample tile */
    float *dxn, *dwn;    /* squared norms (GEMM L2) */
    void *dQ;            /* tf32 / bf16 copies of the GEMM operands (gemm.cu) */
    size_t capQ;
    uint32_t *hW, *hX;   /* pinned staging */
    float *hH;
    double *hS;
    size_t capW, capX, capH, capS, capXn, capWn;         /* device bytes */
    size_t pcapW, pcapX, pcapH, pcapS;                    /* pinned bytes */
    int busy;            /* a job is in flight: finish it before reuse */
    int ob;              /* bytes of an H element: 4, or 8 for f64 layers */
    /* the job in flight: where its output goes */
    int64_t i0, m0, rows, cols, ldo;
};

struct bnl_cuda {
    int dev;
    bnlc_device props;
    bnlc_limits lim;
    cublasHandle_t blas;
    int nstreams;
    struct bnlc_stream st[BNLC_MAX_STREAMS];
    char tag[128];
    char tune_path[512]; /* the tune file read at open, or "" */
};

/* What a layer runs as on the device. */
typedef struct job_kind {
    int tile_op;  /* BNLC_* of the tile kernel, or -1 for the GEMM path */
    int l2;       /* GEMM path: L2 (else dot) */
    int es;       /* bytes per element */
    int prec;     /* GEMM path: bnl_precision of the operands (gemm.cu) */
} job_kind;

/* forward.cu: the kind of op (FSVC_EUSAGE for f64 or a u8 L2/dot over
 * int32 range), its activation parameters, and the packing of rows r0 ..
 * r0 + rows - 1 of a matrix of n elements of es bytes into rows x ldk
 * zero-padded words. */
int bnlc_kind_of(const bnl_op *op, int n, job_kind *k, fsvc_error *err);
bnlc_actp bnlc_actp_of(const bnl_op *op);
void bnlc_pack_rows(uint32_t *dst, int64_t ldk, const void *src, int64_t r0, int64_t rows,
                    int n, int es);

/* forward.cu, shared with novelty.cu: buffers grown to need bytes (device,
 * pinned host); rows r0 .. r0 + rows - 1 of A packed and copied up as s's
 * W (is_w) or X tile, with their norms on the GEMM path; one tile of H
 * (trans: Ht) on s from the neuron rows dW (norms dwn) and s->dX. */
int bnlc_reserve_dev(void **p, size_t *cap, size_t need, fsvc_error *err);
int bnlc_reserve_host(void **p, size_t *cap, size_t need, fsvc_error *err);
int bnlc_upload(struct bnlc_stream *s, int is_w, const void *A, int64_t r0, int64_t rows,
                int n, const job_kind *k, int64_t ldk, int gemm, fsvc_error *err);
int bnlc_compute(bnl_cuda *c, struct bnlc_stream *s, const job_kind *k, bnlc_actp ap,
                 bnlc_actpd apd, const uint32_t *dW, const void *dwn, int64_t mt, int64_t Nt,
                 int n, int64_t ldk, int trans, int64_t ldo, fsvc_error *err);

/* device.cu */
int bnlc_query(int dev, bnlc_device *d, fsvc_error *err);

/* tile.cu: kernel launchers (asynchronous on s; launch errors returned) */
cudaError_t bnlc_launch_tile(int op, bnlc_actp p, float *out, int64_t ldo, int trans,
                             const uint32_t *W, int64_t m, const uint32_t *X, int64_t N,
                             int64_t ldk, cudaStream_t s);
cudaError_t bnlc_launch_norms(float *nrm, const float *A, int64_t rows, int64_t ldk, int n,
                              cudaStream_t s);
cudaError_t bnlc_launch_gemm_epi(float *out, int64_t ldo, int64_t rows, int64_t cols, int trans,
                                 const float *xn, const float *wn, int l2, bnlc_actp p,
                                 cudaStream_t s);
/* tile.cu, f64 layers: the same launches with double H, norms, epilogue
 * parameters (bnlc_actpd) and activation sums; ldd = ldk / 2 doubles. */
cudaError_t bnlc_launch_tile_f64(bnlc_actpd p, double *out, int64_t ldo, int trans,
                                 const uint32_t *W, int64_t m, const uint32_t *X, int64_t N,
                                 int64_t ldk, cudaStream_t s);
cudaError_t bnlc_launch_norms_d(double *nrm, const double *A, int64_t rows, int64_t ldd, int n,
                                cudaStream_t s);
cudaError_t bnlc_launch_gemm_epi_d(double *out, int64_t ldo, int64_t rows, int64_t cols,
                                   int trans, const double *xn, const double *wn, int l2,
                                   bnlc_actpd p, cudaStream_t s);
cudaError_t bnlc_launch_actsum_d(double *S, const double *Ht, int64_t ldo, int64_t mt,
                                 int64_t Nt, cudaStream_t s);
bnlc_actpd bnlc_actpd_of(const bnl_op *op);

/* gemm.cu: C (column-major M x N, ldc) = alpha A^T B (A: M rows of lda
 * floats, B: N rows of ldb floats, K used of each) at precision prec
 * (bnl_precision); tf32 / bf16 operands are rounded copies in *scratch
 * (grown to fit, *cap bytes), A and B are left as they are. */
int bnlc_gemm_prec(cublasHandle_t h, cudaStream_t s, int prec, int M, int N, int K, float alpha,
                   const float *A, int lda, const float *B, int ldb, float *C, int ldc,
                   void **scratch, size_t *cap, fsvc_error *err);
cudaError_t bnlc_launch_actsum(double *S, const float *Ht, int64_t ldo, int64_t mt, int64_t Nt,
                               cudaStream_t s);

#endif /* FSVC_CUDA_INTERNAL_H */
