/*
 * cpu_sgemm.h - the f32 GEMMs of the ridge solves (the Cholesky and its
 * solves, chol.c; pcg's block products, cpu_hprod.c) on the context's
 * tier: oneDNN's sgemm on the onednn tier (its AVX-512 kernels, about 2x
 * OpenBLAS's when OpenBLAS runs AVX2 ones, e.g. OPENBLAS_CORETYPE=Haswell
 * on a Zen 5), OpenBLAS's cblas_sgemm on every other tier (FSVC_ARCH=
 * avx512: cblas_sgemm's calls and bits) or without oneDNN. One call runs on the
 * calling thread only (inside an active team oneDNN is sequential; outside
 * one its threads are held to 1 for the call), so the callers' blocking
 * keeps its promise: the same bits for any thread count.
 */
#ifndef FSVC_CPU_SGEMM_H
#define FSVC_CPU_SGEMM_H

#include "bnl.h"

#include <cblas.h>

/* 1 when bnl_sgemm runs on oneDNN for this context. */
int bnl_sgemm_dnnl(const bnl_ctx *ctx);

/* cblas_sgemm's arguments and result, one thread, on the context's tier. */
void bnl_sgemm(const bnl_ctx *ctx, CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb,
               int M, int N, int K, float alpha, const float *A, int lda, const float *B,
               int ldb, float beta, float *C, int ldc);

#endif
