/*
 * gemm.cu - the f32 GEMM of the L2 / dot path (forward.cu, ridge.cu) at
 * the op's precision (bnl_precision, issue 10):
 *   full  cublasSgemm, default math (what it always was);
 *   tf32  the operands rounded to TF32 (round_hd.h: nearest even) into a
 *         scratch copy, then cublasSgemm in CUBLAS_TF32_TENSOR_OP_MATH: the
 *         tensor cores get values their own conversion leaves unchanged,
 *         so the products are the exact products of the rounded operands
 *         and the sums f32, as the CPU's emulation (layers/cpu_tile.c);
 *   bf16  the operands converted to bf16 (nearest even) into the scratch,
 *         then cublasGemmEx with CUDA_R_16BF inputs, f32 output and
 *         CUBLAS_COMPUTE_32F (f32 accumulation).
 * The squared norms of L2 stay those of the full f32 values: the callers
 * compute them from the unrounded tiles, which the scratch copy leaves as
 * they are. The per-element bodies are round_hd.h's (host-tested by
 * tests/test_precision.c); this file only maps them onto the grid.
 */
#include "cuda_internal.h"

/* out[e] = A[e] rounded (f32 storage, tf32 or bf16 values) or its bf16
 * bits (bf16 = 1), e < count; grid-stride. */
__global__ void bnl_round_copy_kernel(void *out, const float *__restrict__ A, int64_t count,
                                      int prec, int bf16)
{
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        if (bf16)
            ((uint16_t *)out)[e] = bnl_bf16_bits(A[e]);
        else
            ((float *)out)[e] = bnl_round_prec(A[e], prec);
    }
}

static cudaError_t round_copy(void *out, const float *A, int64_t count, int prec, int bf16,
                              cudaStream_t s)
{
    int64_t blocks = (count + 255) / 256;
    bnl_round_copy_kernel<<<(unsigned)(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535), 256,
                            0, s>>>(out, A, count, prec, bf16);
    return cudaGetLastError();
}

static int reserve(void **p, size_t *cap, size_t need, fsvc_error *err)
{
    if (*cap >= need)
        return FSVC_OK;
    if (*p) { /* cudaFree waits for the device: no earlier GEMM still reads it */
        cudaFree(*p);
        *p = NULL;
        *cap = 0;
    }
    CUDA_CHECK(err, cudaMalloc(p, need));
    *cap = need;
    return FSVC_OK;
}

int bnlc_gemm_prec(cublasHandle_t h, cudaStream_t s, int prec, int M, int N, int K, float alpha,
                   const float *A, int lda, const float *B, int ldb, float *C, int ldc,
                   void **scratch, size_t *cap, fsvc_error *err)
{
    const float beta = 0.0f;
    CUBLAS_CHECK(err, cublasSetStream(h, s));
    if (prec == BNL_PREC_FULL) {
        CUBLAS_CHECK(err, cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, A, lda, B,
                                      ldb, &beta, C, ldc));
        return FSVC_OK;
    }
    int bf16 = prec == BNL_PREC_BF16;
    size_t es = bf16 ? 2 : 4, na = (size_t)M * lda, nb = (size_t)N * ldb;
    int rc = reserve(scratch, cap, (na + nb) * es, err);
    if (rc)
        return rc;
    char *qa = (char *)*scratch, *qb = qa + na * es;
    CUDA_CHECK(err, round_copy(qa, A, (int64_t)na, prec, bf16, s));
    CUDA_CHECK(err, round_copy(qb, B, (int64_t)nb, prec, bf16, s));
    if (bf16) {
        CUBLAS_CHECK(err, cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, qa,
                                       CUDA_R_16BF, lda, qb, CUDA_R_16BF, ldb, &beta, C,
                                       CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT));
        return FSVC_OK;
    }
    CUBLAS_CHECK(err, cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha,
                                    (const float *)qa, lda, (const float *)qb, ldb, &beta, C, ldc);
    cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
    CUBLAS_CHECK(err, st);
    return FSVC_OK;
}
