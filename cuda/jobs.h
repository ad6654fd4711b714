/*
 * jobs.h - the order in which the CUDA driver (forward.cu) runs the BNL
 * tiles of a plan, and on which stream: a pure iterator, tested on the
 * host (tests/test_cuda_plan.c) for coverage, order and uploads.
 *
 * Forward: neuron tiles outer, sample tiles inner, job k on stream
 *   k % streams (the streams take turns, so H2D / kernel / D2H of
 *   neighbouring jobs overlap).
 * Activation sums: sample tiles outer, each on one stream (ni % streams),
 *   its neuron tiles inner in increasing order, so that every S[i] adds
 *   its neurons in increasing j (bnl.h's order) on one stream.
 * load_w / load_x: the stream does not already hold that W / X tile.
 */
#ifndef FSVC_CUDA_JOBS_H
#define FSVC_CUDA_JOBS_H

#include <stdint.h>

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BNLC_JOBS_MAX_STREAMS 8

typedef struct bnlc_job {
    int64_t mi, ni;        /* tile indices */
    int64_t m0, mt;        /* neurons m0 .. m0 + mt - 1 */
    int64_t i0, Nt;        /* samples i0 .. i0 + Nt - 1 */
    int stream;
    int load_w, load_x;
    int first, last;       /* actsum: first / last neuron tile of the sample tile */
} bnlc_job;

typedef struct bnlc_jobs {
    int64_t tile_m, tile_N, tiles_m, tiles_N, m, N;
    int actsum, streams;
    int64_t k, total;
    int64_t resW[BNLC_JOBS_MAX_STREAMS], resX[BNLC_JOBS_MAX_STREAMS];
} bnlc_jobs;

void bnlc_jobs_init(bnlc_jobs *it, const bnlc_plan *p, int actsum, int streams, int64_t m,
                    int64_t N);
/* Fills j with the next job; 0 when there is none left. */
int bnlc_jobs_next(bnlc_jobs *it, bnlc_job *j);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_CUDA_JOBS_H */
