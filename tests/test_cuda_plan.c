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
#include "cuda/perf_model.h"
#include "cuda/jobs.h"

#include <stdlib.h>

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
    /* f64 is planned too (issue 10): the same memory refusal */
    assert_int_equal(bnlc_plan_make(&p, &d, &lim, FSVC_F64, 0, 0, 100, 100, 784, &err),
                     FSVC_ERESOURCE);
    assert_int_equal(bnlc_plan_make(&p, &d, &lim, (fsvc_dtype)7, 0, 0, 100, 100, 784, &err),
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
            for (int v = 0; v < 12; v++) {
                fsvc_dtype dt = v < 8 ? (v & 1 ? FSVC_F32 : FSVC_U8) : FSVC_F64;
                int gemm = (v & 2) && dt != FSVC_U8, actsum = (v & 4) != 0;
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
                    assert_true((dt == FSVC_F64 ? 8 : 4) * ((p.tile_m + 3) / 4 * 4) * p.tile_N <=
                                lim.max_out_bytes);
                assert_true(p.streams >= 2);
                double ts = bnlc_tsyn_peak_ns(devs[d], dt);
                if (ts > 0 && p.tile_m > 4 && p.tile_N > 4)
                    assert_true(p.syn_launch <= lim.launch_s * 1e9 / ts * 1.0000001);
                checked++;
            }
    assert_int_equal(checked, 4 * 9 * 12);
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

/* The driver's tile order: every (neuron tile, sample tile) once, the
 * uploads exactly when a stream lacks the tile, streams taking turns
 * (forward), one stream per sample tile with increasing neuron tiles and
 * first/last marks (activation sums). */
static void check_jobs(int64_t m, int64_t N, int64_t tm, int64_t tN, int streams, int actsum)
{
    bnlc_plan p;
    memset(&p, 0, sizeof p);
    p.tile_m = tm;
    p.tile_N = tN;
    p.tiles_m = (m + tm - 1) / tm;
    p.tiles_N = (N + tN - 1) / tN;
    bnlc_jobs it;
    bnlc_job j;
    bnlc_jobs_init(&it, &p, actsum, streams, m, N);
    unsigned char *seen = calloc((size_t)(p.tiles_m * p.tiles_N), 1);
    int64_t resW[8], resX[8], last_mi[1024], count = 0, covered_m = 0, covered_N = 0;
    int last_stream_of[1024];
    assert_non_null(seen);
    for (int s = 0; s < 8; s++) resW[s] = resX[s] = -1;
    for (int64_t i = 0; i < 1024; i++) { last_mi[i] = -1; last_stream_of[i] = -1; }
    while (bnlc_jobs_next(&it, &j)) {
        assert_true(j.mi >= 0 && j.mi < p.tiles_m && j.ni >= 0 && j.ni < p.tiles_N);
        assert_int_equal(seen[j.mi * p.tiles_N + j.ni]++, 0);
        assert_int_equal(j.m0, j.mi * tm);
        assert_int_equal(j.i0, j.ni * tN);
        assert_true(j.mt >= 1 && j.mt <= tm && j.m0 + j.mt <= m);
        assert_true(j.Nt >= 1 && j.Nt <= tN && j.i0 + j.Nt <= N);
        if (j.m0 + j.mt == m && j.ni == 0) covered_m = 1;
        if (j.i0 + j.Nt == N && j.mi == 0) covered_N = 1;
        assert_true(j.stream >= 0 && j.stream < streams);
        assert_int_equal(j.load_w, resW[j.stream] != j.mi);
        assert_int_equal(j.load_x, resX[j.stream] != j.ni);
        resW[j.stream] = j.mi;
        resX[j.stream] = j.ni;
        if (actsum) {
            /* neuron tiles of a sample tile: in order, on one stream */
            assert_int_equal(j.mi, last_mi[j.ni] + 1);
            if (last_stream_of[j.ni] >= 0) assert_int_equal(j.stream, last_stream_of[j.ni]);
            last_mi[j.ni] = j.mi;
            last_stream_of[j.ni] = j.stream;
            assert_int_equal(j.first, j.mi == 0);
            assert_int_equal(j.last, j.mi == p.tiles_m - 1);
        } else {
            assert_int_equal(j.stream, count % streams);
            assert_true(j.first && j.last);
        }
        count++;
    }
    assert_int_equal(count, p.tiles_m * p.tiles_N);
    assert_true(covered_m && covered_N);
    free(seen);
}

static void test_jobs(void **s)
{
    (void)s;
    const int64_t cases[][4] = {{1, 1, 1, 1},       {8000, 10000, 4096, 4096}, {10, 1000, 3, 7},
                                {1000, 10, 128, 4}, {129, 257, 128, 128},     {5, 5, 5, 5}};
    for (int c = 0; c < 6; c++)
        for (int st = 1; st <= 4; st++)
            for (int a = 0; a < 2; a++)
                check_jobs(cases[c][0], cases[c][1], cases[c][2], cases[c][3], st, a);
    /* the paper's example through the planner: 6 jobs, two streams taking turns */
    bnlc_limits lim;
    bnlc_limits_default(&lim);
    lim.max_M = 4096;
    lim.max_launch_syn = 17179869184.0;
    fsvc_error err;
    bnlc_plan p;
    assert_int_equal(bnlc_plan_make(&p, &GTX750, &lim, FSVC_U8, 0, 0, 8000, 10000, 784, &err), FSVC_OK);
    bnlc_jobs it;
    bnlc_job j;
    bnlc_jobs_init(&it, &p, 0, 2, 8000, 10000);
    int n = 0, loads_w = 0;
    while (bnlc_jobs_next(&it, &j)) { n++; loads_w += j.load_w; }
    assert_int_equal(n, 6);
    assert_int_equal(loads_w, 4); /* each of the 2 W tiles once per stream */
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
        cmocka_unit_test(test_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
