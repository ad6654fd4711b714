/*
 * kern_gram_avx2.c - pcg's fused block products (kern_gram_body.h) on
 * AVX2 + FMA: 8 lanes, U tiles 2 x 5 and Y tiles 2 vectors x 6 (12
 * accumulators of 16 registers); tails through a zero-padded copy.
 */
#include <immintrin.h>
#include "kern_impl.h"

#define GV __m256
#define GL 8
#define GR 2
#define GK 5
#define GA 2
#define YK 6
#define GRAM_NAME hgram_avx2

static inline __m256 widen8(__m128i b)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(b), 16));
}
static inline float sum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
static inline __m256 tail_f32(const float *p, int n)
{
    float t[8] = {0};
    memcpy(t, p, (size_t)n * sizeof *t);
    return _mm256_loadu_ps(t);
}
static inline __m256 tail_bf16(const uint16_t *p, int n)
{
    uint16_t t[8] = {0};
    memcpy(t, p, (size_t)n * sizeof *t);
    return widen8(_mm_loadu_si128((const void *)t));
}
static inline __m256 tail_f16(const uint16_t *p, int n)
{
    uint16_t t[8] = {0};
    memcpy(t, p, (size_t)n * sizeof *t);
    return _mm256_cvtph_ps(_mm_loadu_si128((const void *)t));
}
static inline void store_tail(float *p, int n, __m256 v)
{
    float t[8];
    _mm256_storeu_ps(t, v);
    memcpy(p, t, (size_t)n * sizeof *t);
}

#define GV_ZERO() _mm256_setzero_ps()
#define GV_LOAD(p) _mm256_loadu_ps(p)
#define GV_STORE(p, v) _mm256_storeu_ps(p, v)
#define GV_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define GV_SET1(x) _mm256_set1_ps(x)
#define GV_REDUCE(v) sum8(v)
#define GV_LOAD_BF(p) widen8(_mm_loadu_si128((const void *)(p)))
#define GV_LOAD_TAIL(p, n) tail_f32(p, n)
#define GV_LOAD_BF_TAIL(p, n) tail_bf16(p, n)
#define GV_LOAD_F16(p) _mm256_cvtph_ps(_mm_loadu_si128((const void *)(p)))
#define GV_LOAD_F16_TAIL(p, n) tail_f16(p, n)
#define GV_STORE_TAIL(p, n, v) store_tail(p, n, v)

#include "kern_gram_body.h"

/* imm 0: round to nearest even whatever MXCSR says (bnl_f16_bits) */
void f16_round_avx2(uint16_t *out, const float *in, size_t count)
{
    size_t q = 0;
    for (; q + 8 <= count; q += 8)
        _mm_storeu_si128((void *)(out + q), _mm256_cvtps_ph(_mm256_loadu_ps(in + q), 0));
    if (q < count) {
        float t[8] = {0};
        uint16_t o[8];
        memcpy(t, in + q, (count - q) * sizeof *t);
        _mm_storeu_si128((void *)o, _mm256_cvtps_ph(_mm256_loadu_ps(t), 0));
        memcpy(out + q, o, (count - q) * sizeof *o);
    }
}

void f16_widen_avx2(float *out, const uint16_t *in, size_t count)
{
    size_t q = 0;
    for (; q + 8 <= count; q += 8) _mm256_storeu_ps(out + q, GV_LOAD_F16(in + q));
    if (q < count) store_tail(out + q, (int)(count - q), tail_f16(in + q, (int)(count - q)));
}

/* the triangular solves' updates (kern_tri_body.h): forward tiles of 2
 * vectors x 6 right-hand sides, backward 4 columns x 3 (12 accumulators;
 * Zen 4 at 10000 columns, one core: fwd 1.4x, back 1.1x the 1 x 12 and
 * 2 x 6 tiles) */
#define TA 2
#define TK 6
#define TJ 8
#define TC 4
#define TKB 3
#define TRI_FWD_NAME tri_fwd_avx2
#define TRI_BACK_NAME tri_back_avx2
#include "kern_tri_body.h"
