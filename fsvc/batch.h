/* batch.h - batch inference of a set whose samples are produced batch by
 * batch (a PNG folder decoded on CPU threads): batch k + 1 is filled on a
 * second thread while batch k is scored (fsvc_predict, on any backend), so
 * that at most two batches of samples are in memory. fsvc/predict_batch.c. */
#ifndef FSVC_BATCH_H
#define FSVC_BATCH_H

#include "fsvc.h"

/* The batch splitter: N samples in batches of B (the last one shorter);
 * B <= 0 or B >= N: one batch of N. Count 0 when N is 0. */
int64_t fsvc_batch_count(int64_t N, int64_t B);
/* The samples [*lo, *hi) of batch k (0 <= k < fsvc_batch_count). */
void fsvc_batch_range(int64_t N, int64_t B, int64_t k, int64_t *lo, int64_t *hi);

/* The batch size used for a requested B: B rounded up to a multiple of
 * FSVC_PREDICT_CHUNK, so that every batch scores whole chunks of
 * fsvc_predict at the chunk boundaries of the whole set: the same bits as
 * fsvc_predict on the whole set (on the CPU; a device scores a call at a
 * time: the same classes, scores that may differ in the last bits).
 * B <= 0: 0, one batch. */
int64_t fsvc_batch_size(int64_t B);

/* Writes the samples [lo, hi) into x ((hi - lo) x n, the set's dtype);
 * returns FSVC_OK or an error (err set). One call at a time: the first
 * batch on the caller's thread, the next ones on a second thread while
 * the caller scores the batch before. */
typedef int (*fsvc_batch_fill)(void *self, void *x, int64_t lo, int64_t hi, fsvc_error *err);
/* Called (on the caller's thread) after each batch: done of N scored. */
typedef void (*fsvc_batch_progress)(void *self, int64_t done, int64_t N);

/* Where fsvc_predict_batched's samples come from and how they are scored:
 * fsvc_batch_size(B) at a time from fill; progress may be NULL; backend
 * and threads as fsvc_predict's; device: the device backend a "cuda"
 * backend opens (layers/bnl_backend_ops.h), NULL the built-in CUDA one. */
typedef struct fsvc_batch_job {
    int64_t B;
    fsvc_batch_fill fill;
    void *fill_self;
    fsvc_batch_progress progress;
    void *progress_self;
    const char *backend;
    int threads;
    const struct bnl_backend_ops *device;
} fsvc_batch_job;

/* fsvc_predict over the set d (N, n, dtype, scale, source: dense samples;
 * x, labels and paths unused) whose samples come from job->fill: the same
 * pred (N) and score (N x Kout, or NULL) as fsvc_predict on the whole set.
 * One engine context serves every batch (a device is opened, or its
 * fallback reported, once). The first error in sample order is returned:
 * the fill of batch k + 1 is waited for before the error of scoring batch
 * k is returned, and nothing of a later batch is scored after an error. */
int fsvc_predict_batched(int *pred, double *score, const fsvc_model *model,
                         const fsvc_dataset *d, const fsvc_batch_job *job, fsvc_error *err);

#endif
