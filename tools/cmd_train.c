/* cmd_train.c - `fsvc train [options] DATA [MODEL]`: the FSVC trainer. */
#include "tools/args.h"
#include "tools/comm.h"
#include "layers/bnl.h"
#include "fsvc/study.h"
#include "fsvc/calibrate.h" /* FSVC_CALIB_FOLDS */

#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

/* Options and help come from the settings model (fsvc/params.c): each
 * setting is --NAME VALUE, and -X VALUE where it has a short option. */

/* "-r, --radius R|Xrms|auto" */
static void option_text(char *out, size_t len, const fsvc_setting_info *s)
{
    char choices[160];
    const char *arg = s->arg ? s->arg
                    : s->choices ? fsvc_name_list(s->choices, choices, sizeof choices) : NULL;
    if (s->opt)
        snprintf(out, len, "-%c, --%s%s%s", s->opt, s->name, arg ? " " : "", arg ? arg : "");
    else if (arg)
        snprintf(out, len, "--%s %s", s->name, arg);
    else
        snprintf(out, len, "--%s[=on|off]", s->name);
}

static void help(const fsvc_param *p)
{
    printf("usage: fsvc train [options] DATA [MODEL]\n\n"
           "Trains an FSVC classifier on DATA (IDX prefix or file, LIBSVM text, a\n"
           "folder of PNG / JPEG images with one sub-folder per class) and writes\n"
           "MODEL (default: the\n"
           "data's basename + \".fsvc\" in the current folder). With -v K it runs a\n"
           "stratified K-fold cross-validation instead (as svm-train -v) and writes\n"
           "no model.\n\n"
           "options (default in brackets; the same names work in `fsvc study --vary`\n"
           "and as the Python estimators' parameters):\n");
    for (int i = 0; fsvc_setting(i); i++) {
        const fsvc_setting_info *s = fsvc_setting(i);
        char opt[200], def[FSVC_CLASS_WEIGHT_MAX + 64] = "";
        option_text(opt, sizeof opt, s);
        fsvc_param_get(p, s->name, def, sizeof def);
        printf("  %s\n", opt);
        const char *h = s->help;
        while (*h) { /* the help text, indented, its last line with the default */
            size_t l = strcspn(h, "\n");
            printf("        %.*s%s", (int)l, h, h[l] ? "\n" : "");
            h += l + (h[l] ? 1 : 0);
        }
        printf(" [%s]\n", def);
    }
    printf("  --strict\n"
           "        --backend cuda: fail (exit 3) instead of falling back to the CPU\n"
           "  -w LABEL WEIGHT\n"
           "        weight of the class LABEL (its label value, or its folder name for PNG\n"
           "        folders) in the ridge fit, as svm-train -w; repeatable; adds to\n"
           "        --class-weight\n"
           "  -v K  K-fold cross-validation (K in 2..64, folds from --seed):\n"
           "        prints \"Cross Validation Accuracy = X%%\" (--regression: the mean\n"
           "        squared error, squared correlation and R^2); no model is written\n"
           "  -q    quiet: only errors and the result line (the model written, or the\n"
           "        cross-validation accuracy)\n"
           "  --sparse, --dense\n"
           "        store LIBSVM data sparse (CSR: memory grows with the nonzero values;\n"
           "        onehot or ridge readout, no LMS) or dense [auto: sparse\n"
           "        above %d features, or under 10%% nonzero with more than %lld\n"
           "        cells]\n"
           "  --resize WxH\n"
           "        images: resize every image (bilinear) to W x H pixels (width x\n"
           "        height); the model keeps the size and resizes the images it is\n"
           "        given at prediction [off: every image of the first one's size]\n"
           "  --sample-weights FILE\n"
           "        a weight > 0 for each sample, one a line in the data's order: a\n"
           "        sample of weight w counts as w samples in the readout (the ridge\n"
           "        fit, the LMS steps, the -b 1 calibration), times its class weight;\n"
           "        the centroid selection and the radius rule do not weigh samples;\n"
           "        not with -R onehot (LIBSVM's weights variant, svm-train -W) [all 1]\n"
           "  --channels 1|3\n"
           "        images: 1 gray (colour becomes Y = 0.299 R + 0.587 G + 0.114 B,\n"
           "        ITU-R BT.601), 3 RGB kept as 3 values a pixel (stored in the model;\n"
           "        no deskew or --augment) [1]\n",
           FSVC_SPARSE_AUTO_N, (long long)FSVC_SPARSE_AUTO_CELLS);
}

enum { O_HELP = CLI_LONG + 64, O_SPARSE, O_DENSE, O_RESIZE, O_CHANNELS, O_SWEIGHTS };
#define MAX_SETTINGS 64

int train_parse(train_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    fsvc_param_default(&a->p);
    run_opts r; /* --backend, --threads (settings too) and --strict: run_opts.c */
    run_opts_init(&r, RUN_ENGINE);
    struct option own[MAX_SETTINGS + 7], lo[MAX_SETTINGS + 11];
    char so[3 * MAX_SETTINGS + 8] = ":qhv:w:";
    size_t nso = 7;
    int n = 0, nl = 0;
    for (; fsvc_setting(n) && n < MAX_SETTINGS; n++) {
        const fsvc_setting_info *s = fsvc_setting(n);
        int flag = !s->arg && !s->choices; /* on|off: the option alone is on */
        if (!run_opts_owns(&r, s->name))
            own[nl++] = (struct option){s->name, flag ? optional_argument : required_argument,
                                        0, CLI_LONG + n};
        if (s->opt) { so[nso++] = s->opt; so[nso++] = ':'; }
    }
    so[nso] = 0;
    own[nl] = (struct option){"help", no_argument, 0, O_HELP};
    own[nl + 1] = (struct option){"sparse", no_argument, 0, O_SPARSE};
    own[nl + 2] = (struct option){"dense", no_argument, 0, O_DENSE};
    own[nl + 3] = (struct option){"resize", required_argument, 0, O_RESIZE};
    own[nl + 4] = (struct option){"channels", required_argument, 0, O_CHANNELS};
    own[nl + 5] = (struct option){"sample-weights", required_argument, 0, O_SWEIGHTS};
    own[nl + 6] = (struct option){0, 0, 0, 0};
    run_opts_longopts(lo, MAX_SETTINGS + 11, own, &r);
    a->storage = FSVC_STORE_AUTO;
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        if (run_opts_take(&r, "train", c, optarg, &rc)) {
            if (rc) return rc;
            continue;
        }
        const fsvc_setting_info *s = NULL;
        char opt[64];
        if (c >= CLI_LONG && c < CLI_LONG + n) {
            s = fsvc_setting(c - CLI_LONG);
            snprintf(opt, sizeof opt, "--%s", s->name);
        } else if (c != ':' && c != '?') {
            for (int i = 0; i < n && !s; i++)
                if (fsvc_setting(i)->opt == c) s = fsvc_setting(i);
            snprintf(opt, sizeof opt, "-%c", c);
        }
        if (c == 's' && cli_libsvm_hint("train", c, argc, argv)) return FSVC_EUSAGE;
        if (s) {
            fsvc_error err;
            const char *v = optarg ? optarg : "on";
            if (fsvc_param_set(&a->p, s->name, v, &err)) {
                /* "radius: 'x' ..." -> "-r: 'x' ...": name the option given */
                size_t l = strlen(s->name);
                const char *m = !strncmp(err.msg, s->name, l) && !strncmp(err.msg + l, ": ", 2)
                              ? err.msg + l + 2 : err.msg;
                return cli_usage_error("train", "%s: %s", opt, m);
            }
            continue;
        }
        switch (c) {
        case 'q': a->quiet = 1; break;
        case 'v': {
            char *end;
            long k = strtol(optarg, &end, 10);
            if (end == optarg || *end || k < 2 || k > 64)
                return cli_usage_error("train", "-v: '%s' is not a number of folds (2..64)",
                                       optarg);
            a->cv = (int)k;
            break;
        }
        case 'w': { /* -w LABEL WEIGHT: one more item of the class-weight list */
            if (optind >= argc)
                return cli_usage_error("train", "-w %s: expected -w LABEL WEIGHT", optarg);
            const char *wv = argv[optind++];
            if (!strcmp(a->p.class_weight, "balanced"))
                return cli_usage_error("train", "-w and --class-weight balanced: choose one");
            char list[FSVC_CLASS_WEIGHT_MAX + 8];
            int l = snprintf(list, sizeof list, "%s%s%s:%s", a->p.class_weight,
                             a->p.class_weight[0] ? "," : "", optarg, wv);
            if (l < 0 || (size_t)l >= sizeof list)
                return cli_usage_error("train", "-w: the class weights are too long (at most "
                                       "%d characters in all)", FSVC_CLASS_WEIGHT_MAX - 1);
            if (strchr(optarg, ',') || !optarg[0])
                return cli_usage_error("train", "-w: '%s' is not a label (no ',')", optarg);
            fsvc_error err;
            if (fsvc_param_set(&a->p, "class-weight", list, &err))
                return cli_usage_error("train", "-w %s %s: %s", optarg, wv,
                                       !strncmp(err.msg, "class-weight: ", 14) ? err.msg + 14
                                                                             : err.msg);
            break;
        }
        case 'h': case O_HELP: help(&a->p); return FSVC_OK;
        case O_SPARSE: a->storage = FSVC_STORE_SPARSE; break;
        case O_DENSE: a->storage = FSVC_STORE_DENSE; break;
        case O_RESIZE:
            if (cli_parse_size("train", "--resize", optarg, &a->resize_rows, &a->resize_cols))
                return FSVC_EUSAGE;
            break;
        case O_SWEIGHTS: a->sample_weights = optarg; break;
        case O_CHANNELS:
            if (strcmp(optarg, "1") && strcmp(optarg, "3"))
                return cli_usage_error("train", "--channels: '%s' is not 1 (gray) or 3 (RGB)",
                                       optarg);
            a->channels = optarg[0] - '0';
            break;
        default:
            return cli_libsvm_hint("train", c, argc, argv) ? FSVC_EUSAGE
                                                           : cli_option_error("train", c, argv);
        }
    }
    a->strict = r.strict;
    if (r.given & RUN_BACKEND) a->p.backend = r.backend;
    if (r.given & RUN_THREADS) a->p.threads = r.threads;
    int nargs = argc - optind;
    if (nargs < 1 || nargs > 2)
        return cli_usage_error("train", "expected DATA [MODEL]");
    fsvc_error err;
    if (fsvc_param_check(&a->p, &err))
        return cli_usage_error("train", "%s", err.msg);
    if (a->cv && nargs == 2)
        return cli_usage_error("train", "-v writes no model; give DATA only");
    if (a->cv) /* -v reports accuracy, which the calibration (-b 1) leaves as it is */
        a->p.probability = 0;
    a->data = argv[optind];
    a->model = nargs == 2 ? argv[optind + 1] : NULL;
    return CLI_RUN;
}

/* The default model path: the data's basename (trailing slashes and a
 * ".gz" dropped: x.train.gz and x.train name one data set) + ".fsvc", in
 * the current folder; malloc'd, NULL when out of memory. */
static char *default_model_path(const char *data)
{
    size_t l = strlen(data);
    char *tmp = malloc(l + 1);
    if (!tmp)
        return NULL;
    memcpy(tmp, data, l + 1);
    while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
    char *base = basename(tmp);
    size_t bl = strlen(base);
    if (bl > 3 && !strcmp(base + bl - 3, ".gz")) base[bl - 3] = 0;
    char *out = malloc(strlen(base) + 6);
    if (out)
        sprintf(out, "%s.fsvc", base);
    free(tmp);
    return out;
}

/* The training summary on stdout (not with -q). */
static void print_summary(const fsvc_model *m, const fsvc_train_info *info,
                          const fsvc_param *p, double total)
{
    /* prag and a selection t_syn mean something only for a novelty pass */
    char prag[48] = "", tsel[48] = "";
    if (m->select != FSVC_SELECT_RANDOM && m->select != FSVC_SELECT_KMEANS)
        snprintf(prag, sizeof prag, ", prag = %g", m->prag);
    if (info->syn_select > 0)
        snprintf(tsel, sizeof tsel, " (t_syn %.3g s)", info->t_select / info->syn_select);
    char feat[64] = "";
    if (m->features == FSVC_FEAT_HOG)
        snprintf(feat, sizeof feat, ", features hog (%lld values)", (long long)fsvc_model_width(m));
    char prec[32] = ""; /* stored in the model: predict runs the layer so too */
    if (m->precision)
        snprintf(prec, sizeof prec, " (%s products)",
                 bnl_precision_name((bnl_precision)m->precision));
    printf("model: %s %s, %s%s, r = %.6g%s, %s selection, %s readout%s, preprocess %s%s\n",
           bnl_dist_name((bnl_dist)m->dist), bnl_act_name((bnl_act)m->act),
           fsvc_dtype_name(m->dtype), prec, m->radius, prag, fsvc_select_name(m->select),
           fsvc_readout_name(m->readout), m->regression ? " (regression)" : "",
           fsvc_preprocess_name(m->preprocess), feat);
    printf("centroids: %lld\n", (long long)m->m);
    printf("time: selection %.3f s%s, readout %.3f s, total %.3f s\n",
           info->t_select, tsel, info->t_readout, total);
    if (info->syn_readout > 0)
        printf("readout: %.3g synaptic operations for H, t_syn %.3g s (incl. solve)\n",
               info->syn_readout, info->t_readout / info->syn_readout);
    if (m->proba_a > 0) /* -b 1; the total time includes its folds */
        printf("probability: softmax(%.6g x scores), fitted on %d-fold held-out scores\n",
               m->proba_a, FSVC_CALIB_FOLDS);
    if (p->augment != FSVC_AUG_NONE)
        printf("augment: %s (virtual samples made per block of samples, not stored)\n",
               fsvc_augment_name(p->augment));
    if (m->readout == FSVC_READOUT_RIDGE && info->solver_rule == FSVC_AUTO_BY_M)
        fprintf(stderr, "fsvc train: solver auto chose %s (%lld centroids; pcg from %d)\n",
                fsvc_solver_name(info->solver), (long long)m->m, FSVC_PCG_AUTO_M);
    else if (m->readout == FSVC_READOUT_RIDGE && info->solver_rule == FSVC_AUTO_AUGMENT)
        fprintf(stderr, "fsvc train: solver auto chose pcg (virtual samples: --augment %s)\n",
                fsvc_augment_name(p->augment));
    else if (m->readout == FSVC_READOUT_RIDGE && info->solver_rule == FSVC_AUTO_DEVICE_MEM)
        fprintf(stderr, "fsvc train: solver auto chose %s (by the device's memory)\n",
                fsvc_solver_name(info->solver));
    if (m->readout == FSVC_READOUT_RIDGE && info->solver == FSVC_SOLVER_PCG)
        printf("ridge: pcg, H %.2f s, products %.2f s, preconditioner %.2f s; %d "
               "iterations, relative residual %.3g\n", info->t_ridge[0], info->t_ridge[1],
               info->t_ridge[2], info->cg_iter, info->cg_res);
    else if (m->readout == FSVC_READOUT_RIDGE)
        printf("ridge: direct, H %.2f s (t_syn %.3g s), H^T H and H^T T %.2f s, solve %.2f s\n",
               info->t_ridge[0], info->t_ridge[0] > 0 ? info->t_ridge[0] / info->syn_readout : 0.0,
               info->t_ridge[1], info->t_ridge[2]);
}

/* The rms radius rule (0.45 x rms by default) suits the ridge readout; the
 * onehot and LMS readouts need more centroids: under 1% of the samples
 * (the low end of the radius search's target), one warning line with the
 * fix. */
static void warn_few_centroids(const fsvc_model *m, const fsvc_param *p, int64_t N)
{
    if (m->regression || m->readout == FSVC_READOUT_RIDGE || p->radius > 0 ||
        !(p->radius_rms > 0) || (double)m->m >= 0.01 * N)
        return;
    fprintf(stderr, "fsvc train: warning: the %s readout got only %lld centroids for %lld "
            "samples at r = %g x rms (the ridge readout's default radius); give -r auto (the "
            "radius search) or a smaller radius (e.g. -r %grms)\n", fsvc_readout_name(m->readout),
            (long long)m->m, (long long)N, p->radius_rms, p->radius_rms / 2);
}

/* -v K: the K-fold cross-validation of p on d, printed as svm-train -v. */
static int train_cv(const fsvc_dataset *d, const fsvc_param *p, int nfold, int quiet)
{
    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_cv_result res;
    uint64_t seed = p->seed;
    if (nfold > d->N) {
        fsvc_fail(&err, FSVC_EINPUT, "train: -v %d: %s has only %lld samples", nfold,
                  d->source, (long long)d->N);
        return cli_report(&err);
    }
    if (p->regression) { /* R^2 and RMSE, as svm-train -s 3 -v prints MSE and SCC */
        fsvc_cv_regression rr;
        if (fsvc_cross_validate_regression(&rr, d, p, nfold, seed, &err))
            return cli_report(&err);
        if (!quiet)
            printf("cv: %d folds, RMSE %.6g +- %.3g over the folds, %.0f centroids per "
                   "model, %.2f s\n", nfold, rr.rmse_mean, rr.rmse_sd, rr.m_mean, rr.t_train);
        printf("Cross Validation Mean squared error = %g\n", rr.mse);
        printf("Cross Validation Squared correlation coefficient = %g\n", rr.scc);
        printf("Cross Validation R^2 = %g\n", rr.r2);
        return FSVC_OK;
    }
    if (fsvc_cross_validate(&res, d, p, nfold, seed, &err))
        return cli_report(&err);
    if (!quiet)
        printf("cv: %d folds, accuracy %.2f%% +- %.2f%% over the folds, %.0f centroids per "
               "model, %.2f s\n", nfold, 100 * res.acc_mean, 100 * res.acc_sd, res.m_mean,
               res.t_train);
    printf("Cross Validation Accuracy = %g%%\n", 100 * res.acc_pooled);
    return FSVC_OK;
}

/* A classifier of one class would answer it for everything: refused, with
 * what to do instead (exit 2, the data's content). */
static int one_class(const fsvc_dataset *d, fsvc_error *err)
{
    char cls[FSVC_MODEL_MAX_NAME + 32] = "";
    if (d->K == 1 && d->class_names)
        snprintf(cls, sizeof cls, " (class folder '%s')", d->class_names[0]);
    else if (d->K == 1 && d->class_values)
        snprintf(cls, sizeof cls, " (label %g)", d->class_values[0]);
    return fsvc_fail(err, FSVC_EINPUT, "%s: every sample is of one class%s; a classifier "
                     "needs two classes or more (fsvc has no one-class mode like svm-train "
                     "-s 2; --regression fits the label values)", d->source, cls);
}

/* The image fields of a model trained on images d (read with lopt). */
static void image_fields(fsvc_model *m, const fsvc_dataset *d, const fsvc_load_opts *lopt)
{
    if (!d->channels || m->Cs)
        return;
    m->img_rows = d->rows;
    m->img_cols = d->cols;
    m->img_channels = d->channels;
    m->img_resize = lopt->rows > 0;
}

/* Labels that look like a regression target trained as classes: many
 * distinct values with fractions, or few samples per class; one line
 * with the fix (not with -q). */
static void warn_continuous(const fsvc_dataset *d, int64_t N)
{
    int frac = 0;
    for (int k = 0; d->class_values && k < d->K; k++)
        frac += d->class_values[k] != (double)(int64_t)d->class_values[k];
    if (d->class_names || !((d->K > 20 && frac > 0) || (d->K > 50 && N < 5 * (int64_t)d->K)))
        return;
    fprintf(stderr, "fsvc train: warning: %s: %d distinct labels (%d not integers, %.1f "
            "samples a class) look like a continuous target; they are trained as %d "
            "classes; give --regression to fit the values\n", d->source, d->K, frac,
            (double)N / d->K, d->K);
}

static int train_run(fsvc_param *pp, const train_args *a, const char *data,
                     const char *model_path)
{
    int quiet = a->quiet, cv = a->cv, storage = a->storage;
    fsvc_param p = *pp;
    /* progress lines on a terminal; the messages (radius, search steps,
     * preprocess auto) unless -q */
    p.progress = quiet ? 0 : cli_progress_wanted(quiet) ? FSVC_PROGRESS_ALL : FSVC_PROGRESS_STEPS;

    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_dataset d;
    const fsvc_comm *D = cli_comm();
    double t0 = cli_now();
    fsvc_load_opts lopt = { 0 };
    /* --shape: LIBSVM text of images has rows x cols features (each side up
     * to 65536: the product in 64 bits, refused below when over the limit) */
    int64_t shape_n = (int64_t)p.rows * p.cols;
    if (p.rows > 0 && shape_n <= CLI_MAX_FEATURES)
        lopt.n_features = (int)shape_n;
    /* LIBSVM text: sparse or dense by the data (or --sparse/--dense); images
     * (--shape) and several processes dense; dense data over the engine's
     * limit refused before the dense matrix is made */
    lopt.storage = p.rows > 0 || D->size > 1 ? FSVC_STORE_DENSE : storage;
    lopt.dense_max_n = CLI_MAX_FEATURES;
    lopt.sparse_finite = 1; /* a float32 +-Inf would become a centroid */
    lopt.rows = a->resize_rows;
    lopt.cols = a->resize_cols;
    lopt.channels = a->channels;
    int rc = cli_blas_reserve(p.threads, &err), loaded = 0;
    if (!rc && storage == FSVC_STORE_SPARSE && (p.rows > 0 || D->size > 1))
        rc = fsvc_fail(&err, FSVC_EUSAGE, "train: --sparse does not combine with %s",
                       p.rows > 0 ? "--shape (images are dense)" : "several processes");
    if (!rc && p.rows > 0 && shape_n > CLI_MAX_FEATURES)
        rc = fsvc_fail(&err, FSVC_EUSAGE, "train: --shape %dx%d is %lld values a sample; dense "
                       "data holds at most %d", p.rows, p.cols, (long long)shape_n,
                       CLI_MAX_FEATURES);
    /* several processes: each reads only its slice of the samples, and
     * d holds the global samples [first, first + d.N) of N_total; the
     * slice load is collective, so every rank goes on or none does */
    rc = cli_comm_agree(rc, &err);
    int64_t first = 0, N_total = 0;
    fsvc_slice_comm comm = cli_slice_comm(D);
    if (!rc) {
        rc = D->size > 1 ? fsvc_dataset_load_slice(&d, &first, &N_total, data, &lopt, &comm, &err)
                         : fsvc_dataset_load(&d, data, &lopt, &err);
        loaded = !rc;
    }
    if (!rc && D->size <= 1)
        N_total = d.N;
    if (!rc && !d.channels && (lopt.rows > 0 || lopt.channels == 3))
        rc = fsvc_fail(&err, FSVC_EUSAGE, "train: %s is not a folder of images; --resize "
                       "and --channels are for PNG / JPEG images", data);
    if (!rc && D->rank == 0)
        cli_warn_skipped(&d, "train", quiet);
    /* a failed slice load failed on every rank, and every rank has the
     * same kind of source: all ranks take the same branch here */
    if (!rc && p.rows > 0 && d.rows == 0)
        rc = D->size > 1 ? fsvc_dataset_set_shape_slice(&d, p.rows, p.cols, &comm, &err)
                         : fsvc_dataset_set_shape(&d, p.rows, p.cols, &err);
    if (!rc && !d.csr && d.n > CLI_MAX_FEATURES)
        rc = fsvc_fail(&err, FSVC_EINPUT, "%s: %d features; fsvc trains dense data on at most "
                       "%d (LIBSVM text: read it sparse with --sparse, or reduce the features)",
                       d.source, d.n, CLI_MAX_FEATURES);
    if (!rc && a->sample_weights) /* every rank reads the file, keeps its slice */
        rc = fsvc_dataset_load_weights(&d, a->sample_weights, first, N_total, &err);
    if (!rc && !p.regression && d.K < 2) /* the class list is every rank's */
        rc = one_class(&d, &err);
    if (!rc && !p.regression && !quiet && D->rank == 0)
        warn_continuous(&d, N_total);
    if (!rc && N_total < D->size)
        rc = fsvc_fail(&err, FSVC_EUSAGE, "%s: %lld samples for %d processes", d.source,
                       (long long)N_total, D->size);
    rc = cli_comm_agree(rc, &err);
    if (rc) {
        if (loaded) fsvc_dataset_free(&d);
        return cli_comm_end(rc, &err);
    }
    double t1 = cli_now();
    if (!quiet && d.csr)
        printf("data: %s, %lld x %d sparse (%lld nonzero values, %.3g%%), %d classes "
               "(%.2f s)\n", d.source, (long long)N_total, d.n, (long long)d.csr->nnz,
               100.0 * (double)d.csr->nnz / ((double)d.N * d.n), d.K, t1 - t0);
    else if (!quiet)
        printf("data: %s, %lld x %d %s, %d %s (%.2f s)\n", d.source, (long long)N_total, d.n,
           fsvc_dtype_name(d.dtype), d.K, p.regression ? "distinct label values" : "classes",
           t1 - t0);
    if (cv) { /* cross-validation: one process */
        if (D->size > 1) {
            fsvc_dataset_free(&d);
            rc = fsvc_fail(&err, FSVC_EUSAGE, "train -v K (cross-validation) runs as one process, not across %d "
                           "processes", D->size);
            return cli_comm_end(rc, &err);
        }
        rc = train_cv(&d, &p, cv, quiet);
        fsvc_dataset_free(&d);
        return rc;
    }
    if (D->size > 1 && !quiet)
        printf("processes: %d, about %lld samples each, each read only its slice\n", D->size,
               (long long)(N_total / D->size));
    fsvc_model m;
    fsvc_train_info info;
    rc = fsvc_train_comm(&m, &info, &d, N_total, first, &p, D, &err);
    if (!rc)
        image_fields(&m, &d, &lopt);
    int64_t N = N_total;
    fsvc_dataset_free(&d);
    rc = cli_comm_agree(rc, &err);
    if (rc) return cli_comm_end(rc, &err);
    double t2 = cli_now();
    if (!quiet)
        print_summary(&m, &info, &p, t2 - t1);
    if (!quiet)
        warn_few_centroids(&m, &p, N);
    if (D->rank == 0) /* one writer; the others wait for its status */
        rc = fsvc_model_save(&m, model_path, &err);
    fsvc_free_model(&m);
    if (!rc) printf("model written to %s\n", model_path);
    return cli_comm_end(rc, &err);
}

int cmd_train(int argc, char **argv)
{
    train_args a;
    int rc = train_parse(&a, argc, argv);
    if (rc != CLI_RUN)
        return rc;
    fsvc_param p = a.p;
    const char *data = a.data;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (cli_backend_check(p.backend, a.strict, &err))
        return cli_report(&err);
    char *model_path = a.model ? NULL : default_model_path(data);
    if (!a.model && !model_path) {
        fsvc_fail(&err, FSVC_ERESOURCE, "train: out of memory");
        return cli_report(&err);
    }
    const char *mp = a.model ? a.model : model_path;
    if (!a.cv && cli_out_check("train", mp, &data, 1, "name another MODEL", &err)) {
        free(model_path);
        return cli_report(&err);
    }
    rc = train_run(&p, &a, data, mp);
    free(model_path);
    return rc;
}
