/* dist_predict.c - fsvc_predict across the processes: each rank predicts
 * the slice of the samples it loaded, then the predictions and scores are
 * exchanged (zeros elsewhere, OR-ed: exact) so rank 0 holds them all in
 * input order. One process: fsvc_predict. */
#include "tools/dist.h"

#include <string.h>

int cli_dist_predict_at(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                        int64_t first, int64_t N_total, const char *backend, int threads,
                        fsvc_error *err)
{
    const fsvc_dist *D = cli_dist();
    if (D->size <= 1)
        return fsvc_predict(pred, score, m, d, backend, threads, err);
    size_t K = (size_t)m->Kout;
    memset(pred, 0, (size_t)N_total * sizeof *pred);
    if (score) memset(score, 0, (size_t)N_total * K * sizeof *score);
    int rc = d->N > 0 ? fsvc_predict(pred + first, score ? score + (size_t)first * K : NULL, m,
                                     d, backend, threads, err) : FSVC_OK;
    rc = cli_dist_agree(rc, err);
    if (rc) return rc;
    if (D->bor(D->self, pred, (size_t)N_total * sizeof *pred) ||
        (score && D->bor(D->self, score, (size_t)N_total * K * sizeof *score)))
        return fsvc_fail(err, FSVC_ERESOURCE, "predict: gathering the predictions failed");
    return FSVC_OK;
}

int cli_dist_predict(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                     const char *backend, int threads, fsvc_error *err)
{
    const fsvc_dist *D = cli_dist();
    if (D->size <= 1)
        return fsvc_predict(pred, score, m, d, backend, threads, err);
    int64_t lo, hi;
    cli_dist_slice(d->N, D->rank, D->size, &lo, &hi);
    fsvc_dataset v;
    cli_dataset_view(&v, d, lo, hi);
    fsvc_csr part; /* sparse data: the slice's rows (offsets stay absolute) */
    if (d->csr) {
        part = *d->csr;
        part.rows = hi - lo;
        part.row_ptr = d->csr->row_ptr + lo;
        part.nnz = part.row_ptr[part.rows] - part.row_ptr[0];
        v.csr = &part;
    }
    return cli_dist_predict_at(pred, score, m, &v, lo, d->N, backend, threads, err);
}
