/*
 * kern_norm_avx512.c - squared norms of f32 rows (the L2 layers' |x|^2 and
 * |w|^2) on AVX-512: each product is exact in double (24 + 24 bits), summed
 * in 8 double lanes x 2 accumulators, the lanes added at the end. Only the
 * order of the double sums differs from the scalar loop (cpu_tile.c), so
 * the float results agree within one float ulp (tests/test_bf16_cache.c).
 */
#include <immintrin.h>
#include "kern_impl.h"

static float norm_row(const float *a, int n)
{
    __m512d s0 = _mm512_setzero_pd(), s1 = s0;
    int k = 0;
    for (; k + 16 <= n; k += 16) {
        __m512 v = _mm512_loadu_ps(a + k);
        __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
        __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
        s0 = _mm512_fmadd_pd(lo, lo, s0);
        s1 = _mm512_fmadd_pd(hi, hi, s1);
    }
    if (k < n) { /* the tail, masked: zeros add nothing */
        __mmask16 mk = (__mmask16)((1u << (n - k)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(mk, a + k);
        __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
        __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
        s0 = _mm512_fmadd_pd(lo, lo, s0);
        s1 = _mm512_fmadd_pd(hi, hi, s1);
    }
    return (float)_mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

void norms_f32_avx512(float *out, const float *A, int64_t rows, int n)
{
    for (int64_t i = 0; i < rows; i++)
        out[i] = norm_row(A + i * (int64_t)n, n);
}
