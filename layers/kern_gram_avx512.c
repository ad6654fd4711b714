/*
 * kern_gram_avx512.c - pcg's fused block products (kern_gram_body.h) on
 * AVX-512: 16 lanes, U tiles 4 x 6 and Y tiles 4 vectors x 6 (24
 * accumulators of 32 registers); tails by masks.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define GV __m512
#define GL 16
#define GR 4
#define GK 6
#define GA 4
#define YK 6
#define GRAM_NAME hgram_avx512

static inline __mmask16 lanes(int n) { return (__mmask16)((1u << n) - 1); }
static inline __m512 widen16(__m256i b)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(b), 16));
}

#define GV_ZERO() _mm512_setzero_ps()
#define GV_LOAD(p) _mm512_loadu_ps(p)
#define GV_STORE(p, v) _mm512_storeu_ps(p, v)
#define GV_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define GV_SET1(x) _mm512_set1_ps(x)
#define GV_REDUCE(v) _mm512_reduce_add_ps(v)
#define GV_LOAD_BF(p) widen16(_mm256_loadu_si256((const void *)(p)))
#define GV_LOAD_TAIL(p, n) _mm512_maskz_loadu_ps(lanes(n), p)
#define GV_LOAD_BF_TAIL(p, n) widen16(_mm256_maskz_loadu_epi16(lanes(n), p))
#define GV_LOAD_F16(p) _mm512_cvtph_ps(_mm256_loadu_si256((const void *)(p)))
#define GV_LOAD_F16_TAIL(p, n) _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(lanes(n), p))
#define GV_STORE_TAIL(p, n, v) _mm512_mask_storeu_ps(p, lanes(n), v)

#include "kern_gram_body.h"

/* imm 0: round to nearest even whatever MXCSR says (bnl_f16_bits) */
void f16_round_avx512(uint16_t *out, const float *in, size_t count)
{
    size_t q = 0;
    for (; q + 16 <= count; q += 16)
        _mm256_storeu_si256((void *)(out + q), _mm512_cvtps_ph(_mm512_loadu_ps(in + q), 0));
    if (q < count) {
        __mmask16 k = lanes((int)(count - q));
        _mm256_mask_storeu_epi16(out + q, k, _mm512_cvtps_ph(_mm512_maskz_loadu_ps(k, in + q), 0));
    }
}

void f16_widen_avx512(float *out, const uint16_t *in, size_t count)
{
    size_t q = 0;
    for (; q + 16 <= count; q += 16) _mm512_storeu_ps(out + q, GV_LOAD_F16(in + q));
    if (q < count)
        GV_STORE_TAIL(out + q, (int)(count - q), GV_LOAD_F16_TAIL(in + q, (int)(count - q)));
}

/* the triangular solves' updates (kern_tri_body.h): forward tiles of 2
 * vectors x 12 right-hand sides, backward 4 columns x 6 (24 accumulators;
 * Zen 4 at 10000 columns, one core: back 1.2-1.3x the 2 x 12 tile) */
#define TA 2
#define TK 12
#define TJ 8
#define TC 4
#define TKB 6
#define TRI_FWD_NAME tri_fwd_avx512
#define TRI_BACK_NAME tri_back_avx512
#include "kern_tri_body.h"
