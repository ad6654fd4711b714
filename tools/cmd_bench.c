/* cmd_bench.c - `fsvc bench`: t_syn of one BNL configuration, or the
 * paper's tables re-measured (--paper). */
#include "tools/bench.h"
#include "tools/args.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Before measuring: the folder of the output file path exists (created
 * with its parents, like mkdir -p) and is writable, and path is not a
 * folder; else FSVC_ERESOURCE naming the path and the cause. */
static int prepare_output(const char *path, fsvc_error *err)
{
    char *tmp = strdup(path), *dir = tmp ? strdup(dirname(tmp)) : NULL; /* dirname: maybe static */
    free(tmp);
    if (!dir) return fsvc_fail(err, FSVC_ERESOURCE, "bench: out of memory");
    int rc = FSVC_OK;
    for (char *p = dir + 1; ; p++) { /* each prefix folder in turn */
        char c = *p;
        if (c != '/' && c != 0) continue;
        *p = 0;
        struct stat st;
        if (stat(dir, &st) != 0) {
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
                rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot create the folder %s: %s", path,
                               dir, strerror(errno));
                break;
            }
        } else if (!S_ISDIR(st.st_mode)) {
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: %s is not a folder", path, dir);
            break;
        }
        *p = c;
        if (!c) break;
    }
    struct stat st;
    if (!rc && access(dir, W_OK) != 0)
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write in %s: %s", path, dir,
                       strerror(errno));
    else if (!rc && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: is a folder, not a file", path);
    free(dir);
    return rc;
}

static void usage(FILE *f, const bench_cfg *d, const run_opts *r)
{
    fprintf(f,
            "usage: fsvc bench [options]\n"
            "       fsvc bench --paper [--csv FILE] [--png FILE] [--threads T]\n\n"
            "Times H = act(dist(W, X)) for m neurons over N samples of n values and\n"
            "prints min and median time, t_syn = seconds / (n m N) in ns, G synapses/s,\n"
            "the fraction of the peak of the kernel's own instructions measured on this\n"
            "machine (a register-only probe on the same threads), and the speed-up over\n"
            "`ref` measured in the same run (on a sub-sample of N, scaled).\n\n"
            "  --op OP        rbf-l1 (L1, triangular), rbf-l2 (L2, Gaussian), mul (dot, tanh)\n"
            "                 (default %s)\n"
            "  --act A        tri or gauss for rbf-l2 (default gauss)\n"
            "  --dtype T      u8, f32, f64 (default %s)\n"
            "  -m M -N N -n n layer size (default %lld %lld %d)\n",
            bench_op_name(d->opk), fsvc_dtype_name(d->dtype), (long long)d->m, (long long)d->N,
            d->n);
    run_opts_help(f, r);
    fprintf(f,
            "  -r R           repeats (default %d)\n"
            "  --tile NxM     force tile_N x tile_m (default: the planner's)\n"
            "  --precision P  full, tf32, bf16: the GEMM operands of f32 L2 / dot\n"
            "                 (default full; bf16 runs vdpbf16ps on the avx512bf16 tier)\n"
            "  --no-ref       skip the ref measurement\n"
            "  -v             print the plan, the kernel-only time and 1-thread scaling\n"
            "  --paper        re-measure the paper's Table III/IV and best BNL configurations\n"
            "  --targets      measure issue 3's targets (m = N = 4096, n = 784)\n"
            "  --tiers        the layer (rbf-l2, or --op mul) on every CPU tier this machine\n"
            "                 runs, u8 and f32 (full, bf16), each against today's kernels\n"
            "                 of its dtype (FSVC_ARCH=avx512) in the same run\n"
            "  --csv FILE     --paper: default fsvc-bench/bnl-cpu.csv;\n"
            "                 --targets: default fsvc-bench/bnl-cpu-targets.csv\n"
            "  --png FILE     (--paper) default fsvc-bench/bnl-cpu-tsyn-vs-n.png\n"
            "                 (fsvc-bench/: made in the working directory; make results\n"
            "                 names results/ files)\n",
            d->repeats);
}

static void print_result(const bench_cfg *c, const bench_res *r)
{
    bnl_op op = bench_make_op(c);
    printf("bench %s %s/%s %s%s%s m=%lld N=%lld n=%d backend=%s arch=%s threads=%d\n",
           bench_op_name(c->opk), bnl_dist_name(op.dist), bnl_act_name(op.act),
           fsvc_dtype_name(c->dtype), bnl_op_reduced(&op) ? " precision=" : "",
           bnl_op_reduced(&op) ? bnl_precision_name(op.precision) : "", (long long)c->m,
           (long long)c->N, c->n, r->backend_used, r->arch, r->plan.threads);
    if (c->verbose)
        printf("  plan: path=%s kernel=%s tile_N=%lld tile_m=%lld tiles=%lld threads=%d\n",
               r->plan.path, r->plan.kernel, (long long)r->plan.tile_N, (long long)r->plan.tile_m,
               (long long)r->plan.tiles, r->plan.threads);
    printf("  time: min %.6f s, median %.6f s (%d repeats)\n", r->t_min, r->t_med,
           c->repeats);
    if (r->gpu_peak > 0) {
        printf("  end to end (host data: packing, H2D, kernels, D2H): t_syn = %.5f ns, %.2f G "
               "synapses/s, %.1f%% of the GPU's peak\n", r->t_syn, r->gsyn,
               100.0 * r->peak_frac);
        if (r->gpu_kern_min > 0)
            printf("  kernel only (W, X, H resident; CUDA events): %.6f s, t_syn = %.5f ns, "
                   "%.1f%% of the GPU's peak; end to end / kernel = %.2fx\n", r->gpu_kern_min,
                   r->gpu_kern_syn, 100.0 * r->gpu_kern_frac, r->t_min / r->gpu_kern_min);
        printf("  GPU peak: %.4g G synapses/s (%s)\n", r->gpu_peak / 1e9, r->gpu_model);
    } else {
        printf("  t_syn = %.5f ns, %.2f G synapses/s", r->t_syn, r->gsyn);
        if (r->probe_peak > 0)
            printf(", %.1f%% of peak\n", 100.0 * r->peak_frac);
        else
            printf(" (no peak: kernel %s has no probe)\n", r->plan.kernel);
    }
    printf("  CPU-time t_syn = %.5f ns (CPU seconds / threads / synapses; load average %.1f "
           "on %s)\n", r->t_syn_cpu, r->load1, "this machine");
    if (r->probe_peak > 0)
        printf("  peak: %.4g G synapses/s measured on %d threads (register probe of %s, "
               "kernel %s's instructions per synapse); the layer per CPU second: %.1f%% of it\n",
               r->probe_peak / 1e9, r->plan.threads, r->probe_what, r->plan.kernel,
               100.0 * r->probe_frac);
    if (r->ref_t_syn > 0)
        printf("  ref: t_syn = %.4f ns measured on m=%lld N=%lld (a sub-sample, scaled); "
               "speed-up %.1fx\n", r->ref_t_syn, (long long)r->ref_m, (long long)r->ref_N,
               r->speedup);
    if (r->gemm_min > 0)
        printf("  bare %s same shape: %.6f s; this op / bare = %.3fx (CPU time %.3fx)\n",
               c->dtype == FSVC_F32 ? "sgemm" : "dgemm", r->gemm_min, r->t_min / r->gemm_min,
               r->cpu_min / r->gemm_cpu_min);
    if (r->kern_min > 0)
        printf("  kernels only (same tiles, no activation): %.6f s; full / kernels = %.3fx\n",
               r->kern_min, r->t_min / r->kern_min);
    if (r->kern1_min > 0)
        printf("  kernels only, 1 thread: %.6f s; %d threads scale %.2fx\n", r->kern1_min,
               r->plan.threads, r->kern1_min / r->kern_min);
}

enum { O_OP = CLI_LONG, O_ACT, O_DTYPE, O_TILE, O_PRECISION, O_CSV, O_PNG, O_PAPER,
       O_TARGETS, O_TIERS, O_NOREF, O_HELP };

/* One option's value (c from getopt_long) into *c, or a usage error. */
static int bench_opt(bench_cfg *c, int o, const char *v, int *act_set)
{
    const char *cmd = "bench";
    long lv;
    char flag[3] = {'-', (char)o, 0};
    switch (o) {
    case O_OP:
        if (bench_op_parse(v, &c->opk))
            return cli_usage_error(cmd, "--op: '%s' is not rbf-l1, rbf-l2 or mul", v);
        return 0;
    case O_ACT:
        if (bnl_act_parse(v, &c->act) || (c->act != BNL_TRI && c->act != BNL_GAUSS))
            return cli_usage_error(cmd, "--act: '%s' is not tri or gauss", v);
        *act_set = 1;
        return 0;
    case O_DTYPE:
        if (fsvc_dtype_parse(v, &c->dtype))
            return cli_usage_error(cmd, "--dtype: '%s' is not u8, f32 or f64", v);
        return 0;
    case 'm': case 'N':
        if (cli_parse_long(cmd, flag, v, 1, 1L << 24, &lv)) return FSVC_EUSAGE;
        if (o == 'm') c->m = lv; else c->N = lv;
        return 0;
    case 'n':
        if (cli_parse_long(cmd, flag, v, 1, 65536, &lv)) return FSVC_EUSAGE;
        c->n = (int)lv;
        return 0;
    case 'r':
        if (cli_parse_long(cmd, flag, v, 1, 1000, &lv)) return FSVC_EUSAGE;
        c->repeats = (int)lv;
        return 0;
    case O_TILE: {
        long long tn, tm;
        int used = 0;
        if (sscanf(v, "%lldx%lld%n", &tn, &tm, &used) != 2 || v[used] || tn < 1 || tm < 1 ||
            tn > (1LL << 24) || tm > (1LL << 24))
            return cli_usage_error(cmd, "--tile: '%s' is not NxM (e.g. 256x1024)", v);
        c->tile_N = tn;
        c->tile_m = tm;
        return 0;
    }
    default: /* O_PRECISION */
        if (bnl_precision_parse(v, &c->precision))
            return cli_usage_error(cmd, "--precision: '%s' is not full, tf32 or bf16", v);
        return 0;
    }
}

int bench_parse(bench_args *ba, int argc, char **argv)
{
    memset(ba, 0, sizeof *ba);
    bench_cfg c = {0};
    c.opk = BENCH_RBF_L1;
    c.act = BNL_TRI;
    c.dtype = FSVC_F32;
    c.m = c.N = 4096;
    c.n = 784;
    c.repeats = 5;
    run_opts r;
    run_opts_init(&r, RUN_ENGINE);
    int paper = 0, targets = 0, tiers = 0, act_set = 0;
    /* a folder of its own in the working directory, never a tracked file */
    const char *csv = "fsvc-bench/bnl-cpu.csv", *png = "fsvc-bench/bnl-cpu-tsyn-vs-n.png";
    const char *tcsv = "fsvc-bench/bnl-cpu-targets.csv";
    static const struct option own[] = {
        {"op", 1, 0, O_OP}, {"act", 1, 0, O_ACT}, {"dtype", 1, 0, O_DTYPE},
        {"tile", 1, 0, O_TILE}, {"precision", 1, 0, O_PRECISION}, {"csv", 1, 0, O_CSV},
        {"png", 1, 0, O_PNG}, {"paper", 0, 0, O_PAPER}, {"targets", 0, 0, O_TARGETS},
        {"tiers", 0, 0, O_TIERS},
        {"no-ref", 0, 0, O_NOREF}, {"help", 0, 0, O_HELP}, {0, 0, 0, 0}};
    struct option lo[16];
    run_opts_longopts(lo, 16, own, &r);
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int o, rc;
    while ((o = getopt_long(argc, argv, ":hvm:N:n:r:", lo, NULL)) != -1) {
        if (run_opts_take(&r, "bench", o, optarg, &rc)) {
            if (rc) return rc;
            continue;
        }
        switch (o) {
        case 'h': case O_HELP:
            c.backend = r.backend;
            usage(stdout, &c, &r);
            return FSVC_OK;
        case 'v': c.verbose = 1; break;
        case O_PAPER: paper = 1; break;
        case O_TARGETS: targets = 1; break;
        case O_TIERS: tiers = 1; break;
        case O_NOREF: c.no_ref = 1; break;
        case O_CSV: csv = tcsv = optarg; break;
        case O_PNG: png = optarg; break;
        case O_OP: case O_ACT: case O_DTYPE: case O_TILE: case O_PRECISION:
        case 'm': case 'N': case 'n': case 'r':
            if (bench_opt(&c, o, optarg, &act_set)) return FSVC_EUSAGE;
            break;
        default: return cli_option_error("bench", o, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("bench", "unexpected argument '%s' (bench reads no files)",
                               argv[optind]);
    c.backend = r.backend;
    c.threads = r.threads;
    c.strict = r.strict;
    if (tiers && c.opk == BENCH_RBF_L1)
        c.opk = BENCH_RBF_L2; /* L1 runs the same kernels on every tier above avx512 */
    if (!act_set)
        c.act = c.opk == BENCH_RBF_L1 ? BNL_TRI : c.opk == BENCH_RBF_L2 ? BNL_GAUSS : BNL_TANH;
    else if (c.opk == BENCH_MUL)
        return cli_usage_error("bench", "--act applies to rbf-l1 and rbf-l2 only");
    if (c.opk == BENCH_MUL && c.dtype == FSVC_U8)
        c.act = BNL_IDENT; /* tanh of integer dot products is 1 everywhere */
    ba->c = c;
    ba->paper = paper;
    ba->targets = targets;
    ba->tiers = tiers;
    ba->csv = csv;
    ba->png = png;
    ba->tcsv = tcsv;
    return CLI_RUN;
}

int cmd_bench(int argc, char **argv)
{
    bench_args ba;
    int prc = bench_parse(&ba, argc, argv);
    if (prc != CLI_RUN)
        return prc;
    bench_cfg c = ba.c;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (cli_backend_check(c.backend, c.strict, &err))
        return cli_report(&err);
    if (ba.paper || ba.targets) {
        char line[2048];
        size_t off = 0;
        for (int i = 0; i < argc && off < sizeof line - 2; i++)
            off += (size_t)snprintf(line + off, sizeof line - off, "%s%s", i ? " " : "fsvc ",
                                    argv[i]);
        /* the output paths are checked before minutes of measuring */
        int rc = ba.paper ? prepare_output(ba.csv, &err) : prepare_output(ba.tcsv, &err);
        if (!rc && ba.paper) rc = prepare_output(ba.png, &err);
        if (rc) return cli_report(&err);
        rc = ba.paper ? bench_paper(&c, ba.csv, ba.png, line, &err)
                      : bench_targets(&c, ba.tcsv, line, &err);
        return rc ? cli_report(&err) : FSVC_OK;
    }
    if (ba.tiers) {
        bench_tier rows[BENCH_TIERS_MAX];
        int nr = bench_tier_rows(rows);
        if (!nr) {
            printf("tiers: this CPU runs no tier above its baseline\n");
            return FSVC_OK;
        }
        return bench_tiers_run(&c, rows, nr, &err) ? cli_report(&err) : FSVC_OK;
    }
    bench_res r;
    int rc = bench_run(&r, &c, &err);
    if (rc)
        return cli_report(&err);
    print_result(&c, &r);
    return FSVC_OK;
}
