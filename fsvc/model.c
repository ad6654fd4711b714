/* model.c - training parameters, their names and defaults, and freeing a
 * model. */
#include "fsvc.h"

#include <stdlib.h>
#include <string.h>

/* The defaults (`fsvc train` with no options): preprocess auto (sqrt of u8
 * images, with deskew for slanted handwriting; fsvc_train decides), L2
 * Gaussian of radius 0.45 x the rms distance between training samples,
 * select auto, which with the ridge readout and that radius is random: the
 * first 10000 samples of a seeded shuffle (fsvc_train), ridge readout with
 * lambda 1e-5 x mean diag(H^T H) (raised 3x on a non-positive-definite
 * factorisation, fsvc/ridge.c), dtype chosen from the data, the cpu
 * backend on all cores. Accuracy and times measured with them: README.md
 * and results/. The published FSVC behaviour is reached through options
 * (e.g. -R onehot -d l1 -k tri -p 1 -r 7.6 --dtype f64 selects with the
 * global novelty pass). */
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

const char *fsvc_select_name(fsvc_select s)
{
    return s == FSVC_SELECT_PER_CLASS ? "per-class" : s == FSVC_SELECT_GLOBAL ? "global"
         : s == FSVC_SELECT_RANDOM ? "random" : s == FSVC_SELECT_AUTO ? "auto" : "?";
}

int fsvc_select_parse(const char *s, fsvc_select *out)
{
    if (!strcmp(s, "global")) *out = FSVC_SELECT_GLOBAL;
    else if (!strcmp(s, "per-class")) *out = FSVC_SELECT_PER_CLASS;
    else if (!strcmp(s, "random")) *out = FSVC_SELECT_RANDOM;
    else if (!strcmp(s, "auto")) *out = FSVC_SELECT_AUTO;
    else return -1;
    return 0;
}

const char *fsvc_readout_name(fsvc_readout r)
{
    switch (r) {
    case FSVC_READOUT_ONEHOT: return "onehot";
    case FSVC_READOUT_LMS: return "lms";
    case FSVC_READOUT_RIDGE: return "ridge";
    }
    return "?";
}

int fsvc_readout_parse(const char *s, fsvc_readout *out)
{
    if (!strcmp(s, "onehot")) *out = FSVC_READOUT_ONEHOT;
    else if (!strcmp(s, "lms")) *out = FSVC_READOUT_LMS;
    else if (!strcmp(s, "ridge")) *out = FSVC_READOUT_RIDGE;
    else return -1;
    return 0;
}

const char *fsvc_preprocess_name(fsvc_preprocess p)
{
    switch (p) {
    case FSVC_PRE_NONE: return "none";
    case FSVC_PRE_DESKEW: return "deskew";
    case FSVC_PRE_SQRT: return "sqrt";
    case FSVC_PRE_DESKEW_SQRT: return "deskew+sqrt";
    case FSVC_PRE_AUTO: return "auto";
    }
    return "?";
}

int fsvc_preprocess_parse(const char *s, fsvc_preprocess *out)
{
    if (!strcmp(s, "none")) *out = FSVC_PRE_NONE;
    else if (!strcmp(s, "deskew")) *out = FSVC_PRE_DESKEW;
    else if (!strcmp(s, "sqrt")) *out = FSVC_PRE_SQRT;
    else if (!strcmp(s, "deskew+sqrt")) *out = FSVC_PRE_DESKEW_SQRT;
    else if (!strcmp(s, "auto")) *out = FSVC_PRE_AUTO;
    else return -1;
    return 0;
}
