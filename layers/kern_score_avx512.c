/*
 * kern_score_avx512.c - the readout scores of an f32 H tile
 * (kern_score_body.h) on AVX-512: 8 double lanes, blocks of 8 rows x 2
 * vectors (K up to 16 per panel: 16 accumulators), tails by masks.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define SV __m512d
#define SL 8
#define SR 8
#define SP 2
#define SCORE_NAME hscore_avx512

static inline __mmask8 lanes(int n) { return (__mmask8)((1u << n) - 1); }

#define SV_LOAD(p, n) ((n) == SL ? _mm512_loadu_pd(p) : _mm512_maskz_loadu_pd(lanes(n), p))
#define SV_STORE(p, n, v) \
    ((n) == SL ? _mm512_storeu_pd(p, v) : _mm512_mask_storeu_pd(p, lanes(n), v))
#define SV_FMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define SV_SET1(x) _mm512_set1_pd(x)

#include "kern_score_body.h"
