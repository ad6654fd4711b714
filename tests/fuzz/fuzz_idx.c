/* fuzz_idx.c - libFuzzer target for the IDX parser (datasets/idx.c), bytes
 * in memory. The first byte picks the path: even -> the rest is parsed as
 * it is (raw IDX, or gzip when it starts with 1f 8b: corrupt streams);
 * odd -> the rest is gzip-compressed first, so that the IDX parser behind
 * a valid inflate stream is explored too; with bit 1 also set, a byte of
 * garbage follows the stream and the parse must fail. Build and run:
 * make fuzz. */
#include "datasets/loaders.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define FUZZ_MAX_BYTES (1u << 24) /* keep allocations well under -rss_limit_mb */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0] & 1;
    data++;
    size--;
    unsigned char *buf = NULL;
    size_t len = size;
    if (mode) {
        uLongf cap = compressBound((uLong)size) + 32;
        z_stream z;
        memset(&z, 0, sizeof z);
        buf = malloc(cap);
        if (!buf || deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
                                 Z_DEFAULT_STRATEGY) != Z_OK) {
            free(buf);
            return 0;
        }
        z.next_in = (unsigned char *)data;
        z.avail_in = (uInt)size;
        z.next_out = buf;
        z.avail_out = (uInt)cap;
        int rc = deflate(&z, Z_FINISH);
        len = cap - z.avail_out;
        deflateEnd(&z);
        if (data[-1] & 2)
            buf[len++] = 'x'; /* cap has room: compressBound + 32 */
        if (rc != Z_STREAM_END) {
            free(buf);
            return 0;
        }
    }
    ds_idx a;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = ds_idx_parse(&a, mode ? buf : data, len, "fuzz", FUZZ_MAX_BYTES, &err);
    if (rc == FSVC_OK && mode && (data[-1] & 2))
        abort(); /* trailing garbage after the gzip stream was accepted */
    if (rc == FSVC_OK) {
        /* touch every element: the claimed size must really be there */
        size_t bytes = (size_t)a.count * ds_idx_type_size(a.type);
        unsigned sum = 0;
        for (size_t i = 0; i < bytes; i++)
            sum += ((const unsigned char *)a.data)[i];
        if (a.rank < 1 || a.rank > 4 || a.count < 1 || (sum && !a.data))
            abort();
        ds_idx_free(&a);
    } else if (err.msg[0] == 0 || strchr(err.msg, '\n') || a.data) {
        abort(); /* every failure leaves one line and nothing allocated */
    }
    free(buf);
    return 0;
}
