/*
 * ref.c - THE REFERENCE BACKEND: plain C loops, the oracle every other
 * backend is tested against. No SIMD, no tiling, no reordering, no
 * fast-math: for each (sample i, neuron j) the distance is summed over k in
 * increasing order — in int32 exactly for u8, in float for f32, in double
 * for f64 — then the activation of act.h is applied.
 * A tf32 / bf16 op (bnl_op_reduced) is the GEMM form with rounded operands:
 * v = (|x|^2 + |w|^2) - 2 sum_k rx_k rw_k (L2, at least 0) or sum_k rx_k rw_k
 * (dot), r the rounding of round_hd.h, the norms of the full values, every
 * sum in float in increasing k.
 */
#include "backend.h"
#include "round_hd.h"

#include <stdlib.h>

/* v for one pair (what act.h calls v: L1 distance, squared L2, or dot).
 * The int32 sums are exact in any order, so these loops may be vectorised;
 * the float ones below are summed in increasing k. */
static int32_t ref_v_u8(bnl_dist dist, const uint8_t *w, const uint8_t *x, int n)
{
    int32_t acc = 0;
    if (dist == BNL_L1) {
#pragma omp simd reduction(+ : acc)
        for (int k = 0; k < n; k++) acc += abs((int32_t)x[k] - (int32_t)w[k]);
    } else if (dist == BNL_L2) {
#pragma omp simd reduction(+ : acc)
        for (int k = 0; k < n; k++) acc += ((int32_t)x[k] - w[k]) * ((int32_t)x[k] - w[k]);
    } else {
#pragma omp simd reduction(+ : acc)
        for (int k = 0; k < n; k++) acc += (int32_t)x[k] * w[k];
    }
    return acc;
}

static float ref_v_f32(bnl_dist dist, const float *w, const float *x, int n)
{
    float acc = 0.0f;
    if (dist == BNL_L1)
        for (int k = 0; k < n; k++) acc += fabsf(x[k] - w[k]);
    else if (dist == BNL_L2)
        for (int k = 0; k < n; k++) acc += (x[k] - w[k]) * (x[k] - w[k]);
    else
        for (int k = 0; k < n; k++) acc += x[k] * w[k];
    return acc;
}

static float ref_v_f32_reduced(bnl_dist dist, const float *w, const float *x, int n, int prec)
{
    float dot = 0.0f, xn = 0.0f, wn = 0.0f;
    for (int k = 0; k < n; k++) {
        dot += bnl_round_prec(x[k], prec) * bnl_round_prec(w[k], prec);
        xn += x[k] * x[k];
        wn += w[k] * w[k];
    }
    if (dist == BNL_DOT)
        return dot;
    float v = (xn + wn) - 2.0f * dot;
    return v > 0.0f ? v : 0.0f;
}

static double ref_v_f64(bnl_dist dist, const double *w, const double *x, int n)
{
    double acc = 0.0;
    if (dist == BNL_L1)
        for (int k = 0; k < n; k++) acc += fabs(x[k] - w[k]);
    else if (dist == BNL_L2)
        for (int k = 0; k < n; k++) acc += (x[k] - w[k]) * (x[k] - w[k]);
    else
        for (int k = 0; k < n; k++) acc += x[k] * w[k];
    return acc;
}

/* h(x_i, w_j) as double (float outputs widened exactly). */
static double ref_h(const bnl_op *op, const bnl_actp *p, const void *W, const void *X,
                    int64_t i, int64_t j, int n)
{
    switch (op->dtype) {
    case FSVC_U8: {
        const uint8_t *w = (const uint8_t *)W + j * n, *x = (const uint8_t *)X + i * n;
        return bnl_act_f(p, (float)ref_v_u8(op->dist, w, x, n));
    }
    case FSVC_F32: {
        const float *w = (const float *)W + j * n, *x = (const float *)X + i * n;
        if (bnl_op_reduced(op))
            return bnl_act_f(p, ref_v_f32_reduced(op->dist, w, x, n, (int)op->precision));
        return bnl_act_f(p, ref_v_f32(op->dist, w, x, n));
    }
    case FSVC_F64:
    default: {
        const double *w = (const double *)W + j * n, *x = (const double *)X + i * n;
        return bnl_act_d(p, ref_v_f64(op->dist, w, x, n));
    }
    }
}

/* H: N x m (ldh), float for u8/f32, double for f64. */
int bnl_ref_forward(const bnl_op *op, void *H, int64_t ldh, const void *W, int64_t m,
                    const void *X, int64_t N, int n, fsvc_error *err)
{
    bnl_actp p = bnl_actp_make(op);
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++) {
            double h = ref_h(op, &p, W, X, i, j, n);
            if (op->dtype == FSVC_F64)
                ((double *)H)[i * ldh + j] = h;
            else
                ((float *)H)[i * ldh + j] = (float)h;
        }
    return FSVC_OK;
}

/* S: N; s = S[i]; s += h_ij for j = 0..m-1; S[i] = s. */
int bnl_ref_actsum(const bnl_op *op, double *S, const void *W, int64_t m,
                   const void *X, int64_t N, int n, fsvc_error *err)
{
    bnl_actp p = bnl_actp_make(op);
    for (int64_t i = 0; i < N; i++) {
        double s = S[i];
        for (int64_t j = 0; j < m; j++)
            s += ref_h(op, &p, W, X, i, j, n);
        S[i] = s;
    }
    return FSVC_OK;
}

/* Y: N x K = H R, R: m x K; Y[i][k] = sum over j increasing of h_ij R[j][k]. */
int bnl_ref_scores(const bnl_op *op, double *Y, const void *W, int64_t m,
                   const void *X, int64_t N, int n, const double *R, int K,
                   fsvc_error *err)
{
    bnl_actp p = bnl_actp_make(op);
    for (int64_t i = 0; i < N; i++) {
        double *y = Y + i * K;
        for (int k = 0; k < K; k++)
            y[k] = 0.0;
        for (int64_t j = 0; j < m; j++) {
            double h = ref_h(op, &p, W, X, i, j, n);
            for (int k = 0; k < K; k++)
                y[k] += h * R[j * K + k];
        }
    }
    return FSVC_OK;
}
