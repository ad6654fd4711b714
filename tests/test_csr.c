/* test_csr.c - sparse data (issue 14 point 2): the CSR reader (sorted,
 * duplicate-free rows; bad input refused with file:line and the limit),
 * the auto rule, conversions, the sparse layer (merge reference against
 * the Gustavson fast path and the dense engine at many shapes), sparse
 * training and prediction against dense on a UCI set, the sparse model
 * file (version 4) and its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "datasets/loaders.h"
#include "fsvc/fsvc.h"
#include "fsvc/sparse.h"
#include "layers/bnl.h"
#include "layers/sparse.h"
#include "tests/util/fixtures.h"

static int parse(fsvc_dataset *d, const char *text, int storage, fsvc_error *err)
{
    fsvc_load_opts o = {0};
    o.storage = storage;
    fsvc_error_clear(err);
    return ds_libsvm_parse_opt(d, text, strlen(text), "t.txt", &o, DS_MAX_BYTES, err);
}

/* The CSR form: rows, columns (0-based, ascending), float values, empty
 * lines and comments skipped, a label-only line an empty row, explicit
 * zeros dropped. */
static void test_reader(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    const char *text = "# comment\n"
                       "1 2:0.5 7:-2\n"
                       "\n"
                       "2\n"
                       "1 1:3 3:0 9:1e-3 # tail\r\n";
    int rc = parse(&d, text, FSVC_STORE_SPARSE, &err);
    if (rc) fail_msg("%s", err.msg);
    assert_non_null(d.csr);
    assert_null(d.x);
    assert_int_equal(d.N, 3);
    assert_int_equal(d.n, 9);
    assert_int_equal(d.dtype, FSVC_F32);
    const fsvc_csr *a = d.csr;
    assert_int_equal(a->rows, 3);
    assert_int_equal(a->nnz, 4);
    const int64_t ptr[4] = {0, 2, 2, 4};
    const int32_t col[4] = {1, 6, 0, 8};
    const float val[4] = {0.5f, -2.0f, 3.0f, 1e-3f};
    assert_memory_equal(a->row_ptr, ptr, sizeof ptr);
    assert_memory_equal(a->col, col, sizeof col);
    assert_memory_equal(a->val, val, sizeof val);
    assert_int_equal(d.K, 2);
    fsvc_dataset_free(&d);
    /* a value that is 0 as a float is not stored (found by fuzz_csr) */
    assert_int_equal(parse(&d, "1 1:1e-300 2:1\n", FSVC_STORE_SPARSE, &err), FSVC_OK);
    assert_int_equal(d.csr->nnz, 1);
    assert_int_equal(d.csr->col[0], 1);
    fsvc_dataset_free(&d);
}

static void expect_refused(const char *text, int storage, const char *want)
{
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(parse(&d, text, storage, &err), FSVC_EINPUT);
    if (!strstr(err.msg, want)) fail_msg("wanted '%s' in: %s", want, err.msg);
    assert_null(d.csr);
    fsvc_dataset_free(&d);
}

static void test_reader_bad(void **state)
{
    (void)state;
    expect_refused("1 1:1\n2 3:1 3:2\n", FSVC_STORE_SPARSE, "t.txt:2: duplicate index");
    expect_refused("1 1:1\n1 2:1\n2 5:1 3:2\n", FSVC_STORE_SPARSE,
                   "t.txt:3: descending index (after 5)");
    expect_refused("1 0:1\n", FSVC_STORE_SPARSE, "t.txt:1: index 0");
    char msg[96];
    snprintf(msg, sizeof msg, "t.txt:2: index above the limit of sparse data (%d features)",
             FSVC_CSR_MAX_N);
    expect_refused("1 1:1\n1 16777217:1\n", FSVC_STORE_SPARSE, msg);
    expect_refused("1 1:1\n1 16777217:1\n", FSVC_STORE_AUTO, msg);
    expect_refused("1 99999999999:1\n", FSVC_STORE_SPARSE, "t.txt:1: index too large");
    expect_refused("1 1:x\n", FSVC_STORE_SPARSE, "t.txt:1: value is not a number");
    /* the largest index allowed is fine */
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(parse(&d, "1 16777216:1\n", FSVC_STORE_SPARSE, &err), FSVC_OK);
    assert_int_equal(d.n, FSVC_CSR_MAX_N);
    fsvc_dataset_free(&d);
}

/* Auto: small or dense data dense, many features or few values sparse;
 * dense over dense_max_n refused naming --sparse before the matrix. */
static void test_auto(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(parse(&d, "1 1:1 3:2\n2 2:1\n", FSVC_STORE_AUTO, &err), FSVC_OK);
    assert_null(d.csr);
    assert_non_null(d.x);
    fsvc_dataset_free(&d);
    assert_int_equal(parse(&d, "1 1:1\n2 65537:1\n", FSVC_STORE_AUTO, &err), FSVC_OK);
    assert_non_null(d.csr);
    assert_int_equal(d.n, 65537);
    fsvc_dataset_free(&d);
    /* 600 rows x 60000 features (3.6e7 cells > 2^25), 1 value per row */
    size_t cap = 600 * 32 + 1, len = 0;
    char *t = malloc(cap);
    for (int i = 0; i < 600; i++)
        len += (size_t)snprintf(t + len, cap - len, "%d %d:1\n", i % 2, i * 100 + 1);
    assert_int_equal(parse(&d, t, FSVC_STORE_AUTO, &err), FSVC_OK);
    assert_non_null(d.csr);
    fsvc_dataset_free(&d);
    free(t);
    fsvc_load_opts o = {0};
    o.storage = FSVC_STORE_DENSE;
    o.dense_max_n = 100;
    const char *wide = "1 1:1\n2 101:1\n";
    assert_int_equal(ds_libsvm_parse_opt(&d, wide, strlen(wide), "w.txt", &o, DS_MAX_BYTES,
                                         &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "w.txt: 101 features; dense data holds at most 100 "
                                    "(read it sparse: --sparse)"));
    fsvc_dataset_free(&d);
}

/* .gz through fsvc_dataset_load, sparse on request. */
static void test_gz(void **state)
{
    char path[512];
    fx_join(path, sizeof path, *state, "s.txt.gz");
    const char *text = "1 3:1 70000:2\n2 5:-1\n";
    assert_int_equal(fx_write_gz(path, text, strlen(text)), 0);
    fsvc_load_opts o = {0};
    o.storage = FSVC_STORE_SPARSE;
    fsvc_dataset d;
    fsvc_error err;
    int rc = fsvc_dataset_load(&d, path, &o, &err);
    if (rc) fail_msg("%s", err.msg);
    assert_non_null(d.csr);
    assert_int_equal(d.n, 70000);
    assert_int_equal(d.csr->nnz, 3);
    assert_int_equal(d.csr->col[1], 69999);
    fsvc_dataset_free(&d);
    /* the default (no storage asked) stays dense: every other user unchanged */
    fx_join(path, sizeof path, *state, "small.txt.gz");
    assert_int_equal(fx_write_gz(path, "1 3:1\n", 6), 0);
    assert_int_equal(fsvc_dataset_load(&d, path, NULL, &err), FSVC_OK);
    assert_null(d.csr);
    assert_int_equal(d.dtype, FSVC_F64);
    fsvc_dataset_free(&d);
}

/* fit_features on sparse data drops features beyond n and counts them;
 * to_dense / to_sparse round trip. */
static void test_fit_convert(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(parse(&d, "1 1:1 4:2 6:3\n2 5:4\n1 2:5\n", FSVC_STORE_SPARSE, &err), 0);
    int64_t dropped;
    int first;
    assert_int_equal(fsvc_dataset_fit_features(&d, 4, &dropped, &first, &err), FSVC_OK);
    assert_int_equal(dropped, 2);
    assert_int_equal(first, 5);
    assert_int_equal(d.n, 4);
    assert_int_equal(d.csr->nnz, 3);
    const int64_t ptr[4] = {0, 2, 2, 3};
    assert_memory_equal(d.csr->row_ptr, ptr, sizeof ptr);
    assert_int_equal(fsvc_dataset_to_dense(&d, &err), FSVC_OK);
    assert_null(d.csr);
    const float want[12] = {1, 0, 0, 2, 0, 0, 0, 0, 0, 5, 0, 0};
    assert_memory_equal(d.x, want, sizeof want);
    assert_int_equal(fsvc_dataset_to_sparse(&d, &err), FSVC_OK);
    assert_int_equal(d.csr->nnz, 3);
    assert_memory_equal(d.csr->row_ptr, ptr, sizeof ptr);
    assert_int_equal(fsvc_dataset_convert(&d, FSVC_F64, FSVC_SCALE_NONE, &err), FSVC_EUSAGE);
    fsvc_dataset_free(&d);
}

/* ---- the sparse layer ---- */

typedef struct rnd { uint64_t s; } rnd;
static double urand(rnd *r)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(r->s >> 11) / 9007199254740992.0;
}

/* A random CSR (rows x n) and its dense copy: row 0 empty, row 1 full
 * (every feature), the rest at the given density. */
static fsvc_csr *random_csr(float *dense, int64_t rows, int n, double density, rnd *r)
{
    fsvc_csr *a = calloc(1, sizeof *a);
    a->rows = rows;
    a->row_ptr = malloc((size_t)(rows + 1) * sizeof *a->row_ptr);
    a->col = malloc((size_t)rows * n * sizeof *a->col + 4);
    a->val = malloc((size_t)rows * n * sizeof *a->val + 4);
    memset(dense, 0, (size_t)rows * n * sizeof *dense);
    int64_t q = 0;
    a->row_ptr[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        for (int f = 0; f < n; f++) {
            int take = i == 1 || (i > 1 && urand(r) < density);
            if (!take) continue;
            float v = (float)(urand(r) * 4 - 2);
            if (v == 0) v = 0.5f;
            a->col[q] = f;
            a->val[q++] = v;
            dense[(size_t)i * n + f] = v;
        }
        a->row_ptr[i + 1] = q;
    }
    a->nnz = q;
    return a;
}

static void test_layer_shapes(void **state)
{
    (void)state;
    static const int ns[] = {1, 3, 17, 200};
    static const int64_t ms[] = {1, 2, 9, 40};
    static const int64_t Ns[] = {1, 3, 33};
    static const double dens[] = {0.0, 0.05, 0.5, 1.0};
    static const int ops[][2] = {{BNL_L2, BNL_GAUSS}, {BNL_L2, BNL_TRI}, {BNL_L1, BNL_TRI},
                                 {BNL_L1, BNL_GAUSS}, {BNL_L2, BNL_IDENT}, {BNL_L1, BNL_IDENT}};
    rnd r = {42};
    fsvc_error err;
    bnl_ctx ref, cpu;
    assert_int_equal(bnl_ctx_open(&ref, "ref", 1, 0, &err), FSVC_OK);
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 0, &err), FSVC_OK);
    cpu.par_min_syn = -1;
    int cases = 0;
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
    for (size_t b = 0; b < sizeof ms / sizeof *ms; b++)
    for (size_t c = 0; c < sizeof Ns / sizeof *Ns; c++)
    for (size_t e = 0; e < sizeof dens / sizeof *dens; e++) {
        int n = ns[a];
        int64_t m = ms[b] + 1, N = Ns[c] + 1; /* row 0 empty, row 1 full */
        float *Wd = malloc((size_t)m * n * sizeof *Wd), *Xd = malloc((size_t)N * n * sizeof *Xd);
        fsvc_csr *W = random_csr(Wd, m, n, dens[e], &r);
        fsvc_csr *X = random_csr(Xd, N, n, dens[(e + 1) % 4], &r);
        bnl_csr wv = fsvc_csr_view(W, 0, m), xv = fsvc_csr_view(X, 0, N);
        assert_int_equal(bnl_csr_check(&wv, n, "W", &err), FSVC_OK);
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            bnl_op op = {(bnl_dist)ops[o][0], (bnl_act)ops[o][1], FSVC_F32, 0.3 + urand(&r) * n, BNL_PREC_FULL};
            float *H0 = malloc((size_t)N * m * sizeof *H0), *H1 = malloc((size_t)N * m * sizeof *H1);
            float *H2 = malloc((size_t)N * m * sizeof *H2);
            bnl_csc T;
            assert_int_equal(bnl_sparse_forward_ref(&op, H0, m, &wv, &xv, &err), FSVC_OK);
            assert_int_equal(bnl_csc_make(&T, &wv, n, op.dist, &err), FSVC_OK);
            assert_int_equal(bnl_sparse_forward(&cpu, &op, H1, m, &T, &xv, &err), FSVC_OK);
            /* the dense engine on the same data, reference backend */
            assert_int_equal(bnl_forward(&ref, &op, H2, m, Wd, m, Xd, N, n, &err), FSVC_OK);
            for (int64_t q = 0; q < N * m; q++) {
                double tol = 2e-5 * (1 + fabs(H2[q]));
                if (fabs(H0[q] - H1[q]) > tol || fabs(H0[q] - H2[q]) > tol)
                    fail_msg("n %d m %lld N %lld density %g op %zu entry %lld: ref %.9g fast "
                             "%.9g dense %.9g", n, (long long)m, (long long)N, dens[e], o,
                             (long long)q, H0[q], H1[q], H2[q]);
            }
            bnl_csc_free(&T);
            free(H0); free(H1); free(H2);
            cases++;
        }
        fsvc_csr_free(W);
        fsvc_csr_free(X);
        free(Wd); free(Xd);
    }
    assert_true(cases == 4 * 4 * 3 * 4 * 6);
    bnl_ctx_close(&ref);
    bnl_ctx_close(&cpu);
}

/* A CSR that is not sorted or has a duplicate column is caught. */
static void test_layer_check(void **state)
{
    (void)state;
    int64_t ptr[2] = {0, 2};
    int32_t col[2] = {3, 3};
    float val[2] = {1, 2};
    bnl_csr a = {1, ptr, col, val};
    fsvc_error err;
    assert_int_equal(bnl_csr_check(&a, 5, "W", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "not ascending"));
    col[0] = 4; col[1] = 2;
    assert_int_equal(bnl_csr_check(&a, 5, "W", &err), FSVC_EINPUT);
    col[0] = 1; col[1] = 5;
    assert_int_equal(bnl_csr_check(&a, 5, "W", &err), FSVC_EINPUT);
    col[1] = 4;
    assert_int_equal(bnl_csr_check(&a, 5, "W", &err), FSVC_OK);
}

/* A value beyond the float range is read as +-Inf (what the float
 * conversion of dense data makes of it): its sample is infinitely far
 * from every centroid, activation 0 on both paths, never NaN. */
static void test_inf(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(parse(&d, "1 1:1e300 2:-1e300 3:1\n2 1:2 3:1\n", FSVC_STORE_SPARSE,
                           &err), FSVC_OK);
    assert_true(isinf(d.csr->val[0]) && d.csr->val[0] > 0);
    assert_true(isinf(d.csr->val[1]) && d.csr->val[1] < 0);
    bnl_csr x = fsvc_csr_view(d.csr, 0, 2), w = fsvc_csr_view(d.csr, 1, 1);
    bnl_ctx cpu;
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 1, 0, &err), FSVC_OK);
    for (int dist = BNL_L1; dist <= BNL_L2; dist++)
        for (int act = BNL_TRI; act <= BNL_GAUSS; act++) {
            bnl_op op = {(bnl_dist)dist, (bnl_act)act, FSVC_F32, 3.0, BNL_PREC_FULL};
            float h0[2], h1[2];
            bnl_csc T;
            assert_int_equal(bnl_csc_make(&T, &w, 3, op.dist, &err), FSVC_OK);
            assert_int_equal(bnl_sparse_forward(&cpu, &op, h1, 1, &T, &x, &err), FSVC_OK);
            assert_int_equal(bnl_sparse_forward_ref(&op, h0, 1, &w, &x, &err), FSVC_OK);
            assert_true(h0[0] == 0 && h1[0] == 0); /* the infinite sample */
            assert_true(h0[1] == 1 && h1[1] == 1); /* the centroid itself */
            bnl_csc_free(&T);
        }
    bnl_ctx_close(&cpu);
    fsvc_dataset_free(&d);
}

/* ---- training and prediction ---- */

static int load_uci(fsvc_dataset *d, const char *name, int storage)
{
    char dir[512], path[700];
    if (!fx_data(dir, sizeof dir)) return -1;
    snprintf(path, sizeof path, "%s/uci-dogaru/%s", dir, name);
    if (!fx_exists(path)) return -1;
    fsvc_load_opts o = {0};
    o.storage = storage;
    fsvc_error err;
    return fsvc_dataset_load(d, path, &o, &err);
}

/* The same settings on the same data read dense and read sparse: the
 * same centroids (random selection from the same shuffle) and the same
 * predictions, scores within float tolerance; direct and pcg, L2 gauss and
 * L1 tri. */
static void test_sparse_vs_dense(void **state)
{
    (void)state;
    fsvc_dataset dd, ds, td, ts;
    if (load_uci(&dd, "optd64.train", FSVC_STORE_DENSE)) { skip(); return; }
    assert_int_equal(load_uci(&ds, "optd64.train", FSVC_STORE_SPARSE), 0);
    assert_int_equal(load_uci(&td, "optd64.test", FSVC_STORE_DENSE), 0);
    assert_int_equal(load_uci(&ts, "optd64.test", FSVC_STORE_SPARSE), 0);
    assert_non_null(ds.csr);
    fsvc_dataset_fit_features(&td, dd.n, NULL, NULL, NULL);
    fsvc_dataset_fit_features(&ts, dd.n, NULL, NULL, NULL);
    static const int cfg[][3] = {{BNL_L2, BNL_GAUSS, FSVC_SOLVER_DIRECT},
                                 {BNL_L2, BNL_GAUSS, FSVC_SOLVER_PCG},
                                 {BNL_L1, BNL_TRI, FSVC_SOLVER_DIRECT}};
    for (size_t c = 0; c < 3; c++) {
        fsvc_param p;
        fsvc_param_default(&p);
        p.dist = cfg[c][0]; p.act = cfg[c][1]; p.solver = (fsvc_solver)cfg[c][2];
        p.select = FSVC_SELECT_RANDOM;
        p.max_neurons = 600;
        p.seed = 7;
        p.preprocess = FSVC_PRE_NONE;
        p.dtype = FSVC_F32;
        p.threads = 2;
        p.lambda = 1e-3;
        fsvc_model md, ms;
        fsvc_error err;
        if (fsvc_train(&md, NULL, &dd, &p, &err)) fail_msg("dense: %s", err.msg);
        if (fsvc_train(&ms, NULL, &ds, &p, &err)) fail_msg("sparse: %s", err.msg);
        assert_non_null(ms.Cs);
        assert_null(ms.C);
        assert_true(fabs(md.radius - ms.radius) <= 1e-5 * md.radius);
        assert_int_equal(md.m, ms.m);
        assert_memory_equal(md.lab, ms.lab, (size_t)md.m * sizeof *md.lab);
        int64_t N = td.N;
        int *pd = malloc((size_t)N * sizeof *pd), *ps = malloc((size_t)N * sizeof *ps);
        int *px = malloc((size_t)N * sizeof *px);
        double *sd = malloc((size_t)N * md.K * sizeof *sd), *ss = malloc((size_t)N * md.K * sizeof *ss);
        assert_int_equal(fsvc_predict(pd, sd, &md, &td, "cpu", 2, &err), FSVC_OK);
        assert_int_equal(fsvc_predict(ps, ss, &ms, &ts, "cpu", 2, &err), FSVC_OK);
        /* the sparse model on dense data, the dense model on sparse data */
        assert_int_equal(fsvc_predict(px, NULL, &ms, &td, "cpu", 2, &err), FSVC_OK);
        assert_memory_equal(px, ps, (size_t)N * sizeof *px);
        assert_int_equal(fsvc_predict(px, NULL, &md, &ts, "cpu", 2, &err), FSVC_OK);
        assert_memory_equal(px, pd, (size_t)N * sizeof *px);
        int64_t same = 0, right = 0;
        double maxd = 0;
        for (int64_t i = 0; i < N; i++) {
            same += pd[i] == ps[i];
            right += ps[i] == td.cls[i];
            for (int k = 0; k < md.K; k++) {
                double dlt = fabs(sd[i * md.K + k] - ss[i * md.K + k]);
                if (dlt > maxd) maxd = dlt;
            }
        }
        if (maxd > 2e-3 || same < N - 1)
            fail_msg("config %zu: %lld of %lld predictions agree, scores differ by up to %g",
                     c, (long long)same, (long long)N, maxd);
        assert_true((double)right / N > 0.9); /* a working classifier */
        free(pd); free(ps); free(px); free(sd); free(ss);
        fsvc_free_model(&md);
        fsvc_free_model(&ms);
    }
    fsvc_dataset_free(&dd); fsvc_dataset_free(&ds);
    fsvc_dataset_free(&td); fsvc_dataset_free(&ts);
}

/* The batched sparse novelty pass selects exactly what the plain
 * definition selects: a random sparse set (empty and full rows
 * included) under several orders, kernels and caps, and optd64. */
static void test_novelty_exact(void **state)
{
    (void)state;
    rnd r = {7};
    int n = 300;
    int64_t N = 700;
    float *dense = malloc((size_t)N * n * sizeof *dense);
    fsvc_csr *X = random_csr(dense, N, n, 0.03, &r);
    int64_t *order = malloc((size_t)N * sizeof *order);
    int64_t *s0 = malloc((size_t)N * sizeof *s0), *s1 = malloc((size_t)N * sizeof *s1);
    bnl_ctx cpu;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&cpu, "cpu", 2, 0, &err), FSVC_OK);
    static const int ops[][2] = {{BNL_L2, BNL_GAUSS}, {BNL_L1, BNL_TRI}, {BNL_L2, BNL_TRI}};
    static const double radii[] = {0.5, 2.0, 6.0};
    static const double prags[] = {0.25, 1.0, 4.0};
    int64_t total = 0;
    for (size_t o = 0; o < 3; o++)
        for (size_t q = 0; q < 3; q++) {
            for (int64_t i = 0; i < N; i++) order[i] = i;
            if (q) fsvc_shuffle(order, N, q);
            bnl_op op = {(bnl_dist)ops[o][0], (bnl_act)ops[o][1], FSVC_F32, radii[q], BNL_PREC_FULL};
            int64_t m0, m1, cap = q == 2 ? 50 : 0;
            double syn;
            fsvc_select_problem pb = {.ctx = &cpu, .op = &op, .Xs = X,
                                      .order = q ? order : NULL, .N = N, .n = n};
            fsvc_select_opt so = {.prag = prags[q], .max_m = cap};
            fsvc_sparse_novelty_seq(s0, &m0, &pb, &so);
            assert_int_equal(fsvc_sparse_novelty(s1, &m1, &syn, &pb, &so, &err), FSVC_OK);
            if (m0 != m1 || memcmp(s0, s1, (size_t)m0 * sizeof *s0))
                fail_msg("op %zu case %zu: batched %lld centroids, definition %lld", o, q,
                         (long long)m1, (long long)m0);
            assert_true(m0 > 1 && m0 < N);
            total += m0;
        }
    assert_true(total > 100);
    fsvc_csr_free(X);
    free(dense); free(order); free(s0); free(s1);
    bnl_ctx_close(&cpu);
}

/* The published FSVC results on optd64 (DESIGN.md), read sparse: L1
 * triangular r = 7.6, prag 1: 595 centroids, 1755/1797; L2 Gaussian
 * r = 1, prag 0.25: 1720 centroids, 1773/1797. */
static void test_published_sparse(void **state)
{
    (void)state;
    fsvc_dataset tr, te;
    if (load_uci(&tr, "optd64.train", FSVC_STORE_SPARSE)) { skip(); return; }
    assert_int_equal(load_uci(&te, "optd64.test", FSVC_STORE_SPARSE), 0);
    fsvc_dataset_fit_features(&te, tr.n, NULL, NULL, NULL);
    static const struct { int dist, act; double r, prag; int64_t m, right; } pub[] = {
        {BNL_L1, BNL_TRI, 7.6, 1, 595, 1755}, {BNL_L2, BNL_GAUSS, 1, 0.25, 1720, 1773}};
    for (int c = 0; c < 2; c++) {
        fsvc_param p;
        fsvc_param_default(&p);
        p.dist = pub[c].dist; p.act = pub[c].act; p.radius = pub[c].r; p.prag = pub[c].prag;
        p.select = FSVC_SELECT_GLOBAL;
        p.readout = FSVC_READOUT_ONEHOT;
        p.threads = 2;
        fsvc_model m;
        fsvc_error err;
        if (fsvc_train(&m, NULL, &tr, &p, &err)) fail_msg("%s", err.msg);
        assert_int_equal(m.m, pub[c].m);
        int *pred = malloc((size_t)te.N * sizeof *pred);
        assert_int_equal(fsvc_predict(pred, NULL, &m, &te, "cpu", 2, &err), FSVC_OK);
        int64_t right = 0;
        for (int64_t i = 0; i < te.N; i++) right += m.class_values[pred[i]] == te.y[i];
        assert_int_equal(right, pub[c].right);
        free(pred);
        fsvc_free_model(&m);
    }
    fsvc_dataset_free(&tr);
    fsvc_dataset_free(&te);
}

/* The radius search (-r auto) on sparse data finds the radius and the
 * centroids it finds on the same data read dense (optd64, L2 Gaussian
 * and L1 triangular, onehot). */
static void test_search_sparse(void **state)
{
    (void)state;
    fsvc_dataset dd, ds;
    if (load_uci(&dd, "optd64.train", FSVC_STORE_DENSE)) { skip(); return; }
    assert_int_equal(load_uci(&ds, "optd64.train", FSVC_STORE_SPARSE), 0);
    for (int c = 0; c < 2; c++) {
        fsvc_param p;
        fsvc_param_default(&p);
        p.radius = 0;
        p.radius_rms = 0; /* the search */
        p.readout = FSVC_READOUT_ONEHOT;
        p.select = FSVC_SELECT_GLOBAL;
        p.dist = c ? BNL_L1 : BNL_L2;
        p.act = c ? BNL_TRI : BNL_GAUSS;
        p.preprocess = FSVC_PRE_NONE;
        p.dtype = FSVC_F32;
        p.threads = 2;
        fsvc_model md, ms;
        fsvc_error err;
        if (fsvc_train(&md, NULL, &dd, &p, &err)) fail_msg("dense: %s", err.msg);
        if (fsvc_train(&ms, NULL, &ds, &p, &err)) fail_msg("sparse: %s", err.msg);
        if (fabs(md.radius - ms.radius) > 1e-6 * md.radius || md.m != ms.m)
            fail_msg("kernel %d: dense r = %.9g, %lld centroids; sparse r = %.9g, %lld", c,
                     md.radius, (long long)md.m, ms.radius, (long long)ms.m);
        assert_true(ms.m >= dd.N / 100 && ms.m <= dd.N / 10);
        fsvc_free_model(&md);
        fsvc_free_model(&ms);
    }
    fsvc_dataset_free(&dd);
    fsvc_dataset_free(&ds);
}

/* What sparse training does not run is refused naming --dense; a failure
 * leaves no model. */
static void test_refusals(void **state)
{
    (void)state;
    fsvc_dataset d;
    fsvc_error err;
    assert_int_equal(parse(&d, "1 1:1 3:2\n2 2:1\n1 1:2\n2 3:1\n", FSVC_STORE_SPARSE, &err), 0);
    fsvc_param p;
    fsvc_param_default(&p);
    fsvc_model m;
    p.readout = FSVC_READOUT_LMS;
    p.select = FSVC_SELECT_RANDOM;
    assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "LMS"));
    assert_non_null(strstr(err.msg, "--dense"));
    fsvc_param_default(&p);
    p.scale_features = 1;
    assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), FSVC_EUSAGE);
    /* a context that does not open: the error, and no half-built model left
     * (its class values freed, not leaked) */
    fsvc_param_default(&p);
    p.backend = "nosuch";
    assert_int_not_equal(fsvc_train(&m, NULL, &d, &p, &err), FSVC_OK);
    assert_non_null(strstr(err.msg, "nosuch"));
    assert_null(m.class_values);
    assert_int_equal(m.K, 0);
    /* the defaults (random selection, ridge) and the onehot readout run */
    fsvc_param_default(&p);
    p.threads = 1;
    assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), FSVC_OK);
    fsvc_free_model(&m);
    p.readout = FSVC_READOUT_ONEHOT;
    p.select = FSVC_SELECT_RANDOM;
    assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), FSVC_OK);
    fsvc_free_model(&m);
    fsvc_dataset_free(&d);
}

/* The sparse model file: version 4, small (8 bytes a nonzero), read back
 * the same; a dense model is still written as version 3; broken sparse
 * offsets and columns are refused. */
static void test_model_file(void **state)
{
    fsvc_dataset d;
    fsvc_error err;
    /* 40 rows of 50000 features, 3 values each */
    char *t = malloc(40 * 64), *at = t;
    for (int i = 0; i < 40; i++)
        at += sprintf(at, "%d %d:1 %d:0.5 %d:2\n", i % 2, i + 1, 1000 + i * 7, 40000 + i % 2);
    assert_int_equal(parse(&d, t, FSVC_STORE_SPARSE, &err), 0);
    free(t);
    fsvc_param p;
    fsvc_param_default(&p);
    p.threads = 1;
    fsvc_model m, back;
    if (fsvc_train(&m, NULL, &d, &p, &err)) fail_msg("%s", err.msg);
    char path[512];
    fx_join(path, sizeof path, *state, "s.fsvc");
    assert_int_equal(fsvc_model_save(&m, path, &err), FSVC_OK);
    FILE *f = fopen(path, "rb");
    unsigned char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(buf[8], 4);
    assert_true(len < 4000); /* dense: 40 x 40002 x 4 bytes = 6.4 MB */
    assert_int_equal(fsvc_model_load(&back, path, &err), FSVC_OK);
    assert_non_null(back.Cs);
    assert_int_equal(back.Cs->nnz, m.Cs->nnz);
    assert_memory_equal(back.Cs->row_ptr, m.Cs->row_ptr, (size_t)(m.m + 1) * 8);
    assert_memory_equal(back.Cs->col, m.Cs->col, (size_t)m.Cs->nnz * 4);
    assert_memory_equal(back.Cs->val, m.Cs->val, (size_t)m.Cs->nnz * 4);
    assert_memory_equal(back.R, m.R, (size_t)m.m * m.Kout * 8);
    int pa[40], pb[40];
    assert_int_equal(fsvc_predict(pa, NULL, &m, &d, "cpu", 1, &err), FSVC_OK);
    assert_int_equal(fsvc_predict(pb, NULL, &back, &d, "cpu", 1, &err), FSVC_OK);
    assert_memory_equal(pa, pb, sizeof pa);
    fsvc_free_model(&back);
    /* a column out of order: found by the model check, not by a crash */
    int32_t c0 = m.Cs->col[0];
    m.Cs->col[0] = m.Cs->col[1];
    assert_int_equal(fsvc_model_save(&m, path, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "not ascending"));
    m.Cs->col[0] = c0;
    /* offsets beyond nnz in a file: refused while parsing */
    {
        assert_int_equal(fsvc_model_save(&m, path, &err), FSVC_OK);
        unsigned char *b2 = malloc(len);
        memcpy(b2, buf, len);
        /* header 20 + 8 u32 + 2 f64 + 5 u32 + f64 + u64 m + u32 storage + u64 nnz
         * + K f64 + m u32 lab, then row_ptr[0..m] */
        size_t off = 20 + 32 + 16 + 20 + 8 + 8 + 4 + 8 + (size_t)m.K * 8 + (size_t)m.m * 4 + 8;
        assert_int_equal(b2[off], 3); /* row 0 holds 3 values */
        b2[off] = 0xff; /* row_ptr[1] beyond nnz, CRC made right again */
        uint32_t crc = (uint32_t)crc32(0L, b2 + 20, (uInt)(len - 24));
        for (int i = 0; i < 4; i++) b2[len - 4 + i] = (unsigned char)(crc >> (8 * i));
        fsvc_model bad;
        assert_int_equal(fsvc_model_parse(&bad, b2, len, "b.fsvc", &err), FSVC_EINPUT);
        if (!strstr(err.msg, "offsets are not ascending")) fail_msg("%s", err.msg);
        free(b2);
    }
    fsvc_free_model(&m);
    fsvc_dataset_free(&d);
    /* a dense model: version 3 as before */
    assert_int_equal(parse(&d, "1 1:1 3:2\n2 2:1\n1 1:2\n2 3:1\n", FSVC_STORE_DENSE, &err), 0);
    if (fsvc_train(&m, NULL, &d, &p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(fsvc_model_save(&m, path, &err), FSVC_OK);
    f = fopen(path, "rb");
    len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(buf[8], 3);
    assert_int_equal(fsvc_model_load(&back, path, &err), FSVC_OK);
    assert_null(back.Cs);
    fsvc_free_model(&back);
    fsvc_free_model(&m);
    fsvc_dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_reader_bad),
        cmocka_unit_test(test_auto),
        cmocka_unit_test_setup_teardown(test_gz, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test(test_fit_convert),
        cmocka_unit_test(test_layer_shapes),
        cmocka_unit_test(test_layer_check),
        cmocka_unit_test(test_inf),
        cmocka_unit_test(test_sparse_vs_dense),
        cmocka_unit_test(test_novelty_exact),
        cmocka_unit_test(test_published_sparse),
        cmocka_unit_test(test_search_sparse),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test_setup_teardown(test_model_file, fx_tmpdir_setup, fx_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
