/* mpi_plugin.h - the MPI calls of `mpirun -np K fsvc ...`, in a plugin.
 *
 * tools/mpi_plugin.c, linked with Open MPI, is built as fsvc-mpi.so beside
 * the fsvc executable (installed in PREFIX/lib/fsvc); tools/comm_mpi.c
 * loads it only when mpirun started the process (or `fsvc info` asks),
 * so a one-process run does not load libmpi and its dependencies (Open
 * RTE, hwloc, libevent: about a millisecond of start-up). The plugin
 * holds every MPI call and nothing of fsvc's but these types. */
#ifndef FSVC_TOOLS_MPI_PLUGIN_H
#define FSVC_TOOLS_MPI_PLUGIN_H

#include "base/fsvc_base.h"

#include <stddef.h>

#define CLI_MPI_ABI 1             /* changes with the table */
#define CLI_MPI_PLUGIN "fsvc-mpi.so"
#define CLI_MPI_ENTRY "fsvc_mpi_plugin" /* const cli_mpi_api *fsvc_mpi_plugin(void) */

typedef struct cli_mpi_api {
    int abi; /* CLI_MPI_ABI of the plugin's build */
    /* MPI_Init, then this process's rank and the number of processes;
     * FSVC_OK or FSVC_ERESOURCE */
    int (*init)(int *argc, char ***argv, int *rank, int *size);
    /* the operations of fsvc_comm (fsvc/comm.h), self unused */
    int (*sum)(void *self, void *buf, size_t n, fsvc_dtype t);
    int (*bor)(void *self, void *buf, size_t bytes);
    int (*agree)(void *self, int status);
    int (*allgather)(void *self, const void *mine, size_t bytes, void *all);
    int (*min)(int v);                              /* the least v over the ranks */
    int (*bcast)(void *buf, size_t bytes, int root); /* FSVC_OK or FSVC_ERESOURCE */
    void (*finalize)(void);
    const char *(*library)(void); /* "Open MPI v4.1.4" */
} cli_mpi_api;

#endif
