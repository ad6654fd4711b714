/* epi_scalar.c - the float tile epilogues for the baseline x86-64 (SSE2)
 * build (body: epi_body.h). */
#include <immintrin.h>
#include <stdint.h>
#include <math.h>

static inline void epi_sqrt_row_scalar(float *h, int64_t len)
{
    int64_t j = 0;
#if defined(__SSE2__)
    for (; j + 4 <= len; j += 4)
        _mm_storeu_ps(h + j, _mm_sqrt_ps(_mm_loadu_ps(h + j)));
#endif
    for (; j < len; j++)
        h[j] = sqrtf(h[j]);
}

#include "act_sse2.h" /* SSE2: every x86-64 */
#define EPI_GAUSS_ROW bnl_gauss_row_sse2
#define EPI_TANH_ROW bnl_tanh_row_sse2
#define EPI_GAUSS_I32 bnl_gauss_i32_row_sse2
#define EPI_GAUSS_L2 bnl_gauss_l2_row_sse2
#define EPI_SUFFIX _scalar
#define EPI_STR "epi-f32-sse2"
#define EPI_SQRT_ROW epi_sqrt_row_scalar
#include "epi_body.h"
