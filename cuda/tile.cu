/*
 * tile.cu - the CUDA kernels of the BNL engine: the shared-memory tile
 * kernel (u8 L1 / L2^2 / dot with byte-SIMD, f32 L1), the GEMM epilogue
 * (L2 and dot after cuBLAS), row norms and the activation sums, each one
 * template for f32 and f64 layers. The
 * per-thread bodies are in kernels_hd.h (tested on the host by
 * tests/test_cuda_emu.c); this file only maps them onto the grid.
 */
#include "cuda_internal.h"

/* The per-precision bodies of kernels_hd.h as C++ overloads, so that one
 * template below serves f32 and f64 layers. */
__device__ __forceinline__ void compute_l1(float *acc, const uint32_t *sW, const uint32_t *sX,
                                           int t, int kw)
{
    bnlc_compute_f(acc, sW, sX, t, kw);
}
__device__ __forceinline__ void compute_l1(double *acc, const uint32_t *sW, const uint32_t *sX,
                                           int t, int kw)
{
    bnlc_compute_d(acc, sW, sX, t, kw);
}
__device__ __forceinline__ void epilogue(float *out, int64_t ldo, int64_t rows, int64_t cols,
                                         int trans, const float *v, const bnlc_actp *p, int t)
{
    bnlc_epilogue_f(out, ldo, rows, cols, trans, v, p, t);
}
__device__ __forceinline__ void epilogue(double *out, int64_t ldo, int64_t rows, int64_t cols,
                                         int trans, const double *v, const bnlc_actpd *p, int t)
{
    bnlc_epilogue_d(out, ldo, rows, cols, trans, v, p, t);
}
__device__ __forceinline__ float rownorm(const float *A, int64_t ld, int n, int64_t r)
{
    return bnlc_rownorm_f(A, ld, n, r);
}
__device__ __forceinline__ double rownorm(const double *A, int64_t ld, int n, int64_t r)
{
    return bnlc_rownorm_d(A, ld, n, r);
}
__device__ __forceinline__ float gemm_epi(float G, float xn, float wn, int l2, const bnlc_actp *p)
{
    return bnlc_gemm_epi_f(G, xn, wn, l2, p);
}
__device__ __forceinline__ double gemm_epi(double G, double xn, double wn, int l2,
                                           const bnlc_actpd *p)
{
    return bnlc_gemm_epi_d(G, xn, wn, l2, p);
}
__device__ __forceinline__ void actsum_body(double *S, const float *Ht, int64_t ldo, int64_t mt,
                                            int64_t i)
{
    bnlc_actsum_body_f(S, Ht, ldo, mt, i);
}
__device__ __forceinline__ void actsum_body(double *S, const double *Ht, int64_t ldo, int64_t mt,
                                            int64_t i)
{
    bnlc_actsum_body_d(S, Ht, ldo, mt, i);
}

/* H's element and the activation parameters of a tile op: double for the
 * f64 L1 layer, float for the others. */
template <int OP> struct tile_prec {
    typedef float R;
    typedef bnlc_actp P;
};
template <> struct tile_prec<BNLC_F64_L1> {
    typedef double R;
    typedef bnlc_actpd P;
};

/* out: samples x ldo (H) or neurons x ldo (Ht); W: m x ldk, X: N x ldk.
 * grid (ceil(N / 128), ceil(m / 128)), block 256, 33 KB static shared. */
template <int OP>
__global__ void __launch_bounds__(BNLC_THREADS, 1) /* ptxas chose 128 regs + spills on sm_80 without the 1 */
bnl_tile_kernel(typename tile_prec<OP>::R *out, int64_t ldo, int trans,
                const uint32_t *__restrict__ W, int64_t m, const uint32_t *__restrict__ X,
                int64_t N, int64_t ldk, typename tile_prec<OP>::P p)
{
    typedef typename tile_prec<OP>::R R;
    __shared__ __align__(16) uint32_t sW[BNLC_SMEM_WORDS];
    __shared__ __align__(16) uint32_t sX[BNLC_SMEM_WORDS];
    const int t = threadIdx.x;
    const int64_t m0 = (int64_t)blockIdx.y * BNLC_TM, i0 = (int64_t)blockIdx.x * BNLC_TN;
    R v[BNLC_EPB];
    if constexpr (OP == BNLC_F32_L1 || OP == BNLC_F64_L1) {
#pragma unroll
        for (int e = 0; e < BNLC_EPB; e++)
            v[e] = 0;
        for (int64_t k0 = 0; k0 < ldk; k0 += BNLC_KW) {
            bnlc_stage(sW, W, m, ldk, m0, k0, t);
            bnlc_stage(sX, X, N, ldk, i0, k0, t);
            __syncthreads();
            compute_l1(v, sW, sX, t, (int)min((int64_t)BNLC_KW, ldk - k0));
            __syncthreads();
        }
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
        epilogue(out + i0 * ldo + m0, ldo, N - i0, ldo - m0, 0, v, &p, t);
    else
        epilogue(out + m0 * ldo + i0, ldo, m - m0, ldo - i0, 1, v, &p, t);
}

static dim3 tile_grid(int64_t m, int64_t N)
{
    return dim3((unsigned)((N + BNLC_TN - 1) / BNLC_TN), (unsigned)((m + BNLC_TM - 1) / BNLC_TM));
}

cudaError_t bnlc_launch_tile(int op, bnlc_actp p, float *out, int64_t ldo, int trans,
                             const uint32_t *W, int64_t m, const uint32_t *X, int64_t N,
                             int64_t ldk, cudaStream_t s)
{
    dim3 grid = tile_grid(m, N), block(BNLC_THREADS);
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

/* f64 L1: the same kernel with double accumulators and H. */
cudaError_t bnlc_launch_tile_f64(bnlc_actpd p, double *out, int64_t ldo, int trans,
                                 const uint32_t *W, int64_t m, const uint32_t *X, int64_t N,
                                 int64_t ldk, cudaStream_t s)
{
    bnl_tile_kernel<BNLC_F64_L1><<<tile_grid(m, N), BNLC_THREADS, 0, s>>>(out, ldo, trans, W, m,
                                                                        X, N, ldk, p);
    return cudaGetLastError();
}

/* nrm: rows; A: rows x ld elements. One thread a row. */
template <typename R>
__global__ void bnl_rownorm_kernel(R *nrm, const R *__restrict__ A, int64_t rows, int64_t ld, int n)
{
    int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        nrm[r] = rownorm(A, ld, n, r);
}

cudaError_t bnlc_launch_norms(float *nrm, const float *A, int64_t rows, int64_t ldk, int n,
                              cudaStream_t s)
{
    bnl_rownorm_kernel<<<(unsigned)((rows + 255) / 256), 256, 0, s>>>(nrm, A, rows, ldk, n);
    return cudaGetLastError();
}

cudaError_t bnlc_launch_norms_d(double *nrm, const double *A, int64_t rows, int64_t ldd, int n,
                                cudaStream_t s)
{
    bnl_rownorm_kernel<<<(unsigned)((rows + 255) / 256), 256, 0, s>>>(nrm, A, rows, ldd, n);
    return cudaGetLastError();
}

/* out: rows x ldo, in place; not transposed: rows = samples (xn[row]),
 * columns = neurons (wn[col]); transposed the other way round. Threads
 * run along columns: coalesced. */
template <typename R, typename P>
__global__ void bnl_gemm_epi_kernel(R *out, int64_t ldo, int64_t rows, int64_t cols, int trans,
                                    const R *xn, const R *wn, int l2, P p)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) { /* rows may pass 65535 */
        R x = 0, w = 0;
        if (l2) {
            x = trans ? xn[c] : xn[r];
            w = trans ? wn[r] : wn[c];
        }
        R *o = out + r * ldo + c;
        *o = gemm_epi(*o, x, w, l2, &p);
    }
}

static dim3 epi_grid(int64_t rows, int64_t cols)
{
    return dim3((unsigned)((cols + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
}

cudaError_t bnlc_launch_gemm_epi(float *out, int64_t ldo, int64_t rows, int64_t cols, int trans,
                                 const float *xn, const float *wn, int l2, bnlc_actp p,
                                 cudaStream_t s)
{
    bnl_gemm_epi_kernel<<<epi_grid(rows, cols), 256, 0, s>>>(out, ldo, rows, cols, trans, xn, wn,
                                                             l2, p);
    return cudaGetLastError();
}

cudaError_t bnlc_launch_gemm_epi_d(double *out, int64_t ldo, int64_t rows, int64_t cols,
                                   int trans, const double *xn, const double *wn, int l2,
                                   bnlc_actpd p, cudaStream_t s)
{
    bnl_gemm_epi_kernel<<<epi_grid(rows, cols), 256, 0, s>>>(out, ldo, rows, cols, trans, xn, wn,
                                                             l2, p);
    return cudaGetLastError();
}

/* S: Nt; Ht: mt x ldo. One thread a sample, neurons in increasing order. */
template <typename R>
__global__ void bnl_actsum_kernel(double *S, const R *__restrict__ Ht, int64_t ldo, int64_t mt,
                                  int64_t Nt)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < Nt)
        actsum_body(S, Ht, ldo, mt, i);
}

cudaError_t bnlc_launch_actsum(double *S, const float *Ht, int64_t ldo, int64_t mt, int64_t Nt,
                               cudaStream_t s)
{
    bnl_actsum_kernel<<<(unsigned)((Nt + 127) / 128), 128, 0, s>>>(S, Ht, ldo, mt, Nt);
    return cudaGetLastError();
}

cudaError_t bnlc_launch_actsum_d(double *S, const double *Ht, int64_t ldo, int64_t mt,
                                 int64_t Nt, cudaStream_t s)
{
    bnl_actsum_kernel<<<(unsigned)((Nt + 127) / 128), 128, 0, s>>>(S, Ht, ldo, mt, Nt);
    return cudaGetLastError();
}
