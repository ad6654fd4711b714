/*
 * kern_cvt_avx512bf16.c - f32 rows to bf16 bit patterns on AVX-512 BF16
 * (the operands of a --precision bf16 layer): vcvtne2ps2bf16 rounds to
 * nearest even as round_hd.h's bnl_bf16_bits (NaN quiet, overflow to
 * inf); it reads subnormal inputs as zero (DAZ), as vdpbf16ps and oneDNN's
 * bf16 kernels read subnormal bf16 operands, so the layer's products are
 * the same. 32 values per instruction, the tail masked, pad zeros.
 * And back (bf16_widen): the bits as the top half of the f32, exact.
 */
#include <immintrin.h>
#include "kern_impl.h"

static void row_bf16(uint16_t *o, const float *a, int n, int n2)
{
    int k = 0;
    for (; k + 32 <= n; k += 32) {
        __m512bh r = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(a + k + 16), _mm512_loadu_ps(a + k));
        _mm512_storeu_si512((void *)(o + k), (__m512i)r);
    }
    for (; k < n; k += 16) {
        int left = n - k < 16 ? n - k : 16;
        __mmask16 mk = (__mmask16)((1u << left) - 1);
        __m256bh r = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mk, a + k));
        _mm256_mask_storeu_epi16(o + k, mk, (__m256i)r);
    }
    for (k = n; k < n2; k++)
        o[k] = 0;
}

void bf16_rows_avx512bf16(uint16_t *out, const float *A, int64_t rows, int n, int n2)
{
    for (int64_t i = 0; i < rows; i++)
        row_bf16(out + i * (int64_t)n2, A + i * (int64_t)n, n, n2);
}

void bf16_widen_avx512bf16(float *out, const uint16_t *in, size_t count)
{
    size_t q = 0;
    for (; q + 16 <= count; q += 16) {
        __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(in + q)));
        _mm512_storeu_si512((void *)(out + q), _mm512_slli_epi32(v, 16));
    }
    if (q < count) {
        __mmask16 mk = (__mmask16)((1u << (count - q)) - 1);
        __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mk, in + q));
        _mm512_mask_storeu_ps(out + q, mk, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
    }
}
