/*
 * act_avx2.h - act_avx512.h's Gaussian and tanh for 8 floats (AVX2): the
 * same operations as bnl_hd_act_f, so the same bits. gcc does not
 * vectorise the scalar definitions for AVX2 at all (4.9 ns a Gaussian, as
 * the baseline build; these intrinsics 0.6 ns, one Zen 4 core). Include
 * only from files built with AVX2 flags.
 */
#ifndef FSVC_ACT_AVX2_H
#define FSVC_ACT_AVX2_H

#include <immintrin.h>

/* as bnl_exp_core_avx512 */
static inline __m256 bnl_exp_core_avx2(__m256 x)
{
    const __m256 sh = _mm256_set1_ps(12582912.0f);
    __m256 t = _mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), sh);
    __m256 k = _mm256_sub_ps(t, sh);
    __m256 r = _mm256_sub_ps(x, _mm256_mul_ps(k, _mm256_set1_ps(0.693359375f)));
    r = _mm256_sub_ps(r, _mm256_mul_ps(k, _mm256_set1_ps(-2.12194440e-4f)));
    __m256 z = _mm256_mul_ps(r, r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p, z), r), _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(k),
                                                   _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

/* exp(-(v g)) for v >= 0 (not NaN) and g > 0, as bnl_gauss_avx512 */
static inline __m256 bnl_gauss_avx2(__m256 v, __m256 g)
{
    __m256 x = _mm256_xor_ps(_mm256_mul_ps(v, g), _mm256_set1_ps(-0.0f));
    __m256 under = _mm256_cmp_ps(x, _mm256_set1_ps(-87.0f), _CMP_LT_OQ); /* 0 there */
    return _mm256_andnot_ps(under, bnl_exp_core_avx2(x));
}

/* as bnl_tanh_avx512 */
static inline __m256 bnl_tanh_avx2(__m256 x)
{
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
    const __m256 sign = _mm256_set1_ps(-0.0f), ten = _mm256_set1_ps(10.0f);
    __m256 neg = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
    __m256 ax = _mm256_blendv_ps(x, _mm256_xor_ps(x, sign), neg);
    __m256 ac = _mm256_blendv_ps(ax, ten, _mm256_cmp_ps(ax, ten, _CMP_GT_OQ));
    __m256 e = bnl_exp_core_avx2(_mm256_mul_ps(two, ac));
    __m256 big = _mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(e, one)));
    __m256 z = _mm256_mul_ps(ax, ax);
    __m256 poly = _mm256_add_ps(_mm256_set1_ps(-0.333333333333f),
                                _mm256_mul_ps(z, _mm256_set1_ps(0.133333333333f)));
    __m256 small = _mm256_add_ps(ax, _mm256_mul_ps(ax, _mm256_mul_ps(z, poly)));
    __m256 near0 = _mm256_cmp_ps(ax, _mm256_set1_ps(0.0625f), _CMP_LT_OQ);
    __m256 t = _mm256_blendv_ps(big, small, near0);
    return _mm256_blendv_ps(t, _mm256_xor_ps(t, sign), neg);
}

#endif /* FSVC_ACT_AVX2_H */
