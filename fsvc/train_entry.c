/* train_entry.c - the public training calls: the model (fsvc_train_model,
 * train.c), then the probability calibration when p->probability asks
 * (calibrate.c). Apart from both, so that the calibration's fold fits
 * call train.c without a circle of calls. The sample weights are checked
 * here, once. */
#include "calibrate.h"
#include "comm.h"
#include "internal.h"

int fsvc_train_comm(fsvc_model *model, fsvc_train_info *info, const fsvc_dataset *d,
                    int64_t N_total, int64_t first, const fsvc_param *p,
                    const fsvc_comm *comm, fsvc_error *err)
{
    int rc = fsvc_weights_check(d, p, err); /* once, at the entry: folds reuse them */
    if (rc)
        return rc;
    if (p->probability) /* trains without it, then fits it */
        return fsvc_train_calibrated(model, info, d, N_total, first, p, comm, err);
    return fsvc_train_model(model, info, d, N_total, first, p, comm, err);
}

int fsvc_train(fsvc_model *model, fsvc_train_info *info,
               const fsvc_dataset *d, const fsvc_param *p, fsvc_error *err)
{
    return fsvc_train_comm(model, info, d, d->N, 0, p, fsvc_comm_one(), err);
}
