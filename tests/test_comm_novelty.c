/* test_comm_novelty.c - the novelty pass across processes (issue 13):
 * K = 1..4 forked processes stand in for mpirun's ranks (a fsvc_comm on a
 * process-shared barrier: sums in rank order, OR exchange, status
 * agreement). fsvc_novelty_batched on K slices selects exactly what the
 * plain sequential loop selects on the whole set (file order, a shuffled
 * order, a cap, a dense pass with many centroids); fsvc_train_comm with
 * -s global / per-class (given radius, Xrms, radius search) gives the
 * one-process centroids and labels, readout weights within 1e-9 relative,
 * the selection's synaptic operation count of one process;
 * a rank that fails inside the pass stops every rank, none hangs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsvc/comm.h"
#include "tests/util/forkteam.h"
#include "fsvc/internal.h"

#define MAXK FT_MAXK
#define N_ 1200
#define n_ 5
#define K_ 3
#define MAXM N_

typedef struct {
    ft_comm c;         /* the exchange (tests/util/forkteam.h) */
    struct { int rc; int64_t m; char msg[1024]; int64_t sel[MAXM]; double R[MAXM * K_];
             float C[MAXM * n_]; int lab[MAXM]; double radius, syn; } out[MAXK];
} team;


static fsvc_dataset D;
static float Xf[N_ * n_];
static double Yv[N_], CV[K_] = {1, 2, 3};
static int Cls[N_];

static void make_set(void)
{
    uint64_t st = 11;
    for (int i = 0; i < N_; i++) {
        Cls[i] = (int)(fsvc_rng_next(&st) % K_);
        Yv[i] = CV[Cls[i]];
        for (int j = 0; j < n_; j++)
            Xf[i * n_ + j] = (float)(Cls[i] * (j % 2) + (double)(fsvc_rng_next(&st) % 1000) / 400);
    }
    memset(&D, 0, sizeof D);
    D.N = N_; D.n = n_; D.dtype = FSVC_F32; D.x = Xf; D.has_labels = 1; D.y = Yv;
    D.cls = Cls; D.K = K_; D.class_values = CV;
    strcpy(D.source, "test");
}

/* What a rank runs: the pass alone (mode 0) or training (mode 1). */
typedef struct {
    int mode;
    bnl_op op;             /* mode 0 */
    double prag;
    int64_t max_m;
    int shuffle;
    fsvc_param p;          /* mode 1 */
    int bad_rank;          /* gets a bad radius (mode 0) or backend (mode 1) */
} job;

static void run_rank(team *T, int r, const job *J)
{
    ft_member me = {&T->c, r};
    fsvc_comm comm = ft_fsvc_comm(&me);
    int K = T->c.K;
    int64_t lo = (int64_t)N_ * r / K, hi = (int64_t)N_ * (r + 1) / K;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (J->mode == 0) {
        int64_t order[N_];
        for (int i = 0; i < N_; i++) order[i] = i;
        if (J->shuffle) fsvc_shuffle(order, N_, 5);
        bnl_ctx ctx;
        if ((T->out[r].rc = bnl_ctx_open(&ctx, "cpu", 1, 0, &err)))
            return; /* no cmocka assertions in a child: the parent checks rc */
        bnl_op op = J->op;
        if (r == J->bad_rank) op.radius = -1;
        fsvc_select_problem pb = {.ctx = &ctx, .op = &op, .X = Xf + lo * n_,
                                  .order = J->shuffle ? order : NULL, .N = N_, .n = n_,
                                  .at = {lo, hi - lo, &comm}};
        fsvc_select_opt so = {.prag = J->prag, .max_m = J->max_m};
        T->out[r].rc = fsvc_novelty_batched(T->out[r].sel, &T->out[r].m, NULL, &pb, &so, &err);
        bnl_ctx_close(&ctx);
    } else {
        fsvc_dataset v = D;
        v.N = hi - lo;
        v.x = Xf + lo * n_;
        v.y = Yv + lo;
        v.cls = Cls + lo;
        fsvc_param p = J->p;
        if (r == J->bad_rank) p.backend = "nosuch";
        fsvc_model M;
        fsvc_train_info info;
        T->out[r].rc = fsvc_train_comm(&M, &info, &v, N_, lo, &p, &comm, &err);
        if (T->out[r].rc == 0 && (M.m > MAXM || M.dtype != FSVC_F32))
            T->out[r].rc = 99;
        if (T->out[r].rc == 0) {
            T->out[r].m = M.m;
            T->out[r].radius = M.radius;
            T->out[r].syn = info.syn_select;
            memcpy(T->out[r].R, M.R, (size_t)M.m * M.Kout * sizeof *M.R);
            memcpy(T->out[r].C, M.C, (size_t)M.m * n_ * sizeof(float));
            memcpy(T->out[r].lab, M.lab, (size_t)M.m * sizeof *M.lab);
            fsvc_free_model(&M);
        }
    }
    snprintf(T->out[r].msg, sizeof T->out[r].msg, "%s", err.msg);
}

typedef struct { team *T; const job *J; } team_job;

static void team_rank(int r, void *arg)
{
    team_job *j = arg;
    run_rank(j->T, r, j->J);
}

static team *run_team(int K, const job *J)
{
    team *T = ft_shared(sizeof *T);
    assert_non_null(T);
    assert_int_equal(ft_comm_init(&T->c, K), 0);
    team_job j = {T, J};
    /* a rank stuck in a collective is killed after 60 s: a failure */
    assert_int_equal(ft_run(K, 60, team_rank, &j), 0);
    return T;
}

/* The pass on K slices against the sequential loop on the whole set. */
static void pass_case(double radius, double prag, int64_t max_m, int shuffle)
{
    job J = { 0 };
    J.op = (bnl_op){ BNL_L2, BNL_GAUSS, FSVC_F32, radius , BNL_PREC_FULL};
    J.prag = prag; J.max_m = max_m; J.shuffle = shuffle; J.bad_rank = -1;
    int64_t order[N_], m1 = 0;
    static int64_t sel1[N_];
    for (int i = 0; i < N_; i++) order[i] = i;
    if (shuffle) fsvc_shuffle(order, N_, 5);
    fsvc_error err;
    fsvc_select_problem pb = {.op = &J.op, .X = Xf, .order = shuffle ? order : NULL, .N = N_,
                              .n = n_};
    fsvc_select_opt so = {.prag = prag, .max_m = max_m};
    assert_int_equal(fsvc_novelty_seq(sel1, &m1, &pb, &so, &err), 0);
    assert_true(m1 > 1);
    for (int K = 1; K <= MAXK; K++) {
        team *T = run_team(K, &J);
        for (int r = 0; r < K; r++) {
            assert_int_equal(T->out[r].rc, 0);
            assert_int_equal(T->out[r].m, m1);
            assert_memory_equal(T->out[r].sel, sel1, (size_t)m1 * sizeof *sel1);
        }
        munmap(T, sizeof *T);
    }
}

static void test_pass_is_the_sequential_loop(void **state)
{
    make_set();
    pass_case(0.9, 0.5, 0, 0);   /* file order, few centroids: long chunks */
    pass_case(0.9, 0.5, 0, 1);   /* shuffled */
    pass_case(0.25, 0.3, 0, 1);  /* dense: many centroids, small chunks */
    pass_case(0.25, 0.3, 40, 0); /* a cap stops every rank at once */
}

static void train_case(int select, double radius, double rms, int shuffle)
{
    fsvc_param p;
    fsvc_param_default(&p);
    p.select = select;
    p.readout = FSVC_READOUT_RIDGE;
    p.solver = FSVC_SOLVER_DIRECT;
    p.radius = radius;
    p.radius_rms = rms;
    p.shuffle = shuffle;
    p.prag = 0.5;
    p.dtype = FSVC_F32;
    p.threads = 1;
    fsvc_model one;
    fsvc_train_info info;
    fsvc_error err;
    assert_int_equal(fsvc_train(&one, &info, &D, &p, &err), 0);
    assert_true(one.m > 1 && one.m <= MAXM);
    job J = { 0 };
    J.mode = 1; J.p = p; J.bad_rank = -1;
    for (int K = 2; K <= MAXK; K++) {
        team *T = run_team(K, &J);
        for (int r = 0; r < K; r++) {
            assert_int_equal(T->out[r].rc, 0);
            assert_int_equal(T->out[r].m, one.m);
            assert_true(T->out[r].radius == one.radius);
            /* the synaptic operations of the selection: every process's
             * chunk sums added, the resolves once (t_syn as one process) */
            assert_true(info.syn_select > 0 && T->out[r].syn == info.syn_select);
            assert_memory_equal(T->out[r].C, one.C, (size_t)one.m * n_ * sizeof(float));
            assert_memory_equal(T->out[r].lab, one.lab, (size_t)one.m * sizeof *one.lab);
            double num = 0, den = 0;
            for (size_t q = 0; q < (size_t)one.m * one.Kout; q++) {
                double d = T->out[r].R[q] - one.R[q];
                num += d * d;
                den += one.R[q] * one.R[q];
            }
            assert_true(den > 0 && sqrt(num / den) <= 1e-9);
            assert_memory_equal(T->out[r].R, T->out[0].R, (size_t)one.m * one.Kout * sizeof(double));
        }
        munmap(T, sizeof *T);
    }
    fsvc_free_model(&one);
}

static void test_train_global_and_per_class(void **state)
{
    make_set();
    train_case(FSVC_SELECT_GLOBAL, 0.9, 0, 0);
    train_case(FSVC_SELECT_GLOBAL, 0, 0.5, 1);         /* -r 0.5rms, shuffled */
    train_case(FSVC_SELECT_PER_CLASS, 0.9, 0, 1);
    train_case(FSVC_SELECT_PER_CLASS, 0, 0.5, 0);      /* -r 0.5rms, file order */
    train_case(FSVC_SELECT_GLOBAL, 0, 0, 1);           /* the radius search */
}

static void test_failing_rank_in_the_pass(void **state)
{
    make_set();
    job J = { 0 };
    J.op = (bnl_op){ BNL_L2, BNL_GAUSS, FSVC_F32, 0.9 , BNL_PREC_FULL};
    J.prag = 0.5; J.bad_rank = 2;
    team *T = run_team(3, &J);
    assert_int_not_equal(T->out[2].rc, 0);
    assert_null(strstr(T->out[2].msg, FSVC_COMM_ELSEWHERE)); /* its own words */
    for (int r = 0; r < 2; r++) {
        assert_int_equal(T->out[r].rc, T->out[2].rc);
        assert_string_equal(T->out[r].msg, FSVC_COMM_ELSEWHERE);
    }
    munmap(T, sizeof *T);
}

static void test_lms_refused_across_ranks(void **state)
{
    make_set();
    fsvc_param p;
    fsvc_param_default(&p);
    p.select = FSVC_SELECT_GLOBAL;
    p.readout = FSVC_READOUT_LMS;
    p.radius = 0.9;
    fsvc_model M;
    fsvc_error err;
    fsvc_comm two = *fsvc_comm_one();
    two.size = 2;
    fsvc_dataset v = D;
    v.N = N_ / 2;
    assert_int_equal(fsvc_train_comm(&M, NULL, &v, N_, 0, &p, &two, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "LMS"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass_is_the_sequential_loop),
        cmocka_unit_test(test_train_global_and_per_class),
        cmocka_unit_test(test_failing_rank_in_the_pass),
        cmocka_unit_test(test_lms_refused_across_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
