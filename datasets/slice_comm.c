/* slice_comm.c - the one exchange of the slice loaders (idx_slice.c,
 * libsvm_slice.c, slice.c): every rank's status, then, when all are fine,
 * every rank's record, through the caller's allgather (datasets/ knows no
 * MPI). */
#include "datasets/loaders.h"

#include <stdlib.h>
#include <string.h>

int ds_slice_max(const fsvc_slice_comm *c, int64_t mine, int64_t *max)
{
    int64_t stack[256], *all = c->size <= 256 ? stack : malloc((size_t)c->size * sizeof *all);
    if (!all) return -1;
    int bad = c->allgather(c->self, &mine, sizeof mine, all);
    *max = mine;
    for (int r = 0; !bad && r < c->size; r++)
        if (all[r] > *max) *max = all[r];
    if (all != stack) free(all);
    return bad ? -1 : 0;
}

int ds_slice_exchange(const fsvc_slice_comm *c, int rc, const void *mine, size_t bytes,
                      void *all, fsvc_error *err)
{
    /* the statuses first (the same 8 bytes on every rank), then the
     * payload only when every rank is fine (so no rank sends a payload
     * that another could not receive) */
    int64_t worst;
    if (ds_slice_max(c, rc, &worst))
        return rc ? rc : fsvc_fail(err, FSVC_ERESOURCE, "the exchange of the slices failed");
    if (worst)
        return rc ? rc : fsvc_fail(err, (int)worst, FSVC_SLICE_ELSEWHERE);
    if (bytes && c->allgather(c->self, mine, bytes, all))
        return fsvc_fail(err, FSVC_ERESOURCE, "the exchange of the slices failed");
    return FSVC_OK;
}
