/* epi_avx2.c - the float tile epilogues built for AVX2 (body: epi_body.h). */
#include <immintrin.h>
#include <stdint.h>
#include <math.h>

#include "act.h"
#include "act_avx2.h"

static inline void epi_sqrt_row_avx2(float *h, int64_t len)
{
    int64_t j = 0;
    for (; j + 8 <= len; j += 8)
        _mm256_storeu_ps(h + j, _mm256_sqrt_ps(_mm256_loadu_ps(h + j)));
    for (; j < len; j++)
        _mm_store_ss(h + j, _mm_sqrt_ss(_mm_load_ss(h + j)));
}

/* t = exp(-(d g)) for len int32 squared distances d; the tail by the
 * scalar definition (the same bits) */
static inline void epi_gauss_i32_avx2(float *t, const int32_t *d, int64_t len, float g)
{
    const __m256 vg = _mm256_set1_ps(g);
    int64_t j = 0;
    for (; j + 8 <= len; j += 8)
        _mm256_storeu_ps(t + j, bnl_gauss_avx2(_mm256_cvtepi32_ps(
                                    _mm256_loadu_si256((const __m256i *)(d + j))), vg));
    for (; j < len; j++)
        t[j] = bnl_expf(-((float)d[j] * g));
}

/* h = exp(-(v g)), v = max(0, (x2 + wn) + h) (NaN to 0, as the C select) */
static inline void epi_gauss_l2_avx2(float *h, float x2, const float *wn, int64_t len, float g)
{
    const __m256 vg = _mm256_set1_ps(g), vx = _mm256_set1_ps(x2), zero = _mm256_setzero_ps();
    int64_t j = 0;
    for (; j + 8 <= len; j += 8) {
        __m256 v = _mm256_add_ps(_mm256_add_ps(vx, _mm256_loadu_ps(wn + j)),
                                 _mm256_loadu_ps(h + j));
        v = _mm256_and_ps(_mm256_cmp_ps(v, zero, _CMP_GT_OQ), v);
        _mm256_storeu_ps(h + j, bnl_gauss_avx2(v, vg));
    }
    for (; j < len; j++) {
        float v = (x2 + wn[j]) + h[j];
        v = v > 0.0f ? v : 0.0f;
        h[j] = bnl_expf(-(v * g));
    }
}

/* row_act's Gaussian in place: sq, h holds v; else v = d d, d = max(0, h);
 * the tail by the scalar definition */
static inline void epi_gauss_row_avx2(float *h, int64_t len, float g, int sq)
{
    const __m256 vg = _mm256_set1_ps(g), zero = _mm256_setzero_ps();
    int64_t j = 0;
    for (; j + 8 <= len; j += 8) {
        __m256 v = _mm256_loadu_ps(h + j);
        if (!sq) {
            v = _mm256_and_ps(_mm256_cmp_ps(v, zero, _CMP_GT_OQ), v);
            v = _mm256_mul_ps(v, v);
        }
        _mm256_storeu_ps(h + j, bnl_gauss_avx2(v, vg));
    }
    for (; j < len; j++) {
        float d = h[j] > 0.0f ? h[j] : 0.0f;
        h[j] = bnl_expf(-((sq ? h[j] : d * d) * g));
    }
}

static inline void epi_tanh_row_avx2(float *h, int64_t len)
{
    int64_t j = 0;
    for (; j + 8 <= len; j += 8)
        _mm256_storeu_ps(h + j, bnl_tanh_avx2(_mm256_loadu_ps(h + j)));
    for (; j < len; j++)
        h[j] = bnl_tanhf(h[j]);
}

#define EPI_GAUSS_ROW epi_gauss_row_avx2
#define EPI_TANH_ROW epi_tanh_row_avx2
#define EPI_GAUSS_I32 epi_gauss_i32_avx2
#define EPI_GAUSS_L2 epi_gauss_l2_avx2
#define EPI_SUFFIX _avx2
#define EPI_STR "epi-f32-avx2"
#define EPI_SQRT_ROW epi_sqrt_row_avx2
#include "epi_body.h"
