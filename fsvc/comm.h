/* comm.h - partial reductions across processes, without MPI.
 *
 * The library trains on one slice of the samples when it is given a
 * fsvc_comm: rank r of size processes holds the global samples
 * [first, first + N) of N_total. The operations are supplied by the caller
 * (tools/comm_mpi.c, on Open MPI through tools/mpi_plugin.c); fsvc_comm_one() is the
 * one-process table, where every operation is the identity. Every
 * operation is collective: all ranks call it in the same order. */
#ifndef FSVC_COMM_H
#define FSVC_COMM_H

#include "fsvc.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fsvc_comm {
    int rank, size;
    void *self;
    /* buf (n values of type t, FSVC_F32 or FSVC_F64) becomes the sum over
     * the ranks, added in rank order (0 + 1 + ... + size-1), the same bytes
     * on every rank and in every run with the same size. */
    int (*sum)(void *self, void *buf, size_t n, fsvc_dtype t);
    /* buf (bytes) becomes the bitwise OR over the ranks: rows that one rank
     * owns and the others leave zero arrive exactly everywhere. */
    int (*bor)(void *self, void *buf, size_t bytes);
    /* The worst (largest) status over the ranks; a rank whose own status
     * is 0 sees another rank's failure. */
    int (*agree)(void *self, int status);
    /* mine (bytes, the same count on every rank) of every rank, in rank
     * order, into all (size x bytes) on every rank. */
    int (*allgather)(void *self, const void *mine, size_t bytes, void *all);
} fsvc_comm;

/* The one-process table (rank 0 of 1). */
const fsvc_comm *fsvc_comm_one(void);

/* The message of a rank that stopped because another rank failed. */
#define FSVC_COMM_ELSEWHERE "stopped: another process failed"

/* The worst status over the ranks (one process: rc): a rank whose own rc
 * is 0 gets the others' failure as FSVC_COMM_ELSEWHERE in err. */
int fsvc_comm_agreed(const fsvc_comm *comm, int rc, fsvc_error *err);

/* fsvc_train on the slice d = global samples [first, first + d->N) of
 * N_total (d's labels indexed into the same classes on every rank). When
 * comm->size > 1, random selection and the novelty pass (global or per
 * class, any radius rule) are distributed with the ridge readout (any
 * solver: direct, the partial H^T H summed; pcg, the partial products of
 * every iteration summed; auto, chosen by m as one process does; and
 * --augment) or the one-hot readout (other settings: FSVC_EUSAGE); the
 * centroids are the global samples one process picks with the same seed,
 * and every rank returns the same model. With fsvc_comm_one() it is
 * fsvc_train. */
int fsvc_train_comm(fsvc_model *model, fsvc_train_info *info, const fsvc_dataset *d,
                    int64_t N_total, int64_t first, const fsvc_param *p,
                    const fsvc_comm *comm, fsvc_error *err);

/* Where one process's samples are: the global rows [first, first + Nloc)
 * of all the samples, spread over the processes of comm. */
typedef struct fsvc_slice {
    int64_t first, Nloc;
    const fsvc_comm *comm;
} fsvc_slice;

/* Rows idx[0..cnt) (global indices) of the slice X (the rows of at, of
 * row bytes each) into out (cnt x row), on every rank. */
int fsvc_comm_rows(void *out, const void *X, size_t row, const int64_t *idx, int64_t cnt,
                   const fsvc_slice *at, fsvc_error *err);

/* The texts (bytes) of the ranks concatenated in rank order, on every
 * rank: *out (malloc'd, NUL-terminated, the caller frees it) and len[r],
 * rank r's length (len: comm->size entries). Collective; a rank that
 * cannot allocate makes every rank fail (FSVC_ERESOURCE). */
int fsvc_comm_concat(char **out, size_t *len, const char *mine, size_t n,
                     const fsvc_comm *comm, fsvc_error *err);

#endif
