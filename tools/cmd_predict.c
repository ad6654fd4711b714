/* cmd_predict.c - `fsvc predict MODEL DATA [OUT]`, `fsvc predict MODEL
 * IMAGE.png... [-o OUT]`: batch inference. Several PNG files are several
 * inputs: the last argument is OUT only when it is not named .png, and an
 * OUT that is an input or a PNG image is refused (exit 2), never written.
 * OUT (temp file + rename): for a PNG folder, CSV `path,class,score` per
 * image; otherwise one predicted label (or regression value) per line.
 * -b 1 (class probabilities, as `svm-predict -b 1`: calibrated when the
 * model was trained with -b 1, else the softmax of the scores, with a
 * note on stderr) or --decision-values
 * (readout scores): a header `labels L1 .. LK` then `label v1 .. vK` per
 * sample (PNG folder: CSV `path,class,L1,..,LK`), to stdout without OUT.
 * With labels, the last line is `Accuracy = X% (c/N)` (or MSE and R^2). */
#include "tools/args.h"
#include "tools/comm.h"
#include "fsvc/calibrate.h" /* fsvc_model_proba, shared with the Python package */
#include "layers/bnl.h"
#include "datasets/datasets.h" /* ds_tmp_*: temp file + rename */

#include <cblas.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* One CSV field: quoted (quotes doubled) when it holds , " or a line end. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int write_out(const char *path, const fsvc_model *m, const fsvc_dataset *d,
                     const int *pred, const double *score, int table, fsvc_error *err)
{
    char tmp[4200];
    FILE *f = stdout;
    if (path) {
        int rc = ds_tmp_open(&f, tmp, sizeof tmp, path, err);
        if (rc) return rc;
    }
    int K = m->Kout;
    char cls[FSVC_MODEL_MAX_NAME + 1]; /* class name (PNG folders) or label value */
    if (table) { /* -b 1 or --decision-values: one value per class */
        fprintf(f, d->paths ? "path,class" : "labels");
        for (int k = 0; k < m->K; k++) {
            fputc(d->paths ? ',' : ' ', f);
            fsvc_model_class_text(m, k, cls, sizeof cls);
            if (d->paths) csv_field(f, cls); else fputs(cls, f);
        }
        fprintf(f, "\n");
        for (int64_t i = 0; i < d->N; i++) {
            if (d->paths) { csv_field(f, d->paths[i]); fputc(',', f); }
            fsvc_model_class_text(m, pred[i], cls, sizeof cls);
            if (d->paths) csv_field(f, cls); else fputs(cls, f);
            for (int k = 0; k < K; k++) fprintf(f, d->paths ? ",%.17g" : " %.17g", score[(size_t)i * K + k]);
            fprintf(f, "\n");
        }
    }
    if (d->paths && !table) fprintf(f, "path,class,score\n");
    for (int64_t i = 0; !table && i < d->N; i++) {
        double s = m->regression ? score[i] : score[(size_t)i * K + pred[i]];
        if (m->regression)
            snprintf(cls, sizeof cls, "%.17g", s);
        else
            fsvc_model_class_text(m, pred[i], cls, sizeof cls);
        if (d->paths) {
            csv_field(f, d->paths[i]);
            fputc(',', f);
            csv_field(f, cls);
            fprintf(f, ",%.6g\n", s);
        } else {
            fprintf(f, "%s\n", cls);
        }
    }
    if (!path)
        return fflush(f) || ferror(f) ? fsvc_fail(err, FSVC_ERESOURCE, "write error on standard "
                                                  "output: %s", strerror(errno)) : FSVC_OK;
    return ds_tmp_commit(f, tmp, path, err);
}

enum { O_DECISION = CLI_LONG, O_HELP, O_OUT, O_RESIZE };

/* An image file by its name: .png, .jpg, .jpeg (the parse step reads no file). */
static int png_name(const char *s)
{
    const char *dot = strrchr(s, '.');
    return dot && (!strcasecmp(dot, ".png") || !strcasecmp(dot, ".jpg") ||
                   !strcasecmp(dot, ".jpeg"));
}

int predict_parse(predict_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    run_opts r;
    run_opts_init(&r, RUN_ENGINE | RUN_BATCH);
    static const struct option own[] = {
        {"decision-values", 0, 0, O_DECISION}, {"help", 0, 0, O_HELP},
        {"output", 1, 0, O_OUT}, {"resize", 0, 0, O_RESIZE}, {0, 0, 0, 0}};
    struct option lo[9];
    run_opts_longopts(lo, 9, own, &r);
    optind = 0; /* 0, not 1: resets getopt's state inside a cluster too */
    opterr = 0;
    int c, rc;
    long bv = 0;
    while ((c = getopt_long(argc, argv, ":qhb:o:", lo, NULL)) != -1) {
        if (run_opts_take(&r, "predict", c, optarg, &rc)) {
            if (rc) return rc;
            continue;
        }
        switch (c) {
        case 'h': case O_HELP:
            printf("usage: fsvc predict [options] MODEL DATA [OUT]\n"
                   "       fsvc predict [options] MODEL IMAGE.png|.jpg... [OUT]\n\n"
                   "DATA: IDX prefix or file, LIBSVM text, a folder of PNG / JPEG images,\n"
                   "or image files (each an input: the last argument is OUT only when not\n"
                   "named .png, .jpg or .jpeg). OUT: one label per line, or CSV\n"
                   "path,class,score for images (printed when OUT is not given for\n"
                   "images). OUT is never an input nor an image (exit 2). Images are read\n"
                   "as the model was trained: gray (BT.601 luma) or RGB (--channels 3).\n"
                   "\noptions (default):\n"
                   "  -o, --output OUT  write OUT; every argument after MODEL is DATA\n"
                   "  --resize        images of another size are resized (bilinear) to the\n"
                   "                  model's (a model trained with --resize does it always)\n");
            run_opts_help(stdout, &r);
            printf("  -b 0|1          1: class probabilities, svm-predict -b 1 style: 'labels\n"
                   "                  ...' then 'label p..' (0); calibrated for a model\n"
                   "                  trained with -b 1, else the softmax of the scores (a note)\n"
                   "  --decision-values  the readout scores, in the same layout (off)\n"
                   "  -q              only the final line, and the warnings about results\n"
                   "                  (features the model never saw, ignored; labels it\n"
                   "                  does not know, counted as errors); no progress\n"
                   "                  (shown on stderr when it is a terminal)\n");
            return FSVC_OK;
        case 'q': a->quiet = 1; break;
        case 'b': if (cli_parse_long("predict", "-b", optarg, 0, 1, &bv)) return FSVC_EUSAGE;
                  a->proba = (int)bv; break;
        case O_DECISION: a->decision = 1; break;
        case 'o': case O_OUT: a->out = optarg; break;
        case O_RESIZE: a->resize = 1; break;
        default: return cli_option_error("predict", c, argv);
        }
    }
    a->backend = r.backend;
    a->threads = r.threads;
    a->strict = r.strict;
    a->batch = r.batch;
    int nargs = argc - optind;
    if (nargs < 2)
        return cli_usage_error("predict", "expected MODEL DATA [OUT]");
    a->model = argv[optind];
    a->datas = argv + optind + 1;
    a->ndata = nargs - 1;
    /* without -o the last argument is OUT, unless it is an image: an input */
    if (!a->out && nargs >= 3 && !png_name(argv[argc - 1])) {
        a->out = argv[argc - 1];
        a->ndata--;
    }
    a->data = a->datas[0];
    for (int i = 0; a->ndata > 1 && i < a->ndata; i++)
        if (!png_name(a->datas[i]))
            return cli_usage_error("predict", "'%s': several DATA are images (*.png, *.jpg) only; "
                                   "other data is one DATA: MODEL DATA [OUT]", a->datas[i]);
    if (a->proba && a->decision)
        return cli_usage_error("predict", "-b 1 and --decision-values: choose one");
    return CLI_RUN;
}

/* DATA's samples whose label is not one of the model's classes count as
 * errors: one warning line, naming those labels (or class folders). */
static void warn_unknown_labels(const fsvc_model *m, const fsvc_dataset *d, const int *truth,
                                int64_t unknown)
{
    char which[600];
    cli_unknown_labels(which, sizeof which, d, truth);
    fprintf(stderr, "fsvc predict: warning: %s: %lld of %lld samples have a label the model "
            "does not know (%s; the model has %d classes); they count as errors\n",
            d->source, (long long)unknown, (long long)d->N, which, m->K);
}

/* OUT is never an input (the model, a DATA) nor an image: a CSV or label
 * list written there would destroy it. */
static int out_guard(const predict_args *a, fsvc_error *err)
{
    if (!a->out)
        return FSVC_OK;
    const char *in[1] = { a->model };
    const char *hint = "name another OUT (-o OUT)";
    int rc = cli_out_check("predict", a->out, in, 1, hint, err);
    for (int i = 0; !rc && i < a->ndata; i++)
        rc = cli_out_check("predict", a->out, (const char *const *)a->datas + i, 1, hint, err);
    if (!rc && access(a->out, F_OK) == 0 && fsvc_source_is_png(a->out))
        rc = fsvc_fail(err, FSVC_EINPUT, "predict: %s is an image, not an output: it would "
                       "be written over; %s, or give it as DATA", a->out, hint);
    return rc;
}

int cmd_predict(int argc, char **argv)
{
    predict_args a;
    int prc = predict_parse(&a, argc, argv);
    if (prc != CLI_RUN)
        return prc;
    const char *backend = a.backend, *mpath = a.model, *data = a.data, *out = a.out;
    long threads = a.threads;
    int quiet = a.quiet, proba = a.proba, decision = a.decision;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (cli_backend_check(backend, a.strict, &err)) return cli_report(&err);
    if (out_guard(&a, &err)) return cli_report(&err);
    if (a.ndata > 1 && cli_comm()->size > 1)
        return cli_usage_error("predict", "several PNG files run in one process; give a "
                               "folder of them to mpirun");
    fsvc_model m;
    int table = proba || decision;
    int batched = cli_png_batched(data, a.batch); /* a PNG folder in batches */
    fsvc_dataset d;
    int64_t first = 0, N = 0; /* this rank's slice [first, first + d.N) of N */
    int rc = cli_blas_reserve((int)threads, &err), have_m = 0, have_d = 0;
    if (!rc) {
        rc = cli_load_model(&m, mpath, data, &err);
        have_m = !rc;
    }
    if (!rc && table && m.regression)
        rc = fsvc_fail(&err, FSVC_EUSAGE, "predict: %s: a regression model has no class %s",
                       mpath, proba ? "probabilities (-b 1)" : "scores (--decision-values)");
    rc = cli_comm_same_model(rc, &m, mpath, &err); /* the load below is collective */
    if (!rc) {
        cli_set_quiet(quiet); /* -q: no note on features taken as 0 */
        cli_set_resize(a.resize);
        batched = batched && !m.Cs; /* a sparse model: the whole folder */
        fsvc_load_opts io = { 0 };
        cli_image_opts(&io, &m);
        rc = a.ndata > 1 ? fsvc_dataset_load_images(&d, (const char *const *)a.datas,
                                                    (size_t)a.ndata, &io, &err)
           : batched ? cli_png_list(&d, data, &m, 1, "predict", &err)
                     : cli_load_data_slice(&d, &first, &N, data, &m, 1, "predict", &err);
        if (a.ndata > 1 && !rc && (rc = cli_image_check(&d, &m, "predict", &err)))
            fsvc_dataset_free(&d);
        if ((batched || a.ndata > 1) && !rc) N = d.N;
        have_d = !rc;
    }
    rc = cli_comm_agree(rc, &err); /* every rank, or none, goes on */
    if (rc) {
        if (have_d) fsvc_dataset_free(&d);
        if (have_m) fsvc_free_model(&m);
        return cli_comm_end(rc, &err);
    }
    int *pred = malloc((size_t)(N ? N : 1) * sizeof *pred);
    double *score = malloc((size_t)(N ? N : 1) * m.Kout * sizeof *score);
    int *truth = malloc((size_t)(N ? N : 1) * sizeof *truth);
    if (!pred || !score || !truth)
        rc = fsvc_fail(&err, FSVC_ERESOURCE, "predict: out of memory");
    rc = cli_comm_agree(rc, &err);
    if (rc) goto done;
    double t0 = cli_now();
    rc = batched ? cli_png_predict(pred, score, &m, &d, a.batch, backend, (int)threads, quiet,
                                   "predict", &err)
                 : cli_comm_predict_at(pred, score, &m, &d, first, N, backend, (int)threads, &err);
    double t1 = cli_now();
    if (!rc && cli_comm()->size > 1) { /* the labels and paths of the whole set */
        fsvc_dataset g;
        rc = cli_comm_gather_meta(&g, &d, first, N, &err);
        fsvc_dataset_free(&d);
        if (!rc) d = g;
    }
    if (rc || cli_comm()->rank > 0) goto done; /* rank 0 writes */
    if (proba && !fsvc_model_calibrated(&m))
        fprintf(stderr, "fsvc predict: note: %s has no probability calibration (train it with "
                "-b 1): the probabilities are the softmax of the scores\n", mpath);
    if (proba) fsvc_model_proba(score, score, &m, d.N); /* in place, row by row */
    if (out || d.paths || table)
        rc = write_out(out, &m, &d, pred, score, table, &err);
    if (rc) goto done;
    if (!quiet)
        fprintf(out || !(d.paths || table) ? stdout : stderr,
                "predicted %lld samples in %.3f s (%.1f us/sample)\n", (long long)d.N,
                t1 - t0, d.N ? 1e6 * (t1 - t0) / d.N : 0.0);
    if (d.has_labels && d.y && d.N > 0) {
        FILE *f = out || !(d.paths || table) ? stdout : stderr;
        if (m.regression) {
            double mse, r2;
            fsvc_regression_stats(&mse, &r2, d.y, score, d.N);
            fprintf(f, "Mean squared error = %.6g (regression)\n", mse);
            fprintf(f, "Coefficient of determination R^2 = %.6g (regression)\n", r2);
            fprintf(f, "Squared correlation coefficient = %.6g (regression)\n",
                    fsvc_squared_correlation(d.y, score, d.N));
        } else {
            int64_t unknown = fsvc_model_truth(truth, &m, &d);
            if (unknown)
                warn_unknown_labels(&m, &d, truth, unknown);
            int64_t ok = fsvc_confusion(NULL, truth, pred, d.N, m.K);
            fprintf(f, "Accuracy = %.2f%% (%lld/%lld)\n", 100.0 * ok / d.N, (long long)ok,
                    (long long)d.N);
        }
    }
done:
    free(pred); free(score); free(truth);
    fsvc_dataset_free(&d);
    fsvc_free_model(&m);
    return cli_comm_end(rc, &err);
}
