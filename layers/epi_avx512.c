/* epi_avx512.c - the float tile epilogues built for AVX-512 (body:
 * epi_body.h). */
#include <immintrin.h>
#include <stdint.h>
#include <math.h>

#include "act_avx512.h"

static inline void epi_sqrt_row_avx512(float *h, int64_t len)
{
    int64_t j = 0;
    for (; j + 16 <= len; j += 16)
        _mm512_storeu_ps(h + j, _mm512_sqrt_ps(_mm512_loadu_ps(h + j)));
    if (j < len) {
        __mmask16 k = (__mmask16)((1u << (len - j)) - 1);
        _mm512_mask_storeu_ps(h + j, k, _mm512_sqrt_ps(_mm512_maskz_loadu_ps(k, h + j)));
    }
}

/* t = exp(-(d g)) for len int32 squared distances d */
static inline void epi_gauss_i32_avx512(float *t, const int32_t *d, int64_t len, float g)
{
    const __m512 vg = _mm512_set1_ps(g);
    int64_t j = 0;
    for (; j + 16 <= len; j += 16)
        _mm512_storeu_ps(t + j, bnl_gauss_avx512(_mm512_cvtepi32_ps(_mm512_loadu_si512(d + j)),
                                                 vg));
    if (j < len) {
        __mmask16 k = (__mmask16)((1u << (len - j)) - 1);
        __m512 v = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(k, d + j));
        _mm512_mask_storeu_ps(t + j, k, bnl_gauss_avx512(v, vg));
    }
}

/* h = exp(-(v g)), v = max(0, (x2 + wn) + h) (NaN to 0, as the C select) */
static inline __m512 epi_l2v_avx512(__m512 x2, __m512 wn, __m512 h)
{
    __m512 v = _mm512_add_ps(_mm512_add_ps(x2, wn), h);
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ), v);
}

static inline void epi_gauss_l2_avx512(float *h, float x2, const float *wn, int64_t len, float g)
{
    const __m512 vg = _mm512_set1_ps(g), vx = _mm512_set1_ps(x2);
    int64_t j = 0;
    for (; j + 16 <= len; j += 16) {
        __m512 v = epi_l2v_avx512(vx, _mm512_loadu_ps(wn + j), _mm512_loadu_ps(h + j));
        _mm512_storeu_ps(h + j, bnl_gauss_avx512(v, vg));
    }
    if (j < len) {
        __mmask16 k = (__mmask16)((1u << (len - j)) - 1);
        __m512 v = epi_l2v_avx512(vx, _mm512_maskz_loadu_ps(k, wn + j),
                                  _mm512_maskz_loadu_ps(k, h + j));
        _mm512_mask_storeu_ps(h + j, k, bnl_gauss_avx512(v, vg));
    }
}

/* row_act's Gaussian in place: sq, h holds v; else v = d d, d = max(0, h) */
static inline void epi_gauss_row_avx512(float *h, int64_t len, float g, int sq)
{
    const __m512 vg = _mm512_set1_ps(g), zero = _mm512_setzero_ps();
    for (int64_t j = 0; j < len; j += 16) {
        __mmask16 k = len - j >= 16 ? 0xffff : (__mmask16)((1u << (len - j)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(k, h + j);
        if (!sq) {
            v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ), v);
            v = _mm512_mul_ps(v, v);
        }
        _mm512_mask_storeu_ps(h + j, k, bnl_gauss_avx512(v, vg));
    }
}

static inline void epi_tanh_row_avx512(float *h, int64_t len)
{
    for (int64_t j = 0; j < len; j += 16) {
        __mmask16 k = len - j >= 16 ? 0xffff : (__mmask16)((1u << (len - j)) - 1);
        _mm512_mask_storeu_ps(h + j, k, bnl_tanh_avx512(_mm512_maskz_loadu_ps(k, h + j)));
    }
}

#define EPI_GAUSS_ROW epi_gauss_row_avx512
#define EPI_TANH_ROW epi_tanh_row_avx512
#define EPI_GAUSS_I32 epi_gauss_i32_avx512
#define EPI_GAUSS_L2 epi_gauss_l2_avx512
#define EPI_SUFFIX _avx512
#define EPI_STR "epi-f32-avx512"
#define EPI_SQRT_ROW epi_sqrt_row_avx512
#include "epi_body.h"
