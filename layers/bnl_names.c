/* bnl_names.c - names and parsers of the engine's enums, op checks, and the
 * activation definition bnl_act_apply. */
#include "bnl.h"

#include <math.h>
#include <string.h>

const char *bnl_dist_name(bnl_dist d)
{
    switch (d) {
    case BNL_L1: return "l1";
    case BNL_L2: return "l2";
    case BNL_DOT: return "dot";
    }
    return "?";
}

const char *bnl_act_name(bnl_act a)
{
    switch (a) {
    case BNL_TRI: return "tri";
    case BNL_GAUSS: return "gauss";
    case BNL_TANH: return "tanh";
    case BNL_IDENT: return "ident";
    }
    return "?";
}

const char *bnl_backend_name(bnl_backend b)
{
    switch (b) {
    case BNL_REF: return "ref";
    case BNL_CPU: return "cpu";
    case BNL_CUDA: return "cuda";
    }
    return "?";
}

const char *bnl_arch_name(bnl_arch a)
{
    switch (a) {
    case BNL_ARCH_REF: return "ref";
    case BNL_ARCH_SCALAR: return "scalar";
    case BNL_ARCH_AVX2: return "avx2";
    case BNL_ARCH_AVX512: return "avx512";
    }
    return "?";
}

int bnl_dist_parse(const char *s, bnl_dist *out)
{
    if (!strcmp(s, "l1")) *out = BNL_L1;
    else if (!strcmp(s, "l2")) *out = BNL_L2;
    else if (!strcmp(s, "dot")) *out = BNL_DOT;
    else return -1;
    return 0;
}

int bnl_act_parse(const char *s, bnl_act *out)
{
    if (!strcmp(s, "tri")) *out = BNL_TRI;
    else if (!strcmp(s, "gauss")) *out = BNL_GAUSS;
    else if (!strcmp(s, "tanh")) *out = BNL_TANH;
    else if (!strcmp(s, "ident")) *out = BNL_IDENT;
    else return -1;
    return 0;
}

int bnl_backend_parse(const char *s, bnl_backend *out)
{
    if (!strcmp(s, "ref")) *out = BNL_REF;
    else if (!strcmp(s, "cpu")) *out = BNL_CPU;
    else if (!strcmp(s, "cuda")) *out = BNL_CUDA;
    else return -1;
    return 0;
}

int bnl_arch_parse(const char *s, bnl_arch *out)
{
    if (!strcmp(s, "ref")) *out = BNL_ARCH_REF;
    else if (!strcmp(s, "scalar")) *out = BNL_ARCH_SCALAR;
    else if (!strcmp(s, "avx2")) *out = BNL_ARCH_AVX2;
    else if (!strcmp(s, "avx512")) *out = BNL_ARCH_AVX512;
    else return -1;
    return 0;
}

int bnl_op_check(const bnl_op *op, fsvc_error *err)
{
    if (!op)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no op given");
    if ((unsigned)op->dist > BNL_DOT)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: unknown distance %d", (int)op->dist);
    if ((unsigned)op->act > BNL_IDENT)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: unknown activation %d", (int)op->act);
    if ((unsigned)op->dtype > FSVC_F64)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: unknown dtype %d", (int)op->dtype);
    if ((op->act == BNL_TRI || op->act == BNL_GAUSS) &&
        !(op->radius > 0 && isfinite(op->radius)))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: %s activation needs a radius > 0 (got %g)",
                         bnl_act_name(op->act), op->radius);
    if (op->dist == BNL_DOT && (op->act == BNL_TRI || op->act == BNL_GAUSS))
        return fsvc_fail(err, FSVC_EUSAGE,
                         "bnl: %s activation needs a distance (l1 or l2), not dot",
                         bnl_act_name(op->act));
    if (op->dist != BNL_DOT && op->act == BNL_TANH)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: tanh goes with dot (the MUL neuron), not %s",
                         bnl_dist_name(op->dist));
    return FSVC_OK;
}

double bnl_act_apply(bnl_act act, double d, double radius)
{
    switch (act) {
    case BNL_TRI: {
        double h = 1.0 - d / (BNL_TRI_SCALE * radius);
        return h > 0.0 ? h : 0.0;
    }
    case BNL_GAUSS:
        return exp(-(d * d) / (2.0 * radius * radius));
    case BNL_TANH:
        return tanh(d);
    case BNL_IDENT:
        return d;
    }
    return d;
}
