/* test_model_bad.c - hostile and degenerate models (issue 15 defects 1, 7,
 * 11; issue 14 point 5).
 *
 * Model bytes are crafted field by field with a correct CRC
 * (tests/fuzz/model_fixup.h), so each check behind the CRC is reached:
 * sizes that overflow or do not match the bytes present, degenerate
 * values (m = 0, NaN centroids or weights, radius 0 or too small, class
 * values out of order, labels out of range, bad class names) are refused
 * with one line naming the file (FSVC_EINPUT) and nothing allocated.
 * Version 1 files (no class names) load; version 2 keeps the names; a
 * newer version is refused in words. Training that diverges (LMS), a
 * radius the kernel cannot use, all-zero activations in the ridge readout
 * are bad input in words, never a LAPACK code. Ground truth matches PNG
 * classes by name. The fuzz corpus of the model reader is replayed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/internal.h"
#include "fsvc/solver.h"
#include "tests/fuzz/model_fixup.h"
#include "tests/util/fixtures.h"

/* ---- crafting model bytes ---- */

typedef struct {
    uint32_t ver, dtype, n, rows, cols, scale, pre, dist, act;
    double radius, prag;
    uint32_t select, readout, regression, K, Kout;
    double y_offset;
    uint64_t m;          /* claimed */
    int64_t m_real;      /* arrays actually written (-1: m) */
    double cv[8];        /* class values (K <= 8 here) */
    int32_t lab0;        /* label of centroid 0 (others j % K) */
    double c0, r0;       /* value 0 of C (float types) and of R */
    int names;           /* version 2: write K names */
    const char *name[8];
    uint32_t name_count; /* 0: K */
    int extra;           /* zero bytes after the payload */
} spec;

static spec good(void)
{
    spec s = {2, FSVC_F32, 4, 2, 2, 0, 0, BNL_L2, BNL_GAUSS, 1.0, 1.0, FSVC_SELECT_GLOBAL,
              FSVC_READOUT_RIDGE, 0, 2, 2, 0.0, 3, -1, {0}, 0, 0.5, 1.0, 0, {0}, 0, 0};
    for (int k = 0; k < 8; k++) s.cv[k] = 10 + k;
    return s;
}

typedef struct { unsigned char *p; size_t len, cap; } buf;

static void put(buf *b, const void *src, size_t k)
{
    if (b->len + k > b->cap) {
        b->cap = (b->len + k) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->len, src, k);
    b->len += k;
}
static void u32(buf *b, uint32_t v) { unsigned char t[4]; for (int i = 0; i < 4; i++) t[i] = (unsigned char)(v >> 8 * i); put(b, t, 4); }
static void u64(buf *b, uint64_t v) { unsigned char t[8]; for (int i = 0; i < 8; i++) t[i] = (unsigned char)(v >> 8 * i); put(b, t, 8); }
static void f64(buf *b, double v) { uint64_t u; memcpy(&u, &v, 8); u64(b, u); }
static void f32(buf *b, float v) { uint32_t u; memcpy(&u, &v, 4); u32(b, u); }

/* The file bytes of s (header, payload, CRC): *len bytes, malloc'd. */
static unsigned char *craft(const spec *s, size_t *len)
{
    buf b = {0};
    put(&b, "FSVCMODL", 8);
    u32(&b, s->ver);
    u64(&b, 0);
    u32(&b, s->dtype); u32(&b, s->n); u32(&b, s->rows); u32(&b, s->cols);
    u32(&b, s->scale); u32(&b, s->pre); u32(&b, s->dist); u32(&b, s->act);
    f64(&b, s->radius); f64(&b, s->prag);
    u32(&b, s->select); u32(&b, s->readout); u32(&b, s->regression);
    u32(&b, s->K); u32(&b, s->Kout);
    f64(&b, s->y_offset);
    u64(&b, s->m);
    int64_t m = s->m_real >= 0 ? s->m_real : (int64_t)s->m;
    for (uint32_t k = 0; k < s->K && k < 8; k++) f64(&b, s->cv[k]);
    for (int64_t j = 0; j < m; j++) u32(&b, (uint32_t)(j ? (int32_t)(j % (s->K ? s->K : 1)) : s->lab0));
    for (int64_t q = 0; q < m * (int64_t)s->n; q++) {
        double v = q ? (double)(q % 7) : s->c0;
        if (s->dtype == FSVC_U8) { unsigned char c = (unsigned char)(q % 7); put(&b, &c, 1); }
        else if (s->dtype == FSVC_F32) f32(&b, (float)v);
        else f64(&b, v);
    }
    for (int64_t q = 0; q < m * (int64_t)s->Kout; q++) f64(&b, q ? 0.25 : s->r0);
    if (s->ver >= 2) {
        uint32_t cnt = s->names ? (s->name_count ? s->name_count : s->K) : 0;
        u32(&b, cnt);
        for (uint32_t k = 0; k < cnt; k++) {
            const char *nm = s->name[k % 8] ? s->name[k % 8] : "x";
            size_t l = strlen(nm);
            if (!strcmp(nm, "<NUL>")) { u32(&b, 3); put(&b, "a\0b", 3); continue; }
            u32(&b, (uint32_t)l);
            put(&b, nm, l);
        }
    }
    for (int q = 0; q < s->extra; q++) put(&b, "", 1);
    u32(&b, 0); /* CRC, fixed up */
    model_fixup(b.p, b.len);
    *len = b.len;
    return b.p;
}

/* Parses s's bytes: the status; on failure the message must hold `what`,
 * be one line and name the file; the model must be left empty. */
static int parse_spec(const spec *s, const char *what, fsvc_model *out)
{
    size_t len;
    unsigned char *p = craft(s, &len);
    fsvc_model m;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = fsvc_model_parse(&m, p, len, "crafted.fsvc", &err);
    free(p);
    if (rc == FSVC_OK) {
        if (what) fail_msg("wanted '%s', the model loaded (m %llu, n %u)", what, (unsigned long long)s->m, s->n);
        if (out) *out = m; else fsvc_free_model(&m);
        return rc;
    }
    if (!what) fail_msg("rc %d: %s", rc, err.msg);
    if (rc != FSVC_EINPUT) fail_msg("rc %d (%s)", rc, err.msg);
    if (!strstr(err.msg, what)) fail_msg("wanted '%s' in: %s", what, err.msg);
    assert_non_null(strstr(err.msg, "crafted.fsvc"));
    assert_null(strchr(err.msg, '\n'));
    assert_null(m.C);
    assert_null(m.R);
    assert_null(m.lab);
    assert_null(m.class_values);
    assert_null(m.class_names);
    return rc;
}

static void crafted_good(void **st)
{
    (void)st;
    spec s = good();
    fsvc_model m;
    parse_spec(&s, NULL, &m);
    assert_int_equal(m.m, 3);
    assert_null(m.class_names);
    fsvc_free_model(&m);
    s.ver = 1; /* the version-1 layout: no names section */
    parse_spec(&s, NULL, &m);
    assert_int_equal(m.K, 2);
    assert_true(m.class_values[1] == 11);
    fsvc_free_model(&m);
    s = good();
    s.names = 1; s.name[0] = "cat"; s.name[1] = "dog";
    parse_spec(&s, NULL, &m);
    assert_non_null(m.class_names);
    assert_string_equal(m.class_names[1], "dog");
    char t[64];
    assert_string_equal(fsvc_model_class_text(&m, 0, t, sizeof t), "cat");
    fsvc_free_model(&m);
    s = good();
    parse_spec(&s, NULL, &m);
    assert_string_equal(fsvc_model_class_text(&m, 1, t, sizeof t), "11");
    fsvc_free_model(&m);
}

/* Readout weights near DBL_MAX (issue 26): finite in the file, their sum
 * overflows; predict said nothing and -b 1 printed -nan probabilities.
 * Now bad input naming the data and the sample. */
static void readout_overflow(void **st)
{
    (void)st;
    spec s = good();
    fsvc_model m;
    parse_spec(&s, NULL, &m);
    for (int64_t q = 0; q < m.m * m.Kout; q++) m.R[q] = 1e308;
    float x[4], *c = m.C;
    for (int64_t j = 1; j < m.m; j++) memcpy(c + 4 * j, c, 4 * sizeof *c);
    memcpy(x, c, sizeof x); /* every centroid is the sample: 3 x 1e308 */
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = 1; d.n = 4; d.dtype = FSVC_F32; d.x = x;
    snprintf(d.source, sizeof d.source, "big.data");
    int pred;
    double score[2];
    fsvc_error err;
    fsvc_error_clear(&err);
    assert_int_equal(fsvc_predict(&pred, score, &m, &d, "cpu", 1, &err), FSVC_EINPUT);
    if (!strstr(err.msg, "big.data: sample 1: the model's score 1 is not finite"))
        fail_msg("%s", err.msg);
    fsvc_free_model(&m);
}

/* Defect 1's class: every size from the file checked in 64-bit arithmetic
 * before allocation, against the limits and the bytes present. */
static void sizes(void **st)
{
    (void)st;
    spec s = good();
    s.m = (uint64_t)1 << 62; s.m_real = 3; /* m x per-centroid bytes overflows */
    parse_spec(&s, "payload size", NULL);
    s = good();
    s.m = UINT64_MAX; s.m_real = 3;
    parse_spec(&s, "payload size", NULL);
    s = good();
    s.n = FSVC_MODEL_MAX_N; s.rows = s.cols = 0; s.m = (uint64_t)1 << 40; s.m_real = 0;
    parse_spec(&s, "payload size", NULL);
    s = good();
    s.m = 4; s.m_real = 3; /* claims one centroid more than present */
    parse_spec(&s, "payload size", NULL);
    s = good();
    s.m = 2; s.m_real = 3; s.ver = 1; /* one centroid less: bytes left over */
    parse_spec(&s, "payload size", NULL);
    s = good();
    s.extra = 3; /* bytes after the names section */
    parse_spec(&s, "bytes left over", NULL);
    s = good();
    s.names = 1; s.extra = 1; /* the same with names */
    parse_spec(&s, "bytes left over", NULL);
    s = good();
    s.n = 0; s.rows = s.cols = 0;
    parse_spec(&s, "features", NULL);
    s = good();
    s.n = FSVC_MODEL_MAX_N + 1; s.rows = s.cols = 0;
    parse_spec(&s, "features", NULL);
    s = good();
    s.rows = 1u << 24; s.cols = 1; /* rows x cols != n */
    parse_spec(&s, "geometry", NULL);
    s = good();
    s.rows = 0x80000000u; s.cols = 0x80000000u; /* product wraps 32 bits to 0 */
    parse_spec(&s, "geometry", NULL);
    s = good();
    s.rows = 4; s.cols = 0;
    parse_spec(&s, "geometry", NULL);
    s = good();
    s.K = FSVC_MODEL_MAX_K + 1; s.Kout = s.K;
    parse_spec(&s, "classes", NULL);
    s = good();
    s.K = 0xffffffffu; s.Kout = 1;
    parse_spec(&s, "classes", NULL);
    s = good();
    s.Kout = 3; /* classifier with Kout != K */
    parse_spec(&s, "inconsistent", NULL);
    s = good();
    s.dtype = 7;
    parse_spec(&s, "centroid type", NULL);
    s = good();
    s.names = 1; s.name_count = 5; /* names for another K */
    parse_spec(&s, "class names", NULL);
}

/* Defect 7: degenerate values are refused at load. */
static void values(void **st)
{
    (void)st;
    spec s = good();
    s.m = 0; s.m_real = 0;
    parse_spec(&s, "no centroids", NULL);
    s = good(); s.c0 = NAN;
    parse_spec(&s, "value 1 of centroid 1 is not finite", NULL);
    s = good(); s.dtype = FSVC_F64; s.c0 = INFINITY;
    parse_spec(&s, "not finite", NULL);
    s = good(); s.r0 = NAN;
    parse_spec(&s, "readout weight 1 of centroid 1 is not finite", NULL);
    double radii[] = {0, -1, NAN, INFINITY, 1e-300};
    for (int i = 0; i < 5; i++) {
        s = good(); s.radius = radii[i];
        parse_spec(&s, "radius", NULL);
    }
    s = good(); s.act = BNL_TRI; s.radius = 1e-40; /* 1/(2.5 r) overflows a float */
    parse_spec(&s, "too small", NULL);
    s = good(); s.act = BNL_TRI; s.dtype = FSVC_F64; s.radius = 1e-300; /* fine in double */
    parse_spec(&s, NULL, NULL);
    s = good(); s.prag = NAN;
    parse_spec(&s, "prag", NULL);
    s = good(); s.y_offset = INFINITY;
    parse_spec(&s, "offset", NULL);
    s = good(); s.cv[1] = s.cv[0];
    parse_spec(&s, "strictly ascending", NULL);
    s = good(); s.cv[0] = 20;
    parse_spec(&s, "strictly ascending", NULL);
    s = good(); s.cv[1] = NAN;
    parse_spec(&s, "class value 2 is not finite", NULL);
    s = good(); s.lab0 = 2;
    parse_spec(&s, "centroid 1 has an invalid class", NULL);
    s = good(); s.lab0 = -1;
    parse_spec(&s, "invalid class", NULL);
    s = good(); s.dist = 2;
    parse_spec(&s, "distance", NULL);
    s = good(); s.act = BNL_TANH;
    parse_spec(&s, "kernel", NULL);
    s = good(); s.pre = FSVC_PRE_AUTO;
    parse_spec(&s, "preprocessing", NULL);
    s = good(); s.pre = FSVC_PRE_SQRT; s.dtype = FSVC_U8;
    parse_spec(&s, "sqrt", NULL);
    s = good(); s.pre = FSVC_PRE_DESKEW; s.rows = s.cols = 0;
    parse_spec(&s, "deskew", NULL);
    s = good(); s.regression = 1; s.K = 0; s.Kout = 1; s.lab0 = 0; /* valid regression */
    parse_spec(&s, NULL, NULL);
    s = good(); s.regression = 1; s.K = 2; s.Kout = 1;
    parse_spec(&s, "inconsistent", NULL);
    s = good(); s.regression = 7;
    parse_spec(&s, "regression", NULL);
    /* class names: empty, control character, NUL inside, duplicate, too long */
    static char longname[FSVC_MODEL_MAX_NAME + 2];
    memset(longname, 'a', FSVC_MODEL_MAX_NAME + 1);
    const char *bad[][2] = {{"", "b"}, {"a\nb", "c"}, {"<NUL>", "c"}, {"dog", "dog"},
                            {longname, "c"}};
    const char *why[] = {"empty name", "control character", "NUL", "two classes are named",
                         "longer than"};
    for (int i = 0; i < 5; i++) {
        s = good(); s.names = 1; s.name[0] = bad[i][0]; s.name[1] = bad[i][1];
        parse_spec(&s, why[i], NULL);
    }
}

/* Versions: a newer one is refused in words, 0 too; 1 and 2 load. */
static void versions(void **st)
{
    (void)st;
    spec s = good();
    s.ver = 8;
    parse_spec(&s, "version 8; this fsvc reads versions 1 to 7", NULL);
    s.ver = 0;
    parse_spec(&s, "version 0", NULL);
}

/* Save: the class names survive the file; an invalid model is not
 * written at all (no file, no temporary). */
static void save_names_and_refuse(void **st)
{
    (void)st;
    spec s = good();
    s.names = 1; s.name[0] = "cat"; s.name[1] = "dog, the \"good\" one";
    fsvc_model a, b;
    parse_spec(&s, NULL, &a);
    char *dir = fx_tmpdir(), path[1024], path2[1024];
    fx_join(path, sizeof path, dir, "n.fsvc");
    fx_join(path2, sizeof path2, dir, "bad.fsvc");
    fsvc_error err;
    assert_int_equal(fsvc_model_save(&a, path, &err), FSVC_OK);
    assert_int_equal(fsvc_model_load(&b, path, &err), FSVC_OK);
    assert_non_null(b.class_names);
    assert_string_equal(b.class_names[0], "cat");
    assert_string_equal(b.class_names[1], "dog, the \"good\" one");
    fsvc_free_model(&b);
    a.R[1] = NAN;
    assert_int_equal(fsvc_model_save(&a, path2, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "not finite"));
    assert_false(fx_exists(path2));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
    assert_int_equal(system(cmd), 0); /* only n.fsvc */
    fsvc_free_model(&a);
    fx_rmtree(dir);
    free(dir);
}

/* A model built in memory with degenerate values: predict refuses it
 * instead of printing garbage. */
static void predict_refuses(void **st)
{
    (void)st;
    spec s = good();
    fsvc_model m;
    parse_spec(&s, NULL, &m);
    double x[8] = {0, 1, 2, 3, 3, 2, 1, 0};
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = 2; d.n = 4; d.dtype = FSVC_F64; d.x = x;
    snprintf(d.source, sizeof d.source, "mem");
    int pred[2];
    fsvc_error err;
    assert_int_equal(fsvc_predict(pred, NULL, &m, &d, "cpu", 1, &err), FSVC_OK);
    ((float *)m.C)[5] = NAN;
    assert_int_equal(fsvc_predict(pred, NULL, &m, &d, "cpu", 1, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "not finite"));
    ((float *)m.C)[5] = 0;
    int64_t m0 = m.m;
    m.m = 0;
    assert_int_equal(fsvc_predict(pred, NULL, &m, &d, "cpu", 1, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "no centroids"));
    m.m = m0;
    fsvc_free_model(&m);
}

/* ---- degenerate training ---- */

static void synth(fsvc_dataset *d, int64_t N, int n, int K, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->N = N; d->n = n; d->dtype = FSVC_F64; d->has_labels = 1; d->K = K;
    double *x = malloc(N * n * sizeof *x);
    d->y = malloc(N * sizeof *d->y);
    d->cls = malloc(N * sizeof *d->cls);
    d->class_values = malloc(K * sizeof *d->class_values);
    for (int k = 0; k < K; k++) d->class_values[k] = k;
    uint64_t st = seed;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(fsvc_rng_next(&st) % K);
        d->cls[i] = k; d->y[i] = k;
        for (int j = 0; j < n; j++)
            x[i * n + j] = (j % K == k ? 3.0 : 0.0) + (double)(fsvc_rng_next(&st) % 1000) / 1000;
    }
    d->x = x;
    snprintf(d->source, sizeof d->source, "synthetic");
}

static int train_with(fsvc_param *p, fsvc_error *err)
{
    fsvc_dataset d;
    synth(&d, 300, 8, 3, 5);
    fsvc_model m;
    int rc = fsvc_train(&m, NULL, &d, p, err);
    if (rc == FSVC_OK) {
        fsvc_error e2;
        assert_int_equal(fsvc_model_check(&m, "trained", &e2), FSVC_OK);
    } else {
        assert_null(m.C); /* nothing half-made is returned */
        assert_null(m.R);
        assert_null(strchr(err->msg, '\n'));
    }
    fsvc_free_model(&m);
    fsvc_dataset_free(&d);
    return rc;
}

/* -R lms -e 1e300 saved an all-NaN readout with exit 0. */
static void lms_diverges(void **st)
{
    (void)st;
    fsvc_param p;
    fsvc_param_default(&p);
    p.readout = FSVC_READOUT_LMS; p.eta = 1e300; p.epochs = 2; p.preprocess = FSVC_PRE_NONE;
    fsvc_error err;
    assert_int_equal(train_with(&p, &err), FSVC_EINPUT);
    if (!strstr(err.msg, "diverged") || !strstr(err.msg, "-e")) fail_msg("%s", err.msg);
    p.eta = 0.01; /* a sane rate trains */
    assert_int_equal(train_with(&p, &err), FSVC_OK);
}

/* -r 1e-300 failed with LAPACK "argument 4 invalid" and exit 3. */
static void radius_too_small(void **st)
{
    (void)st;
    fsvc_param p;
    fsvc_param_default(&p);
    p.preprocess = FSVC_PRE_NONE; p.radius = 1e-300;
    fsvc_error err;
    int acts[] = {BNL_GAUSS, BNL_TRI};
    for (int i = 0; i < 2; i++) {
        p.act = acts[i];
        assert_int_equal(train_with(&p, &err), FSVC_EINPUT);
        if (!strstr(err.msg, "too small") || !strstr(err.msg, "-r") || strstr(err.msg, "LAPACK"))
            fail_msg("%s", err.msg);
    }
    p.act = BNL_GAUSS; p.radius = 2.0;
    assert_int_equal(train_with(&p, &err), FSVC_OK);
}

/* All activations 0 (no centroid reaches any sample) is bad input in
 * words, not a LAPACK code or a silent all-zero readout. */
static void ridge_all_zero(void **st)
{
    (void)st;
    enum { N = 40, M = 5, n = 3, K = 2 };
    double X[N * n], C[M * n], R[M * K];
    int cls[N];
    for (int i = 0; i < N; i++) { cls[i] = i % K; for (int j = 0; j < n; j++) X[i * n + j] = i + j; }
    for (int j = 0; j < M * n; j++) C[j] = 1e6 + j; /* far from every sample */
    bnl_ctx ctx;
    fsvc_error err;
    assert_int_equal(bnl_ctx_open(&ctx, "cpu", 1, 0, &err), FSVC_OK);
    bnl_op op = { BNL_L1, BNL_TRI, FSVC_F64, 1.0 , BNL_PREC_FULL};
    fsvc_ridge_problem pb = {.ctx = &ctx, .op = &op, .C = C, .m = M, .X = X, .cls = cls,
                             .N = N, .n = n, .K = K};
    int rc = fsvc_readout_ridge(R, &pb, 1e-5, -1, 0, NULL, &err);
    assert_int_equal(rc, FSVC_EINPUT);
    if (!strstr(err.msg, "every activation is 0") || !strstr(err.msg, "-r")) fail_msg("%s", err.msg);
    /* no centroids at all */
    pb.m = 0;
    rc = fsvc_readout_ridge(R, &pb, 1e-5, -1, 0, NULL, &err);
    pb.m = M;
    assert_int_equal(rc, FSVC_EINPUT);
    /* the same centroids near the data solve fine */
    for (int j = 0; j < M * n; j++) C[j] = X[j * 7 % (N * n)];
    op.radius = 50;
    assert_int_equal(fsvc_readout_ridge(R, &pb, 1e-5, -1, 0, NULL, &err), FSVC_OK);
    for (int q = 0; q < M * K; q++) assert_true(isfinite(R[q]));
    bnl_ctx_close(&ctx);
}

/* ---- class names: stored by training, truth by name ---- */

static void names_from_training_and_truth(void **st)
{
    (void)st;
    fsvc_dataset d;
    synth(&d, 200, 8, 2, 9);
    d.class_names = malloc(2 * sizeof *d.class_names);
    d.class_names[0] = strdup("cat");
    d.class_names[1] = strdup("dog");
    fsvc_param p;
    fsvc_param_default(&p);
    p.preprocess = FSVC_PRE_NONE; p.radius = 2.0;
    fsvc_model m;
    fsvc_error err;
    assert_int_equal(fsvc_train(&m, NULL, &d, &p, &err), FSVC_OK);
    assert_non_null(m.class_names);
    assert_string_equal(m.class_names[0], "cat");
    assert_string_equal(m.class_names[1], "dog");
    /* evaluated on {dog, fox}: values 0, 1 there, names decide */
    fsvc_dataset e;
    synth(&e, 6, 8, 2, 10);
    e.class_names = malloc(2 * sizeof *e.class_names);
    e.class_names[0] = strdup("dog");
    e.class_names[1] = strdup("fox");
    int truth[6];
    int64_t unknown = fsvc_model_truth(truth, &m, &e), fox = 0;
    for (int i = 0; i < 6; i++) {
        if (e.cls[i] == 0) assert_int_equal(truth[i], 1); /* dog -> the model's dog */
        else { assert_int_equal(truth[i], -1); fox++; }   /* fox: not in the model */
    }
    assert_int_equal(unknown, fox);
    assert_true(fox > 0 && fox < 6);
    /* without names on the data side: by value */
    for (int k = 0; k < 2; k++) free(e.class_names[k]);
    free(e.class_names);
    e.class_names = NULL;
    assert_int_equal(fsvc_model_truth(truth, &m, &e), 0);
    for (int i = 0; i < 6; i++) assert_int_equal(truth[i], e.cls[i]);
    fsvc_free_model(&m);
    fsvc_dataset_free(&d);
    fsvc_dataset_free(&e);
}

/* ---- the fuzz harness over its kept corpus (crashes found, seeds) ---- */

#define LLVMFuzzerTestOneInput fuzz_model_one
#include "tests/fuzz/fuzz_model.c"

static void fuzz_corpus(void **st)
{
    (void)st;
    const char *dir = "tests/fuzz/corpus/fuzz_model";
    DIR *dp = opendir(dir);
    if (!dp) fail_msg("%s: cannot open (run the tests from the repository root)", dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        unsigned char *b = malloc(1 << 20);
        size_t len = fread(b, 1, 1 << 20, f);
        fclose(f);
        fuzz_model_one(b, len); /* aborts on a broken invariant */
        free(b);
        files++;
    }
    closedir(dp);
    assert_true(files > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crafted_good),
        cmocka_unit_test(sizes),
        cmocka_unit_test(values),
        cmocka_unit_test(versions),
        cmocka_unit_test(save_names_and_refuse),
        cmocka_unit_test(predict_refuses),
        cmocka_unit_test(lms_diverges),
        cmocka_unit_test(radius_too_small),
        cmocka_unit_test(ridge_all_zero),
        cmocka_unit_test(names_from_training_and_truth),
        cmocka_unit_test(fuzz_corpus),
        cmocka_unit_test(readout_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
