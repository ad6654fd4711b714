/* cmd_eval.c - `fsvc eval MODEL DATA [--png FILE]`: accuracy, per-class
 * precision and recall, the confusion matrix as text and, with --png, as a
 * heat-map image (libpng; written to a temp file, then renamed). */
#include "tools/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int cmd_eval(int argc, char **argv)
{
    const char *backend = "cpu", *pngpath = NULL;
    long threads = 0;
    static const struct option lo[] = {
        {"png", 1, 0, 1}, {"backend", 1, 0, 2}, {"threads", 1, 0, 3},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'h':
            printf("usage: fsvc eval [options] MODEL DATA\n\n"
                   "Accuracy, per-class precision and recall, confusion matrix.\n\n"
                   "options (default):\n"
                   "  --png FILE      also write the confusion matrix as a heat map (%s)\n"
                   "  --backend ref|cpu|cuda  engine backend (%s)\n"
                   "  --threads T     CPU threads (%ld, 0: all cores)\n",
                   pngpath ? pngpath : "none", backend, threads);
            return FSVC_OK;
        case 1: pngpath = optarg; break;
        case 2: backend = optarg; break;
        case 3: if (cli_parse_long("eval", "--threads", optarg, 0, 4096, &threads)) return FSVC_EUSAGE; break;
        default: return cli_usage_error("eval", "unknown option or missing value: %s", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("eval", "expected MODEL DATA");
    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_model m;
    if (fsvc_model_load(&m, argv[optind], &err)) return cli_report(&err);
    if (m.regression) {
        fsvc_free_model(&m);
        return cli_usage_error("eval", "%s is a regression model; use fsvc predict", argv[optind]);
    }
    fsvc_dataset d;
    fsvc_load_opts lopt = { 0 };
    lopt.n_features = m.n;
    if (fsvc_dataset_load(&d, argv[optind + 1], &lopt, &err)) { fsvc_free_model(&m); return cli_report(&err); }
    int K = m.K, rc = FSVC_OK;
    int64_t N = d.N;
    int *pred = malloc((size_t)(N ? N : 1) * sizeof *pred);
    int *truth = malloc((size_t)(N ? N : 1) * sizeof *truth);
    int64_t *conf = calloc((size_t)K * K, sizeof *conf);
    if (!pred || !truth || !conf) { rc = fsvc_fail(&err, FSVC_ERESOURCE, "eval: out of memory"); goto done; }
    if (!d.has_labels || !d.y) { rc = fsvc_fail(&err, FSVC_EINPUT, "%s: no labels to evaluate", d.source); goto done; }
    double t0 = cli_now();
    rc = fsvc_predict(pred, NULL, &m, &d, backend, (int)threads, &err);
    if (rc) goto done;
    double t1 = cli_now();
    int64_t unknown = fsvc_model_truth(truth, &m, &d);
    int64_t ok = fsvc_confusion(conf, truth, pred, N, K);
    printf("predicted %lld samples in %.3f s\n", (long long)N, t1 - t0);
    if (unknown)
        printf("%lld samples have a label the model does not know (counted as errors)\n",
               (long long)unknown);
    char cn[FSVC_MODEL_MAX_NAME + 1]; /* class name (PNG folders) or label value */
    printf("\n%10s %10s %10s %8s\n", "class", "precision", "recall", "support");
    for (int k = 0; k < K; k++) {
        int64_t tp = conf[(size_t)k * K + k], col = 0, row = 0;
        for (int q = 0; q < K; q++) { col += conf[(size_t)q * K + k]; row += conf[(size_t)k * K + q]; }
        printf("%10s %9.2f%% %9.2f%% %8lld\n", fsvc_model_class_text(&m, k, cn, sizeof cn),
               col ? 100.0 * tp / col : 0.0, row ? 100.0 * tp / row : 0.0, (long long)row);
    }
    printf("\nconfusion matrix (rows: true class, columns: predicted)\n%8s", "");
    for (int k = 0; k < K; k++) printf(" %6s", fsvc_model_class_text(&m, k, cn, sizeof cn));
    printf("\n");
    for (int r = 0; r < K; r++) {
        printf("%8s", fsvc_model_class_text(&m, r, cn, sizeof cn));
        for (int k = 0; k < K; k++) printf(" %6lld", (long long)conf[(size_t)r * K + k]);
        printf("\n");
    }
    if (pngpath) {
        rc = write_png(pngpath, conf, K, &err);
        if (rc) goto done;
        printf("confusion matrix image: %s\n", pngpath);
    }
    printf("Accuracy = %.2f%% (%lld/%lld)\n", N ? 100.0 * ok / N : 0.0, (long long)ok, (long long)N);
done:
    free(pred); free(truth); free(conf);
    fsvc_dataset_free(&d);
    fsvc_free_model(&m);
    return rc ? cli_report(&err) : FSVC_OK;
}
