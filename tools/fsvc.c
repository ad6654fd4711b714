/* fsvc.c - the fsvc command: dispatches to the sub-commands in tools/. */
#include "tools/cli.h"
#include "tools/comm.h"
#include "datasets/datasets.h" /* ds_tmp_unlink_all */

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One line per sub-command; each lives in tools/cmd_<name>.c. */
static const cli_command commands[] = {
    {"info", cmd_info, "version, CPU features, backends, BLAS, CUDA devices"},
    {"data", cmd_data, "load a dataset and summarise it"},
    {"train", cmd_train, "train an FSVC classifier (novelty pass + readout)"},
    {"predict", cmd_predict, "batch inference with a model; accuracy when labelled"},
    {"eval", cmd_eval, "accuracy, per-class precision/recall, confusion matrix"},
    {"study", cmd_study, "accuracy vs speed sweeps, cross-validation -> CSV + PNG"},
    {"show", cmd_show, "montage PNG of a model's centroids (image data)"},
    {"bench", cmd_bench, "t_syn of a BNL layer per backend; --paper re-measures the 2017 tables"},
    {"tune", cmd_tune, "search BNL tile sizes on this GPU and store them (--backend cuda)"},
};

static void usage(FILE *f)
{
    fprintf(f, "fsvc %s - fast RBF vector support classifiers\n\n"
               "usage: fsvc <command> [options] ...\n\ncommands:\n",
            FSVC_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nData: IDX, LIBSVM text, or folders of PNG / JPEG images (colour read as\n"
               "gray, Y = 0.299 R + 0.587 G + 0.114 B, unless train --channels 3).\n"
               "Sample weights: a text file, one weight a line (train --sample-weights).\n");
    fprintf(f, "\n'fsvc <command> --help' describes each command.\n"
               "Exit codes: 0 ok, 1 bad usage, 2 bad input, 3 resource failure.\n");
}

/* SIGINT/SIGTERM/SIGHUP: remove the named temporary files of unfinished
 * outputs, then die of the signal as if unhandled (SA_RESETHAND). */
static void on_signal(int sig)
{
    ds_tmp_unlink_all();
    raise(sig);
}

static void catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL); /* an ignored signal stays ignored */
}

/* Sub-commands that run across mpirun's processes; the others refuse. */
static int distributed(const char *name)
{
    return !strcmp(name, "train") || !strcmp(name, "predict") || !strcmp(name, "eval") ||
           !strcmp(name, "study");
}

static int run(int argc, char **argv)
{
    catch_signals();
    if (argc < 2) {
        usage(stderr);
        return FSVC_EUSAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return FSVC_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("fsvc %s\n", FSVC_VERSION);
        return FSVC_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            if (cli_comm()->size > 1 && !distributed(argv[1]))
                return cli_usage_error(argv[1], "does not run across processes (mpirun -np "
                                       "%d); run it as one process", cli_comm()->size);
            /* before any work: every rank, or none, goes on */
            fsvc_error err;
            fsvc_error_clear(&err);
            int rc = cli_comm_agree(cli_blas_reserve(cli_blas_threads_default(), &err), &err);
            if (rc) return cli_comm_end(rc, &err);
            return commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "fsvc: '%s' is not a command; see 'fsvc --help'\n", argv[1]);
    return FSVC_EUSAGE;
}

int main(int argc, char **argv)
{
    cli_wait_env_main(); /* the libraries have read their settings: plain getenv on */
    /* a file or pipe gets a 64 KiB buffer: a help text or report that fits
     * fails (a full disk) in cli_finish_stdout's fflush, which names the
     * reason, not in a printf whose errno is gone by then */
    static char outbuf[1 << 16]; /* glibc takes the size only with a buffer */
    if (!isatty(1)) setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    int rc = cli_comm_init(&argc, &argv); /* MPI only under mpirun */
    if (rc) return rc;
    rc = run(argc, argv);
    cli_comm_finalize();
    /* output that could not be written is a failure, not a silent exit 0 */
    rc = cli_finish_stdout(rc);
    if (cli_blas_reserve_failed()) { /* OpenBLAS's exit handler would hang */
        fflush(NULL);
        _exit(rc);
    }
    return rc;
}
