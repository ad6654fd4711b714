/* cmd_study.c - `fsvc study DATA [TEST] --vary NAME=V1,V2 ...`: runs the
 * grid (cartesian product of the --vary axes), one row per point appended
 * and flushed to DIR/study-NAME.csv, then plots from the CSV. -v K adds
 * stratified K-fold cross-validation on DATA and picks the best point by
 * it (never by the test set). --resume skips the points already in the
 * CSV. --val F trains LMS points with a validation split (curve + PNG). */
#include "tools/cli.h"
#include "tools/study_out.h"
#include "fsvc/study.h"

#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define CSV_HEADER \
    "point,data,test,N_train,N_test,n,radius_set,radius,prag,dist,kernel,select,readout," \
    "lambda,eta,epochs,scale,preprocess,dtype,backend,threads,centroids,t_select_s,t_readout_s," \
    "t_train_s,t_predict_s,tsyn_select_ns,tsyn_readout_ns,tsyn_predict_ns,acc_test," \
    "cv_folds,cv_mean,cv_sd,cv_centroids,val_frac,val_best_epoch,maxrss_mb"

typedef struct study_opts {
    const char *data, *test, *dir, *name;
    fsvc_grid grid;
    fsvc_param base;
    int folds;              /* -v K, 0: none */
    uint64_t seed;          /* folds and --val split */
    double val;             /* --val fraction, 0: none */
    int keep_best;
    int resume, quiet, plots;
    int64_t max_train, max_test;
} study_opts;

/* The trainer's radius search prints its steps through fsvc_printf: shown
 * on stderr and copied to the steps file of the study (tool-side state). */
static FILE *steps_file;
static char steps_point[1024];
static void study_print(const char *line)
{
    fputs(line, stderr);
    if (steps_file && !strncmp(line, "radius search", 13)) {
        fprintf(steps_file, "%s: %s", steps_point, line);
        fflush(steps_file);
    }
}

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
           "                  scale, dtype, preprocess, max-neurons, shuffle, backend, threads\n"
           "  --readout A,B   same as --vary readout=A,B (one value: a fixed setting)\n"
           "  --radius R|Xrms|auto  same as --vary radius=... (auto: the author's search:\n"
           "                  prag 1, halve r until centroids are 1-10%% of N, refine)\n"
           "  -r -p -d -k -s -R -l -e -E --scale --dtype --preprocess --shuffle\n"
           "  --max-neurons --backend --threads   fixed settings, as in 'fsvc train'\n"
           "  --strict        --backend cuda: fail (exit 3) instead of falling back\n"
           "                  (defaults: those of 'fsvc train': radius %s, prag %g,\n"
           "                  %s readout, lambda %g, eta %g, epochs %d)\n"
           "  -v K            K-fold stratified cross-validation on DATA (off); with a\n"
           "                  grid the best point by CV is reported with its test accuracy\n"
           "  --seed S        seed of the folds and of the --val split (1)\n"
           "  --val F         LMS points: hold out a stratified fraction F of DATA,\n"
           "                  record train/validation error per epoch (off)\n"
           "  --keep best|last  LMS readout kept with --val (best)\n"
           "  --max-train N   use the first N samples of DATA (all)\n"
           "  --max-test N    use the first N samples of TEST (all)\n"
           "  -o DIR          output folder (results)\n"
           "  --name NAME     CSV DIR/study-NAME.csv (DATA's basename)\n"
           "  --resume        keep the CSV and skip the points already in it\n"
           "  --no-plots      CSV only\n"
           "  -q              no per-point progress lines\n",
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

static int parse(study_opts *o, int argc, char **argv)
{
    static const struct option lo[] = {
        {"vary", 1, 0, 1}, {"readout", 1, 0, 2}, {"radius", 1, 0, 3}, {"scale", 1, 0, 4},
        {"dtype", 1, 0, 5}, {"shuffle", 1, 0, 6}, {"max-neurons", 1, 0, 7},
        {"backend", 1, 0, 8}, {"threads", 1, 0, 9}, {"seed", 1, 0, 10}, {"val", 1, 0, 11},
        {"keep", 1, 0, 12}, {"max-train", 1, 0, 13}, {"max-test", 1, 0, 14},
        {"name", 1, 0, 15}, {"resume", 0, 0, 16}, {"no-plots", 0, 0, 17},
        {"preprocess", 1, 0, 18}, {"strict", 0, 0, 19},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    static const char *const short_name[128] = {
        ['r'] = "radius", ['p'] = "prag", ['d'] = "dist", ['k'] = "kernel", ['s'] = "select",
        ['R'] = "readout", ['l'] = "lambda", ['e'] = "eta", ['E'] = "epochs"};
    static const char *const long_name[] = {
        [4] = "scale", [5] = "dtype", [6] = "shuffle", [7] = "max-neurons",
        [8] = "backend", [9] = "threads", [18] = "preprocess"};
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c, strict = 0;
    long lv;
    fsvc_error err;
    while ((c = getopt_long(argc, argv, ":r:p:d:k:s:R:l:e:E:v:o:qh", lo, NULL)) != -1) {
        int bad = 0;
        fsvc_error_clear(&err);
        switch (c) {
        case 'r': case 'p': case 'd': case 'k': case 's': case 'R': case 'l': case 'e': case 'E':
            bad = set_fixed(o, short_name[c], optarg); break;
        case 4: case 5: case 6: case 7: case 8: case 9: case 18:
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
        case 'h': help(&o->base); exit(cli_finish_stdout(FSVC_OK));
        case 10: bad = cli_parse_long("study", "--seed", optarg, 0, 0x7fffffffffffffffL, &lv);
                 o->seed = (uint64_t)lv; break;
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
        case 19: strict = 1; break;
        default:
            return cli_option_error("study", c, argv);
        }
        if (bad) return FSVC_EUSAGE;
    }
    int nargs = argc - optind;
    if (nargs < 1 || nargs > 2)
        return cli_usage_error("study", "expected DATA [TEST]");
    o->data = argv[optind];
    o->test = nargs == 2 ? argv[optind + 1] : NULL;
    if (!o->test && !o->folds)
        return cli_usage_error("study", "nothing to measure: give TEST or -v K");
    /* check every point's settings together (e.g. regression needs ridge) */
    for (int64_t k = 0; k < fsvc_grid_size(&o->grid); k++) {
        fsvc_param p = o->base;
        char key[1024];
        if (fsvc_grid_point(&p, key, sizeof key, &o->grid, k, &err))
            return cli_usage_error("study", "%s", err.msg);
        if (p.readout == FSVC_READOUT_RIDGE && !(p.lambda > 0))
            return cli_usage_error("study", "point %s: ridge needs lambda > 0", key);
        if (cli_backend_check(p.backend, strict, &err))
            return cli_report(&err);
    }
    return FSVC_OK;
}

/* The first `max` rows of *d (max <= 0 or >= N: unchanged). */
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

static void csv_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, ",%.6g", v);
    else fputs(",", f);
}

/* The last two components of a path ("mnist/train"), for titles. */
static void tail2(char *out, size_t len, const char *path)
{
    const char *e = path + strlen(path), *p = e;
    int slashes = 0;
    while (p > path && !(p[-1] == '/' && ++slashes == 2)) p--;
    snprintf(out, len, "%s", p);
}

/* One point: train (with --val for LMS), CV, test; one CSV row. */
static int run_point(FILE *csv, FILE *lms, const study_opts *o, const fsvc_param *p,
                     const char *key, const fsvc_dataset *tr, const fsvc_dataset *te,
                     char *summary, size_t slen, fsvc_error *err)
{
    fsvc_model m;
    fsvc_train_info info;
    fsvc_lms_curve curve;
    memset(&curve, 0, sizeof curve);
    int use_val = o->val > 0 && p->readout == FSVC_READOUT_LMS;
    snprintf(steps_point, sizeof steps_point, "%s", key);
    double t0 = cli_now();
    int rc = use_val ? fsvc_train_lms_val(&m, &info, &curve, tr, p, o->val, o->keep_best,
                                          o->seed, err)
                     : fsvc_train(&m, &info, tr, p, err);
    if (rc) return rc;
    double t_train = cli_now() - t0, t_pred = NAN, acc = NAN;
    if (te) {
        int *pred = malloc((size_t)te->N * sizeof *pred), *truth = malloc((size_t)te->N * sizeof *truth);
        if (!pred || !truth) {
            free(pred); free(truth); fsvc_free_model(&m);
            return fsvc_fail(err, FSVC_ERESOURCE, "study: out of memory");
        }
        t0 = cli_now();
        rc = fsvc_predict(pred, NULL, &m, te, p->backend, p->threads, err);
        t_pred = cli_now() - t0;
        if (!rc) {
            fsvc_model_truth(truth, &m, te);
            acc = (double)fsvc_confusion(NULL, truth, pred, te->N, m.K) / te->N;
        }
        free(pred); free(truth);
        if (rc) { fsvc_free_model(&m); return rc; }
    }
    fsvc_cv_result cv;
    memset(&cv, 0, sizeof cv);
    snprintf(steps_point, sizeof steps_point, "%.900s (cv folds)", key);
    if (o->folds) {
        fsvc_param pq = *p;
        pq.progress = 0;
        rc = fsvc_cross_validate(&cv, tr, &pq, o->folds, o->seed, err);
        if (rc) { fsvc_free_model(&m); fsvc_lms_curve_free(&curve); return rc; }
    }
    double syn_pred = te ? (double)m.m * te->N * te->n : 0;
    fprintf(csv, "%s,%s,%s,%lld,%lld,%d,%s,%.6g,%g,%s,%s,%s,%s,%g,%g,%d,%s,%s,%s,%s,%d,%lld",
            key, tr->source, te ? te->source : "", (long long)tr->N, te ? (long long)te->N : 0LL,
            tr->n, p->radius > 0 ? "given" : p->radius_rms > 0 ? "rms" : "auto", m.radius, p->prag,
            m.dist ? "l2" : "l1", m.act ? "gauss" : "tri", fsvc_select_name(m.select),
            fsvc_readout_name(p->readout), p->lambda, p->eta, p->epochs,
            fsvc_scale_name(p->scale), fsvc_preprocess_name(m.preprocess), fsvc_dtype_name(m.dtype), p->backend ? p->backend : "cpu",
            p->threads, (long long)m.m);
    csv_num(csv, info.t_select);
    csv_num(csv, info.t_readout);
    csv_num(csv, t_train);
    csv_num(csv, t_pred);
    csv_num(csv, info.syn_select > 0 ? 1e9 * info.t_select / info.syn_select : NAN);
    csv_num(csv, info.syn_readout > 0 ? 1e9 * info.t_readout / info.syn_readout : NAN);
    csv_num(csv, syn_pred > 0 ? 1e9 * t_pred / syn_pred : NAN);
    csv_num(csv, 100 * acc);
    fprintf(csv, ",%d", o->folds);
    csv_num(csv, o->folds ? 100 * cv.acc_mean : NAN);
    csv_num(csv, o->folds ? 100 * cv.acc_sd : NAN);
    csv_num(csv, o->folds ? cv.m_mean : NAN);
    csv_num(csv, use_val ? o->val : NAN);
    if (use_val) fprintf(csv, ",%d", curve.best_epoch); else fputs(",", csv);
    csv_num(csv, maxrss_mb());
    fputc('\n', csv);
    fflush(csv);
    if (use_val && lms) {
        for (int e = 0; e <= curve.epochs; e++)
            fprintf(lms, "%s,%d,%.6g,%.6g\n", key, e, curve.train_err[e], curve.val_err[e]);
        fflush(lms);
    }
    int n = snprintf(summary, slen, "%lld centroids, r = %.4g, train %.2f s", (long long)m.m,
                     m.radius, t_train);
    if (te && n < (int)slen) n += snprintf(summary + n, slen - n, ", test %.2f%%", 100 * acc);
    if (o->folds && n < (int)slen)
        n += snprintf(summary + n, slen - n, ", cv %.2f +- %.2f%%", 100 * cv.acc_mean, 100 * cv.acc_sd);
    if (use_val && n < (int)slen)
        snprintf(summary + n, slen - n, ", best epoch %d", curve.best_epoch);
    fsvc_lms_curve_free(&curve);
    fsvc_free_model(&m);
    return FSVC_OK;
}

/* The best point by CV among the CSV rows of this grid; printed and
 * appended to the CSV as a '#' line. */
static void report_best(FILE *csv, const char *path, const study_opts *o)
{
    char **keys = NULL, **cvm = NULL, **acc = NULL;
    int64_t nk = 0, n1 = 0, n2 = 0;
    fsvc_error err;
    if (fsvc_csv_column(&keys, &nk, NULL, 0, path, "point", &err) ||
        fsvc_csv_column(&cvm, &n1, NULL, 0, path, "cv_mean", &err) ||
        fsvc_csv_column(&acc, &n2, NULL, 0, path, "acc_test", &err) || n1 != nk || n2 != nk) {
        fprintf(stderr, "fsvc study: cannot read back %s to pick the best point\n", path);
    } else {
        int64_t best = -1;
        double bv = -1;
        for (int64_t k = 0; k < fsvc_grid_size(&o->grid); k++) {
            fsvc_param p = o->base;
            char key[1024];
            if (fsvc_grid_point(&p, key, sizeof key, &o->grid, k, &err)) continue;
            for (int64_t i = 0; i < nk; i++)
                if (!strcmp(keys[i], key) && cvm[i][0] && atof(cvm[i]) > bv) {
                    bv = atof(cvm[i]);
                    best = i;
                    break;
                }
        }
        if (best >= 0) {
            char line[1400];
            snprintf(line, sizeof line, "# best by %d-fold CV: point=%s cv_mean=%s test=%s",
                     o->folds, keys[best], cvm[best], acc[best][0] ? acc[best] : "none");
            fprintf(csv, "%s\n", line);
            fflush(csv);
            printf("best by %d-fold CV: %s, CV accuracy %s%%, test accuracy %s%s\n", o->folds,
                   keys[best], cvm[best], acc[best][0] ? acc[best] : "(no TEST)",
                   acc[best][0] ? "% (measured once, not used to choose)" : "");
        }
    }
    fsvc_csv_keys_free(keys, nk);
    fsvc_csv_keys_free(cvm, n1);
    fsvc_csv_keys_free(acc, n2);
}

static int open_csv(FILE **out, const char *path, const study_opts *o, int argc, char **argv,
                    int64_t *skipped, char ***done, int64_t *ndone, fsvc_error *err)
{
    char header[4096];
    *done = NULL;
    *ndone = 0;
    int exists = 0;
    if (o->resume) {
        int cut = 0;
        int rc = fsvc_csv_trim_partial(&cut, path, err);
        if (rc) return rc;
        if (cut) fprintf(stderr, "study: %s: dropped an unfinished last row\n", path);
        rc = fsvc_csv_column(done, ndone, header, sizeof header, path, "point", err);
        if (rc) return rc;
        exists = header[0] != 0;
        if (exists && strcmp(header, CSV_HEADER)) {
            fsvc_csv_keys_free(*done, *ndone);
            *done = NULL; *ndone = 0;
            return fsvc_fail(err, FSVC_EINPUT, "%s: columns differ from this version's; "
                             "remove it or use another --name", path);
        }
    }
    FILE *f = fopen(path, exists ? "a" : "w");
    if (!f) return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write", path);
    char cmdline[2048] = "";
    for (int i = 0; i < argc; i++) {
        strncat(cmdline, i ? " " : "fsvc ", sizeof cmdline - strlen(cmdline) - 1);
        strncat(cmdline, argv[i], sizeof cmdline - strlen(cmdline) - 1);
    }
    if (exists) {
        fprintf(f, "# resumed: %s\n", cmdline);
    } else {
        char mach[512], comp[1024];
        sysinfo_machine(mach, sizeof mach);
        sysinfo_compiler(comp, sizeof comp);
        fprintf(f, "# command: %s\n# machine: %s\n# compiler: %s\n# threads: %d (0 = all cores)\n",
                cmdline, mach, comp, o->base.threads);
        fprintf(f, "# times in seconds, t_syn in ns per synaptic operation (n*m*N), "
                   "accuracies in %%, maxrss_mb = process peak so far\n%s\n", CSV_HEADER);
    }
    fflush(f);
    *skipped = 0;
    *out = f;
    return FSVC_OK;
}

int cmd_study(int argc, char **argv)
{
    study_opts o;
    memset(&o, 0, sizeof o);
    fsvc_param_default(&o.base);
    o.dir = "results";
    o.seed = 1;
    o.keep_best = 1;
    o.plots = 1;
    int rc = parse(&o, argc, argv);
    if (rc) return rc;
    char name[256];
    if (o.name) snprintf(name, sizeof name, "%s", o.name);
    else {
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%s", o.data);
        size_t l = strlen(tmp);
        while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
        char *base = basename(tmp);
        snprintf(name, sizeof name, "%s", base);
        char *dot = strchr(name, '.');
        if (dot && dot != name) *dot = 0;
        else if (!dot && base != tmp) {
            /* an IDX prefix DIR/train: name it after the folder too */
            char b[256];
            snprintf(b, sizeof b, "%s", name);
            base[-1] = 0;
            snprintf(name, sizeof name, "%.120s-%.120s", basename(tmp), b);
        }
    }
    fsvc_error err;
    fsvc_error_clear(&err);
    if (mkdir(o.dir, 0777) != 0) {
        struct stat st;
        if (stat(o.dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "fsvc: %s: cannot create the output folder\n", o.dir);
            return FSVC_ERESOURCE;
        }
    }
    fsvc_dataset tr, te;
    memset(&te, 0, sizeof te);
    if (fsvc_dataset_load(&tr, o.data, NULL, &err)) return cli_report(&err);
    if ((rc = truncate_rows(&tr, o.max_train, &err))) { fsvc_dataset_free(&tr); return cli_report(&err); }
    if (o.test) {
        if (fsvc_dataset_load(&te, o.test, NULL, &err) ||
            truncate_rows(&te, o.max_test, &err)) {
            fsvc_dataset_free(&tr);
            fsvc_dataset_free(&te);
            return cli_report(&err);
        }
    }
    char path[2100], prefix[2048], lpath[2100], spath[2100];
    snprintf(prefix, sizeof prefix, "%s/study-%s", o.dir, name);
    snprintf(path, sizeof path, "%s.csv", prefix);
    snprintf(lpath, sizeof lpath, "%s-lms.csv", prefix);
    snprintf(spath, sizeof spath, "%s-radius.txt", prefix);
    FILE *csv = NULL, *lms = NULL;
    char **done = NULL;
    int64_t ndone = 0, skipped = 0;
    rc = open_csv(&csv, path, &o, argc, argv, &skipped, &done, &ndone, &err);
    if (rc) { fsvc_dataset_free(&tr); fsvc_dataset_free(&te); return cli_report(&err); }
    if (o.val > 0) {
        int have = o.resume && access(lpath, F_OK) == 0;
        lms = fopen(lpath, have ? "a" : "w");
        if (lms && !have) fprintf(lms, "point,epoch,train_err,val_err\n");
    }
    steps_file = fopen(spath, o.resume ? "a" : "w");
    fsvc_set_print(study_print);
    int64_t npts = fsvc_grid_size(&o.grid), ran = 0;
    fprintf(stderr, "study: %lld points on %s (%lld x %d)%s%s -> %s\n", (long long)npts,
            tr.source, (long long)tr.N, tr.n, o.test ? ", test " : "", o.test ? te.source : "", path);
    for (int64_t k = 0; k < npts && !rc; k++) {
        fsvc_param p = o.base;
        char key[1024], summary[512];
        rc = fsvc_grid_point(&p, key, sizeof key, &o.grid, k, &err);
        if (rc) break;
        if (!key[0]) snprintf(key, sizeof key, "default");
        if (fsvc_csv_has_key(done, ndone, key)) {
            skipped++;
            if (!o.quiet) fprintf(stderr, "[%lld/%lld] %s: in the CSV, skipped\n",
                                  (long long)k + 1, (long long)npts, key);
            continue;
        }
        p.progress = 0;
        if (!o.quiet) fprintf(stderr, "[%lld/%lld] %s ...\n", (long long)k + 1, (long long)npts, key);
        rc = run_point(csv, lms, &o, &p, key, &tr, o.test ? &te : NULL, summary, sizeof summary, &err);
        if (rc) break;
        ran++;
        if (!o.quiet) fprintf(stderr, "[%lld/%lld] %s: %s\n", (long long)k + 1, (long long)npts,
                              key, summary);
    }
    fsvc_set_print(NULL);
    if (steps_file) {
        long sz = ftell(steps_file);
        fclose(steps_file);
        if (sz == 0) unlink(spath);  /* no radius search in this study */
    }
    steps_file = NULL;
    if (lms) fclose(lms);
    fsvc_csv_keys_free(done, ndone);
    int64_t ntr = tr.N;
    fsvc_dataset_free(&tr);
    fsvc_dataset_free(&te);
    if (rc) {
        fclose(csv);
        fprintf(stderr, "study: stopped; %lld rows kept in %s (rerun with --resume)\n",
                (long long)ran, path);
        return cli_report(&err);
    }
    if (o.folds) report_best(csv, path, &o);
    else if (npts > 1)
        printf("no -v: no best point picked (choosing on the test set would be test-set tuning)\n");
    if (fclose(csv) != 0) {
        fprintf(stderr, "fsvc: %s: write error\n", path);
        return FSVC_ERESOURCE;
    }
    printf("study: %lld points run, %lld already in %s\n", (long long)ran, (long long)skipped, path);
    if (o.plots) {
        char title[600], b1[256], b2[256] = "";
        tail2(b1, sizeof b1, o.data);
        if (o.test) tail2(b2, sizeof b2, o.test);
        snprintf(title, sizeof title, "fsvc study %s: train %s (%lld)%s%s%s", name, b1,
                 (long long)ntr, o.test ? ", test " : "", b2, o.folds ? ", CV on train" : "");
        int np = study_plots(path, prefix, &o.grid, title, stderr);
        if (o.val > 0) {
            char png[2100];
            snprintf(png, sizeof png, "%s-lms.png", prefix);
            if (study_plot_lms(lpath, png, title, stderr) == 0) np++;
        }
        printf("study: %d plots written to %s/\n", np, o.dir);
    }
    return FSVC_OK;
}
