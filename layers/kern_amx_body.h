/*
 * kern_amx_body.h - GEMMs on the AMX tiles: exact u8 squared L2 and dot
 * (tdpbuud: 4 u8 x u8 products per int32 lane, no offset needed) and the
 * bf16 layer's product (tdpbf16ps: 2 bf16 x bf16 products per f32 lane).
 * One body, two instantiations: kern_amx.c (the amx tier, real tiles) and
 * tests/test_amx_emu.c, whose tile macros emulate the unit so that the
 * blocking, packing, staging and edges are checked on any CPU.
 *
 * The includer defines AMX_SFX (a name suffix) and the tile operations
 *   AMX_CFG(cfg) AMX_LOAD(t, p, stride) AMX_STORE(t, p, stride)
 *   AMX_ZERO(t) AMX_DPBUUD(c, a, b) AMX_DPBF16PS(c, a, b) AMX_RELEASE()
 * Tiles 0-3: the 32 x 32 accumulator (2 x 2 tiles of 16 x 16, int32 or
 * f32); 4-5: 32 samples x 64 bytes of k; 6-7: 16 units of 4 bytes of k x
 * 32 neurons, from a kern_pack4 panel (rows of 128 bytes). Every tile is
 * 16 rows x 64 bytes, so one configuration serves the whole call.
 *   u8:   D = Sx2 + Sw2 - 2 x.w (L2) or x.w (dot), int32 modulo 2^32, exact
 *         while D fits (n <= BNL_L2SQ_U8_MAX_N, which the engine checks);
 *   bf16: C = alpha x.w, f32 sums in the tiles' order (DAZ / FTZ).
 * Loops: samples by AMX_HG (row sums) > neurons by 32 (pack) > k by up to
 * AMX_KB bytes > samples by 32. Sample tiles load straight from X (stride:
 * its row in bytes), except the last partial group of samples and the last
 * partial 64 bytes of k, staged zero-padded; between k blocks the sums
 * wait in D (f32 partial sums round-trip exactly).
 * Stack: 32 KB panel + 2 KB staging + 4 KB accumulator + 4 KB row sums.
 */
#include <stdint.h>
#include <string.h>

#include "kern_impl.h"
#include "kern_pack4.h"

#define AMX_MR 32   /* samples per accumulator */
#define AMX_NR 32   /* neurons per panel */
#define AMX_KS 64   /* bytes of k per tile */
#define AMX_KB 1024 /* bytes of k per block: a 32 KB panel; MNIST's 784 in one */
#define AMX_HG 1024 /* samples per group of row sums */

#define AMX_GLUE2(a, b) a##b
#define AMX_GLUE(a, b) AMX_GLUE2(a, b)
#define AMX_FN(name) AMX_GLUE(name, AMX_SFX)

#ifndef FSVC_AMX_TILECFG
#define FSVC_AMX_TILECFG
/* ldtilecfg's 64-byte operand (palette 1). */
typedef struct amx_tilecfg {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} amx_tilecfg;
#endif

static void AMX_FN(amx_cfg_)(amx_tilecfg *c)
{
    memset(c, 0, sizeof *c);
    c->palette = 1;
    for (int t = 0; t < 8; t++) {
        c->rows[t] = 16;
        c->colsb[t] = 64;
    }
}

#ifndef AMX_PACK /* the panel packing: the includer's vector one (the same bytes) */
#define AMX_PACK kern_pack4
#endif

#ifndef AMX_SUMSQ /* sum x^2 of a row, modulo 2^32: the includer's vector one */
static uint32_t AMX_FN(amx_sumsq_)(const uint8_t *x, int n)
{
    uint32_t s = 0;
    for (int k = 0; k < n; k++) s += (uint32_t)x[k] * x[k];
    return s;
}
#define AMX_SUMSQ(x, n) AMX_FN(amx_sumsq_)(x, n)
#endif

/* Samples i0.. (rows of them), bytes k.. of X as a zero-padded 32 x 64. */
static void AMX_FN(amx_stage_)(uint8_t *xt, const uint8_t *X, int64_t i0, int rows, int n,
                               int64_t k)
{
    int len = (int)kern_min64(AMX_KS, n - k);
    for (int r = 0; r < AMX_MR; r++) {
        uint8_t *o = xt + r * AMX_KS;
        if (r < rows) {
            memcpy(o, X + (i0 + r) * (int64_t)n + k, (size_t)len);
            memset(o + len, 0, (size_t)(AMX_KS - len));
        } else {
            memset(o, 0, AMX_KS);
        }
    }
}

#ifndef FSVC_AMX_KINDS
#define FSVC_AMX_KINDS
enum { AMX_L2, AMX_DOT, AMX_BF16 };
/* the accumulator as the tiles store it: int32 or f32 lanes */
typedef union amx_acc {
    int32_t i[AMX_MR * AMX_NR];
    float f[AMX_MR * AMX_NR];
} amx_acc;
#endif

/* The accumulator (32 x 32) to D (4-byte elements): partial sums, or on
 * the last k block the distance (L2), the dot, or alpha times the bf16
 * sums. Whole rows of 32, then a copy of cols: loops the compiler
 * vectorises (a 32 x 32 block is about 850 cycles of tiles at n = 784; an
 * element-wise finish would cost more than that). */
static void AMX_FN(amx_put_)(void *D, int64_t ldd, amx_acc *ct, int rows, int cols, int last,
                             int kind, const uint32_t *xs, const uint32_t *sw, float alpha)
{
    for (int r = 0; r < rows; r++) {
        int32_t *t = ct->i + r * AMX_NR;
        float *tf = ct->f + r * AMX_NR;
        if (last && kind == AMX_L2) {
            uint32_t x = xs[r];
            for (int c = 0; c < AMX_NR; c++)
                t[c] = (int32_t)(x + sw[c] - 2u * (uint32_t)t[c]);
        } else if (last && kind == AMX_BF16) {
            for (int c = 0; c < AMX_NR; c++)
                tf[c] *= alpha;
        }
        memcpy((char *)D + 4 * r * ldd, t, 4 * (size_t)cols);
    }
}

static void AMX_FN(amx_get_)(amx_acc *ct, const void *D, int64_t ldd, int rows, int cols)
{
    memset(ct, 0, sizeof *ct);
    for (int r = 0; r < rows; r++)
        memcpy(ct->i + r * AMX_NR, (const char *)D + 4 * r * ldd, 4 * (size_t)cols);
}

/* n: bytes per row of W and X (bf16: 2 n2) */
static void AMX_FN(amx_gemm_)(void *D, int64_t ldd, const uint8_t *W, int64_t m,
                              const uint8_t *X, int64_t N, int n, int kind, float alpha)
{
    _Alignas(64) uint8_t wp[AMX_KB * AMX_NR]; /* units x 32 neurons x 4 */
    _Alignas(64) uint8_t xt[AMX_MR * AMX_KS];
    _Alignas(64) amx_acc ct;
    _Alignas(64) amx_tilecfg cfg;
    uint32_t xs[AMX_HG], sw[AMX_NR];
    const int steps = (n + AMX_KS - 1) / AMX_KS;
    const int nb = (steps + AMX_KB / AMX_KS - 1) / (AMX_KB / AMX_KS); /* k blocks */
    const int sb = (steps + nb - 1) / nb;                               /* steps per block */
    const int64_t ldb = AMX_NR * 4;
    AMX_FN(amx_cfg_)(&cfg);
    AMX_CFG(&cfg);
    for (int64_t h0 = 0; h0 < N; h0 += AMX_HG) {
        int64_t h1 = kern_min64(N, h0 + AMX_HG);
        for (int64_t i = h0; i < h1 && kind == AMX_L2; i++)
            xs[i - h0] = AMX_SUMSQ(X + i * (int64_t)n, n);
        for (int64_t j0 = 0; j0 < m; j0 += AMX_NR) {
            int cols = (int)kern_min64(AMX_NR, m - j0);
            for (int c = 0; c < AMX_NR; c++)
                sw[c] = c < cols && kind == AMX_L2 ? AMX_SUMSQ(W + (j0 + c) * (int64_t)n, n) : 0;
            for (int b = 0; b < nb; b++) {
                int s0 = b * sb, ns = (int)kern_min64(sb, steps - s0);
                AMX_PACK(wp, W, m, n, n, j0, AMX_NR, (int64_t)s0 * (AMX_KS / 4),
                         ns * (AMX_KS / 4), 0);
                for (int64_t i0 = h0; i0 < h1; i0 += AMX_MR) {
                    int rows = (int)kern_min64(AMX_MR, h1 - i0);
                    void *dg = (char *)D + 4 * (i0 * ldd + j0);
                    if (b == 0) {
                        AMX_ZERO(0); AMX_ZERO(1); AMX_ZERO(2); AMX_ZERO(3);
                    } else {
                        AMX_FN(amx_get_)(&ct, dg, ldd, rows, cols);
                        AMX_LOAD(0, ct.i, ldb);
                        AMX_LOAD(1, ct.i + 16, ldb);
                        AMX_LOAD(2, ct.i + 16 * AMX_NR, ldb);
                        AMX_LOAD(3, ct.i + 16 * AMX_NR + 16, ldb);
                    }
                    for (int s = 0; s < ns; s++) {
                        int64_t k = (int64_t)(s0 + s) * AMX_KS;
                        const uint8_t *a = X + i0 * (int64_t)n + k;
                        int64_t lda = n;
                        if (rows < AMX_MR || k + AMX_KS > n) {
                            AMX_FN(amx_stage_)(xt, X, i0, rows, n, k);
                            a = xt;
                            lda = AMX_KS;
                        }
                        const uint8_t *bp = wp + (size_t)s * (AMX_KS / 4) * ldb;
                        AMX_LOAD(4, a, lda);
                        AMX_LOAD(5, a + 16 * lda, lda);
                        AMX_LOAD(6, bp, ldb);
                        AMX_LOAD(7, bp + 64, ldb);
                        if (kind == AMX_BF16) {
                            AMX_DPBF16PS(0, 4, 6);
                            AMX_DPBF16PS(1, 4, 7);
                            AMX_DPBF16PS(2, 5, 6);
                            AMX_DPBF16PS(3, 5, 7);
                        } else {
                            AMX_DPBUUD(0, 4, 6);
                            AMX_DPBUUD(1, 4, 7);
                            AMX_DPBUUD(2, 5, 6);
                            AMX_DPBUUD(3, 5, 7);
                        }
                    }
                    AMX_STORE(0, ct.i, ldb);
                    AMX_STORE(1, ct.i + 16, ldb);
                    AMX_STORE(2, ct.i + 16 * AMX_NR, ldb);
                    AMX_STORE(3, ct.i + 16 * AMX_NR + 16, ldb);
                    AMX_FN(amx_put_)(dg, ldd, &ct, rows, cols, b == nb - 1, kind, xs + (i0 - h0),
                                     sw, alpha);
                }
            }
        }
    }
    AMX_RELEASE();
}

void AMX_FN(l2sq_u8_)(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X,
                      int64_t N, int n)
{
    AMX_FN(amx_gemm_)(D, ldd, W, m, X, N, n, AMX_L2, 1.0f);
}

void AMX_FN(dot_u8_)(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X,
                     int64_t N, int n)
{
    AMX_FN(amx_gemm_)(D, ldd, W, m, X, N, n, AMX_DOT, 1.0f);
}

void AMX_FN(dot_bf16_)(float *C, int64_t ldc, const uint16_t *W, int64_t m, const uint16_t *X,
                       int64_t N, int n2, float alpha)
{
    AMX_FN(amx_gemm_)(C, ldc, (const uint8_t *)W, m, (const uint8_t *)X, N, 2 * n2, AMX_BF16,
                      alpha);
}
