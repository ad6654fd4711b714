/*
 * epi_body.h - the float tile epilogues, included once per ISA by
 * epi_scalar.c, epi_avx2.c and epi_avx512.c, which set EPI_SUFFIX, EPI_STR
 * and, in that ISA's intrinsics: EPI_SQRT_ROW (an IEEE sqrt over a row:
 * gcc will not vectorise sqrtf under -fmath-errno), and from act_simd_body.h
 * (gcc vectorises exp's selects badly or not at all) EPI_GAUSS_I32(t, d,
 * len, g) (t = the Gaussian of the int32 squared distances d),
 * EPI_GAUSS_L2(h, x2, wn, len, g) (h = the Gaussian of max(0, (x2 + wn) +
 * h)), EPI_GAUSS_ROW(h, len, g, sq) (row_act's Gaussian) and
 * EPI_TANH_ROW(h, len). The other loops are plain C over act.h's inline
 * definitions with `omp simd`; every copy performs the same IEEE
 * operations as bnl_act_f (same bits), only wider.
 */
#include "act.h"

#define EPI_CAT2(a, b) a##b
#define EPI_CAT(a, b) EPI_CAT2(a, b)
#define EPI(name) EPI_CAT(name, EPI_SUFFIX)

/* h: len floats holding v on entry, act(v) on return. v >= 0 already for
 * squared distances (callers clamp); L1 distances are clamped here. */
static void EPI(row_act)(float *h, int64_t len, const bnl_actp *p)
{
    const float a = p->a, g = p->g;
    const int sq = p->vk == BNL_V_SQ;
    switch (p->act) {
    case BNL_TRI:
        if (sq)
            EPI_SQRT_ROW(h, len);
        _Pragma("omp simd")
        for (int64_t j = 0; j < len; j++) {
            float d = h[j] > 0.0f ? h[j] : 0.0f;
            float t = 1.0f - d * a;
            h[j] = t > 0.0f ? t : 0.0f;
        }
        break;
    case BNL_GAUSS:
        EPI_GAUSS_ROW(h, len, g, sq);
        break;
    case BNL_TANH:
        EPI_TANH_ROW(h, len);
        break;
    case BNL_IDENT:
    default:
        if (sq) {
            EPI_SQRT_ROW(h, len);
        } else if (p->vk == BNL_V_DIST) {
            _Pragma("omp simd")
            for (int64_t j = 0; j < len; j++)
                h[j] = h[j] > 0.0f ? h[j] : 0.0f;
        }
        break;
    }
}

/* H: rows x cols (ldh) float = act(D), D: rows x cols (ldd) int32. Each
 * piece of a row is converted and activated in a buffer on the stack, then
 * copied to H by the C library's memcpy (about 1 KB a row): 1.1x faster on
 * the 4096^2 x 784 u8 L2 layer (Zen 5) than writing H twice (the values,
 * then their activation), or than vector stores of our own, aligned or
 * not, or streaming (1.02-1.04x slower, 10000 x 8192 x 784 too). A piece of 16 KB keeps gcc from inlining the copy as `rep movsq`
 * (it does for bounds up to 8 KB here), which is as slow. EPI_GAUSS_I32
 * stores straight to H instead: 1.06x faster on that layer (Zen 4) than
 * through the piece. */
#define EPI_PIECE 4096
static void EPI(epi_from_i32)(float *H, int64_t ldh, const int32_t *D, int64_t ldd,
                              int64_t rows, int64_t cols, const bnl_actp *p)
{
    _Alignas(64) float t[EPI_PIECE];
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j0 = 0; j0 < cols; j0 += EPI_PIECE) {
            const int32_t *d = D + i * ldd + j0;
            int64_t len = cols - j0 < EPI_PIECE ? cols - j0 : EPI_PIECE;
            if (p->act == BNL_GAUSS && p->vk == BNL_V_SQ) {
                EPI_GAUSS_I32(H + i * ldh + j0, d, len, p->g);
                continue;
            }
            _Pragma("omp simd")
            for (int64_t j = 0; j < len; j++)
                t[j] = (float)d[j];
            EPI(row_act)(t, len, p);
            memcpy(H + i * ldh + j0, t, sizeof(float) * (size_t)len);
        }
}

/* H: rows x cols (ldh) float, in place. */
static void EPI(epi_inplace_f32)(float *H, int64_t ldh, int64_t rows, int64_t cols,
                                 const bnl_actp *p)
{
    for (int64_t i = 0; i < rows; i++)
        EPI(row_act)(H + i * ldh, cols, p);
}

/* H: rows x cols (ldh) holding -2 x.c; xn: rows, wn: cols squared norms. */
static void EPI(epi_l2_f32)(float *H, int64_t ldh, const float *xn, const float *wn,
                            int64_t rows, int64_t cols, const bnl_actp *p)
{
    for (int64_t i = 0; i < rows; i++) {
        float *h = H + i * ldh;
        const float x2 = xn[i], g = p->g;
        if (p->act == BNL_GAUSS) { /* one pass: the common RBF-L2 case */
            EPI_GAUSS_L2(h, x2, wn, cols, g);
            continue;
        }
        _Pragma("omp simd")
        for (int64_t j = 0; j < cols; j++) {
            float v = (x2 + wn[j]) + h[j];
            h[j] = v > 0.0f ? v : 0.0f;
        }
        EPI(row_act)(h, cols, p);
    }
}

const bnl_epi EPI(bnl_epi_table) = {
    EPI_STR, EPI(epi_from_i32), EPI(epi_inplace_f32), EPI(epi_l2_f32),
};
