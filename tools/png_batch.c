/* png_batch.c - `fsvc predict|eval --batch B` on a PNG folder: the folder
 * is listed (fsvc_pngdir_list), then decoded B images at a time on CPU
 * threads while the previous batch is scored (fsvc_predict_batched), so
 * that the pixels of at most two batches are in memory. The results are
 * those of the whole-folder path (--batch 0). */
#include "tools/cli.h"
#include "tools/comm.h"
#include "fsvc/batch.h"
#include "datasets/datasets.h" /* ds_max_bytes: the load limit */

#include <stdio.h>
#include <sys/stat.h>

int cli_png_batched(const char *data, long batch)
{
    struct stat st;
    return batch > 0 && cli_comm()->size <= 1 && stat(data, &st) == 0 && S_ISDIR(st.st_mode);
}

int cli_png_list(fsvc_dataset *d, const char *data, const fsvc_model *m, int allow_unlabelled,
                 const char *cmd, fsvc_error *err)
{
    fsvc_load_opts lopt = { 0 };
    lopt.allow_unlabelled = allow_unlabelled;
    cli_image_opts(&lopt, m);
    int rc = fsvc_pngdir_list(d, data, &lopt, err);
    if (!rc) /* the size against the model's: after the load limit's check */
        cli_warn_skipped(d, cmd, 0);
    return rc;
}

typedef struct png_job {
    const fsvc_dataset *d;
    int resize; /* images of another size resized to the model's */
    int threads;
    const char *cmd;
    int open_line; /* a progress line without its end */
} png_job;

static int fill(void *self, void *x, int64_t lo, int64_t hi, fsvc_error *err)
{
    const png_job *j = self;
    return fsvc_pngdir_decode(x, j->d, lo, hi, j->resize, j->threads, err);
}

static void progress(void *self, int64_t done, int64_t N)
{
    png_job *j = self;
    j->open_line = done < N;
    fprintf(stderr, "\rfsvc %s: %lld/%lld images%s", j->cmd, (long long)done, (long long)N,
            done == N ? "\n" : "");
    fflush(stderr);
}

int cli_png_predict(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                    long batch, const char *backend, int threads, int quiet, const char *cmd,
                    fsvc_error *err)
{
    /* the pixels held at once (two batches, or the one) against the load
     * limit, as the whole-folder load checks the folder's */
    int64_t E = fsvc_batch_size(batch), held = d->N <= E ? d->N : 2 * E;
    uint64_t need = (uint64_t)held * (uint64_t)d->n, max = ds_max_bytes();
    if (need > max) {
        char lim[80];
        ds_limit_text(lim, sizeof lim, max);
        if (d->N <= E)
            return fsvc_fail(err, FSVC_EINPUT, "%s: %lld images of %dx%d need %llu bytes, more "
                             "than the load limit (%s)", d->source, (long long)d->N, d->cols,
                             d->rows, (unsigned long long)need, lim);
        return fsvc_fail(err, FSVC_EINPUT, "%s: two batches of %lld images of %dx%d need %llu "
                         "bytes, more than the load limit (%s)", d->source, (long long)E,
                         d->cols, d->rows, (unsigned long long)need, lim);
    }
    int rc = cli_image_check(d, m, cmd, err);
    if (rc)
        return rc;
    png_job j = { d, cli_image_resize(m), threads, cmd, 0 };
    fsvc_batch_job job = {batch, fill, &j, cli_progress_wanted(quiet) ? progress : NULL, &j,
                          backend, threads, NULL};
    rc = fsvc_predict_batched(pred, score, m, d, &job, err);
    if (j.open_line) /* stopped by an error: the message on a line of its own */
        fputc('\n', stderr);
    return rc;
}
