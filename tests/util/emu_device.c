/* emu_device.c - see emu_device.h. The job code is the former driver
 * emulation of tests/test_cuda_emu2.c (which now uses it from here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include <cmocka.h>
#include <cblas.h>
#include <lapacke.h>

#include "cuda/kernels_hd.h"
#include "layers/act.h"
#include "layers/backend.h" /* bnl_ref_forward: ed_time_forward's layer */
#include "cuda/bnl_cuda.h"   /* bnl_cuda_supports: the layers the device takes */
#include "fsvc/internal.h"

#include "tests/cuda_emu_grid.h"
#include "emu_device.h"

/* the transfer counts of the emulated device */
static struct {
    emu_stats st;
    int64_t mem, Nt, Xc;
} g = {{0}, (int64_t)16 << 30, 48, 112};

static void up(int64_t b) { g.st.up += b; }
static void down(int64_t b)
{
    g.st.down += b;
    if (b > g.st.max_down) g.st.max_down = b;
}


void emu_init(emu *e, bnl_op op, const void *W, int64_t m, int64_t N, int n, int K,
                     int64_t Nt, int64_t Xc)
{
    memset(e, 0, sizeof *e);
    e->op = op; e->m = m; e->N = N; e->n = n; e->K = K; e->Nt = Nt; e->Xc = Xc;
    e->es = op.dtype == FSVC_U8 ? 1 : 4;
    e->tile_op = op.dtype == FSVC_U8 ? (op.dist == BNL_L1 ? BNLC_U8_L1 : op.dist == BNL_L2
                                        ? BNLC_U8_L2 : BNLC_U8_DOT)
                                     : (op.dist == BNL_L1 ? BNLC_F32_L1 : -1);
    e->l2 = op.dist == BNL_L2;
    e->ldo = (m + 3) / 4 * 4;
    e->Wp = pack(W, m, n, e->es, &e->ldk);
    up(m * e->ldk * 4);
    e->wn = malloc(sizeof(float) * (size_t)m);
    assert_non_null(e->wn);
    for (int64_t j = 0; j < m; j++)
        e->wn[j] = e->tile_op < 0 ? bnlc_rownorm_f((const float *)e->Wp, e->ldk, n, j) : 0.0f;
}

void emu_free(emu *e)
{
    free(e->Wp); free(e->wn); free(e->G); free(e->dg); free(e->B0);
}

/* H (nt x ldo, NaN beyond what the kernels write) of chunk rows Xp, then
 * widened into Hd (column-major m x nt), as dstream_tile. */
static void emu_tile(const emu *e, const uint32_t *Xp, const float *xn, int64_t nt, float *H,
                     double *Hd)
{
    bnl_actp a = bnl_actp_make(&e->op);
    bnlc_actp p = {(int)a.act, (int)a.vk, a.a, a.g};
    for (int64_t q = 0; q < e->Nt * e->ldo; q++) H[q] = NAN;
    for (int64_t q = 0; q < e->Nt * e->m; q++) Hd[q] = NAN;
    if (e->tile_op >= 0) {
        emulate_tile(e->tile_op, &p, H, e->ldo, 0, e->Wp, e->m, Xp, nt, e->ldk);
    } else {
        cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)e->m, (int)nt, e->n,
                    e->l2 ? -2.0f : 1.0f, (const float *)e->Wp, (int)e->ldk,
                    (const float *)Xp, (int)e->ldk, 0.0f, H, (int)e->ldo);
        for (int64_t r = 0; r < nt; r++)   /* bnl_gemm_epi_kernel's grid */
            for (int64_t c = 0; c < e->m; c++)
                H[r * e->ldo + c] = bnlc_gemm_epi_f(H[r * e->ldo + c], e->l2 ? xn[r] : 0.0f,
                                                  e->l2 ? e->wn[c] : 0.0f, e->l2, &p);
    }
    for (int64_t r = 0; r < nt; r++)       /* widen_kernel's grid */
        for (int64_t c = 0; c < e->m; c++)
            bnlc_widen_body(Hd, e->m, H, e->ldo, r, c);
}


/* dstream_run: chunks of Xc samples, tiles of Nt, targets per chunk. */
void emu_run(emu *e, const void *X, const int *cls, const double *y, emu_fn fn, void *u)
{
    float *H = malloc(sizeof(float) * (size_t)(e->Nt * e->ldo));
    double *Hd = malloc(sizeof(double) * (size_t)(e->Nt * e->m));
    double *T = malloc(sizeof(double) * (size_t)(e->Xc * e->K));
    double *sw = malloc(sizeof(double) * (size_t)e->Xc);
    float *xn = malloc(sizeof(float) * (size_t)e->Xc);
    int wt = e->cw && cls && !y;
    assert_non_null(H); assert_non_null(Hd); assert_non_null(T); assert_non_null(xn);
    assert_non_null(sw);
    for (int64_t i0 = 0; i0 < e->N; i0 += e->Xc) {
        int64_t rows = e->N - i0 < e->Xc ? e->N - i0 : e->Xc, ldk;
        uint32_t *Xp = pack((const char *)X + (size_t)i0 * e->n * e->es, rows, e->n, e->es, &ldk);
        /* the chunk, its targets, the weights */
        up(rows * ldk * 4 + (cls ? rows * 4 : y ? rows * 8 : 0) + (wt ? rows * 8 : 0));
        for (int64_t r = 0; r < rows; r++) {
            if (cls || y)
                bnlc_target_body(T, e->K, cls ? cls + i0 : NULL, y ? y + i0 : NULL, r);
            if (wt)
                bnlc_weight_body(sw, T, e->K, cls + i0, e->cw, r);
            xn[r] = e->tile_op < 0 ? bnlc_rownorm_f((const float *)Xp, ldk, e->n, r) : 0.0f;
        }
        for (int64_t t0 = 0; t0 < rows; t0 += e->Nt) {
            int64_t nt = rows - t0 < e->Nt ? rows - t0 : e->Nt;
            emu_tile(e, Xp + t0 * ldk, xn + t0, nt, H, Hd);
            if (wt)                        /* rowscale_kernel's grid */
                for (int64_t r = 0; r < nt; r++)
                    for (int64_t c = 0; c < e->m; c++)
                        bnlc_rowscale_body(Hd, e->m, sw + t0, r, c);
            fn(e, Hd, T + t0 * e->K, i0 + t0, nt, u);
        }
        free(Xp);
    }
    free(H); free(Hd); free(T); free(xn); free(sw);
}

static void ridge_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u)
{
    (void)i0; (void)u;
    /* cublasDsyrk(LOWER, N, m, nt, 1, Hd, m, 1, G, m);
     * cublasDgemm(N, T, m, K, nt, 1, Hd, m, T, K, 1, B, m) */
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)e->m, (int)nt, 1.0, Hd,
                (int)e->m, 1.0, e->G, (int)e->m);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)e->m, e->K, (int)nt, 1.0, Hd,
                (int)e->m, T, e->K, 1.0, e->B0, (int)e->m);
}

/* bnl_cuda_normal_accum */
void emu_accum(emu *e, const void *X, const int *cls, const double *y)
{
    int64_t m = e->m;
    e->G = calloc((size_t)(m * m), sizeof(double));
    e->dg = malloc(sizeof(double) * (size_t)m);
    e->B0 = calloc((size_t)(m * e->K), sizeof(double));
    assert_non_null(e->G); assert_non_null(e->dg); assert_non_null(e->B0);
    emu_run(e, X, cls, y, ridge_fn, NULL);
    for (int64_t j = 0; j < m; j++)
        bnlc_getdiag_body(e->dg, e->G, m, j);
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++)
            bnlc_mirror_body(e->G, m, i, j, 1);
}

/* bnl_cuda_normal_solve: R column-major m x K; the potrf info. */
int emu_solve(emu *e, double lam, double *R)
{
    int64_t m = e->m;
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++)
            bnlc_mirror_body(e->G, m, i, j, 0);
    for (int64_t j = 0; j < m; j++)
        bnlc_diag_body(e->G, m, e->dg, lam, j);
    memcpy(R, e->B0, sizeof(double) * (size_t)(m * e->K));
    int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (int)m, e->G, (int)m);
    if (info)
        return info;
    return LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (int)m, e->K, e->G, (int)m, R, (int)m);
}


void emu_scores_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u)
{
    (void)T;
    struct emu_scores_u *q = u;
    /* cublasDgemm(N, N, K, nt, m, 1, R, K, Hd, m, 0, Y, K) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, e->K, (int)nt, (int)e->m, 1.0, q->R,
                e->K, Hd, (int)e->m, 0.0, q->Y + i0 * e->K, e->K);
}

void emu_apply_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u)
{
    (void)i0;
    struct emu_apply_u *q = u;
    /* cublasDgemm(T, N, nt, K, m, 1, Hd, m, V, m, 0, Z, nt);
     * cublasDgemm(N, N, m, K, nt, 1, Hd, m, Z, nt, 1, Y, m);
     * rhs: cublasDgemm(N, T, m, K, nt, 1, Hd, m, T, K, 1, B, m), cublasDdot */
    if (q->V) {
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)nt, e->K, (int)e->m, 1.0, Hd,
                    (int)e->m, q->V, (int)e->m, 0.0, q->Z, (int)nt);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)e->m, e->K, (int)nt, 1.0, Hd,
                    (int)e->m, q->Z, (int)nt, 1.0, q->Y, (int)e->m);
    }
    if (q->B) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)e->m, e->K, (int)nt, 1.0, Hd,
                    (int)e->m, T, e->K, 1.0, q->B, (int)e->m);
        q->sumsq += cblas_ddot((int)(e->m * nt), Hd, 1, Hd, 1);
    }
}

/* lms_kernel: one block of BNLC_LMS_THREADS threads, each phase run for
 * every thread before the barrier; the shared partial sums are refilled
 * with garbage per slice (phase 1 must write every word phase 2 reads). */
void emu_lms_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u)
{
    struct emu_lms_u *q = u;
    const int NT = BNLC_LMS_THREADS;
    int K = e->K;
    double *part = malloc(sizeof(double) * BNLC_LMS_KC * NT);
    assert_non_null(part);
    int64_t sbad = *q->bad;
    for (int64_t s = 0; s < nt && sbad < 0; s++) {
        const double *z = Hd + s * e->m;
        for (int k0 = 0; k0 < K; k0 += BNLC_LMS_KC) {
            int kn = K - k0 < BNLC_LMS_KC ? K - k0 : BNLC_LMS_KC;
            for (int w = 0; w < BNLC_LMS_KC * NT; w++) part[w] = NAN;
            for (int t = 0; t < NT; t++)
                bnlc_lms_dot_body(part, z, q->R, e->m, K, k0, kn, t, NT);
            for (int half = NT / 2; half > 0; half /= 2)
                for (int t = 0; t < NT; t++)
                    bnlc_lms_fold_body(part, NT, kn, half, t);
            for (int t = 0; t < NT; t++)
                bnlc_lms_err_body(q->E, part, NT, T + s * K, k0, kn, i0 + s, &sbad, t);
        }
        if (sbad >= 0)
            break;
        for (int t = 0; t < NT; t++)
            bnlc_lms_update_body(q->R, z, q->E, e->m, K, q->eta, t, NT);
    }
    *q->bad = sbad;
    free(part);
}

/* ---- the backend table (layers/bnl_backend_ops.h) ---- */
struct bnl_cuda {
    int open;
};
struct bnl_normal_impl {
    emu e;
    int have; /* e holds an accumulated G */
};

static int ed_open(bnl_cuda **out, int strict, fsvc_error *err)
{
    (void)strict;
    if (!(*out = calloc(1, sizeof **out)))
        return fsvc_fail(err, FSVC_ERESOURCE, "emu: out of memory");
    (*out)->open = 1;
    return FSVC_OK;
}

static void ed_close(bnl_cuda *c) { free(c); }

struct fwd_u { float *H; int64_t ldh; };

static void fwd_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u)
{
    (void)T;
    struct fwd_u *q = u;
    for (int64_t r = 0; r < nt; r++) /* the float tile, widened exactly: back as it was */
        for (int64_t c = 0; c < e->m; c++)
            q->H[(i0 + r) * q->ldh + c] = (float)Hd[r * e->m + c];
    down(nt * e->m * 4);
    g.st.forward_down += nt * e->m * 4;
}

static int ed_forward(const bnl_ctx *ctx, const bnl_op *op, void *H, int64_t ldh, const void *W,
                      int64_t m, const void *X, int64_t N, int n, fsvc_error *err)
{
    (void)ctx; (void)err;
    emu e;
    emu_init(&e, *op, W, m, N, n, 1, g.Nt, g.Xc);
    struct fwd_u u = {H, ldh};
    emu_run(&e, X, NULL, NULL, fwd_fn, &u);
    emu_free(&e);
    g.st.forward++;
    return FSVC_OK;
}

/* The float tile transposed (m x nt) as the device's reduction kernels
 * read it; the caller frees it. */
static float *transposed_tile(const emu *e, const double *Hd, int64_t nt)
{
    float *Ht = malloc(sizeof(float) * (size_t)(e->m * nt));
    assert_non_null(Ht);
    for (int64_t r = 0; r < nt; r++)
        for (int64_t j = 0; j < e->m; j++)
            Ht[j * nt + r] = (float)Hd[r * e->m + j];
    return Ht;
}

/* A per-sample fold kernel's grid (bnlc_actsum_body_f, bnlc_mind_body) over
 * the transposed float tile (m x nt), into the doubles u + i0. */
typedef void (*fold_body)(double *, const float *, int64_t, int64_t, int64_t);
static void fold_tile(emu *e, const double *Hd, int64_t i0, int64_t nt, double *u,
                      fold_body body)
{
    float *Ht = transposed_tile(e, Hd, nt);
    for (int64_t r = 0; r < nt; r++)
        body(u + i0, Ht, nt, e->m, r);
    free(Ht);
}

/* bnl_actsum_kernel's grid */
static void actsum_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u)
{
    (void)T;
    fold_tile(e, Hd, i0, nt, u, bnlc_actsum_body_f);
}

static int ed_actsum(const bnl_ctx *ctx, const bnl_op *op, double *S, const void *W, int64_t m,
                     const void *X, int64_t N, int n, fsvc_error *err)
{
    (void)ctx; (void)err;
    emu e;
    emu_init(&e, *op, W, m, N, n, 1, g.Nt, g.Xc);
    up(N * 8);
    emu_run(&e, X, NULL, NULL, actsum_fn, S);
    emu_free(&e);
    down(N * 8);
    g.st.actsum++;
    return FSVC_OK;
}

static int ed_scores(const bnl_ctx *ctx, const bnl_op *op, double *Y, const void *W, int64_t m,
                     const void *X, int64_t N, int n, const double *R, int K, fsvc_error *err)
{
    (void)ctx;
    if (m < 1 || N < 1 || n < 1 || K < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "emu: empty scores");
    emu e;
    emu_init(&e, *op, W, m, N, n, K, g.Nt, g.Xc);
    up(m * K * 8);
    struct emu_scores_u u = {R, Y};
    emu_run(&e, X, NULL, NULL, emu_scores_fn, &u);
    emu_free(&e);
    down(N * K * 8);
    g.st.scores++;
    return FSVC_OK;
}

static int ed_normal_open(const bnl_ctx *ctx, const bnl_op *op, const bnl_normal_opt *opt,
                          bnl_normal_impl **out, fsvc_error *err)
{
    (void)ctx; (void)op; (void)opt;
    if (!(*out = calloc(1, sizeof **out)))
        return fsvc_fail(err, FSVC_ERESOURCE, "emu: out of memory");
    return FSVC_OK;
}

static void ed_normal_close(bnl_normal_impl *s)
{
    if (s && s->have) emu_free(&s->e);
    free(s);
}

static int ed_normal_accum(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                           const void *X, int64_t N, int n, const int *cls, const double *y,
                           const double *cw, int K, double *diag, double *B, fsvc_error *err)
{
    if (m < 1 || N < 1 || n < 1 || K < 1 || (!cls && !y) || (y && K != 1) || (cw && !cls))
        return fsvc_fail(err, FSVC_EUSAGE, "emu: bad normal-equation shape");
    if (s->have) emu_free(&s->e);
    emu_init(&s->e, *op, W, m, N, n, K, g.Nt, g.Xc);
    s->e.cw = cw;
    emu_accum(&s->e, X, cls, y);
    s->e.cw = NULL;
    s->have = 1;
    memcpy(diag, s->e.dg, sizeof(double) * (size_t)m);
    memcpy(B, s->e.B0, sizeof(double) * (size_t)(m * K));
    down(m * 8);
    down(m * K * 8);
    g.st.accum++;
    return FSVC_OK;
}

static int ed_normal_solve(bnl_normal_impl *s, double lam, double *R, int *info, fsvc_error *err)
{
    if (!s->have)
        return fsvc_fail(err, FSVC_EUSAGE, "emu: normal equations not accumulated");
    *info = emu_solve(&s->e, lam, R);
    down(4);
    if (*info == 0) down(s->e.m * s->e.K * 8);
    g.st.solve++;
    return FSVC_OK;
}

static int ed_normal_fetch(bnl_normal_impl *s, double *G, fsvc_error *err)
{
    if (!s->have)
        return fsvc_fail(err, FSVC_EUSAGE, "emu: normal equations not accumulated");
    memcpy(G, s->e.G, sizeof(double) * (size_t)(s->e.m * s->e.m));
    down(s->e.m * s->e.m * 8);
    g.st.fetch++;
    return FSVC_OK;
}

static int products(const bnl_op *op, const void *W, int64_t m, const void *X, int64_t N, int n,
                    const int *cls, const double *y, const double *V, int K, double *out,
                    double *sumsq, fsvc_error *err)
{
    if (m < 1 || N < 1 || n < 1 || K < 1 || (sumsq && ((!cls && !y) || (y && K != 1))))
        return fsvc_fail(err, FSVC_EUSAGE, "emu: bad block-product shape");
    emu e;
    emu_init(&e, *op, W, m, N, n, K, g.Nt, g.Xc);
    double *Z = malloc(sizeof(double) * (size_t)(g.Nt * K));
    assert_non_null(Z);
    memset(out, 0, sizeof(double) * (size_t)(m * K));
    struct emu_apply_u u = {V, sumsq ? NULL : out, Z, sumsq ? out : NULL, 0};
    if (V) up(m * K * 8);
    emu_run(&e, X, sumsq ? cls : NULL, sumsq ? y : NULL, emu_apply_fn, &u);
    if (sumsq) *sumsq = u.sumsq;
    down(m * K * 8 + (sumsq ? 8 : 0));
    free(Z);
    emu_free(&e);
    return FSVC_OK;
}

static int ed_normal_rhs(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                         const void *X, int64_t N, int n, const int *cls, const double *y, int K,
                         double *B, double *sumsq, fsvc_error *err)
{
    (void)s;
    double ss = 0;
    g.st.rhs++;
    return products(op, W, m, X, N, n, cls, y, NULL, K, B, sumsq ? sumsq : &ss, err);
}

static int ed_normal_apply(bnl_normal_impl *s, const bnl_op *op, const void *W, int64_t m,
                           const void *X, int64_t N, int n, const double *V, int K, double *Y,
                           fsvc_error *err)
{
    (void)s;
    if (!V) return fsvc_fail(err, FSVC_EUSAGE, "emu: block product without V");
    g.st.apply++;
    return products(op, W, m, X, N, n, NULL, NULL, V, K, Y, NULL, err);
}

static int ed_lms(const bnl_ctx *ctx, const bnl_op *op, double *R, const void *W, int64_t m,
                  const void *X, const int *cls, int64_t N, int n, int K, double eta,
                  int64_t *bad, fsvc_error *err)
{
    (void)ctx;
    if (m < 1 || N < 1 || n < 1 || K < 1 || !cls || !R || !bad)
        return fsvc_fail(err, FSVC_EUSAGE, "emu: bad LMS shape");
    emu e;
    emu_init(&e, *op, W, m, N, n, K, g.Nt, g.Xc);
    double *E = malloc(sizeof(double) * (size_t)K);
    assert_non_null(E);
    *bad = -1;
    up(m * K * 8 + 8); /* R, the status */
    struct emu_lms_u u = {R, E, eta, bad};
    emu_run(&e, X, cls, NULL, emu_lms_fn, &u);
    down(m * K * 8);
    down(8);
    free(E);
    emu_free(&e);
    g.st.lms++;
    return FSVC_OK;
}

static int ed_describe(char *buf, size_t len)
{
    if (buf && len) snprintf(buf, len, "emulated device (tests/util/emu_device.c)");
    return 1;
}

static void ed_device_tag(const bnl_cuda *c, char *buf, size_t len)
{
    (void)c;
    if (buf && len) snprintf(buf, len, "emu");
}

static int ed_props(const bnl_cuda *c, bnlc_device *d, char *tune_path, size_t len)
{
    if (!c) return -1;
    if (d) {
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "emu");
        d->mem_total = d->mem_free = g.mem;
    }
    if (tune_path && len) tune_path[0] = 0;
    return 0;
}

/* ---- the novelty session (nov_*, cuda/novelty.cu) ----
 * The centroids are kept here as rows (the "device" store, grown by
 * doubling within the device memory); their upload is counted once, at
 * add. sums runs actsum's emulated job over the store without counting
 * its W upload again: only the chunk's rows and S go up, S comes back.
 * f64 is not emulated (not offered: the engine's other path). */
struct bnl_novelty_impl {
    bnl_op op;
    int n, es;
    int64_t ldk, cnt, cap;
    char *C;              /* cap x n elements of es bytes */
};
static emu_nov_stats gn;

static int ed_nov_open(const bnl_ctx *ctx, const bnl_op *op, int n, int64_t cap, bnl_novelty_impl **out,
                       fsvc_error *err)
{
    (void)ctx;
    *out = NULL;
    if (op->dtype == FSVC_F64)
        return FSVC_OK;
    bnl_novelty_impl *s = calloc(1, sizeof *s);
    if (!s)
        return fsvc_fail(err, FSVC_ERESOURCE, "emu: out of memory");
    s->op = *op;
    s->n = n;
    s->es = op->dtype == FSVC_U8 ? 1 : 4;
    s->ldk = bnlc_ldk(n, s->es);
    int64_t fit = g.mem / 2 / (s->ldk * 4 + 4);
    s->cap = cap < 1 ? 256 : cap > fit ? fit : cap;
    if (s->cap < 1) s->cap = 1;
    if (!(s->C = malloc((size_t)(s->cap * n * s->es)))) {
        free(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "emu: out of memory");
    }
    gn.opens++;
    *out = s;
    return FSVC_OK;
}

static int ed_nov_add(bnl_novelty_impl *s, const void *C, int64_t rows, fsvc_error *err)
{
    size_t row = (size_t)s->n * s->es;
    if (s->cnt + rows > s->cap) {
        int64_t cap = s->cap;
        while (cap < s->cnt + rows) cap *= 2;
        if (cap * (s->ldk * 4 + 4) > g.mem)
            return fsvc_fail(err, FSVC_ERESOURCE, "emu: novelty: no device memory for %lld "
                             "centroids", (long long)cap);
        char *nc = realloc(s->C, (size_t)cap * row);
        if (!nc)
            return fsvc_fail(err, FSVC_ERESOURCE, "emu: out of memory");
        s->C = nc;
        s->cap = cap;
        gn.grows++;
    }
    memcpy(s->C + (size_t)s->cnt * row, C, (size_t)rows * row);
    s->cnt += rows;
    up(rows * s->ldk * 4);
    gn.add_up += rows * s->ldk * 4;
    gn.adds++;
    return FSVC_OK;
}

static int ed_nov_sums(bnl_novelty_impl *s, double *S, const void *X, int64_t N, fsvc_error *err)
{
    (void)err;
    if (s->cnt == 0)
        return FSVC_OK;
    int64_t up0 = g.st.up;
    emu e;
    emu_init(&e, s->op, s->C, s->cnt, N, s->n, 1, g.Nt, g.Xc);
    g.st.up = up0; /* resident: emu_init's W upload is not one */
    up(N * 8);
    emu_run(&e, X, NULL, NULL, actsum_fn, S);
    emu_free(&e);
    down(N * 8);
    int64_t per = (g.st.up - up0) / N;
    if (per > gn.sums_up_row) gn.sums_up_row = per;
    gn.sums_up += g.st.up - up0;
    gn.sums++;
    return FSVC_OK;
}

static void ed_nov_close(bnl_novelty_impl *s)
{
    if (s) free(s->C);
    free(s);
}

/* ---- the k-means++ min-distance session (mind_*, cuda/mind.cu) ----
 * X is kept here as the "device" copy, its upload counted once, at open
 * (packed rows, as the chunks of a job); D2 lives here at +inf. update
 * runs forward's emulated job of the B centroids over X without counting
 * X's chunks again (resident): B rows go up, the transposed float tiles
 * fold into D2 by bnlc_mind_body on the tile's grid, D2 (N doubles) comes
 * back. f64 is not emulated (not offered). X over the device memory:
 * *out NULL (the caller's other path). */
struct bnl_mind_impl {
    bnl_op op;
    int n, es;
    int64_t N, ldk;
    char *X;
    double *D2;
};
static emu_mind_stats gm;

static int ed_mind_open(const bnl_ctx *ctx, const bnl_op *op, const void *X, int64_t N, int n,
                        bnl_mind_impl **out, fsvc_error *err)
{
    (void)ctx;
    *out = NULL;
    if (op->dtype == FSVC_F64)
        return FSVC_OK;
    int es = op->dtype == FSVC_U8 ? 1 : 4;
    int64_t ldk = bnlc_ldk(n, es);
    if (N * (ldk * 4 + 8) > g.mem) {
        gm.not_fit++;
        return FSVC_OK;
    }
    bnl_mind_impl *s = calloc(1, sizeof *s);
    if (!s || !(s->X = malloc((size_t)(N * n * es))) ||
        !(s->D2 = malloc((size_t)N * sizeof *s->D2))) {
        if (s) free(s->X);
        free(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "emu: out of memory");
    }
    s->op = *op;
    s->n = n;
    s->es = es;
    s->N = N;
    s->ldk = ldk;
    memcpy(s->X, X, (size_t)(N * n * es));
    for (int64_t i = 0; i < N; i++) s->D2[i] = INFINITY;
    up(N * ldk * 4);
    gm.x_up += N * ldk * 4;
    gm.opens++;
    *out = s;
    return FSVC_OK;
}

/* bnl_mind_kernel's grid (the tile B x nt) */
static void mind_fn(emu *e, const double *Hd, const double *T, int64_t i0, int64_t nt, void *u)
{
    (void)T;
    fold_tile(e, Hd, i0, nt, u, bnlc_mind_body);
}

static int ed_mind_update(bnl_mind_impl *s, const void *C, int64_t B, double *D2, fsvc_error *err)
{
    (void)err;
    int64_t up0 = g.st.up;
    if (B > 0) {
        emu e;
        emu_init(&e, s->op, C, B, s->N, s->n, 1, g.Nt, g.Xc);
        emu_run(&e, s->X, NULL, NULL, mind_fn, s->D2);
        emu_free(&e);
    }
    g.st.up = up0; /* X is resident: its chunks are not uploads */
    up(B * s->ldk * 4);
    gm.c_up += B * s->ldk * 4;
    if (B * s->ldk * 4 > gm.max_update_up) gm.max_update_up = B * s->ldk * 4;
    memcpy(D2, s->D2, (size_t)s->N * sizeof *D2);
    down(s->N * 8);
    gm.d2_down += s->N * 8;
    gm.updates++;
    return FSVC_OK;
}

static void ed_mind_close(bnl_mind_impl *s)
{
    if (s) {
        free(s->X);
        free(s->D2);
    }
    free(s);
}

/* Kernel-only timing as cuda/timing.cu offers it: u8, f32 and f64 layers
 * (the layer computed by ref.c, its wall time the answer). */
static int ed_time_forward(const bnl_ctx *ctx, const bnl_op *op, const void *W, int64_t m,
                           const void *X, int64_t N, int n, int reps, double *sec,
                           fsvc_error *err)
{
    (void)ctx; (void)reps;
    void *H = malloc((size_t)(N * m) * (op->dtype == FSVC_F64 ? 8 : 4));
    if (!H)
        return fsvc_fail(err, FSVC_ERESOURCE, "emu: out of memory");
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = bnl_ref_forward(op, H, m, W, m, X, N, n, err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    free(H);
    *sec = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec) + 1e-9;
    g.st.time_forward += rc == FSVC_OK;
    return rc;
}

/* limits and the tune files are not offered (NULL) */
static const bnl_backend_ops ops = {
    .name = "emu",
    .supports = bnl_cuda_supports, /* the CUDA backend's layers */
    .plan_ridge = bnl_cuda_plan_ridge, /* and its solver rule */
    .open = ed_open,
    .close = ed_close,
    .forward = ed_forward,
    .actsum = ed_actsum,
    .scores = ed_scores,
    .normal_open = ed_normal_open,
    .normal_accum = ed_normal_accum,
    .normal_fetch = ed_normal_fetch,
    .normal_solve = ed_normal_solve,
    .normal_close = ed_normal_close,
    .normal_rhs = ed_normal_rhs,
    .normal_apply = ed_normal_apply,
    .lms = ed_lms,
    .time_forward = ed_time_forward,
    .describe = ed_describe,
    .device_tag = ed_device_tag,
    .props = ed_props,
    /* the novelty session */
    .nov_open = ed_nov_open,
    .nov_add = ed_nov_add,
    .nov_sums = ed_nov_sums,
    .nov_close = ed_nov_close,
    /* the min-distance session (unless emu_device_mind(0)) */
    .mind_open = ed_mind_open,
    .mind_update = ed_mind_update,
    .mind_close = ed_mind_close,
};
static bnl_backend_ops ops_no_mind; /* ops without the min-distance session */

const bnl_backend_ops *emu_device_ops_no_mind(void)
{
    ops_no_mind = ops;
    ops_no_mind.mind_open = NULL;
    ops_no_mind.mind_update = NULL;
    ops_no_mind.mind_close = NULL;
    return &ops_no_mind;
}

const bnl_backend_ops *emu_device_ops(void) { return &ops; }

void emu_device_reset(int64_t mem_free, int64_t Nt, int64_t Xc)
{
    memset(&g.st, 0, sizeof g.st);
    memset(&gn, 0, sizeof gn); /* the novelty session's counts */
    memset(&gm, 0, sizeof gm); /* the min-distance session's counts */
    g.mem = mem_free > 0 ? mem_free : (int64_t)16 << 30;
    g.Nt = Nt > 0 ? Nt : 48;
    g.Xc = Xc > 0 ? Xc : 112;
}

emu_stats emu_device_stats(void) { return g.st; }

emu_nov_stats emu_novelty_stats(void) { return gn; }

emu_mind_stats emu_mind_stats_get(void) { return gm; }
