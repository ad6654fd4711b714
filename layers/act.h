/*
 * act.h - the activation functions, as the comment at the top of bnl.h
 * defines them, and the epilogue tables.
 *
 * bnl_act_f / bnl_act_d are the scalar definitions: the reference backend
 * (ref.c), the f64 epilogues (epi.c) and the tests call them. The float
 * tile epilogues (epi_body.h, included once per ISA by epi_scalar.c,
 * epi_avx2.c, epi_avx512.c) restate the same IEEE operations in the same
 * order as row loops (calling bnl_expf / bnl_tanhf from here); with no FMA
 * contraction under -std=c11 they give the same bits. v is what the
 * distance stage produced: the L1 distance, the squared L2 distance, or
 * the dot product (see bnl_vkind).
 */
#ifndef FSVC_ACT_H
#define FSVC_ACT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "act_hd.h"
#include "bnl_types.h"

typedef enum { BNL_V_DIST = 0, BNL_V_SQ = 1, BNL_V_DOT = 2 } bnl_vkind;

typedef struct bnl_actp {
    bnl_act act;
    bnl_vkind vk;   /* what v is */
    float a;        /* tri: (float)(1 / (BNL_TRI_SCALE r)) */
    float g;        /* gauss: (float)(1 / (2 r^2)) */
    double s;       /* tri, f64: BNL_TRI_SCALE r (the triangle's support) */
    double g2;      /* gauss, f64: 2 r^2 */
} bnl_actp;

static inline bnl_actp bnl_actp_make(const bnl_op *op)
{
    bnl_actp p;
    double r = op->radius > 0 ? op->radius : 1.0;
    p.act = op->act;
    p.vk = op->dist == BNL_L1 ? BNL_V_DIST : op->dist == BNL_L2 ? BNL_V_SQ : BNL_V_DOT;
    p.a = (float)(1.0 / (BNL_TRI_SCALE * r));
    p.g = (float)(1.0 / (2.0 * r * r));
    p.s = BNL_TRI_SCALE * r;
    p.g2 = 2.0 * r * r;
    return p;
}

/* The definitions live in act_hd.h, shared with the device. */
static inline float bnl_expf(float x) { return bnl_hd_expf(x); }
static inline float bnl_tanhf(float x) { return bnl_hd_tanhf(x); }

/* Float outputs (u8, f32). */
static inline float bnl_act_f(const bnl_actp *p, float v)
{
    return bnl_hd_act_f(p->act, p->vk, p->a, p->g, v);
}

/* Double outputs (f64), libm. */
static inline double bnl_act_d(const bnl_actp *p, double v)
{
    return bnl_hd_act_d(p->act, p->vk, p->s, p->g2, v);
}

/* ---- tile epilogues (epi_*.c, one copy per ISA) ---- */
typedef struct bnl_epi {
    const char *name;
    /* H = act(D): H rows x cols (ldh) float, D rows x cols (ldd) int32 */
    void (*from_i32)(float *H, int64_t ldh, const int32_t *D, int64_t ldd,
                     int64_t rows, int64_t cols, const bnl_actp *p);
    /* H = act(H) in place, float */
    void (*inplace_f32)(float *H, int64_t ldh, int64_t rows, int64_t cols,
                        const bnl_actp *p);
    /* GEMM L2: H holds -2 x.c; v = max(0, (xn[i] + wn[j]) + H), H = act(v)
     * (xn: rows, wn: cols squared norms) */
    void (*l2_f32)(float *H, int64_t ldh, const float *xn, const float *wn,
                   int64_t rows, int64_t cols, const bnl_actp *p);
} bnl_epi;

const bnl_epi *bnl_epi_get(bnl_arch arch);

/* f64 epilogues (epi.c, through bnl_act_d): same shapes, double, libm. */
void bnl_epi_f64(double *H, int64_t ldh, int64_t rows, int64_t cols,
                 const bnl_actp *p);
void bnl_epi_f64_l2(double *H, int64_t ldh, const double *xn, const double *wn,
                    int64_t rows, int64_t cols, const bnl_actp *p);

#endif /* FSVC_ACT_H */
