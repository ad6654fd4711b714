/* fuzz_cli.c - libFuzzer target for the option parsing of the fsvc
 * sub-commands (the *_parse steps of tools/args.h): no data is loaded, no
 * file is opened. The first byte picks the command; the rest is split at
 * NUL and newline bytes into argv (at most 64 arguments).
 *
 * Each input is parsed twice, from two copies of argv; between the parses
 * every string of the first copy is overwritten with 'q's (a valid short
 * option of train and predict), so a parser that keeps reading the old
 * strings (glibc getopt's hidden position inside a cluster such as -Zq
 * survives `optind = 1`; only `optind = 0` resets it) gives a different
 * answer, whatever the allocator does with freed memory. Both parses must
 * give the same answer, the
 * answer must be CLI_RUN, 0 (--help) or 1 (usage error), and a parse that
 * says "run" must have filled what the command needs, inside the ranges
 * that its --help promises. Messages go to /dev/null; sanitizer reports
 * still reach stderr. Build and run: make fuzz; replayed by make test. */
#include "tools/args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

static const char *const names[] = {"train", "predict", "eval", "bench", "data", "tune", "info"};
#define NCMD ((int)(sizeof names / sizeof *names))

/* argv from the input: argv[0] the command, then the tokens. */
static char **split(int *argc, int cmd, const uint8_t *data, size_t size)
{
    char **argv = calloc(MAX_ARGS + 2, sizeof *argv);
    if (!argv)
        return NULL;
    int n = 0;
    argv[n++] = strdup(names[cmd]);
    size_t start = 0;
    for (size_t i = 0; i <= size && n < MAX_ARGS + 1; i++) {
        if (i < size && data[i] != 0 && data[i] != '\n')
            continue;
        char *a = malloc(i - start + 1);
        if (!a)
            break;
        memcpy(a, data + start, i - start);
        a[i - start] = 0;
        argv[n++] = a;
        start = i + 1;
    }
    *argc = n;
    return argv;
}

static void overwrite_argv(char **argv, int argc)
{
    for (int i = 0; i < argc; i++)
        memset(argv[i], 'q', strlen(argv[i]));
}

static void free_argv(char **argv, int argc)
{
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

static const char *s(const char *p)
{
    return p ? p : "(none)";
}

/* Parses with command cmd; writes a summary of the result into out. */
static int parse_one(int cmd, int argc, char **argv, char *out, size_t len)
{
    int rc = -2;
    out[0] = 0;
    switch (cmd) {
    case 0: {
        train_args a;
        rc = train_parse(&a, argc, argv);
        if (rc != CLI_RUN)
            break;
        const fsvc_param *p = &a.p;
        if (!a.data || p->threads < 0 || p->threads > 4096 || p->epochs < 0 ||
            p->max_neurons < 0 || !(p->prag > 0) || p->radius < 0 || p->radius_rms < 0 ||
            !p->backend || (p->radius > 0 && p->radius_rms > 0))
            abort();
        snprintf(out, len, "%s|%s|%d %d %.17g %.17g %.17g %d %d %.17g %.17g %d %d %d %d %d %d "
                 "%llu %lld %s %d q%d s%d", a.data, s(a.model), p->dist, p->act, p->radius,
                 p->radius_rms, p->prag, (int)p->select, (int)p->readout, p->lambda, p->eta,
                 p->epochs, (int)p->scale, p->dtype, (int)p->preprocess, p->regression,
                 p->shuffle, (unsigned long long)p->seed, (long long)p->max_neurons,
                 p->backend, p->threads, a.quiet, a.strict);
        break;
    }
    case 1: {
        predict_args a;
        rc = predict_parse(&a, argc, argv);
        if (rc != CLI_RUN)
            break;
        if (!a.model || !a.data || !a.backend || a.threads < 0 || a.threads > 4096 ||
            a.batch < 0 || a.batch > (1L << 30))
            abort();
        snprintf(out, len, "%s|%s|%s|%s %ld q%d s%d b%ld", a.model, a.data, s(a.out), a.backend,
                 a.threads, a.quiet, a.strict, a.batch);
        break;
    }
    case 2: {
        eval_args a;
        rc = eval_parse(&a, argc, argv);
        if (rc != CLI_RUN)
            break;
        if (!a.model || !a.data || !a.backend || a.threads < 0 || a.threads > 4096 ||
            a.batch < 0 || a.batch > (1L << 30))
            abort();
        snprintf(out, len, "%s|%s|%s|%s %ld s%d q%d b%ld", a.model, a.data, s(a.png), a.backend,
                 a.threads, a.strict, a.quiet, a.batch);
        break;
    }
    case 3: {
        bench_args a;
        rc = bench_parse(&a, argc, argv);
        if (rc != CLI_RUN)
            break;
        const bench_cfg *c = &a.c;
        if (c->m < 1 || c->N < 1 || c->n < 1 || c->n > 65536 || c->repeats < 1 ||
            c->threads < 0 || c->tile_m < 0 || c->tile_N < 0 || !c->backend || !a.csv ||
            !a.png || !a.tcsv)
            abort();
        snprintf(out, len, "%d %d %d %lld %lld %d %s %d %d %d %lld %lld s%d %d%d|%s|%s|%s",
                 (int)c->opk, (int)c->act, (int)c->dtype, (long long)c->m, (long long)c->N,
                 c->n, c->backend, c->threads, c->repeats, c->verbose, (long long)c->tile_m,
                 (long long)c->tile_N, c->strict, a.paper, a.targets, a.csv,
                 a.png, a.tcsv);
        break;
    }
    case 4: {
        data_args a;
        rc = data_parse(&a, argc, argv);
        if (rc != CLI_RUN)
            break;
        if (!a.source || a.opts.n_features < 0)
            abort();
        snprintf(out, len, "%s|%s|%d %d %d", a.source, s(a.out), a.opts.n_features,
                 a.opts.resize, a.opts.allow_unlabelled);
        break;
    }
    case 5: {
        tune_args a;
        rc = tune_parse(&a, argc, argv);
        if (rc != CLI_RUN)
            break;
        if (!a.backend || strcmp(a.backend, "cuda") || a.n < 1 || a.n > 65536 ||
            a.max_M < 128)
            abort();
        snprintf(out, len, "%s|%s|%ld %ld %d", s(a.out), a.dtype, a.n, a.max_M, a.dry);
        break;
    }
    default:
        rc = info_parse(argc, argv);
        break;
    }
    if (rc != CLI_RUN && rc != FSVC_OK && rc != FSVC_EUSAGE)
        abort();
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink) {
        sink = fopen("/dev/null", "w");
        if (!sink || !freopen("/dev/null", "w", stdout)) /* --help texts */
            abort();
        cli_set_messages(sink);
    }
    if (size < 1 || size > 4096)
        return 0;
    int cmd = data[0] % NCMD;
    char sum1[8192], sum2[8192];
    int argc1, argc2;
    char **argv1 = split(&argc1, cmd, data + 1, size - 1);
    if (!argv1)
        return 0;
    int rc1 = parse_one(cmd, argc1, argv1, sum1, sizeof sum1);
    overwrite_argv(argv1, argc1); /* getopt permutes argv, but keeps its strings */
    char **argv2 = split(&argc2, cmd, data + 1, size - 1);
    int rc2 = rc1;
    if (argv2) {
        rc2 = parse_one(cmd, argc2, argv2, sum2, sizeof sum2);
        free_argv(argv2, argc2);
    } else {
        strcpy(sum2, sum1);
    }
    free_argv(argv1, argc1);
    if (rc1 != rc2 || strcmp(sum1, sum2) != 0)
        abort(); /* a parse depends on the one before it */
    return 0;
}
