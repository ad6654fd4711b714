/* slice_team.h - K threads standing in for K processes loading one source
 * with fsvc_dataset_load_slice (their allgather a barrier over shared
 * slots), for tests/test_slice.c and tests/fuzz/fuzz_slice.c. Header only:
 * the fuzz targets link the library and their own file, nothing else. */
#ifndef FSVC_TESTS_SLICE_TEAM_H
#define FSVC_TESTS_SLICE_TEAM_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/fsvc_data.h"

#define ST_MAXK 5
#define ST_SLOT 4096

typedef struct st_team {
    pthread_barrier_t bar;
    int K;
    unsigned char slot[ST_MAXK][ST_SLOT];
} st_team;

typedef struct st_member {
    st_team *t;
    fsvc_slice_comm comm;
    const char *source;
    fsvc_load_opts opts;
    int shape;             /* rows = cols = shape after loading (0: none) */
    fsvc_dataset d;
    int64_t first, N_total;
    int rc;
    fsvc_error err;
} st_member;

static int st_allgather(void *self, const void *mine, size_t bytes, void *all)
{
    st_member *m = self;
    st_team *T = m->t;
    if (bytes > ST_SLOT) return FSVC_ERESOURCE;
    memcpy(T->slot[m->comm.rank], mine, bytes);
    pthread_barrier_wait(&T->bar);
    for (int r = 0; r < T->K; r++)
        memcpy((char *)all + (size_t)r * bytes, T->slot[r], bytes);
    pthread_barrier_wait(&T->bar);
    return FSVC_OK;
}

static void *st_run_rank(void *arg)
{
    st_member *m = arg;
    fsvc_error_clear(&m->err);
    m->rc = fsvc_dataset_load_slice(&m->d, &m->first, &m->N_total, m->source, &m->opts,
                                    &m->comm, &m->err);
    if (!m->rc && m->shape)
        m->rc = fsvc_dataset_set_shape_slice(&m->d, m->shape, m->shape, &m->comm, &m->err);
    return NULL;
}

/* Loads source on K ranks (1..ST_MAXK) into ms[0..K). A thread that
 * cannot start aborts the test (a team short of a member would wait at its
 * barrier for ever). */
static void st_load_k(st_member *ms, int K, const char *source, const fsvc_load_opts *opts,
                      int shape)
{
    static st_team T;
    if (K < 1 || K > ST_MAXK || pthread_barrier_init(&T.bar, NULL, (unsigned)K)) abort();
    T.K = K;
    pthread_t th[ST_MAXK];
    for (int r = 0; r < K; r++) {
        memset(&ms[r], 0, sizeof ms[r]);
        ms[r].t = &T;
        ms[r].comm = (fsvc_slice_comm){ r, K, &ms[r], st_allgather };
        ms[r].source = source;
        if (opts) ms[r].opts = *opts;
        ms[r].shape = shape;
    }
    for (int r = 0; r < K; r++)
        if (pthread_create(&th[r], NULL, st_run_rank, &ms[r])) abort();
    for (int r = 0; r < K; r++)
        pthread_join(th[r], NULL);
    pthread_barrier_destroy(&T.bar);
}

#endif
