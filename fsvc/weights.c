/* weights.c - sample weights (fsvc_dataset.weight): their check at the
 * training entry, the all-ones case dropped (so weights of 1 are the
 * unweighted model on every backend and solver), and the weighted mean
 * of the regression targets, the weighted sample count. */
#include <stdlib.h>
#include "internal.h"
#include "comm.h"

#include <math.h>

int fsvc_weights_check(const fsvc_dataset *d, const fsvc_param *p, fsvc_error *err)
{
    for (int64_t i = 0; d->weight && i < d->N; i++)
        if (!(d->weight[i] > 0) || !isfinite(d->weight[i]))
            return fsvc_fail(err, FSVC_EINPUT, "%s: sample %lld has weight %g; sample weights "
                             "must be finite and > 0", d->source, (long long)i + 1,
                             d->weight[i]);
    if (p && p->readout == FSVC_READOUT_ONEHOT && fsvc_weights_real(d))
        return fsvc_fail(err, FSVC_EUSAGE, "train: sample weights need a readout that is "
                         "fitted (-R ridge or lms); the onehot readout fits nothing");
    return FSVC_OK;
}

const double *fsvc_weights_or_null(const double *w, int64_t n)
{
    for (int64_t i = 0; w && i < n; i++)
        if (w[i] != 1)
            return w;
    return NULL;
}

int64_t fsvc_weighted_count(const double *sw, int64_t N, int64_t count)
{
    if (!sw || N < 1) return count;
    double wsum = 0;
    for (int64_t i = 0; i < N; i++) wsum += sw[i];
    double c = (double)count * wsum / (double)N;
    return c >= 1 ? (int64_t)llround(c) : 1;
}

const double *fsvc_weights_real(const fsvc_dataset *d)
{
    return fsvc_weights_or_null(d->weight, d->N);
}

int fsvc_center_targets(double **yc_out, double *mean, const fsvc_dataset *d,
                        const fsvc_comm *comm, fsvc_error *err)
{
    double *yc = *yc_out = malloc((size_t)(d->N > 0 ? d->N : 1) * sizeof *yc);
    if (!yc) return fsvc_fail(err, FSVC_ERESOURCE, "train: out of memory");
    const double *w = fsvc_weights_real(d);
    double s[2] = {0, 0}; /* sum w y, sum w (w = 1: the plain mean's sums) */
    for (int64_t i = 0; i < d->N; i++) {
        s[0] += w ? w[i] * d->y[i] : d->y[i];
        s[1] += w ? w[i] : 1;
    }
    if (comm && comm->size > 1 && comm->sum(comm->self, s, 2, FSVC_F64))
        return fsvc_fail(err, FSVC_ERESOURCE, "train: the sum of the targets failed");
    *mean = s[1] > 0 ? s[0] / s[1] : 0;
    for (int64_t i = 0; i < d->N; i++)
        yc[i] = d->y[i] - *mean;
    return FSVC_OK;
}
