/* comm.h (tools) - the processes of one fsvc run: one process, or the
 * ranks of `mpirun -np K fsvc ...` (tools/comm_mpi.c, built when Open MPI
 * is found; tools/comm_one.c otherwise). Without mpirun no MPI is
 * started: fsvc runs as one process exactly as before.
 *
 * Ranks other than 0 print nothing: their stdout and stderr go to
 * /dev/null, and an error is told once, by rank 0, through cli_comm_end. */
#ifndef FSVC_TOOLS_DIST_H
#define FSVC_TOOLS_DIST_H

#include "fsvc/comm.h"

/* Starts MPI when run by mpirun; returns 0, or an exit code after one line. */
int cli_comm_init(int *argc, char ***argv);
/* The process table for the library (fsvc_comm_one() for one process). */
const fsvc_comm *cli_comm(void);
/* Collective: the worst status over the ranks (0: all fine); a rank
 * whose own status is 0 gets err set to FSVC_COMM_ELSEWHERE. */
int cli_comm_agree(int rc, fsvc_error *err);
/* Collective, the last call of a command: rc (the worst over the ranks);
 * rank 0 prints the error of the lowest failing rank, once. */
int cli_comm_end(int rc, const fsvc_error *err);
/* cli_comm_agree, then, when every rank loaded its model (mpath), that
 * every rank holds the same one (the CRC32 and length of its bytes): the
 * collectives of predict and eval are sized by it. Collective. */
int cli_comm_same_model(int rc, const fsvc_model *m, const char *mpath, fsvc_error *err);
/* cli_comm_agree, then, when every rank loaded d (dense, whole: study),
 * that every rank holds the same values and labels (CRC32). Collective. */
int cli_comm_same_data(int rc, const fsvc_dataset *d, const char *path, fsvc_error *err);
/* The MPI library compiled in, e.g. "Open MPI v4.1.4", or "not compiled in". */
const char *cli_comm_library(void);
/* The end of the process (MPI_Finalize). */
void cli_comm_finalize(void);

/* The rows [lo, hi) of N that rank r of K holds. */
static inline void cli_comm_slice(int64_t N, int r, int K, int64_t *lo, int64_t *hi)
{
    *lo = N * r / K;
    *hi = N * (r + 1) / K;
}

/* The exchange of the slice loaders (fsvc_dataset_load_slice) over the
 * processes: c's allgather is D's. */
static inline int cli_slice_allgather(void *self, const void *mine, size_t bytes, void *all)
{
    const fsvc_comm *D = self;
    return D->allgather(D->self, mine, bytes, all);
}
static inline fsvc_slice_comm cli_slice_comm(const fsvc_comm *D)
{
    fsvc_slice_comm c = { D->rank, D->size, (void *)D, cli_slice_allgather };
    return c;
}

/* fsvc_predict across the processes, d the slice [first, first + d->N) of
 * N_total samples that this rank holds: pred and score (N_total rows, as
 * fsvc_predict's) complete on every rank. Collective. */
int cli_comm_predict_at(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                        int64_t first, int64_t N_total, const char *backend, int threads,
                        fsvc_error *err);

/* cli_load_data across the processes (tools/comm_load.c): each rank loads
 * only its slice [*first, *first + d->N) of *N_total samples (one process:
 * all of them), fitted to the model. Collective. */
int cli_load_data_slice(fsvc_dataset *d, int64_t *first, int64_t *N_total, const char *data,
                        const fsvc_model *m, int allow_unlabelled, const char *cmd,
                        fsvc_error *err);
/* g: the whole set's labels (y, cls), classes and paths in input order,
 * gathered from every rank's slice d, without the samples (g->x NULL).
 * Collective. */
int cli_comm_gather_meta(fsvc_dataset *g, const fsvc_dataset *d, int64_t first,
                         int64_t N_total, fsvc_error *err);

/* fsvc_predict with the samples split across the processes; pred and
 * score (as fsvc_predict's) complete on every rank. Collective. */
int cli_comm_predict(int *pred, double *score, const fsvc_model *m, const fsvc_dataset *d,
                     const char *backend, int threads, fsvc_error *err);

/* v: the rows [lo, hi) of d, sharing d's memory (labels, classes, names). */
static inline void cli_dataset_view(fsvc_dataset *v, const fsvc_dataset *d, int64_t lo,
                                    int64_t hi)
{
    *v = *d;
    v->N = hi - lo;
    if (d->x) v->x = (char *)d->x + (size_t)lo * d->n * fsvc_dtype_size(d->dtype);
    if (d->y) v->y = d->y + lo;
    if (d->cls) v->cls = d->cls + lo;
    if (d->paths) v->paths = d->paths + lo;
}

#endif
