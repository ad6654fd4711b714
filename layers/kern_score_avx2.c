/*
 * kern_score_avx2.c - the readout scores of an f32 H tile
 * (kern_score_body.h) on AVX2 + FMA: 4 double lanes, blocks of 4 rows x 3
 * vectors (K up to 12 per panel: 12 accumulators of 16 registers), tails
 * by vmaskmovpd.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define SV __m256d
#define SL 4
#define SR 4
#define SP 3
#define SCORE_NAME hscore_avx2

static inline __m256i lanes(int n)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}

#define SV_LOAD(p, n) ((n) == SL ? _mm256_loadu_pd(p) : _mm256_maskload_pd(p, lanes(n)))
#define SV_STORE(p, n, v) \
    ((n) == SL ? _mm256_storeu_pd(p, v) : _mm256_maskstore_pd(p, lanes(n), v))
#define SV_FMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define SV_SET1(x) _mm256_set1_pd(x)

#include "kern_score_body.h"
