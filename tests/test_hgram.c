/*
 * test_hgram.c - the tiers' kernels over pcg's cached H.
 * f16 conversions: round_hd.h's bnl_f16_bits against an independent
 * oracle (the nearest multiple of the binade's quantum in double, ties to
 * even) on every sign, exponent and top-10-mantissa pattern with the cut
 * bits at and around the tie, and the subnormal binades sampled densely;
 * each tier's f16_round against bnl_f16_bits on the same values (one call,
 * a tail); bnl_f16_float and each tier's f16_widen on all 65536 patterns.
 * Fused block products (kernels.h
 * hgram: U = H V^T, Y += H^T U) against a double reference, f32, bf16
 * and f16 H (values around f16's subnormal edge too), at every row count of a tile and its edges (rb 1..17), widths
 * around the 16-lane vectors and the 64-column Y tiles, K around the
 * 6-column tiles (1..13); nothing written past U's rb x K or Y's K x m,
 * the same bits on a second call.
 * Bounds: U(r, k) sums ceil(m/16) products per lane, then 4 adds:
 *   |dU| <= (ceil(m/16) + 5) u sum_a |H V|;
 * Y(k, a) adds rb products of the kernel's own U to Y0 in row order:
 *   |dY| <= (rb + 2) u (|Y0| + sum_r |H U|).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/bnl.h"
#include "layers/kernels.h"
#include "layers/round_hd.h"
#include "tests/util/archs.h"
#include "tests/util/fixtures.h"

#define U_F32 5.9604644775390625e-08 /* 2^-24 */
#define GUARD 24
#define SENTINEL -12345.5f

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static float hval(int fmt, uint16_t *bits)
{
    float v = (float)(fx_urand(&rng) * 1.5 - 0.25); /* mostly positive, as a kernel's H */
    if (fx_urand(&rng) < 0.1) v *= 1e-4f; /* tiny: f16 subnormals */
    if (fmt == BNL_H_F16) {
        *bits = bnl_f16_bits(v);
        v = bnl_f16_float(*bits);
    } else if (fmt) {
        *bits = bnl_bf16_bits(v);
        uint32_t u = (uint32_t)*bits << 16;
        memcpy(&v, &u, sizeof v);
    }
    return v;
}

/* one shape on one kernel: 0 when within the bounds */
static int check_shape(bnl_hgram_fn g, int fmt, int rb, int64_t m, int K)
{
    size_t hn = (size_t)rb * (size_t)m;
    float *Hf = malloc(hn * sizeof *Hf), *V = malloc((size_t)K * m * sizeof *V);
    uint16_t *Hb = malloc(hn * sizeof *Hb + 1);
    float *U = malloc(((size_t)rb * K + GUARD) * sizeof *U);
    float *Y = malloc(((size_t)K * m + GUARD) * sizeof *Y), *Y0 = malloc((size_t)K * m * sizeof *Y0);
    float *U2 = malloc((size_t)rb * K * sizeof *U2), *Y2 = malloc((size_t)K * m * sizeof *Y2);
    assert_true(Hf && V && Hb && U && Y && Y0 && U2 && Y2);
    for (size_t q = 0; q < hn; q++) Hf[q] = hval(fmt, &Hb[q]);
    for (size_t q = 0; q < (size_t)K * m; q++) {
        V[q] = (float)(2 * fx_urand(&rng) - 1);
        Y0[q] = (float)(fx_urand(&rng) - 0.5);
    }
    for (int q = 0; q < rb * K + GUARD; q++) U[q] = SENTINEL;
    memcpy(Y, Y0, (size_t)K * m * sizeof *Y);
    for (int q = 0; q < GUARD; q++) Y[(size_t)K * m + q] = SENTINEL;
    const void *H = fmt ? (const void *)Hb : (const void *)Hf;
    g(H, fmt, rb, m, K, V, U, Y);
    int bad = 0;
    for (int q = rb * K; q < rb * K + GUARD; q++) bad += U[q] != SENTINEL;
    for (int q = 0; q < GUARD; q++) bad += Y[(size_t)K * m + q] != SENTINEL;
    if (bad) fprintf(stderr, "rb %d m %lld K %d fmt %d: written past U or Y\n", rb, (long long)m, K, fmt);
    for (int r = 0; r < rb && !bad; r++)
        for (int k = 0; k < K; k++) {
            double s = 0, sa = 0;
            for (int64_t a = 0; a < m; a++) {
                double p = (double)Hf[(size_t)r * m + a] * V[(size_t)k * m + a];
                s += p;
                sa += fabs(p);
            }
            double bound = (double)((m + 15) / 16 + 5) * U_F32 * sa;
            if (!(fabs(U[r * K + k] - s) <= bound)) {
                fprintf(stderr, "rb %d m %lld K %d fmt %d: U(%d, %d) = %.9g, want %.9g (bound %.3g)\n",
                        rb, (long long)m, K, fmt, r, k, U[r * K + k], s, bound);
                bad++;
            }
        }
    for (int k = 0; k < K && !bad; k++)
        for (int64_t a = 0; a < m; a++) {
            double y = Y0[(size_t)k * m + a], ya = fabs(y);
            for (int r = 0; r < rb; r++) {
                double p = (double)Hf[(size_t)r * m + a] * U[r * K + k];
                y += p;
                ya += fabs(p);
            }
            double bound = (double)(rb + 2) * U_F32 * ya;
            if (!(fabs(Y[(size_t)k * m + a] - y) <= bound)) {
                fprintf(stderr, "rb %d m %lld K %d fmt %d: Y(%d, %lld) = %.9g, want %.9g (bound %.3g)\n",
                        rb, (long long)m, K, fmt, k, (long long)a, Y[(size_t)k * m + a], y, bound);
                bad++;
                break;
            }
        }
    memcpy(Y2, Y0, (size_t)K * m * sizeof *Y2);
    g(H, fmt, rb, m, K, V, U2, Y2);
    if (!bad && (memcmp(U, U2, (size_t)rb * K * sizeof *U) || memcmp(Y, Y2, (size_t)K * m * sizeof *Y))) {
        fprintf(stderr, "rb %d m %lld K %d fmt %d: other bits on a second call\n", rb, (long long)m,
                K, fmt);
        bad++;
    }
    free(Hf); free(V); free(Hb); free(U); free(Y); free(Y0); free(U2); free(Y2);
    return bad;
}

/* The f16 bits nearest f (ties to even), from doubles: the oracle. */
static uint16_t f16_oracle(float f)
{
    uint16_t sign = signbit(f) ? 0x8000u : 0;
    double a = fabs((double)f);
    if (isnan(f)) return 0; /* not asked */
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u);
    int e;
    frexp(a, &e); /* a = x 2^e, x in [0.5, 1) */
    int eb = e - 1 < -14 ? -14 : e - 1; /* the binade (subnormals: -14) */
    double q = ldexp(1.0, eb - 10), k = rint(a / q); /* RNE, the default mode */
    double v = k * q;
    if (v < 0x1p-14) return (uint16_t)(sign | (uint16_t)(v / 0x1p-24));
    frexp(v, &e);
    return (uint16_t)(sign | (uint16_t)((e - 1 + 15) << 10) |
                      (uint16_t)((v / ldexp(1.0, e - 1) - 1.0) * 1024.0));
}

static double f16_value(uint16_t h) /* the oracle's decoding (finite h) */
{
    int e = (h >> 10) & 31, mnt = h & 0x3ff;
    double v = e ? ldexp(1024.0 + mnt, e - 25) : ldexp((double)mnt, -24);
    return h & 0x8000u ? -v : v;
}

static void test_f16_convert(void **state)
{
    (void)state;
    static const uint32_t low[] = {0, 1, 0xfff, 0x1000, 0x1001, 0x1fff};
    size_t cap = ((size_t)1 << 19) * 6 + 2 * 13 * ((1u << 23) / 61 + 1) + 8, n = 0;
    float *in = malloc(cap * sizeof *in);
    uint16_t *ref = malloc(cap * sizeof *ref), *got = malloc(cap * sizeof *got);
    float *wide = malloc(65536 * sizeof *wide);
    uint16_t *all = malloc(65536 * sizeof *all);
    assert_true(in && ref && got && wide && all);
    for (uint32_t hi = 0; hi < (1u << 19); hi++)
        for (size_t l = 0; l < sizeof low / sizeof *low; l++) {
            uint32_t u = hi << 13 | low[l];
            memcpy(&in[n++], &u, sizeof u);
        }
    for (uint32_t sg = 0; sg < 2; sg++) /* f16's subnormal binades and their edges */
        for (uint32_t ex = 101; ex <= 113; ex++)
            for (uint32_t mt = 0; mt < (1u << 23); mt += 61) {
                uint32_t u = sg << 31 | ex << 23 | mt;
                memcpy(&in[n++], &u, sizeof u);
            }
    int bad = 0;
    for (size_t q = 0; q < n; q++) {
        ref[q] = bnl_f16_bits(in[q]);
        uint32_t u;
        memcpy(&u, &in[q], sizeof u);
        int nan = isnan(in[q]), ok = nan ? ref[q] == (uint16_t)((u >> 16 & 0x8000u) | 0x7e00u |
                                                                 (u >> 13 & 0x3ffu))
                                         : ref[q] == f16_oracle(in[q]);
        if (!ok && bad++ < 5)
            fprintf(stderr, "bnl_f16_bits(%08x) = %04x, oracle %04x\n", u, ref[q],
                    nan ? 0 : f16_oracle(in[q]));
    }
    for (uint32_t h = 0; h < 65536; h++) {
        all[h] = (uint16_t)h;
        float f = bnl_f16_float((uint16_t)h);
        int e = (h >> 10) & 31;
        int ok = e == 31 ? ((h & 0x3ff) ? isnan(f) && (bnl_f32_bits(f) & 0x00400000u) &&
                                              (bnl_f32_bits(f) >> 13 & 0x3ffu) == ((h & 0x3ffu) | 0x200u)
                                        : isinf(f) && !!signbit(f) == !!(h & 0x8000u))
                         : (double)f == f16_value((uint16_t)h) && !!signbit(f) == !!(h & 0x8000u);
        if (!ok && bad++ < 5) fprintf(stderr, "bnl_f16_float(%04x) = %a\n", h, f);
    }
    const void *seen[BNL_ARCH_COUNT] = {0};
    int tiers = 0;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
        const bnl_kernels *k = fx_own_tier(a, (const void *)bnl_kernels_get((bnl_arch)a)->f16_round,
                                        seen, &tiers);
        if (!k) continue;
        printf("  %s: f16 rounding and widening\n", k->name);
        size_t cnt = n - 3; /* a tail */
        got[cnt] = 0xAAAA;
        k->f16_round(got, in, cnt);
        for (size_t q = 0; q < cnt; q++)
            if (got[q] != ref[q] && bad++ < 5)
                fprintf(stderr, "%s f16_round at %zu: %04x, bnl_f16_bits %04x\n", k->name, q,
                        got[q], ref[q]);
        if (got[cnt] != 0xAAAA && bad++ < 5) fprintf(stderr, "%s f16_round: past count\n", k->name);
        wide[65531] = -1.0f;
        k->f16_widen(wide, all, 65531);
        for (uint32_t h = 0; h < 65531; h++) {
            uint32_t w = bnl_f32_bits(wide[h]), want = bnl_f32_bits(bnl_f16_float((uint16_t)h));
            if (w != want && bad++ < 5)
                fprintf(stderr, "%s f16_widen(%04x) = %08x, want %08x\n", k->name, h, w, want);
        }
        if (wide[65531] != -1.0f && bad++ < 5) fprintf(stderr, "%s f16_widen: past count\n", k->name);
    }
    if (!tiers) printf("  no tier with vector f16 conversions here: the scalar ones only\n");
    free(in); free(ref); free(got); free(wide); free(all);
    assert_int_equal(bad, 0);
}

static void test_shapes(void **state)
{
    (void)state;
    static const int64_t ms[] = {1, 7, 15, 16, 17, 31, 63, 64, 65, 100, 129, 200, 1000};
    static const int Ks[] = {1, 2, 5, 6, 7, 10, 12, 13};
    const void *seen[BNL_ARCH_COUNT] = {0};
    int tiers = 0, bad = 0;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
        const bnl_kernels *k = fx_own_tier(a, (const void *)bnl_kernels_get((bnl_arch)a)->hgram,
                                        seen, &tiers);
        if (!k) continue;
        printf("  %s: the fused products\n", k->name);
        for (int fmt = BNL_H_F32; fmt <= BNL_H_F16; fmt++)
            for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
                for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
                    for (int rb = 1; rb <= 17; rb++)
                        bad += check_shape(k->hgram, fmt, rb, ms[mi], Ks[ki]) != 0;
    }
    if (!tiers) printf("  no tier with fused products on this CPU: nothing to check\n");
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_convert),
        cmocka_unit_test(test_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
