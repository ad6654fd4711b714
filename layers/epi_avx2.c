/* epi_avx2.c - the float tile epilogues built for AVX2 (body: epi_body.h). */
#include <immintrin.h>
#include <stdint.h>
#include <math.h>

#include "act_avx2.h"

static inline void epi_sqrt_row_avx2(float *h, int64_t len)
{
    int64_t j = 0;
    for (; j + 8 <= len; j += 8)
        _mm256_storeu_ps(h + j, _mm256_sqrt_ps(_mm256_loadu_ps(h + j)));
    for (; j < len; j++)
        _mm_store_ss(h + j, _mm_sqrt_ss(_mm_load_ss(h + j)));
}

#define EPI_GAUSS_ROW bnl_gauss_row_avx2
#define EPI_TANH_ROW bnl_tanh_row_avx2
#define EPI_GAUSS_I32 bnl_gauss_i32_row_avx2
#define EPI_GAUSS_L2 bnl_gauss_l2_row_avx2
#define EPI_SUFFIX _avx2
#define EPI_STR "epi-f32-avx2"
#define EPI_SQRT_ROW epi_sqrt_row_avx2
#include "epi_body.h"
