/* cmd_study.c - `fsvc study DATA [TEST] --vary NAME=V1,V2 ...`: runs the
 * grid (cartesian product of the --vary axes), one row per point appended
 * (one checked, synced write) to DIR/study-NAME.csv, then plots from the
 * CSV. -v K adds stratified K-fold cross-validation on DATA and picks the
 * best point by it (never by the test set). Every row carries the point's
 * settings string (data, every fixed and varied setting, folds, seed):
 * --resume skips the points whose settings are already in the CSV and
 * refuses a CSV made with other data or fixed settings. The CSV is the
 * header and the rows only (a plain pandas.read_csv reads it); the command,
 * machine, resumes and best point go to DIR/study-NAME-about.txt. A best
 * point at the end of a numeric axis is flagged. --val F trains LMS
 * points with a validation split (curve + PNG). Any failed write or plot
 * exits 3 naming the file; nothing is left half-written. */
#include "tools/cli.h"
#include "tools/dist.h"
#include "tools/plot.h"
#include "tools/run_opts.h"
#include "tools/study_out.h"
#include "fsvc/study.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define SETTINGS_MAX 32768      /* two escaped paths of PATH_MAX and the settings */

typedef struct study_opts {
    const char *data, *test, *dir, *name;
    fsvc_grid grid;
    fsvc_param base;
    int folds;              /* -v K, 0: none */
    uint64_t seed;          /* folds and --val split */
    double val;             /* --val fraction, 0: none */
    int keep_best;
    int resume, quiet, plots;
    int no_warm;            /* --no-warm: every point from scratch */
    int64_t max_train, max_test;
} study_opts;

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
           "                  scale, dtype, preprocess, max-neurons, shuffle, seed, backend,\n"
           "                  threads\n"
           "  --readout A,B   same as --vary readout=A,B (one value: a fixed setting)\n"
           "  --radius R|Xrms|auto  same as --vary radius=... (auto: the author's search:\n"
           "                  prag 1, halve r until centroids are 1-10%% of N, refine)\n"
           "  -r -p -d -k -s -R -l -e -E --scale --dtype --preprocess --shuffle\n"
           "  --max-neurons --backend --threads --solver --cg-tol   fixed settings, as\n"
           "                  in 'fsvc train'\n"
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

#define PARSE_HELP (-1) /* parse: --help printed, nothing to run */

static int parse(study_opts *o, int argc, char **argv)
{
    static const struct option own[] = {
        {"vary", 1, 0, 1}, {"readout", 1, 0, 2}, {"radius", 1, 0, 3}, {"scale", 1, 0, 4},
        {"dtype", 1, 0, 5}, {"shuffle", 1, 0, 6}, {"max-neurons", 1, 0, 7},
        {"seed", 1, 0, 10}, {"val", 1, 0, 11},
        {"keep", 1, 0, 12}, {"max-train", 1, 0, 13}, {"max-test", 1, 0, 14},
        {"name", 1, 0, 15}, {"resume", 0, 0, 16}, {"no-plots", 0, 0, 17},
        {"preprocess", 1, 0, 18}, {"no-warm", 0, 0, 20},
        {"solver", 1, 0, 21}, {"cg-tol", 1, 0, 22},
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
        [22] = "cg-tol"};
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
        case 4: case 5: case 6: case 7: case 18: case 21: case 22:
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
        if (cli_backend_check(p.backend, r.strict, &err))
            return cli_report(&err);
    }
    return FSVC_OK;
}

/* The first `max` rows of *d (max <= 0 or >= N: unchanged). */
/* DATA or TEST as the study runs it: dense. A file that train would read
 * sparse is read sparse first (no dense matrix made) and refused when it
 * has more features than dense data holds; else it is read dense. */
static int study_load(fsvc_dataset *d, const char *path, fsvc_error *err)
{
    fsvc_load_opts o = { 0, 0, 0, FSVC_STORE_AUTO, 0, 0 };
    int rc = fsvc_dataset_load(d, path, &o, err);
    if (rc || !d->csr) return rc;
    long long N = (long long)d->N, nnz = (long long)d->csr->nnz;
    int n = d->n;
    fsvc_dataset_free(d);
    if (n > FSVC_DENSE_MAX_N)
        return fsvc_fail(err, FSVC_EINPUT, "%s: sparse data, %lld x %d (%lld values); study "
                         "runs on dense data, at most %d features (fsvc train reads it "
                         "sparse, and -v K cross-validates it)", path, N, n, nnz,
                         FSVC_DENSE_MAX_N);
    o.storage = FSVC_STORE_DENSE;
    return fsvc_dataset_load(d, path, &o, err);
}

static int truncate_rows(fsvc_dataset *d, int64_t max, fsvc_error *err)
{
    if (max <= 0 || max >= d->N) return FSVC_OK;
    int64_t *idx = malloc((size_t)max * sizeof *idx);
    if (!idx) return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    for (int64_t i = 0; i < max; i++) idx[i] = i;
    fsvc_dataset s;
    int rc = fsvc_dataset_subset(&s, d, idx, max, err);
    free(idx);
    if (rc) return rc;
    snprintf(s.source, sizeof s.source, "%.400s (first %lld)", d->source, (long long)max);
    fsvc_dataset_free(d);
    *d = s;
    return FSVC_OK;
}

static double maxrss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

/* The last two components of a path ("mnist/train"), for titles. */
static void tail2(char *out, size_t len, const char *path)
{
    const char *e = path + strlen(path), *p = e;
    int slashes = 0;
    while (p > path && !(p[-1] == '/' && ++slashes == 2)) p--;
    snprintf(out, len, "%s", p);
}

/* A numeric field: "%.6g", empty when not finite. */
static void csv_num(fsvc_csv_out *o, double v)
{
    if (isfinite(v)) fsvc_csv_fieldf(o, "%.6g", v);
    else fsvc_csv_field(o, "");
}

/* A path as an absolute canonical name (an IDX prefix DIR/train: its
 * folder resolved); the text as given when it cannot be resolved. */
static char *canon_path(const char *path)
{
    char *r = realpath(path, NULL);
    if (r) return r;
    char *d = strdup(path), *b = strdup(path);
    char *rd = d && b ? realpath(dirname(d), NULL) : NULL;
    if (rd && asprintf(&r, "%s/%s", rd, basename(b)) < 0) r = NULL;
    free(rd); free(d); free(b);
    return r ? r : strdup(path);
}

/* What a study fixes besides the training settings: the data (resolved
 * paths and the sizes loaded), the measurements asked for. */
typedef struct study_ctx {
    char *data, *test;      /* canonical paths ("" for no TEST) */
    int64_t N_train, N_test;
    int n;
} study_ctx;

/* The settings string of one point: everything that defines its row. */
static int point_settings(char *s, size_t cap, const study_opts *o, const study_ctx *c,
                          const fsvc_param *p)
{
    char v[64];
    s[0] = 0;
    int bad = fsvc_settings_add(s, cap, "data", c->data) ||
              fsvc_settings_add(s, cap, "test", c->test);
#define NUM(key, ...) (snprintf(v, sizeof v, __VA_ARGS__), bad = bad || fsvc_settings_add(s, cap, key, v))
    NUM("max-train", "%lld", (long long)o->max_train);
    NUM("max-test", "%lld", (long long)o->max_test);
    NUM("N_train", "%lld", (long long)c->N_train);
    NUM("N_test", "%lld", (long long)c->N_test);
    NUM("n", "%d", c->n);
    NUM("folds", "%d", o->folds);
    NUM("cv-seed", "%llu", (unsigned long long)o->seed);
    NUM("val", "%.17g", o->val);
    NUM("keep", "%s", o->keep_best ? "best" : "last");
#undef NUM
    return bad || fsvc_param_canon(s, cap, p) ? FSVC_EUSAGE : FSVC_OK;
}

/* The row (into r) of a point that failed with bad input (its settings do
 * not work on this data): what defines it, empty measurements, the message
 * in the status column. */
static int fail_row(fsvc_csv_out *r_out, const fsvc_param *p, const char *key,
                    const char *settings, const fsvc_dataset *tr, const fsvc_dataset *te,
                    const char *msg, fsvc_error *err)
{
    static const char *const set_cols[] = {"prag", "dist", "kernel", "select", "readout",
                                           "lambda", "eta", "epochs", "scale", "preprocess",
                                           "dtype", "backend", "threads"};
    fsvc_csv_out r = {0};
    char v[96];
    fsvc_csv_field(&r, key);
    fsvc_csv_field(&r, tr->source);
    fsvc_csv_field(&r, te ? te->source : "");
    fsvc_csv_fieldf(&r, "%lld", (long long)tr->N);
    fsvc_csv_fieldf(&r, "%lld", te ? (long long)te->N : 0LL);
    fsvc_csv_fieldf(&r, "%d", tr->n);
    fsvc_csv_field(&r, p->radius > 0 ? "given" : p->radius_rms > 0 ? "rms" : "auto");
    if (p->radius > 0) fsvc_csv_fieldf(&r, "%.6g", p->radius);
    else fsvc_csv_field(&r, "");
    for (size_t i = 0; i < sizeof set_cols / sizeof *set_cols; i++)
        fsvc_csv_field(&r, fsvc_param_get(p, set_cols[i], v, sizeof v) ? "" : v);
    for (int c = 21; c < STUDY_NCOLUMNS - 2; c++) fsvc_csv_field(&r, ""); /* measurements */
    fsvc_csv_fieldf(&r, "failed: %s", msg);
    fsvc_csv_field(&r, settings);
    fsvc_csv_endrow(&r);
    if (r.oom) {
        fsvc_csv_out_free(&r);
        return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    }
    *r_out = r;
    return FSVC_OK;
}

/* A point's LMS curve rows (l, may be empty) and then its CSV row (r),
 * each appended in one checked write; a failed row also takes its curve
 * rows back out. */
static int write_point(const study_files *F, const char *r, size_t rlen, const char *l,
                       size_t llen, fsvc_error *err)
{
    off_t lms_old = F->lms_fd >= 0 ? lseek(F->lms_fd, 0, SEEK_END) : 0;
    int rc = llen ? study_append(F->lms_fd, F->lms, l, llen, err) : FSVC_OK;
    if (!rc) {
        rc = study_append(F->csv_fd, F->csv, r, rlen, err);
        if (rc && llen && lms_old >= 0 && ftruncate(F->lms_fd, lms_old) == 0)
            fsync(F->lms_fd);   /* the curve goes with its row */
    }
    return rc;
}

/* What a point measured, for its row and summary. */
typedef struct point_meas {
    const fsvc_model *m;
    const fsvc_train_info *info;
    double t_train, t_pred, acc;  /* acc: NAN without TEST */
    const fsvc_cv_result *cv;     /* with -v */
    const fsvc_lms_curve *curve;  /* with --val for LMS, else NULL */
    double warm_from;             /* lambda path: the CG's start, 0: from zero */
} point_meas;

/* The CSV row (r) and the summary line of a point that ran. */
static void point_row(fsvc_csv_out *r, char *summary, size_t slen, const study_opts *o,
                      const fsvc_param *p, const char *key, const char *settings,
                      const fsvc_dataset *tr, const fsvc_dataset *te, const point_meas *pm)
{
    const fsvc_model *m = pm->m;
    const fsvc_train_info *info = pm->info;
    const fsvc_cv_result *cv = pm->cv;
    int use_val = pm->curve != NULL, pcg = p->readout == FSVC_READOUT_RIDGE &&
                                           info->solver == FSVC_SOLVER_PCG;
    double syn_pred = te ? (double)m->m * te->N * te->n : 0;
    fsvc_csv_field(r, key);
    fsvc_csv_field(r, tr->source);
    fsvc_csv_field(r, te ? te->source : "");
    fsvc_csv_fieldf(r, "%lld", (long long)tr->N);
    fsvc_csv_fieldf(r, "%lld", te ? (long long)te->N : 0LL);
    fsvc_csv_fieldf(r, "%d", tr->n);
    fsvc_csv_field(r, p->radius > 0 ? "given" : p->radius_rms > 0 ? "rms" : "auto");
    fsvc_csv_fieldf(r, "%.6g", m->radius);
    fsvc_csv_fieldf(r, "%g", p->prag);
    fsvc_csv_field(r, m->dist ? "l2" : "l1");
    fsvc_csv_field(r, m->act ? "gauss" : "tri");
    fsvc_csv_field(r, fsvc_select_name(m->select));
    fsvc_csv_field(r, fsvc_readout_name(p->readout));
    fsvc_csv_fieldf(r, "%g", p->lambda);
    fsvc_csv_fieldf(r, "%g", p->eta);
    fsvc_csv_fieldf(r, "%d", p->epochs);
    fsvc_csv_field(r, fsvc_scale_name(p->scale));
    fsvc_csv_field(r, fsvc_preprocess_name(m->preprocess));
    fsvc_csv_field(r, fsvc_dtype_name(m->dtype));
    fsvc_csv_field(r, p->backend ? p->backend : "cpu");
    fsvc_csv_fieldf(r, "%d", p->threads);
    fsvc_csv_fieldf(r, "%lld", (long long)m->m);
    csv_num(r, info->t_select);
    csv_num(r, info->t_readout);
    csv_num(r, pm->t_train);
    csv_num(r, pm->t_pred);
    csv_num(r, info->syn_select > 0 ? 1e9 * info->t_select / info->syn_select : NAN);
    csv_num(r, info->syn_readout > 0 ? 1e9 * info->t_readout / info->syn_readout : NAN);
    csv_num(r, syn_pred > 0 ? 1e9 * pm->t_pred / syn_pred : NAN);
    csv_num(r, 100 * pm->acc);
    fsvc_csv_fieldf(r, "%d", o->folds);
    csv_num(r, o->folds ? 100 * cv->acc_mean : NAN);
    csv_num(r, o->folds ? 100 * cv->acc_sd : NAN);
    csv_num(r, o->folds ? cv->m_mean : NAN);
    csv_num(r, use_val ? o->val : NAN);
    if (use_val) fsvc_csv_fieldf(r, "%d", pm->curve->best_epoch);
    else fsvc_csv_field(r, "");
    if (pcg) fsvc_csv_fieldf(r, "%d", info->cg_iter);
    else fsvc_csv_field(r, "");
    if (pcg && o->folds) fsvc_csv_fieldf(r, "%lld", (long long)cv->cg_iter);
    else fsvc_csv_field(r, "");
    if (pm->warm_from > 0) fsvc_csv_fieldf(r, "%g", pm->warm_from);
    else fsvc_csv_field(r, "");
    csv_num(r, maxrss_mb());
    fsvc_csv_field(r, "ok");
    fsvc_csv_field(r, settings);
    fsvc_csv_endrow(r);
    int n = snprintf(summary, slen, "%lld centroids, r = %.4g, train %.2f s", (long long)m->m,
                     m->radius, pm->t_train);
    if (te && n < (int)slen) n += snprintf(summary + n, slen - n, ", test %.2f%%", 100 * pm->acc);
    if (o->folds && n < (int)slen)
        n += snprintf(summary + n, slen - n, ", cv %.2f +- %.2f%%", 100 * cv->acc_mean,
                      100 * cv->acc_sd);
    if (use_val && n < (int)slen)
        n += snprintf(summary + n, slen - n, ", best epoch %d", pm->curve->best_epoch);
    if (pcg && n < (int)slen)
        n += snprintf(summary + n, slen - n, ", %d cg iterations%s", info->cg_iter,
                      pm->warm_from > 0 ? " (warm)" : "");
}

/* The test accuracy (*acc) and prediction time of model m on te. */
static int test_model(double *acc, double *t_pred, const fsvc_model *m, const fsvc_dataset *te,
                      const fsvc_param *p, fsvc_error *err)
{
    int *pred = malloc((size_t)te->N * sizeof *pred), *truth = malloc((size_t)te->N * sizeof *truth);
    int rc = !pred || !truth ? fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory") : FSVC_OK;
    if (!rc) {
        double t0 = cli_now();
        rc = fsvc_predict(pred, NULL, m, te, p->backend, p->threads, err);
        *t_pred = cli_now() - t0;
    }
    if (!rc) {
        fsvc_model_truth(truth, m, te);
        *acc = (double)fsvc_confusion(NULL, truth, pred, te->N, m->K) / te->N;
    }
    free(pred); free(truth);
    return rc;
}

/* One point: train (with --val for LMS), CV, test; its CSV row into r and
 * its LMS curve rows (with --val and a curve CSV, else none) into l. */
static int run_point(int lms_file, const study_opts *o, const fsvc_param *p,
                     const char *key, const char *settings, const fsvc_dataset *tr,
                     const fsvc_dataset *te, char *summary, size_t slen, fsvc_csv_out *r_out,
                     fsvc_csv_out *l_out, fsvc_error *err)
{
    fsvc_model m;
    fsvc_train_info info;
    fsvc_lms_curve curve;
    memset(&curve, 0, sizeof curve);
    int use_val = o->val > 0 && p->readout == FSVC_READOUT_LMS;
    char *cvkey = NULL;
    if (asprintf(&cvkey, "%s (cv folds)", key) < 0)
        return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
    int search = !(p->radius > 0) && !(p->radius_rms > 0);  /* this point searches its radius */
    study_steps_point(key, search);
    double t0 = cli_now();
    int rc = use_val ? fsvc_train_lms_val(&m, &info, &curve, tr, p, o->val, o->keep_best,
                                          o->seed, err)
                     : fsvc_train(&m, &info, tr, p, err);
    if (rc) { study_steps_point(key, 0); free(cvkey); return rc; }
    double t_train = cli_now() - t0, t_pred = NAN, acc = NAN;
    if (te) rc = test_model(&acc, &t_pred, &m, te, p, err);
    fsvc_cv_result cv;
    memset(&cv, 0, sizeof cv);
    study_steps_point(cvkey, search);
    if (!rc && o->folds) {
        fsvc_param pq = *p;
        pq.progress = FSVC_PROGRESS_STEPS;
        rc = fsvc_cross_validate(&cv, tr, &pq, o->folds, o->seed, err);
    }
    study_steps_point(key, 0);
    if (!rc) rc = study_steps_check(err);
    free(cvkey);
    if (rc) { fsvc_free_model(&m); fsvc_lms_curve_free(&curve); return rc; }
    fsvc_csv_out r = {0}, l = {0};
    point_meas pm = {&m, &info, t_train, t_pred, acc, &cv, use_val ? &curve : NULL, 0};
    point_row(&r, summary, slen, o, p, key, settings, tr, te, &pm);
    if (use_val && lms_file)
        for (int e = 0; e <= curve.epochs; e++) {
            fsvc_csv_field(&l, key);
            fsvc_csv_fieldf(&l, "%d", e);
            fsvc_csv_fieldf(&l, "%.6g", curve.train_err[e]);
            fsvc_csv_fieldf(&l, "%.6g", curve.val_err[e]);
            fsvc_csv_endrow(&l);
        }
    if (r.oom || l.oom) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
        fsvc_csv_out_free(&r);
        fsvc_csv_out_free(&l);
    } else {
        *r_out = r;
        *l_out = l;
    }
    fsvc_lms_curve_free(&curve);
    fsvc_free_model(&m);
    return rc;
}

/* text as one shell word: as it is when it is plain, else single-quoted. */
static void shell_word(FILE *f, const char *text)
{
    if (*text && strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                              "0123456789._/+-=:,@%") == strlen(text)) {
        fputs(text, f);
        return;
    }
    fputc('\'', f);
    for (; *text; text++)
        if (*text == '\'') fputs("'\\''", f);
        else fputc(*text, f);
    fputc('\'', f);
}

/* The `fsvc train` command of point k (malloc'd, NULL when out of memory):
 * every setting whose canonical text (the settings model) differs from
 * fsvc train's default, then DATA. */
static char *train_command(const study_opts *o, int64_t k)
{
    fsvc_param p = o->base, d;
    fsvc_param_default(&d);
    char key[1024];
    if (fsvc_grid_point(&p, key, sizeof key, &o->grid, k, NULL)) return NULL;
    char *cmd = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&cmd, &len);
    if (!f) return NULL;
    fputs("fsvc train", f);
    for (int i = 0; fsvc_setting(i); i++) {
        const fsvc_setting_info *s = fsvc_setting(i);
        char v[96], dv[96];
        if (fsvc_param_get(&p, s->name, v, sizeof v) ||
            fsvc_param_get(&d, s->name, dv, sizeof dv) || !strcmp(v, dv))
            continue;
        if (!s->arg && !s->choices) fprintf(f, " --%s=%s", s->name, v); /* on|off */
        else { fprintf(f, " --%s ", s->name); shell_word(f, v); }
    }
    fputc(' ', f);
    shell_word(f, o->data);
    if (ferror(f) | fclose(f)) { free(cmd); return NULL; }
    return cmd;
}

/* Row a beats row b (b < 0: none yet): the higher CV accuracy as written
 * in the CSV; on a tie the cheaper model (fewer centroids), then the
 * larger lambda (the smoother readout), then the earlier point. */
static int better(const fsvc_csv *t, int64_t a, int64_t b, int cm, int cc, int cl)
{
    if (b < 0) return 1;
    double va = atof(fsvc_csv_get(t, a, cm)), vb = atof(fsvc_csv_get(t, b, cm));
    if (va != vb) return va > vb;
    double ma = atof(fsvc_csv_get(t, a, cc)), mb = atof(fsvc_csv_get(t, b, cc));
    if (ma != mb) return ma < mb;
    return atof(fsvc_csv_get(t, a, cl)) > atof(fsvc_csv_get(t, b, cl));
}

/* The best point by CV among the CSV rows of this grid (better()): printed
 * with its `fsvc train` command (also with -q), appended to the CSV as '#'
 * lines and written alone to PREFIX-best.txt (the command, then the
 * point's line; replaced whole). */
/* A value of an ordered axis as a number: "2", "1e-5", "0.45rms" (rms 1);
 * 0 when it is not one ("auto", a name). */
static int axis_number(const char *v, double *x, int *rms)
{
    char *end;
    *x = strtod(v, &end);
    *rms = !strcmp(end, "rms");
    return end != v && (!*end || *rms) && isfinite(*x);
}

/* A best point at the end of a numeric axis may be bettered beyond the
 * grid: "edge: radius=0.3rms is the smallest radius tried, ..." for each
 * such axis (of 2 values or more of the same kind), else "". */
static void grid_edge(char *out, size_t len, const fsvc_grid *g, int64_t k)
{
    int vi[FSVC_GRID_MAX_AXES];
    for (int a = g->naxes - 1; a >= 0; a--) {
        vi[a] = (int)(k % g->axis[a].nval);
        k /= g->axis[a].nval;
    }
    size_t u = 0;
    out[0] = 0;
    for (int a = 0; a < g->naxes && u < len; a++) {
        const fsvc_grid_axis *ax = &g->axis[a];
        double x, y;
        int rx, ry, lower = 0, higher = 0, kin = 0;
        if (!axis_number(ax->val[vi[a]], &x, &rx)) continue;
        for (int i = 0; i < ax->nval; i++)
            if (i != vi[a] && axis_number(ax->val[i], &y, &ry) && ry == rx) {
                kin++;
                lower += y < x;
                higher += y > x;
            }
        if (!kin || (lower && higher)) continue;
        u += (size_t)snprintf(out + u, len - u, "%s%s=%s is the %s %s tried",
                              u ? "; " : "edge: the best point is at the edge of the grid, ",
                              ax->name, ax->val[vi[a]], lower ? "largest" : "smallest",
                              ax->name);
    }
    if (out[0] && u < len)
        snprintf(out + u, len - u, ": a better one may lie beyond it; extend --vary");
}

/* The best point by CV: printed, written to PREFIX-best.txt and the
 * sidecar; *edge_note (malloc'd, or NULL) the note for a best point at the
 * edge of the grid, printed on stderr once the study has succeeded. */
static int report_best(const study_files *F, const study_opts *o, char *const *pset,
                       char **edge_note, fsvc_error *err)
{
    fsvc_csv t;
    int rc = fsvc_csv_load(&t, F->csv, err);
    if (rc) return rc;
    int cs = fsvc_csv_col(&t, "settings"), cp = fsvc_csv_col(&t, "point"),
        cm = fsvc_csv_col(&t, "cv_mean"), ca = fsvc_csv_col(&t, "acc_test"),
        cc = fsvc_csv_col(&t, "centroids"), cl = fsvc_csv_col(&t, "lambda");
    int64_t best = -1, best_k = -1;
    for (int64_t k = 0; k < fsvc_grid_size(&o->grid); k++) {
        int64_t r = study_latest_row(&t, cs, pset[k]);
        const char *v = r > 0 ? fsvc_csv_get(&t, r, cm) : "";
        if (v[0] && better(&t, r, best, cm, cc, cl)) {
            best = r;
            best_k = k;
        }
    }
    if (best > 0) {
        const char *key = fsvc_csv_get(&t, best, cp), *cvm = fsvc_csv_get(&t, best, cm),
                   *acc = fsvc_csv_get(&t, best, ca);
        char *cmd = train_command(o, best_k), *path = NULL, *txt = NULL;
        char note[160] = "", edge[FSVC_GRID_MAX_AXES * 160] = "";
        if (o->max_train > 0)
            snprintf(note, sizeof note, "note: the study used the first %lld samples of DATA "
                     "(--max-train); fsvc train takes all of it", (long long)o->max_train);
        grid_edge(edge, sizeof edge, &o->grid, best_k);
        if (!cmd || asprintf(&path, "%s-best.txt", F->prefix) < 0 ||
            asprintf(&txt, "%s\n# best by %d-fold CV: point=%s cv_mean=%s test=%s\n%s%s%s%s%s%s",
                     cmd, o->folds, key, cvm, acc[0] ? acc : "none", note[0] ? "# " : "",
                     note, note[0] ? "\n" : "", edge[0] ? "# " : "", edge,
                     edge[0] ? "\n" : "") < 0) {
            free(cmd); free(path);
            fsvc_csv_free(&t);
            return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
        }
        rc = study_about(F, err, "best by %d-fold CV: point=%s cv_mean=%s test=%s", o->folds,
                         key, cvm, acc[0] ? acc : "none");
        if (!rc) rc = study_about(F, err, "train it: %s", cmd);
        if (!rc && edge[0]) rc = study_about(F, err, "%s", edge);
        if (!rc) rc = study_write_text(path, txt, strlen(txt), err);
        if (!rc)
            printf("best by %d-fold CV: %s, CV accuracy %s%%, test accuracy %s%s\n", o->folds,
                   key, cvm, acc[0] ? acc : "(no TEST)",
                   acc[0] ? "% (measured once, not used to choose)" : "");
        if (!rc) printf("train it: %s\n", cmd);
        if (!rc && note[0]) printf("%s\n", note);
        if (!rc && edge[0] && !(*edge_note = strdup(edge)))
            rc = fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
        free(cmd); free(path); free(txt);
    }
    fsvc_csv_free(&t);
    return rc;
}

/* The output name: --name, else DATA's basename without its extension (an
 * IDX prefix DIR/train: "DIR-train"). */
static char *study_name(const study_opts *o)
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

/* ---- the points across processes (one process: K = 1) ----
 *
 * The points still to run are dealt in rounds of K, the i-th of a round to
 * rank i; each rank runs its point as one process would and sends the
 * outcome (its rows as text) to every rank (fsvc_dist_concat); rank 0
 * writes the rows and prints the progress in grid order, so the CSV is the
 * one-process CSV. An outcome is 'o' (a row), 'f' (a failure row: bad
 * input for its settings) or 'e' (a failure that stops the study: the
 * rows before it are written, the rest of the round is dropped). */

typedef struct point_out {
    int64_t k;              /* the grid point */
    char kind;              /* 'o', 'f', 'e' */
    int code;               /* 'e': the status */
    const char *msg, *row, *lms;  /* summary (or error), CSV row, LMS rows */
    size_t nmsg, nrow, nlms;
} point_out;

/* One outcome record into f: header line, summary, row, LMS rows. */
static void put_record(FILE *f, int64_t k, char kind, int rc, const char *summary,
                       const fsvc_csv_out *r, const fsvc_csv_out *l)
{
    size_t ns = strlen(summary);
    fprintf(f, "%lld %c %d %zu %zu %zu\n", (long long)k, kind, rc, ns, r ? r->len : 0,
            l ? l->len : 0);
    fwrite(summary, 1, ns, f);
    if (r && r->len) fwrite(r->s, 1, r->len, f);
    if (l && l->len) fwrite(l->s, 1, l->len, f);
}

/* The record of point k after its run returned rc (FSVC_EINPUT: a failure
 * row, the study goes on; another failure: 'e', the study stops). */
static void put_outcome(FILE *f, int64_t k, int rc, const char *summary_ok, fsvc_csv_out *r,
                        fsvc_csv_out *l, const fsvc_param *p, const char *key,
                        const char *settings, const fsvc_dataset *tr, const fsvc_dataset *te,
                        fsvc_error *err)
{
    char kind = 'o', summary[sizeof err->msg];
    snprintf(summary, sizeof summary, "%s", summary_ok);
    if (rc == FSVC_EINPUT) { /* this point's settings fail on this data: noted, go on */
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        fsvc_error_clear(err);
        kind = 'f';
        fsvc_csv_out_free(r);
        fsvc_csv_out_free(l);
        rc = fail_row(r, p, key, settings, tr, te, msg, err);
        snprintf(summary, sizeof summary, "failed (in the CSV, the study goes on): %.400s", msg);
    }
    if (rc) {
        kind = 'e';
        fsvc_csv_out_free(r);
        fsvc_csv_out_free(l);
        snprintf(summary, sizeof summary, "%s", err->msg);
    }
    put_record(f, k, kind, rc, summary, r, l);
    fsvc_csv_out_free(r);
    fsvc_csv_out_free(l);
}

/* Point k's settings and key ("default" for no axes). */
static int point_param(fsvc_param *p, char *key, size_t keylen, const study_opts *o, int64_t k,
                       fsvc_error *err)
{
    *p = o->base;
    int rc = fsvc_grid_point(p, key, keylen, &o->grid, k, err);
    if (!key[0]) snprintf(key, keylen, "default");
    p->progress = FSVC_PROGRESS_STEPS; /* radius search steps, no progress lines */
    return rc;
}

/* The points of a lambda path (k[0..n-1], n >= 2: the same settings but
 * lambda), one record each: the training on DATA and every CV fold each
 * select once, share H and solve the lambdas largest first, warm-started
 * (fsvc_train_lambdas). */
static int run_path(FILE *f, const study_opts *o, const int64_t *k, int n, char *const *pset,
                    const fsvc_dataset *tr, const fsvc_dataset *te)
{
    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_param p[FSVC_GRID_MAX_VALUES];
    char key[FSVC_GRID_MAX_VALUES][1024], cvkey[1100];
    double lam[FSVC_GRID_MAX_VALUES];
    int rc = FSVC_OK;
    for (int i = 0; i < n && !rc; i++) {
        rc = point_param(&p[i], key[i], sizeof key[i], o, k[i], &err);
        lam[i] = p[i].lambda;
    }
    int search = !(p[0].radius > 0) && !(p[0].radius_rms > 0);
    fsvc_lambda_path path;
    memset(&path, 0, sizeof path);
    fsvc_cv_result *cv = calloc(FSVC_GRID_MAX_VALUES, sizeof *cv);
    if (!cv) rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
    double t0 = cli_now();
    study_steps_point(key[0], search);
    if (!rc) rc = fsvc_train_lambdas(&path, tr, &p[0], lam, n, !o->no_warm, &err);
    double t_all = cli_now() - t0;
    snprintf(cvkey, sizeof cvkey, "%s (cv folds)", key[0]);
    study_steps_point(cvkey, search);
    if (!rc && o->folds)
        rc = fsvc_cross_validate_lambdas(cv, tr, &p[0], lam, n, o->folds, o->seed,
                                         !o->no_warm, &err);
    study_steps_point(key[0], 0);
    if (!rc) rc = study_steps_check(&err);
    char pmsg[sizeof err.msg]; /* a failure of the whole path: every point's */
    snprintf(pmsg, sizeof pmsg, "%s", err.msg);
    for (int i = 0; i < n; i++) {
        fsvc_csv_out r = {0}, l = {0};
        char summary[sizeof err.msg] = "";
        int ri = rc ? fsvc_fail(&err, rc, "%s", pmsg) : FSVC_OK;
        if (!ri && path.status[i]) ri = fsvc_fail(&err, path.status[i], "%s", path.msg[i]);
        else if (!ri && cv[i].status) ri = fsvc_fail(&err, cv[i].status, "%s", cv[i].msg);
        double acc = NAN, t_pred = NAN;
        fsvc_model m = ri ? path.model : fsvc_lambda_model(&path, i);
        if (!ri && te) ri = test_model(&acc, &t_pred, &m, te, &p[i], &err);
        if (!ri) {
            /* the point's share of the path: the selection split evenly */
            fsvc_train_info *in = &path.info[i];
            double t_prep = t_all - in->t_select;
            for (int j = 0; j < n; j++) t_prep -= path.info[j].t_readout;
            point_meas pm = {&m, in, (in->t_select + (t_prep > 0 ? t_prep : 0)) / n +
                             in->t_readout, t_pred, acc, &cv[i], NULL, path.warm_from[i]};
            point_row(&r, summary, sizeof summary, o, &p[i], key[i], pset[k[i]], tr, te, &pm);
            if (r.oom) ri = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
        }
        put_outcome(f, k[i], ri, summary, &r, &l, &p[i], key[i], pset[k[i]], tr, te, &err);
        if (ri && ri != FSVC_EINPUT) break; /* the study stops here */
    }
    fsvc_lambda_path_free(&path);
    free(cv);
    return FSVC_OK;
}

/* The points k[0..n-1] on this rank (one point, or a lambda path), their
 * outcomes serialised into *text (malloc'd). */
static int unit_text(char **text, size_t *len, const study_opts *o, int lms_file,
                     const int64_t *k, int n, char *const *pset, const fsvc_dataset *tr,
                     const fsvc_dataset *te)
{
    FILE *f = open_memstream(text, len);
    if (!f) return FSVC_ERESOURCE;
    if (n > 1) {
        run_path(f, o, k, n, pset, tr, te);
    } else {
        fsvc_param p;
        fsvc_error err;
        fsvc_error_clear(&err);
        char key[1024], summary[sizeof err.msg] = "";
        fsvc_csv_out r = {0}, l = {0};
        int rc = point_param(&p, key, sizeof key, o, k[0], &err);
        if (!rc)
            rc = run_point(lms_file, o, &p, key, pset[k[0]], tr, te, summary, sizeof summary,
                           &r, &l, &err);
        put_outcome(f, k[0], rc, summary, &r, &l, &p, key, pset[k[0]], tr, te, &err);
    }
    int bad = ferror(f) | fclose(f);
    if (bad) { free(*text); *text = NULL; return FSVC_ERESOURCE; }
    return FSVC_OK;
}

/* The next outcome record of t (len bytes left, > 0); its size, or 0 when
 * not well formed. */
static size_t point_parse(point_out *po, const char *t, size_t len)
{
    int hl = 0;
    long long k;
    if (sscanf(t, "%lld %c %d %zu %zu %zu\n%n", &k, &po->kind, &po->code, &po->nmsg,
               &po->nrow, &po->nlms, &hl) != 6 || hl < 1 ||
        (size_t)hl + po->nmsg + po->nrow + po->nlms > len)
        return 0;
    po->k = k;
    po->msg = t + hl;
    po->row = po->msg + po->nmsg;
    po->lms = po->row + po->nrow;
    return (size_t)hl + po->nmsg + po->nrow + po->nlms;
}

/* Lambda paths: the grid's lambda axis (-1: none, or fewer than 2 values,
 * or --no-warm), its stride in the point index and the value index of k. */
typedef struct lambda_axis {
    int a, nval;
    int64_t stride;
} lambda_axis;

static lambda_axis find_lambda_axis(const study_opts *o)
{
    lambda_axis L = {-1, 0, 1};
    for (int a = 0; a < o->grid.naxes; a++)
        if (!strcmp(o->grid.axis[a].name, "lambda") && o->grid.axis[a].nval >= 2 && !o->no_warm)
            L.a = a;
    if (L.a < 0) return L;
    L.nval = o->grid.axis[L.a].nval;
    for (int a = L.a + 1; a < o->grid.naxes; a++) L.stride *= o->grid.axis[a].nval;
    return L;
}

/* The unit starting at point k: k alone, or (when k is the first point of a
 * lambda path) the points of the path not in the CSV; *n their number (0:
 * k belongs to an earlier path, or every point of the path is done). */
static int unit_at(int64_t *u, int *n, const study_opts *o, const lambda_axis *L, int64_t k,
                   const unsigned char *done_k, const fsvc_dataset *tr)
{
    *n = 0;
    fsvc_param p = o->base;
    int path = L->a >= 0 && !fsvc_grid_point(&p, NULL, 0, &o->grid, k, NULL) &&
               fsvc_lambda_path_applies(tr, &p) && !(o->val > 0 && p.readout == FSVC_READOUT_LMS);
    if (!path) {
        if (!done_k[k]) u[(*n)++] = k;
        return 0;
    }
    if ((k / L->stride) % L->nval != 0) return 1; /* in the path of an earlier point */
    for (int j = 0; j < L->nval; j++)
        if (!done_k[k + j * L->stride]) u[(*n)++] = k + j * L->stride;
    return 1;
}

int cmd_study(int argc, char **argv)
{
    study_opts o;
    memset(&o, 0, sizeof o);
    fsvc_param_default(&o.base);
    o.seed = 1;
    o.keep_best = 1;
    o.plots = 1;
    int rc = parse(&o, argc, argv);
    if (rc) return rc == PARSE_HELP ? FSVC_OK : rc;
    const fsvc_dist *D = cli_dist();
    int K = D->size, me = D->rank; /* rank 0 writes the files */
    fsvc_error err;
    fsvc_error_clear(&err);
    if (me == 0 && o.plots && !plot_available())
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "gnuplot not found on PATH; the plots need it "
                       "(apt-get install gnuplot-nox), or give --no-plots");
    /* by default a folder of its own, never a tracked results/ file */
    char *name = study_name(&o), *defdir = NULL;
    if (!name || (!o.dir && asprintf(&defdir, "fsvc-study-%s", name) < 0))
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
    if (!o.dir) o.dir = defdir;
    if (!rc && me == 0 && mkdir(o.dir, 0777) != 0) {
        struct stat st;
        if (stat(o.dir, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = fsvc_fail(&err, FSVC_ERESOURCE, "%s: cannot create the output folder: %s",
                           o.dir, strerror(errno));
    }
    fsvc_dataset tr, te;
    memset(&tr, 0, sizeof tr);
    memset(&te, 0, sizeof te);
    if (!rc && !(rc = study_load(&tr, o.data, &err)))
        rc = truncate_rows(&tr, o.max_train, &err);
    if (!rc && o.test && !(rc = study_load(&te, o.test, &err)))
        rc = truncate_rows(&te, o.max_test, &err);
    /* every rank has the data, and the same data, or all stop */
    rc = cli_dist_same_data(rc, &tr, o.data, &err);
    if (!rc && o.test) rc = cli_dist_same_data(rc, &te, o.test, &err);
    if (rc) {
        fsvc_dataset_free(&tr);
        fsvc_dataset_free(&te);
        free(name);
        free(defdir);
        return cli_dist_end(rc, &err);
    }
    study_ctx c = {canon_path(o.data), o.test ? canon_path(o.test) : strdup(""), tr.N,
                   o.test ? te.N : 0, tr.n};
    study_files F = {NULL, NULL, NULL, NULL, -1, -1, NULL, -1};
    char *cmdline = strdup("fsvc"), *set = malloc(SETTINGS_MAX), *edge_note = NULL;
    int64_t npts = fsvc_grid_size(&o.grid), ran = 0, skipped = 0, failed = 0;
    char **pset = calloc((size_t)npts, sizeof *pset);
    unsigned char *done_k = calloc((size_t)npts, 1);   /* point k is in the CSV */
    int64_t *round = malloc((size_t)K * FSVC_GRID_MAX_VALUES * sizeof *round);
    int *round_n = calloc((size_t)K, sizeof *round_n); /* points of each unit */
    char *mine = NULL, *all = NULL;
    size_t *lens = calloc((size_t)K, sizeof *lens);
    for (int i = 0; cmdline && i < argc; i++) {
        char *t = NULL;
        if (asprintf(&t, "%s %s", cmdline, argv[i]) < 0) t = NULL;
        free(cmdline);
        cmdline = t;
    }
    fsvc_csv done;
    memset(&done, 0, sizeof done);
    int resumed = 0;
    if (!c.data || !c.test || !name || !cmdline || !set || !pset || !done_k || !round || !round_n ||
        !lens || asprintf(&F.prefix, "%s/study-%s", o.dir, name) < 0 ||
        asprintf(&F.csv, "%s.csv", F.prefix) < 0 || asprintf(&F.lms, "%s-lms.csv", F.prefix) < 0 ||
        asprintf(&F.steps, "%s-radius.txt", F.prefix) < 0 ||
        asprintf(&F.about, "%s-about.txt", F.prefix) < 0)
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
    const char *in[2] = { o.data, o.test }, *outs[4] = { F.csv, F.lms, F.steps, F.about };
    for (int i = 0; !rc && i < 4; i++)
        rc = cli_out_check("study", outs[i], in, 2, "give another -o DIR or --name", &err);
    /* every point's settings string */
    for (int64_t k = 0; k < npts && !rc; k++) {
        fsvc_param p = o.base;
        char key[1024];
        rc = fsvc_grid_point(&p, key, sizeof key, &o.grid, k, &err);
        if (!rc && point_settings(set, SETTINGS_MAX, &o, &c, &p))
            rc = fsvc_fail(&err, FSVC_EUSAGE, "study: the settings of point %s are too long", key);
        if (!rc && !(pset[k] = strdup(set)))
            rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
    }
    int cs = STUDY_NCOLUMNS - 1;
    if (!rc && me == 0) {
        rc = study_open(&F, &done, &resumed, o.resume, o.val > 0, o.base.threads, &o.grid,
                        pset[0], cmdline, &err);
        for (int64_t k = 0; !rc && k < npts; k++)
            done_k[k] = study_latest_row(&done, cs, pset[k]) > 0;
    }
    if ((rc = cli_dist_agree(rc, &err)))
        goto out;
    /* the points in the CSV: rank 0's list on every rank */
    if (K > 1 && D->bor(D->self, done_k, (size_t)npts)) {
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: the exchange of the points done failed");
        goto out;
    }
    study_steps_start(F.steps, o.quiet); /* every rank appends its points' lines */
    if (!o.quiet)
        fprintf(stderr, "study: %lld points on %s (%lld x %d)%s%s -> %s\n", (long long)npts,
                tr.source, (long long)tr.N, tr.n, o.test ? ", test " : "",
                o.test ? te.source : "", F.csv);
    int lms_file = o.val > 0; /* rank 0 opened the curve CSV (study_open) */
    lambda_axis L = find_lambda_axis(&o);
    for (int64_t next = 0; next < npts && !rc;) {
        /* the round: the next (up to) K units (a point, or the points of a
         * lambda path) not in the CSV, in grid order */
        int nr = 0;
        for (; next < npts && nr < K; next++) {
            char key[1024];
            fsvc_param p = o.base;
            if (fsvc_grid_point(&p, key, sizeof key, &o.grid, next, NULL) || !key[0])
                snprintf(key, sizeof key, "default");
            if (done_k[next]) {
                skipped++;
                if (!o.quiet) fprintf(stderr, "[%lld/%lld] %s: in the CSV, skipped\n",
                                      (long long)next + 1, (long long)npts, key);
            }
            int64_t *u = round + (size_t)nr * FSVC_GRID_MAX_VALUES;
            int inpath = unit_at(u, &round_n[nr], &o, &L, next, done_k, &tr);
            if (!round_n[nr]) continue;
            for (int j = 0; j < round_n[nr] && !o.quiet; j++) {
                fsvc_param pj = o.base;
                if (fsvc_grid_point(&pj, key, sizeof key, &o.grid, u[j], NULL) || !key[0])
                    snprintf(key, sizeof key, "default");
                fprintf(stderr, "[%lld/%lld] %s ...%s\n", (long long)u[j] + 1, (long long)npts,
                        key, inpath && round_n[nr] > 1 ? " (lambda path)" : "");
            }
            nr++;
        }
        size_t nmine = 0;
        free(mine);
        mine = NULL;
        int lrc = me < nr ? unit_text(&mine, &nmine, &o, lms_file,
                                      round + (size_t)me * FSVC_GRID_MAX_VALUES, round_n[me],
                                      pset, &tr, o.test ? &te : NULL)
                          : FSVC_OK;
        if (lrc) fsvc_fail(&err, lrc, "study: out of memory");
        free(all);
        all = NULL;
        if ((rc = cli_dist_agree(lrc, &err)) ||
            (rc = fsvc_dist_concat(&all, lens, mine, nmine, D, &err)))
            break;
        /* rank 0: the rows in unit order, up to the first failure */
        size_t off = 0;
        for (int i = 0; i < nr && !rc; off += lens[i], i++) {
            size_t at = 0;
            for (int j = 0; j < round_n[i] && !rc; j++) {
                point_out po;
                char key[1024];
                int64_t kk = round[(size_t)i * FSVC_GRID_MAX_VALUES + j];
                fsvc_param p = o.base;
                if (fsvc_grid_point(&p, key, sizeof key, &o.grid, kk, NULL) || !key[0])
                    snprintf(key, sizeof key, "default");
                size_t used = at < lens[i] ? point_parse(&po, all + off + at, lens[i] - at) : 0;
                if (!used || po.k != kk) {
                    rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: the outcome of point %s did "
                                   "not arrive whole", key);
                    break;
                }
                at += used;
                if (po.kind == 'e') {
                    rc = fsvc_fail(&err, po.code ? po.code : FSVC_ERESOURCE, "%.*s",
                                   (int)po.nmsg, po.msg);
                    break;
                }
                if (me == 0)
                    rc = write_point(&F, po.row, po.nrow, po.lms, po.nlms, &err);
                if (rc) break;
                ran++;
                failed += po.kind == 'f';
                if (!o.quiet) fprintf(stderr, "[%lld/%lld] %s: %.*s\n", (long long)kk + 1,
                                      (long long)npts, key, (int)po.nmsg, po.msg);
            }
        }
        rc = cli_dist_agree(rc, &err); /* a failed write on rank 0 stops every rank */
    }
    study_steps_stop();
    if (rc) {
        size_t l = strlen(err.msg);
        if (strcmp(err.msg, FSVC_DIST_ELSEWHERE) != 0)
            snprintf(err.msg + l, sizeof err.msg - l, " (study stopped after %lld new rows; "
                     "rerun with --resume)", (long long)ran);
        goto out;
    }
    if (me > 0) goto out; /* the rest reads and writes rank 0's files */
    if (o.folds) rc = report_best(&F, &o, pset, &edge_note, &err);
    else if (npts > 1)
        printf("no -v: no best point picked (choosing on the test set would be test-set tuning)\n");
    if (F.csv_fd >= 0 && close(F.csv_fd) != 0 && !rc)
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "%s: write error: %s", F.csv, strerror(errno));
    F.csv_fd = -1;
    if (rc) goto out;
    printf("study: %lld points run, %lld already in %s\n", (long long)ran, (long long)skipped,
           F.csv);
    if (failed)
        printf("study: %lld points failed (their status column in %s says why)\n",
               (long long)failed, F.csv);
    if (o.plots) {
        char title[600], b1[256], b2[256] = "";
        tail2(b1, sizeof b1, o.data);
        if (o.test) tail2(b2, sizeof b2, o.test);
        snprintf(title, sizeof title, "fsvc study %s: train %s (%lld)%s%s%s", name, b1,
                 (long long)tr.N, o.test ? ", test " : "", b2, o.folds ? ", CV on train" : "");
        int np = 0;
        rc = study_plots(F.csv, F.prefix, &o.grid, pset, title, stderr, &np, &err);
        if (!rc) rc = study_heatmap(F.csv, F.prefix, &o.grid, pset, title, stderr, &np, &err);
        if (!rc && o.val > 0) {
            char *png = NULL;
            if (asprintf(&png, "%s-lms.png", F.prefix) < 0)
                rc = fsvc_fail(&err, FSVC_ERESOURCE, "study: out of memory");
            else
                rc = study_plot_lms(F.lms, png, title, stderr, &np, &err);
            free(png);
        }
        if (!rc) printf("study: %d plots written to %s/\n", np, o.dir);
    }
    if (!rc && edge_note) fprintf(stderr, "study: note: %s\n", edge_note + strlen("edge: "));
out:
    study_close(&F);
    fsvc_csv_free(&done);
    if (pset)
        for (int64_t k = 0; k < npts; k++) free(pset[k]);
    free(pset);
    free(done_k); free(round); free(round_n); free(mine); free(all); free(lens);
    free(set); free(name); free(cmdline); free(defdir); free(edge_note);
    free(c.data); free(c.test);
    free(F.prefix); free(F.csv); free(F.lms); free(F.steps); free(F.about);
    fsvc_dataset_free(&tr);
    fsvc_dataset_free(&te);
    return cli_dist_end(rc, &err);
}
