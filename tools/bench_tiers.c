/*
 * bench_tiers.c - `fsvc bench --tiers` and the "tiers" rows of --paper:
 * one layer on each CPU tier this machine runs, with its speed-up over
 * today's kernels of the same dtype measured in the same run (the machine
 * is shared: only ratios of one run compare).
 */
#include "tools/bench.h"

#include <stdio.h>
#include <string.h>

/* Baselines first per dtype (BASE): today's u8 kernels and OpenBLAS's
 * sgemm, avx2 only where there is no AVX-512; avxvnni (BESIDE_AVX2) only
 * beside avx2, as cpuid picks it. amx's full f32 path is onednn's: no row; its
 * bf16 layer is its own tiles where oneDNN does not take the call (the
 * row's kernel= says which ran). */
enum { TIER, BASE, BESIDE_AVX2 };
static const struct {
    const char *arch;
    fsvc_dtype dt;
    bnl_precision prec;
    int role;
} all[] = {
    {"avx512", FSVC_U8, BNL_PREC_FULL, BASE}, {"avx2", FSVC_U8, BNL_PREC_FULL, BASE},
    {"avxvnni", FSVC_U8, BNL_PREC_FULL, BESIDE_AVX2}, {"avx512vnni", FSVC_U8, BNL_PREC_FULL, TIER},
    {"amx", FSVC_U8, BNL_PREC_FULL, TIER},
    {"avx512", FSVC_F32, BNL_PREC_FULL, BASE}, {"avx2", FSVC_F32, BNL_PREC_FULL, BASE},
    {"avx512bf16", FSVC_F32, BNL_PREC_BF16, TIER}, {"onednn", FSVC_F32, BNL_PREC_FULL, TIER},
    {"onednn", FSVC_F32, BNL_PREC_BF16, TIER}, {"amx", FSVC_F32, BNL_PREC_BF16, TIER},
};

int bench_tier_rows(bench_tier rows[BENCH_TIERS_MAX])
{
    int nr = 0, base[2] = {-1, -1}; /* the baseline row of u8, f32 */
    for (size_t i = 0; i < sizeof all / sizeof *all && nr < BENCH_TIERS_MAX; i++) {
        bnl_arch a;
        int d = all[i].dt == FSVC_F32;
        if (bnl_arch_parse(all[i].arch, &a) || !bnl_arch_supported(a))
            continue;
        if (all[i].role == BASE && base[d] >= 0)
            continue; /* avx2 where avx512 runs */
        if (all[i].role != BASE && base[d] < 0)
            continue; /* nothing to compare with */
        if (all[i].role == BESIDE_AVX2 && strcmp(rows[base[d]].arch, "avx2"))
            continue;
        memset(&rows[nr], 0, sizeof rows[nr]);
        rows[nr].arch = all[i].arch;
        rows[nr].dt = all[i].dt;
        rows[nr].prec = all[i].prec;
        if (all[i].role == BASE)
            base[d] = nr;
        rows[nr].base = base[d];
        nr++;
    }
    return nr;
}

int bench_tiers_run(const bench_cfg *base, bench_tier *rows, int nr, fsvc_error *err)
{
    for (int i = 0; i < nr; i++) {
        bench_cfg c = *base;
        c.dtype = rows[i].dt;
        c.precision = rows[i].prec;
        c.arch = rows[i].arch;
        c.backend = "cpu"; /* the CPU's tiers, whatever --backend says */
        c.no_ref = 1;
        c.no_gemm = 1;
        c.no_kernel_only = 1;
        c.verbose = 0;
        if (c.opk == BENCH_MUL)
            c.act = c.dtype == FSVC_U8 ? BNL_IDENT : BNL_TANH;
        int rc = bench_run(&rows[i].r, &c, err);
        if (rc)
            return rc;
        const bench_res *r = &rows[i].r, *b = &rows[rows[i].base].r;
        printf("tiers %s %s%s arch=%s kernel=%s m=%lld N=%lld n=%d: t_syn %.5f ns (CPU-time "
               "%.5f, load %.1f)", bench_op_name(c.opk), fsvc_dtype_name(c.dtype),
               c.precision == BNL_PREC_BF16 ? " bf16" : "", r->arch, r->plan.kernel,
               (long long)c.m, (long long)c.N, c.n, r->t_syn, r->t_syn_cpu, r->load1);
        if (rows[i].base == i)
            printf("  baseline\n");
        else
            printf("  %.2fx %s (wall), %.2fx (CPU time)\n", b->t_min / r->t_min,
                   rows[rows[i].base].arch, b->t_syn_cpu / r->t_syn_cpu);
        fflush(stdout);
    }
    return FSVC_OK;
}
