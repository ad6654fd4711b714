/*
 * act_avx512.h - the Gaussian and tanh of act_hd.h for 16 floats
 * (act_simd_body.h): bnl_gauss_avx512, bnl_tanh_avx512, the same bits as
 * the scalar definitions. gcc's `omp simd` of those runs 1.9x slower than
 * these intrinsics for the Gaussian (0.65 against 0.34 ns a value, one
 * Zen 4 core), which made it a fifth of the u8 L2 layer's time. Include
 * only from files built with AVX-512 flags.
 */
#ifndef FSVC_ACT_AVX512_H
#define FSVC_ACT_AVX512_H

#include <immintrin.h>

/* 2^k for whole k in [-126, 127]: the exponent field */
static inline __m512 bnl_pow2_avx512(__m512 k)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(
        _mm512_add_epi32(_mm512_cvttps_epi32(k), _mm512_set1_epi32(127)), 23));
}

#define ACT_V __m512
#define ACT_M __mmask16
#define ACT_SFX _avx512
#define ACT_SET1 _mm512_set1_ps
#define ACT_ADD _mm512_add_ps
#define ACT_SUB _mm512_sub_ps
#define ACT_MUL _mm512_mul_ps
#define ACT_DIV _mm512_div_ps
#define ACT_XOR _mm512_xor_ps
#define ACT_LT(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_LT_OQ)
#define ACT_GT(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_GT_OQ)
#define ACT_SEL(m, a, b) _mm512_mask_blend_ps((m), (a), (b)) /* m ? b : a */
#define ACT_POW2 bnl_pow2_avx512
#define ACT_W 16
#define ACT_LOAD _mm512_loadu_ps
#define ACT_STORE _mm512_storeu_ps
#define ACT_LOADI(p) _mm512_cvtepi32_ps(_mm512_loadu_si512(p))
#define ACT_KEEP(m, v) _mm512_maskz_mov_ps((m), (v)) /* m ? v : 0 */
#include "act_simd_body.h"

#endif /* FSVC_ACT_AVX512_H */
