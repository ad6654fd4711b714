/*
 * test_pcg_h_auto.c - `--pcg-h` (fsvc_pcg_h_pick): whether pcg keeps H
 * (half the free memory) and in which precision: auto is float, and with
 * progress says when only a bf16 H would be kept; bf16 and f32 as asked,
 * a double H double. Through fsvc_readout_solve: auto gives the bits of
 * --pcg-h f32 with room for a float H and without (made anew per pass),
 * bf16 other bits.
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
    static const struct {
        int h_bf16, f64;
        double values, room;
        int want, cache, hint;
    } c[] = {
        {-1, 0, 100, 1000, 0, 1, 0}, /* float fits */
        {-1, 0, 100, 300, 0, 0, 1},  /* only bf16 would: float, made anew, said */
        {-1, 0, 100, 150, 0, 0, 0},  /* neither */
        {-1, 0, 100, 0, 0, 0, 0},    /* the machine's memory unknown */
        {-1, 1, 100, 300, 0, 0, 0},  /* a double H stays double */
        {0, 0, 100, 300, 0, 0, 0},   /* f32 asked: nothing to say */
        {1, 0, 100, 150, 1, 0, 0},   /* bf16 asked, not kept */
        {1, 0, 100, 1000, 1, 1, 0},
        {1, 1, 100, 1000, 0, 1, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        int cache = -1;
        lines = 0;
        int got = fsvc_pcg_h_pick(c[i].h_bf16, c[i].f64, c[i].values, c[i].room, 1, &cache);
        if (got != c[i].want || cache != c[i].cache || lines != c[i].hint)
            fail_msg("case %zu (h_bf16 %d, f64 %d, %g values, room %g): bf16 %d cache %d, "
                     "%d lines; want %d %d %d", i, c[i].h_bf16, c[i].f64, c[i].values,
                     c[i].room, got, cache, lines, c[i].want, c[i].cache, c[i].hint);
        if (lines && !strstr(last, "--pcg-h bf16 keeps it"))
            fail_msg("case %zu: the line says '%s'", i, last);
        lines = 0; /* without progress: nothing */
        fsvc_pcg_h_pick(c[i].h_bf16, c[i].f64, c[i].values, c[i].room, 0, &cache);
        if (lines) fail_msg("case %zu: a line without progress", i);
    }
    fsvc_set_print(NULL);
}

static void solve(double *W, const fsvc_ridge_problem *pb, int h_bf16, double ram)
{
    fsvc_ridge_opt o = {1e-4, FSVC_SOLVER_PCG, 1e-6, FSVC_AUG_NONE, 0, 0, ram, 0, h_bf16};
    fsvc_train_info info;
    fsvc_error err;
    if (fsvc_readout_solve(W, pb, &o, &info, &err))
        fail_msg("pcg (h_bf16 %d, ram %g): %s", h_bf16, ram, err.msg);
    if (!info.cg_converged)
        fail_msg("pcg (h_bf16 %d): residual %g after %d iterations", h_bf16, info.cg_res,
                 info.cg_iter);
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
    /* half the room over the plan: 3 bytes a value, between bf16's 2 and float's 4 */
    double need = fsvc_solver_bytes(FSVC_SOLVER_PCG, M, N, K, sizeof(float));
    double small = (2.0 * 3 * N * M + need) / RAM_USE, big = 64 * small;
    size_t mk = (size_t)M * K;
    double *W[5];
    for (int i = 0; i < 5; i++) assert_non_null(W[i] = malloc(sizeof *W[i] * mk));
    solve(W[0], &pb, -1, small);
    solve(W[1], &pb, 1, small);
    solve(W[2], &pb, 0, small);
    solve(W[3], &pb, -1, big);
    solve(W[4], &pb, 0, big);
    if (memcmp(W[0], W[2], mk * sizeof *W[0]))
        fail_msg("auto, room for a bf16 H only: not the bits of --pcg-h f32");
    if (!memcmp(W[0], W[1], mk * sizeof *W[0]))
        fail_msg("auto, room for a bf16 H only: the bits of --pcg-h bf16");
    if (memcmp(W[3], W[4], mk * sizeof *W[3]))
        fail_msg("auto, room for a float H: not the bits of --pcg-h f32");
    for (int i = 0; i < 5; i++) free(W[i]);
    bnl_ctx_close(&c);
    free(X); free(cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_auto_solve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
