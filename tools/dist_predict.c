/* dist_predict.c - fsvc_predict across the processes: each rank predicts
 * its contiguous slice of the samples, then the predictions and scores are
 * exchanged (zeros elsewhere, OR-ed: exact) so rank 0 holds them all in
 * input order. One process: fsvc_predict. */
#include "tools/dist.h"

#include <string.h>

int cli_dist_predict(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                     const char *backend, int threads, fsvc_error *err)
{
    const fsvc_dist *D = cli_dist();
    if (D->size <= 1)
        return fsvc_predict(pred, score, m, d, backend, threads, err);
    int64_t lo, hi;
    cli_dist_slice(d->N, D->rank, D->size, &lo, &hi);
    size_t K = (size_t)m->Kout;
    memset(pred, 0, (size_t)d->N * sizeof *pred);
    if (score) memset(score, 0, (size_t)d->N * K * sizeof *score);
    fsvc_dataset v;
    cli_dataset_view(&v, d, lo, hi);
    int rc = hi > lo ? fsvc_predict(pred + lo, score ? score + (size_t)lo * K : NULL, m, &v,
                                    backend, threads, err) : FSVC_OK;
    rc = cli_dist_agree(rc, err);
    if (rc) return rc;
    if (D->bor(D->self, pred, (size_t)d->N * sizeof *pred) ||
        (score && D->bor(D->self, score, (size_t)d->N * K * sizeof *score)))
        return fsvc_fail(err, FSVC_ERESOURCE, "predict: gathering the predictions failed");
    return FSVC_OK;
}
