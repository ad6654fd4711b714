/* test_device_pipeline.c - fsvc_train and fsvc_predict on --backend cuda
 * run whole on the host-emulated device of tests/util/emu_device.c
 * (fsvc_param.device: what a "cuda" context opens), against the CPU backend:
 *   - direct and pcg on the device give the CPU backend's model: the same
 *     centroids, readout weights within WTOL of the largest weight (the
 *     device's products are float64 sums of the float H, the CPU's float
 *     sums per chunk, and pcg stops at --cg-tol 1e-10), the same
 *     predictions on the training set; u8 and f32, L1 and L2, K = 1
 *     (regression), 2, 3, 5, m not a multiple of the tile sizes;
 *   - pcg on the device uses the device's block products (rhs and apply
 *     calls), with class weights and with --augment;
 *   - nothing of size N x m comes back: H is downloaded only as K_mm
 *     (m x m, pcg's preconditioner), every other download is m K, m, or
 *     N K (scores) sized;
 *   - predict on the emulated device equals the CPU's;
 *   - auto picks pcg on a device whose memory does not hold the float64
 *     Gram, direct when it does;
 *   - a device without the block products (NULL entry points): the CPU's;
 *   - pcg across forked ranks (fsvc_hsrc_sum over the device source);
 *   - direct with class weights on the device (each sample's H column and
 *     target row scaled by sqrt(w)), in one process and across forked
 *     ranks (G fetched once per rank and summed on the host). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fsvc/internal.h"
#include "fsvc/solver.h"
#include "fsvc/comm.h"
#include "tests/util/emu_device.h"
#include "tests/util/forkteam.h"

#define N_ 600
#define ROWS 4
#define COLS 5
#define n_ (ROWS * COLS)
/* Weights: against the CPU's direct solve within WTOL of the largest
 * weight (measured: u8 1e-8, f32 1e-5); with --augment against the CPU's
 * pcg, whose products are float sums per chunk (CPU pcg vs CPU direct
 * measured 4e-4 here, the augmented case 5e-5), within WTOL_CPU_PCG.
 * Scores of one model, device vs CPU: u8 H is the same bits, f32 L2 takes
 * the GEMM path (|x|^2 + |w|^2 - 2 x.w in float, 1.3e-6 measured). */
#define WTOL 1e-4
#define WTOL_CPU_PCG 2e-3
#define STOL_U8 1e-9
#define STOL_F32 1e-5

static uint8_t X8[N_ * n_];
static float Xf[N_ * n_];
static double Yv[N_], CV[8];
static int Cls[N_];

/* N_ samples of K noisy clusters, u8 or f32 (the same values / 255). */
static fsvc_dataset make_set(fsvc_dtype t, int K, uint64_t seed)
{
    uint64_t st = seed;
    for (int k = 0; k < K; k++) CV[k] = k + 1;
    for (int i = 0; i < N_; i++) {
        Cls[i] = (int)(fsvc_rng_next(&st) % (uint64_t)K);
        Yv[i] = CV[Cls[i]];
        for (int j = 0; j < n_; j++) {
            int v = 40 * ((Cls[i] * 7 + j) % 5) + (int)(fsvc_rng_next(&st) % 80);
            X8[i * n_ + j] = (uint8_t)v;
            Xf[i * n_ + j] = (float)v / 255.0f;
        }
    }
    fsvc_dataset D;
    memset(&D, 0, sizeof D);
    D.N = N_; D.n = n_; D.dtype = t; D.x = t == FSVC_U8 ? (void *)X8 : (void *)Xf;
    D.has_labels = 1; D.y = Yv; D.cls = Cls; D.K = K; D.class_values = CV;
    D.rows = ROWS; D.cols = COLS;
    strcpy(D.source, "test");
    return D;
}

static void base_param(fsvc_param *p, fsvc_dtype t, int dist, fsvc_solver s, int64_t m)
{
    fsvc_param_default(p);
    p->select = FSVC_SELECT_RANDOM;
    p->max_neurons = m;
    p->readout = FSVC_READOUT_RIDGE;
    p->dist = dist;
    p->act = BNL_GAUSS;
    p->radius = t == FSVC_U8 ? (dist == BNL_L1 ? 900.0 : 150.0) : (dist == BNL_L1 ? 3.5 : 0.6);
    p->lambda = 1e-2;
    p->dtype = t;
    p->threads = 1;
    p->solver = s;
    p->cg_tol = 1e-10;
    p->preprocess = FSVC_PRE_NONE;
}

static int train(fsvc_model *M, fsvc_train_info *info, const fsvc_dataset *D,
                 const fsvc_param *p0, const char *backend, fsvc_error *err)
{
    fsvc_param p = *p0;
    p.backend = backend;
    p.device = emu_device_ops(); /* what "cuda" opens */
    return fsvc_train(M, info, D, &p, err);
}

static void predict(int *pred, double *score, const fsvc_model *M, const fsvc_dataset *D,
                    const char *backend)
{
    fsvc_error err;
    bnl_ctx ctx;
    int rc = strcmp(backend, "cuda") ? bnl_ctx_open(&ctx, backend, 1, 1, &err)
                                     : bnl_ctx_open_device(&ctx, emu_device_ops(), 1, 1, &err);
    if (!rc) rc = fsvc_predict_ctx(pred, score, M, D, &ctx, 1, &err);
    bnl_ctx_close(&ctx);
    if (rc) fail_msg("predict (%s): %s", backend, err.msg);
}

/* The device's model against the CPU's: centroids, weights, predictions;
 * then the device's predictions against the CPU's on the same model. */
static void same_model(const fsvc_model *Mc, const fsvc_model *Md, const fsvc_dataset *D,
                       double wtol, const char *what)
{
    assert_int_equal(Mc->m, Md->m);
    assert_int_equal(Mc->Kout, Md->Kout);
    assert_memory_equal(Mc->C, Md->C, (size_t)Mc->m * Mc->n * fsvc_dtype_size(Mc->dtype));
    size_t mk = (size_t)Mc->m * Mc->Kout;
    double rmax = 0, dmax = 0;
    for (size_t q = 0; q < mk; q++) rmax = fmax(rmax, fabs(Mc->R[q]));
    for (size_t q = 0; q < mk; q++) dmax = fmax(dmax, fabs(Mc->R[q] - Md->R[q]));
    if (getenv("EMU_DEBUG")) print_message("%s: weights differ by %.3g\n", what, dmax / rmax);
    if (!(dmax <= wtol * rmax))
        fail_msg("%s: weights differ by %.3g of the largest (%.3g), more than %g", what,
                 dmax / rmax, rmax, wtol);
    int *pc = malloc(D->N * sizeof *pc), *pd = malloc(D->N * sizeof *pd), *pe = malloc(D->N * sizeof *pe);
    double *sc = malloc((size_t)D->N * Mc->Kout * sizeof *sc);
    double *se = malloc((size_t)D->N * Mc->Kout * sizeof *se);
    assert_non_null(pc); assert_non_null(pd); assert_non_null(pe);
    assert_non_null(sc); assert_non_null(se);
    predict(pc, NULL, Mc, D, "cpu");
    predict(pd, sc, Md, D, "cpu");
    emu_device_reset(0, 0, 0);
    predict(pe, se, Md, D, "cuda");
    emu_stats st = emu_device_stats();
    assert_true(st.scores >= 1);               /* the scores ran on the device */
    assert_int_equal(st.forward_down, 0);      /* and H stayed there */
    if (!Mc->regression) {
        assert_memory_equal(pc, pd, D->N * sizeof *pc);
        assert_memory_equal(pd, pe, D->N * sizeof *pd);
    }
    double smax = 1e-300;
    for (size_t q = 0; q < (size_t)D->N * Mc->Kout; q++) smax = fmax(smax, fabs(sc[q]));
    for (size_t q = 0; q < (size_t)D->N * Mc->Kout; q++)
        if (!(fabs(sc[q] - se[q]) <= (Mc->dtype == FSVC_U8 ? STOL_U8 : STOL_F32) * smax))
            fail_msg("%s: device score %zu = %.17g, cpu %.17g", what, q, se[q], sc[q]);
    free(pc); free(pd); free(pe); free(sc); free(se);
}

/* The downloads of a device training: H only as K_mm (m x m, once, pcg)
 * or not at all (direct); the products m K each. */
static void small_downloads(const emu_stats *st, int64_t N, int64_t m, int K, fsvc_solver s)
{
    int64_t Nm = N * m * 4; /* H in float */
    if (s == FSVC_SOLVER_PCG) {
        assert_true(st->rhs >= 1);
        assert_true(st->apply >= 1);
        assert_int_equal(st->accum, 0);
        assert_int_equal(st->forward_down, m * m * 4);
    } else {
        assert_int_equal(st->accum, 1);
        assert_int_equal(st->fetch, 0); /* one process: G stays on the device */
        assert_int_equal(st->rhs + st->apply, 0);
        assert_int_equal(st->forward_down, 0);
    }
    /* every download is O(m K + m + N K): actsum N, scores N K, products m K */
    int64_t big = 8 * (m * K + m + N * K) + 8;
    if (st->max_down > (m * m * 4 > big ? m * m * 4 : big) || st->max_down >= Nm)
        fail_msg("a download of %lld bytes (N m = %lld)", (long long)st->max_down, (long long)Nm);
    int64_t other = st->down - st->forward_down;
    int64_t bound = (st->rhs + st->apply) * (8 * m * K + 8) + st->accum * 8 * (m + m * K) +
                    st->solve * (8 * m * K + 4) + st->actsum * 8 * N + st->scores * 8 * N * K;
    if (other > bound)
        fail_msg("downloads besides H: %lld bytes, more than the products' %lld",
                 (long long)other, (long long)bound);
}

/* One configuration: CPU direct (the reference), the device with s, the
 * models compared. */
static void check(fsvc_dtype t, int dist, int K, int regr, fsvc_solver s, int64_t m,
                  const char *weights, fsvc_augment aug)
{
    char what[160];
    snprintf(what, sizeof what, "%s %s K %d%s %s m %lld%s%s", fsvc_dtype_name(t),
             dist == BNL_L1 ? "L1" : "L2", K, regr ? " regression" : "", fsvc_solver_name(s),
             (long long)m, weights ? " weights " : "", weights ? weights : "");
    fsvc_dataset D = make_set(t, K, (uint64_t)(K * 131 + m + t));
    fsvc_param p;
    base_param(&p, t, dist, s, m);
    p.regression = regr;
    p.augment = aug;
    if (aug != FSVC_AUG_NONE) D.N = N_ / 3; /* 5 N virtual samples: a third of the set */
    if (weights) snprintf(p.class_weight, sizeof p.class_weight, "%s", weights);
    fsvc_model Mc, Md;
    fsvc_train_info ic, id;
    fsvc_error err;
    fsvc_param pc = p;
    if (aug == FSVC_AUG_NONE) pc.solver = FSVC_SOLVER_DIRECT; /* augment: pcg only */
    if (train(&Mc, &ic, &D, &pc, "cpu", &err)) fail_msg("%s: cpu: %s", what, err.msg);
    emu_device_reset(0, 0, 0);
    if (train(&Md, &id, &D, &p, "cuda", &err)) fail_msg("%s: device: %s", what, err.msg);
    emu_stats st = emu_device_stats();
    assert_int_equal(id.solver, s);
    small_downloads(&st, D.N, Md.m, Md.Kout, s);
    same_model(&Mc, &Md, &D, aug == FSVC_AUG_NONE ? WTOL : WTOL_CPU_PCG, what);
    fsvc_free_model(&Mc);
    fsvc_free_model(&Md);
}

static void test_u8_direct_and_pcg(void **s)
{
    (void)s;
    check(FSVC_U8, BNL_L1, 3, 0, FSVC_SOLVER_DIRECT, 71, NULL, FSVC_AUG_NONE);
    check(FSVC_U8, BNL_L1, 3, 0, FSVC_SOLVER_PCG, 71, NULL, FSVC_AUG_NONE);
    check(FSVC_U8, BNL_L2, 5, 0, FSVC_SOLVER_PCG, 133, NULL, FSVC_AUG_NONE);
    check(FSVC_U8, BNL_L1, 2, 1, FSVC_SOLVER_PCG, 50, NULL, FSVC_AUG_NONE); /* K = 1 */
}

static void test_f32_direct_and_pcg(void **s)
{
    (void)s;
    check(FSVC_F32, BNL_L1, 3, 0, FSVC_SOLVER_DIRECT, 61, NULL, FSVC_AUG_NONE);
    check(FSVC_F32, BNL_L1, 3, 0, FSVC_SOLVER_PCG, 61, NULL, FSVC_AUG_NONE);
    check(FSVC_F32, BNL_L2, 2, 0, FSVC_SOLVER_PCG, 97, NULL, FSVC_AUG_NONE); /* GEMM path */
}

/* -s kmeans++ on the device: the D^2 distances by the device's
 * min-distance session (X resident, identity activation; the session's
 * own checks: tests/test_device_kmeans.c); u8 distances are exact on both,
 * so the device selects the CPU's centroids and the models agree. */
static void test_kmeans_on_device(void **s)
{
    (void)s;
    for (int dist = BNL_L1; dist <= BNL_L2; dist++) {
        fsvc_dataset D = make_set(FSVC_U8, 3, 77 + dist);
        fsvc_param p;
        base_param(&p, FSVC_U8, dist, FSVC_SOLVER_DIRECT, 90);
        p.select = FSVC_SELECT_KMEANS;
        p.seed = 9;
        fsvc_model Mc, Md;
        fsvc_error err;
        if (train(&Mc, NULL, &D, &p, "cpu", &err)) fail_msg("kmeans++ cpu: %s", err.msg);
        emu_device_reset(0, 0, 0);
        if (train(&Md, NULL, &D, &p, "cuda", &err)) fail_msg("kmeans++ device: %s", err.msg);
        emu_mind_stats ms = emu_mind_stats_get();
        assert_int_equal(ms.opens, 1); /* every round's distances on the device */
        assert_true(ms.updates >= 10);
        assert_int_equal(Md.select, FSVC_SELECT_KMEANS);
        same_model(&Mc, &Md, &D, WTOL, dist == BNL_L1 ? "kmeans++ u8 L1" : "kmeans++ u8 L2");
        fsvc_free_model(&Mc);
        fsvc_free_model(&Md);
    }
}

/* Class weights: the device groups the samples by class. */
static void test_pcg_class_weights(void **s)
{
    (void)s;
    check(FSVC_U8, BNL_L1, 3, 0, FSVC_SOLVER_PCG, 71, "balanced", FSVC_AUG_NONE);
    check(FSVC_F32, BNL_L1, 3, 0, FSVC_SOLVER_PCG, 45, "1:3,3:0.5", FSVC_AUG_NONE);
}

/* Class weights in the direct solve: the device scales each sample's H
 * column and target row by sqrt(w) per tile (H^T D H, H^T D T), one
 * accumulation, nothing N x m back; the CPU's weighted model. u8 and f32
 * (tile kernel and GEMM path), m not a multiple of 4, the last chunk and
 * tile partial (N 600, chunks of 112, tiles of 48). */
static void test_direct_class_weights(void **s)
{
    (void)s;
    check(FSVC_U8, BNL_L1, 3, 0, FSVC_SOLVER_DIRECT, 71, "balanced", FSVC_AUG_NONE);
    check(FSVC_U8, BNL_L2, 4, 0, FSVC_SOLVER_DIRECT, 50, "1:3,3:0.5", FSVC_AUG_NONE);
    check(FSVC_F32, BNL_L1, 3, 0, FSVC_SOLVER_DIRECT, 45, "1:3,3:0.5", FSVC_AUG_NONE);
    check(FSVC_F32, BNL_L2, 2, 0, FSVC_SOLVER_DIRECT, 63, "2:4", FSVC_AUG_NONE); /* GEMM */
}

/* Weighted direct on an odd tiling (tiles of 7 samples, chunks of 25: the
 * weights of a chunk indexed from the tile's offset) against the CPU. */
static void test_direct_class_weights_odd_tiles(void **s)
{
    (void)s;
    fsvc_dataset D = make_set(FSVC_F32, 3, 31);
    fsvc_param p;
    base_param(&p, FSVC_F32, BNL_L2, FSVC_SOLVER_DIRECT, 37);
    snprintf(p.class_weight, sizeof p.class_weight, "%s", "1:0.25,2:2");
    fsvc_model Mc, Md;
    fsvc_error err;
    if (train(&Mc, NULL, &D, &p, "cpu", &err)) fail_msg("cpu: %s", err.msg);
    emu_device_reset(0, 7, 25);
    if (train(&Md, NULL, &D, &p, "cuda", &err)) fail_msg("device: %s", err.msg);
    emu_stats st = emu_device_stats();
    small_downloads(&st, D.N, Md.m, Md.Kout, FSVC_SOLVER_DIRECT);
    same_model(&Mc, &Md, &D, WTOL, "f32 L2 weights, tiles of 7, chunks of 25");
    fsvc_free_model(&Mc);
    fsvc_free_model(&Md);
}

/* The weights matter: the device's weighted direct model differs from its
 * unweighted one by more than the tolerance the comparisons allow. */
static void test_direct_weights_change_model(void **s)
{
    (void)s;
    fsvc_dataset D = make_set(FSVC_U8, 3, 17);
    fsvc_param p;
    base_param(&p, FSVC_U8, BNL_L1, FSVC_SOLVER_DIRECT, 60);
    fsvc_model Mu, Mw;
    fsvc_error err;
    if (train(&Mu, NULL, &D, &p, "cuda", &err)) fail_msg("unweighted: %s", err.msg);
    snprintf(p.class_weight, sizeof p.class_weight, "%s", "1:5");
    emu_device_reset(0, 0, 0);
    if (train(&Mw, NULL, &D, &p, "cuda", &err)) fail_msg("weighted: %s", err.msg);
    emu_stats st = emu_device_stats();
    assert_int_equal(st.accum, 1);
    assert_int_equal(st.forward_down, 0);
    assert_int_equal(Mu.m, Mw.m);
    double rmax = 0, dmax = 0;
    for (int64_t q = 0; q < Mu.m * Mu.Kout; q++) rmax = fmax(rmax, fabs(Mu.R[q]));
    for (int64_t q = 0; q < Mu.m * Mu.Kout; q++) dmax = fmax(dmax, fabs(Mu.R[q] - Mw.R[q]));
    assert_true(dmax > 100 * WTOL * rmax);
    fsvc_free_model(&Mu);
    fsvc_free_model(&Mw);
}

/* --augment: virtual samples made per chunk on the host, uploaded. */
static void test_pcg_augment(void **s)
{
    (void)s;
    check(FSVC_U8, BNL_L1, 3, 0, FSVC_SOLVER_PCG, 59, NULL, FSVC_AUG_SHIFT1);
}

/* pcg matches direct on the device itself. */
static void test_pcg_matches_direct_on_device(void **s)
{
    (void)s;
    fsvc_dataset D = make_set(FSVC_F32, 4, 99);
    fsvc_param p;
    base_param(&p, FSVC_F32, BNL_L2, FSVC_SOLVER_DIRECT, 83);
    fsvc_model Md, Mp;
    fsvc_error err;
    if (train(&Md, NULL, &D, &p, "cuda", &err)) fail_msg("direct: %s", err.msg);
    p.solver = FSVC_SOLVER_PCG;
    if (train(&Mp, NULL, &D, &p, "cuda", &err)) fail_msg("pcg: %s", err.msg);
    same_model(&Md, &Mp, &D, WTOL, "device direct vs pcg");
    fsvc_free_model(&Md);
    fsvc_free_model(&Mp);
}

/* auto: direct while the float64 Gram fits the device, else pcg. */
static void test_auto_by_device_memory(void **s)
{
    (void)s;
    fsvc_dataset D = make_set(FSVC_U8, 3, 5);
    fsvc_param p;
    int64_t m = 90;
    base_param(&p, FSVC_U8, BNL_L1, FSVC_SOLVER_AUTO, m);
    fsvc_model M;
    fsvc_train_info info;
    fsvc_error err;
    emu_device_reset((int64_t)1 << 30, 0, 0);             /* 1 GiB: fits */
    p.backend = "cuda";
    p.device = emu_device_ops();
    int rc = fsvc_train(&M, &info, &D, &p, &err);
    if (rc) fail_msg("auto, big device: %s", err.msg);
    assert_int_equal(info.solver, FSVC_SOLVER_DIRECT);
    assert_int_equal(info.solver_rule, FSVC_AUTO_DEVICE_MEM);
    emu_stats st = emu_device_stats();
    assert_int_equal(st.accum, 1);
    fsvc_free_model(&M);

    emu_device_reset(8 * m * m, 0, 0);                     /* under 2 x 8 m^2 / 0.9 */
    rc = fsvc_train(&M, &info, &D, &p, &err);
    if (rc) fail_msg("auto, small device: %s", err.msg);
    assert_int_equal(info.solver, FSVC_SOLVER_PCG);
    assert_int_equal(info.solver_rule, FSVC_AUTO_DEVICE_MEM);
    st = emu_device_stats();
    assert_int_equal(st.accum, 0);
    assert_true(st.apply >= 1);
    small_downloads(&st, D.N, M.m, M.Kout, FSVC_SOLVER_PCG);
    fsvc_free_model(&M);
}

/* auto with class weights: direct on the device too, when its Gram fits. */
static void test_auto_direct_with_weights(void **s)
{
    (void)s;
    fsvc_dataset D = make_set(FSVC_F32, 3, 7);
    fsvc_param p;
    base_param(&p, FSVC_F32, BNL_L1, FSVC_SOLVER_AUTO, 40);
    snprintf(p.class_weight, sizeof p.class_weight, "%s", "balanced");
    fsvc_model M;
    fsvc_train_info info;
    fsvc_error err;
    emu_device_reset((int64_t)1 << 30, 0, 0);
    if (train(&M, &info, &D, &p, "cuda", &err)) fail_msg("%s", err.msg);
    emu_stats st = emu_device_stats();
    assert_int_equal(info.solver, FSVC_SOLVER_DIRECT);
    assert_int_equal(info.solver_rule, FSVC_AUTO_DEVICE_MEM);
    small_downloads(&st, D.N, M.m, M.Kout, FSVC_SOLVER_DIRECT);
    fsvc_free_model(&M);
}

/* A device that offers no block products (a NULL entry point): pcg runs
 * its products on the CPU, the same model. */
static void test_products_not_offered(void **s)
{
    (void)s;
    bnl_backend_ops o = *emu_device_ops();
    o.normal_rhs = NULL;
    o.normal_apply = NULL;
    fsvc_dataset D = make_set(FSVC_U8, 2, 11);
    fsvc_param p;
    base_param(&p, FSVC_U8, BNL_L1, FSVC_SOLVER_PCG, 40);
    p.backend = "cuda";
    fsvc_model M;
    fsvc_error err;
    emu_device_reset(0, 0, 0);
    p.device = &o;
    int rc = fsvc_train(&M, NULL, &D, &p, &err);
    if (rc) fail_msg("%s", err.msg);
    emu_stats st = emu_device_stats();
    assert_int_equal(st.rhs + st.apply, 0);
    assert_true(st.forward_down >= (int64_t)N_ * M.m * 4); /* H came back: the CPU path */
    fsvc_free_model(&M);
}

/* Across processes (fsvc_hsrc_sum over the device source): 2 and 3
 * forked ranks, each on its slice with the emulated device, give the
 * one-process device model, and each rank's products ran on its device. */
#define MAXM 80
typedef struct {
    ft_comm c;
    struct { int rc; int64_t m; double R[MAXM * 3]; emu_stats st; char msg[1024]; } out[FT_MAXK];
} team;
typedef struct { team *T; const fsvc_dataset *D; const fsvc_param *p; } team_job;
static int no_fetch; /* the ranks' device offers no normal_fetch */

static void team_rank(int r, void *arg)
{
    team_job *j = arg;
    team *T = j->T;
    ft_member me = {&T->c, r};
    fsvc_comm comm = ft_fsvc_comm(&me);
    int K = T->c.K;
    int64_t lo = (int64_t)N_ * r / K, hi = (int64_t)N_ * (r + 1) / K;
    fsvc_dataset v = *j->D;
    size_t row = (size_t)v.n * fsvc_dtype_size(v.dtype);
    v.N = hi - lo;
    v.x = (char *)v.x + (size_t)lo * row;
    v.y = v.y + lo;
    v.cls = v.cls + lo;
    fsvc_param p = *j->p;
    p.backend = "cuda";
    fsvc_model M;
    fsvc_error err;
    fsvc_error_clear(&err);
    emu_device_reset(0, 0, 0);
    bnl_backend_ops o = *emu_device_ops();
    if (no_fetch) o.normal_fetch = NULL;
    p.device = &o;
    T->out[r].rc = fsvc_train_comm(&M, NULL, &v, N_, lo, &p, &comm, &err);
    T->out[r].st = emu_device_stats();
    snprintf(T->out[r].msg, sizeof T->out[r].msg, "%s", err.msg);
    if (!T->out[r].rc) {
        T->out[r].m = M.m;
        if (M.m * M.Kout <= MAXM * 3)
            memcpy(T->out[r].R, M.R, (size_t)M.m * M.Kout * sizeof *M.R);
        fsvc_free_model(&M);
    }
}

/* K forked ranks train D with p on their emulated devices; the caller
 * reads T->out and munmaps T. */
static team *run_team(int K, const fsvc_dataset *D, const fsvc_param *p)
{
    team *T = ft_shared(sizeof *T);
    assert_non_null(T);
    assert_int_equal(ft_comm_init(&T->c, K), 0);
    team_job j = {T, D, p};
    assert_int_equal(ft_run(K, 120, team_rank, &j), 0);
    return T;
}

/* rank r's readout is the one-process model's within WTOL x its largest */
static void same_readout(const team *T, int r, int K, const fsvc_model *M1, double rmax)
{
    for (int64_t q = 0; q < M1->m * M1->Kout; q++)
        if (!(fabs(T->out[r].R[q] - M1->R[q]) <= WTOL * rmax))
            fail_msg("rank %d of %d: R[%lld] = %.17g, one process %.17g", r, K,
                     (long long)q, T->out[r].R[q], M1->R[q]);
}

static void test_pcg_across_ranks(void **s)
{
    (void)s;
    fsvc_dataset D = make_set(FSVC_U8, 3, 21);
    fsvc_param p;
    base_param(&p, FSVC_U8, BNL_L1, FSVC_SOLVER_PCG, 67);
    fsvc_model M1;
    fsvc_error err;
    if (train(&M1, NULL, &D, &p, "cuda", &err)) fail_msg("one process: %s", err.msg);
    double rmax = 0;
    for (int64_t q = 0; q < M1.m * M1.Kout; q++) rmax = fmax(rmax, fabs(M1.R[q]));
    for (int K = 2; K <= 3; K++) {
        team *T = run_team(K, &D, &p);
        for (int r = 0; r < K; r++) {
            if (T->out[r].rc) fail_msg("rank %d of %d: %s", r, K, T->out[r].msg);
            assert_int_equal(T->out[r].m, M1.m);
            assert_true(T->out[r].st.rhs >= 1 && T->out[r].st.apply >= 1);
            assert_int_equal(T->out[r].st.forward_down, M1.m * M1.m * 4); /* K_mm only */
            same_readout(T, r, K, &M1, rmax);
        }
        munmap(T, sizeof *T);
    }
    fsvc_free_model(&M1);
}

/* direct across forked ranks: each rank accumulates its slice on its
 * device (with class weights), only G (m x m), diag and H^T T come back,
 * summed on the host, solved there: the one-process device model. */
static void test_direct_across_ranks(void **s)
{
    (void)s;
    fsvc_dataset D = make_set(FSVC_U8, 3, 23);
    fsvc_param p;
    base_param(&p, FSVC_U8, BNL_L1, FSVC_SOLVER_DIRECT, 67);
    snprintf(p.class_weight, sizeof p.class_weight, "%s", "1:3,3:0.5");
    fsvc_model M1;
    fsvc_error err;
    if (train(&M1, NULL, &D, &p, "cuda", &err)) fail_msg("one process: %s", err.msg);
    double rmax = 0;
    for (int64_t q = 0; q < M1.m * M1.Kout; q++) rmax = fmax(rmax, fabs(M1.R[q]));
    for (int K = 2; K <= 3; K++) {
        team *T = run_team(K, &D, &p);
        for (int r = 0; r < K; r++) {
            const emu_stats *st = &T->out[r].st;
            if (T->out[r].rc) fail_msg("rank %d of %d: %s", r, K, T->out[r].msg);
            assert_int_equal(T->out[r].m, M1.m);
            assert_int_equal(st->accum, 1);
            assert_int_equal(st->fetch, 1);
            assert_int_equal(st->solve, 0);           /* the solve ran on the host */
            assert_int_equal(st->rhs + st->apply, 0);
            assert_int_equal(st->forward_down, 0);    /* no H came back */
            assert_true(st->max_down <= M1.m * M1.m * 8);
            same_readout(T, r, K, &M1, rmax);
        }
        munmap(T, sizeof *T);
    }
    fsvc_free_model(&M1);
}

/* A device without the fetch (a NULL entry point): across processes the
 * direct solve takes the CPU's path (H comes back per chunk), same model. */
static void test_direct_across_ranks_no_fetch(void **s)
{
    (void)s;
    fsvc_dataset D = make_set(FSVC_F32, 2, 29);
    fsvc_param p;
    base_param(&p, FSVC_F32, BNL_L1, FSVC_SOLVER_DIRECT, 41);
    fsvc_model M1;
    fsvc_error err;
    if (train(&M1, NULL, &D, &p, "cuda", &err)) fail_msg("one process: %s", err.msg);
    double rmax = 0;
    for (int64_t q = 0; q < M1.m * M1.Kout; q++) rmax = fmax(rmax, fabs(M1.R[q]));
    no_fetch = 1;
    team *T = run_team(2, &D, &p);
    no_fetch = 0;
    for (int r = 0; r < 2; r++) {
        if (T->out[r].rc) fail_msg("rank %d: %s", r, T->out[r].msg);
        assert_int_equal(T->out[r].st.accum, 0);
        assert_true(T->out[r].st.forward_down > 0);
        same_readout(T, r, 2, &M1, rmax);
    }
    munmap(T, sizeof *T);
    fsvc_free_model(&M1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u8_direct_and_pcg),
        cmocka_unit_test(test_f32_direct_and_pcg),
        cmocka_unit_test(test_kmeans_on_device),
        cmocka_unit_test(test_pcg_class_weights),
        cmocka_unit_test(test_direct_class_weights),
        cmocka_unit_test(test_direct_class_weights_odd_tiles),
        cmocka_unit_test(test_direct_weights_change_model),
        cmocka_unit_test(test_pcg_augment),
        cmocka_unit_test(test_pcg_matches_direct_on_device),
        cmocka_unit_test(test_auto_by_device_memory),
        cmocka_unit_test(test_auto_direct_with_weights),
        cmocka_unit_test(test_products_not_offered),
        cmocka_unit_test(test_pcg_across_ranks),
        cmocka_unit_test(test_direct_across_ranks),
        cmocka_unit_test(test_direct_across_ranks_no_fetch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
