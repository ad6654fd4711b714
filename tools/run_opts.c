/* run_opts.c - --backend, --threads, --strict and --batch, parsed once
 * for every command (tools/run_opts.h). */
#include "tools/run_opts.h"
#include "layers/bnl.h"

#include <string.h>

enum { K_BACKEND, K_THREADS, K_STRICT, K_BATCH, K_N };

static const struct option all[K_N] = {
    [K_BACKEND] = {"backend", required_argument, 0, RUN_OPT + K_BACKEND},
    [K_THREADS] = {"threads", required_argument, 0, RUN_OPT + K_THREADS},
    [K_STRICT] = {"strict", no_argument, 0, RUN_OPT + K_STRICT},
    [K_BATCH] = {"batch", required_argument, 0, RUN_OPT + K_BATCH},
};

void run_opts_init(run_opts *r, unsigned takes)
{
    memset(r, 0, sizeof *r);
    r->takes = takes;
    r->backend = "cpu";
    r->batch = CLI_PNG_BATCH;
}

int run_opts_longopts(struct option *lo, size_t cap, const struct option *own,
                      const run_opts *r)
{
    size_t n = 0;
    for (; own && own[n].name; n++) {
        if (n + 1 >= cap) return -1;
        lo[n] = own[n];
    }
    for (int k = 0; k < K_N; k++) {
        if (!(r->takes & (1u << k))) continue;
        if (n + 1 >= cap) return -1;
        lo[n++] = all[k];
    }
    lo[n] = (struct option){0, 0, 0, 0};
    return 0;
}

int run_opts_owns(const run_opts *r, const char *name)
{
    for (int k = 0; k < K_N; k++)
        if ((r->takes & (1u << k)) && !strcmp(name, all[k].name)) return 1;
    return 0;
}

int run_opts_take(run_opts *r, const char *cmd, int c, const char *arg, int *rc)
{
    int k = c - RUN_OPT;
    if (k < 0 || k >= K_N || !(r->takes & (1u << k))) return 0;
    *rc = FSVC_OK;
    long v;
    bnl_backend b;
    switch (k) {
    case K_BACKEND:
        if (bnl_backend_parse(arg, &b)) {
            *rc = cli_usage_error(cmd, "--backend: '%s' is not ref, cpu or cuda", arg);
            return 1;
        }
        r->backend = bnl_backend_name(b); /* static: outlives argv */
        break;
    case K_THREADS:
        if (cli_parse_long(cmd, "--threads", arg, 0, RUN_THREADS_MAX, &v)) {
            *rc = FSVC_EUSAGE;
            return 1;
        }
        r->threads = (int)v;
        break;
    case K_STRICT: r->strict = 1; break;
    default:
        if (cli_parse_long(cmd, "--batch", arg, 0, RUN_BATCH_MAX, &v)) {
            *rc = FSVC_EUSAGE;
            return 1;
        }
        r->batch = v;
        break;
    }
    r->given |= 1u << k;
    return 1;
}

void run_opts_help(FILE *f, const run_opts *r)
{
    if (r->takes & RUN_BACKEND)
        fprintf(f, "  --backend ref|cpu|cuda  engine backend (%s); cuda without a usable\n"
                   "                  device prints one line and runs on the CPU\n",
                r->backend);
    if (r->takes & RUN_STRICT)
        fprintf(f, "  --strict        --backend cuda: fail (exit 3) instead of falling back\n");
    if (r->takes & RUN_THREADS)
        fprintf(f, "  --threads T     CPU threads (%d, 0: all cores)\n", r->threads);
    if (r->takes & RUN_BATCH)
        fprintf(f, "  --batch B       PNG folder: decode the next B images (rounded up to\n"
                   "                  a multiple of 8192) on CPU threads while the ones\n"
                   "                  before are scored (%ld; 0: decode the whole folder\n"
                   "                  first); the same output, bit for bit on the CPU\n",
                r->batch);
}
