/*
 * kern_xpose16.h - the in-register 16 x 16 transpose of 32-bit elements
 * (AVX-512), shared by the f32 L1 kernel's row sums and the panel packing
 * of kern_pack_avx512.c (integers pass through the float shuffles as bit
 * patterns). static inline: each ISA file compiles it with its own flags.
 */
#ifndef FSVC_KERN_XPOSE16_H
#define FSVC_KERN_XPOSE16_H

#include <immintrin.h>

/* In-register 16 x 16 transpose: r[i] = row i -> r[k] = column k (64 shuffles). */
static inline __attribute__((always_inline)) void xpose16(__m512 r[16])
{
    __m512 t[16], u[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) { /* u[4i+c], 128-bit lane L: rows 4i..4i+3 of column 4L+c */
        __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 2]);
        __m512d c = _mm512_castps_pd(t[4 * i + 1]), d = _mm512_castps_pd(t[4 * i + 3]);
        u[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
        u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
        u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
        u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
    }
    for (int c = 0; c < 4; c++) {
        __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
        __m512 v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
        __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        __m512 v3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
        r[c] = _mm512_shuffle_f32x4(v0, v2, 0x88);
        r[c + 8] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
        r[c + 4] = _mm512_shuffle_f32x4(v1, v3, 0x88);
        r[c + 12] = _mm512_shuffle_f32x4(v1, v3, 0xDD);
    }
}

#endif /* FSVC_KERN_XPOSE16_H */
