/* comm.c - the one-process fsvc_comm (every collective is the identity)
 * and the row and text gathers on top of any fsvc_comm. */
#include "comm.h"

#include <stdlib.h>
#include <string.h>

static int one_sum(void *self, void *buf, size_t n, fsvc_dtype t) { return FSVC_OK; }
static int one_bor(void *self, void *buf, size_t bytes) { return FSVC_OK; }
static int one_agree(void *self, int status) { return status; }
static int one_allgather(void *self, const void *mine, size_t bytes, void *all)
{
    memmove(all, mine, bytes);
    return FSVC_OK;
}

const fsvc_comm *fsvc_comm_one(void)
{
    static const fsvc_comm one = { 0, 1, NULL, one_sum, one_bor, one_agree,
                                      one_allgather };
    return &one;
}

int fsvc_comm_rows(void *out, const void *X, size_t row, const int64_t *idx, int64_t cnt,
                   const fsvc_slice *at, fsvc_error *err)
{
    int64_t first = at->first;
    const fsvc_comm *comm = at->comm;
    memset(out, 0, (size_t)cnt * row);
    for (int64_t j = 0; j < cnt; j++)
        if (idx[j] >= first && idx[j] < first + at->Nloc)
            memcpy((char *)out + (size_t)j * row, (const char *)X + (size_t)(idx[j] - first) * row, row);
    if (comm->size > 1 && comm->bor(comm->self, out, (size_t)cnt * row))
        return fsvc_fail(err, FSVC_ERESOURCE, "train: the exchange of %lld rows failed",
                         (long long)cnt);
    return FSVC_OK;
}

int fsvc_comm_agreed(const fsvc_comm *comm, int rc, fsvc_error *err)
{
    if (comm->size <= 1) return rc;
    int any = comm->agree(comm->self, rc);
    if (any && !rc) rc = fsvc_fail(err, any, FSVC_COMM_ELSEWHERE);
    return rc;
}

/* out of memory for `what` on this rank or another, in err */
static int agreed_memory(const fsvc_comm *comm, int rc, fsvc_error *err, const char *what)
{
    if (rc) fsvc_fail(err, rc, "out of memory for %s", what);
    return fsvc_comm_agreed(comm, rc, err);
}

int fsvc_comm_concat(char **out, size_t *len, const char *mine, size_t n,
                     const fsvc_comm *comm, fsvc_error *err)
{
    int K = comm->size;
    *out = NULL;
    /* the lengths: each rank's in its place, summed (exact below 2^53) */
    double *L = calloc((size_t)K, sizeof *L);
    int rc = agreed_memory(comm, L ? FSVC_OK : FSVC_ERESOURCE, err, "the text lengths");
    if (rc) { free(L); return rc; }
    L[comm->rank] = (double)n;
    if (K > 1 && comm->sum(comm->self, L, (size_t)K, FSVC_F64)) {
        free(L);
        return fsvc_fail(err, FSVC_ERESOURCE, "the exchange of the text lengths failed");
    }
    size_t total = 0, off = 0;
    for (int r = 0; r < K; r++) {
        len[r] = (size_t)L[r];
        if (r < comm->rank) off += len[r];
        total += len[r];
    }
    free(L);
    /* the texts: each rank's at its offset, zero elsewhere, OR-ed */
    char *buf = calloc(total + 1, 1);
    rc = agreed_memory(comm, buf ? FSVC_OK : FSVC_ERESOURCE, err, "the texts of the processes");
    if (rc) { free(buf); return rc; }
    if (n) memcpy(buf + off, mine, n);
    if (K > 1 && total && comm->bor(comm->self, buf, total)) {
        free(buf);
        return fsvc_fail(err, FSVC_ERESOURCE, "the exchange of the texts failed");
    }
    *out = buf;
    return FSVC_OK;
}
