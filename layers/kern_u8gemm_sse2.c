/*
 * kern_u8gemm_sse2.c - the scalar (x86-64 baseline) tier's exact u8 L2 and
 * dot: the packed int16 GEMM of kern_u8gemm_body.h on 4-lane pmaddwd
 * (l2sq_u8_sse2_4x8, dot_u8_sse2_4x8), SSE2 only.
 */
#include <emmintrin.h>
#include "kern_impl.h"

/* the lanes < left of a partial vector, through memory (SSE2 has no
 * masked loads; the edges only) */
static inline __m128i kg_loadp_sse2(const int32_t *p, int left)
{
    int32_t t[4] = {0, 0, 0, 0};
    for (int l = 0; l < left; l++) t[l] = p[l];
    return _mm_loadu_si128((const __m128i *)t);
}

static inline void kg_storep_sse2(int32_t *p, __m128i v, int left)
{
    int32_t t[4];
    _mm_storeu_si128((__m128i *)t, v);
    for (int l = 0; l < left; l++) p[l] = t[l];
}

#define KG_V __m128i
#define KG_W 4
#define KG_SFX _sse2
#define KG_L2SQ l2sq_u8_sse2_4x8
#define KG_DOT dot_u8_sse2_4x8
#define KG_ZERO _mm_setzero_si128
#define KG_SET1 _mm_set1_epi32
#define KG_ADD _mm_add_epi32
#define KG_SUB _mm_sub_epi32
#define KG_MADD _mm_madd_epi16
#define KG_LOAD(p) _mm_load_si128((const __m128i *)(p))
#define KG_LOADU(p) _mm_loadu_si128((const __m128i *)(p))
#define KG_STOREU(p, v) _mm_storeu_si128((__m128i *)(p), (v))
#define KG_WIDEN(p) /* 8 bytes */                                               \
    _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(p)), _mm_setzero_si128())
#define KG_LOADP(p, left) kg_loadp_sse2((p), (left))
#define KG_STOREP(p, v, left) kg_storep_sse2((p), (v), (left))
#include "kern_u8gemm_body.h"
