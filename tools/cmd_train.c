/* cmd_train.c - `fsvc train [options] DATA [MODEL]`: the FSVC trainer. */
#include "tools/args.h"
#include "layers/bnl.h"

#include <cblas.h>
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

static void help(const fsvc_param *p)
{
    printf("usage: fsvc train [options] DATA [MODEL]\n\n"
           "Trains an FSVC classifier on DATA (IDX prefix or file, LIBSVM text, PNG\n"
           "folder with one sub-folder per class) and writes MODEL (default: the\n"
           "data's basename + \".fsvc\" in the current folder).\n\noptions (default):\n");
    if (p->radius > 0) printf("  -r R            radius (%g)\n", p->radius);
    else if (p->radius_rms > 0)
        printf("  -r R|Xrms|search  radius; X times the rms distance between samples; or\n"
               "                  the author's search (prag 1, halve r from a large value until\n"
               "                  the centroids are 1-10%% of N, then refine) (%grms)\n",
               p->radius_rms);
    else printf("  -r R            radius (search: prag 1, halve r from a large value until\n"
                "                  the centroids are 1-10%% of N, then refine)\n");
    printf("  -p PRAG         novelty threshold, accept when the sum < PRAG (%g)\n", p->prag);
    printf("  -d l1|l2        distance (%s)\n", bnl_dist_name((bnl_dist)p->dist));
    printf("  -k tri|gauss    kernel (%s)\n", bnl_act_name((bnl_act)p->act));
    printf("  -s global|per-class|random|auto  centroid selection: the novelty pass, the\n"
           "                  first --max-neurons of a seeded shuffle, or auto: random for\n"
           "                  the ridge readout (unless -r search), else global (%s)\n",
           fsvc_select_name(p->select));
    printf("  -R onehot|lms|ridge  readout (%s)\n", fsvc_readout_name(p->readout));
    printf("  -l LAMBDA       ridge regularisation, times the mean of diag(H^T H) (%g)\n", p->lambda);
    printf("  -e ETA          lms learning rate (%g)\n", p->eta);
    printf("  -E EPOCHS       lms epochs (%d)\n", p->epochs);
    printf("  --scale 01|pm1|none  scaling of u8 input (%s)\n", fsvc_scale_name(p->scale));
    printf("  --dtype u8|f32|f64   centroid type (%s)\n",
           p->dtype < 0 ? "u8 for unscaled u8 data, else f32" : fsvc_dtype_name(p->dtype));
    printf("  --preprocess none|deskew|sqrt|deskew+sqrt|auto  input preprocessing (%s;\n"
           "                  auto: sqrt for u8 images, deskew+sqrt when they are slanted)\n",
           fsvc_preprocess_name(p->preprocess));
    printf("  --regression    ridge regression on the label values (%s)\n",
           p->regression ? "on" : "off");
    printf("  --shuffle SEED  seeded shuffle of the pass order (%s)\n",
           p->shuffle ? "on" : "off: file order");
    printf("  --max-neurons M cap on the centroids; -s random takes M (%lld; 0: no cap,\n"
           "                  10000 for -s random)\n", (long long)p->max_neurons);
    printf("  --backend ref|cpu|cuda  engine backend (%s); cuda without a usable device\n"
           "                  prints one line and runs on the CPU\n", p->backend);
    printf("  --strict        --backend cuda: fail (exit 3) instead of falling back\n");
    printf("  --threads T     CPU threads (%d, 0: all cores)\n", p->threads);
    printf("  -q              quiet: no progress\n");
}

static int parse_enum(const char *opt, const char *s, int rc)
{
    if (rc) return cli_usage_error("train", "%s: unknown value '%s'", opt, s);
    return 0;
}

enum { O_SCALE = CLI_LONG, O_DTYPE, O_SHUFFLE, O_MAXN, O_BACKEND, O_THREADS, O_PREPROCESS,
       O_REGRESSION, O_STRICT, O_HELP };

int train_parse(train_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    fsvc_param_default(&a->p);
    fsvc_param *p = &a->p;
    static const struct option lo[] = {
        {"scale", 1, 0, O_SCALE}, {"dtype", 1, 0, O_DTYPE}, {"shuffle", 1, 0, O_SHUFFLE},
        {"max-neurons", 1, 0, O_MAXN}, {"backend", 1, 0, O_BACKEND},
        {"threads", 1, 0, O_THREADS}, {"preprocess", 1, 0, O_PREPROCESS},
        {"regression", 0, 0, O_REGRESSION}, {"strict", 0, 0, O_STRICT},
        {"help", 0, 0, O_HELP}, {0, 0, 0, 0}};
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c;
    long lv;
    while ((c = getopt_long(argc, argv, ":r:p:d:k:s:R:l:e:E:qh", lo, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'r': {
            size_t l = strlen(optarg);
            if (!strcmp(optarg, "search")) {
                p->radius = 0;
                p->radius_rms = 0;
            } else if (l > 3 && !strcmp(optarg + l - 3, "rms")) {
                char num[64];
                if (l - 3 >= sizeof num)
                    return cli_usage_error("train", "-r: '%s' is not a number", optarg);
                snprintf(num, sizeof num, "%.*s", (int)(l - 3), optarg);
                bad = cli_parse_double("train", "-r", num, 1e-300, 1e300, &p->radius_rms);
                p->radius = 0;
            } else {
                bad = cli_parse_double("train", "-r", optarg, 1e-300, 1e300, &p->radius);
                p->radius_rms = 0;
            }
            break;
        }
        case 'p': bad = cli_parse_double("train", "-p", optarg, 1e-300, 1e300, &p->prag); break;
        case 'd': { bnl_dist v; bad = parse_enum("-d", optarg, bnl_dist_parse(optarg, &v) || v == BNL_DOT); p->dist = v; break; }
        case 'k': { bnl_act v; bad = parse_enum("-k", optarg, bnl_act_parse(optarg, &v) || v > BNL_GAUSS); p->act = v; break; }
        case 's': bad = parse_enum("-s", optarg, fsvc_select_parse(optarg, &p->select)); break;
        case 'R': bad = parse_enum("-R", optarg, fsvc_readout_parse(optarg, &p->readout)); break;
        case 'l': bad = cli_parse_double("train", "-l", optarg, 1e-300, 1e300, &p->lambda); break;
        case 'e': bad = cli_parse_double("train", "-e", optarg, 0, 1e300, &p->eta); break;
        case 'E': bad = cli_parse_long("train", "-E", optarg, 0, 1000000, &lv); p->epochs = (int)lv; break;
        case 'q': a->quiet = 1; break;
        case 'h': case O_HELP: help(p); return FSVC_OK;
        case O_SCALE: bad = parse_enum("--scale", optarg, fsvc_scale_parse(optarg, &p->scale)); break;
        case O_DTYPE: { fsvc_dtype t; bad = parse_enum("--dtype", optarg, fsvc_dtype_parse(optarg, &t)); p->dtype = t; break; }
        case O_SHUFFLE: bad = cli_parse_long("train", "--shuffle", optarg, 0, 0x7fffffffffffffffL, &lv);
                p->shuffle = 1; p->seed = (uint64_t)lv; break;
        case O_MAXN: bad = cli_parse_long("train", "--max-neurons", optarg, 0, 1L << 40, &lv);
                p->max_neurons = lv; break;
        case O_BACKEND: { bnl_backend b; bad = parse_enum("--backend", optarg, bnl_backend_parse(optarg, &b));
                  p->backend = optarg; break; }
        case O_THREADS: bad = cli_parse_long("train", "--threads", optarg, 0, 4096, &lv); p->threads = (int)lv; break;
        case O_PREPROCESS: bad = parse_enum("--preprocess", optarg, fsvc_preprocess_parse(optarg, &p->preprocess)); break;
        case O_REGRESSION: p->regression = 1; break;
        case O_STRICT: a->strict = 1; break;
        default:
            return cli_option_error("train", c, argv);
        }
        if (bad) return FSVC_EUSAGE;
    }
    int nargs = argc - optind;
    if (nargs < 1 || nargs > 2)
        return cli_usage_error("train", "expected DATA [MODEL]");
    a->data = argv[optind];
    a->model = nargs == 2 ? argv[optind + 1] : NULL;
    return CLI_RUN;
}

/* The default model path: the data's basename (trailing slashes dropped)
 * + ".fsvc", in the current folder; malloc'd, NULL when out of memory. */
static char *default_model_path(const char *data)
{
    size_t l = strlen(data);
    char *tmp = malloc(l + 1);
    if (!tmp)
        return NULL;
    memcpy(tmp, data, l + 1);
    while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
    const char *base = basename(tmp);
    char *out = malloc(strlen(base) + 6);
    if (out)
        sprintf(out, "%s.fsvc", base);
    free(tmp);
    return out;
}

static int train_run(fsvc_param *pp, int quiet, const char *data, const char *model_path)
{
    fsvc_param p = *pp;
    p.progress = cli_progress_wanted(quiet);
    if (p.threads > 0) openblas_set_num_threads(p.threads); /* the ridge's BLAS */

    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_dataset d;
    double t0 = cli_now();
    if (fsvc_dataset_load(&d, data, NULL, &err)) return cli_report(&err);
    if (d.n > CLI_MAX_FEATURES) {
        fsvc_fail(&err, FSVC_EINPUT, "%s: %d features; fsvc trains on at most %d", d.source,
                  d.n, CLI_MAX_FEATURES);
        fsvc_dataset_free(&d);
        return cli_report(&err);
    }
    double t1 = cli_now();
    printf("data: %s, %lld x %d %s, %d classes (%.2f s)\n", d.source, (long long)d.N, d.n,
           fsvc_dtype_name(d.dtype), d.K, t1 - t0);
    fsvc_model m;
    fsvc_train_info info;
    int rc = fsvc_train(&m, &info, &d, &p, &err);
    fsvc_dataset_free(&d);
    if (rc) return cli_report(&err);
    double t2 = cli_now();
    /* prag and a selection t_syn mean something only for a novelty pass */
    char prag[48] = "", tsel[48] = "";
    if (m.select != FSVC_SELECT_RANDOM)
        snprintf(prag, sizeof prag, ", prag = %g", m.prag);
    if (info.syn_select > 0)
        snprintf(tsel, sizeof tsel, " (t_syn %.3g s)", info.t_select / info.syn_select);
    printf("model: %s %s, %s, r = %.6g%s, %s selection, %s readout%s\n",
           bnl_dist_name((bnl_dist)m.dist), bnl_act_name((bnl_act)m.act),
           fsvc_dtype_name(m.dtype), m.radius, prag, fsvc_select_name(m.select),
           fsvc_readout_name(m.readout), m.regression ? " (regression)" : "");
    printf("centroids: %lld\n", (long long)m.m);
    printf("time: selection %.3f s%s, readout %.3f s, total %.3f s\n",
           info.t_select, tsel, info.t_readout, t2 - t1);
    if (info.syn_readout > 0)
        printf("readout: %.3g synaptic operations for H, t_syn %.3g s (incl. solve)\n",
               info.syn_readout, info.t_readout / info.syn_readout);
    if (m.readout == FSVC_READOUT_RIDGE)
        printf("ridge: H %.2f s (t_syn %.3g s), H^T H and H^T T %.2f s, solve %.2f s\n",
               info.t_ridge[0], info.t_ridge[0] > 0 ? info.t_ridge[0] / info.syn_readout : 0.0,
               info.t_ridge[1], info.t_ridge[2]);
    rc = fsvc_model_save(&m, model_path, &err);
    fsvc_free_model(&m);
    if (rc) return cli_report(&err);
    printf("model written to %s\n", model_path);
    return FSVC_OK;
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
    rc = train_run(&p, a.quiet, data, a.model ? a.model : model_path);
    free(model_path);
    return rc;
}
