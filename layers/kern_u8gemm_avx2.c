/*
 * kern_u8gemm_avx2.c - the avx2 tier's exact u8 L2 and dot: the packed
 * int16 GEMM of kern_u8gemm_body.h on 8-lane vpmaddwd (l2sq_u8_avx2_4x16,
 * dot_u8_avx2_4x16).
 */
#include <immintrin.h>
#include "kern_impl.h"

/* lanes < left of a partial vector (vpmaskmovd: the edges only) */
static inline __m256i kg_mask_avx2(int left)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

#define KG_V __m256i
#define KG_W 8
#define KG_SFX _avx2
#define KG_L2SQ l2sq_u8_avx2_4x16
#define KG_DOT dot_u8_avx2_4x16
#define KG_ZERO _mm256_setzero_si256
#define KG_SET1 _mm256_set1_epi32
#define KG_ADD _mm256_add_epi32
#define KG_SUB _mm256_sub_epi32
#define KG_MADD _mm256_madd_epi16
#define KG_LOAD(p) _mm256_load_si256((const __m256i *)(p))
#define KG_LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define KG_STOREU(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define KG_WIDEN(p) _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p))) /* 16 bytes */
#define KG_LOADP(p, left) _mm256_maskload_epi32((p), kg_mask_avx2(left))
#define KG_STOREP(p, v, left) _mm256_maskstore_epi32((p), kg_mask_avx2(left), (v))
#include "kern_u8gemm_body.h"
