/* fuzz_libsvm.c - libFuzzer target for the LIBSVM text parser
 * (datasets/libsvm.c), text in memory. On success the dense matrix must be
 * N x n with finite values and sorted class values. Build and run: make fuzz. */
#include "datasets/loaders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_BYTES (1u << 24)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1); /* the parser wants a NUL after the text */
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    int force = 0;
    if (size && data[0] == 'F') /* sometimes force n */
        force = 8;
    fsvc_dataset d;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = ds_libsvm_parse(&d, text, size, "fuzz", force, FUZZ_MAX_BYTES, &err);
    if (rc == FSVC_OK) {
        /* only LF and CRLF line ends load (a last CR may lack its LF) */
        for (size_t i = 0; i + 1 < size; i++)
            if (data[i] == '\r' && data[i + 1] != '\n')
                abort();
        const double *x = d.x;
        if (d.N < 1 || d.n < 1 || (force && d.n != force) || !d.y || d.K < 1)
            abort();
        for (size_t i = 0; i < (size_t)d.N * (size_t)d.n; i++)
            if (!isfinite(x[i]))
                abort();
        for (int k = 1; k < d.K; k++)
            if (!(d.class_values[k - 1] < d.class_values[k]))
                abort();
        for (int64_t i = 0; i < d.N; i++)
            if (d.class_values[d.cls[i]] != d.y[i])
                abort();
        fsvc_dataset_free(&d);
    } else if (err.msg[0] == 0 || strchr(err.msg, '\n') || d.x || d.y) {
        abort();
    }
    free(text);
    return 0;
}
