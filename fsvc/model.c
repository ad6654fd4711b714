/* model.c - training parameters, their names and defaults, and freeing a
 * model. */
#include "fsvc.h"

#include <stdlib.h>
#include <string.h>

/* The defaults reach the accuracy targets on MNIST and Fashion-MNIST:
 * sqrt (and deskew for slanted handwriting) of u8 images, L2 Gaussian of
 * radius 0.45 x the rms distance, 10000 centroids from a seeded shuffle,
 * ridge readout with lambda 1e-5 x mean diag(H^T H) (raised 3x on a
 * non-positive-definite factorisation). Measured on the 2-core dev machine
 * (no options): MNIST 98.70% (train 107 s, predict 4.8 s), Fashion-MNIST
 * 89.92% (train 67 s, predict 3.7 s). Recipe from the accuracy study. The published FSVC behaviour is
 * reached through options (e.g. -R onehot -d l1 -k tri -p 1 -r 7.6
 * --dtype f64 selects with the global novelty pass). */
void fsvc_param_default(fsvc_param *p)
{
    memset(p, 0, sizeof *p);
    p->dist = 1;               /* L2 */
    p->act = 1;                /* Gaussian */
    p->radius = 0;             /* radius_rms x rms distance */
    p->radius_rms = 0.45;
    p->prag = 1.0;
    p->select = FSVC_SELECT_AUTO;
    p->readout = FSVC_READOUT_RIDGE;
    p->lambda = 1e-5;
    p->eta = 0.01;
    p->epochs = 1;
    p->scale = FSVC_SCALE_NONE;
    p->dtype = -1;
    p->preprocess = FSVC_PRE_AUTO;
    p->backend = "cpu";
    p->threads = 0;
}

void fsvc_free_model(fsvc_model *model)
{
    if (!model)
        return;
    free(model->class_values);
    free(model->C);
    free(model->lab);
    free(model->R);
    memset(model, 0, sizeof *model);
}

const fsvc_name fsvc_select_names[] = {
    {"global", FSVC_SELECT_GLOBAL}, {"per-class", FSVC_SELECT_PER_CLASS},
    {"random", FSVC_SELECT_RANDOM}, {"auto", FSVC_SELECT_AUTO}, {NULL, 0}};
const fsvc_name fsvc_readout_names[] = {
    {"onehot", FSVC_READOUT_ONEHOT}, {"lms", FSVC_READOUT_LMS}, {"ridge", FSVC_READOUT_RIDGE},
    {NULL, 0}};
const fsvc_name fsvc_preprocess_names[] = {
    {"none", FSVC_PRE_NONE}, {"deskew", FSVC_PRE_DESKEW}, {"sqrt", FSVC_PRE_SQRT},
    {"deskew+sqrt", FSVC_PRE_DESKEW_SQRT}, {"auto", FSVC_PRE_AUTO}, {NULL, 0}};

/* name and parse for enum fsvc_T from its table */
#define NAME_FNS(T)                                                             \
    const char *fsvc_##T##_name(fsvc_##T v) { return fsvc_name_of(fsvc_##T##_names, (int)v); } \
    int fsvc_##T##_parse(const char *s, fsvc_##T *out)                         \
    {                                                                          \
        int v;                                                                 \
        if (fsvc_name_parse(fsvc_##T##_names, s, &v))                          \
            return -1;                                                         \
        *out = (fsvc_##T)v;                                                    \
        return 0;                                                              \
    }

NAME_FNS(select)
NAME_FNS(readout)
NAME_FNS(preprocess)
