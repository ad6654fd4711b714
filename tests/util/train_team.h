/* train_team.h - fsvc_train_comm on K forked ranks (tests/util/forkteam.h),
 * each on its slice of one small labelled set, for test_comm.c and
 * test_comm_pcg.c: the set, the rank body and the check of every rank's
 * model against the one-process model. */
#ifndef FSVC_TESTS_TRAIN_TEAM_H
#define FSVC_TESTS_TRAIN_TEAM_H

#include <stddef.h>
#include <stdint.h>

#include "fsvc/fsvc.h"
#include "tests/util/forkteam.h"

#define TT_N 900
#define TT_n 6
#define TT_K 3
#define TT_MAXR (120 * TT_K) /* readout values kept per rank */

/* Shared between the forked ranks (ft_shared): the exchange and one result
 * per rank; a child only records, the parent asserts. */
typedef struct {
    ft_comm c;
    struct { int rc; int64_t m; char msg[1024]; double R[TT_MAXR];
             unsigned char C[TT_MAXR * TT_n * 8]; int lab[TT_MAXR]; } out[FT_MAXK];
} tt_team;

/* The whole set: TT_N samples of TT_n f64 features, TT_K classes valued
 * 1..TT_K; image: laid out as a 2 x 3 image (for --augment). */
const fsvc_dataset *tt_set(int image);

/* The team's model: fsvc's defaults with TT_MAXR / TT_K random centroids
 * (radius 0.7 rms), the ridge readout, f32, one thread; rank bad_rank
 * (bad_rank >= 0) gets a backend that does not exist. */
void tt_param(fsvc_param *p, int r, int bad_rank);

/* rank r's parameters (set by the test) before it trains */
typedef void (*tt_param_fn)(int r, fsvc_param *p, void *arg);

/* K ranks (1..FT_MAXK) train their slices; NULL when the team could not
 * run. munmap(T, sizeof *T) when done. */
tt_team *tt_run(int K, tt_param_fn param, void *arg);

/* Every rank of T (and of T2, the same K run again) against one: rc 0, the
 * same centroids (and labels when labels), readout weights within bound
 * relative (root of summed squares), the same bytes in T and T2 and on
 * every rank. 0, or -1 with why in msg. */
int tt_check(const tt_team *T, const tt_team *T2, int K, const fsvc_model *one, double bound,
             int labels, char *msg, size_t len);

#endif
