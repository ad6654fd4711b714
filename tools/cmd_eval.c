/* cmd_eval.c - `fsvc eval MODEL DATA [--png FILE]`: accuracy, per-class
 * precision and recall, the confusion matrix as text and, with --png, as a
 * heat-map image (libpng; written to a temp file, then renamed). */
#include "tools/args.h"
#include "tools/dist.h"
#include "layers/bnl.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The confusion matrix is made, printed and drawn up to this many classes
 * (a 2000 x 2000 px image; 10^6 classes would be 8 TB of counts). */
#define EVAL_MATRIX_MAX_K 1000

/* Confusion matrix conf (K x K) as a grid of cells, white (0) to dark blue
 * (the row's total), rows = true class, columns = predicted. */
static int write_png(const char *path, const int64_t *conf, int K, fsvc_error *err)
{
    int cell = K <= 20 ? 24 : K <= 100 ? 6 : 2, gap = K <= 100 ? 1 : 0;
    int W = K * (cell + gap) + gap;
    unsigned char *rgb = malloc((size_t)W * W * 3); /* W x W x 3 */
    if (!rgb) return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    for (int y = 0; y < W; y++) {
        int r = y / (cell + gap), in_r = y % (cell + gap) >= gap;
        int64_t tot = 0;
        if (r < K) for (int c = 0; c < K; c++) tot += conf[(size_t)r * K + c];
        for (int x = 0; x < W; x++) {
            int c = x / (cell + gap), in_c = x % (cell + gap) >= gap;
            unsigned char *px = rgb + ((size_t)y * W + x) * 3;
            if (r >= K || c >= K || !in_r || !in_c) { px[0] = px[1] = px[2] = 160; continue; }
            double v = tot ? (double)conf[(size_t)r * K + c] / tot : 0;
            if (v > 0 && v < 0.02) v = 0.02; /* any error stays visible */
            px[0] = (unsigned char)(255 * (1 - v));
            px[1] = (unsigned char)(255 * (1 - 0.8 * v));
            px[2] = (unsigned char)(255 - 100 * v);
        }
    }
    int rc = fsvc_png_write_rgb(path, rgb, W, W, err);
    free(rgb);
    return rc;
}

enum { O_PNG = CLI_LONG, O_BACKEND, O_THREADS, O_STRICT, O_BATCH, O_HELP };

int eval_parse(eval_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->backend = "cpu";
    a->batch = CLI_PNG_BATCH;
    static const struct option lo[] = {
        {"png", 1, 0, O_PNG}, {"backend", 1, 0, O_BACKEND}, {"threads", 1, 0, O_THREADS},
        {"strict", 0, 0, O_STRICT}, {"batch", 1, 0, O_BATCH}, {"help", 0, 0, O_HELP},
        {0, 0, 0, 0}};
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c;
    bnl_backend b;
    while ((c = getopt_long(argc, argv, ":qh", lo, NULL)) != -1) {
        switch (c) {
        case 'h': case O_HELP:
            printf("usage: fsvc eval [options] MODEL DATA\n\n"
                   "Accuracy, per-class precision and recall, confusion matrix.\n\n"
                   "options (default):\n"
                   "  --png FILE      also write the confusion matrix as a heat map (%s)\n"
                   "  --backend ref|cpu|cuda  engine backend (%s); cuda without a usable\n"
                   "                  device prints one line and runs on the CPU\n"
                   "  --strict        --backend cuda: fail (exit 3) instead of falling back\n"
                   "  --threads T     CPU threads (%ld, 0: all cores)\n"
                   "  --batch B       PNG folder: decode the next B images (rounded up to\n"
                   "                  a multiple of 8192) on CPU threads while the ones\n"
                   "                  before are scored (%ld; 0: decode the whole folder\n"
                   "                  first); the same report, bit for bit on the CPU\n"
                   "  -q              no progress (shown on stderr when it is a terminal)\n",
                   a->png ? a->png : "none", a->backend, a->threads, a->batch);
            return FSVC_OK;
        case O_PNG: a->png = optarg; break;
        case O_BACKEND:
            if (bnl_backend_parse(optarg, &b))
                return cli_usage_error("eval", "--backend: '%s' is not ref, cpu or cuda", optarg);
            a->backend = optarg;
            break;
        case O_THREADS: if (cli_parse_long("eval", "--threads", optarg, 0, 4096, &a->threads)) return FSVC_EUSAGE; break;
        case O_STRICT: a->strict = 1; break;
        case 'q': a->quiet = 1; break;
        case O_BATCH: if (cli_parse_long("eval", "--batch", optarg, 0, 1L << 30, &a->batch)) return FSVC_EUSAGE; break;
        default: return cli_option_error("eval", c, argv);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("eval", "expected MODEL DATA");
    a->model = argv[optind];
    a->data = argv[optind + 1];
    return CLI_RUN;
}

int cmd_eval(int argc, char **argv)
{
    eval_args a;
    int prc = eval_parse(&a, argc, argv);
    if (prc != CLI_RUN)
        return prc;
    const char *backend = a.backend, *pngpath = a.png;
    long threads = a.threads;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (cli_backend_check(backend, a.strict, &err)) return cli_report(&err);
    fsvc_model m;
    fsvc_dataset d;
    int batched = cli_png_batched(a.data, a.batch); /* a PNG folder in batches */
    int64_t first = 0, N = 0; /* this rank's slice [first, first + d.N) of N */
    int rc = cli_blas_reserve((int)threads, &err), have_m = 0, have_d = 0;
    if (!rc) {
        rc = cli_load_model(&m, a.model, a.data, &err);
        have_m = !rc;
    }
    if (!rc && m.regression)
        rc = fsvc_fail(&err, FSVC_EINPUT, "%s: a regression model; eval needs a classifier "
                       "(fsvc predict reports MSE and R^2)", a.model);
    else if (!rc && pngpath && m.K > EVAL_MATRIX_MAX_K)
        rc = fsvc_fail(&err, FSVC_EINPUT, "%s: %d classes; --png draws the confusion matrix of "
                       "at most %d", a.model, m.K, EVAL_MATRIX_MAX_K);
    rc = cli_dist_same_model(rc, &m, a.model, &err); /* the load below is collective */
    if (!rc) {
        batched = batched && !m.Cs; /* a sparse model: the whole folder */
        rc = batched ? cli_png_list(&d, a.data, 0, &err)
                     : cli_load_data_slice(&d, &first, &N, a.data, &m, 0, "eval", &err);
        if (batched && !rc) N = d.N;
        have_d = !rc;
    }
    rc = cli_dist_agree(rc, &err); /* every rank, or none, goes on */
    if (rc) {
        if (have_d) fsvc_dataset_free(&d);
        if (have_m) fsvc_free_model(&m);
        return cli_dist_end(rc, &err);
    }
    int K = m.K;
    int *pred = malloc((size_t)(N ? N : 1) * sizeof *pred);
    int *truth = malloc((size_t)(N ? N : 1) * sizeof *truth);
    /* the K x K matrix only when it is shown; the per-class counts from
     * the samples (3 x K): a model of 10^6 classes evaluates too */
    int64_t *conf = K <= EVAL_MATRIX_MAX_K ? calloc((size_t)K * K, sizeof *conf) : NULL;
    int64_t *tp = calloc((size_t)K * 3, sizeof *tp), *row = tp + K, *col = tp + 2 * (size_t)K;
    if (!pred || !truth || !tp || (K <= EVAL_MATRIX_MAX_K && !conf))
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "eval: out of memory");
    else if (!d.has_labels || !d.y) rc = fsvc_fail(&err, FSVC_EINPUT, "%s: no labels to evaluate", d.source);
    rc = cli_dist_agree(rc, &err);
    if (rc) goto done;
    double t0 = cli_now();
    rc = batched ? cli_png_predict(pred, NULL, &m, &d, a.batch, backend, (int)threads, a.quiet,
                                   "eval", &err)
                 : cli_dist_predict_at(pred, NULL, &m, &d, first, N, backend, (int)threads, &err);
    if (!rc && cli_dist()->size > 1) { /* the labels of the whole set */
        fsvc_dataset g;
        rc = cli_dist_gather_meta(&g, &d, first, N, &err);
        fsvc_dataset_free(&d);
        if (!rc) d = g;
    }
    if (rc || cli_dist()->rank > 0) goto done; /* rank 0 reports */
    double t1 = cli_now();
    int64_t unknown = fsvc_model_truth(truth, &m, &d);
    int64_t ok = fsvc_confusion(conf, truth, pred, N, K);
    printf("predicted %lld samples in %.3f s\n", (long long)N, t1 - t0);
    if (unknown) {
        printf("%lld samples have a label the model does not know (counted as errors)\n",
               (long long)unknown);
        fprintf(stderr, "fsvc eval: warning: %s: %lld of %lld samples have a label the model "
                "does not know (the model has %d classes); they count as errors\n",
                d.source, (long long)unknown, (long long)N, K);
    }
    for (int64_t i = 0; i < N; i++) {
        if (truth[i] >= 0) row[truth[i]]++;
        if (pred[i] >= 0) col[pred[i]]++;
        if (truth[i] >= 0 && truth[i] == pred[i]) tp[truth[i]]++;
    }
    char cn[FSVC_MODEL_MAX_NAME + 1]; /* class name (PNG folders) or label value */
    printf("\n%10s %10s %10s %8s\n", "class", "precision", "recall", "support");
    for (int k = 0; k < K; k++)
        printf("%10s %9.2f%% %9.2f%% %8lld\n", fsvc_model_class_text(&m, k, cn, sizeof cn),
               col[k] ? 100.0 * tp[k] / col[k] : 0.0, row[k] ? 100.0 * tp[k] / row[k] : 0.0,
               (long long)row[k]);
    if (!conf) {
        printf("\nconfusion matrix: not shown for %d classes (at most %d)\n", K,
               EVAL_MATRIX_MAX_K);
    } else {
        printf("\nconfusion matrix (rows: true class, columns: predicted)\n%8s", "");
        for (int k = 0; k < K; k++) printf(" %6s", fsvc_model_class_text(&m, k, cn, sizeof cn));
        printf("\n");
        for (int r = 0; r < K; r++) {
            printf("%8s", fsvc_model_class_text(&m, r, cn, sizeof cn));
            for (int k = 0; k < K; k++) printf(" %6lld", (long long)conf[(size_t)r * K + k]);
            printf("\n");
        }
    }
    if (pngpath) {
        rc = write_png(pngpath, conf, K, &err);
        if (rc) goto done;
        printf("confusion matrix image: %s\n", pngpath);
    }
    printf("Accuracy = %.2f%% (%lld/%lld)\n", N ? 100.0 * ok / N : 0.0, (long long)ok, (long long)N);
done:
    free(pred); free(truth); free(conf); free(tp);
    fsvc_dataset_free(&d);
    fsvc_free_model(&m);
    return cli_dist_end(rc, &err);
}
