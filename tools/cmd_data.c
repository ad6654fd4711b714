/* cmd_data.c - `fsvc data [options] SOURCE`: load a dataset, summarise it,
 * optionally write it out as LIBSVM text. */
#include "tools/args.h"

#include <string.h>

static void usage(FILE *f, const fsvc_load_opts *o)
{
    fprintf(f,
        "usage: fsvc data [options] SOURCE\n"
        "\n"
        "Loads SOURCE and prints its size, dtype, image geometry, class counts\n"
        "and the min/max/mean of its features. SOURCE is one of:\n"
        "  DIR/train           IDX pair DIR/train-{images-idx3,labels-idx1}-ubyte[.gz]\n"
        "  FILE-images-idx3-ubyte[.gz]   an IDX images file (labels found beside it)\n"
        "  FILE                LIBSVM text (label index:value ...)\n"
        "  DIR                 PNG / JPEG images, one sub-folder per class (or any\n"
        "                      folder with -u); colour becomes gray by BT.601 luma\n"
        "                      (Y = 0.299 R + 0.587 G + 0.114 B) unless --channels 3\n"
        "  FILE.png, FILE.jpg  one image (unlabelled)\n"
        "\n"
        "options:\n"
        "  -o, --libsvm OUT    also write the dataset to OUT as LIBSVM text\n"
        "  -n N                LIBSVM: number of features (default %d = largest index)\n"
        "  -r, --resize        images: resize them to the first one's size (default %s)\n"
        "  --resize=WxH        images: resize every one to W x H (width x height)\n"
        "  --channels 1|3      images: 1 gray, 3 RGB, 3 values a pixel (default 1)\n"
        "  -u, --unlabelled    images: accept a folder without class sub-folders (default %s)\n"
        "  -h, --help          this help\n"
        "\n"
        "Exit codes: 0 ok, 1 bad usage, 2 bad input, 3 resource failure.\n",
        o->n_features, o->resize ? "on" : "off", o->allow_unlabelled ? "on" : "off");
}

static void print_stats(const fsvc_dataset *d)
{
    size_t count = (size_t)d->N * (size_t)d->n;
    double lo = 0, hi = 0, sum = 0;
    for (size_t i = 0; i < count; i++) {
        double v = d->dtype == FSVC_U8 ? ((const unsigned char *)d->x)[i]
                 : d->dtype == FSVC_F32 ? ((const float *)d->x)[i]
                                        : ((const double *)d->x)[i];
        if (i == 0 || v < lo) lo = v;
        if (i == 0 || v > hi) hi = v;
        sum += v;
    }
    printf("features: min %.6g max %.6g mean %.6g\n", lo, hi, count ? sum / count : 0.0);
}

static void print_classes(const fsvc_dataset *d)
{
    if (!d->has_labels || !d->cls) {
        printf("labels: none\n");
        return;
    }
    int64_t counts[64] = {0};
    int show = d->K < 64 ? d->K : 64;
    for (int64_t i = 0; i < d->N; i++)
        if (d->cls[i] < show)
            counts[d->cls[i]]++;
    printf("classes: %d\n", d->K);
    for (int k = 0; k < show; k++) {
        if (d->class_names)
            printf("  class %d %s: %lld\n", k, d->class_names[k], (long long)counts[k]);
        else
            printf("  class %d (label %.17g): %lld\n", k, d->class_values[k],
                   (long long)counts[k]);
    }
    if (show < d->K)
        printf("  ... %d more classes\n", d->K - show);
}

int data_parse(data_args *da, int argc, char **argv)
{
    memset(da, 0, sizeof *da);
    fsvc_load_opts opts = {0, 0, 0, FSVC_STORE_DENSE, 0, 0, 0, 0, 0};
    const char *out = NULL, *source = NULL;
    int files_only = 0; /* after "--" */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (files_only || a[0] != '-' || !a[1]) {
            if (source)
                return cli_usage_error("data", "more than one SOURCE ('%s', '%s')", source, a);
            source = a;
        } else if (!strcmp(a, "--")) {
            files_only = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout, &opts);
            return FSVC_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--libsvm")) {
            if (++i >= argc)
                return cli_usage_error("data", "%s needs a file name", a);
            out = argv[i];
        } else if (!strcmp(a, "-n")) {
            long v;
            if (++i >= argc)
                return cli_usage_error("data", "-n needs a number");
            if (cli_parse_long("data", "-n", argv[i], 0, 0x7fffffff, &v))
                return FSVC_EUSAGE;
            opts.n_features = (int)v;
        } else if (!strcmp(a, "-r") || !strcmp(a, "--resize")) {
            opts.resize = 1;
        } else if (!strncmp(a, "--resize=", 9)) {
            if (cli_parse_size("data", "--resize", a + 9, &opts.rows, &opts.cols))
                return FSVC_EUSAGE;
        } else if (!strcmp(a, "--channels")) {
            long v = 0;
            if (++i >= argc)
                return cli_usage_error("data", "--channels needs 1 or 3");
            if (cli_parse_long("data", "--channels", argv[i], 1, 3, &v) || v == 2)
                return v == 2 ? cli_usage_error("data", "--channels: 1 (gray) or 3 (RGB)")
                              : FSVC_EUSAGE;
            opts.channels = (int)v;
        } else if (!strcmp(a, "-u") || !strcmp(a, "--unlabelled")) {
            opts.allow_unlabelled = 1;
        } else {
            return cli_usage_error("data", "unknown option '%s'", a);
        }
    }
    if (!source)
        return cli_usage_error("data", "no SOURCE given");
    da->opts = opts;
    da->out = out;
    da->source = source;
    return CLI_RUN;
}

int cmd_data(int argc, char **argv)
{
    data_args da;
    int prc = data_parse(&da, argc, argv);
    if (prc != CLI_RUN)
        return prc;
    fsvc_load_opts opts = da.opts;
    const char *out = da.out, *source = da.source;
    fsvc_dataset d;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (cli_out_check("data", out, &source, 1, "name another file for -o", &err))
        return cli_report(&err);
    double t0 = cli_now();
    if (fsvc_dataset_load(&d, source, &opts, &err) != FSVC_OK)
        return cli_report(&err);
    double t1 = cli_now();
    if (out && fsvc_dataset_write_libsvm(out, &d, &err) != FSVC_OK) {
        fsvc_dataset_free(&d);
        return cli_report(&err);
    }
    printf("source: %s\n", d.source);
    printf("size: %lld x %d (N x n)\n", (long long)d.N, d.n);
    printf("dtype: %s\n", fsvc_dtype_name(d.dtype));
    if (d.rows && d.cols)
        printf("image: %d x %d (rows x cols)%s\n", d.rows, d.cols,
               d.channels == 3 ? ", RGB (3 values a pixel)" : "");
    cli_warn_skipped(&d, "data", 0);
    print_classes(&d);
    print_stats(&d);
    printf("load time: %.3f s\n", t1 - t0);
    if (out)
        printf("wrote: %s (LIBSVM, %.3f s)\n", out, cli_now() - t1);
    fsvc_dataset_free(&d);
    return FSVC_OK;
}
