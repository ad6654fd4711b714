/* fuzz_view.c - libFuzzer target for the array entry points of the Python
 * package (fsvc/embed.c: fsvc_train_view, fsvc_predict_view), whose sizes
 * come from NumPy shapes as 64-bit integers (issue 26 item 6: they were
 * cut to 32 bits). Input: byte 0 (even: train, odd: predict), byte 1 the
 * element type, then N, n, rows, cols as little-endian int64 (missing
 * bytes are 0), the rest the pool the values and labels are drawn from.
 *
 * The contract checked: sizes that can hold no array (N or n < 1, n over
 * FSVC_DENSE_MAX_N, a shape that is not n, an unknown type) are refused,
 * with a one-line message, before x is read: such calls get a 1-byte x,
 * which ASan would catch being read past. Sizes that do hold an array
 * small enough (at most 64 KiB) get an x of exactly N x n elements; the
 * call may then succeed or fail, with one line. Larger valid sizes are
 * skipped (the library would rightly read them whole). */
#include "fsvc/embed.h"
#include "fsvc/fsvc.h"
#include "datasets/fsvc_data.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BYTES ((uint64_t)1 << 16)

static int64_t get64(const uint8_t **p, size_t *left)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t b = *left ? **p : 0;
        if (*left) { (*p)++; (*left)--; }
        v |= b << (8 * i);
    }
    return (int64_t)v;
}

/* A 2-class, 4-feature model to predict with (made once). */
static fsvc_model *model(void)
{
    static fsvc_model *m;
    if (m) return m;
    static const double x[8 * 4] = {0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0,
                                    0, 0, 1, 1, 1, 1, 0, 0, 0.5, 0, 0, 0, 1, 0.5, 1, 1};
    static const double y[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    fsvc_param *p = fsvc_param_alloc(0, 0);
    fsvc_model *t = fsvc_model_alloc();
    fsvc_error err;
    if (!p || !t || fsvc_train_view(t, NULL,
                                    &(fsvc_array_view){x, 8, 4, FSVC_F64, 0, 0, y, NULL},
                                    p, &err)) abort();
    fsvc_param_release(p);
    return m = t;
}

static void one_line(int rc, const fsvc_error *err)
{
    if (rc && (!err->msg[0] || strchr(err->msg, '\n'))) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    int predict = data[0] & 1, dtype = (int8_t)data[1];
    const uint8_t *p = data + 2;
    size_t left = size - 2;
    int64_t N = get64(&p, &left), n = get64(&p, &left), rows = get64(&p, &left),
            cols = get64(&p, &left);
    size_t es = dtype == FSVC_U8 ? 1 : dtype == FSVC_F32 ? 4 : dtype == FSVC_F64 ? 8 : 0;
    int n_ok = n >= 1 && n <= FSVC_DENSE_MAX_N; /* then rows * cols cannot overflow */
    int shape_ok = n_ok && (rows == 0 ? cols >= 0 && cols <= n
                                      : rows > 0 && cols > 0 && rows <= n && cols <= n &&
                                        rows * cols == n);
    int valid = N >= 1 && n_ok && es && shape_ok;
    uint64_t bytes = 0;
    if (valid) {
        if ((uint64_t)N > MAX_BYTES || (uint64_t)N * (uint64_t)n * es > MAX_BYTES) return 0;
        bytes = (uint64_t)N * (uint64_t)n * es;
    }
    unsigned char *x = malloc(bytes ? bytes : 1);
    double *y = malloc((valid ? (size_t)N : 1) * sizeof *y);
    if (!x || !y) abort();
    for (uint64_t i = 0; i < (bytes ? bytes : 1); i++) x[i] = left ? p[i % left] : (uint8_t)i;
    for (int64_t i = 0; i < (valid ? N : 1); i++) y[i] = left ? p[(size_t)i % left] % 3 : i % 2;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc;
    if (predict) {
        int64_t rowsN = valid ? N : 1;
        int *pred = malloc((size_t)rowsN * sizeof *pred);
        double *score = malloc((size_t)rowsN * 2 * sizeof *score);
        if (!pred || !score) abort();
        rc = fsvc_predict_view(pred, score, model(),
                               &(fsvc_array_view){x, N, n, dtype, rows, cols, NULL, NULL},
                               "cpu", 1, &err);
        free(pred);
        free(score);
    } else {
        fsvc_param *par = fsvc_param_alloc(0, 0);
        fsvc_model *m = fsvc_model_alloc();
        if (!par || !m) abort();
        fsvc_param_set(par, "threads", "1", &err);
        rc = fsvc_train_view(m, NULL,
                             &(fsvc_array_view){x, N, n, dtype, rows, cols, y, NULL}, par, &err);
        fsvc_model_release(m);
        fsvc_param_release(par);
    }
    if (!valid && rc == FSVC_OK) abort(); /* read an array it was not given */
    one_line(rc, &err);
    free(x);
    free(y);
    return 0;
}
