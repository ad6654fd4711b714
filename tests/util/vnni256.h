/* vnni256.h - the avxvnni kernels on AVX-512 VNNI (vnni256_avx512.c): run
 * them only where bnl_arch_supported(BNL_ARCH_AVX512VNNI). */
#ifndef FSVC_TESTS_VNNI256_H
#define FSVC_TESTS_VNNI256_H

#include <stdint.h>

void l2sq_u8_vnni256_4x24(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                          const uint8_t *X, int64_t N, int n);
void dot_u8_vnni256_4x24(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                         const uint8_t *X, int64_t N, int n);

#endif
