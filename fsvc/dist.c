/* dist.c - the one-process fsvc_dist (every collective is the identity)
 * and the row gather on top of any fsvc_dist. */
#include "dist.h"

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

const fsvc_dist *fsvc_dist_one(void)
{
    static const fsvc_dist one = { 0, 1, NULL, one_sum, one_bor, one_agree,
                                      one_allgather };
    return &one;
}

int fsvc_dist_rows(void *out, const void *X, size_t row, const int64_t *idx, int64_t cnt,
                   int64_t first, int64_t N, const fsvc_dist *dist, fsvc_error *err)
{
    memset(out, 0, (size_t)cnt * row);
    for (int64_t j = 0; j < cnt; j++)
        if (idx[j] >= first && idx[j] < first + N)
            memcpy((char *)out + (size_t)j * row, (const char *)X + (size_t)(idx[j] - first) * row, row);
    if (dist->size > 1 && dist->bor(dist->self, out, (size_t)cnt * row))
        return fsvc_fail(err, FSVC_ERESOURCE, "train: the exchange of %lld rows failed",
                         (long long)cnt);
    return FSVC_OK;
}
