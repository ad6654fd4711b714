/* comm_mpi.c - the fsvc_comm of `mpirun -np K fsvc ...` on Open MPI.
 *
 * MPI starts only when mpirun started the process (OMPI_COMM_WORLD_SIZE
 * or PMIX_RANK in the environment); otherwise this is one process and no
 * MPI call is made. Sums are reproducible: the partial arrays are gathered
 * to rank 0 in chunks and added in rank order there, then broadcast, so
 * a given K gives the same bytes in every run (MPI_Allreduce leaves the
 * order to the library). */
#include "tools/comm.h"
#include "tools/cli.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUM_CHUNK ((size_t)1 << 20) /* values per gather: K x 8 MB at rank 0 */

static int g_on;          /* MPI started */
static fsvc_comm g_comm = { 0, 1, NULL, NULL, NULL, NULL, NULL };

static int mpi_sum(void *self, void *buf, size_t n, fsvc_dtype t)
{
    int K = g_comm.size, me = g_comm.rank;
    size_t es = t == FSVC_F64 ? sizeof(double) : sizeof(float);
    size_t cn = n < SUM_CHUNK ? n : SUM_CHUNK;
    char *all = me == 0 ? malloc((cn ? cn : 1) * es * (size_t)K) : NULL;
    int bad = me == 0 && !all;
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad) return FSVC_ERESOURCE;
    for (size_t o = 0; o < n; o += cn) {
        size_t c = n - o < cn ? n - o : cn;
        char *p = (char *)buf + o * es;
        if (MPI_Gather(p, (int)(c * es), MPI_BYTE, all, (int)(c * es), MPI_BYTE, 0,
                       MPI_COMM_WORLD) != MPI_SUCCESS) { free(all); return FSVC_ERESOURCE; }
        if (me == 0) { /* rank order: ((p0 + p1) + p2) + ... */
            for (int r = 1; r < K; r++) {
                const char *q = all + (size_t)r * c * es;
                if (t == FSVC_F64)
                    for (size_t i = 0; i < c; i++) ((double *)p)[i] += ((const double *)q)[i];
                else
                    for (size_t i = 0; i < c; i++) ((float *)p)[i] += ((const float *)q)[i];
            }
        }
        if (MPI_Bcast(p, (int)(c * es), MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
            free(all);
            return FSVC_ERESOURCE;
        }
    }
    free(all);
    return FSVC_OK;
}

static int mpi_bor(void *self, void *buf, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += (size_t)1 << 30) {
        size_t c = bytes - o < ((size_t)1 << 30) ? bytes - o : ((size_t)1 << 30);
        if (MPI_Allreduce(MPI_IN_PLACE, (char *)buf + o, (int)c, MPI_BYTE, MPI_BOR,
                          MPI_COMM_WORLD) != MPI_SUCCESS)
            return FSVC_ERESOURCE;
    }
    return FSVC_OK;
}

static int mpi_agree(void *self, int status)
{
    int worst = status;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static int mpi_allgather(void *self, const void *mine, size_t bytes, void *all)
{
    if (bytes > (size_t)1 << 30) return FSVC_ERESOURCE; /* small records only */
    return MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE,
                         MPI_COMM_WORLD) == MPI_SUCCESS ? FSVC_OK : FSVC_ERESOURCE;
}

int cli_comm_init(int *argc, char ***argv)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK"))
        return FSVC_OK; /* not under mpirun: one process, no MPI */
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "fsvc: MPI_Init failed\n");
        return FSVC_ERESOURCE;
    }
    g_on = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_comm.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_comm.size);
    g_comm.sum = mpi_sum;
    g_comm.bor = mpi_bor;
    g_comm.agree = mpi_agree;
    g_comm.allgather = mpi_allgather;
    if (g_comm.rank > 0) { /* one voice: rank 0 */
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            return FSVC_ERESOURCE;
    }
    return FSVC_OK;
}

const fsvc_comm *cli_comm(void)
{
    return g_on ? &g_comm : fsvc_comm_one();
}

int cli_comm_agree(int rc, fsvc_error *err)
{
    if (!g_on) return rc;
    int worst = mpi_agree(NULL, rc);
    if (worst && !rc) fsvc_fail(err, worst, FSVC_COMM_ELSEWHERE);
    return worst;
}

int cli_comm_end(int rc, const fsvc_error *err)
{
    if (!g_on) return rc ? cli_report(err) : FSVC_OK;
    /* the lowest rank with an error of its own tells it, through rank 0 */
    int own = rc && strcmp(err->msg, FSVC_COMM_ELSEWHERE) != 0;
    int mine = own ? g_comm.rank : g_comm.size, first = g_comm.size, worst = rc;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!worst) return FSVC_OK;
    fsvc_error e = *err;
    if (first < g_comm.size) {
        MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, MPI_COMM_WORLD);
    } else { /* only "another process failed": should not happen */
        fsvc_fail(&e, worst, "a process failed");
    }
    if (g_comm.rank == 0) {
        if (first > 0 && first < g_comm.size) {
            fsvc_error r = e;
            fsvc_fail(&r, e.code, "rank %d of %d: %s", first, g_comm.size, e.msg);
            return cli_report(&r);
        }
        return cli_report(&e);
    }
    return e.code ? e.code : worst;
}

void cli_comm_finalize(void)
{
    if (g_on) MPI_Finalize();
    g_on = 0;
}

const char *cli_comm_library(void)
{
    static char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return "MPI";
    v[strcspn(v, ",\n")] = 0; /* "Open MPI v4.1.4" */
    return v;
}
