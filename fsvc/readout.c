/* readout.c - the fixed one-hot readout and online LMS of FSVC (Dogaru &
 * Dogaru 2016): W[j][k] = (lab_j == k); then `epochs` passes over the
 * samples in file order with 0/1 targets and no bias,
 * W += eta * outer(z, T_i - z.W).
 * A learning rate too large for the data makes the error grow without
 * bound: the pass stops at the first error that is not finite and says so
 * (FSVC_EINPUT: lower -e), rather than leaving NaN weights behind.
 * Each epoch is one engine call (bnl_lms_epoch: on a device that offers
 * it H never comes back, only R and the status; else the CPU table's).
 * Sample weights make sample i's step eta w_i (the CPU table's epoch). */
#include "internal.h"
#include "solver.h"

#include <string.h>

void fsvc_readout_onehot(double *R, const int *lab, int64_t m, int K)
{
    memset(R, 0, (size_t)m * K * sizeof *R);
    for (int64_t j = 0; j < m; j++)
        R[j * K + lab[j]] = 1.0;
}

static int diverged(fsvc_error *err, int ep, int64_t i, double eta)
{
    return fsvc_fail(err, FSVC_EINPUT, "lms: the LMS readout diverged (NaN or infinite weights "
                     "at epoch %d, sample %lld) with learning rate %g: lower the learning rate "
                     "(-e)", ep, (long long)i, eta);
}

int fsvc_readout_lms(double *R, const fsvc_ridge_problem *pb, double eta, int epochs,
                     int progress, fsvc_error *err)
{
    int64_t N = pb->N;
    int rc = FSVC_OK;
    for (int ep = 0; ep < epochs && !rc; ep++) {
        int64_t bad = -1;
        rc = bnl_lms_epoch_w(pb->ctx, pb->op, R, pb->C, pb->m, pb->X, pb->cls, pb->sw, N,
                             pb->n, pb->K, eta, &bad, err);
        if (!rc && bad >= 0)
            rc = diverged(err, ep + 1, bad + 1, eta);
        if (!rc && progress)
            fsvc_printf("\rlms: epoch %d/%d, %lld/%lld samples   ", ep + 1, epochs,
                        (long long)N, (long long)N);
    }
    if (progress)
        fsvc_printf("\n");
    return rc;
}
