/* cmd_eval.c - `fsvc eval MODEL DATA [--png FILE]`: accuracy, per-class
 * precision and recall, the confusion matrix as text and, with --png, as a
 * labelled heat map (gnuplot, tools/plot_confusion.c). */
#include "tools/args.h"
#include "tools/comm.h"
#include "tools/plot.h"
#include "layers/bnl.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The confusion matrix is made, printed and drawn up to this many classes
 * (10^6 classes would be 8 TB of counts). */
#define EVAL_MATRIX_MAX_K 1000

/* The confusion matrix as a labelled heat map (plot_confusion): class
 * names, counts, the colour scale; the title says what was evaluated. */
static int write_png(const char *path, const int64_t *conf, int K, const fsvc_model *m,
                     const char *mpath, const char *data, int64_t ok, int64_t N,
                     fsvc_error *err)
{
    char **names = calloc((size_t)K, sizeof *names), *title = NULL;
    int rc = names ? FSVC_OK : fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    for (int k = 0; !rc && k < K; k++) {
        char cn[FSVC_MODEL_MAX_NAME + 1];
        if (!(names[k] = strdup(fsvc_model_class_text(m, k, cn, sizeof cn))))
            rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    }
    if (!rc && asprintf(&title, "fsvc eval: %s on %s\n%lld samples, accuracy %.2f%%; "
                        "cells: samples (row: true class, column: predicted)%s", mpath, data,
                        (long long)N, N ? 100.0 * ok / N : 0.0,
                        K > 25 ? "; counts in the text output" : "") < 0) {
        title = NULL;
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    }
    if (!rc) rc = plot_confusion(path, conf, K, (const char *const *)names, title, err);
    for (int k = 0; names && k < K; k++) free(names[k]);
    free(names);
    free(title);
    return rc;
}

/* Characters shown for UTF-8 text (continuation bytes take no column). */
static int text_cols(const char *s)
{
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* s right-aligned in w columns (UTF-8 aware; printf pads bytes). */
static void put_right(const char *s, int w)
{
    for (int i = text_cols(s); i < w; i++) putchar(' ');
    fputs(s, stdout);
}

#define EVAL_NAME_MAX 40 /* longer class names are cut in the text report */

/* Class k's name for the report, cut to EVAL_NAME_MAX columns. */
static const char *report_name(const fsvc_model *m, int k, char *buf, size_t len)
{
    char cn[FSVC_MODEL_MAX_NAME + 1];
    fsvc_model_class_text(m, k, cn, sizeof cn);
    if (text_cols(cn) <= EVAL_NAME_MAX) return strcpy(buf, cn);
    int cols = 0;
    size_t i = 0;
    for (; cn[i] && i + 8 < len; i++) /* whole characters up to EVAL_NAME_MAX - 3 */
        if (((unsigned char)cn[i] & 0xC0) != 0x80 && ++cols > EVAL_NAME_MAX - 3) break;
    snprintf(buf, len, "%.*s...", (int)i, cn);
    return buf;
}

/* Per-class precision and recall, then the confusion matrix, in aligned
 * columns: headed by the class names when they are no wider than the
 * counts (or 6 columns), else by class numbers #1..#K, which the rows
 * list with their names. */
static void print_report(const fsvc_model *m, const int64_t *conf, int K, const int64_t *tps,
                         const int64_t *rows, const int64_t *cols)
{
    char nm[EVAL_NAME_MAX * 4 + 8];
    int nw = 5, nmax = 0, cw = 1; /* "class"; widest name; widest count */
    int64_t big = 0;
    for (int k = 0; k < K; k++) {
        int w = text_cols(report_name(m, k, nm, sizeof nm));
        nmax = w > nmax ? w : nmax;
        big = rows[k] > big ? rows[k] : big; /* no cell is above its row's total */
    }
    nw = nmax > nw ? nmax : nw;
    for (int64_t b = big; b >= 10; b /= 10) cw++;
    int by_name = nmax <= (cw > 6 ? cw : 6);
    printf("\n");
    put_right("class", nw);
    printf(" %10s %10s %8s\n", "precision", "recall", "support");
    for (int k = 0; k < K; k++) {
        int64_t tp = tps[k], col = cols[k], row = rows[k];
        put_right(report_name(m, k, nm, sizeof nm), nw);
        printf(" %9.2f%% %9.2f%% %8lld\n", col ? 100.0 * tp / col : 0.0,
               row ? 100.0 * tp / row : 0.0, (long long)row);
    }
    if (!conf) {
        printf("\nconfusion matrix: not shown for %d classes (at most %d)\n", K,
               EVAL_MATRIX_MAX_K);
        return;
    }
    char num[16];
    int kw = snprintf(num, sizeof num, "#%d", K); /* widest class number */
    int colw = by_name ? (cw > nmax ? cw : nmax) : (cw > kw ? cw : kw);
    int roww = by_name ? nw : kw + 1 + nmax;
    printf("\nconfusion matrix (rows: true class, columns: predicted%s)\n",
           by_name ? "" : "; classes by number");
    put_right("", roww);
    for (int k = 0; k < K; k++) {
        putchar(' ');
        if (by_name) put_right(report_name(m, k, nm, sizeof nm), colw);
        else { snprintf(num, sizeof num, "#%d", k + 1); put_right(num, colw); }
    }
    printf("\n");
    for (int r = 0; r < K; r++) {
        if (by_name) put_right(report_name(m, r, nm, sizeof nm), roww);
        else { /* "#r name", the name left-aligned */
            snprintf(num, sizeof num, "#%d", r + 1);
            put_right(num, kw);
            printf(" %s", report_name(m, r, nm, sizeof nm));
            for (int i = text_cols(nm); i < nmax; i++) putchar(' ');
        }
        for (int k = 0; k < K; k++) printf(" %*lld", colw, (long long)conf[(size_t)r * K + k]);
        printf("\n");
    }
}

enum { O_PNG = CLI_LONG, O_HELP };

int eval_parse(eval_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    run_opts r;
    run_opts_init(&r, RUN_ENGINE | RUN_BATCH);
    static const struct option own[] = {
        {"png", 1, 0, O_PNG}, {"help", 0, 0, O_HELP}, {0, 0, 0, 0}};
    struct option lo[8];
    run_opts_longopts(lo, 8, own, &r);
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":qh", lo, NULL)) != -1) {
        if (run_opts_take(&r, "eval", c, optarg, &rc)) {
            if (rc) return rc;
            continue;
        }
        switch (c) {
        case 'h': case O_HELP:
            printf("usage: fsvc eval [options] MODEL DATA\n\n"
                   "Accuracy, per-class precision and recall, confusion matrix.\n\n"
                   "options (default):\n"
                   "  --png FILE      also draw the confusion matrix (gnuplot): class names,\n"
                   "                  counts, colour scale of the row shares (%s)\n",
                   a->png ? a->png : "none");
            run_opts_help(stdout, &r);
            printf("  -q              no progress (shown on stderr when it is a terminal)\n");
            return FSVC_OK;
        case O_PNG: a->png = optarg; break;
        case 'q': a->quiet = 1; break;
        default: return cli_option_error("eval", c, argv);
        }
    }
    a->backend = r.backend;
    a->threads = r.threads;
    a->strict = r.strict;
    a->batch = r.batch;
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
    const char *in[2] = { a.model, a.data };
    if (cli_out_check("eval", pngpath, in, 2, "name another file for --png", &err))
        return cli_report(&err);
    if (pngpath && !plot_available()) { /* before any work */
        fsvc_fail(&err, FSVC_ERESOURCE, "eval: gnuplot not found on PATH; --png needs it "
                  "(apt-get install gnuplot-nox)");
        return cli_report(&err);
    }
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
    rc = cli_comm_same_model(rc, &m, a.model, &err); /* the load below is collective */
    if (!rc) {
        batched = batched && !m.Cs; /* a sparse model: the whole folder */
        rc = batched ? cli_png_list(&d, a.data, &m, 0, "eval", &err)
                     : cli_load_data_slice(&d, &first, &N, a.data, &m, 0, "eval", &err);
        if (batched && !rc) N = d.N;
        have_d = !rc;
    }
    rc = cli_comm_agree(rc, &err); /* every rank, or none, goes on */
    if (rc) {
        if (have_d) fsvc_dataset_free(&d);
        if (have_m) fsvc_free_model(&m);
        return cli_comm_end(rc, &err);
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
    rc = cli_comm_agree(rc, &err);
    if (rc) goto done;
    double t0 = cli_now();
    rc = batched ? cli_png_predict(pred, NULL, &m, &d, a.batch, backend, (int)threads, a.quiet,
                                   "eval", &err)
                 : cli_comm_predict_at(pred, NULL, &m, &d, first, N, backend, (int)threads, &err);
    if (!rc && cli_comm()->size > 1) { /* the labels of the whole set */
        fsvc_dataset g;
        rc = cli_comm_gather_meta(&g, &d, first, N, &err);
        fsvc_dataset_free(&d);
        if (!rc) d = g;
    }
    if (rc || cli_comm()->rank > 0) goto done; /* rank 0 reports */
    double t1 = cli_now();
    int64_t unknown = fsvc_model_truth(truth, &m, &d);
    int64_t ok = fsvc_confusion(conf, truth, pred, N, K);
    printf("predicted %lld samples in %.3f s\n", (long long)N, t1 - t0);
    if (unknown) {
        printf("%lld samples have a label the model does not know (counted as errors)\n",
               (long long)unknown);
        char which[600];
        cli_unknown_labels(which, sizeof which, &d, truth);
        fprintf(stderr, "fsvc eval: warning: %s: %lld of %lld samples have a label the model "
                "does not know (%s; the model has %d classes); they count as errors\n",
                d.source, (long long)unknown, (long long)N, which, K);
    }
    for (int64_t i = 0; i < N; i++) {
        if (truth[i] >= 0) row[truth[i]]++;
        if (pred[i] >= 0) col[pred[i]]++;
        if (truth[i] >= 0 && truth[i] == pred[i]) tp[truth[i]]++;
    }
    print_report(&m, conf, K, tp, row, col);
    if (pngpath) {
        rc = write_png(pngpath, conf, K, &m, a.model, a.data, ok, N, &err);
        if (rc) goto done;
        printf("confusion matrix image: %s\n", pngpath);
    }
    printf("Accuracy = %.2f%% (%lld/%lld)\n", N ? 100.0 * ok / N : 0.0, (long long)ok, (long long)N);
done:
    free(pred); free(truth); free(conf); free(tp);
    fsvc_dataset_free(&d);
    fsvc_free_model(&m);
    return cli_comm_end(rc, &err);
}
