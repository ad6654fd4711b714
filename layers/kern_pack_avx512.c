/*
 * kern_pack_avx512.c - kern_pack4 (kern_pack4.h) by 16 x 16 transposes of
 * 4-byte units: 16 rows of 64 bytes in, 16 unit rows of 16 neurons out, 64
 * shuffles per KB where the scalar loop moves 4 bytes at a time. Measured
 * in the vpdpbusd GEMM: the scalar pack took about 4 % of a 4096^2 x 784
 * layer on Zen 5; the AMX tiles leave far less time per packed byte.
 * Edges (rows past m or past the last 16, units past len or the last 16)
 * take kern_pack4_rect: the same bytes.
 */
#include <immintrin.h>

#include "kern_impl.h"
#include "kern_pack4.h"
#include "kern_xpose16.h"

void kern_pack4_avx512(uint8_t *wp, const uint8_t *A, int64_t m, int64_t ld, int64_t len,
                       int64_t j0, int nr, int64_t u0, int nu, uint8_t flip)
{
    int64_t rows = kern_min64(nr, m - j0), units = kern_min64(nu, len / 4 - u0);
    int fr = rows > 0 ? (int)(rows / 16 * 16) : 0, fu = units > 0 ? (int)(units / 16 * 16) : 0;
    const __m512i f = _mm512_set1_epi8((char)flip);
    for (int c0 = 0; c0 < fr; c0 += 16)
        for (int u = 0; u < fu; u += 16) {
            __m512 r[16]; /* 16 rows x 16 units, as bit patterns */
            for (int i = 0; i < 16; i++)
                r[i] = _mm512_loadu_ps((const void *)(A + (j0 + c0 + i) * ld + 4 * (u0 + u)));
            xpose16(r);
            for (int j = 0; j < 16; j++)
                _mm512_storeu_si512((void *)(wp + ((size_t)(u + j) * nr + c0) * 4),
                                    _mm512_xor_si512(_mm512_castps_si512(r[j]), f));
        }
    kern_pack4_rect(wp, A, m, ld, len, j0, nr, u0, 0, fr, fu, nu, flip);
    kern_pack4_rect(wp, A, m, ld, len, j0, nr, u0, fr, nr, 0, nu, flip);
}
