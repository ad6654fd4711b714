/*
 * act.h - the activation functions, as the comment at the top of bnl.h
 * defines them, and the epilogue tables.
 *
 * bnl_act_f / bnl_act_d are the scalar definitions: the reference backend
 * (ref.c), the f64 epilogues (epi.c) and the tests call them. The float
 * tile epilogues (epi_body.h, included once per ISA by epi_scalar.c,
 * epi_avx2.c, epi_avx512.c) restate the same IEEE operations in the same
 * order as row loops (calling bnl_expf / bnl_tanhf from here); with no FMA
 * contraction under -std=c11 they give the same bits. v is what the
 * distance stage produced: the L1 distance, the squared L2 distance, or
 * the dot product (see bnl_vkind).
 */
#ifndef FSVC_ACT_H
#define FSVC_ACT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bnl_types.h"

typedef enum { BNL_V_DIST = 0, BNL_V_SQ = 1, BNL_V_DOT = 2 } bnl_vkind;

typedef struct bnl_actp {
    bnl_act act;
    bnl_vkind vk;   /* what v is */
    float a;        /* tri: (float)(1 / (BNL_TRI_SCALE r)) */
    float g;        /* gauss: (float)(1 / (2 r^2)) */
    double s;       /* tri, f64: BNL_TRI_SCALE r (the triangle's support) */
    double g2;      /* gauss, f64: 2 r^2 */
} bnl_actp;

static inline bnl_actp bnl_actp_make(const bnl_op *op)
{
    bnl_actp p;
    double r = op->radius > 0 ? op->radius : 1.0;
    p.act = op->act;
    p.vk = op->dist == BNL_L1 ? BNL_V_DIST : op->dist == BNL_L2 ? BNL_V_SQ : BNL_V_DOT;
    p.a = (float)(1.0 / (BNL_TRI_SCALE * r));
    p.g = (float)(1.0 / (2.0 * r * r));
    p.s = BNL_TRI_SCALE * r;
    p.g2 = 2.0 * r * r;
    return p;
}

/* exp(x) in float, Cephes-style: 2^k * p(x - k ln2); 0 below -87; within
 * 2e-7 relative of libm on [-87, 88]; NaN for NaN (an overflowed f32
 * distance over inf: converting a NaN k to int is undefined, so k is
 * computed from 0 there; selects, no branch, for the vectorised loops). */
static inline float bnl_expf(float x)
{
    float xc = x < -87.0f ? -87.0f : x;
    xc = xc > 88.0f ? 88.0f : xc;
    xc = x == x ? xc : 0.0f;
    float t = xc * 1.44269504088896341f + 12582912.0f; /* round to integer */
    float k = t - 12582912.0f;
    float r = xc - k * 0.693359375f;
    r = r - k * -2.12194440e-4f;
    float z = r * r;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * z + r + 1.0f;
    int32_t bits = ((int32_t)k + 127) * 8388608; /* 2^k as float bits */
    float s;
    memcpy(&s, &bits, sizeof s);
    float y = p * s;
    return x < -87.0f ? 0.0f : x == x ? y : x;
}

/* tanh(x) in float: odd series below 1/16, else 1 - 2 / (exp(2|x|) + 1);
 * within 2e-7 absolute of libm. */
static inline float bnl_tanhf(float x)
{
    float ax = x < 0.0f ? -x : x;
    float ac = ax > 10.0f ? 10.0f : ax; /* 1 - 2/(e^20 + 1) rounds to 1 */
    float e = bnl_expf(2.0f * ac);
    float big = 1.0f - 2.0f / (e + 1.0f);
    float z = ax * ax;
    float small = ax + ax * (z * (-0.333333333333f + z * 0.133333333333f));
    float t = ax < 0.0625f ? small : big;
    return x < 0.0f ? -t : t;
}

/* Float outputs (u8, f32). Distances below 0 (a reordered float sum of a
 * zero distance) count as 0. */
static inline float bnl_act_f(const bnl_actp *p, float v)
{
    if (p->vk != BNL_V_DOT)
        v = v > 0.0f ? v : 0.0f;
    switch (p->act) {
    case BNL_TRI: {
        float d = p->vk == BNL_V_SQ ? sqrtf(v) : v;
        float h = 1.0f - d * p->a;
        return h > 0.0f ? h : 0.0f;
    }
    case BNL_GAUSS: {
        float d2 = p->vk == BNL_V_SQ ? v : v * v;
        return bnl_expf(-(d2 * p->g));
    }
    case BNL_TANH:
        return bnl_tanhf(v);
    case BNL_IDENT:
    default:
        return p->vk == BNL_V_SQ ? sqrtf(v) : v;
    }
}

/* Double outputs (f64), libm. */
static inline double bnl_act_d(const bnl_actp *p, double v)
{
    if (p->vk != BNL_V_DOT)
        v = v > 0.0 ? v : 0.0;
    switch (p->act) {
    case BNL_TRI: {
        double d = p->vk == BNL_V_SQ ? sqrt(v) : v;
        double h = 1.0 - d / p->s;
        return h > 0.0 ? h : 0.0;
    }
    case BNL_GAUSS: {
        double d2 = p->vk == BNL_V_SQ ? v : v * v;
        return exp(-d2 / p->g2);
    }
    case BNL_TANH:
        return tanh(v);
    case BNL_IDENT:
    default:
        return p->vk == BNL_V_SQ ? sqrt(v) : v;
    }
}

/* ---- tile epilogues (epi_*.c, one copy per ISA) ---- */
typedef struct bnl_epi {
    const char *name;
    /* H = act(D): H rows x cols (ldh) float, D rows x cols (ldd) int32 */
    void (*from_i32)(float *H, int64_t ldh, const int32_t *D, int64_t ldd,
                     int64_t rows, int64_t cols, const bnl_actp *p);
    /* H = act(H) in place, float */
    void (*inplace_f32)(float *H, int64_t ldh, int64_t rows, int64_t cols,
                        const bnl_actp *p);
    /* GEMM L2: H holds -2 x.c; v = max(0, (xn[i] + wn[j]) + H), H = act(v)
     * (xn: rows, wn: cols squared norms) */
    void (*l2_f32)(float *H, int64_t ldh, const float *xn, const float *wn,
                   int64_t rows, int64_t cols, const bnl_actp *p);
} bnl_epi;

const bnl_epi *bnl_epi_get(bnl_arch arch);

/* f64 epilogues (epi.c, through bnl_act_d): same shapes, double, libm. */
void bnl_epi_f64(double *H, int64_t ldh, int64_t rows, int64_t cols,
                 const bnl_actp *p);
void bnl_epi_f64_l2(double *H, int64_t ldh, const double *xn, const double *wn,
                    int64_t rows, int64_t cols, const bnl_actp *p);

#endif /* FSVC_ACT_H */
