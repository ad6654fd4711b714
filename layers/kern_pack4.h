/*
 * kern_pack4.h - the panel packing shared by the dot-product micro-kernels
 * whose instruction sums groups of 4 bytes per 32-bit lane (vpdpbusd: 4 u8
 * x s8 products; vdpbf16ps: 2 bf16 x bf16 products). Plain C, static
 * inline: each ISA file compiles it with its own flags.
 *
 * A panel of nr rows j0.. of A (rows of `len` bytes, stride `ld` bytes),
 * 4-byte units u0 .. u0+nu-1, unit-major:
 *   wp[(u * nr + c) * 4 + b] = A[(j0 + c) * ld + 4 (u0 + u) + b] ^ flip
 * so one 64-byte load gives 16 rows x 1 unit, what the instruction eats
 * against one unit of a sample broadcast to every lane. Bytes past `len`
 * and rows past m are 0 (not 0 ^ flip): they add nothing to any sum.
 */
#ifndef FSVC_KERN_PACK4_H
#define FSVC_KERN_PACK4_H

#include <stdint.h>
#include <string.h>

/* The rows c_lo..c_hi-1 and units u_lo..u_hi-1 of the panel (the rest of
 * the panel untouched): the edges of kern_pack4_avx512's transposes. */
static inline void kern_pack4_rect(uint8_t *wp, const uint8_t *A, int64_t m, int64_t ld,
                                   int64_t len, int64_t j0, int nr, int64_t u0, int c_lo,
                                   int c_hi, int u_lo, int u_hi, uint8_t flip)
{
    const uint32_t flip4 = 0x01010101u * flip;
    for (int c = c_lo; c < c_hi; c++) {
        uint8_t *o = wp + (size_t)c * 4;
        if (j0 + c >= m) {
            for (int u = u_lo; u < u_hi; u++) memset(o + (size_t)u * nr * 4, 0, 4);
            continue;
        }
        const uint8_t *a = A + (j0 + c) * ld;
        for (int u = u_lo; u < u_hi; u++) {
            int64_t k = 4 * (u0 + u);
            uint32_t v = 0;
            if (k + 4 <= len) {
                memcpy(&v, a + k, 4);
                v ^= flip4;
            } else { /* the last, partial unit */
                for (int b = 0; k + b < len; b++)
                    v |= (uint32_t)(uint8_t)(a[k + b] ^ flip) << (8 * b);
            }
            memcpy(o + (size_t)u * nr * 4, &v, 4);
        }
    }
}

static inline void kern_pack4(uint8_t *wp, const uint8_t *A, int64_t m, int64_t ld,
                              int64_t len, int64_t j0, int nr, int64_t u0, int nu,
                              uint8_t flip)
{
    kern_pack4_rect(wp, A, m, ld, len, j0, nr, u0, 0, nr, 0, nu, flip);
}

#endif /* FSVC_KERN_PACK4_H */
