/*
 * tile.cu - the CUDA kernels of the BNL engine: the shared-memory tile
 * kernel (u8 L1 / L2^2 / dot with byte-SIMD, f32 L1), the GEMM epilogue
 * (f32 L2 and dot after cuBLAS), row norms and the activation sums. The
 * per-thread bodies are in kernels_hd.h (tested on the host by
 * tests/test_cuda_emu.c); this file only maps them onto the grid.
 */
#include "cuda_internal.h"

/* out: samples x ldo (H) or neurons x ldo (Ht); W: m x ldk, X: N x ldk.
 * grid (ceil(N / 128), ceil(m / 128)), block 256, 33 KB static shared. */
template <int OP>
__global__ void __launch_bounds__(BNLC_THREADS, 1) /* ptxas chose 128 regs + spills on sm_80 without the 1 */
bnl_tile_kernel(float *out, int64_t ldo, int trans, const uint32_t *__restrict__ W, int64_t m,
                const uint32_t *__restrict__ X, int64_t N, int64_t ldk, bnlc_actp p)
{
    __shared__ __align__(16) uint32_t sW[BNLC_SMEM_WORDS];
    __shared__ __align__(16) uint32_t sX[BNLC_SMEM_WORDS];
    const int t = threadIdx.x;
    const int64_t m0 = (int64_t)blockIdx.y * BNLC_TM, i0 = (int64_t)blockIdx.x * BNLC_TN;
    float v[BNLC_EPB];
    if (OP == BNLC_F32_L1) {
        float acc[BNLC_EPB];
#pragma unroll
        for (int e = 0; e < BNLC_EPB; e++)
            acc[e] = 0.0f;
        for (int64_t k0 = 0; k0 < ldk; k0 += BNLC_KW) {
            bnlc_stage(sW, W, m, ldk, m0, k0, t);
            bnlc_stage(sX, X, N, ldk, i0, k0, t);
            __syncthreads();
            bnlc_compute_f32(acc, sW, sX, t, (int)min((int64_t)BNLC_KW, ldk - k0));
            __syncthreads();
        }
#pragma unroll
        for (int e = 0; e < BNLC_EPB; e++)
            v[e] = acc[e];
    } else {
        uint32_t acc[BNLC_EPB];
#pragma unroll
        for (int e = 0; e < BNLC_EPB; e++)
            acc[e] = 0u;
        for (int64_t k0 = 0; k0 < ldk; k0 += BNLC_KW) {
            bnlc_stage(sW, W, m, ldk, m0, k0, t);
            bnlc_stage(sX, X, N, ldk, i0, k0, t);
            __syncthreads();
            bnlc_compute_u8(acc, sW, sX, t, (int)min((int64_t)BNLC_KW, ldk - k0), OP);
            __syncthreads();
        }
        bnlc_acc_to_float_u8(v, acc);
    }
    if (!trans)
        bnlc_epilogue(out + i0 * ldo + m0, ldo, N - i0, ldo - m0, 0, v, &p, t);
    else
        bnlc_epilogue(out + m0 * ldo + i0, ldo, m - m0, ldo - i0, 1, v, &p, t);
}

cudaError_t bnlc_launch_tile(int op, bnlc_actp p, float *out, int64_t ldo, int trans,
                             const uint32_t *W, int64_t m, const uint32_t *X, int64_t N,
                             int64_t ldk, cudaStream_t s)
{
    dim3 grid((unsigned)((N + BNLC_TN - 1) / BNLC_TN), (unsigned)((m + BNLC_TM - 1) / BNLC_TM));
    dim3 block(BNLC_THREADS);
    switch (op) {
    case BNLC_U8_L1:
        bnl_tile_kernel<BNLC_U8_L1><<<grid, block, 0, s>>>(out, ldo, trans, W, m, X, N, ldk, p);
        break;
    case BNLC_U8_L2:
        bnl_tile_kernel<BNLC_U8_L2><<<grid, block, 0, s>>>(out, ldo, trans, W, m, X, N, ldk, p);
        break;
    case BNLC_U8_DOT:
        bnl_tile_kernel<BNLC_U8_DOT><<<grid, block, 0, s>>>(out, ldo, trans, W, m, X, N, ldk, p);
        break;
    case BNLC_F32_L1:
        bnl_tile_kernel<BNLC_F32_L1><<<grid, block, 0, s>>>(out, ldo, trans, W, m, X, N, ldk, p);
        break;
    default: /* BNLC_F64_L1 is bnlc_launch_tile_f64's (double H): never the f32 kernel */
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

/* nrm: rows; A: rows x ldk floats. One thread a row. */
__global__ void bnl_rownorm_kernel(float *nrm, const float *__restrict__ A, int64_t rows,
                                   int64_t ldk, int n)
{
    int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        nrm[r] = bnlc_rownorm(A, ldk, n, r);
}

cudaError_t bnlc_launch_norms(float *nrm, const float *A, int64_t rows, int64_t ldk, int n,
                              cudaStream_t s)
{
    bnl_rownorm_kernel<<<(unsigned)((rows + 255) / 256), 256, 0, s>>>(nrm, A, rows, ldk, n);
    return cudaGetLastError();
}

/* out: rows x ldo, in place; not transposed: rows = samples (xn[row]),
 * columns = neurons (wn[col]); transposed the other way round. Threads
 * run along columns: coalesced. */
__global__ void bnl_gemm_epi_kernel(float *out, int64_t ldo, int64_t rows, int64_t cols,
                                    int trans, const float *xn, const float *wn, int l2,
                                    bnlc_actp p)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) { /* rows may pass 65535 */
        float x = 0.0f, w = 0.0f;
        if (l2) {
            x = trans ? xn[c] : xn[r];
            w = trans ? wn[r] : wn[c];
        }
        float *o = out + r * ldo + c;
        *o = bnlc_gemm_epi(*o, x, w, l2, &p);
    }
}

cudaError_t bnlc_launch_gemm_epi(float *out, int64_t ldo, int64_t rows, int64_t cols, int trans,
                                 const float *xn, const float *wn, int l2, bnlc_actp p,
                                 cudaStream_t s)
{
    dim3 grid((unsigned)((cols + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
    bnl_gemm_epi_kernel<<<grid, 256, 0, s>>>(out, ldo, rows, cols, trans, xn, wn, l2, p);
    return cudaGetLastError();
}

/* S: Nt; Ht: mt x ldo. One thread a sample, neurons in increasing order. */
__global__ void bnl_actsum_kernel(double *S, const float *__restrict__ Ht, int64_t ldo,
                                  int64_t mt, int64_t Nt)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < Nt)
        bnlc_actsum_body(S, Ht, ldo, mt, i);
}

cudaError_t bnlc_launch_actsum(double *S, const float *Ht, int64_t ldo, int64_t mt, int64_t Nt,
                               cudaStream_t s)
{
    bnl_actsum_kernel<<<(unsigned)((Nt + 127) / 128), 128, 0, s>>>(S, Ht, ldo, mt, Nt);
    return cudaGetLastError();
}

/* ---- f64 layers (the bodies: kernels_hd.h's f64 section) ---- */

/* f64 L1: the tile kernel's grid and staging, double accumulators and H. */
__global__ void __launch_bounds__(BNLC_THREADS, 1)
bnl_tile_kernel_f64(double *out, int64_t ldo, int trans, const uint32_t *__restrict__ W,
                    int64_t m, const uint32_t *__restrict__ X, int64_t N, int64_t ldk,
                    bnlc_actpd p)
{
    __shared__ __align__(16) uint32_t sW[BNLC_SMEM_WORDS];
    __shared__ __align__(16) uint32_t sX[BNLC_SMEM_WORDS];
    const int t = threadIdx.x;
    const int64_t m0 = (int64_t)blockIdx.y * BNLC_TM, i0 = (int64_t)blockIdx.x * BNLC_TN;
    double acc[BNLC_EPB];
#pragma unroll
    for (int e = 0; e < BNLC_EPB; e++)
        acc[e] = 0.0;
    for (int64_t k0 = 0; k0 < ldk; k0 += BNLC_KW) {
        bnlc_stage(sW, W, m, ldk, m0, k0, t);
        bnlc_stage(sX, X, N, ldk, i0, k0, t);
        __syncthreads();
        bnlc_compute_f64(acc, sW, sX, t, (int)min((int64_t)BNLC_KW, ldk - k0));
        __syncthreads();
    }
    if (!trans)
        bnlc_epilogue_f64(out + i0 * ldo + m0, ldo, N - i0, ldo - m0, 0, acc, &p, t);
    else
        bnlc_epilogue_f64(out + m0 * ldo + i0, ldo, m - m0, ldo - i0, 1, acc, &p, t);
}

cudaError_t bnlc_launch_tile_f64(bnlc_actpd p, double *out, int64_t ldo, int trans,
                                 const uint32_t *W, int64_t m, const uint32_t *X, int64_t N,
                                 int64_t ldk, cudaStream_t s)
{
    dim3 grid((unsigned)((N + BNLC_TN - 1) / BNLC_TN), (unsigned)((m + BNLC_TM - 1) / BNLC_TM));
    bnl_tile_kernel_f64<<<grid, BNLC_THREADS, 0, s>>>(out, ldo, trans, W, m, X, N, ldk, p);
    return cudaGetLastError();
}

/* nrm: rows; A: rows x ldd doubles. */
__global__ void bnl_rownorm_kernel_d(double *nrm, const double *__restrict__ A, int64_t rows,
                                     int64_t ldd, int n)
{
    int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        nrm[r] = bnlc_rownorm_d(A, ldd, n, r);
}

cudaError_t bnlc_launch_norms_d(double *nrm, const double *A, int64_t rows, int64_t ldd, int n,
                                cudaStream_t s)
{
    bnl_rownorm_kernel_d<<<(unsigned)((rows + 255) / 256), 256, 0, s>>>(nrm, A, rows, ldd, n);
    return cudaGetLastError();
}

__global__ void bnl_gemm_epi_kernel_d(double *out, int64_t ldo, int64_t rows, int64_t cols,
                                      int trans, const double *xn, const double *wn, int l2,
                                      bnlc_actpd p)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        double x = 0.0, w = 0.0;
        if (l2) {
            x = trans ? xn[c] : xn[r];
            w = trans ? wn[r] : wn[c];
        }
        double *o = out + r * ldo + c;
        *o = bnlc_gemm_epi_d(*o, x, w, l2, &p);
    }
}

cudaError_t bnlc_launch_gemm_epi_d(double *out, int64_t ldo, int64_t rows, int64_t cols,
                                   int trans, const double *xn, const double *wn, int l2,
                                   bnlc_actpd p, cudaStream_t s)
{
    dim3 grid((unsigned)((cols + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
    bnl_gemm_epi_kernel_d<<<grid, 256, 0, s>>>(out, ldo, rows, cols, trans, xn, wn, l2, p);
    return cudaGetLastError();
}

__global__ void bnl_actsum_kernel_d(double *S, const double *__restrict__ Ht, int64_t ldo,
                                    int64_t mt, int64_t Nt)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < Nt)
        bnlc_actsum_body_d(S, Ht, ldo, mt, i);
}

cudaError_t bnlc_launch_actsum_d(double *S, const double *Ht, int64_t ldo, int64_t mt,
                                 int64_t Nt, cudaStream_t s)
{
    bnl_actsum_kernel_d<<<(unsigned)((Nt + 127) / 128), 128, 0, s>>>(S, Ht, ldo, mt, Nt);
    return cudaGetLastError();
}
