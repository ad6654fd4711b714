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

#define EPI_GAUSS_ROW bnl_gauss_row_avx512
#define EPI_TANH_ROW bnl_tanh_row_avx512
#define EPI_GAUSS_I32 bnl_gauss_i32_row_avx512
#define EPI_GAUSS_L2 bnl_gauss_l2_row_avx512
#define EPI_SUFFIX _avx512
#define EPI_STR "epi-f32-avx512"
#define EPI_SQRT_ROW epi_sqrt_row_avx512
#include "epi_body.h"
