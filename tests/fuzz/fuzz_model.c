/* fuzz_model.c - libFuzzer target for the model reader (fsvc/model_io.c,
 * fsvc_model_parse over memory). The first byte picks the path: even ->
 * the rest is fixed up as an intact file (magic, payload length and CRC32
 * rewritten, tests/fuzz/model_fixup.h) so the fuzzer reaches every field
 * check behind the CRC; odd -> the rest is parsed as it is (header, CRC
 * and length checks). On success the model must pass fsvc_model_check and
 * its arrays are read whole; on failure the message is one line and the
 * model is left empty.
 *
 * Links: fsvc/model_io.c fsvc/model.c fsvc/error.c datasets/io.c (zlib).
 * By hand: clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *   -D_GNU_SOURCE -std=c11 tests/fuzz/fuzz_model.c fsvc/model_io.c \
 *   fsvc/model.c fsvc/error.c datasets/io.c -lz -lm -o fuzz_model */
#include "fsvc/fsvc.h"
#include "tests/fuzz/model_fixup.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int raw = data[0] & 1;
    data++;
    size--;
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (!raw && size >= MODEL_FIXUP_MIN)
        model_fixup(buf, size);
    fsvc_model m;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = fsvc_model_parse(&m, buf, size, "fuzz", &err);
    if (rc == FSVC_OK) {
        fsvc_error e2;
        if (fsvc_model_check(&m, "fuzz", &e2) != FSVC_OK)
            abort();
        /* touch every value: the claimed sizes must really be there */
        size_t bytes = m.C ? (size_t)m.m * m.n * fsvc_dtype_size(m.dtype) : 0;
        unsigned sum = 0;
        for (size_t i = 0; i < bytes; i++)
            sum += ((const unsigned char *)m.C)[i];
        double s = 0;
        for (int64_t q = 0; m.Cs && q < m.Cs->nnz; q++) /* a sparse model's centroids */
            s += m.Cs->col[q] + (double)m.Cs->val[q];
        for (size_t q = 0; q < (size_t)m.m * m.Kout; q++)
            s += m.R[q];
        for (int64_t j = 0; j < m.m; j++)
            sum += (unsigned)m.lab[j];
        char t[FSVC_MODEL_MAX_NAME + 1];
        for (int k = 0; k < m.K; k++)
            sum += (unsigned)strlen(fsvc_model_class_text(&m, k, t, sizeof t));
        volatile double sink_s = s;
        volatile unsigned sink = sum;
        (void)sink_s; (void)sink;
        fsvc_free_model(&m);
    } else if (err.msg[0] == 0 || strchr(err.msg, '\n') || m.C || m.Cs || m.R || m.lab ||
               m.class_values || m.class_names) {
        abort(); /* every failure leaves one line and an empty model */
    }
    free(buf);
    return 0;
}
