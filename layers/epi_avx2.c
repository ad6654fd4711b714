/* epi_avx2.c - the float tile epilogues built for AVX2 (body: epi_body.h). */
#include <immintrin.h>
#include <stdint.h>
#include <math.h>

static inline void epi_sqrt_row_avx2(float *h, int64_t len)
{
    int64_t j = 0;
    for (; j + 8 <= len; j += 8)
        _mm256_storeu_ps(h + j, _mm256_sqrt_ps(_mm256_loadu_ps(h + j)));
    for (; j < len; j++)
        _mm_store_ss(h + j, _mm_sqrt_ss(_mm_load_ss(h + j)));
}
#define EPI_SUFFIX _avx2
#define EPI_STR "epi-f32-avx2"
#define EPI_SQRT_ROW epi_sqrt_row_avx2
#include "epi_body.h"
