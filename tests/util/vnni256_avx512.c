/* vnni256_avx512.c - the avxvnni tier's kernels (layers/kern_u8_avxvnni.c)
 * built on AVX-512 VNNI's 256-bit EVEX vpdpbusd, the same operation as
 * AVX-VNNI's VEX form. A CPU with AVX-512 VNNI but no AVX-VNNI (Zen 4, Ice
 * Lake) would otherwise never run that kernel's blocking, packing and
 * edge stores; test_kernels runs these there (vnni256.h). */
#include <immintrin.h> /* first: the rename below must not reach it */

#define _mm256_dpbusd_avx_epi32 _mm256_dpbusd_epi32
#define l2sq_u8_avxvnni_4x24 l2sq_u8_vnni256_4x24
#define dot_u8_avxvnni_4x24 dot_u8_vnni256_4x24
#include "layers/kern_u8_avxvnni.c"
