/* cmd_info.c - `fsvc info`: version, compiler, CPU model and features, the
 * CPU kernels chosen and why, backends, BLAS, OpenMP and CUDA devices. */
#include "tools/bench.h"
#include "tools/args.h"
#include "tools/show.h"
#include "tools/comm.h"

#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>


int info_parse(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: fsvc info [MODEL]\n\nPrints the version, compiler, CPU features, the CPU "
               "kernels chosen (cpuid or\nFSVC_ARCH=ref|scalar|avx2|avxvnni|avx512|avx512vnni|avx512bf16|onednn|amx)\n"
               "and the tier that runs each op, backends, BLAS, OpenMP and CUDA devices.\nWith "
               "MODEL: the model described, as `fsvc show MODEL`.\n");
        return FSVC_OK;
    }
    if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
        return cli_usage_error("info", "unexpected argument '%s'", argv[argc - 1]);
    return CLI_RUN;
}

/* Per op, what the CPU backend runs on arch (the planner's own answer). */
static void print_op_tiers(bnl_arch arch)
{
    static const struct { const char *what; bnl_op op; } ops[] = {
        {"u8 l1", {BNL_L1, BNL_IDENT, FSVC_U8, 0, BNL_PREC_FULL}},
        {"u8 l2, dot", {BNL_L2, BNL_IDENT, FSVC_U8, 0, BNL_PREC_FULL}},
        {"f32 l1", {BNL_L1, BNL_IDENT, FSVC_F32, 0, BNL_PREC_FULL}},
        {"f32 l2, dot", {BNL_L2, BNL_IDENT, FSVC_F32, 0, BNL_PREC_FULL}},
        {"f32 l2, dot bf16", {BNL_L2, BNL_IDENT, FSVC_F32, 0, BNL_PREC_BF16}},
        {"f64 l1", {BNL_L1, BNL_IDENT, FSVC_F64, 0, BNL_PREC_FULL}},
        {"f64 l2, dot", {BNL_L2, BNL_IDENT, FSVC_F64, 0, BNL_PREC_FULL}},
    };
    bnl_ctx ctx;
    if (bnl_ctx_open(&ctx, "cpu", 1, 1, NULL) != FSVC_OK)
        return;
    ctx.arch = arch;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        bnl_plan p = bnl_plan_for(&ctx, &ops[i].op, 4096, 4096, 784);
        printf("  %-17s %s (%s)\n", ops[i].what, p.kernel, p.path);
    }
    static const char *const fmts[] = {"pcg products f32", "pcg products bf16",
                                       "pcg products f16"};
    for (int f = BNL_H_F32; f <= BNL_H_F16; f++) { /* pcg's H^T (H V), cached H (--pcg-h) */
        const char *tier, *path = bnl_hprod_cpu_path(&ctx, f, &tier);
        printf("  %-17s %s (%s)\n", fmts[f], tier, path);
    }
    const char *tier, *path = bnl_chol_solve_path(&ctx, &tier); /* pcg's preconditioner */
    printf("  %-17s %s (%s)\n", "pcg solves f32", tier, path);
    path = bnl_scores_cpu_path(&ctx, &tier); /* predict's H R */
    printf("  %-17s %s (%s)\n", "scores u8, f32", tier, path);
    bnl_ctx_close(&ctx);
}

int cmd_info(int argc, char **argv)
{
    int prc = info_parse(argc, argv);
    if (prc != CLI_RUN)
        return prc;
    if (argc == 2)
        return show_describe(argv[1]);
    char model[256], feat[512], why[256];
    bench_cpu_model(model, sizeof model);
    bench_cpu_features(feat, sizeof feat);
    bnl_arch arch = bnl_arch_detect(why, sizeof why);
    printf("fsvc %s\n", FSVC_VERSION);
    printf("compiler: %s\n", bench_compiler_flags());
    printf("cpu: %s, %d logical cores, %.2f GHz (/proc/cpuinfo)\n", model, omp_get_num_procs(),
           bench_cpu_ghz());
    printf("cpu features: %s\n", feat[0] ? feat : "(none of avx2/avx512/vnni/amx)");
    printf("cpu kernels: %s -> %s, epilogue %s\n", why, bnl_arch_kernels(arch),
           bnl_arch_name(arch));
    const char *amx = bnl_arch_note(BNL_ARCH_AMX);
    if (amx)
        printf("amx tier: %s\n", amx);
    printf("cpu ops (tier per op on %s):\n", bnl_arch_name(arch));
    print_op_tiers(arch);
    printf("backends: ref cpu%s\n",
#ifdef FSVC_HAVE_CUDA
           " cuda"
#else
           ""
#endif
    );
    const char *core_why = bnl_blas_core_status(); /* makes the choice, if not made */
    printf("blas: %s, %d threads\n", bnl_blas_config(), bnl_blas_threads());
    printf("blas core: %s (%s); GEMM check %s\n", bnl_blas_core_name(), core_why,
           bnl_blas_gemm_ok() ? "ok" : "FAILED");
    printf("mpi: %s (mpirun -np K fsvc train|predict|eval|study; %d process%s now)\n",
           cli_comm_library(), cli_comm()->size, cli_comm()->size > 1 ? "es" : "");
    printf("openmp: %d threads (max), %d processors\n", omp_get_max_threads(), omp_get_num_procs());
    char wait[256];
    cli_wait_env_describe(wait, sizeof wait);
    printf("idle threads: %s\n", wait);
    char dev[1024];
    dev[0] = '\0';
    int have = bnl_backend_describe(BNL_CUDA, dev, sizeof dev);
    if (!dev[0])
        snprintf(dev, sizeof dev, "cuda: no device (driver not found) — using CPU");
    /* without a usable device every backend request runs on the CPU */
    const char *tail = !have && !strstr(dev, "using CPU") ? " — using CPU" : "";
    printf("%s%s%s\n", strncmp(dev, "cuda", 4) ? "cuda: " : "", dev, tail);
    return FSVC_OK;
}
