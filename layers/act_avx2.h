/*
 * act_avx2.h - the Gaussian and tanh of act_hd.h for 8 floats
 * (act_simd_body.h): bnl_gauss_avx2, bnl_tanh_avx2, the same bits as the
 * scalar definitions. gcc does not vectorise those for AVX2 at all (4.9
 * ns a Gaussian, as the baseline build; these intrinsics 0.6 ns, one Zen 4
 * core). Include only from files built with AVX2 flags.
 */
#ifndef FSVC_ACT_AVX2_H
#define FSVC_ACT_AVX2_H

#include <immintrin.h>

/* 2^k for whole k in [-126, 127]: the exponent field */
static inline __m256 bnl_pow2_avx2(__m256 k)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(
        _mm256_add_epi32(_mm256_cvttps_epi32(k), _mm256_set1_epi32(127)), 23));
}

#define ACT_V __m256
#define ACT_M __m256
#define ACT_SFX _avx2
#define ACT_SET1 _mm256_set1_ps
#define ACT_ADD _mm256_add_ps
#define ACT_SUB _mm256_sub_ps
#define ACT_MUL _mm256_mul_ps
#define ACT_DIV _mm256_div_ps
#define ACT_XOR _mm256_xor_ps
#define ACT_LT(a, b) _mm256_cmp_ps((a), (b), _CMP_LT_OQ)
#define ACT_GT(a, b) _mm256_cmp_ps((a), (b), _CMP_GT_OQ)
#define ACT_SEL(m, a, b) _mm256_blendv_ps((a), (b), (m)) /* m ? b : a */
#define ACT_POW2 bnl_pow2_avx2
#define ACT_W 8
#define ACT_LOAD _mm256_loadu_ps
#define ACT_STORE _mm256_storeu_ps
#define ACT_LOADI(p) _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define ACT_KEEP(m, v) _mm256_and_ps((m), (v)) /* m ? v : 0 */
#include "act_simd_body.h"

#endif /* FSVC_ACT_AVX2_H */
