/* bnl_names.c - one name table per engine enum (their _name and _parse
 * read it) and the op check. */
#include "bnl_types.h"

#include <math.h>
#include <string.h>

const fsvc_name bnl_dist_names[] = {
    {"l1", BNL_L1}, {"l2", BNL_L2}, {"dot", BNL_DOT}, {NULL, 0}};
const fsvc_name bnl_act_names[] = {
    {"tri", BNL_TRI}, {"gauss", BNL_GAUSS}, {"tanh", BNL_TANH}, {"ident", BNL_IDENT}, {NULL, 0}};
const fsvc_name bnl_backend_names[] = {
    {"ref", BNL_REF}, {"cpu", BNL_CPU}, {"cuda", BNL_CUDA}, {NULL, 0}};
const fsvc_name bnl_arch_names[] = { /* in rank order (bnl_arch_rank) */
    {"ref", BNL_ARCH_REF}, {"scalar", BNL_ARCH_SCALAR}, {"avx2", BNL_ARCH_AVX2},
    {"avxvnni", BNL_ARCH_AVXVNNI}, {"avx512", BNL_ARCH_AVX512},
    {"avx512vnni", BNL_ARCH_AVX512VNNI}, {"avx512bf16", BNL_ARCH_AVX512BF16},
    {"onednn", BNL_ARCH_ONEDNN}, {"amx", BNL_ARCH_AMX}, {NULL, 0}};
const fsvc_name bnl_precision_names[] = {
    {"full", BNL_PREC_FULL}, {"tf32", BNL_PREC_TF32}, {"bf16", BNL_PREC_BF16}, {NULL, 0}};

/* name and parse for enum T from its table */
#define NAME_FNS(T)                                                             \
    const char *T##_name(T v) { return fsvc_name_of(T##_names, (int)v); }     \
    int T##_parse(const char *s, T *out)                                       \
    {                                                                          \
        int v;                                                                 \
        if (fsvc_name_parse(T##_names, s, &v))                                 \
            return -1;                                                         \
        *out = (T)v;                                                           \
        return 0;                                                              \
    }

NAME_FNS(bnl_dist)
NAME_FNS(bnl_act)
NAME_FNS(bnl_backend)
NAME_FNS(bnl_arch)
NAME_FNS(bnl_precision)

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
    if ((unsigned)op->precision > BNL_PREC_BF16)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: unknown precision %d", (int)op->precision);
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
