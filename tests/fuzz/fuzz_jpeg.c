/* fuzz_jpeg.c - libFuzzer target for the JPEG reader (datasets/jpeg.c):
 * bytes in memory through fmemopen, through libjpeg-turbo's error and
 * warning paths (every warning is an error) and both outputs. The first
 * byte picks the output (bit 0: RGB, else gray) and whether the JPEG
 * signature is added when missing (bit 1), to get past the first check.
 * Inputs whose frame header claims more than 2^20 pixels are skipped (a
 * memory stream has no size to bound the claim; they only test malloc).
 * Build and run: make fuzz. */
#include "datasets/loaders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The pixels a baseline or progressive frame header (SOF0..SOF2) claims,
 * 0 when none is found. */
static uint64_t claimed(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 8 < n; i++)
        if (p[i] == 0xFF && p[i + 1] >= 0xC0 && p[i + 1] <= 0xC2)
            return (uint64_t)(p[i + 5] << 8 | p[i + 6]) * (uint64_t)(p[i + 7] << 8 | p[i + 8]);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 1)
        return 0;
    int mode = in[0];
    in++;
    size--;
    int add = (mode & 2) && !(size >= 3 && in[0] == 0xFF && in[1] == 0xD8 && in[2] == 0xFF);
    uint8_t *data = malloc(size + 3 + 1);
    if (!data)
        return 0;
    if (add)
        memcpy(data, "\xFF\xD8\xFF", 3);
    memcpy(data + (add ? 3 : 0), in, size);
    size += add ? 3 : 0;
    if (claimed(data, size) > (1u << 20)) {
        free(data);
        return 0;
    }
    FILE *f = fmemopen(data, size ? size : 1, "rb");
    if (!f) {
        free(data);
        return 0;
    }
    unsigned char *pix = NULL;
    int rows, cols, ch = mode & 1 ? 3 : 1;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = ds_jpeg_read_fp(&pix, &rows, &cols, ch, f, "fuzz.jpg", &err);
    fclose(f);
    free(data);
    if (rc == FSVC_OK) {
        unsigned sum = 0;
        for (size_t i = 0; i < (size_t)rows * (size_t)cols * ch; i++)
            sum += pix[i];
        if (rows < 1 || cols < 1 || (sum && !pix))
            abort();
        free(pix);
    } else if (err.msg[0] == 0 || strchr(err.msg, '\n') || pix) {
        abort();
    }
    return 0;
}
