/*
 * round_hd.h - the reduced-precision GEMM operands (bnl_precision): an f32
 * value rounded to TF32 or bf16, host and device alike. The CPU backend
 * emulates a tf32 / bf16 layer with these (layers/cpu_tile.c); the cuda
 * backend rounds its operands on the device with the same functions
 * (cuda/kernels_hd.h includes this header) before the tensor-core GEMM.
 *
 * Both keep the f32 exponent (8 bits) and cut the mantissa: TF32 to 10
 * bits (the low 13 bits zero), bf16 to 7 (the low 16 zero). Rounding is
 * to nearest, ties to even, on the bit pattern: add half an ulp of the
 * target (minus one, plus the kept lowest bit) and clear the cut bits.
 * This is what NVIDIA documents for __float2bfloat16 (cvt.rn.bf16.f32) and
 * for cvt.rn.tf32.f32 (PTX ISA 7.8, sm_90; sm_80 only has cvt.rna, ties
 * away from zero). What cuBLAS's TF32 mode does to raw f32 inputs is not
 * documented to the bit, so the cuda backend feeds it operands already
 * rounded here: their cut bits are zero and any conversion the tensor
 * cores apply leaves them unchanged.
 *   - subnormals round the same way (the cut is at a fixed mantissa bit);
 *   - a carry out of the mantissa moves into the exponent, so the largest
 *     finite values round up to inf (bf16: |x| >= 0x7f7f8000's value;
 *     tf32: >= 0x7f7ff000's);
 *   - inf stays inf; NaN stays a NaN of the same sign (the quiet bit set,
 *     so that cutting a payload held only in the low bits cannot make it
 *     inf).
 * Plain integer operations only: gcc -std=c11 and nvcc give the same bits.
 * Also IEEE binary16 (f16), the 2-byte format of pcg's cached H.
 */
#ifndef FSVC_ROUND_HD_H
#define FSVC_ROUND_HD_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define BNL_RHD static __host__ __device__ __forceinline__
#else
#define BNL_RHD static inline
#endif

BNL_RHD uint32_t bnl_f32_bits(float f)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

BNL_RHD float bnl_bits_f32(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* The bits of f rounded to nearest even at mantissa bit `cut` (13: tf32,
 * 16: bf16), the cut bits zero. */
BNL_RHD uint32_t bnl_round_bits(uint32_t u, int cut)
{
    uint32_t low = (1u << cut) - 1u;
    if ((u & 0x7f800000u) == 0x7f800000u) { /* inf or NaN: no rounding */
        if (u & 0x007fffffu)
            u |= 0x00400000u;               /* NaN: quiet, never inf */
        return u & ~low;
    }
    u += (low >> 1) + ((u >> cut) & 1u);
    return u & ~low;
}

BNL_RHD float bnl_round_tf32(float f) { return bnl_bits_f32(bnl_round_bits(bnl_f32_bits(f), 13)); }
BNL_RHD float bnl_round_bf16(float f) { return bnl_bits_f32(bnl_round_bits(bnl_f32_bits(f), 16)); }

/* The bf16 bit pattern of f (round to nearest even), the top half of the
 * f32 bits: what a __nv_bfloat16 holds. */
BNL_RHD uint16_t bnl_bf16_bits(float f)
{
    return (uint16_t)(bnl_round_bits(bnl_f32_bits(f), 16) >> 16);
}

/* The IEEE binary16 bits of f, round to nearest even (what F16C's
 * vcvtps2ph does with imm 0): 11 significant bits; |f| >= 65520 gives inf,
 * below 2^-14 the subnormal steps of 2^-24; NaN stays a quiet NaN with
 * f's top payload bits. pcg's cached H (cpu_hprod.c) of activations <= 1. */
BNL_RHD uint16_t bnl_f16_bits(float f)
{
    uint32_t u = bnl_f32_bits(f), a = u & 0x7fffffffu;
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (a > 0x7f800000u) /* NaN */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x47800000u) /* 2^16 and beyond (and inf) */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* normal in f16 (a carry may give inf: >= 65520) */
        uint32_t r = a + 0xfffu + ((a >> 13) & 1u);
        return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
    }
    if (a <= 0x33000000u) /* at most 2^-25: zero (2^-25 itself ties to even) */
        return sign;
    /* subnormal: k 2^-24, k = the 24-bit mantissa shifted by sh, RNE (k may
     * reach 0x400, the smallest normal, which is its right pattern) */
    uint32_t mant = (a & 0x7fffffu) | 0x800000u, sh = 126u - (a >> 23);
    uint32_t k = (mant + (1u << (sh - 1)) - 1u + ((mant >> sh) & 1u)) >> sh;
    return (uint16_t)(sign | k);
}

/* The f32 value of binary16 bits h (exact; a NaN quiet). */
BNL_RHD float bnl_f16_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, mnt = h & 0x3ffu;
    if (e == 31u) /* inf, or NaN made quiet (as vcvtph2ps) */
        return bnl_bits_f32(sign | 0x7f800000u | (mnt << 13) | (mnt ? 0x00400000u : 0u));
    if (e) return bnl_bits_f32(sign | ((e + 112u) << 23) | (mnt << 13));
    float v = (float)mnt * 5.9604644775390625e-8f; /* mnt 2^-24, exact */
    return sign ? -v : v;
}

/* f rounded for precision p (0 full: f itself, 1 tf32, 2 bf16). */
BNL_RHD float bnl_round_prec(float f, int p)
{
    return p == 1 ? bnl_round_tf32(f) : p == 2 ? bnl_round_bf16(f) : f;
}

#endif /* FSVC_ROUND_HD_H */
