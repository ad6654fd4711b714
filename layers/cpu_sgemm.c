/* cpu_sgemm.c - one-thread f32 GEMM on the context's tier (cpu_sgemm.h). */
#include "cpu_sgemm.h"

#ifdef FSVC_HAVE_DNNL
#include "dnnl_api.h" /* oneDNN loaded on first use */
#include <omp.h>
#endif

int bnl_sgemm_dnnl(const bnl_ctx *ctx)
{
#ifdef FSVC_HAVE_DNNL
    /* any backend's context: a device's runs these on the CPU with the CPU's bits */
    return ctx && ctx->dnnl && bnl_arch_rank(ctx->arch) >= bnl_arch_rank(BNL_ARCH_ONEDNN) &&
           bnl_arch_supported(BNL_ARCH_ONEDNN) && bnl_dnnl_load();
#else
    (void)ctx;
    return 0;
#endif
}

void bnl_sgemm(const bnl_ctx *ctx, CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb,
               int M, int N, int K, float alpha, const float *A, int lda, const float *B,
               int ldb, float beta, float *C, int ldc)
{
    if (M < 1 || N < 1) return;
#ifdef FSVC_HAVE_DNNL
    if (bnl_sgemm_dnnl(ctx)) {
        char a = ta == CblasNoTrans ? 'N' : 'T', b = tb == CblasNoTrans ? 'N' : 'T';
        int team = omp_in_parallel(), saved = team ? 0 : omp_get_max_threads();
        if (!team) omp_set_num_threads(1); /* one thread, as inside a team */
        if (order == CblasRowMajor)
            dnnl_sgemm(a, b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        else /* column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T */
            dnnl_sgemm(b, a, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
        if (!team) omp_set_num_threads(saved);
        return;
    }
#endif
    cblas_sgemm(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
