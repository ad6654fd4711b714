/*
 * act_hd.h - the activation, written once for the host and the device:
 * layers/act.h (the reference, the epilogues, the tests) and
 * cuda/kernels_hd.h (the tile and GEMM epilogues) both call these, so a
 * GPU activation cannot drift from the CPU's. Float: IEEE operations in a
 * fixed order, never contracted into FMA (the device's __f*_rn intrinsics;
 * on the host gcc -std=c11 does not contract), so both give the same bits.
 * Double: the same, with libm's / CUDA's exp and tanh (within an ulp of
 * each other, not always the same bits).
 * act: 0 triangular, 1 Gaussian, 2 tanh, 3 identity (bnl_act); vk: what v
 * is, 0 a distance, 1 a squared distance, 2 a dot product (bnl_vkind).
 */
#ifndef FSVC_ACT_HD_H
#define FSVC_ACT_HD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define BNL_AHD static __host__ __device__ __forceinline__
#else
#define BNL_AHD static inline
#endif

#ifdef __CUDA_ARCH__
#define BNL_FMUL(a, b) __fmul_rn((a), (b))
#define BNL_FADD(a, b) __fadd_rn((a), (b))
#define BNL_FSUB(a, b) __fsub_rn((a), (b))
#define BNL_FDIV(a, b) __fdiv_rn((a), (b))
#define BNL_FSQRT(a) __fsqrt_rn(a)
#define BNL_DSUB(a, b) __dsub_rn((a), (b))
#define BNL_DMUL(a, b) __dmul_rn((a), (b))
#define BNL_DDIV(a, b) __ddiv_rn((a), (b))
#else
#define BNL_FMUL(a, b) ((a) * (b))
#define BNL_FADD(a, b) ((a) + (b))
#define BNL_FSUB(a, b) ((a) - (b))
#define BNL_FDIV(a, b) ((a) / (b))
#define BNL_FSQRT(a) sqrtf(a)
#define BNL_DSUB(a, b) ((a) - (b))
#define BNL_DMUL(a, b) ((a) * (b))
#define BNL_DDIV(a, b) ((a) / (b))
#endif

BNL_AHD float bnl_hd_bits_float(int32_t bits)
{
#ifdef __CUDA_ARCH__
    return __int_as_float(bits);
#else
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
#endif
}

/* exp(x) in float, Cephes-style: 2^k * p(x - k ln2); 0 below -87; within
 * 2e-7 relative of libm on [-87, 88]. */
BNL_AHD float bnl_hd_expf(float x)
{
    float xc = x < -87.0f ? -87.0f : x;
    xc = xc > 88.0f ? 88.0f : xc;
    float t = BNL_FADD(BNL_FMUL(xc, 1.44269504088896341f), 12582912.0f); /* round */
    float k = BNL_FSUB(t, 12582912.0f);
    float r = BNL_FSUB(xc, BNL_FMUL(k, 0.693359375f));
    r = BNL_FSUB(r, BNL_FMUL(k, -2.12194440e-4f));
    float z = BNL_FMUL(r, r);
    float p = 1.9875691500e-4f;
    p = BNL_FADD(BNL_FMUL(p, r), 1.3981999507e-3f);
    p = BNL_FADD(BNL_FMUL(p, r), 8.3334519073e-3f);
    p = BNL_FADD(BNL_FMUL(p, r), 4.1665795894e-2f);
    p = BNL_FADD(BNL_FMUL(p, r), 1.6666665459e-1f);
    p = BNL_FADD(BNL_FMUL(p, r), 5.0000001201e-1f);
    p = BNL_FADD(BNL_FADD(BNL_FMUL(p, z), r), 1.0f);
    float s = bnl_hd_bits_float(((int32_t)k + 127) * 8388608); /* 2^k */
    float y = BNL_FMUL(p, s);
    return x < -87.0f ? 0.0f : y;
}

/* tanh(x) in float: odd series below 1/16, else 1 - 2 / (exp(2|x|) + 1);
 * within 2e-7 absolute of libm. */
BNL_AHD float bnl_hd_tanhf(float x)
{
    float ax = x < 0.0f ? -x : x;
    float ac = ax > 10.0f ? 10.0f : ax; /* 1 - 2/(e^20 + 1) rounds to 1 */
    float e = bnl_hd_expf(BNL_FMUL(2.0f, ac));
    float big = BNL_FSUB(1.0f, BNL_FDIV(2.0f, BNL_FADD(e, 1.0f)));
    float z = BNL_FMUL(ax, ax);
    float small = BNL_FADD(ax, BNL_FMUL(ax, BNL_FMUL(z, BNL_FADD(-0.333333333333f,
                                                             BNL_FMUL(z, 0.133333333333f)))));
    float t = ax < 0.0625f ? small : big;
    return x < 0.0f ? -t : t;
}

/* Float outputs (u8, f32): a = 1 / (BNL_TRI_SCALE r), g = 1 / (2 r^2).
 * Distances below 0 (a reordered float sum of a zero distance) count as 0. */
BNL_AHD float bnl_hd_act_f(int act, int vk, float a, float g, float v)
{
    if (vk != 2)
        v = v > 0.0f ? v : 0.0f;
    switch (act) {
    case 0: {
        float d = vk == 1 ? BNL_FSQRT(v) : v;
        float h = BNL_FSUB(1.0f, BNL_FMUL(d, a));
        return h > 0.0f ? h : 0.0f;
    }
    case 1: {
        float d2 = vk == 1 ? v : BNL_FMUL(v, v);
        return bnl_hd_expf(-BNL_FMUL(d2, g));
    }
    case 2:
        return bnl_hd_tanhf(v);
    default:
        return vk == 1 ? BNL_FSQRT(v) : v;
    }
}

/* Double outputs (f64): s = BNL_TRI_SCALE r, g2 = 2 r^2. */
BNL_AHD double bnl_hd_act_d(int act, int vk, double s, double g2, double v)
{
    if (vk != 2)
        v = v > 0.0 ? v : 0.0;
    switch (act) {
    case 0: {
        double d = vk == 1 ? sqrt(v) : v;
        double h = BNL_DSUB(1.0, BNL_DDIV(d, s));
        return h > 0.0 ? h : 0.0;
    }
    case 1: {
        double d2 = vk == 1 ? v : BNL_DMUL(v, v);
        return exp(BNL_DDIV(-d2, g2));
    }
    case 2:
        return tanh(v);
    default:
        return vk == 1 ? sqrt(v) : v;
    }
}

#endif
