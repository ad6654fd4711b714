/* predict_batch.c - fsvc_predict_batched: two sample buffers; while the
 * caller's thread scores batch k in one (fsvc_predict), a POSIX thread
 * fills batch k + 1 into the other. Batches are whole multiples of
 * fsvc_predict's chunk, so the scores are bit for bit the whole set's. */
#include "batch.h"
#include "internal.h" /* fsvc_predict_ctx */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int64_t fsvc_batch_count(int64_t N, int64_t B)
{
    if (N <= 0) return 0;
    if (B <= 0 || B >= N) return 1;
    return (N + B - 1) / B;
}

void fsvc_batch_range(int64_t N, int64_t B, int64_t k, int64_t *lo, int64_t *hi)
{
    if (B <= 0 || B >= N) B = N;
    *lo = k * B;
    *hi = *lo + B < N ? *lo + B : N;
}

int64_t fsvc_batch_size(int64_t B)
{
    if (B <= 0) return 0;
    return (B + FSVC_PREDICT_CHUNK - 1) / FSVC_PREDICT_CHUNK * FSVC_PREDICT_CHUNK;
}

typedef struct filler {
    fsvc_batch_fill fill;
    void *self;
    void *x;
    int64_t lo, hi;
    int rc;
    fsvc_error err;
} filler;

static void *fill_main(void *arg)
{
    filler *f = arg;
    fsvc_error_clear(&f->err);
    f->rc = f->fill(f->self, f->x, f->lo, f->hi, &f->err);
    return NULL;
}

int fsvc_predict_batched(int *pred, double *score, const fsvc_model *model,
                         const fsvc_dataset *d, const fsvc_batch_job *job, fsvc_error *err)
{
    int64_t N = d->N, B = fsvc_batch_size(job->B);
    const char *backend = job->backend;
    int threads = job->threads;
    int64_t nb = fsvc_batch_count(N, B);
    if (nb == 0) return FSVC_OK;
    int64_t lo, hi;
    fsvc_batch_range(N, B, 0, &lo, &hi);
    size_t row = (size_t)d->n * fsvc_dtype_size(d->dtype), cap = (size_t)(hi - lo) * row;
    void *buf[2] = { malloc(cap ? cap : 1), nb > 1 ? malloc(cap ? cap : 1) : NULL };
    if (!buf[0] || (nb > 1 && !buf[1])) {
        free(buf[0]); free(buf[1]);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory for two batches of %lld "
                         "samples", d->source, (long long)(hi - lo));
    }
    /* one context for every batch: a device opened (or its fallback
     * reported) once; a sparse model: fsvc_predict batch by batch */
    int rc = fsvc_model_check(model, "predict: model", err), sparse = model->Cs != NULL;
    bnl_ctx ctx;
    int opened = 0;
    if (!rc && !sparse) {
        fsvc_param p = {.backend = backend, .threads = threads, .device = job->device};
        rc = fsvc_ctx_open(&ctx, &p, err);
        opened = !rc;
    }
    filler f = { job->fill, job->fill_self, buf[0], lo, hi, FSVC_OK, { 0, "" } };
    if (!rc) {
        fill_main(&f); /* the first batch on this thread */
        rc = f.rc;
        if (rc && err) *err = f.err;
    }
    for (int64_t k = 0; rc == FSVC_OK && k < nb; k++) {
        fsvc_dataset v = *d; /* batch k: a view, nothing owned */
        fsvc_batch_range(N, B, k, &lo, &hi);
        v.x = buf[k % 2];
        v.N = hi - lo;
        v.y = NULL; v.cls = NULL; v.class_values = NULL; v.class_names = NULL;
        v.paths = NULL; v.csr = NULL; v.K = 0; v.has_labels = 0;
        pthread_t th;
        int spawned = 0;
        if (k + 1 < nb) { /* batch k + 1 into the other buffer, meanwhile */
            f.x = buf[(k + 1) % 2];
            fsvc_batch_range(N, B, k + 1, &f.lo, &f.hi);
            spawned = pthread_create(&th, NULL, fill_main, &f) == 0;
        }
        int *p = pred + lo;
        double *sc = score ? score + (size_t)lo * model->Kout : NULL;
        rc = sparse ? fsvc_predict(p, sc, model, &v, backend, threads, err)
                    : fsvc_predict_ctx(p, sc, model, &v, &ctx, threads, err);
        if (spawned) pthread_join(th, NULL);
        else if (k + 1 < nb && rc == FSVC_OK) fill_main(&f); /* no thread: in turn */
        if (rc == FSVC_OK && job->progress) job->progress(job->progress_self, hi, N);
        if (rc == FSVC_OK && k + 1 < nb && f.rc) { /* batch k + 1 could not be filled */
            rc = f.rc;
            if (err) *err = f.err;
        }
    }
    if (opened) bnl_ctx_close(&ctx);
    free(buf[0]); free(buf[1]);
    return rc;
}
