/* cmd_train.c - `fsvc train [options] DATA [MODEL]`: the FSVC trainer. */
#include "tools/cli.h"
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
    printf("  --backend ref|cpu|cuda  engine backend (%s)\n", p->backend);
    printf("  --threads T     CPU threads (%d, 0: all cores)\n", p->threads);
    printf("  -q              quiet: no progress\n");
}

static int parse_enum(const char *opt, const char *s, int rc)
{
    if (rc) return cli_usage_error("train", "%s: unknown value '%s'", opt, s);
    return 0;
}

int cmd_train(int argc, char **argv)
{
    fsvc_param p;
    fsvc_param_default(&p);
    int quiet = 0;
    static const struct option lo[] = {
        {"scale", 1, 0, 1}, {"dtype", 1, 0, 2}, {"shuffle", 1, 0, 3},
        {"max-neurons", 1, 0, 4}, {"backend", 1, 0, 5}, {"threads", 1, 0, 6},
        {"preprocess", 1, 0, 7}, {"regression", 0, 0, 8}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    long lv;
    while ((c = getopt_long(argc, argv, "r:p:d:k:s:R:l:e:E:qh", lo, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'r': {
            size_t l = strlen(optarg);
            if (!strcmp(optarg, "search")) {
                p.radius = 0;
                p.radius_rms = 0;
            } else if (l > 3 && !strcmp(optarg + l - 3, "rms")) {
                char num[64];
                snprintf(num, sizeof num, "%.*s", (int)(l - 3), optarg);
                bad = cli_parse_double("train", "-r", num, 1e-300, 1e300, &p.radius_rms);
                p.radius = 0;
            } else {
                bad = cli_parse_double("train", "-r", optarg, 1e-300, 1e300, &p.radius);
                p.radius_rms = 0;
            }
            break;
        }
        case 'p': bad = cli_parse_double("train", "-p", optarg, 1e-300, 1e300, &p.prag); break;
        case 'd': { bnl_dist v; bad = parse_enum("-d", optarg, bnl_dist_parse(optarg, &v) || v == BNL_DOT); p.dist = v; break; }
        case 'k': { bnl_act v; bad = parse_enum("-k", optarg, bnl_act_parse(optarg, &v) || v > BNL_GAUSS); p.act = v; break; }
        case 's': bad = parse_enum("-s", optarg, fsvc_select_parse(optarg, &p.select)); break;
        case 'R': bad = parse_enum("-R", optarg, fsvc_readout_parse(optarg, &p.readout)); break;
        case 'l': bad = cli_parse_double("train", "-l", optarg, 1e-300, 1e300, &p.lambda); break;
        case 'e': bad = cli_parse_double("train", "-e", optarg, 0, 1e300, &p.eta); break;
        case 'E': bad = cli_parse_long("train", "-E", optarg, 0, 1000000, &lv); p.epochs = (int)lv; break;
        case 'q': quiet = 1; break;
        case 'h': help(&p); return FSVC_OK;
        case 1: bad = parse_enum("--scale", optarg, fsvc_scale_parse(optarg, &p.scale)); break;
        case 2: { fsvc_dtype t; bad = parse_enum("--dtype", optarg, fsvc_dtype_parse(optarg, &t)); p.dtype = t; break; }
        case 3: bad = cli_parse_long("train", "--shuffle", optarg, 0, 0x7fffffffffffffffL, &lv);
                p.shuffle = 1; p.seed = (uint64_t)lv; break;
        case 4: bad = cli_parse_long("train", "--max-neurons", optarg, 0, 1L << 40, &lv);
                p.max_neurons = lv; break;
        case 5: { bnl_backend b; bad = parse_enum("--backend", optarg, bnl_backend_parse(optarg, &b));
                  p.backend = optarg; break; }
        case 6: bad = cli_parse_long("train", "--threads", optarg, 0, 4096, &lv); p.threads = (int)lv; break;
        case 7: bad = parse_enum("--preprocess", optarg, fsvc_preprocess_parse(optarg, &p.preprocess)); break;
        case 8: p.regression = 1; break;
        default:
            return cli_usage_error("train", "unknown option or missing value: %s", argv[optind - 1]);
        }
        if (bad) return FSVC_EUSAGE;
    }
    int nargs = argc - optind;
    if (nargs < 1 || nargs > 2)
        return cli_usage_error("train", "expected DATA [MODEL]");
    const char *data = argv[optind];
    char model_path[1024];
    if (nargs == 2) {
        snprintf(model_path, sizeof model_path, "%s", argv[optind + 1]);
    } else {
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%s", data);
        size_t l = strlen(tmp);
        while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
        snprintf(model_path, sizeof model_path, "%s.fsvc", basename(tmp));
    }
    p.progress = cli_progress_wanted(quiet);

    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_dataset d;
    double t0 = cli_now();
    if (fsvc_dataset_load(&d, data, NULL, &err)) return cli_report(&err);
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
