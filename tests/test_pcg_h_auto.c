/*
 * test_pcg_h_auto.c - `--pcg-h` (fsvc_pcg_h_pick): whether pcg keeps H
 * (half the free memory) and in which format: auto is f16 for bounded
 * activations from lambda 1e-6 up, else float, and with progress says so
 * (f16 kept), or when only a 16-bit H would be kept (naming f16 or bf16); f32, bf16, f16
 * as asked, f16 refused for unbounded H, a double H double. Through
 * fsvc_readout_solve: auto gives the bits of --pcg-h f16 at lambda 1e-4
 * (room for a float H or only for 16 bits), of f32 at lambda 5e-7 and
 * with class weights past 2^16 (where f16 is refused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/comm.h"
#include "fsvc/fsvc.h"
#include "fsvc/solver.h"
#include "layers/bnl.h"
#include "tests/util/fixtures.h"

#define RAM_USE 0.9 /* solver.c's SOLVER_RAM_USE: the share of memory planned on */

static int lines;
static char last[512];
static void on_line(const char *line)
{
    lines++;
    snprintf(last, sizeof last, "%s", line);
}

static void test_pick(void **state)
{
    (void)state;
    fsvc_set_print(on_line);
    enum { A = -1, F32 = BNL_H_F32, BF = BNL_H_BF16, F16 = BNL_H_F16 };
    static const struct {
        int h16, f64, bounded;
        double lambda, values, room;
        int want, cache;
        const char *hint; /* the line's advice, or NULL: no line */
    } c[] = {
        {A, 0, 1, 1e-5, 100, 1000, F16, 1, "H kept in f16"}, /* bounded, ridge large */
        {A, 0, 1, 1e-6, 100, 1000, F16, 1, "H kept in f16"}, /* the threshold */
        {A, 0, 1, 9e-7, 100, 1000, F32, 1, NULL}, /* below it: float */
        {A, 0, 1, 1e-5, 100, 300, F16, 1, "H kept in f16"},  /* only 16 bits fit */
        {A, 0, 1, 1e-7, 100, 300, F32, 0, "--pcg-h f16 keeps it"},
        {A, 0, 0, 1e-5, 100, 1000, F32, 1, NULL}, /* unbounded: float */
        {A, 0, 0, 1e-5, 100, 300, F32, 0, "--pcg-h bf16 keeps it"},
        {A, 0, 1, 1e-7, 100, 150, F32, 0, NULL},  /* nothing fits */
        {A, 0, 1, 1e-5, 100, 0, F16, 0, NULL},    /* the machine's memory unknown */
        {A, 1, 1, 1e-5, 100, 300, F32, 0, NULL},  /* a double H stays double */
        {F32, 0, 1, 1e-5, 100, 300, F32, 0, NULL},/* f32 asked: nothing to say */
        {BF, 0, 1, 1e-5, 100, 150, BF, 0, NULL},  /* bf16 asked, not kept */
        {BF, 0, 0, 1e-7, 100, 1000, BF, 1, NULL},
        {F16, 0, 1, 1e-9, 100, 1000, F16, 1, NULL}, /* asked: any lambda */
        {BF, 1, 1, 1e-5, 100, 1000, F32, 1, NULL},
        {F16, 1, 0, 1e-5, 100, 1000, F32, 1, NULL},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        int cache = -1;
        fsvc_error err = {0};
        (void)err;
        lines = 0;
        int got = fsvc_pcg_h_pick(c[i].h16, c[i].f64, c[i].bounded, c[i].lambda, c[i].values,
                                  c[i].room, 1, &cache);
        if (got != c[i].want || cache != c[i].cache || lines != (c[i].hint != NULL))
            fail_msg("case %zu (h16 %d, f64 %d, bounded %d, lambda %g, %g values, room %g): "
                     "format %d cache %d, %d lines; want %d %d %d", i, c[i].h16, c[i].f64,
                     c[i].bounded, c[i].lambda, c[i].values, c[i].room, got, cache, lines,
                     c[i].want, c[i].cache, c[i].hint != NULL);
        if (lines && !strstr(last, c[i].hint))
            fail_msg("case %zu: the line says '%s', not '%s'", i, last, c[i].hint);
        lines = 0; /* without progress: nothing */
        fsvc_pcg_h_pick(c[i].h16, c[i].f64, c[i].bounded, c[i].lambda, c[i].values, c[i].room,
                        0, &cache);
        int want_rc = c[i].h16 == F16 && !c[i].bounded && !c[i].f64 ? FSVC_EUSAGE : FSVC_OK;
        if (fsvc_pcg_h_check(c[i].h16, c[i].f64, c[i].bounded, &err) != want_rc)
            fail_msg("case %zu: the check says otherwise than %d", i, want_rc);
        if (lines) fail_msg("case %zu: a line without progress", i);
    }
    fsvc_error err = {0};
    assert_int_equal(fsvc_pcg_h_check(F16, 0, 0, &err), FSVC_EUSAGE);
    assert_int_equal(err.code, FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "--pcg-h f16 needs activations within [-1, 1]"));
    fsvc_set_print(NULL);
}

static void test_bounded(void **state)
{
    (void)state;
    const bnl_op g = {BNL_L2, BNL_GAUSS, FSVC_F32, 1, BNL_PREC_FULL};
    const bnl_op t = {BNL_L1, BNL_TRI, FSVC_U8, 1, BNL_PREC_FULL};
    const bnl_op h = {BNL_DOT, BNL_TANH, FSVC_F32, 0, BNL_PREC_FULL};
    const bnl_op id = {BNL_L2, BNL_IDENT, FSVC_F32, 0, BNL_PREC_FULL};
    const double cw[2] = {1, 65536}, cw_big[2] = {1, 65537}, sw[3] = {0.5, 65536, 2};
    const double sw_big[3] = {0.5, 2, 1e300}, sw_nan[2] = {1, 0.0 / 0.0};
    assert_int_equal(fsvc_h_bounded(&g, NULL, 2, NULL, 3), 1);
    assert_int_equal(fsvc_h_bounded(&t, cw, 2, sw, 3), 1);
    assert_int_equal(fsvc_h_bounded(&h, NULL, 2, NULL, 3), 1);
    assert_int_equal(fsvc_h_bounded(&id, NULL, 2, NULL, 3), 0);
    assert_int_equal(fsvc_h_bounded(&g, cw_big, 2, NULL, 3), 0);
    assert_int_equal(fsvc_h_bounded(&g, NULL, 2, sw_big, 3), 0);
    assert_int_equal(fsvc_h_bounded(&g, NULL, 2, sw_nan, 2), 0);
}

static void solve(double *W, const fsvc_ridge_problem *pb, double lambda, int h16, double ram)
{
    /* 1e-5: above the residual floor of a float H on every tier (the
     * kernels' rounding put it at 1.3e-6 and 2.7e-6 on a Zen 4) */
    fsvc_ridge_opt o = {lambda, FSVC_SOLVER_PCG, 1e-5, FSVC_AUG_NONE, 0, 0, ram, 0, h16};
    fsvc_train_info info;
    fsvc_error err;
    if (fsvc_readout_solve(W, pb, &o, &info, &err))
        fail_msg("pcg (h16 %d, ram %g): %s", h16, ram, err.msg);
    if (!info.cg_converged)
        fail_msg("pcg (h16 %d, lambda %g, ram %g): residual %g after %d iterations", h16,
                 lambda, ram, info.cg_res, info.cg_iter);
}

static void same(const double *a, const double *b, size_t mk, int want, const char *what)
{
    if ((memcmp(a, b, mk * sizeof *a) == 0) != want)
        fail_msg("auto, %s: %s", what, want ? "other bits" : "the same bits");
}

static void test_auto_solve(void **state)
{
    (void)state;
    enum { N = 500, M = 60, NF = 8, K = 3 };
    uint64_t rng = 7;
    float *X = malloc(sizeof *X * N * NF);
    int *cls = malloc(sizeof *cls * N);
    assert_true(X && cls);
    for (int q = 0; q < N * NF; q++) X[q] = (float)fx_urand(&rng);
    for (int i = 0; i < N; i++) cls[i] = i % K;
    const bnl_op op = {BNL_L2, BNL_GAUSS, FSVC_F32, 0.8, BNL_PREC_FULL};
    bnl_ctx c;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&c, "cpu", 2, 1, &err), FSVC_OK);
    fsvc_ridge_problem pb = {&c, &op, X, M, X, cls, NULL, NULL, N, N, NF, K,
                             fsvc_comm_one(), NULL, NULL};
    /* half the room over the plan: 3 bytes a value, between 16 bits' 2 and float's 4 */
    double need = fsvc_solver_bytes(FSVC_SOLVER_PCG, M, N, K, sizeof(float));
    double small = (2.0 * 3 * N * M + need) / RAM_USE, big = 64 * small;
    size_t mk = (size_t)M * K;
    double *W[8];
    for (int i = 0; i < 8; i++) assert_non_null(W[i] = malloc(sizeof *W[i] * mk));
    solve(W[0], &pb, 1e-4, -1, small);
    solve(W[1], &pb, 1e-4, BNL_H_F16, small);
    solve(W[2], &pb, 1e-4, BNL_H_F32, small);
    solve(W[3], &pb, 1e-4, -1, big);
    solve(W[4], &pb, 1e-4, BNL_H_BF16, big);
    solve(W[5], &pb, 5e-7, -1, big);
    solve(W[6], &pb, 5e-7, BNL_H_F32, big);
    same(W[0], W[1], mk, 1, "lambda 1e-4, room for 16 bits, against --pcg-h f16");
    same(W[0], W[2], mk, 0, "lambda 1e-4, room for 16 bits, against --pcg-h f32");
    same(W[3], W[1], mk, 1, "lambda 1e-4, room for a float H, against --pcg-h f16");
    same(W[3], W[4], mk, 0, "lambda 1e-4, against --pcg-h bf16");
    same(W[5], W[6], mk, 1, "lambda 5e-7, against --pcg-h f32");
    /* class weights past 2^16: auto is float, an asked f16 a usage error */
    const double cw[K] = {1, 70000, 1};
    fsvc_ridge_problem pw = pb;
    pw.cw = cw;
    solve(W[5], &pw, 1e-2, -1, big); /* a larger ridge: weights this uneven converge slowly */
    solve(W[6], &pw, 1e-2, BNL_H_F32, big);
    same(W[5], W[6], mk, 1, "class weights past 2^16, against --pcg-h f32");
    fsvc_ridge_opt o = {1e-4, FSVC_SOLVER_PCG, 1e-6, FSVC_AUG_NONE, 0, 0, big, 0, BNL_H_F16};
    assert_int_equal(fsvc_readout_solve(W[7], &pw, &o, NULL, &err), FSVC_EUSAGE);
    for (int i = 0; i < 8; i++) free(W[i]);
    bnl_ctx_close(&c);
    free(X); free(cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_auto_solve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
