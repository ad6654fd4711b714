/* mpi_plugin.c - fsvc-mpi.so, the MPI calls of fsvc (mpi_plugin.h) on
 * Open MPI. Sums are reproducible: the partial arrays are gathered to
 * rank 0 in chunks and added in rank order there, then broadcast, so a
 * given K gives the same bytes in every run (MPI_Allreduce leaves the
 * order to the library). */
#include "tools/mpi_plugin.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define SUM_CHUNK ((size_t)1 << 20) /* values per gather: K x 8 MB at rank 0 */

static int g_rank, g_size = 1;

static int mpi_init(int *argc, char ***argv, int *rank, int *size)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) return FSVC_ERESOURCE;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    *rank = g_rank;
    *size = g_size;
    return FSVC_OK;
}

static char spare[1 << 16]; /* rank 0's gather buffer when malloc fails */

static void drop(char *all)
{
    if (all != spare) free(all);
}

static int mpi_sum(void *self, void *buf, size_t n, fsvc_dtype t)
{
    int K = g_size, me = g_rank;
    size_t es = t == FSVC_F64 ? sizeof(double) : sizeof(float);
    if (n == 0) return FSVC_OK; /* n is every rank's */
    size_t cn = n < SUM_CHUNK ? n : SUM_CHUNK;
    char *all = me == 0 ? malloc(cn * es * (size_t)K) : NULL;
    if (me == 0 && !all) { /* smaller chunks through a static buffer: the same sums */
        cn = sizeof spare / (es * (size_t)K);
        all = spare;
    }
    unsigned long long chunk = cn; /* rank 0's choice, for every rank */
    MPI_Bcast(&chunk, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    cn = (size_t)chunk;
    if (cn == 0) return FSVC_ERESOURCE; /* over 8192 ranks and no memory */
    for (size_t o = 0; o < n; o += cn) {
        size_t c = n - o < cn ? n - o : cn;
        char *p = (char *)buf + o * es;
        if (MPI_Gather(p, (int)(c * es), MPI_BYTE, all, (int)(c * es), MPI_BYTE, 0,
                       MPI_COMM_WORLD) != MPI_SUCCESS) { drop(all); return FSVC_ERESOURCE; }
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
            drop(all);
            return FSVC_ERESOURCE;
        }
    }
    drop(all);
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

static int mpi_min(int v)
{
    int least = v;
    MPI_Allreduce(&v, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return least;
}

static int mpi_bcast(void *buf, size_t bytes, int root)
{
    return MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS
               ? FSVC_OK : FSVC_ERESOURCE;
}

static void mpi_finalize(void) { MPI_Finalize(); }

static const char *mpi_library(void)
{
    static char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return "MPI";
    v[strcspn(v, ",\n")] = 0; /* "Open MPI v4.1.4" */
    return v;
}

const cli_mpi_api *fsvc_mpi_plugin(void)
{
    static const cli_mpi_api api = {
        CLI_MPI_ABI, mpi_init, mpi_sum, mpi_bor, mpi_agree, mpi_allgather, mpi_min, mpi_bcast,
        mpi_finalize, mpi_library,
    };
    return &api;
}
