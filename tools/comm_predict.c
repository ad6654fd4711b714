/* comm_predict.c - fsvc_predict across the processes: each rank predicts
 * the slice of the samples it loaded, then the predictions and scores are
 * exchanged (zeros elsewhere, OR-ed: exact) so rank 0 holds them all in
 * input order. One process: fsvc_predict. */
#include "tools/comm.h"
#include "fsvc/embed.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Collective: every rank's (CRC32, length) of `what` against rank 0's:
 * FSVC_OK when all agree, else FSVC_EINPUT on every rank, naming path and
 * the difference on the ranks that differ from rank 0. */
static int same_print(uint64_t crc, uint64_t len, const char *path, const char *what,
                      fsvc_error *err)
{
    const fsvc_comm *D = cli_comm();
    uint64_t mine[2] = { crc, len }, first[2];
    uint64_t *all = calloc((size_t)D->size * 2, sizeof *all);
    int rc = all ? FSVC_OK : fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    rc = cli_comm_agree(rc, err);
    if (!rc && D->allgather(D->self, mine, sizeof mine, all))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: the ranks could not compare their %s", path,
                       what);
    int same = 1;
    for (int r = 1; !rc && r < D->size; r++)
        same = same && !memcmp(all + 2 * r, all, sizeof mine);
    if (!rc) memcpy(first, all, sizeof first);
    free(all);
    if (rc || same) return rc;
    if (!memcmp(mine, first, sizeof mine))
        return fsvc_fail(err, FSVC_EINPUT, FSVC_COMM_ELSEWHERE);
    return fsvc_fail(err, FSVC_EINPUT, "%s: not the %s rank 0 reads (CRC32 %08llx, %llu "
                     "bytes here; %08llx, %llu bytes on rank 0): every process must read the "
                     "same %s", path, what, (unsigned long long)mine[0],
                     (unsigned long long)mine[1], (unsigned long long)first[0],
                     (unsigned long long)first[1], what);
}

int cli_comm_same_data(int rc, const fsvc_dataset *d, const char *path, fsvc_error *err)
{
    rc = cli_comm_agree(rc, err);
    if (rc || cli_comm()->size <= 1) return rc;
    /* the loaded values and labels (the file may differ in form only) */
    size_t xb = d->x ? (size_t)d->N * d->n * fsvc_dtype_size(d->dtype) : 0;
    uLong c = crc32_z(0L, d->x, (z_size_t)xb);
    if (d->csr) { /* sparse: the offsets, columns and values */
        const fsvc_csr *a = d->csr;
        c = crc32_z(c, (const unsigned char *)a->row_ptr, (z_size_t)(a->rows + 1) * sizeof *a->row_ptr);
        c = crc32_z(c, (const unsigned char *)a->col, (z_size_t)a->nnz * sizeof *a->col);
        c = crc32_z(c, (const unsigned char *)a->val, (z_size_t)a->nnz * sizeof *a->val);
        xb += (size_t)a->nnz * (sizeof *a->col + sizeof *a->val);
    }
    if (d->y) c = crc32_z(c, (const unsigned char *)d->y, (z_size_t)d->N * sizeof *d->y);
    return same_print(c, xb, path, "data", err);
}

int cli_comm_same_model(int rc, const fsvc_model *m, const char *mpath, fsvc_error *err)
{
    const fsvc_comm *D = cli_comm();
    rc = cli_comm_agree(rc, err);
    if (rc || D->size <= 1) return rc;
    /* the model's file bytes (the same for the same model, whatever its
     * file's version): their CRC32 and length */
    unsigned char *buf = NULL;
    size_t len = 0;
    uint64_t mine[2] = { 0, 0 };
    rc = fsvc_model_to_bytes(&buf, &len, m, err);
    if (!rc) {
        mine[0] = (uint64_t)crc32_z(0L, buf, (z_size_t)len);
        mine[1] = len;
    }
    fsvc_bytes_free(buf);
    return rc ? cli_comm_agree(rc, err) : same_print(mine[0], mine[1], mpath, "model", err);
}

int cli_comm_predict_at(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                        int64_t first, int64_t N_total, const char *backend, int threads,
                        fsvc_error *err)
{
    const fsvc_comm *D = cli_comm();
    if (D->size <= 1)
        return fsvc_predict(pred, score, m, d, backend, threads, err);
    size_t K = (size_t)m->Kout;
    memset(pred, 0, (size_t)N_total * sizeof *pred);
    if (score) memset(score, 0, (size_t)N_total * K * sizeof *score);
    int rc = d->N > 0 ? fsvc_predict(pred + first, score ? score + (size_t)first * K : NULL, m,
                                     d, backend, threads, err) : FSVC_OK;
    rc = cli_comm_agree(rc, err);
    if (rc) return rc;
    if (D->bor(D->self, pred, (size_t)N_total * sizeof *pred) ||
        (score && D->bor(D->self, score, (size_t)N_total * K * sizeof *score)))
        return fsvc_fail(err, FSVC_ERESOURCE, "predict: gathering the predictions failed");
    return FSVC_OK;
}

int cli_comm_predict(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                     const char *backend, int threads, fsvc_error *err)
{
    const fsvc_comm *D = cli_comm();
    if (D->size <= 1)
        return fsvc_predict(pred, score, m, d, backend, threads, err);
    int64_t lo, hi;
    cli_comm_slice(d->N, D->rank, D->size, &lo, &hi);
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
    return cli_comm_predict_at(pred, score, m, &v, lo, d->N, backend, threads, err);
}
