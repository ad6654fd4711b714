/*
 * test_tri.c - the tiers' block updates of the f32 triangular solves
 * (kernels.h tri_fwd: B -= L X; tri_back: B -= L^T X; chol.c), each tier
 * that has them on this CPU, against a double reference:
 * - exact: small integers (every partial sum exact in f32), so any order
 *   must give the reference's value bit for bit: a wrong index, a lost
 *   tail lane or a skipped column shows as a difference;
 * - rounded: uniform values, within the bound of the kernels' sums:
 *   forward, len fused steps from B; backward, ceil(len / lanes) per
 *   lane, a 16-lane tree (4 adds) and the subtraction, so for both
 *   |dB| <= (len + 6) u (|B0| + sum |L X|);
 * at every row count around the tiles (1..40), lengths around the vectors
 * and the 8-column groups, K 1..13 and 24, 25 (tiles of 12 and 6); leading
 * dimensions past the shapes, whose padding must stay untouched; the same
 * bits on a second call.
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
#include "tests/util/archs.h"
#include "tests/util/fixtures.h"

#define U_F32 5.9604644775390625e-08 /* 2^-24 */
#define SENTINEL -12345.5f

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static float val(int exact, int range)
{
    double u = fx_urand(&rng);
    return exact ? (float)((int)(u * (2 * range + 1)) - range) : (float)(2 * u - 1);
}

/* One shape: back 0 forward (L rows x len), 1 backward (L len x rows,
 * read transposed). 0 when every value is within its bound (exact: equal)
 * and nothing past the shape was written. */
static int check(bnl_tri_fn f, const char *tier, int back, int exact, int64_t rows, int64_t len,
                 int K)
{
    int64_t lda = (back ? len : rows) + 3, ldx = len + 5, ldb = rows + 7;
    int64_t lc = back ? rows : len; /* L's columns */
    float *L = malloc((size_t)(lda * lc) * sizeof *L), *X = malloc((size_t)(ldx * K) * sizeof *X);
    float *B = malloc((size_t)(ldb * (K + 1)) * sizeof *B), *B0 = malloc((size_t)(ldb * (K + 1)) * sizeof *B0);
    float *B2 = malloc((size_t)(ldb * (K + 1)) * sizeof *B2);
    assert_non_null(L); assert_non_null(X); assert_non_null(B); assert_non_null(B0);
    assert_non_null(B2);
    for (int64_t q = 0; q < lda * lc; q++) L[q] = val(exact, 3);
    for (int64_t q = 0; q < ldx * K; q++) X[q] = val(exact, 3);
    for (int64_t q = 0; q < ldb * (K + 1); q++) B0[q] = SENTINEL;
    for (int k = 0; k < K; k++)
        for (int64_t r = 0; r < rows; r++) B0[k * ldb + r] = val(exact, 100);
    memcpy(B, B0, (size_t)(ldb * (K + 1)) * sizeof *B);
    f(B, ldb, L, lda, X, ldx, rows, len, K);
    memcpy(B2, B0, (size_t)(ldb * (K + 1)) * sizeof *B2);
    f(B2, ldb, L, lda, X, ldx, rows, len, K);
    int bad = 0;
    if (memcmp(B, B2, (size_t)(ldb * (K + 1)) * sizeof *B) && bad++ < 3)
        fprintf(stderr, "%s tri_%s %lld x %lld K %d: another call, other bits\n", tier,
                back ? "back" : "fwd", (long long)rows, (long long)len, K);
    for (int k = 0; k <= K; k++)
        for (int64_t r = 0; r < ldb; r++) {
            float got = B[k * ldb + r];
            if (k == K || r >= rows) {
                if (got != SENTINEL && bad++ < 3)
                    fprintf(stderr, "%s tri_%s %lld x %lld K %d: wrote (%lld, %d) past the "
                            "shape\n", tier, back ? "back" : "fwd", (long long)rows,
                            (long long)len, K, (long long)r, k);
                continue;
            }
            double s = B0[k * ldb + r], a = fabs(s);
            for (int64_t j = 0; j < len; j++) {
                double p = (double)(back ? L[r * lda + j] : L[j * lda + r]) * X[k * ldx + j];
                s -= p;
                a += fabs(p);
            }
            double bound = exact ? 0 : (double)(len + 6) * U_F32 * a;
            if (!(fabs(got - s) <= bound) && bad++ < 3)
                fprintf(stderr, "%s tri_%s %s %lld x %lld K %d: B(%lld, %d) = %.9g, reference "
                        "%.9g (bound %.3g)\n", tier, back ? "back" : "fwd",
                        exact ? "exact" : "rounded", (long long)rows, (long long)len, K,
                        (long long)r, k, got, s, bound);
        }
    free(L); free(X); free(B); free(B0); free(B2);
    return bad;
}

static void test_shapes(void **state)
{
    (void)state;
    static const int64_t lens[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 257};
    static const int Ks[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 24, 25};
    const void *seen[2 * BNL_ARCH_COUNT] = {0};
    int tiers = 0, bad = 0;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++)
        for (int back = 0; back <= 1; back++) {
            const bnl_kernels *t = bnl_kernels_get((bnl_arch)a);
            const bnl_kernels *k = fx_own_tier(a, (const void *)(back ? t->tri_back : t->tri_fwd),
                                               seen, &tiers);
            if (!k) continue;
            bnl_tri_fn f = back ? k->tri_back : k->tri_fwd;
            printf("  %s: tri_%s\n", k->name, back ? "back" : "fwd");
            for (int64_t rows = 1; rows <= 40; rows++)
                for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
                    for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
                        for (int exact = 0; exact <= 1; exact++)
                            bad += check(f, k->name, back, exact, rows, lens[li], Ks[ki]) != 0;
        }
    if (!tiers) printf("  no tier with triangular-solve kernels on this CPU: nothing to check\n");
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
