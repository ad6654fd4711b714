/* test_device_kmeans.c - k-means++ seeding (fsvc/select_kmeans.c) on the
 * device's min-distance session (bnl.h bnl_mind_*, issue 10), run on the
 * host-emulated device of tests/util/emu_device.c:
 *   - on an emulated "cuda" context it selects exactly the CPU backend's
 *     centroids: u8 and f32, L1 and L2, device tiles of 48 / 112 and
 *     7 / 23 samples (edge tiles);
 *   - X goes up once per selection, each update uploads only its centroid
 *     rows and downloads only D2 (N doubles): no forward call, nothing
 *     N x B comes back;
 *   - D2 of the session against the CPU's bnl_forward fold: the same bits
 *     for u8, within the forward's f32 tolerance for f32;
 *   - a device without the session (NULL entries) or whose memory does not
 *     hold X: today's path (forward per block), the same centroids; a CPU
 *     context opens no session, an update without one fails (EUSAGE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/internal.h"
#include "cuda/kernels_hd.h"
#include "tests/util/emu_device.h"

#define N_ 653 /* a prime: every device tile size leaves an edge tile */
#define n_ 19
#define M_ 120

static uint8_t X8[N_ * n_];
static float Xf[N_ * n_];

/* noisy clusters, u8 and the same values / 255 in f32 */
static void make_set(void)
{
    uint64_t st = 11;
    for (int i = 0; i < N_; i++) {
        int c = (int)(fsvc_rng_next(&st) % 5);
        for (int j = 0; j < n_; j++) {
            int v = 40 * ((c * 3 + j) % 5) + (int)(fsvc_rng_next(&st) % 90);
            X8[i * n_ + j] = (uint8_t)v;
            Xf[i * n_ + j] = (float)v / 255.0f;
        }
    }
}

static const void *X_of(fsvc_dtype t) { return t == FSVC_U8 ? (const void *)X8 : (const void *)Xf; }

static bnl_op op_of(fsvc_dtype t, bnl_dist d)
{
    bnl_op op = {.dist = d, .act = BNL_TRI, .dtype = t, .radius = 1.0};
    return op;
}

static void select_on(int64_t *sel, const char *backend, const bnl_backend_ops *ops,
                      fsvc_dtype t, bnl_dist d)
{
    bnl_ctx ctx;
    fsvc_error err;
    fsvc_error_clear(&err);
    assert_int_equal(ops ? bnl_ctx_open_device(&ctx, ops, 1, 1, &err)
                         : bnl_ctx_open(&ctx, backend, 1, 1, &err), 0);
    bnl_op op = op_of(t, d);
    fsvc_select_problem pb = {.ctx = &ctx, .op = &op, .X = X_of(t), .N = N_, .n = n_};
    fsvc_select_opt o = {.seed = 5};
    int rc = fsvc_select_kmeans(sel, M_, NULL, &pb, &o, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    bnl_ctx_close(&ctx);
}

static int64_t row_bytes(fsvc_dtype t) { return bnlc_ldk(n_, t == FSVC_U8 ? 1 : 4) * 4; }

static void same_selection(fsvc_dtype t, bnl_dist d, int64_t Nt, int64_t Xc)
{
    static int64_t cpu[M_], dev[M_];
    select_on(cpu, "cpu", NULL, t, d);
    emu_device_reset(0, Nt, Xc);
    select_on(dev, "cuda", emu_device_ops(), t, d);
    emu_stats st = emu_device_stats();
    emu_mind_stats ms = emu_mind_stats_get();
    assert_memory_equal(dev, cpu, sizeof cpu);
    int64_t rb = row_bytes(t);
    assert_int_equal(st.forward, 0);
    assert_int_equal(ms.opens, 1);
    assert_true(ms.updates >= 10);
    assert_int_equal(ms.x_up, (int64_t)N_ * rb);  /* X once */
    assert_int_equal(ms.c_up % rb, 0);            /* centroid rows only */
    assert_true(ms.c_up >= (int64_t)ms.updates * rb && ms.c_up < (int64_t)M_ * rb);
    assert_true(ms.max_update_up <= (M_ / 8 + 1) * rb);
    assert_int_equal(ms.d2_down, (int64_t)ms.updates * N_ * 8);
    assert_int_equal(st.up, ms.x_up + ms.c_up);
    assert_int_equal(st.down, ms.d2_down);
    assert_int_equal(st.max_down, (int64_t)N_ * 8); /* never N x B */
}

static void test_u8_same_centroids(void **s)
{
    (void)s;
    for (int d = BNL_L1; d <= BNL_L2; d++) {
        same_selection(FSVC_U8, d, 48, 112);
        same_selection(FSVC_U8, d, 7, 23);
    }
}

static void test_f32_same_centroids(void **s)
{
    (void)s;
    for (int d = BNL_L1; d <= BNL_L2; d++) {
        same_selection(FSVC_F32, d, 48, 112);
        same_selection(FSVC_F32, d, 7, 23);
    }
}

/* D2 after two updates (3 then 5 centroids) against the CPU fold of
 * bnl_forward's distances, squared in double. */
static void d2_case(fsvc_dtype t, bnl_dist d, double tol)
{
    static const int64_t cs[8] = {3, 500, 77, 5, 640, 652, 12, 400};
    size_t es = t == FSVC_U8 ? 1 : 4;
    char C[8 * n_ * 4];
    for (int j = 0; j < 8; j++)
        memcpy(C + j * n_ * es, (const char *)X_of(t) + cs[j] * n_ * es, n_ * es);
    bnl_op op = op_of(t, d), id = op;
    id.act = BNL_IDENT;
    static double ref[N_], dev[N_];
    static float H[N_ * 8];
    bnl_ctx cc, dc;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&cc, "cpu", 1, 1, &err), 0);
    assert_int_equal(bnl_forward(&cc, &id, H, 8, C, 8, X_of(t), N_, n_, &err), 0);
    bnl_ctx_close(&cc);
    for (int i = 0; i < N_; i++) {
        ref[i] = INFINITY;
        for (int j = 0; j < 8; j++) {
            double v = H[i * 8 + j];
            if (v * v < ref[i]) ref[i] = v * v;
        }
    }
    emu_device_reset(0, 7, 23);
    assert_int_equal(bnl_ctx_open_device(&dc, emu_device_ops(), 1, 1, &err), 0);
    bnl_mind *md = NULL;
    assert_int_equal(bnl_mind_open(&dc, &op, X_of(t), N_, n_, &md, &err), 0);
    assert_non_null(md);
    assert_int_equal(bnl_mind_update(md, C, 3, dev, &err), 0);
    assert_int_equal(bnl_mind_update(md, C + 3 * n_ * es, 5, dev, &err), 0);
    bnl_mind_close(md);
    bnl_ctx_close(&dc);
    if (tol == 0) {
        assert_memory_equal(dev, ref, sizeof ref);
        return;
    }
    for (int i = 0; i < N_; i++)
        if (fabs(dev[i] - ref[i]) > tol * (1 + ref[i]))
            fail_msg("D2[%d]: device %.9g, cpu %.9g", i, dev[i], ref[i]);
}

static void test_d2_against_cpu(void **s)
{
    (void)s;
    d2_case(FSVC_U8, BNL_L1, 0);
    d2_case(FSVC_U8, BNL_L2, 0);
    d2_case(FSVC_F32, BNL_L1, 1e-5);
    d2_case(FSVC_F32, BNL_L2, 1e-5);
}

/* A device without the session, then one whose memory does not hold X:
 * forward per block, the same centroids, no session. */
static void test_fallbacks(void **s)
{
    (void)s;
    static int64_t cpu[M_], dev[M_];
    for (int d = BNL_L1; d <= BNL_L2; d++) {
        select_on(cpu, "cpu", NULL, FSVC_U8, d);
        emu_device_reset(0, 0, 0);
        select_on(dev, "cuda", emu_device_ops_no_mind(), FSVC_U8, d);
        assert_memory_equal(dev, cpu, sizeof cpu);
        assert_true(emu_device_stats().forward >= 10);
        assert_int_equal(emu_mind_stats_get().opens, 0);

        emu_device_reset((int64_t)N_ * row_bytes(FSVC_U8), 0, 0); /* X, not D2 */
        select_on(dev, "cuda", emu_device_ops(), FSVC_U8, d);
        assert_memory_equal(dev, cpu, sizeof cpu);
        assert_true(emu_device_stats().forward >= 10);
        assert_int_equal(emu_mind_stats_get().opens, 0);
        assert_int_equal(emu_mind_stats_get().not_fit, 1);
    }
}

/* On a CPU context the session is the CPU table's (layers/cpu_mind.c):
 * D2 is the minimum over the rows so far of the squared forward
 * distances (identity activation), kept across updates. */
static void test_session_on_cpu(void **s)
{
    (void)s;
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 1, &err), 0);
    bnl_op op = op_of(FSVC_U8, BNL_L1);
    bnl_mind *md = NULL;
    assert_int_equal(bnl_mind_open(&ctx, &op, X8, N_, n_, &md, &err), 0);
    assert_non_null(md);
    static double D2[N_], want[N_];
    static float H[N_ * 5];
    assert_int_equal(bnl_mind_update(md, X8, 2, D2, &err), 0);
    assert_int_equal(bnl_mind_update(md, X8 + 2 * n_, 3, D2, &err), 0);
    bnl_op id = op;
    id.act = BNL_IDENT;
    assert_int_equal(bnl_forward(&ctx, &id, H, 5, X8, 5, X8, N_, n_, &err), 0);
    for (int i = 0; i < N_; i++) {
        want[i] = INFINITY;
        for (int j = 0; j < 5; j++) {
            double d = H[i * 5 + j];
            if (d * d < want[i]) want[i] = d * d;
        }
    }
    assert_memory_equal(D2, want, sizeof D2);
    bnl_mind_close(md);
    bnl_ctx_close(&ctx);
    assert_int_equal(bnl_mind_update(NULL, X8, 1, D2, &err), FSVC_EUSAGE);
    bnl_mind_close(NULL);
}

int main(void)
{
    make_set();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u8_same_centroids),
        cmocka_unit_test(test_f32_same_centroids),
        cmocka_unit_test(test_d2_against_cpu),
        cmocka_unit_test(test_fallbacks),
        cmocka_unit_test(test_session_on_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
