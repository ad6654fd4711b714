/*
 * test_hgram.c - the tiers' fused block products of pcg (kernels.h
 * hgram: U = H V^T, Y += H^T U) against a double reference, f32 and bf16
 * H, at every row count of a tile and its edges (rb 1..17), widths
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
#include "tests/util/fixtures.h"

#define U_F32 5.9604644775390625e-08 /* 2^-24 */
#define GUARD 24
#define SENTINEL -12345.5f

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static float hval(int bf, uint16_t *bits)
{
    float v = (float)(fx_urand(&rng) * 1.5 - 0.25); /* mostly positive, as a kernel's H */
    if (bf) {
        *bits = bnl_bf16_bits(v);
        uint32_t u = (uint32_t)*bits << 16;
        memcpy(&v, &u, sizeof v);
    }
    return v;
}

/* one shape on one kernel: 0 when within the bounds */
static int check_shape(bnl_hgram_fn g, int bf, int rb, int64_t m, int K)
{
    size_t hn = (size_t)rb * (size_t)m;
    float *Hf = malloc(hn * sizeof *Hf), *V = malloc((size_t)K * m * sizeof *V);
    uint16_t *Hb = malloc(hn * sizeof *Hb + 1);
    float *U = malloc(((size_t)rb * K + GUARD) * sizeof *U);
    float *Y = malloc(((size_t)K * m + GUARD) * sizeof *Y), *Y0 = malloc((size_t)K * m * sizeof *Y0);
    float *U2 = malloc((size_t)rb * K * sizeof *U2), *Y2 = malloc((size_t)K * m * sizeof *Y2);
    assert_true(Hf && V && Hb && U && Y && Y0 && U2 && Y2);
    for (size_t q = 0; q < hn; q++) Hf[q] = hval(bf, &Hb[q]);
    for (size_t q = 0; q < (size_t)K * m; q++) {
        V[q] = (float)(2 * fx_urand(&rng) - 1);
        Y0[q] = (float)(fx_urand(&rng) - 0.5);
    }
    for (int q = 0; q < rb * K + GUARD; q++) U[q] = SENTINEL;
    memcpy(Y, Y0, (size_t)K * m * sizeof *Y);
    for (int q = 0; q < GUARD; q++) Y[(size_t)K * m + q] = SENTINEL;
    const void *H = bf ? (const void *)Hb : (const void *)Hf;
    g(H, bf, rb, m, K, V, U, Y);
    int bad = 0;
    for (int q = rb * K; q < rb * K + GUARD; q++) bad += U[q] != SENTINEL;
    for (int q = 0; q < GUARD; q++) bad += Y[(size_t)K * m + q] != SENTINEL;
    if (bad) fprintf(stderr, "rb %d m %lld K %d bf %d: written past U or Y\n", rb, (long long)m, K, bf);
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
                fprintf(stderr, "rb %d m %lld K %d bf %d: U(%d, %d) = %.9g, want %.9g (bound %.3g)\n",
                        rb, (long long)m, K, bf, r, k, U[r * K + k], s, bound);
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
                fprintf(stderr, "rb %d m %lld K %d bf %d: Y(%d, %lld) = %.9g, want %.9g (bound %.3g)\n",
                        rb, (long long)m, K, bf, k, (long long)a, Y[(size_t)k * m + a], y, bound);
                bad++;
                break;
            }
        }
    memcpy(Y2, Y0, (size_t)K * m * sizeof *Y2);
    g(H, bf, rb, m, K, V, U2, Y2);
    if (!bad && (memcmp(U, U2, (size_t)rb * K * sizeof *U) || memcmp(Y, Y2, (size_t)K * m * sizeof *Y))) {
        fprintf(stderr, "rb %d m %lld K %d bf %d: other bits on a second call\n", rb, (long long)m,
                K, bf);
        bad++;
    }
    free(Hf); free(V); free(Hb); free(U); free(Y); free(Y0); free(U2); free(Y2);
    return bad;
}

static void test_shapes(void **state)
{
    (void)state;
    static const int64_t ms[] = {1, 7, 15, 16, 17, 31, 63, 64, 65, 100, 129, 200, 1000};
    static const int Ks[] = {1, 2, 5, 6, 7, 10, 12, 13};
    const void *seen[BNL_ARCH_COUNT] = {0};
    int tiers = 0, bad = 0;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
        const bnl_kernels *k = bnl_kernels_get((bnl_arch)a);
        if (!bnl_arch_supported((bnl_arch)a) || !k->hgram) continue;
        int dup = 0;
        for (int t = 0; t < tiers; t++) dup |= seen[t] == (const void *)k->hgram;
        if (dup) continue;
        seen[tiers++] = (const void *)k->hgram;
        printf("  %s: the fused products\n", k->name);
        for (int bf = 0; bf < 2; bf++)
            for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
                for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
                    for (int rb = 1; rb <= 17; rb++)
                        bad += check_shape(k->hgram, bf, rb, ms[mi], Ks[ki]) != 0;
    }
    if (!tiers) printf("  no tier with fused products on this CPU: nothing to check\n");
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
