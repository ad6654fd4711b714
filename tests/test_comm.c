/* test_comm.c - fsvc_train_comm on K slices against fsvc_train on the
 * whole set, with K forked processes standing in for mpirun's (a fsvc_comm built
 * on a process-shared barrier between forked processes: sums added in rank order, OR exchange, status agreement),
 * so the library's side of the scale-out is tested without Open MPI:
 * the same centroids and labels, readout weights within 1e-9 relative of
 * one process (the stated tolerance), the same bytes twice for one K, and
 * a rank that fails stops every rank. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/comm.h"
#include "tests/util/train_team.h"
#include "fsvc/internal.h"

/* every rank's parameters: the team's model */
static void base_param(int r, fsvc_param *p, void *bad_rank)
{
    tt_param(p, r, bad_rank ? *(int *)bad_rank : -1);
}

static tt_team *run_team(int K, int bad_rank)
{
    tt_team *T = tt_run(K, base_param, &bad_rank);
    assert_non_null(T);
    return T;
}

static void test_slices_match_one_process(void **state)
{
    const fsvc_dataset *D = tt_set(0);
    fsvc_param p;
    base_param(0, &p, NULL);
    fsvc_model one;
    fsvc_error err;
    assert_int_equal(fsvc_train(&one, NULL, D, &p, &err), 0);
    assert_true(one.m * one.Kout <= TT_MAXR);
    for (int K = 1; K <= FT_MAXK; K++) {
        tt_team *T = run_team(K, -1), *T2 = run_team(K, -1);
        char why[256];
        /* 1e-9: the stated tolerance; the reduction order is fixed, so the
         * same K gives the same bytes, and every rank holds one model */
        if (tt_check(T, T2, K, &one, 1e-9, 1, why, sizeof why)) fail_msg("%s", why);
        munmap(T, sizeof *T);
        munmap(T2, sizeof *T2);
    }
    fsvc_free_model(&one);
}

static void test_failing_rank_stops_all(void **state)
{
    tt_set(0);
    tt_team *T = run_team(3, 1);
    assert_int_not_equal(T->out[1].rc, 0);
    assert_null(strstr(T->out[1].msg, FSVC_COMM_ELSEWHERE)); /* its own words */
    for (int r = 0; r < 3; r += 2) {
        assert_int_equal(T->out[r].rc, T->out[1].rc);
        assert_string_equal(T->out[r].msg, FSVC_COMM_ELSEWHERE);
    }
    munmap(T, sizeof *T);
}

/* the novelty pass across ranks: tests/test_comm_novelty.c */
static void test_refuses_slice_outside(void **state)
{
    const fsvc_dataset *D = tt_set(0);
    fsvc_param p;
    base_param(0, &p, NULL);
    fsvc_model M;
    fsvc_error err;
    fsvc_comm two = *fsvc_comm_one();
    two.size = 2;
    fsvc_dataset v = *D;
    v.N = TT_N / 2;
    /* a slice outside the set */
    assert_int_equal(fsvc_train_comm(&M, NULL, &v, TT_N, TT_N / 2 + 1, &p, &two, &err), FSVC_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slices_match_one_process),
        cmocka_unit_test(test_failing_rank_stops_all),
        cmocka_unit_test(test_refuses_slice_outside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
