/*
 * test_cuda_plan.c - the GPU planner (cuda/plan.h) on simulated devices:
 * H100, A100, a 2 GB card and the paper's 1 GB GTX 750. Tile sizes, the
 * memory budget (eq. 4), the number of BNLs, the paper's Table III and its
 * example (8000 neurons x 10000 samples with a 4096 BNL -> 2 x 3 = 6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "cuda/plan.h"
#include "cuda/model.h"

#define GiB ((int64_t)1 << 30)
#define MiB ((int64_t)1 << 20)

/* name, cc, SMs, fp32/SM, int32 (dp4a)/SM, fp64/SM, GHz, GB/s, total, free,
 * grid x, grid y, smem/block */
static const bnlc_device H100 = {"H100 SXM5 (simulated)", 9, 0, 132, 128, 64, 64, 1.98, 3350,
                                 80 * GiB, 79 * GiB, 2147483647, 65535, 49152};
static const bnlc_device A100 = {"A100 40GB (simulated)", 8, 0, 108, 64, 64, 32, 1.41, 1555,
                                 40 * GiB, 39 * GiB, 2147483647, 65535, 49152};
static const bnlc_device CARD2G = {"2 GB card (simulated)", 8, 6, 16, 128, 64, 2, 1.5, 192,
                                   2 * GiB, 1700 * MiB, 2147483647, 65535, 49152};
/* the paper's PC1: Maxwell, no dp4a, FP64 at 1/32; ~0.6 GB usable (sec. II-A) */
static const bnlc_device GTX750 = {"GeForce GTX 750 (simulated)", 5, 0, 4, 128, 0, 4, 1.02, 80,
                                   1 * GiB, 600 * 1000 * 1000, 2147483647, 65535, 49152};

static void test_eq4_fig4(void **s)
{
    (void)s;
    /* Fig. 4: m = N = 4096, n = 1024, float64: "Gbytes allocated on GPU: 0.201327" */
    double b = bnlc_mem_eq4(8, 8, 1024, 4096, 4096);
    assert_true(b == 201326592.0);
    assert_true(fabs(b / 1e9 - 0.201327) < 1e-6);
}

static void test_paper_table3(void **s)
{
    (void)s;
    /* Table III: M per n on the GTX 750; n M^2 = 2^34 synapses per BNL
     * (all columns at ~2.3 s), M at most 4096, eq. 4 within 0.6 GB */
    const int64_t n[] = {16, 64, 256, 784, 1024, 4096, 16384, 65536};
    const int64_t M[] = {4096, 4096, 4096, 4096, 4096, 2048, 1024, 512};
    for (int i = 0; i < 8; i++) {
        int64_t got = bnlc_paper_M(n[i], 4096, 17179869184.0, 0.6e9);
        if (got != M[i])
            print_message("n %lld: M %lld, paper %lld\n", (long long)n[i], (long long)got,
                          (long long)M[i]);
        assert_int_equal(got, M[i]);
    }
    /* the memory rule binds on its own when the budget is small */
    assert_int_equal(bnlc_paper_M(65536, 4096, 1e30, 0.6e9), 512);
}

static void test_paper_example(void **s)
{
    (void)s;
    bnlc_limits lim;
    bnlc_limits_default(&lim);
    lim.max_M = 4096;
    lim.max_launch_syn = 17179869184.0;
    fsvc_error err;
    bnlc_plan p;
    for (int dt = 0; dt < 2; dt++) {
        assert_int_equal(bnlc_plan_make(&p, &GTX750, &lim, dt ? FSVC_F32 : FSVC_U8, 0, 0,
                                        8000, 10000, 784, &err), FSVC_OK);
        assert_int_equal(p.tiles_m, 2);
        assert_int_equal(p.tiles_N, 3);
        assert_int_equal(p.tiles, 6);
        assert_true(p.tile_m <= 4096 && p.tile_N <= 4096);
        assert_true(p.bytes_total <= p.budget);
    }
    /* power-of-two mode, n = 4096: the launch cap halves M to 2048 (Table III) */
    lim.pow2 = 1;
    assert_int_equal(bnlc_plan_make(&p, &GTX750, &lim, FSVC_F32, 0, 0, 10000, 10000, 4096,
                                    &err), FSVC_OK);
    assert_int_equal(p.tile_m, 2048);
    assert_int_equal(p.tile_N, 2048);
    assert_int_equal(p.tiles, 25);
    assert_string_equal(p.bound, "launch");
}

static void test_h100_one_tile(void **s)
{
    (void)s;
    bnlc_limits lim;
    bnlc_limits_default(&lim);
    fsvc_error err;
    bnlc_plan p;
    /* activation sums of 10000 neurons over 60000 MNIST images: one BNL */
    assert_int_equal(bnlc_plan_make(&p, &H100, &lim, FSVC_U8, 0, 1, 10000, 60000, 784, &err),
                     FSVC_OK);
    assert_int_equal(p.tiles, 1);
    assert_string_equal(p.bound, "shape");
    /* the forward H (2.4 GB) is cut so that each H tile stages through
     * 256 MiB of pinned host memory */
    assert_int_equal(bnlc_plan_make(&p, &H100, &lim, FSVC_U8, 0, 0, 10000, 60000, 784, &err),
                     FSVC_OK);
    assert_true(p.tiles > 1);
    assert_string_equal(p.bound, "pinned");
    assert_true(4 * ((p.tile_m + 3) / 4 * 4) * p.tile_N <= lim.max_out_bytes);
    assert_int_equal(p.ldk, 200); /* 784 bytes = 196 words -> 200 (32-byte sectors) */
    assert_int_equal(p.blocks_x, (p.tile_N + 127) / 128);
    assert_int_equal(p.blocks_y, (p.tile_m + 127) / 128);
    assert_int_equal(p.block, 256);
    assert_true(p.streams >= 2);
    /* peak t_syn from the mix: u8 0.5 INT32 op a synapse over 132 x 64 lanes at 1.98 GHz */
    double ts = bnlc_tsyn_peak_ns(&H100, FSVC_U8);
    assert_true(fabs(ts - 0.5 / (132 * 64 * 1.98)) < 1e-9);
    /* the paper's GTX 750 in float64: 2 DADD a synapse on 4 x 4 FP64 lanes ~ 0.12 ns (0.13 measured) */
    double t750 = bnlc_tsyn_peak_ns(&GTX750, FSVC_F64);
    assert_true(t750 > 0.11 && t750 < 0.13);
    /* no dp4a on Maxwell: no u8 figure */
    assert_true(bnlc_tsyn_peak_ns(&GTX750, FSVC_U8) == 0.0);
}

static void test_streaming_2gb(void **s)
{
    (void)s;
    bnlc_limits lim;
    bnlc_limits_default(&lim);
    fsvc_error err;
    bnlc_plan p;
    /* 10 M float samples of 784 (31 GB) through a 2 GB card */
    assert_int_equal(bnlc_plan_make(&p, &CARD2G, &lim, FSVC_F32, 0, 0, 2000, 10000000, 784,
                                    &err), FSVC_OK);
    assert_true(p.tiles_N > 1);
    assert_true(p.bytes_total <= p.budget);
    assert_true(p.budget <= (int64_t)(0.9 * (double)CARD2G.mem_free));
    assert_true(p.tile_N * p.tiles_N >= 10000000 && p.tile_N * (p.tiles_N - 1) < 10000000);
    assert_true(strcmp(p.bound, "memory") == 0 || strcmp(p.bound, "launch") == 0 ||
                strcmp(p.bound, "pinned") == 0);
    /* activation sums stage no H: memory binds (31 GB of X) */
    assert_int_equal(bnlc_plan_make(&p, &CARD2G, &lim, FSVC_F32, 0, 1, 2000, 10000000, 784,
                                    &err), FSVC_OK);
    assert_true(p.tiles_N > 1 && p.bytes_total <= p.budget);
}

static void test_no_memory(void **s)
{
    (void)s;
    bnlc_limits lim;
    bnlc_limits_default(&lim);
    bnlc_device d = GTX750;
    d.mem_free = 50 * MiB; /* less than the reserve */
    fsvc_error err;
    bnlc_plan p;
    assert_int_equal(bnlc_plan_make(&p, &d, &lim, FSVC_U8, 0, 0, 100, 100, 784, &err),
                     FSVC_ERESOURCE);
    assert_non_null(strstr(err.msg, "not enough device memory"));
    assert_int_equal(bnlc_plan_make(&p, &d, &lim, FSVC_F64, 0, 0, 100, 100, 784, &err),
                     FSVC_EUSAGE);
}

/* Invariants over devices, dtypes, paths and shapes. */
static void test_invariants(void **s)
{
    (void)s;
    const bnlc_device *devs[] = {&H100, &A100, &CARD2G, &GTX750};
    const int64_t shapes[][3] = {{1, 1, 1},           {7, 13, 5},         {8000, 10000, 784},
                                 {100000, 100, 784},  {100, 1000000, 784}, {60000, 60000, 784},
                                 {4096, 4096, 65536}, {1000, 3000000, 3072}, {3, 5, 1000000}};
    int checked = 0;
    for (int d = 0; d < 4; d++)
        for (int sh = 0; sh < 9; sh++)
            for (int v = 0; v < 8; v++) {
                fsvc_dtype dt = v & 1 ? FSVC_F32 : FSVC_U8;
                int gemm = (v & 2) && dt == FSVC_F32, actsum = (v & 4) != 0;
                int64_t m = shapes[sh][0], N = shapes[sh][1];
                int n = (int)shapes[sh][2];
                bnlc_limits lim;
                bnlc_limits_default(&lim);
                fsvc_error err;
                bnlc_plan p;
                int rc = bnlc_plan_make(&p, devs[d], &lim, dt, gemm, actsum, m, N, n, &err);
                assert_int_equal(rc, FSVC_OK);
                assert_true(p.tile_m >= 1 && p.tile_m <= m);
                assert_true(p.tile_N >= 1 && p.tile_N <= N);
                assert_true(p.tiles_m * p.tile_m >= m && (p.tiles_m - 1) * p.tile_m < m);
                assert_true(p.tiles_N * p.tile_N >= N && (p.tiles_N - 1) * p.tile_N < N);
                assert_int_equal(p.tiles, p.tiles_m * p.tiles_N);
                assert_true(p.bytes_total <= p.budget);
                assert_true(p.bytes_total == p.streams * bnlc_stream_bytes(dt, gemm, actsum, n,
                                                                          p.tile_m, p.tile_N));
                assert_true(p.blocks_y <= devs[d]->max_grid_y);
                if (!actsum && p.tile_m > 4 && p.tile_N > 4)
                    assert_true(4 * ((p.tile_m + 3) / 4 * 4) * p.tile_N <= lim.max_out_bytes);
                assert_true(p.streams >= 2);
                double ts = bnlc_tsyn_peak_ns(devs[d], dt);
                if (ts > 0 && p.tile_m > 4 && p.tile_N > 4)
                    assert_true(p.syn_launch <= lim.launch_s * 1e9 / ts * 1.0000001);
                checked++;
            }
    assert_int_equal(checked, 4 * 9 * 8);
}

static void test_mix(void **s)
{
    (void)s;
    const bnlc_mix *u8 = bnlc_mix_get(0), *f32 = bnlc_mix_get(2);
    assert_non_null(u8);
    assert_null(bnlc_mix_get(BNLC_MIXES));
    assert_true(bnlc_mix_alu_per_syn(u8) == 0.5);
    assert_true(bnlc_mix_alu_per_syn(f32) == 2.0);
    /* 4 x 16 bytes of shared loads per 64 word ops: 0.25 B (u8), 1 B (f32) a synapse */
    assert_true(bnlc_mix_lds_bytes_per_syn(u8) == 0.25);
    assert_true(bnlc_mix_lds_bytes_per_syn(f32) == 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eq4_fig4),
        cmocka_unit_test(test_paper_table3),
        cmocka_unit_test(test_paper_example),
        cmocka_unit_test(test_h100_one_tile),
        cmocka_unit_test(test_streaming_2gb),
        cmocka_unit_test(test_no_memory),
        cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_mix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
