/* test_novelty.c - the novelty pass on synthetic data: the definition
 * (first sample always a centroid, strict <, sums over all centroids), the
 * batched pass equal to the plain sequential loop for every dtype, distance
 * and kernel, on ref and on cpu at every kernel set the CPU runs, and for
 * chunk patterns from rare to frequent acceptance; ties (sums exactly equal
 * to prag) in the batched pass, inside a chunk and across chunks; shuffle,
 * per-class selection and the neuron cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/internal.h"
#include "tests/util/archs.h"

/* X: N x n random values in 0..vmax of type t (integers, so every dtype
 * holds the same values). */
static void *rand_x(fsvc_dtype t, int64_t N, int n, int vmax, uint64_t seed)
{
    void *X = malloc(N * n * fsvc_dtype_size(t));
    uint64_t st = seed;
    for (int64_t q = 0; q < N * n; q++) {
        int v = (int)(fsvc_rng_next(&st) % (uint64_t)(vmax + 1));
        if (t == FSVC_U8) ((uint8_t *)X)[q] = (uint8_t)v;
        else if (t == FSVC_F32) ((float *)X)[q] = (float)v / 8;
        else ((double *)X)[q] = (double)v / 8;
    }
    return X;
}

/* The batched pass on backend ("ref", or "cpu" at every kernel set the
 * CPU runs) selects exactly what the sequential loop selects. */
static void seq_eq_batched(fsvc_dtype t, bnl_dist dist, bnl_act act, double r, double prag,
                           int64_t N, int n, uint64_t seed, const int64_t *order,
                           int64_t cap, const char *backend)
{
    void *X = rand_x(t, N, n, 40, seed);
    bnl_op op = {dist, act, t, r, BNL_PREC_FULL};
    int64_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), ma, mb;
    fsvc_error err;
    bnl_ctx ctx;
    if (bnl_ctx_open(&ctx, backend, 0, 0, &err)) fail_msg("%s", err.msg);
    fsvc_select_problem pb = {.ctx = &ctx, .op = &op, .X = X, .order = order, .N = N, .n = n};
    fsvc_select_opt so = {.prag = prag, .max_m = cap};
    assert_int_equal(fsvc_novelty_seq(a, &ma, &pb, &so, &err), 0);
    bnl_arch archs[BNL_ARCH_COUNT];
    int na = ctx.backend == BNL_CPU ? fx_cpu_archs(archs) : 1;
    assert_true(na >= 1);
    for (int ai = 0; ai < na; ai++) {
        if (ctx.backend == BNL_CPU)
            assert_int_equal(bnl_ctx_set_arch(&ctx, archs[ai], &err), FSVC_OK);
        assert_int_equal(fsvc_novelty_batched(b, &mb, NULL, &pb, &so, &err), 0);
        if (ma != mb)
            fail_msg("%s/%s dtype %d dist %d act %d r %g: seq %lld vs batched %lld centroids",
                     backend, bnl_arch_name(ctx.arch), t, dist, act, r, (long long)ma,
                     (long long)mb);
        assert_memory_equal(a, b, ma * sizeof *a);
    }
    assert_int_equal(a[0], order ? order[0] : 0); /* the first sample always */
    if (cap) assert_true(ma <= cap);
    bnl_ctx_close(&ctx);
    free(a); free(b); free(X);
}

/* Radii from "almost every sample is a centroid" (small chunks) to "almost
 * none" (large chunks), every dtype, both distances and kernels. */
static void batched_equals_sequential(void **s)
{
    (void)s;
    const fsvc_dtype ts[] = {FSVC_U8, FSVC_F32, FSVC_F64};
    for (int ti = 0; ti < 3; ti++)
        for (int dist = 0; dist < 2; dist++)
            for (int act = 0; act < 2; act++) {
                double unit = ts[ti] == FSVC_U8 ? 1.0 : 1.0 / 8;
                double base = dist == BNL_L1 ? 20 * 13 * unit : 13 * 6 * unit;
                for (double f = 0.25; f <= 4; f *= 2) {
                    seq_eq_batched(ts[ti], dist, act, base * f, 1, 1500, 20, 11 + ti, NULL, 0, "cpu");
                    seq_eq_batched(ts[ti], dist, act, base * f, 2.5, 700, 9, 5, NULL, 0, "ref");
                }
            }
}

static void shuffled_and_capped(void **s)
{
    (void)s;
    int64_t N = 2000, *ord = malloc(N * sizeof *ord);
    for (int64_t i = 0; i < N; i++) ord[i] = i;
    fsvc_shuffle(ord, N, 42);
    int moved = 0;
    for (int64_t i = 0; i < N; i++) moved += ord[i] != i;
    assert_true(moved > N / 2);
    /* a permutation */
    char *seen = calloc(N, 1);
    for (int64_t i = 0; i < N; i++) { assert_false(seen[ord[i]]); seen[ord[i]] = 1; }
    /* the same seed gives the same order, another seed another */
    int64_t *o2 = malloc(N * sizeof *o2);
    for (int64_t i = 0; i < N; i++) o2[i] = i;
    fsvc_shuffle(o2, N, 42);
    assert_memory_equal(ord, o2, N * sizeof *ord);
    for (int64_t i = 0; i < N; i++) o2[i] = i;
    fsvc_shuffle(o2, N, 43);
    assert_memory_not_equal(ord, o2, N * sizeof *ord);
    seq_eq_batched(FSVC_U8, BNL_L1, BNL_TRI, 260, 1, N, 20, 3, ord, 0, "cpu");
    seq_eq_batched(FSVC_U8, BNL_L1, BNL_TRI, 100, 1, N, 20, 3, ord, 37, "cpu");
    seq_eq_batched(FSVC_F64, BNL_L2, BNL_GAUSS, 5, 0.5, N, 20, 3, NULL, 100, "cpu");
    free(ord); free(o2); free(seen);
}

/* The definition on hand-made cases: duplicates of a triangular centroid
 * sum to exactly 1, which is not < 1 (strict), but is < 1.5. */
static void strict_threshold(void **s)
{
    (void)s;
    double X[] = {0, 0, 0, 0, 0, 0, 10, 10, 0, 0};  /* 5 samples of n = 2 */
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_F64, 1, BNL_PREC_FULL};
    int64_t sel[5], m;
    fsvc_error err;
    fsvc_select_problem pb = {.op = &op, .X = X, .N = 5, .n = 2};
    fsvc_select_opt so = {.prag = 1.0};
    assert_int_equal(fsvc_novelty_seq(sel, &m, &pb, &so, &err), 0);
    assert_int_equal(m, 2);                 /* sample 0, then the far one */
    assert_int_equal(sel[0], 0);
    assert_int_equal(sel[1], 3);
    so.prag = 1.5;
    assert_int_equal(fsvc_novelty_seq(sel, &m, &pb, &so, &err), 0);
    assert_int_equal(m, 3);                 /* 0 (sum 0), 1 (sum 1 < 1.5), 3 */
    assert_int_equal(sel[1], 1);
    assert_int_equal(sel[2], 3);
    /* with prag 2.5 the fourth zero (sum 2 < 2.5) is taken too... */
    so.prag = 2.5;
    assert_int_equal(fsvc_novelty_seq(sel, &m, &pb, &so, &err), 0);
    assert_int_equal(m, 4);
    /* ... and the pass only sees centroids, never rejected samples */
    bnl_ctx ctx;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), 0);
    int64_t sb[5], mb;
    pb.ctx = &ctx;
    assert_int_equal(fsvc_novelty_batched(sb, &mb, NULL, &pb, &so, &err), 0);
    assert_int_equal(mb, 4);
    assert_memory_equal(sel, sb, 4 * sizeof *sb);
    bnl_ctx_close(&ctx);
}

/* Ties in the batched pass. N copies of one sample: every centroid's
 * activation on a copy is exactly 1 (distance 0: tri 1 - 0, gauss exp(0)),
 * so sample t's sum is exactly the number of centroids before it, and
 * "accept when sum < prag" keeps exactly ceil(prag) copies for an integer
 * prag (the sum equal to prag is refused). N = 300 spans several chunks:
 * ties inside the first chunk (sums built in-chunk) and in later ones (sums
 * from bnl_actsum over the earlier centroids). Every dtype, distance and
 * kernel, on ref and on cpu at every kernel set. */
static void ties_batched(void **s)
{
    (void)s;
    enum { N = 300, n = 5 };
    const fsvc_dtype ts[] = {FSVC_U8, FSVC_F32, FSVC_F64};
    const double prags[] = {1, 2, 3, 2.5};
    const int64_t want[] = {1, 2, 3, 3};
    const char *backends[] = {"ref", "cpu"};
    bnl_arch archs[BNL_ARCH_COUNT];
    int ncpu = fx_cpu_archs(archs);
    assert_true(ncpu >= 1);
    int64_t sel[N], sq[N], m, mq;
    fsvc_error err;
    for (int ti = 0; ti < 3; ti++) {
        unsigned char X[N * n * 8];
        for (int64_t q = 0; q < N * n; q++) {
            int v = (int)(q % n) * 3 + 1; /* the same row N times */
            if (ts[ti] == FSVC_U8) X[q] = (unsigned char)v;
            else if (ts[ti] == FSVC_F32) ((float *)X)[q] = (float)v / 8;
            else ((double *)X)[q] = (double)v / 8;
        }
        for (int dist = 0; dist < 2; dist++)
            for (int act = 0; act < 2; act++)
                for (int pi = 0; pi < 4; pi++) {
                    bnl_op op = {dist, act, ts[ti], 2.0, BNL_PREC_FULL};
                    fsvc_select_problem pb = {.op = &op, .X = X, .N = N, .n = n};
                    fsvc_select_opt so = {.prag = prags[pi]};
                    assert_int_equal(fsvc_novelty_seq(sq, &mq, &pb, &so, &err), 0);
                    assert_int_equal(mq, want[pi]);
                    for (int bi = 0; bi < 2; bi++) {
                        bnl_ctx ctx;
                        assert_int_equal(bnl_ctx_open(&ctx, backends[bi], 1, 1, &err), 0);
                        for (int ai = 0; ai < (bi ? ncpu : 1); ai++) {
                            if (bi)
                                assert_int_equal(bnl_ctx_set_arch(&ctx, archs[ai], &err), 0);
                            pb.ctx = &ctx;
                            assert_int_equal(fsvc_novelty_batched(sel, &m, NULL, &pb, &so,
                                                                  &err), 0);
                            if (m != want[pi])
                                fail_msg("%s/%s %s dist %d act %d prag %g: %lld centroids, "
                                         "want %lld (a sum equal to prag is refused)",
                                         backends[bi], bi ? bnl_arch_name(archs[ai]) : "-",
                                         fsvc_dtype_name(ts[ti]), dist, act, prags[pi],
                                         (long long)m, (long long)want[pi]);
                            for (int64_t j = 0; j < m; j++)
                                assert_int_equal(sel[j], j); /* the first copies */
                        }
                        bnl_ctx_close(&ctx);
                    }
                }
    }
    /* a tie only in a later chunk: 100 distinct far samples (each its own
     * centroid), then copies of sample 0 whose sums, from bnl_actsum over
     * the earlier centroids, are exactly 1 */
    double Y[2 * N];
    for (int64_t i = 0; i < N; i++) {
        Y[2 * i] = i < 100 ? 1000.0 * i : 0.0;
        Y[2 * i + 1] = 0.0;
    }
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_F64, 1.0, BNL_PREC_FULL};
    for (int bi = 0; bi < 2; bi++) {
        bnl_ctx ctx;
        assert_int_equal(bnl_ctx_open(&ctx, backends[bi], 1, 1, &err), 0);
        for (int ai = 0; ai < (bi ? ncpu : 1); ai++) {
            if (bi)
                assert_int_equal(bnl_ctx_set_arch(&ctx, archs[ai], &err), 0);
            fsvc_select_problem pb = {.ctx = &ctx, .op = &op, .X = Y, .N = N, .n = 2};
            fsvc_select_opt so = {.prag = 1.0};
            assert_int_equal(fsvc_novelty_batched(sel, &m, NULL, &pb, &so, &err), 0);
            assert_int_equal(m, 100); /* the copies tie at 1 and are refused */
            so.prag = 1.5;
            assert_int_equal(fsvc_novelty_batched(sel, &m, NULL, &pb, &so, &err), 0);
            assert_int_equal(m, 101); /* below 1.5: the first copy is taken */
            assert_int_equal(sel[100], 100);
        }
        bnl_ctx_close(&ctx);
    }
}

/* Per-class selection through fsvc_train: each class runs the pass over
 * its own samples against its own centroids. */
static void per_class(void **s)
{
    (void)s;
    int64_t N = 600;
    int n = 12, K = 3;
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = N; d.n = n; d.dtype = FSVC_U8; d.has_labels = 1; d.K = K;
    d.x = rand_x(FSVC_U8, N, n, 60, 9);
    d.y = malloc(N * sizeof *d.y); d.cls = malloc(N * sizeof *d.cls);
    d.class_values = malloc(K * sizeof *d.class_values);
    for (int k = 0; k < K; k++) d.class_values[k] = k + 1;
    for (int64_t i = 0; i < N; i++) { d.cls[i] = (int)((i * 7) % K); d.y[i] = d.cls[i] + 1; }
    fsvc_param p;
    fsvc_param_default(&p);
    p.dist = BNL_L1; p.act = BNL_TRI; p.preprocess = FSVC_PRE_NONE;
    p.radius = 80; p.readout = FSVC_READOUT_ONEHOT; p.select = FSVC_SELECT_PER_CLASS;
    fsvc_model m;
    fsvc_error err;
    assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), 0);
    /* expected: the sequential pass inside each class, class after class */
    int64_t *sub = malloc(N * sizeof *sub), *sel = malloc(N * sizeof *sel), tot = 0;
    bnl_op op = {BNL_L1, BNL_TRI, FSVC_U8, 80, BNL_PREC_FULL};
    for (int k = 0; k < K; k++) {
        int64_t c = 0, mk;
        for (int64_t i = 0; i < N; i++) if (d.cls[i] == k) sub[c++] = i;
        fsvc_select_problem pb = {.op = &op, .X = d.x, .order = sub, .N = c, .n = n};
        fsvc_select_opt so = {.prag = 1};
        assert_int_equal(fsvc_novelty_seq(sel, &mk, &pb, &so, &err), 0);
        for (int64_t j = 0; j < mk; j++) {
            assert_memory_equal((uint8_t *)m.C + (tot + j) * n, (uint8_t *)d.x + sel[j] * n, n);
            assert_int_equal(m.lab[tot + j], k);
        }
        tot += mk;
    }
    assert_int_equal(m.m, tot);
    /* global selection differs (it sums over every class) */
    fsvc_model g;
    p.select = FSVC_SELECT_GLOBAL;
    assert_int_equal(fsvc_train(&g, NULL, &d, &p, &err), 0);
    assert_true(g.m < m.m);
    fsvc_free_model(&m); fsvc_free_model(&g);
    free(sub); free(sel);
    fsvc_dataset_free(&d);
}

/* The radius search lands in 1-10% of N. */
static void radius_search(void **s)
{
    (void)s;
    int64_t N = 3000;
    int n = 16;
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = N; d.n = n; d.dtype = FSVC_U8; d.has_labels = 1; d.K = 2;
    d.x = rand_x(FSVC_U8, N, n, 255, 4);
    d.y = malloc(N * sizeof *d.y); d.cls = malloc(N * sizeof *d.cls);
    d.class_values = malloc(2 * sizeof *d.class_values);
    d.class_values[0] = 0; d.class_values[1] = 1;
    for (int64_t i = 0; i < N; i++) { d.cls[i] = ((uint8_t *)d.x)[i * n] > 127; d.y[i] = d.cls[i]; }
    fsvc_param p;
    fsvc_param_default(&p);
    p.radius = 0; p.radius_rms = 0; /* the author's radius search */
    p.dist = BNL_L1; p.act = BNL_TRI; p.select = FSVC_SELECT_GLOBAL; p.preprocess = FSVC_PRE_NONE;
    fsvc_model m;
    fsvc_train_info info;
    fsvc_error err;
    assert_int_equal(fsvc_train(&m, &info, &d, &p, &err), 0);
    assert_true(m.m >= N / 100 && m.m <= N / 10);
    assert_true(info.radius > 0 && m.radius == info.radius);
    fsvc_free_model(&m);
    fsvc_dataset_free(&d);
}

/* -r Xrms: X times sqrt of the mean of d(x_a, x_b)^2 over the pairs a < b
 * of the first 800 rows (file order), d summed in double in feature order
 * and the squares in pair order: the same bits as this plain loop, for
 * u8 and f32 rows, L1 and L2, 1 and 2 threads. */
static void rms_radius_bits(void **s)
{
    (void)s;
    int64_t N = 900, k = 800;
    int n = 37;
    for (int ti = 0; ti < 2; ti++)
        for (int dist = BNL_L1; dist <= BNL_L2; dist++)
            for (int th = 1; th <= 2; th++) {
                fsvc_dtype t = ti ? FSVC_F32 : FSVC_U8;
                fsvc_dataset d;
                memset(&d, 0, sizeof d);
                d.N = N; d.n = n; d.dtype = t; d.has_labels = 1; d.K = 2;
                d.x = rand_x(t, N, n, 255, 11 + (uint64_t)ti);
                d.y = malloc(N * sizeof *d.y); d.cls = malloc(N * sizeof *d.cls);
                d.class_values = malloc(2 * sizeof *d.class_values);
                d.class_values[0] = 0; d.class_values[1] = 1;
                for (int64_t i = 0; i < N; i++) { d.cls[i] = (int)(i % 2); d.y[i] = d.cls[i]; }
                double sum = 0, cnt = 0;
                for (int64_t a = 0; a < k; a++)
                    for (int64_t b = a + 1; b < k; b++) {
                        double dd = 0;
                        for (int j = 0; j < n; j++) {
                            double u = t == FSVC_U8 ? (double)((uint8_t *)d.x)[a * n + j] -
                                                          (double)((uint8_t *)d.x)[b * n + j]
                                                    : (double)((float *)d.x)[a * n + j] -
                                                          (double)((float *)d.x)[b * n + j];
                            dd += dist == BNL_L1 ? fabs(u) : u * u;
                        }
                        dd = dist == BNL_L1 ? dd : sqrt(dd);
                        sum += dd * dd;
                        cnt++;
                    }
                fsvc_param p;
                fsvc_param_default(&p);
                p.radius = 0; p.radius_rms = 0.75; p.dist = dist;
                p.act = dist == BNL_L1 ? BNL_TRI : BNL_GAUSS;
                p.readout = FSVC_READOUT_ONEHOT; p.select = FSVC_SELECT_GLOBAL;
                p.preprocess = FSVC_PRE_NONE; p.max_neurons = 5; p.threads = th;
                fsvc_model m;
                fsvc_train_info info;
                fsvc_error err;
                assert_int_equal(fsvc_train(&m, &info, &d, &p, &err), 0);
                double want = 0.75 * sqrt(sum / cnt);
                if (m.radius != want)
                    fail_msg("%s L%d, %d threads: radius %.17g, the plain loop's %.17g",
                             fsvc_dtype_name(t), dist == BNL_L1 ? 1 : 2, th, m.radius, want);
                fsvc_free_model(&m);
                fsvc_dataset_free(&d);
            }
}

/* fsvc_pair_dist on u8 rows (integer sums in blocks of 2^15) against the
 * plain double loop, exactly, at lengths around the block edges. */
static void pair_dist_u8_blocks(void **s)
{
    (void)s;
    static const int ns[] = {1, 15, 32767, 32768, 32769, 65536, 70001};
    uint8_t *a = malloc(70001), *b = malloc(70001);
    assert_true(a && b);
    uint64_t st = 5;
    for (int k = 0; k < 70001; k++) { /* half of the gaps 255: past 2^31 in one int32 sum */
        a[k] = k % 2 ? (uint8_t)fsvc_rng_next(&st) : 0;
        b[k] = k % 2 ? (uint8_t)fsvc_rng_next(&st) : 255;
    }
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int dist = BNL_L1; dist <= BNL_L2; dist++) {
            double d = 0;
            for (int k = 0; k < ns[i]; k++) {
                double u = (double)a[k] - (double)b[k];
                d += dist == BNL_L1 ? fabs(u) : u * u;
            }
            d = dist == BNL_L1 ? d : sqrt(d);
            double got = fsvc_pair_dist(dist, FSVC_U8, a, b, ns[i]);
            if (got != d) fail_msg("n %d L%d: %.17g, plain %.17g", ns[i], dist + 1, got, d);
        }
    free(a); free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strict_threshold),
        cmocka_unit_test(ties_batched),
        cmocka_unit_test(batched_equals_sequential),
        cmocka_unit_test(shuffled_and_capped),
        cmocka_unit_test(per_class),
        cmocka_unit_test(radius_search),
        cmocka_unit_test(rms_radius_bits),
        cmocka_unit_test(pair_dist_u8_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
