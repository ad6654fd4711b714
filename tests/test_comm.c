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
#include "tests/util/forkteam.h"
#include "fsvc/internal.h"

#define MAXK FT_MAXK
#define N_ 900
#define n_ 6
#define K_ 3
#define MAXR (120 * K_)        /* readout values kept per rank */

/* Shared between the forked ranks (MAP_SHARED): a process-shared barrier,
 * one exchange slot and one result per rank. */
typedef struct {
    ft_comm c;         /* the exchange (tests/util/forkteam.h) */
    struct { int rc; int64_t m; char msg[1024]; double R[MAXR]; unsigned char C[MAXR * n_ * 8];
             int lab[MAXR]; } out[MAXK];
} team;


static fsvc_dataset D;      /* the whole set */
static double Xv[N_ * n_], Yv[N_], CV[K_] = {1, 2, 3};
static int Cls[N_];

static void make_set(void)
{
    uint64_t st = 7;
    for (int i = 0; i < N_; i++) {
        Cls[i] = (int)(fsvc_rng_next(&st) % K_);
        Yv[i] = CV[Cls[i]];
        for (int j = 0; j < n_; j++)
            Xv[i * n_ + j] = Cls[i] * (j % 2) + (double)(fsvc_rng_next(&st) % 1000) / 400;
    }
    memset(&D, 0, sizeof D);
    D.N = N_; D.n = n_; D.dtype = FSVC_F64; D.x = Xv; D.has_labels = 1; D.y = Yv;
    D.cls = Cls; D.K = K_; D.class_values = CV;
    strcpy(D.source, "test");
}

/* Rank r of T->c.K, in a child process: trains on its slice, stores the result. */
static void run_rank(team *T, int r, const fsvc_param *p)
{
    ft_member me = {&T->c, r};
    fsvc_comm comm = ft_fsvc_comm(&me);
    int K = T->c.K;
    int64_t lo = (int64_t)N_ * r / K, hi = (int64_t)N_ * (r + 1) / K;
    fsvc_dataset v = D;
    v.N = hi - lo;
    v.x = Xv + lo * n_;
    v.y = Yv + lo;
    v.cls = Cls + lo;
    fsvc_model M;
    fsvc_error err;
    fsvc_error_clear(&err);
    T->out[r].rc = fsvc_train_comm(&M, NULL, &v, N_, lo, p, &comm, &err);
    snprintf(T->out[r].msg, sizeof T->out[r].msg, "%s", err.msg);
    if (T->out[r].rc == 0 && M.m * M.Kout <= MAXR) {
        T->out[r].m = M.m;
        memcpy(T->out[r].R, M.R, (size_t)M.m * M.Kout * sizeof *M.R);
        memcpy(T->out[r].C, M.C, (size_t)M.m * M.n * fsvc_dtype_size(M.dtype));
        memcpy(T->out[r].lab, M.lab, (size_t)M.m * sizeof *M.lab);
        fsvc_free_model(&M);
    }
}

static void base_param(fsvc_param *p)
{
    fsvc_param_default(p);
    p->select = FSVC_SELECT_RANDOM;
    p->readout = FSVC_READOUT_RIDGE;
    p->radius = 0;
    p->radius_rms = 0.7;
    p->max_neurons = 120;
    p->dtype = FSVC_F32;
    p->threads = 1;
}

/* K ranks as forked processes; bad_rank >= 0 gets a backend that does not
 * exist. Returns the shared team (munmap by the caller). */
typedef struct { team *T; int bad_rank; } team_job;

static void team_rank(int r, void *arg)
{
    team_job *j = arg;
    fsvc_param p;
    base_param(&p);
    if (r == j->bad_rank) p.backend = "nosuch";
    run_rank(j->T, r, &p);
}

static team *run_team(int K, int bad_rank)
{
    team *T = ft_shared(sizeof *T);
    assert_non_null(T);
    assert_int_equal(ft_comm_init(&T->c, K), 0);
    team_job j = {T, bad_rank};
    assert_int_equal(ft_run(K, 0, team_rank, &j), 0);
    return T;
}

static void test_slices_match_one_process(void **state)
{
    make_set();
    fsvc_param p;
    base_param(&p);
    fsvc_model one;
    fsvc_error err;
    assert_int_equal(fsvc_train(&one, NULL, &D, &p, &err), 0);
    assert_true(one.m * one.Kout <= MAXR);
    size_t nr = (size_t)one.m * one.Kout * sizeof(double);
    for (int K = 1; K <= MAXK; K++) {
        team *T = run_team(K, -1), *T2 = run_team(K, -1);
        for (int r = 0; r < K; r++) {
            assert_int_equal(T->out[r].rc, 0);
            assert_int_equal(T->out[r].m, one.m);
            size_t row = (size_t)one.n * fsvc_dtype_size(one.dtype);
            assert_memory_equal(T->out[r].C, one.C, (size_t)one.m * row);
            assert_memory_equal(T->out[r].lab, one.lab, (size_t)one.m * sizeof *one.lab);
            double num = 0, den = 0;
            for (size_t q = 0; q < (size_t)one.m * one.Kout; q++) {
                double d = T->out[r].R[q] - one.R[q];
                num += d * d;
                den += one.R[q] * one.R[q];
            }
            assert_true(den > 0);
            assert_true(sqrt(num / den) <= 1e-9); /* the stated tolerance */
            /* the reduction order is fixed: the same K gives the same bytes */
            assert_memory_equal(T->out[r].R, T2->out[r].R, nr);
            /* every rank holds the same model */
            assert_memory_equal(T->out[r].R, T->out[0].R, nr);
        }
        munmap(T, sizeof *T);
        munmap(T2, sizeof *T2);
    }
    fsvc_free_model(&one);
}

static void test_failing_rank_stops_all(void **state)
{
    make_set();
    team *T = run_team(3, 1);
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
    make_set();
    fsvc_param p;
    base_param(&p);
    fsvc_model M;
    fsvc_error err;
    fsvc_comm two = *fsvc_comm_one();
    two.size = 2;
    fsvc_dataset v = D;
    v.N = N_ / 2;
    /* a slice outside the set */
    assert_int_equal(fsvc_train_comm(&M, NULL, &v, N_, N_ / 2 + 1, &p, &two, &err), FSVC_EUSAGE);
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
