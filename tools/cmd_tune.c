/*
 * cmd_tune.c - fsvc tune --backend cuda: searches the BNL size M (tile
 * m x N = M^2 pairs, asymmetry As = N / M) on the present GPU, prints a
 * table like the paper's Tables I-II (seconds per BNL, t_syn) and stores
 * the best M in the per-device tune file that later runs read.
 *
 * The block size B is fixed by the tile kernel (16 x 16 = 256 threads on a
 * 128 x 128 tile, cuda/kernels_hd.h) and printed; M and As are searched.
 * Times are whole bnl_cuda_forward calls (packing, H2D, kernel, D2H of H),
 * as the paper's GPU times include the transfer of H back.
 */
#include "tools/args.h"
#include "layers/bnl.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fsvc tune --backend cuda [options]\n\n"
            "Searches the BNL size M (and the asymmetry As) on this GPU, prints seconds\n"
            "per BNL and t_syn = seconds / (n M^2), and stores the best M in the\n"
            "device's tune file, read by every later run of the CUDA backend.\n\n"
            "  --backend B   cuda (cpu: the CPU engine sizes its own cache blocks)\n"
            "  --dtype T     u8 or f32 (default u8)\n"
            "  --n N         features per sample (default 784)\n"
            "  --max-M M     largest M tried (default 16384)\n"
            "  --out FILE    tune file to write (default $FSVC_TUNE_FILE, else\n"
            "                ~/.cache/fsvc/tune-<device>.txt)\n"
            "  --dry-run     print the table, write nothing\n");
}

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint8_t rbyte(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint8_t)(rs >> 32);
}

enum { O_DTYPE = CLI_LONG, O_OUT, O_N, O_MAXM, O_DRY, O_HELP };

int tune_parse(tune_args *t, int argc, char **argv)
{
    memset(t, 0, sizeof *t);
    t->dtype = "u8";
    t->n = 784;
    t->max_M = 16384;
    run_opts r;
    run_opts_init(&r, RUN_BACKEND);
    static const struct option own[] = {
        {"dtype", 1, 0, O_DTYPE}, {"out", 1, 0, O_OUT}, {"n", 1, 0, O_N},
        {"max-M", 1, 0, O_MAXM}, {"dry-run", 0, 0, O_DRY}, {"help", 0, 0, O_HELP},
        {0, 0, 0, 0}};
    struct option lo[8];
    run_opts_longopts(lo, 8, own, &r);
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        if (run_opts_take(&r, "tune", c, optarg, &rc)) {
            if (rc) return rc;
            continue;
        }
        switch (c) {
        case 'h': case O_HELP: usage(stdout); return FSVC_OK;
        case O_DRY: t->dry = 1; break;
        case O_DTYPE: t->dtype = optarg; break;
        case O_OUT: t->out = optarg; break;
        case O_N:
            if (cli_parse_long("tune", "--n", optarg, 1, 1 << 16, &t->n)) return FSVC_EUSAGE;
            break;
        case O_MAXM:
            if (cli_parse_long("tune", "--max-M", optarg, 128, 1 << 20, &t->max_M))
                return FSVC_EUSAGE;
            break;
        default: return cli_option_error("tune", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("tune", "unexpected argument '%s' (tune reads no files)",
                               argv[optind]);
    if (!(r.given & RUN_BACKEND))
        return cli_usage_error("tune", "--backend cuda is required");
    t->backend = r.backend;
    if (strcmp(t->backend, "cuda") != 0)
        return cli_usage_error("tune", "--backend %s: only 'cuda' is tuned by this command "
                                       "(the CPU engine sizes its cache blocks itself)", t->backend);
    fsvc_dtype dt;
    if (fsvc_dtype_parse(t->dtype, &dt) != 0 || dt == FSVC_F64)
        return cli_usage_error("tune", "--dtype %s: u8 or f32", t->dtype);
    return CLI_RUN;
}

int cmd_tune(int argc, char **argv)
{
    tune_args t;
    int prc = tune_parse(&t, argc, argv);
    if (prc != CLI_RUN)
        return prc;
    const char *out = t.out;
    long n = t.n, max_M = t.max_M;
    int dry = t.dry;
    fsvc_dtype dt;
    fsvc_dtype_parse(t.dtype, &dt);

    fsvc_error err;
    bnl_ctx ctx;
    if (bnl_ctx_open(&ctx, "cuda", 1, 1, &err) != FSVC_OK) { /* strict: no CPU fallback */
        fprintf(stderr, "fsvc tune: %s\n", err.msg);
        return FSVC_ERESOURCE;
    }
    bnlc_device dev;
    char read_from[512];
    bnl_gpu_props(&ctx, &dev, read_from, sizeof read_from);
    char tag[128];
    bnl_gpu_device_tag(&ctx, tag, sizeof tag);
    bnlc_limits keep, lim;
    bnl_gpu_limits(&ctx, &keep, NULL);

    size_t es = dt == FSVC_U8 ? 1 : 4;
    int64_t cap = max_M * 4; /* the largest side: N = 4 M at As = 4 */
    void *W = malloc((size_t)cap * n * es), *X = malloc((size_t)cap * n * es);
    float *H = malloc(sizeof(float) * (size_t)max_M * max_M);
    if (!W || !X || !H) {
        free(W); free(X); free(H); bnl_ctx_close(&ctx);
        fprintf(stderr, "fsvc tune: out of host memory for M = %ld\n", max_M);
        return FSVC_ERESOURCE;
    }
    for (int64_t e = 0; e < cap * n; e++) {
        if (dt == FSVC_U8) { ((uint8_t *)W)[e] = rbyte(); ((uint8_t *)X)[e] = rbyte(); }
        else { ((float *)W)[e] = rbyte() / 255.0f; ((float *)X)[e] = rbyte() / 255.0f; }
    }
    bnl_op op = {BNL_L1, BNL_TRI, dt, 1e6, BNL_PREC_FULL};
    printf("fsvc tune --backend cuda: %s (cc %d.%d, %d SMs), %s L1 triangular, n = %ld\n"
           "B = 256 threads (16 x 16, a 128 x 128 tile per block); times include H2D and D2H\n\n",
           dev.name, dev.cc_major, dev.cc_minor, dev.sms, fsvc_dtype_name(dt), n);
    printf("%7s %4s %7s %7s %12s %10s\n", "M", "As", "m", "N", "s per BNL", "t_syn ns");
    double best = 0;
    int64_t best_M = 0;
    int best_as = 1;
    const int as_list[] = {1, 4};
    int stop = 0;
    for (int64_t M = 512; M <= max_M && !stop; M *= 2)
        for (int a = 0; a < 2; a++) {
            int As = as_list[a];
            int64_t m = M / As, N = M * As;
            lim = keep;
            lim.max_M = 0;            /* one BNL per call */
            lim.max_launch_syn = 1e30;
            lim.max_out_bytes = 0;
            bnl_gpu_limits(&ctx, NULL, &lim);
            double t0 = cli_now();
            int rc = bnl_forward(&ctx, &op, H, m, W, m, X, N, (int)n, &err); /* warm-up */
            double once = cli_now() - t0;
            int reps = once < 0.05 ? 5 : once < 0.5 ? 2 : 1;
            t0 = cli_now();
            for (int r = 0; rc == FSVC_OK && r < reps; r++)
                rc = bnl_forward(&ctx, &op, H, m, W, m, X, N, (int)n, &err);
            double s = (cli_now() - t0) / reps;
            if (rc != FSVC_OK) {
                printf("%7lld %4d %7lld %7lld %12s %10s  (%s)\n", (long long)M, As, (long long)m,
                       (long long)N, "*", "*", err.msg);
                continue;
            }
            double ts = s / ((double)n * M * M) * 1e9;
            printf("%7lld %4d %7lld %7lld %12.6f %10.5f\n", (long long)M, As, (long long)m,
                   (long long)N, s, ts);
            fflush(stdout);
            if (best == 0 || ts < best) { best = ts; best_M = M; best_as = As; }
            if (s > 20.0)
                stop = 1; /* long enough: stop growing M */
        }
    bnl_gpu_limits(&ctx, NULL, &keep);
    free(W); free(X); free(H);
    if (best_M == 0) {
        bnl_ctx_close(&ctx);
        fprintf(stderr, "fsvc tune: no BNL size ran on this device\n");
        return FSVC_ERESOURCE;
    }
    printf("\nbest: M = %lld (As %d), t_syn %.5f ns; paper (GTX 750, float64): 0.13 ns\n",
           (long long)best_M, best_as, best);
    int rc = FSVC_OK;
    if (!dry) {
        char dflt[4096];
        const char *path = out; /* --out as given, never cut */
        if (!path && bnl_gpu_tune_path(dflt, sizeof dflt, tag) != 0) {
            bnl_ctx_close(&ctx);
            fprintf(stderr, "fsvc tune: no HOME or XDG_CACHE_HOME for the tune file; use --out\n");
            return FSVC_ERESOURCE;
        }
        if (!path)
            path = dflt;
        lim = keep;
        lim.max_M = best_M;
        char note[256];
        snprintf(note, sizeof note, "%s %s L1, n %ld: best t_syn %.5f ns at M %lld", dev.name,
                 fsvc_dtype_name(dt), n, best, (long long)best_M);
        rc = bnl_gpu_tune_write(path, tag, &lim, note, &err);
        if (rc)
            fprintf(stderr, "fsvc tune: %s\n", err.msg);
        else
            printf("wrote %s (max_M %lld)\n", path, (long long)best_M);
    }
    bnl_ctx_close(&ctx);
    return rc;
}
