/* model_fixup.h - makes bytes look like an intact model file so that the
 * model reader's field checks are reached: the magic, the payload length
 * and the CRC32 of the payload are rewritten, the format version is kept.
 * Shared by the fuzz harness (tests/fuzz/fuzz_model.c) and the unit tests
 * that craft hostile models (tests/test_model_bad.c).
 *
 *   "FSVCMODL" | u32 version | u64 payload bytes | payload | u32 CRC32
 */
#ifndef FSVC_TESTS_MODEL_FIXUP_H
#define FSVC_TESTS_MODEL_FIXUP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#define MODEL_FIXUP_MIN 24 /* header (20) + CRC (4) */

/* buf: len >= MODEL_FIXUP_MIN bytes, rewritten in place. */
static inline void model_fixup(unsigned char *buf, size_t len)
{
    uint64_t plen = len - MODEL_FIXUP_MIN;
    memcpy(buf, "FSVCMODL", 8);
    for (int i = 0; i < 8; i++) buf[12 + i] = (unsigned char)(plen >> (8 * i));
    uint32_t crc = (uint32_t)crc32_z(0L, buf + 20, (z_size_t)plen);
    for (int i = 0; i < 4; i++) buf[len - 4 + i] = (unsigned char)(crc >> (8 * i));
}

#endif
