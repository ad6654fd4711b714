/* fuzz_png.c - libFuzzer target for the PNG reader (datasets/png.c): bytes
 * in memory through fmemopen, exercising libpng's error longjmp path and
 * the gray conversion. Inputs whose IHDR claims more than 2^20 pixels are
 * skipped (they only test malloc). Build and run: make fuzz. */
#include "datasets/datasets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 24) { /* signature, IHDR length+type, then width, height */
        uint64_t w = (uint64_t)data[16] << 24 | data[17] << 16 | data[18] << 8 | data[19];
        uint64_t h = (uint64_t)data[20] << 24 | data[21] << 16 | data[22] << 8 | data[23];
        if (w * h > (1u << 20))
            return 0;
    }
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    unsigned char *pix;
    int rows, cols;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = ds_png_read_gray_fp(&pix, &rows, &cols, f, "fuzz.png", &err);
    fclose(f);
    if (rc == FSVC_OK) {
        unsigned sum = 0;
        for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
            sum += pix[i];
        if (rows < 1 || cols < 1 || (sum && !pix))
            abort();
        free(pix);
    } else if (err.msg[0] == 0 || strchr(err.msg, '\n') || pix) {
        abort();
    }
    return 0;
}
