/* cli.c - option parsing helpers and error reporting for the sub-commands. */
#include "tools/cli.h"
#include "tools/comm.h"
#include "layers/bnl.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static FILE *msgs;

void cli_set_messages(FILE *f)
{
    msgs = f;
}

static FILE *msg_stream(void)
{
    return msgs ? msgs : stderr;
}

int cli_report(const fsvc_error *err)
{
    int code = err && err->code >= FSVC_EUSAGE && err->code <= FSVC_ERESOURCE ? err->code
                                                                               : FSVC_EINPUT;
    fprintf(msg_stream(), "fsvc: %s\n", err && err->msg[0] ? err->msg : "unknown error");
    return code;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    FILE *f = msg_stream();
    va_list ap;
    fprintf(f, "fsvc %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fprintf(f, "\nTry 'fsvc %s --help'.\n", cmd);
    return FSVC_EUSAGE;
}

int cli_option_error(const char *cmd, int c, char **argv)
{
    int missing = c == ':';
    if (optopt > 0 && optopt < CLI_LONG && isgraph(optopt))
        return missing ? cli_usage_error(cmd, "option -%c needs a value", optopt)
                       : cli_usage_error(cmd, "unknown option -%c", optopt);
    /* a long option: getopt_long has stepped past it */
    const char *a = optind > 0 ? argv[optind - 1] : "?";
    const char *eq = strchr(a, '=');
    if (missing)
        return cli_usage_error(cmd, "option %s needs a value", a);
    if (optopt >= CLI_LONG && eq)
        return cli_usage_error(cmd, "option %.*s takes no value", (int)(eq - a), a);
    return cli_usage_error(cmd, "unknown or ambiguous option '%s'", a);
}

int cli_backend_check(const char *backend, int strict, fsvc_error *err)
{
    if (!strict || !backend || strcmp(backend, "cuda") != 0)
        return FSVC_OK;
    bnl_ctx ctx;
    fsvc_error e;
    fsvc_error_clear(&e);
    int rc = bnl_ctx_open(&ctx, backend, 1, 1, &e);
    if (rc != FSVC_OK)
        return fsvc_fail(err, rc, "--backend cuda --strict: no usable CUDA device (%s)", e.msg);
    bnl_ctx_close(&ctx);
    return FSVC_OK;
}

/* 1 when PREFIX-images-idx3-ubyte[.gz] exists: an IDX pair named by prefix. */
static int is_idx_prefix(const char *prefix)
{
    static const char *const tails[] = {"-images-idx3-ubyte", "-images-idx3-ubyte.gz"};
    struct stat st;
    size_t l = strlen(prefix);
    char *p = malloc(l + 32);
    int found = 0;
    for (int i = 0; p && i < 2 && !found; i++) {
        sprintf(p, "%s%s", prefix, tails[i]);
        found = stat(p, &st) == 0;
    }
    free(p);
    return found;
}

static int cli_quiet;
void cli_set_quiet(int quiet) { cli_quiet = quiet; }

int cli_load_data(fsvc_dataset *d, const char *data, const fsvc_model *m,
                  int allow_unlabelled, const char *cmd, fsvc_error *err)
{
    int quiet = cli_quiet;
    fsvc_load_opts lopt = { 0 };
    lopt.allow_unlabelled = allow_unlabelled;
    if (m->Cs) /* a sparse model reads LIBSVM data sparse */
        lopt.storage = FSVC_STORE_SPARSE;
    cli_image_opts(&lopt, m);
    int rc = fsvc_dataset_load(d, data, &lopt, err);
    if (rc)
        return rc;
    if ((rc = cli_image_check(d, m, cmd, err)))
        goto fail;
    if (cli_comm()->rank == 0)
        cli_warn_skipped(d, cmd, quiet);
    int64_t dropped = 0;
    int first = 0, n0 = d->n, talk = cli_comm()->rank == 0; /* once, not once per rank */
    if (d->rows == 0 && d->n != m->n &&
        (rc = fsvc_dataset_fit_features(d, m->n, &dropped, &first, err)))
        goto fail;
    if (dropped && talk) /* results may be wrong: even with -q */
        fprintf(stderr, "fsvc %s: warning: %s: %lld values at features %d and above "
                "ignored: the model has %d features and never saw them\n", cmd, d->source,
                (long long)dropped, first, m->n);
    /* LIBSVM's rule: not with -q; nor for sparse data, where absent
     * features are the norm, not a sign of the wrong file */
    if (n0 < m->n && d->rows == 0 && !d->csr && !quiet && talk) {
        char which[48];
        if (m->n - n0 > 1) snprintf(which, sizeof which, "features %d to %d", n0 + 1, m->n);
        else snprintf(which, sizeof which, "feature %d", m->n);
        fprintf(stderr, "fsvc %s: warning: %s: %d features, the model has %d: %s taken as 0 "
                "(absent values are 0, as in LIBSVM)\n", cmd, d->source, n0, m->n, which);
    }
    if (m->rows > 0 && d->rows == 0 && (rc = fsvc_dataset_set_shape(d, m->rows, m->cols, err)))
        goto fail;
    return FSVC_OK;
fail:
    fsvc_dataset_free(d);
    return rc;
}

int cli_load_model(fsvc_model *m, const char *mpath, const char *data, fsvc_error *err)
{
    int rc = fsvc_model_load(m, mpath, err);
    if (rc == FSVC_OK && m->n > CLI_MAX_FEATURES && !m->Cs) {
        int n = m->n;
        fsvc_free_model(m);
        return fsvc_fail(err, FSVC_EINPUT, "%s: the model has %d features; fsvc handles at "
                         "most %d", mpath, n, CLI_MAX_FEATURES);
    }
    if (rc != FSVC_EINPUT)
        return rc;
    struct stat st;
    int exists = stat(mpath, &st) == 0, folder = exists && S_ISDIR(st.st_mode);
    if (!exists && is_idx_prefix(mpath))
        return fsvc_fail(err, FSVC_EINPUT, "%s: an IDX data set, not a model; the first "
                         "argument must be a model (MODEL DATA)", mpath);
    int data_is_model = 0;
    struct stat ds; /* only a regular file is tried: a FIFO would block */
    if (data && !folder && stat(data, &ds) == 0 && S_ISREG(ds.st_mode)) {
        fsvc_model other;
        fsvc_error e2;
        data_is_model = fsvc_model_load(&other, data, &e2) == FSVC_OK;
        if (data_is_model)
            fsvc_free_model(&other);
    }
    if (folder)
        return fsvc_fail(err, FSVC_EINPUT, "%s: a folder, not a model; the first argument "
                         "must be a model (MODEL DATA)", mpath);
    if (data_is_model)
        return fsvc_fail(err, FSVC_EINPUT, "%s: not a model, but %s is: the first argument "
                         "must be a model; did you swap MODEL and DATA?", mpath, data);
    return rc;
}

int cli_finish_stdout(int rc)
{
    int pending = __fpending(stdout) != 0;
    errno = 0;
    int earlier = ferror(stdout);
    int flushed = fflush(stdout) == 0;
    int e = errno;
    int closed = fclose(stdout) == 0;
    if (!e && !closed)
        e = errno;
    if (!earlier && flushed && closed)
        return rc;
    if (!earlier && !pending && e == EBADF)
        return rc; /* stdout was closed (fsvc ... >&-) and nothing was lost */
    if (rc != FSVC_OK)
        return rc; /* the command has reported its own failure */
    fprintf(stderr, "fsvc: write error on standard output%s%s\n", e ? ": " : "",
            e ? strerror(e) : "");
    return FSVC_ERESOURCE;
}

int cli_parse_long(const char *cmd, const char *opt, const char *s,
                   long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return cli_usage_error(cmd, "%s: '%s' is not an integer in [%ld, %ld]",
                               opt, s, lo, hi);
    *out = v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s,
                     double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return cli_usage_error(cmd, "%s: '%s' is not a number in [%g, %g]",
                               opt, s, lo, hi);
    *out = v;
    return 0;
}

int cli_progress_wanted(int quiet)
{
    return !quiet && isatty(2);
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int cli_out_check(const char *cmd, const char *out, const char *const *inputs, int n,
                  const char *hint, fsvc_error *err)
{
    for (int i = 0; out && i < n; i++) {
        if (!inputs[i] || !fsvc_source_reads(inputs[i], out))
            continue;
        struct stat a, b; /* the input itself, or a file it names (IDX pair, folder) */
        if (stat(inputs[i], &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino)
            return fsvc_fail(err, FSVC_EINPUT, "%s: %s is an input, not an output: "
                             "nothing is written over an input; %s", cmd, out, hint);
        return fsvc_fail(err, FSVC_EINPUT, "%s: %s is an input (read for %s), not an output: "
                         "nothing is written over an input; %s", cmd, out, inputs[i], hint);
    }
    return FSVC_OK;
}

#define LIBSVM_SEE "see 'Coming from LIBSVM' in README.md"

int cli_libsvm_hint(const char *cmd, int c, int argc, char **argv)
{
    if (c == 's') { /* optarg: svm-train's -s N is the SVM type */
        const char *v = optarg;
        if (!v || !*v || strspn(v, "0123456789") != strlen(v)) return 0;
        return cli_usage_error(cmd, "-s %s: that is svm-train's SVM type; fsvc's -s is the "
                               "centroid selection (global, per-class, random, auto, kmeans++); "
                               "classification is the default and --regression replaces "
                               "epsilon-SVR: %s", v, LIBSVM_SEE);
    }
    if (c != '?' || optopt <= 0 || optopt >= CLI_LONG || !strchr("cgtbW", optopt)) return 0;
    switch (optopt) {
    case 'c':
        return cli_usage_error(cmd, "unknown option -c: svm-train's cost C has no direct "
                               "equivalent; the ridge readout is regularised by -l LAMBDA "
                               "(a larger C is a smaller lambda; search it with fsvc study "
                               "--vary lambda=1e-3,1e-5,1e-7 -v 5): %s", LIBSVM_SEE);
    case 'g': {
        /* "-g G" as two words: name the radius of that gamma */
        char *end = NULL;
        double g = optind < argc && optind > 0 && !strcmp(argv[optind - 1], "-g")
                 ? strtod(argv[optind], &end) : 0;
        char r[96] = "";
        if (end && !*end && g > 0 && isfinite(g))
            snprintf(r, sizeof r, " (-g %s is -r %.4g)", argv[optind], 1 / sqrt(2 * g));
        return cli_usage_error(cmd, "unknown option -g: svm-train's RBF gamma is the radius "
                               "-r R here, exp(-|x-c|^2 / (2 R^2)), so R = 1/sqrt(2 gamma)%s: "
                               "%s", r, LIBSVM_SEE);
    }
    case 't':
        return cli_usage_error(cmd, "unknown option -t: svm-train's kernel type; fsvc's RBF "
                               "kernel is the default (-d l2 -k gauss), the paper's is -d l1 "
                               "-k tri; no linear, polynomial or sigmoid kernel: %s",
                               LIBSVM_SEE);
    case 'W':
        return cli_usage_error(cmd, "unknown option -W: the sample weights of LIBSVM's weights "
                               "variant are --sample-weights FILE here (one weight a line): "
                               "%s", LIBSVM_SEE);
    default: /* 'b' */
        return cli_usage_error(cmd, "unknown option -b: no training option is needed for "
                               "probabilities; every model gives them: fsvc predict -b 1: %s",
                               LIBSVM_SEE);
    }
}

void cli_unknown_labels(char *out, size_t len, const fsvc_dataset *d, const int *truth)
{
    enum { SHOWN = 3 };
    int seen[SHOWN];
    int64_t count[SHOWN] = {0};
    int ns = 0, more = 0;
    /* the data's classes (d->cls) that the model lacks, in order of first use */
    for (int64_t i = 0; i < d->N; i++) {
        if (truth[i] >= 0) continue;
        int c = d->cls ? d->cls[i] : -1, j = 0;
        while (j < ns && seen[j] != c) j++;
        if (j < ns) count[j]++;
        else if (ns < SHOWN) { seen[ns] = c; count[ns++] = 1; }
        else more = 1;
    }
    size_t u = 0;
    out[0] = 0;
    for (int j = 0; j < ns && u < len; j++) {
        int c = seen[j];
        char name[FSVC_MODEL_MAX_NAME + 8];
        if (c >= 0 && c < d->K && d->class_names)
            snprintf(name, sizeof name, "folder '%s'", d->class_names[c]);
        else if (c >= 0 && c < d->K && d->class_values)
            snprintf(name, sizeof name, "label %g", d->class_values[c]);
        else
            snprintf(name, sizeof name, "?");
        u += (size_t)snprintf(out + u, len - u, "%s%s (%lld)", j ? ", " : "", name,
                              (long long)count[j]);
    }
    if (more && u < len) snprintf(out + u, len - u, ", and more");
}
