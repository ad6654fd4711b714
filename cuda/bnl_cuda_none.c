/*
 * bnl_cuda_none.c - the CUDA backend when nvcc was not found at build time
 * (or NO_CUDA=1): every entry point says so in one line and fails with
 * FSVC_ERESOURCE, so the engine falls back to the CPU. The real backend is
 * in cuda/<x>.cu, built only with FSVC_HAVE_CUDA.
 */
#include "bnl_cuda.h"

#include <stdio.h>

#ifndef FSVC_HAVE_CUDA

#define NOT_BUILT "cuda: not compiled in (nvcc was not found at build time)"

int bnl_cuda_open(bnl_cuda **out, int strict, fsvc_error *err)
{
    if (out)
        *out = NULL;
    return fsvc_fail(err, FSVC_ERESOURCE, "%s%s", NOT_BUILT,
                     strict ? "" : " \xe2\x80\x94 using CPU");
}

void bnl_cuda_close(bnl_cuda *c) { (void)c; }

int bnl_cuda_forward(bnl_cuda *c, const bnl_op *op, void *H, int64_t ldh,
                     const void *W, int64_t m, const void *X, int64_t N, int n,
                     fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_actsum(bnl_cuda *c, const bnl_op *op, double *S, const void *W,
                    int64_t m, const void *X, int64_t N, int n, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_scores(bnl_cuda *c, const bnl_op *op, double *Y, const void *W, int64_t m,
                    const void *X, int64_t N, int n, const double *R, int K, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_normal_open(bnl_cuda *c, bnl_normal **out, fsvc_error *err)
{
    if (out)
        *out = NULL;
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_normal_accum(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                          const void *X, int64_t N, int n, const int *cls, const double *y,
                          const double *cw, int K, double *diag, double *B, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_normal_solve(bnl_normal *s, double lam, double *R, int *info, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_normal_fetch(bnl_normal *s, double *G, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

void bnl_cuda_normal_close(bnl_normal *s) { (void)s; }

int bnl_cuda_normal_rhs(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                        const void *X, int64_t N, int n, const int *cls, const double *y,
                        int K, double *B, double *sumsq, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_normal_apply(bnl_normal *s, const bnl_op *op, const void *W, int64_t m,
                          const void *X, int64_t N, int n, const double *V, int K, double *Y,
                          fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_lms(bnl_cuda *c, const bnl_op *op, double *R, const void *W, int64_t m,
                 const void *X, const int *cls, int64_t N, int n, int K, double eta,
                 int64_t *bad, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_time_forward(bnl_cuda *c, const bnl_op *op, const void *W, int64_t m,
                          const void *X, int64_t N, int n, int reps, double *sec,
                          fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_nov_open(bnl_cuda *c, const bnl_op *op, int n, int64_t cap, bnl_novelty **out,
                      fsvc_error *err)
{
    if (out)
        *out = NULL;
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_nov_add(bnl_novelty *s, const void *C, int64_t rows, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_nov_sums(bnl_novelty *s, double *S, const void *X, int64_t N, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

void bnl_cuda_nov_close(bnl_novelty *s) { (void)s; }

int bnl_cuda_mind_open(bnl_cuda *c, const bnl_op *op, const void *X, int64_t N, int n,
                       bnl_mind **out, fsvc_error *err)
{
    if (out)
        *out = NULL;
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

int bnl_cuda_mind_update(bnl_mind *s, const void *C, int64_t B, double *D2, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

void bnl_cuda_mind_close(bnl_mind *s) { (void)s; }

int bnl_cuda_describe(char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "%s", NOT_BUILT);
    return 0;
}

void bnl_cuda_device_tag(const bnl_cuda *c, char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "none");
}

int bnl_cuda_plan(bnl_cuda *c, const bnl_op *op, int actsum, int64_t m, int64_t N, int n,
                  bnlc_plan *out, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_ERESOURCE, "%s", NOT_BUILT);
}

void bnl_cuda_limits(bnl_cuda *c, bnlc_limits *get, const bnlc_limits *set)
{
    if (get)
        bnlc_limits_default(get);
}

int bnl_cuda_props(const bnl_cuda *c, bnlc_device *d, char *tune_path, size_t len)
{
    return -1;
}

#else
/* Built with nvcc: the backend lives in cuda/device.cu and friends. ISO C
 * forbids an empty translation unit. */
typedef int bnl_cuda_none_unused;
#endif
