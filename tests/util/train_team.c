#include "tests/util/train_team.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "fsvc/comm.h"
#include "fsvc/internal.h"

static fsvc_dataset D;
static double Xv[TT_N * TT_n], Yv[TT_N], CV[TT_K] = {1, 2, 3};
static int Cls[TT_N];

const fsvc_dataset *tt_set(int image)
{
    uint64_t st = 7;
    for (int i = 0; i < TT_N; i++) {
        Cls[i] = (int)(fsvc_rng_next(&st) % TT_K);
        Yv[i] = CV[Cls[i]];
        for (int j = 0; j < TT_n; j++)
            Xv[i * TT_n + j] = Cls[i] * (j % 2) + (double)(fsvc_rng_next(&st) % 1000) / 400;
    }
    memset(&D, 0, sizeof D);
    D.N = TT_N; D.n = TT_n; D.dtype = FSVC_F64; D.x = Xv; D.has_labels = 1; D.y = Yv;
    D.cls = Cls; D.K = TT_K; D.class_values = CV;
    if (image) { D.rows = 2; D.cols = 3; }
    strcpy(D.source, "test");
    return &D;
}

void tt_param(fsvc_param *p, int r, int bad_rank)
{
    fsvc_param_default(p);
    p->select = FSVC_SELECT_RANDOM;
    p->readout = FSVC_READOUT_RIDGE;
    p->radius = 0;
    p->radius_rms = 0.7;
    p->max_neurons = TT_MAXR / TT_K;
    p->dtype = FSVC_F32;
    p->threads = 1;
    if (bad_rank >= 0 && r == bad_rank) p->backend = "nosuch";
}

typedef struct { tt_team *T; tt_param_fn param; void *arg; } tt_job;

static void tt_rank(int r, void *arg)
{
    tt_job *j = arg;
    tt_team *T = j->T;
    fsvc_param p;
    j->param(r, &p, j->arg);
    ft_member me = {&T->c, r};
    fsvc_comm comm = ft_fsvc_comm(&me);
    int K = T->c.K;
    int64_t lo = (int64_t)TT_N * r / K, hi = (int64_t)TT_N * (r + 1) / K;
    fsvc_dataset v = D;
    v.N = hi - lo;
    v.x = Xv + lo * TT_n;
    v.y = Yv + lo;
    v.cls = Cls + lo;
    fsvc_model M;
    fsvc_error err;
    fsvc_error_clear(&err);
    T->out[r].rc = fsvc_train_comm(&M, NULL, &v, TT_N, lo, &p, &comm, &err);
    snprintf(T->out[r].msg, sizeof T->out[r].msg, "%s", err.msg);
    if (T->out[r].rc == 0 && M.m * M.Kout <= TT_MAXR) {
        T->out[r].m = M.m;
        memcpy(T->out[r].R, M.R, (size_t)M.m * M.Kout * sizeof *M.R);
        memcpy(T->out[r].C, M.C, (size_t)M.m * M.n * fsvc_dtype_size(M.dtype));
        memcpy(T->out[r].lab, M.lab, (size_t)M.m * sizeof *M.lab);
        fsvc_free_model(&M);
    }
}

tt_team *tt_run(int K, tt_param_fn param, void *arg)
{
    tt_team *T = ft_shared(sizeof *T);
    if (!T) return NULL;
    tt_job j = {T, param, arg};
    if (ft_comm_init(&T->c, K) || ft_run(K, 0, tt_rank, &j)) {
        munmap(T, sizeof *T);
        return NULL;
    }
    return T;
}

int tt_check(const tt_team *T, const tt_team *T2, int K, const fsvc_model *one, double bound,
             int labels, char *msg, size_t len)
{
    size_t nq = (size_t)one->m * one->Kout, row = (size_t)one->n * fsvc_dtype_size(one->dtype);
    for (int r = 0; r < K; r++) {
        const char *bad = NULL;
        double num = 0, den = 0;
        for (size_t q = 0; q < nq; q++) {
            double d = T->out[r].R[q] - one->R[q];
            num += d * d;
            den += one->R[q] * one->R[q];
        }
        if (T->out[r].rc) bad = T->out[r].msg;
        else if (T->out[r].m != one->m || memcmp(T->out[r].C, one->C, (size_t)one->m * row))
            bad = "other centroids than one process";
        else if (labels && memcmp(T->out[r].lab, one->lab, (size_t)one->m * sizeof *one->lab))
            bad = "other centroid labels than one process";
        else if (!(den > 0) || !(sqrt(num / den) <= bound))
            bad = "readout weights outside the bound";
        else if (memcmp(T->out[r].R, T2->out[r].R, nq * sizeof(double)))
            bad = "other bytes when run again";
        else if (memcmp(T->out[r].R, T->out[0].R, nq * sizeof(double)))
            bad = "another model than rank 0";
        if (bad) {
            snprintf(msg, len, "K = %d rank %d: %s (relative difference %g, bound %g)", K, r,
                     bad, den > 0 ? sqrt(num / den) : 0, bound);
            return -1;
        }
    }
    return 0;
}
