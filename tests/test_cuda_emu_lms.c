/* test_cuda_emu_lms.c - the LMS readout on the device (issue 10):
 * fsvc_train -R lms on --backend cuda over the host-emulated device of
 * tests/util/emu_device.c (its lms entry runs cuda/lms.cu's kernel bodies
 * over the emulated block, on the tiles of the sample stream), against the
 * CPU backend:
 *   - the same centroids, R within RTOL of the largest weight (the device
 *     sums z.R as a tree over the block's threads, the CPU in neuron
 *     order; f32 L2 also takes the GEMM path for H), the same predictions;
 *     u8 and f32, L1 and L2, m and N not multiples of the tiles (N = 600:
 *     chunks of 112, tiles of 48, a last tile of 40; m over and under the
 *     256 threads of the block), K over the 16 outputs of a slice;
 *   - one device call per epoch, nothing N x m downloaded (no forward,
 *     every download m K or the status);
 *   - a diverging learning rate: the CPU's error code and message;
 *   - a device without the lms entry (NULL): the CPU loop over H from the
 *     device's forward, the CPU's R to the bit (u8 L1: the same H). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/internal.h"
#include "tests/util/emu_device.h"

#define N_ 600
#define ROWS 4
#define COLS 5
#define n_ (ROWS * COLS)
#define KMAX 20
#define EPOCHS 3
/* R against the CPU's, relative to the largest weight: u8 H is the same
 * bits on both, only the dot's order differs; f32 L2's H comes from the
 * GEMM path (|x|^2 + |w|^2 - 2 x.w in float). */
#define RTOL_U8 1e-11
#define RTOL_F32 1e-5

static uint8_t X8[N_ * n_];
static float Xf[N_ * n_];
static double Yv[N_], CV[KMAX];
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
            int v = 40 * ((Cls[i] * 7 + j) % 5) + 3 * (Cls[i] % 4) + (int)(fsvc_rng_next(&st) % 80);
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

static void lms_param(fsvc_param *p, fsvc_dtype t, int dist, int64_t m, double eta)
{
    fsvc_param_default(p);
    p->select = FSVC_SELECT_RANDOM;
    p->max_neurons = m;
    p->readout = FSVC_READOUT_LMS;
    p->eta = eta;
    p->epochs = EPOCHS;
    p->dist = dist;
    p->act = BNL_GAUSS;
    p->radius = t == FSVC_U8 ? (dist == BNL_L1 ? 900.0 : 150.0) : (dist == BNL_L1 ? 3.5 : 0.6);
    p->dtype = t;
    p->threads = 1;
    p->preprocess = FSVC_PRE_NONE;
}

static int train(fsvc_model *M, const fsvc_dataset *D, const fsvc_param *p0, const char *backend,
                 const bnl_backend_ops *ops, fsvc_error *err)
{
    fsvc_param p = *p0;
    p.backend = backend;
    fsvc_error_clear(err);
    p.device = ops;
    return fsvc_train(M, NULL, D, &p, err);
}

static double max_rel_diff(const fsvc_model *A, const fsvc_model *B, double *rmax)
{
    size_t mk = (size_t)A->m * A->Kout;
    double r = 0, d = 0;
    for (size_t q = 0; q < mk; q++) r = fmax(r, fabs(A->R[q]));
    for (size_t q = 0; q < mk; q++) d = fmax(d, fabs(A->R[q] - B->R[q]));
    *rmax = r;
    return d / r;
}

static void check(fsvc_dtype t, int dist, int K, int64_t m)
{
    char what[96];
    snprintf(what, sizeof what, "%s %s K %d m %lld", fsvc_dtype_name(t),
             dist == BNL_L1 ? "L1" : "L2", K, (long long)m);
    fsvc_dataset D = make_set(t, K, (uint64_t)(K * 977 + m + t));
    fsvc_param p;
    lms_param(&p, t, dist, m, 0.05);
    fsvc_model Mc, Md;
    fsvc_error err;
    if (train(&Mc, &D, &p, "cpu", NULL, &err)) fail_msg("%s: cpu: %s", what, err.msg);
    emu_device_reset(0, 0, 0);
    if (train(&Md, &D, &p, "cuda", emu_device_ops(), &err))
        fail_msg("%s: device: %s", what, err.msg);
    emu_stats st = emu_device_stats();
    assert_int_equal(Mc.m, m);
    assert_int_equal(Md.m, m);
    assert_int_equal(Mc.Kout, K);
    assert_memory_equal(Mc.C, Md.C, (size_t)m * n_ * fsvc_dtype_size(t));
    /* one device epoch per epoch; H never came back; downloads m K or 8 */
    assert_int_equal(st.lms, EPOCHS);
    assert_int_equal(st.forward, 0);
    assert_int_equal(st.forward_down, 0);
    assert_true(st.max_down <= m * K * 8);
    assert_true(st.down <= EPOCHS * (m * K * 8 + 8));
    double rmax, rel = max_rel_diff(&Mc, &Md, &rmax);
    if (getenv("EMU_DEBUG")) print_message("%s: R differs by %.3g\n", what, rel);
    /* the LMS moved R off its one-hot start */
    double moved = 0;
    fsvc_model M0;
    fsvc_param p0 = p;
    p0.epochs = 0;
    if (train(&M0, &D, &p0, "cpu", NULL, &err)) fail_msg("%s: cpu, 0 epochs: %s", what, err.msg);
    for (int64_t q = 0; q < m * K; q++) moved = fmax(moved, fabs(M0.R[q] - Mc.R[q]));
    assert_true(moved > 1e-3);
    fsvc_free_model(&M0);
    if (!(rel <= (t == FSVC_U8 ? RTOL_U8 : RTOL_F32)))
        fail_msg("%s: R differs by %.3g of the largest (%.3g)", what, rel, rmax);
    int *pc = malloc(N_ * sizeof *pc), *pd = malloc(N_ * sizeof *pd);
    assert_non_null(pc); assert_non_null(pd);
    if (fsvc_predict(pc, NULL, &Mc, &D, "cpu", 1, &err)) fail_msg("%s", err.msg);
    if (fsvc_predict(pd, NULL, &Md, &D, "cpu", 1, &err)) fail_msg("%s", err.msg);
    assert_memory_equal(pc, pd, N_ * sizeof *pc);
    free(pc); free(pd);
    fsvc_free_model(&Mc);
    fsvc_free_model(&Md);
}

static void test_u8(void **s)
{
    (void)s;
    check(FSVC_U8, BNL_L1, 3, 71);
    check(FSVC_U8, BNL_L2, 5, 300); /* m over the block's 256 threads */
    check(FSVC_U8, BNL_L1, 17, 257); /* K over a slice of 16 */
}

static void test_f32(void **s)
{
    (void)s;
    check(FSVC_F32, BNL_L1, 3, 61);
    check(FSVC_F32, BNL_L2, 17, 97); /* GEMM path, two slices */
}

/* A learning rate far too large: the CPU's code and words. */
static void test_divergence(void **s)
{
    (void)s;
    for (int t = 0; t < 2; t++) {
        fsvc_dtype dt = t ? FSVC_F32 : FSVC_U8;
        fsvc_dataset D = make_set(dt, 4, 31);
        fsvc_param p;
        lms_param(&p, dt, BNL_L1, 83, 1e6);
        fsvc_model M;
        fsvc_error ec, ed;
        int rc = train(&M, &D, &p, "cpu", NULL, &ec);
        assert_int_equal(rc, FSVC_EINPUT);
        assert_non_null(strstr(ec.msg, "diverged"));
        emu_device_reset(0, 0, 0);
        int rd = train(&M, &D, &p, "cuda", emu_device_ops(), &ed);
        assert_int_equal(rd, rc);
        assert_string_equal(ed.msg, ec.msg);
        assert_true(emu_device_stats().lms >= 1);
    }
}

/* No lms entry: the CPU loop over the device's H, the CPU's R exactly. */
static void test_not_offered(void **s)
{
    (void)s;
    bnl_backend_ops o = *emu_device_ops();
    o.lms = NULL;
    fsvc_dataset D = make_set(FSVC_U8, 3, 7);
    fsvc_param p;
    lms_param(&p, FSVC_U8, BNL_L1, 45, 0.05);
    fsvc_model Mc, Md;
    fsvc_error err;
    if (train(&Mc, &D, &p, "cpu", NULL, &err)) fail_msg("cpu: %s", err.msg);
    emu_device_reset(0, 0, 0);
    if (train(&Md, &D, &p, "cuda", &o, &err)) fail_msg("device: %s", err.msg);
    emu_stats st = emu_device_stats();
    assert_int_equal(st.lms, 0);
    assert_true(st.forward_down >= (int64_t)EPOCHS * N_ * 45 * 4); /* H came back */
    assert_memory_equal(Mc.R, Md.R, (size_t)Mc.m * Mc.Kout * sizeof *Mc.R);
    fsvc_free_model(&Mc);
    fsvc_free_model(&Md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u8),
        cmocka_unit_test(test_f32),
        cmocka_unit_test(test_divergence),
        cmocka_unit_test(test_not_offered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
