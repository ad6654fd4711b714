/* forkteam.h - a fsvc_comm over K forked processes, for the library's
 * tests of the scale-out without Open MPI (test_comm*.c): a process-shared
 * barrier, one exchange slot per rank and one status per rank, in memory
 * every rank shares (MAP_SHARED, made before the fork). Sums are added in
 * rank order ((b0 + b1) + b2) + ..., as tools/comm_mpi.c does. */
#ifndef FSVC_TESTS_FORKTEAM_H
#define FSVC_TESTS_FORKTEAM_H

#include "fsvc/comm.h"

#include <pthread.h>

#define FT_MAXK 4
#define FT_SLOT ((size_t)1 << 20) /* bytes one rank can exchange at once */

typedef struct ft_comm {
    pthread_barrier_t bar;
    int K;
    int st[FT_MAXK];
    double slot[FT_MAXK][FT_SLOT / sizeof(double)]; /* aligned for any element */
} ft_comm;

typedef struct ft_member {
    ft_comm *c;
    int rank;
} ft_member;

/* c (in shared memory) for K ranks: 0, or -1. */
int ft_comm_init(ft_comm *c, int K);
/* The table of rank me->rank of me->c (sum, bor, agree; no allgather). */
fsvc_comm ft_fsvc_comm(ft_member *me);

/* A zeroed block of bytes that forked ranks share (MAP_SHARED; munmap it),
 * or NULL. */
void *ft_shared(size_t bytes);
/* K forked processes: process r runs rank(r, arg), then _exit(0); with
 * alarm_s > 0 a process still running after alarm_s seconds is killed (a
 * rank left waiting in a collective). 0 when every one exited with 0. */
int ft_run(int K, unsigned alarm_s, void (*rank)(int r, void *arg), void *arg);

#endif
