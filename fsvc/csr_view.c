/* csr_view.c - the CSR helpers of fsvc/ (sparse.h): a view of rows for
 * the engine's sparse layer, and the check of a model's sparse centroids
 * (model.c, sparse_train.c, sparse_predict.c all use them). */
#include "sparse.h"

bnl_csr fsvc_csr_view(const fsvc_csr *a, int64_t i0, int64_t b)
{
    bnl_csr v = {b, a->row_ptr + i0, a->col, a->val};
    return v;
}

int fsvc_csr_check(const fsvc_csr *a, int n, const char *name, fsvc_error *err)
{
    if (!a->row_ptr || !a->col || !a->val || a->nnz < 0 || a->row_ptr[0] != 0 ||
        a->row_ptr[a->rows] != a->nnz)
        return fsvc_fail(err, FSVC_EINPUT, "%s: sparse centroids with bad offsets", name);
    bnl_csr v = fsvc_csr_view(a, 0, a->rows);
    return bnl_csr_check(&v, n, name, err);
}
