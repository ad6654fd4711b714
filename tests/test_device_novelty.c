/* test_device_novelty.c - the novelty pass on the device's novelty session
 * (bnl.h bnl_novelty_*, issue 10), run on the host-emulated device of
 * tests/util/emu_device.c (a context opened on it with bnl_ctx_open_device):
 *   - fsvc_novelty_batched on an emulated "cuda" context selects exactly
 *     the centroids of the CPU backend's batched pass and of the plain
 *     sequential loop (sel arrays equal): u8 and f32, L1 and L2,
 *     triangular and Gaussian, global and per class (the pass inside each
 *     class, as fsvc/train.c runs it), a max-neurons cap, device tiles of
 *     48 / 112 and 7 / 23 samples (chunks never a multiple: edge tiles);
 *   - it runs on the session only (no actsum call), every centroid goes
 *     up once (add), and a chunk's sums upload its rows and S only: the
 *     same bytes per row at 1 centroid and at hundreds;
 *   - a device with little memory grows the store by doubling; a store
 *     that cannot grow: the pass goes on with bnl_actsum, same centroids;
 *   - a device without the session (NULL entries): today's path, the
 *     same centroids;
 *   - fsvc_novelty_batched over forked ranks, each with its own session. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fsvc/internal.h"
#include "fsvc/comm.h"
#include "cuda/kernels_hd.h"
#include "tests/util/emu_device.h"
#include "tests/util/forkteam.h"

#define N_ 1500
#define n_ 21
#define K_ 3

static uint8_t X8[N_ * n_];
static float Xf[N_ * n_];
static int Cls[N_];

/* K_ noisy clusters, u8 and the same values / 255 in f32 */
static void make_set(void)
{
    uint64_t st = 7;
    for (int i = 0; i < N_; i++) {
        Cls[i] = (int)(fsvc_rng_next(&st) % K_);
        for (int j = 0; j < n_; j++) {
            int v = 50 * ((Cls[i] * 3 + j) % 4) + (int)(fsvc_rng_next(&st) % 100);
            X8[i * n_ + j] = (uint8_t)v;
            Xf[i * n_ + j] = (float)v / 255.0f;
        }
    }
}

typedef struct {
    fsvc_dtype t;
    bnl_dist dist;
    bnl_act act;
    double r, prag;
    int64_t max_m;
    int per_class;
} ncase;

static bnl_op op_of(const ncase *c)
{
    bnl_op op = {.dist = c->dist, .act = c->act, .dtype = c->t, .radius = c->r};
    return op;
}

static const void *X_of(fsvc_dtype t) { return t == FSVC_U8 ? (const void *)X8 : (const void *)Xf; }

/* The pass (global, or class after class as fsvc/train.c) with fn on
 * ctx (NULL: the sequential loop); sel: N_. Returns the count. */
static int64_t select_all(const ncase *c, const bnl_ctx *ctx, int64_t *sel)
{
    bnl_op op = op_of(c);
    fsvc_error err;
    fsvc_error_clear(&err);
    int64_t m = 0, order[N_];
    for (int k = 0; k < (c->per_class ? K_ : 1); k++) {
        int64_t cnt = 0, mk = 0, left = c->max_m > 0 ? c->max_m - m : 0;
        if (c->max_m > 0 && left <= 0)
            break;
        for (int64_t i = 0; i < N_; i++)
            if (!c->per_class || Cls[i] == k) order[cnt++] = i;
        fsvc_select_problem pb = {.ctx = ctx, .op = &op, .X = X_of(c->t), .order = order,
                                  .N = cnt, .n = n_};
        fsvc_select_opt so = {.prag = c->prag, .max_m = left};
        int rc = ctx ? fsvc_novelty_batched(sel + m, &mk, NULL, &pb, &so, &err)
                     : fsvc_novelty_seq(sel + m, &mk, &pb, &so, &err);
        if (rc) fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, 0);
        m += mk;
    }
    return m;
}

static int64_t row_words(fsvc_dtype t) { return bnlc_ldk(n_, t == FSVC_U8 ? 1 : 4); }

/* One case on the emulated device (tiles Nt / Xc, memory mem) against the
 * CPU backend and the sequential loop; the transfer checks. */
static void run_case(const ncase *c, int64_t Nt, int64_t Xc, int64_t mem, int want_grow)
{
    static int64_t ref[N_], cpu[N_], dev[N_];
    int64_t mr = select_all(c, NULL, ref);
    bnl_ctx cc, dc;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&cc, "cpu", 2, 1, &err), 0);
    int64_t mc = select_all(c, &cc, cpu);
    bnl_ctx_close(&cc);

    emu_device_reset(mem, Nt, Xc);
    assert_int_equal(bnl_ctx_open_device(&dc, emu_device_ops(), 1, 1, &err), 0);
    assert_int_equal(dc.backend, BNL_CUDA);
    int64_t md = select_all(c, &dc, dev);
    bnl_ctx_close(&dc);
    emu_stats st = emu_device_stats();
    emu_nov_stats ns = emu_novelty_stats();

    /* a case worth testing: many centroids, not all samples */
    assert_true(mr >= 40 && mr < N_ / 2);
    if (c->max_m > 0) assert_int_equal(mr, c->max_m);
    assert_int_equal(mc, mr);
    assert_int_equal(md, mr);
    assert_memory_equal(cpu, ref, (size_t)mr * sizeof *ref);
    assert_memory_equal(dev, ref, (size_t)mr * sizeof *ref);

    /* the session only; each centroid up once; per chunk row: its packed
     * row and its S, whatever the number of centroids */
    int64_t lw = row_words(c->t);
    assert_int_equal(st.actsum, 0);
    if (c->per_class && c->max_m > 0) assert_true(ns.opens >= 1 && ns.opens <= K_);
    else assert_int_equal(ns.opens, c->per_class ? K_ : 1);
    assert_true(ns.sums >= (c->max_m > 0 ? 1 : 10));
    assert_int_equal(ns.add_up, md * lw * 4);
    assert_int_equal(ns.sums_up_row, lw * 4 + 8);
    assert_int_equal(st.up, ns.add_up + ns.sums_up);
    if (want_grow) assert_true(ns.grows > 0);
    else assert_int_equal(ns.grows, 0);
}

static void t_u8_l1(void **s)
{
    (void)s;
    ncase c = {FSVC_U8, BNL_L1, BNL_TRI, 250, 0.5, 0, 0};
    run_case(&c, 48, 112, 0, 0);
    run_case(&c, 7, 23, 0, 0);
}

static void t_u8_l2(void **s)
{
    (void)s;
    ncase c = {FSVC_U8, BNL_L2, BNL_GAUSS, 60, 0.5, 0, 0};
    run_case(&c, 48, 112, 0, 0);
    run_case(&c, 7, 23, 0, 0);
}

static void t_f32_l1(void **s)
{
    (void)s;
    ncase c = {FSVC_F32, BNL_L1, BNL_TRI, 250 / 255.0, 0.5, 0, 0};
    run_case(&c, 48, 112, 0, 0);
    run_case(&c, 7, 23, 0, 0);
}

static void t_f32_l2(void **s)
{
    (void)s;
    ncase c = {FSVC_F32, BNL_L2, BNL_GAUSS, 60 / 255.0, 0.5, 0, 0};
    run_case(&c, 48, 112, 0, 0);
    run_case(&c, 7, 23, 0, 0);
}

static void t_per_class(void **s)
{
    (void)s;
    ncase a = {FSVC_U8, BNL_L1, BNL_TRI, 250, 0.5, 0, 1};
    run_case(&a, 48, 112, 0, 0);
    ncase b = {FSVC_F32, BNL_L2, BNL_GAUSS, 60 / 255.0, 0.5, 0, 1};
    run_case(&b, 7, 23, 0, 0);
}

static void t_cap(void **s)
{
    (void)s;
    ncase a = {FSVC_U8, BNL_L1, BNL_TRI, 250, 0.5, 77, 0};
    run_case(&a, 48, 112, 0, 0);
    ncase b = {FSVC_F32, BNL_L1, BNL_TRI, 250 / 255.0, 0.5, 77, 1};
    run_case(&b, 7, 23, 0, 0);
}

/* room for 50 centroids at open (half the memory), the store doubles to
 * 100 to hold the 90 of the cap */
static void t_grow(void **s)
{
    (void)s;
    ncase c = {FSVC_U8, BNL_L1, BNL_TRI, 250, 0.5, 90, 0};
    run_case(&c, 48, 112, 100 * (row_words(FSVC_U8) * 4 + 4), 1);
}

/* a store that cannot grow past 100 centroids: the pass goes on with
 * bnl_actsum per chunk (the former path), the same centroids */
static void t_full(void **s)
{
    (void)s;
    static int64_t ref[N_], dev[N_];
    ncase c = {FSVC_U8, BNL_L1, BNL_TRI, 250, 0.5, 0, 0};
    int64_t mr = select_all(&c, NULL, ref);
    emu_device_reset(100 * (row_words(FSVC_U8) * 4 + 4), 48, 112);
    bnl_ctx dc;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open_device(&dc, emu_device_ops(), 1, 1, &err), 0);
    int64_t md = select_all(&c, &dc, dev);
    bnl_ctx_close(&dc);
    assert_true(mr > 100);
    assert_int_equal(md, mr);
    assert_memory_equal(dev, ref, (size_t)mr * sizeof *ref);
    assert_int_equal(emu_novelty_stats().grows, 1);
    assert_true(emu_novelty_stats().sums > 0);
    assert_true(emu_device_stats().actsum > 0);
}

/* the session not offered: bnl_actsum per chunk (the former path) */
static void t_not_offered(void **s)
{
    (void)s;
    static int64_t ref[N_], dev[N_];
    ncase c = {FSVC_F32, BNL_L2, BNL_GAUSS, 60 / 255.0, 0.5, 0, 0};
    int64_t mr = select_all(&c, NULL, ref);
    bnl_backend_ops o = *emu_device_ops();
    o.nov_open = NULL;
    emu_device_reset(0, 48, 112);
    bnl_ctx dc;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open_device(&dc, &o, 1, 1, &err), 0);
    int64_t md = select_all(&c, &dc, dev);
    bnl_ctx_close(&dc);
    assert_int_equal(md, mr);
    assert_memory_equal(dev, ref, (size_t)mr * sizeof *ref);
    assert_true(emu_device_stats().actsum > 0);
    assert_int_equal(emu_novelty_stats().opens, 0);
}

/* ---- across forked ranks (fsvc_novelty_batched), a session per rank ---- */
#define MAXK FT_MAXK
typedef struct {
    ft_comm c;
    struct { int rc, opens; int64_t m; int64_t sel[N_]; } out[MAXK];
} team;

static void team_rank(int r, void *arg)
{
    team *T = arg;
    ft_member me = {&T->c, r};
    fsvc_comm comm = ft_fsvc_comm(&me);
    int K = T->c.K;
    int64_t lo = (int64_t)N_ * r / K, hi = (int64_t)N_ * (r + 1) / K;
    fsvc_error err;
    bnl_op op = {.dist = BNL_L1, .act = BNL_TRI, .dtype = FSVC_U8, .radius = 250};
    bnl_ctx ctx;
    emu_device_reset(0, 48, 112);
    if ((T->out[r].rc = bnl_ctx_open_device(&ctx, emu_device_ops(), 1, 1, &err)))
        return; /* no cmocka assertions in a child: the parent checks rc */
    fsvc_select_problem pb = {.ctx = &ctx, .op = &op, .X = X8 + lo * n_, .N = N_, .n = n_,
                              .at = {lo, hi - lo, &comm}};
    fsvc_select_opt so = {.prag = 0.5};
    T->out[r].rc = fsvc_novelty_batched(T->out[r].sel, &T->out[r].m, NULL, &pb, &so, &err);
    bnl_ctx_close(&ctx);
    T->out[r].opens = emu_novelty_stats().opens;
}

static void t_dist(void **s)
{
    (void)s;
    static int64_t ref[N_];
    ncase c = {FSVC_U8, BNL_L1, BNL_TRI, 250, 0.5, 0, 0};
    int64_t mr = select_all(&c, NULL, ref);
    for (int K = 2; K <= 3; K++) {
        team *T = ft_shared(sizeof *T);
        assert_non_null(T);
        assert_int_equal(ft_comm_init(&T->c, K), 0);
        assert_int_equal(ft_run(K, 60, team_rank, T), 0);
        for (int r = 0; r < K; r++) {
            assert_int_equal(T->out[r].rc, 0);
            assert_int_equal(T->out[r].opens, 1);
            assert_int_equal(T->out[r].m, mr);
            assert_memory_equal(T->out[r].sel, ref, (size_t)mr * sizeof *ref);
        }
        munmap(T, sizeof *T);
    }
}

int main(void)
{
    make_set();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_u8_l1),
        cmocka_unit_test(t_u8_l2),
        cmocka_unit_test(t_f32_l1),
        cmocka_unit_test(t_f32_l2),
        cmocka_unit_test(t_per_class),
        cmocka_unit_test(t_cap),
        cmocka_unit_test(t_grow),
        cmocka_unit_test(t_full),
        cmocka_unit_test(t_not_offered),
        cmocka_unit_test(t_dist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
