/*
 * act_simd_body.h - the Gaussian and tanh of act_hd.h (bnl_hd_act_f, with
 * bnl_hd_expf) over one vector of floats, and over rows for the tile
 * epilogues (epi_body.h's hooks): the same IEEE operations in the same
 * order, unfused, so the same bits; a row's last len % ACT_W values by the
 * scalar definitions. Included by act_avx512.h, act_avx2.h and act_sse2.h,
 * which name the vector type (ACT_V, ACT_M its compare mask, ACT_W its
 * floats), the suffix (ACT_SFX) and the operations (ACT_*); undefined at
 * the end.
 */
#include "act.h"

#define ACT_CAT2(a, b) a##b
#define ACT_CAT(a, b) ACT_CAT2(a, b)
#define ACT_FN(name) ACT_CAT(name, ACT_SFX)

/* bnl_hd_expf's polynomial and scaling for -87 <= x <= 88, no clamps: the
 * callers below never need them (a NaN x gives x's NaN, as there) */
static inline ACT_V ACT_FN(bnl_exp_core)(ACT_V x)
{
    const ACT_V sh = ACT_SET1(12582912.0f);
    ACT_V t = ACT_ADD(ACT_MUL(x, ACT_SET1(1.44269504088896341f)), sh);
    ACT_V k = ACT_SUB(t, sh);
    ACT_V r = ACT_SUB(x, ACT_MUL(k, ACT_SET1(0.693359375f)));
    r = ACT_SUB(r, ACT_MUL(k, ACT_SET1(-2.12194440e-4f)));
    ACT_V z = ACT_MUL(r, r);
    ACT_V p = ACT_SET1(1.9875691500e-4f);
    p = ACT_ADD(ACT_MUL(p, r), ACT_SET1(1.3981999507e-3f));
    p = ACT_ADD(ACT_MUL(p, r), ACT_SET1(8.3334519073e-3f));
    p = ACT_ADD(ACT_MUL(p, r), ACT_SET1(4.1665795894e-2f));
    p = ACT_ADD(ACT_MUL(p, r), ACT_SET1(1.6666665459e-1f));
    p = ACT_ADD(ACT_MUL(p, r), ACT_SET1(5.0000001201e-1f));
    p = ACT_ADD(ACT_ADD(ACT_MUL(p, z), r), ACT_SET1(1.0f));
    return ACT_MUL(p, ACT_POW2(k)); /* 2^k: k is whole and within [-126, 127] */
}

/* exp(-(v g)) for squared distances v >= 0 (the callers clamp, NaN to 0)
 * and g > 0: the argument is never above 0 nor NaN, and below -87 the
 * result is 0 by the last select, so bnl_hd_expf's clamps and NaN guard
 * (there for C's float-to-int conversion) change no bit here. */
static inline ACT_V ACT_FN(bnl_gauss)(ACT_V v, ACT_V g)
{
    ACT_V x = ACT_XOR(ACT_MUL(v, g), ACT_SET1(-0.0f));
    ACT_M under = ACT_LT(x, ACT_SET1(-87.0f));
    return ACT_SEL(under, ACT_FN(bnl_exp_core)(x), ACT_SET1(0.0f));
}

/* bnl_hd_tanhf: exp's argument 2 min(|x|, 10) is within [0, 20] */
static inline ACT_V ACT_FN(bnl_tanh)(ACT_V x)
{
    const ACT_V one = ACT_SET1(1.0f), two = ACT_SET1(2.0f), sign = ACT_SET1(-0.0f);
    const ACT_V ten = ACT_SET1(10.0f);
    ACT_M neg = ACT_LT(x, ACT_SET1(0.0f));
    ACT_V ax = ACT_SEL(neg, x, ACT_XOR(x, sign));
    ACT_V ac = ACT_SEL(ACT_GT(ax, ten), ax, ten);
    ACT_V e = ACT_FN(bnl_exp_core)(ACT_MUL(two, ac));
    ACT_V big = ACT_SUB(one, ACT_DIV(two, ACT_ADD(e, one)));
    ACT_V z = ACT_MUL(ax, ax);
    ACT_V poly = ACT_ADD(ACT_SET1(-0.333333333333f), ACT_MUL(z, ACT_SET1(0.133333333333f)));
    ACT_V small = ACT_ADD(ax, ACT_MUL(ax, ACT_MUL(z, poly)));
    ACT_V t = ACT_SEL(ACT_LT(ax, ACT_SET1(0.0625f)), big, small);
    return ACT_SEL(neg, t, ACT_XOR(t, sign));
}

/* max(0, v), NaN to 0, as the C select v > 0 ? v : 0 */
#define ACT_POS(v) ACT_KEEP(ACT_GT((v), ACT_SET1(0.0f)), (v))

/* t = the Gaussian of len int32 squared distances d (t may be H itself) */
static inline void ACT_FN(bnl_gauss_i32_row)(float *t, const int32_t *d, int64_t len, float g)
{
    const ACT_V vg = ACT_SET1(g);
    int64_t j = 0;
    for (; j + ACT_W <= len; j += ACT_W)
        ACT_STORE(t + j, ACT_FN(bnl_gauss)(ACT_LOADI(d + j), vg));
    for (; j < len; j++)
        t[j] = bnl_expf(-((float)d[j] * g));
}

/* h = the Gaussian of max(0, (x2 + wn) + h): the L2 GEMM's epilogue */
static inline void ACT_FN(bnl_gauss_l2_row)(float *h, float x2, const float *wn, int64_t len,
                                            float g)
{
    const ACT_V vg = ACT_SET1(g), vx = ACT_SET1(x2);
    int64_t j = 0;
    for (; j + ACT_W <= len; j += ACT_W) {
        ACT_V v = ACT_ADD(ACT_ADD(vx, ACT_LOAD(wn + j)), ACT_LOAD(h + j));
        ACT_STORE(h + j, ACT_FN(bnl_gauss)(ACT_POS(v), vg));
    }
    for (; j < len; j++) {
        float v = (x2 + wn[j]) + h[j];
        h[j] = bnl_expf(-((v > 0.0f ? v : 0.0f) * g));
    }
}

/* row_act's Gaussian in place: sq, h holds v; else v = d d, d = max(0, h) */
static inline void ACT_FN(bnl_gauss_row)(float *h, int64_t len, float g, int sq)
{
    const ACT_V vg = ACT_SET1(g);
    int64_t j = 0;
    for (; j + ACT_W <= len; j += ACT_W) {
        ACT_V v = ACT_LOAD(h + j);
        if (!sq) {
            v = ACT_POS(v);
            v = ACT_MUL(v, v);
        }
        ACT_STORE(h + j, ACT_FN(bnl_gauss)(v, vg));
    }
    for (; j < len; j++) {
        float d = h[j] > 0.0f ? h[j] : 0.0f;
        h[j] = bnl_expf(-((sq ? h[j] : d * d) * g));
    }
}

static inline void ACT_FN(bnl_tanh_row)(float *h, int64_t len)
{
    int64_t j = 0;
    for (; j + ACT_W <= len; j += ACT_W)
        ACT_STORE(h + j, ACT_FN(bnl_tanh)(ACT_LOAD(h + j)));
    for (; j < len; j++)
        h[j] = bnl_tanhf(h[j]);
}

#undef ACT_POS
#undef ACT_W
#undef ACT_LOAD
#undef ACT_STORE
#undef ACT_LOADI
#undef ACT_KEEP
#undef ACT_CAT2
#undef ACT_CAT
#undef ACT_FN
#undef ACT_V
#undef ACT_M
#undef ACT_SFX
#undef ACT_SET1
#undef ACT_ADD
#undef ACT_SUB
#undef ACT_MUL
#undef ACT_DIV
#undef ACT_XOR
#undef ACT_LT
#undef ACT_GT
#undef ACT_SEL
#undef ACT_POW2
