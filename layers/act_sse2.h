/*
 * act_sse2.h - the Gaussian and tanh of act_hd.h for 4 floats with the
 * x86-64 baseline's SSE2 (act_simd_body.h): bnl_gauss_sse2, bnl_tanh_sse2,
 * the same bits as the scalar definitions, which gcc does not vectorise
 * (their selects become branches: 5-10 ns a value on random data, one
 * Zen 4 core).
 */
#ifndef FSVC_ACT_SSE2_H
#define FSVC_ACT_SSE2_H

#include <emmintrin.h>

/* 2^k for whole k in [-126, 127]: the exponent field */
static inline __m128 bnl_pow2_sse2(__m128 k)
{
    return _mm_castsi128_ps(_mm_slli_epi32(
        _mm_add_epi32(_mm_cvttps_epi32(k), _mm_set1_epi32(127)), 23));
}

/* m ? b : a, without SSE4.1's blendv */
static inline __m128 bnl_sel_sse2(__m128 m, __m128 a, __m128 b)
{
    return _mm_or_ps(_mm_and_ps(m, b), _mm_andnot_ps(m, a));
}

#define ACT_V __m128
#define ACT_M __m128
#define ACT_SFX _sse2
#define ACT_SET1 _mm_set1_ps
#define ACT_ADD _mm_add_ps
#define ACT_SUB _mm_sub_ps
#define ACT_MUL _mm_mul_ps
#define ACT_DIV _mm_div_ps
#define ACT_XOR _mm_xor_ps
#define ACT_LT _mm_cmplt_ps
#define ACT_GT _mm_cmpgt_ps
#define ACT_SEL bnl_sel_sse2
#define ACT_POW2 bnl_pow2_sse2
#define ACT_W 4
#define ACT_LOAD _mm_loadu_ps
#define ACT_STORE _mm_storeu_ps
#define ACT_LOADI(p) _mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)(p)))
#define ACT_KEEP(m, v) _mm_and_ps((m), (v)) /* m ? v : 0 */
#include "act_simd_body.h"

#endif /* FSVC_ACT_SSE2_H */
