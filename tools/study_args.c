/* study_args.c - the options of `fsvc study` and its output name. */
#include "tools/study_cli.h"
#include "tools/run_opts.h"

#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(const fsvc_param *p)
{
    printf("usage: fsvc study [options] DATA [TEST]\n\n"
           "Runs every point of a grid of training settings on DATA, measures each\n"
           "on TEST and/or by K-fold cross-validation on DATA, and writes one CSV row\n"
           "per point (appended and flushed as it finishes) plus PNG plots.\n\n"
           "options (default):\n"
           "  --vary NAME=V1,V2,...  an axis of the grid (repeatable; the first is the\n"
           "                  swept axis of the plots). NAMEs: radius (R, Xrms or auto),\n"
           "                  prag, dist, kernel, select, readout, lambda, eta, epochs,\n"
           "                  scale, dtype, preprocess, features, max-neurons, shuffle,\n"
           "                  seed, backend, threads\n"
           "  --readout A,B   same as --vary readout=A,B (one value: a fixed setting)\n"
           "  --radius R|Xrms|auto  same as --vary radius=... (auto: the author's search:\n"
           "                  prag 1, halve r until centroids are 1-10%% of N, refine)\n"
           "  -r -p -d -k -s -R -l -e -E --scale --dtype --preprocess --features\n"
           "  --shuffle --max-neurons --backend --threads --solver --cg-tol   fixed\n"
           "                  settings, as in 'fsvc train'\n"
           "  --strict        --backend cuda: fail (exit 3) instead of falling back\n"
           "                  (defaults: those of 'fsvc train': radius %s, prag %g,\n"
           "                  %s readout, lambda %g, eta %g, epochs %d)\n"
           "  -v K            K-fold stratified cross-validation on DATA (off); with a\n"
           "                  grid the best point by CV is reported with its test accuracy\n"
           "  --seed S        the seed of the folds, the --val split and training\n"
           "                  (shuffle, -s random); --vary seed=... varies training's\n"
           "                  (folds 1, training fsvc train's seed 0)\n"
           "  --val F         LMS points: hold out a stratified fraction F of DATA,\n"
           "                  record train/validation error per epoch (off)\n"
           "  --keep best|last  LMS readout kept with --val (best)\n"
           "  --max-train N   use the first N samples of DATA (all)\n"
           "  --max-test N    use the first N samples of TEST (all)\n"
           "  -o DIR          output folder (fsvc-study-NAME, made in the working\n"
           "                  directory)\n"
           "  --name NAME     CSV DIR/study-NAME.csv (DATA's basename)\n"
           "  --resume        keep the CSV and skip the points already in it; refused\n"
           "                  (exit 2) for a CSV made with other data or fixed settings\n"
           "  --no-plots      CSV only\n"
           "  --regression    ridge regression on the label values (as 'fsvc train\n"
           "                  --regression'): every point is scored by R^2 (columns\n"
           "                  r2_test, cv_r2, cv_r2_sd; -v K: seeded unstratified\n"
           "                  folds) and the RMSE on the progress lines; the best point\n"
           "                  is the highest CV R^2\n"
           "  --sparse, --dense  LIBSVM data: read it sparse (CSR; the sparse training\n"
           "                  of 'fsvc train': no LMS, kmeans++, preprocessing, ...;\n"
           "                  a point that needs them is refused before any runs) or\n"
           "                  dense [auto: as 'fsvc train' reads it]\n"
           "  -q              no per-point progress lines (the best point is printed)\n"
           "  --no-warm       every point trained from scratch. By default the points\n"
           "                  that differ only in lambda (the ridge readout by pcg or\n"
           "                  auto, dense data, no class weights or augmentation) form a\n"
           "                  lambda path: the training on DATA and each CV fold select\n"
           "                  the centroids once, share H (cached when it fits), and\n"
           "                  solve the lambdas from the largest down, each CG started\n"
           "                  from the previous solution (CSV: cg_iter, cv_cg_iter,\n"
           "                  warm_from; t_train_s: the point's share, the selection\n"
           "                  split evenly). The same models within --cg-tol.\n\n"
           "With -v the best point by CV (ties: fewer centroids, then the larger lambda)\n"
           "is printed as a ready 'fsvc train' command and written to\n"
           "DIR/study-NAME-best.txt.\n\n"
           "Under mpirun -np K the points (a lambda path: its points together) run K at\n"
           "a time, one per process; rank 0 writes the same CSV rows as one process.\n",
           p->radius > 0 ? "given" : p->radius_rms > 0 ? "Xrms" : "auto", p->prag, fsvc_readout_name(p->readout),
           p->lambda, p->eta, p->epochs);
}

static int set_fixed(study_opts *o, const char *name, const char *value)
{
    fsvc_error err;
    fsvc_error_clear(&err);
    if (fsvc_param_set(&o->base, name, value, &err))
        return cli_usage_error("study", "%s", err.msg);
    return 0;
}

/* --readout/--radius: an axis when given a list, else a fixed setting. */
static int set_or_vary(study_opts *o, const char *name, const char *value)
{
    if (!strchr(value, ',')) return set_fixed(o, name, value);
    char spec[1024];
    snprintf(spec, sizeof spec, "%s=%s", name, value);
    fsvc_error err;
    fsvc_error_clear(&err);
    if (fsvc_grid_add(&o->grid, spec, &err))
        return cli_usage_error("study", "%s", err.msg);
    return 0;
}

int study_parse(study_opts *o, int argc, char **argv)
{
    static const struct option own[] = {
        {"vary", 1, 0, 1}, {"readout", 1, 0, 2}, {"radius", 1, 0, 3}, {"scale", 1, 0, 4},
        {"dtype", 1, 0, 5}, {"shuffle", 1, 0, 6}, {"max-neurons", 1, 0, 7},
        {"seed", 1, 0, 10}, {"val", 1, 0, 11},
        {"keep", 1, 0, 12}, {"max-train", 1, 0, 13}, {"max-test", 1, 0, 14},
        {"name", 1, 0, 15}, {"resume", 0, 0, 16}, {"no-plots", 0, 0, 17},
        {"preprocess", 1, 0, 18}, {"no-warm", 0, 0, 20},
        {"solver", 1, 0, 21}, {"cg-tol", 1, 0, 22}, {"sparse", 0, 0, 23}, {"dense", 0, 0, 24},
        {"regression", 0, 0, 25}, {"features", 1, 0, 26},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    run_opts r; /* --backend, --threads (fixed settings) and --strict: run_opts.c */
    run_opts_init(&r, RUN_ENGINE);
    struct option lo[32];
    run_opts_longopts(lo, 32, own, &r);
    static const char *const short_name[128] = {
        ['r'] = "radius", ['p'] = "prag", ['d'] = "dist", ['k'] = "kernel", ['s'] = "select",
        ['R'] = "readout", ['l'] = "lambda", ['e'] = "eta", ['E'] = "epochs"};
    static const char *const long_name[] = {
        [4] = "scale", [5] = "dtype", [6] = "shuffle", [7] = "max-neurons",
        [18] = "preprocess", [21] = "solver",
        [22] = "cg-tol", [26] = "features"};
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c, rc;
    long lv;
    fsvc_error err;
    while ((c = getopt_long(argc, argv, ":r:p:d:k:s:R:l:e:E:v:o:qh", lo, NULL)) != -1) {
        if (run_opts_take(&r, "study", c, optarg, &rc)) {
            if (rc) return rc;
            continue;
        }
        int bad = 0;
        fsvc_error_clear(&err);
        switch (c) {
        case 'r': case 'p': case 'd': case 'k': case 's': case 'R': case 'l': case 'e': case 'E':
            bad = cli_libsvm_hint("study", c, argc, argv) || set_fixed(o, short_name[c], optarg);
            break;
        case 4: case 5: case 6: case 7: case 18: case 21: case 22: case 26:
            bad = set_fixed(o, long_name[c], optarg); break;
        case 1:
            if (fsvc_grid_add(&o->grid, optarg, &err))
                bad = cli_usage_error("study", "%s", err.msg);
            break;
        case 2: bad = set_or_vary(o, "readout", optarg); break;
        case 3: bad = set_or_vary(o, "radius", optarg); break;
        case 'v': bad = cli_parse_long("study", "-v", optarg, 2, 64, &lv); o->folds = (int)lv; break;
        case 'o': o->dir = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'h': help(&o->base); return PARSE_HELP;
        case 10: bad = cli_parse_long("study", "--seed", optarg, 0, 0x7fffffffffffffffL, &lv);
                 o->seed = (uint64_t)lv;
                 o->base.seed = (uint64_t)lv; /* one seed: folds, --val split, training */
                 break;
        case 11: bad = cli_parse_double("study", "--val", optarg, 1e-3, 0.9, &o->val); break;
        case 12:
            if (!strcmp(optarg, "best")) o->keep_best = 1;
            else if (!strcmp(optarg, "last")) o->keep_best = 0;
            else bad = cli_usage_error("study", "--keep: '%s' is not best or last", optarg);
            break;
        case 13: bad = cli_parse_long("study", "--max-train", optarg, 1, 1L << 40, &lv); o->max_train = lv; break;
        case 14: bad = cli_parse_long("study", "--max-test", optarg, 1, 1L << 40, &lv); o->max_test = lv; break;
        case 15:
            if (!*optarg || strchr(optarg, '/'))
                bad = cli_usage_error("study", "--name: '%s' must be a plain file name part", optarg);
            o->name = optarg;
            break;
        case 16: o->resume = 1; break;
        case 17: o->plots = 0; break;
        case 20: o->no_warm = 1; break;
        case 23: o->storage = FSVC_STORE_SPARSE; break;
        case 24: o->storage = FSVC_STORE_DENSE; break;
        case 25: o->regression = 1; bad = set_fixed(o, "regression", "on"); break;
        default:
            return cli_libsvm_hint("study", c, argc, argv) ? FSVC_EUSAGE
                                                           : cli_option_error("study", c, argv);
        }
        if (bad) return FSVC_EUSAGE;
    }
    if (r.given & RUN_BACKEND) o->base.backend = r.backend;
    if (r.given & RUN_THREADS) o->base.threads = r.threads;
    int nargs = argc - optind;
    if (nargs < 1 || nargs > 2)
        return cli_usage_error("study", "expected DATA [TEST]");
    o->data = argv[optind];
    o->test = nargs == 2 ? argv[optind + 1] : NULL;
    if (!o->test && !o->folds)
        return cli_usage_error("study", "nothing to measure: give TEST or -v K");
    if (fsvc_grid_size(&o->grid) > 100000)
        return cli_usage_error("study", "the grid has %lld points, more than 100000",
                               (long long)fsvc_grid_size(&o->grid));
    /* check every point's settings together (e.g. regression needs ridge) */
    for (int64_t k = 0; k < fsvc_grid_size(&o->grid); k++) {
        fsvc_param p = o->base;
        char key[1024];
        if (fsvc_grid_point(&p, key, sizeof key, &o->grid, k, &err))
            return cli_usage_error("study", "%s", err.msg);
        if (p.readout == FSVC_READOUT_RIDGE && !(p.lambda > 0))
            return cli_usage_error("study", "point %s: ridge needs lambda > 0", key);
        /* one score for the whole grid: R^2 with --regression, else accuracy */
        if (p.regression && !o->regression)
            return cli_usage_error("study", "point %s is a regression: give --regression (the "
                                   "score is then R^2, not accuracy)", key[0] ? key : "default");
        if (o->regression && !p.regression)
            return cli_usage_error("study", "--regression: point %s has regression=off", key);
        if (o->regression && fsvc_param_check(&p, &err))
            return cli_usage_error("study", "--regression: point %s: %s",
                                   key[0] ? key : "default", err.msg);
        if (cli_backend_check(p.backend, r.strict, &err))
            return cli_report(&err);
    }
    return FSVC_OK;
}

char *study_name(const study_opts *o)
{
    if (o->name) return strdup(o->name);
    char *tmp = strdup(o->data), *name = NULL;
    if (!tmp) return NULL;
    size_t l = strlen(tmp);
    while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
    char *base = basename(tmp);
    char *dot = strchr(base, '.');
    if (dot && dot != base) {
        *dot = 0;
        name = strdup(base);
    } else if (!dot && base != tmp) {
        /* an IDX prefix DIR/train: name it after the folder too */
        char *b = strdup(base);
        base[-1] = 0;
        if (b && asprintf(&name, "%.120s-%.120s", basename(tmp), b) < 0) name = NULL;
        free(b);
    } else {
        name = strdup(base);
    }
    free(tmp);
    return name;
}
