/*
 * act_avx512.h - the Gaussian and tanh of act_hd.h (bnl_hd_act_f, with
 * bnl_hd_expf) for 16 floats at once: the same IEEE operations in the
 * same order, unfused, so the same bits. gcc's `omp simd` of the scalar
 * definitions runs 1.9x slower than these intrinsics for the Gaussian
 * (0.65 against 0.34 ns a value, one Zen 4 core), which made it a fifth
 * of the u8 L2 layer's time. act_avx2.h is the 8-float twin. Include only
 * from files built with AVX-512 flags.
 */
#ifndef FSVC_ACT_AVX512_H
#define FSVC_ACT_AVX512_H

#include <immintrin.h>

/* bnl_hd_expf's polynomial and scaling for -87 <= x <= 88, no clamps: the
 * callers below never need them (a NaN x gives x's NaN, as there) */
static inline __m512 bnl_exp_core_avx512(__m512 x)
{
    const __m512 sh = _mm512_set1_ps(12582912.0f);
    __m512 t = _mm512_add_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), sh);
    __m512 k = _mm512_sub_ps(t, sh);
    __m512 r = _mm512_sub_ps(x, _mm512_mul_ps(k, _mm512_set1_ps(0.693359375f)));
    r = _mm512_sub_ps(r, _mm512_mul_ps(k, _mm512_set1_ps(-2.12194440e-4f)));
    __m512 z = _mm512_mul_ps(r, r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(p, z), r), _mm512_set1_ps(1.0f));
    /* 2^k: k is whole and within [-126, 127] */
    __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvttps_epi32(k),
                                                   _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(e));
}

/* exp(-(v g)) for squared distances v >= 0 (the callers clamp, NaN to 0)
 * and g > 0: the argument is never above 0 nor NaN, and below -87 the
 * result is 0 by the last select, so bnl_hd_expf's clamps and NaN guard
 * (there for C's float-to-int conversion) change no bit here. */
static inline __m512 bnl_gauss_avx512(__m512 v, __m512 g)
{
    __m512 x = _mm512_xor_ps(_mm512_mul_ps(v, g), _mm512_set1_ps(-0.0f));
    __mmask16 under = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_LT_OQ);
    return _mm512_mask_blend_ps(under, bnl_exp_core_avx512(x), _mm512_setzero_ps());
}

/* bnl_hd_tanhf: exp's argument 2 min(|x|, 10) is within [0, 20] */
static inline __m512 bnl_tanh_avx512(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f);
    const __m512 sign = _mm512_set1_ps(-0.0f);
    __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
    __m512 ax = _mm512_mask_blend_ps(neg, x, _mm512_xor_ps(x, sign));
    __m512 ten = _mm512_set1_ps(10.0f);
    __m512 ac = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, ten, _CMP_GT_OQ), ax, ten);
    __m512 e = bnl_exp_core_avx512(_mm512_mul_ps(two, ac));
    __m512 big = _mm512_sub_ps(one, _mm512_div_ps(two, _mm512_add_ps(e, one)));
    __m512 z = _mm512_mul_ps(ax, ax);
    __m512 poly = _mm512_add_ps(_mm512_set1_ps(-0.333333333333f),
                                _mm512_mul_ps(z, _mm512_set1_ps(0.133333333333f)));
    __m512 small = _mm512_add_ps(ax, _mm512_mul_ps(ax, _mm512_mul_ps(z, poly)));
    __mmask16 near0 = _mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.0625f), _CMP_LT_OQ);
    __m512 t = _mm512_mask_blend_ps(near0, big, small);
    return _mm512_mask_blend_ps(neg, t, _mm512_xor_ps(t, sign));
}

#endif /* FSVC_ACT_AVX512_H */
