/*
 * test_arch_ref.c - FSVC_ARCH=ref (and bnl_ctx_set_arch(BNL_ARCH_REF)) runs
 * the oracle loops of layers/ref.c on the CPU backend: the plan says
 * "ref-loops", and forward / actsum / scores give the very bits of the
 * "ref" backend, also for an op the CPU kernels compute differently (f32
 * L2 through GEMM).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "layers/bnl.h"

static void fill(float *a, size_t k, unsigned seed)
{
    for (size_t i = 0; i < k; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = (float)((seed >> 9) & 0xFFFF) / 977.0f - 30.0f;
    }
}

static void test_env_selects_ref(void **state)
{
    char why[256];
    setenv("FSVC_ARCH", "ref", 1);
    assert_int_equal(bnl_arch_detect(why, sizeof why), BNL_ARCH_REF);
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 2, 0, &err), FSVC_OK);
    assert_int_equal(ctx.arch, BNL_ARCH_REF);
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_U8, 10.0, BNL_PREC_FULL};
    bnl_plan p = bnl_plan_for(&ctx, &op, 300, 300, 50);
    assert_string_equal(p.path, "ref-loops");
    assert_string_equal(bnl_arch_kernels(ctx.arch), "ref");
    bnl_ctx_close(&ctx);
    unsetenv("FSVC_ARCH");
    assert_int_not_equal(bnl_arch_detect(NULL, 0), BNL_ARCH_REF);
}

static void test_ref_arch_bits(void **state)
{
    const int64_t m = 37, N = 53;
    const int n = 29, K = 3;
    float *W = malloc(sizeof(float) * m * n), *X = malloc(sizeof(float) * N * n);
    float *H1 = malloc(sizeof(float) * N * m), *H2 = malloc(sizeof(float) * N * m);
    float *H3 = malloc(sizeof(float) * N * m);
    double S1[53], S2[53], Y1[53 * 3], Y2[53 * 3], R[37 * 3];
    assert_non_null(W); assert_non_null(X); assert_non_null(H1); assert_non_null(H2);
    assert_non_null(H3);
    fill(W, (size_t)(m * n), 3);
    fill(X, (size_t)(N * n), 4);
    for (int q = 0; q < m * K; q++)
        R[q] = (q % 7) - 3.0;
    bnl_ctx ref, cpu, kern;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 0, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 0, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&kern, "cpu", 2, 0, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_set_arch(&cpu, BNL_ARCH_REF, &err), FSVC_OK);
    cpu.par_min_syn = kern.par_min_syn = -1;
    const bnl_op ops[] = {{BNL_L2, BNL_GAUSS, FSVC_F32, 9.0, BNL_PREC_FULL}, {BNL_DOT, BNL_IDENT, FSVC_F32, 0, BNL_PREC_FULL},
                          {BNL_L1, BNL_TRI, FSVC_F32, 60.0, BNL_PREC_FULL}};
    int differs = 0;
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        const bnl_op *op = &ops[o];
        assert_int_equal(bnl_forward(&ref, op, H1, m, W, m, X, N, n, &err), FSVC_OK);
        assert_int_equal(bnl_forward(&cpu, op, H2, m, W, m, X, N, n, &err), FSVC_OK);
        assert_int_equal(bnl_forward(&kern, op, H3, m, W, m, X, N, n, &err), FSVC_OK);
        assert_memory_equal(H1, H2, sizeof(float) * N * m);
        differs |= memcmp(H1, H3, sizeof(float) * N * m) != 0;
        memset(S1, 0, sizeof S1);
        memset(S2, 0, sizeof S2);
        assert_int_equal(bnl_actsum(&ref, op, S1, W, m, X, N, n, &err), FSVC_OK);
        assert_int_equal(bnl_actsum(&cpu, op, S2, W, m, X, N, n, &err), FSVC_OK);
        assert_memory_equal(S1, S2, sizeof S1);
        assert_int_equal(bnl_scores(&ref, op, Y1, W, m, X, N, n, R, K, &err), FSVC_OK);
        assert_int_equal(bnl_scores(&cpu, op, Y2, W, m, X, N, n, R, K, &err), FSVC_OK);
        assert_memory_equal(Y1, Y2, sizeof Y1);
    }
    /* the kernels (GEMM for L2 and dot) round differently: the test would
     * not notice arch ref running them */
    assert_true(differs);
    bnl_ctx_close(&ref);
    bnl_ctx_close(&cpu);
    bnl_ctx_close(&kern);
    free(W); free(X); free(H1); free(H2); free(H3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_selects_ref),
        cmocka_unit_test(test_ref_arch_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
