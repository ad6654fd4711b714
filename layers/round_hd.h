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

/* f rounded for precision p (0 full: f itself, 1 tf32, 2 bf16). */
BNL_RHD float bnl_round_prec(float f, int p)
{
    return p == 1 ? bnl_round_tf32(f) : p == 2 ? bnl_round_bf16(f) : f;
}

#endif /* FSVC_ROUND_HD_H */
