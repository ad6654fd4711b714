/* cpu_hprod.c - the CPU table's block products of an iterative ridge
 * solve (bnl.h bnl_hprod_*; fsvc/pcg.c runs the solve).
 *
 * H (N x m) is produced in chunks of samples by bnl_forward (float for
 * u8/f32 inputs, double for f64), or for a CSR source by
 * bnl_sparse_forward (float; h_rows), and used at once: U = H_c V (GEMM,
 * b x K) then Y += H_c^T U, in cache-sized row blocks (chunk_apply). With
 * `cache` the chunks are kept (all of H, N x m) after the first pass,
 * which then costs one read of H per product instead of a new engine
 * pass. Float products are summed in float over groups of HB_GROUP
 * chunks and across groups in double. Weighted rows (class and sample
 * weights) are scaled by sqrt(weight) as they are made.
 *
 * With h16 (and the cache) the cached H is bf16 or f16 (bnl_hfmt): half
 * the bytes that every product streams from memory. Each chunk is rounded
 * once as it is made (RNE, the tier's vector conversion), and every
 * product, the first pass's too, reads the rounded values: the solve is
 * exact for the rounded H (H~ = H + E; bf16 |E| <= 2^-8 |H|, 8 significant
 * bits; f16 |E| <= 2^-11 |H| above 2^-14, 2^-25 below; a value beyond f16's
 * range is an error, never an inf in the solve), sums in f32 as before: by
 * the tier's fused kernel (kernels.h hgram, widening in
 * registers: 1.6-4.9x the GEMMs over widened blocks, results/hgram.md),
 * else blocks widened to f32 in cache (HB_BF_ROWS rows at a time) for the
 * GEMMs. A float H takes the fused kernel too (1.3-2.5x OpenBLAS's
 * GEMMs), unless oneDNN runs them (the onednn tier): they match it
 * there. The avx512 table has none (FSVC_ARCH=avx512: today's kernels).
 * The rounding also adds E^T E to H^T H, a floor (bf16) 17-27x a small
 * ridge (MNIST's lambda 1e-7, test_bf16_cache), f16's 64x less: its trace
 * is summed as the rows are rounded (h_err2, for the preconditioner's
 * shift), and K_mm is made from f32 rows, since the rounded rows are not
 * positive definite at that shift and the factor would retry with 10x it
 * (2.5x the iterations): pcg asks for K_mm before any product, so the
 * first pass is made then and copies each centroid's row of H (the
 * centroids are samples) before rounding it; else an engine pass. */
#include "backend.h"
#include "bnl_backend_ops.h"
#include "cpu_sgemm.h"
#include "round_hd.h"
#include "sparse.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef struct cpu_src {
    const bnl_ctx *ctx;
    const bnl_op *op;
    const void *C, *X;
    const int *cls;
    const double *y;
    fsvc_augment aug;
    int nv, rows, cols;    /* variants per sample (1: none), image geometry */
    char *Xc;              /* the chunk's virtual samples, Nc x n */
    int64_t m, N, Nc;      /* N: virtual samples (samples x nv) */
    int n, K, hd;          /* hd: H in double */
    void *H;               /* chunk buffer Nc x m, or the cache N x m */
    int cache, cached;     /* cached: H holds all of H */
    void *U, *Vs, *Ys;     /* per thread HB_ROWS x K; K x m (V^T in H's
                              precision); per slot K x m */
    int slots;             /* accumulators of chunk_apply (from m, K only) */
    const double *cw;      /* class weights (K) or NULL */
    const double *sw;      /* sample weights (N samples) or NULL */
    int progress;          /* the first pass's progress line */
    double t_h, t_prod;    /* seconds: engine passes, products */
    int kmm_cached;        /* the last K_mm: rows of the cached H */
    int held;              /* C held for the session (bnl_weights_hold) */
    uint16_t *Hb;          /* h16: the cache of H in bf16 / f16 (N x m); H
                              then is the f32 chunk buffer */
    int h16;               /* the cache's bnl_hfmt (BNL_H_F32: none) */
    float *Bf;             /* h16 without gk: per thread HB_BF_ROWS x m widened rows */
    const bnl_hprod_csr *csr; /* a CSR source (C, X NULL), or NULL */
    double h_err2;         /* h16: sum of (H~ - H)^2 over the rounded rows */
    bnl_hgram_fn gk;       /* h16: the tier's fused block products, or NULL */
    float *Er;             /* h16: a chunk's rows' squared rounding errors (Nc) */
    void *kcap;            /* K_mm taking its rows from the first pass, or NULL */
    const int64_t *kord;   /* (H row, centroid) pairs by row: the rows kcap takes */
    int64_t kpos;          /* the next pair */
    double *Bk, ssk;       /* H^T T and the trace made by that pass, for rhs */
} cpu_src;

#define HB_BF_ROWS 16 /* 16-bit rows widened at a time: 16 m floats (L2) */

/* The fused products for a 16-bit or float H on ctx, or NULL (two GEMMs):
 * a float H takes them unless oneDNN runs the GEMMs, which match them. */
static bnl_hgram_fn fused(const bnl_ctx *ctx, int h16)
{
    return h16 || !bnl_sgemm_dnnl(ctx) ? bnl_kernels_get(ctx->arch)->hgram : NULL;
}

const char *bnl_hprod_cpu_path(const bnl_ctx *ctx, int h16, const char **tier)
{
    int f = fused(ctx, h16) != NULL;
    *tier = f ? bnl_kernels_get(ctx->arch)->name
              : bnl_sgemm_dnnl(ctx) ? "onednn-sgemm" : "openblas-sgemm";
    return f ? "fused" : "gemm";
}

/* bf16 or f16 bits to f32 (exact), the tier's vector loop where it has
 * one */
static void widen_k(const bnl_kernels *k, int fmt, float *out, const uint16_t *in, size_t count)
{
    bnl_bf16_widen_fn w = fmt == BNL_H_F16 ? k->f16_widen : k->bf16_widen;
    if (w) {
        w(out, in, count);
        return;
    }
    for (size_t q = 0; q < count && fmt == BNL_H_F16; q++) out[q] = bnl_f16_float(in[q]);
    for (size_t q = 0; q < count && fmt != BNL_H_F16; q++) {
        uint32_t u = (uint32_t)in[q] << 16;
        memcpy(out + q, &u, sizeof u);
    }
}

/* One row of m f32 values to bf16 or f16 bits, RNE, the tier's vector
 * conversion where it has one. */
static void round_row(const bnl_kernels *k, int fmt, uint16_t *out, const float *in, int64_t m)
{
    if (fmt == BNL_H_F16 && k->f16_round)
        k->f16_round(out, in, (size_t)m);
    else if (fmt == BNL_H_F16)
        for (int64_t j = 0; j < m; j++) out[j] = bnl_f16_bits(in[j]);
    else if (k->bf16_rows)
        k->bf16_rows(out, in, 1, (int)m, (int)m);
    else
        for (int64_t j = 0; j < m; j++) out[j] = bnl_bf16_bits(in[j]);
}

/* Chunk rows (b x m f32) into the 16-bit cache at row i0, and the chunk
 * rounded in place to those values (what every product then reads);
 * s->h_err2 += the squared rounding errors. -1 when a rounded value is not
 * finite (f16: beyond its range), -2 out of memory; nothing added then. */
#define widen(out, in, count) widen_k(bnl_kernels_get(s->ctx->arch), s->h16, out, in, count)

static int round_chunk(cpu_src *s, float *Hc, int64_t i0, int64_t b)
{
    const bnl_kernels *k = bnl_kernels_get(s->ctx->arch);
    uint16_t *dst = s->Hb + (size_t)i0 * s->m;
    int64_t m = s->m;
    int T = s->ctx->threads > 0 ? s->ctx->threads : 1, fmt = s->h16, nomem = 0;
    float *er = s->Er; /* per row, summed in row order below: bits for any T */
#pragma omp parallel num_threads(T) reduction(| : nomem)
    {
        float *r = malloc((size_t)m * sizeof *r); /* a row's rounded values */
        nomem = !r;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < b; i++) {
            if (!r) continue;
            round_row(k, fmt, dst + i * m, Hc + i * m, m);
            widen_k(k, fmt, r, dst + i * m, (size_t)m);
            float e = 0; /* one row's sum: each term below 2^-16 h^2 */
            for (int64_t j = 0; j < m; j++) e += (Hc[i * m + j] - r[j]) * (Hc[i * m + j] - r[j]);
            er[i] = e;
            memcpy(Hc + i * m, r, (size_t)m * sizeof *r);
        }
        free(r);
    }
    if (nomem) return -2;
    double e2 = 0;
    for (int64_t i = 0; i < b; i++) e2 += er[i];
    if (!isfinite(e2)) return -1;
    s->h_err2 += e2;
    return 0;
}

/* The weight of original sample o: cw[cls_o] sw_o (with one of them, that
 * one's value as it is). */
static double weight(const cpu_src *s, int64_t o)
{
    return (s->cw ? s->cw[s->cls[o]] : 1.0) * (s->sw ? s->sw[o] : 1.0);
}

/* H rows (b x m, ld m) of rows i0 .. i0+b-1 of the samples, or with
 * of_c of the centroids, against C: the dense layer, or the sparse one
 * for a CSR source (the one place the two sources differ). */
static int h_rows(cpu_src *s, void *dst, int of_c, int64_t i0, int64_t b, fsvc_error *err)
{
    if (s->csr) {
        const bnl_csr *A = of_c ? s->csr->C : s->csr->X;
        bnl_csr v = {b, A->ptr + i0, A->col, A->val};
        return bnl_sparse_forward(s->ctx, s->op, dst, s->m, s->csr->Ct, &v, err);
    }
    size_t row = (size_t)s->n * fsvc_dtype_size(s->op->dtype);
    const char *A = (const char *)(of_c ? s->C : s->X) + (size_t)i0 * row;
    return bnl_forward(s->ctx, s->op, dst, s->m, s->C, s->m, A, b, s->n, err);
}

/* The H rows of samples i0 .. i0+b-1: a pointer into the cache, or a new
 * engine pass into the chunk buffer. */
static int chunk(cpu_src *s, int64_t i0, int64_t b, void **Hc, fsvc_error *err)
{
    size_t hs = s->hd ? sizeof(double) : sizeof(float);
    size_t row = (size_t)s->n * fsvc_dtype_size(s->op->dtype);
    void *dst = s->cache && !s->h16 ? (char *)s->H + (size_t)i0 * s->m * hs : s->H;
    *Hc = s->h16 && s->cached ? (void *)(s->Hb + (size_t)i0 * s->m) : dst; /* 16-bit rows */
    if (s->cached) return FSVC_OK;
    double t = bnl_clock();
    int rc;
    if (s->nv > 1) { /* virtual sample v: variant v % nv of sample v / nv */
        size_t es = fsvc_dtype_size(s->op->dtype);
        for (int64_t v = i0; v < i0 + b; v++)
            fsvc_augment_apply(s->Xc + (size_t)(v - i0) * row,
                               (const char *)s->X + (size_t)(v / s->nv) * row, s->rows,
                               s->cols, es, s->aug, (int)(v % s->nv));
        rc = bnl_forward(s->ctx, s->op, dst, s->m, s->C, s->m, s->Xc, b, s->n, err);
    } else {
        rc = h_rows(s, dst, 0, i0, b, err);
    }
    for (int64_t v = 0; !rc && (s->cw || s->sw) && v < b; v++) { /* rows by sqrt(weight) */
        double sw = sqrt(weight(s, (i0 + v) / s->nv));
        for (int64_t j = 0; j < s->m; j++) {
            if (s->hd) ((double *)dst)[v * s->m + j] *= sw;
            else ((float *)dst)[v * s->m + j] = (float)(((float *)dst)[v * s->m + j] * sw);
        }
    }
    if (!rc && s->kcap) { /* the centroids' rows, unrounded; by the team (first touch of Kmm) */
        int64_t p0 = s->kpos, p1 = p0;
        while (p1 < s->m && s->kord[2 * p1] < i0 + b) p1++;
        size_t hs = s->hd ? sizeof(double) : sizeof(float);
#pragma omp parallel for schedule(static) num_threads(s->ctx->threads > 0 ? s->ctx->threads : 1)
        for (int64_t p = p0; p < p1; p++)
            memcpy((char *)s->kcap + (size_t)s->kord[2 * p + 1] * s->m * hs,
                   (char *)dst + (size_t)(s->kord[2 * p] - i0) * s->m * hs, s->m * hs);
        s->kpos = p1;
    }
    int rr = !rc && s->h16 ? round_chunk(s, dst, i0, b) : 0;
    if (rr == -2) rc = fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    else if (rr)
        rc = fsvc_fail(err, FSVC_EINPUT, s->h16 == BNL_H_F16
                       ? "pcg: H has values beyond f16's range (|h| >= 65520: large sample or "
                         "class weights?) or not finite; keep H in bf16 or f32 (--pcg-h)"
                       : "pcg: H has values that are not finite (NaN or infinite input?)");
    s->t_h += bnl_clock() - t;
    return rc;
}

static void pass_done(cpu_src *s)
{
    if (s->cache) s->cached = 1;
}

/* One chunk's share of B = H^T T: B^T (K x m) += T_c^T H_c (GEMM, T_c the
 * chunk's b x K targets in H's precision, Tc Nc x K), *ss += the trace by
 * dot products summed in double (dsdot for float H). Hc: the chunk's
 * rows as chunk() gave them. */
static void rhs_chunk(cpu_src *s, const void *Hc, int64_t i0, int64_t b, void *Tc, double *B,
                      double *ss)
{
    int64_t m = s->m;
    int K = s->K;
    size_t mk = (size_t)m * K;
    double t = bnl_clock();
    if (s->h16 && s->cached) { /* 16-bit rows: widened into the chunk buffer */
        widen(s->H, Hc, (size_t)b * m);
        Hc = s->H;
    }
    int saved = bnl_blas_threads_push(s->ctx, 1); /* the same sums for any --threads */
    for (int64_t i = 0; i < b; i++)
        for (int k = 0; k < K; k++) {
            int64_t o = (i0 + i) / s->nv; /* the original sample */
            double v = s->y ? s->y[o] : s->cls[o] == k;
            if (s->cw || s->sw) v *= sqrt(weight(s, o));
            if (s->hd) ((double *)Tc)[i * K + k] = v;
            else ((float *)Tc)[i * K + k] = (float)v;
        }
    if (s->hd) {
        *ss += cblas_ddot((int)(b * m), Hc, 1, Hc, 1);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, (int)m, (int)b, 1.0, Tc, K,
                    Hc, (int)m, 0.0, s->Ys, (int)m);
        for (size_t q = 0; q < mk; q++) B[q] += ((double *)s->Ys)[q];
    } else {
        *ss += cblas_dsdot((int)(b * m), Hc, 1, Hc, 1);
        bnl_sgemm(s->ctx, CblasRowMajor, CblasTrans, CblasNoTrans, K, (int)m, (int)b, 1.0f, Tc,
                  K, Hc, (int)m, 0.0f, s->Ys, (int)m);
        for (size_t q = 0; q < mk; q++) B[q] += ((float *)s->Ys)[q];
    }
    bnl_blas_threads_pop(saved);
    s->t_prod += bnl_clock() - t;
}

/* B = H^T T by chunks (rhs_chunk); the first pass shows its progress. */
static int rhs_pass(cpu_src *s, double *B, double *sumsq, fsvc_error *err)
{
    size_t mk = (size_t)s->m * s->K;
    double ss = 0;
    memset(B, 0, mk * sizeof *B);
    void *Tc = calloc((size_t)s->Nc * s->K, s->hd ? sizeof(double) : sizeof(float));
    if (!Tc) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    double t0 = bnl_clock();
    int shown = 0;
    for (int64_t i0 = 0; i0 < s->N; i0 += s->Nc) {
        int64_t b = s->N - i0 < s->Nc ? s->N - i0 : s->Nc;
        void *Hc;
        int rc = chunk(s, i0, b, &Hc, err);
        if (rc) { free(Tc); return rc; }
        rhs_chunk(s, Hc, i0, b, Tc, B, &ss);
        double el = bnl_clock() - t0, dn = (double)(i0 + b);
        if (s->progress && !s->cached && el > 0.5) { /* the first pass makes H: N m n */
            fsvc_printf("\rpcg: H and H^T T, %lld/%lld samples, ETA %.0f s   ",
                        (long long)(i0 + b), (long long)s->N, el / dn * ((double)s->N - dn));
            shown = 1;
        }
    }
    if (shown) fsvc_printf("\n");
    free(Tc);
    pass_done(s);
    *sumsq = ss;
    return FSVC_OK;
}

int bnl_cpu_hprod_rhs(bnl_hprod_impl *self, double *B, double *sumsq, fsvc_error *err)
{
    cpu_src *s = (cpu_src *)self;
    if (!s->Bk) return rhs_pass(s, B, sumsq, err);
    memcpy(B, s->Bk, (size_t)s->m * s->K * sizeof *B); /* made by the first pass, with K_mm */
    *sumsq = s->ssk;
    free(s->Bk);
    s->Bk = NULL;
    return FSVC_OK;
}

/* One chunk's H_c^T (H_c V) into the slots: the chunk's blocks of
 * HB_ROWS samples go to s->slots float (or double) accumulators in fixed
 * contiguous ranges (the number of slots depends on m, K and the
 * machine's processors, never on the thread count), an OpenMP team takes
 * whole slots, one-thread GEMMs inside (block and accumulator stay in
 * cache, so H is read once per product). One slot per processor: each
 * core keeps its slot, K x m, in its cache; 32 slots (26 MB at m = 20731,
 * K = 10) spilled to memory, each block moving its slot there and back:
 * on 2 cores 1.3x slower products (10.4 against 13.8 GB/s of H).
 * The slots carry over HB_GROUP chunks: zeroed at a group's first chunk
 * (`first`), summed into Y in double in slot order after its last
 * (`last`): the same bits for any --threads, cached or not, and the
 * flush, s->slots x m x K, paid once per group instead of per chunk (per
 * chunk it moved nearly as many bytes as the chunk of H itself). */
#define HB_GROUP 8
#define HB_ROWS 32
#define HB_SLOTS 32                  /* at most, accumulators of a product */
#define HB_SLOT_BYTES ((size_t)1 << 28) /* at most 256 MB of them */
/* One block's two GEMMs, float: Ut = Hb V^T (rb x K), Yt += Hb^T Ut. On
 * oneDNN (the onednn tier) as Ut^T = V Hb^T (K x rb) and Yt += Ut^T Hb:
 * the same products, 1.4x faster there (one thread, m = 20731, rb = 32:
 * 10.9 against 7.7 GB/s of H); the other tiers keep their bits. */
static void block_f32(const cpu_src *s, const float *Hb, int rb, float *Ut, float *Yt)
{
    int m = (int)s->m, K = s->K;
    if (bnl_sgemm_dnnl(s->ctx)) {
        bnl_sgemm(s->ctx, CblasRowMajor, CblasNoTrans, CblasTrans, K, rb, m, 1.0f, s->Vs, m, Hb,
                  m, 0.0f, Ut, rb);
        bnl_sgemm(s->ctx, CblasRowMajor, CblasNoTrans, CblasNoTrans, K, m, rb, 1.0f, Ut, rb, Hb,
                  m, 1.0f, Yt, m);
        return;
    }
    bnl_sgemm(s->ctx, CblasRowMajor, CblasNoTrans, CblasTrans, rb, K, m, 1.0f, Hb, m, s->Vs, m,
              0.0f, Ut, K);
    bnl_sgemm(s->ctx, CblasRowMajor, CblasTrans, CblasNoTrans, K, m, rb, 1.0f, Ut, K, Hb, m, 1.0f,
              Yt, m);
}

static void chunk_apply(cpu_src *s, double *Y, const void *Hc, int64_t b, int first, int last,
                        int fmt)
{
    int64_t m = s->m, nb = (b + HB_ROWS - 1) / HB_ROWS;
    int K = s->K, T = s->ctx->threads > 0 ? s->ctx->threads : 1, S = s->slots;
    size_t mk = (size_t)m * K, hs = s->hd ? sizeof(double) : sizeof(float);
    bnl_hgram_fn gk = fmt ? s->gk : s->hd ? NULL : fused(s->ctx, 0);
    int saved = bnl_blas_threads_push(s->ctx, 1);
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        void *Ut = (char *)s->U + (size_t)t * HB_ROWS * K * hs;
        float *Bt = fmt ? s->Bf + (size_t)t * HB_BF_ROWS * m : NULL;
#pragma omp for schedule(dynamic, 1)
        for (int sl = 0; sl < S; sl++) {
            void *Yt = (char *)s->Ys + (size_t)sl * mk * hs;
            if (first) memset(Yt, 0, mk * hs);
            if (nb * sl / S == nb * (sl + 1) / S) continue; /* no block */
            for (int64_t q = nb * sl / S; q < nb * (sl + 1) / S; q++) {
                int64_t r0 = q * HB_ROWS;
                int rb = (int)(b - r0 < HB_ROWS ? b - r0 : HB_ROWS);
                const char *Hb = (const char *)Hc + (size_t)r0 * m * hs;
                if (gk) { /* fused: HB_BF_ROWS rows at a time, in cache for Y */
                    size_t es = fmt ? sizeof(uint16_t) : sizeof(float);
                    for (int r = 0; r < rb; r += HB_BF_ROWS)
                        gk((const char *)Hc + ((size_t)r0 + r) * m * es, fmt,
                           rb - r < HB_BF_ROWS ? rb - r : HB_BF_ROWS, m, K, s->Vs, Ut, Yt);
                } else if (fmt) { /* 16-bit rows: widened HB_BF_ROWS at a time, in cache */
                    const uint16_t *h16 = (const uint16_t *)Hc + (size_t)r0 * m;
                    for (int r = 0; r < rb; r += HB_BF_ROWS) {
                        int nr = rb - r < HB_BF_ROWS ? rb - r : HB_BF_ROWS;
                        widen(Bt, h16 + (size_t)r * m, (size_t)nr * m);
                        block_f32(s, Bt, nr, Ut, Yt);
                    }
                } else if (s->hd) {
                    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rb, K, (int)m, 1.0,
                                (const double *)Hb, (int)m, s->Vs, (int)m, 0.0, Ut, K);
                    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, (int)m, rb, 1.0, Ut,
                                K, (const double *)Hb, (int)m, 1.0, Yt, (int)m);
                } else {
                    block_f32(s, (const float *)Hb, rb, Ut, Yt);
                }
            }
        }
    }
    bnl_blas_threads_pop(saved);
    for (int sl = 0; last && sl < S; sl++)
        for (size_t q = 0; q < mk; q++)
            Y[q] += s->hd ? ((double *)s->Ys)[(size_t)sl * mk + q]
                          : ((float *)s->Ys)[(size_t)sl * mk + q];
}

int bnl_cpu_hprod_apply(bnl_hprod_impl *self, double *Y, const double *V, fsvc_error *err)
{
    cpu_src *s = (cpu_src *)self;
    size_t mk = (size_t)s->m * s->K;
    /* V column-major m x K is V^T row-major K x m */
    if (s->hd) memcpy(s->Vs, V, mk * sizeof *V);
    else for (size_t q = 0; q < mk; q++) ((float *)s->Vs)[q] = (float)V[q];
    memset(Y, 0, mk * sizeof *Y);
    /* from the cache, a group of chunks at once: one team a group, not a
     * team a chunk (on a 2-core VM, waking one cost about 0.2 ms) */
    int64_t step = s->cached ? (int64_t)HB_GROUP * s->Nc : s->Nc;
    for (int64_t i0 = 0; i0 < s->N; i0 += step) {
        int64_t b = s->N - i0 < step ? s->N - i0 : step;
        void *Hc;
        int fmt = s->cached ? s->h16 : BNL_H_F32; /* rows from the 16-bit cache */
        int rc = chunk(s, i0, b, &Hc, err);
        if (rc) return rc;
        double t = bnl_clock();
        int64_t c = i0 / s->Nc;
        chunk_apply(s, Y, Hc, b, s->cached || c % HB_GROUP == 0,
                    s->cached || c % HB_GROUP == HB_GROUP - 1 || i0 + b >= s->N, fmt);
        s->t_prod += bnl_clock() - t;
    }
    pass_done(s);
    return FSVC_OK;
}

/* FNV-1a over a row's bytes. */
static uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 14695981039346656037ull;
    for (size_t k = 0; k < n; k++) h = (h ^ b[k]) * 1099511628211ull;
    return h;
}

/* The sample row of X equal to each centroid row (rows of n values of
 * `row` bytes), by a hash table of X's rows: at[j] = i, or -1 when some
 * centroid is no sample (then 0 is returned and nothing is kept). The
 * centroids fsvc selects are samples, so their kernel rows are rows of H. */
static int centroid_rows(int64_t *at, const void *C, int64_t m, const void *X, int64_t N,
                         size_t row)
{
    size_t cap = 2;
    while (cap < (size_t)N * 2) cap *= 2;
    int64_t *tab = malloc(cap * sizeof *tab);
    if (!tab) return 0;
    for (size_t q = 0; q < cap; q++) tab[q] = -1;
    for (int64_t i = 0; i < N; i++) {
        size_t q = (size_t)hash_bytes((const char *)X + (size_t)i * row, row) & (cap - 1);
        while (tab[q] >= 0) q = (q + 1) & (cap - 1);
        tab[q] = i;
    }
    int found = 1;
    for (int64_t j = 0; j < m && found; j++) {
        const char *c = (const char *)C + (size_t)j * row;
        size_t q = (size_t)hash_bytes(c, row) & (cap - 1);
        at[j] = -1;
        for (; tab[q] >= 0 && at[j] < 0; q = (q + 1) & (cap - 1))
            if (!memcmp((const char *)X + (size_t)tab[q] * row, c, row)) at[j] = tab[q];
        found = at[j] >= 0;
    }
    free(tab);
    return found;
}

/* The row of H that is centroid j's kernel row, for every j (the sample
 * equal to it, its first variant when augmented), malloc'd; NULL when rows
 * are weighted, the source is CSR (its rows are not looked up: K_mm by the
 * sparse layer), a centroid is no sample, or no memory. */
static int64_t *centroid_h_rows(const cpu_src *s)
{
    if (s->cw || s->sw || s->csr) return NULL;
    int64_t m = s->m;
    size_t row = (size_t)s->n * fsvc_dtype_size(s->op->dtype);
    int64_t *at = malloc((size_t)m * sizeof *at);
    if (!at || !centroid_rows(at, s->C, m, s->X, s->N / s->nv, row)) { free(at); return NULL; }
    for (int64_t j = 0; j < m; j++) at[j] *= s->nv;
    return at;
}

/* K_mm from the cached H (centroid_h_rows); 1 when done, 0 when H is not
 * cached, is rounded to 16 bits (K_mm in f32: see the header) or
 * centroid_h_rows finds no rows. */
static int kmm_from_cache(cpu_src *s, void *Kmm, int f32)
{
    int64_t m = s->m, *at = s->cached && !s->h16 ? centroid_h_rows(s) : NULL;
    int ok = at != NULL;
    size_t hs = s->hd ? sizeof(double) : sizeof(float);
    for (int64_t j = 0; ok && j < m; j++) {
        size_t h = (size_t)at[j] * (size_t)m;
        if (f32 == !s->hd) { /* H's own precision: the row as it is */
            memcpy((char *)Kmm + (size_t)j * m * hs, (char *)s->H + h * hs, (size_t)m * hs);
            continue;
        }
        for (int64_t l = 0; l < m; l++) {
            double v = s->hd ? ((double *)s->H)[h + l] : ((float *)s->H)[h + l];
            if (f32) ((float *)Kmm)[(size_t)j * m + l] = (float)v;
            else ((double *)Kmm)[(size_t)j * m + l] = v;
        }
    }
    free(at);
    return ok;
}

static int by_row(const void *a, const void *b)
{
    const int64_t *p = a, *q = b;
    return p[0] != q[0] ? (p[0] > q[0]) - (p[0] < q[0]) : (p[1] > q[1]) - (p[1] < q[1]);
}

/* K_mm asked before any product (pcg.c does) of a source that will cache
 * H: the first pass is made now, each centroid's row of H copied into Kmm
 * as its chunk is made (before any rounding to 16 bits), and H^T T with
 * it for the rhs that follows; *done 1. Not done (*done 0) where
 * centroid_h_rows finds no rows, or no memory. */
static int kmm_first_pass(cpu_src *s, void *Kmm, int *done, fsvc_error *err)
{
    *done = 0;
    int64_t m = s->m, *at = centroid_h_rows(s), *ord = malloc((size_t)m * 2 * sizeof *ord);
    double *Bk = malloc((size_t)m * s->K * sizeof *Bk), ss;
    int ok = at && ord && Bk;
    for (int64_t j = 0; ok && j < m; j++) { /* (H row, centroid) pairs */
        ord[2 * j] = at[j];
        ord[2 * j + 1] = j;
    }
    free(at);
    if (!ok) { free(ord); free(Bk); return FSVC_OK; }
    qsort(ord, (size_t)m, 2 * sizeof *ord, by_row);
    s->kcap = Kmm; /* chunk() copies the rows */
    s->kord = ord;
    s->kpos = 0;
    int rc = rhs_pass(s, Bk, &ss, err);
    s->kcap = NULL;
    s->kord = NULL;
    free(ord);
    if (rc) { free(Bk); return rc; }
    s->Bk = Bk; /* none yet: this is the first pass */
    s->ssk = ss;
    *done = 1;
    return FSVC_OK;
}

int bnl_cpu_hprod_kmm(bnl_hprod_impl *self, void *Kmm, int f32, fsvc_error *err)
{
    cpu_src *s = (cpu_src *)self;
    int64_t m = s->m;
    if (s->cache && !s->cached && f32 == !s->hd) {
        int done, rc = kmm_first_pass(s, Kmm, &done, err); /* its chunks count their time */
        if (rc || done) {
            s->kmm_cached = done;
            return rc;
        }
    }
    double t = bnl_clock();
    int rc;
    s->kmm_cached = kmm_from_cache(s, Kmm, f32);
    if (s->kmm_cached) {
        rc = FSVC_OK;
    } else if (f32 == !s->hd) { /* the engine's own precision: straight in */
        rc = h_rows(s, Kmm, 1, 0, m, err);
    } else { /* row blocks through the chunk buffer when not cached, else a temporary */
        size_t hs = s->hd ? sizeof(double) : sizeof(float);
        int64_t bc = s->cached ? 256 : s->Nc;
        void *T = s->cached ? malloc((size_t)bc * m * hs) : s->H;
        if (!T) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory for K_mm");
        rc = FSVC_OK;
        for (int64_t j0 = 0; j0 < m && !rc; j0 += bc) {
            int64_t b = m - j0 < bc ? m - j0 : bc;
            rc = h_rows(s, T, 1, j0, b, err);
            for (size_t q = 0; !rc && q < (size_t)b * m; q++) {
                double v = s->hd ? ((double *)T)[q] : ((float *)T)[q];
                if (f32) ((float *)Kmm)[(size_t)j0 * m + q] = (float)v;
                else ((double *)Kmm)[(size_t)j0 * m + q] = v;
            }
        }
        if (s->cached) free(T);
    }
    s->t_h += bnl_clock() - t;
    return rc;
}

void bnl_cpu_hprod_stats(const bnl_hprod_impl *self, bnl_hprod_stats *st)
{
    const cpu_src *s = (const cpu_src *)self;
    *st = (bnl_hprod_stats){s->N, s->t_h, s->t_prod, s->kmm_cached, 0, s->h_err2};
}

void bnl_cpu_hprod_close(bnl_hprod_impl *self)
{
    cpu_src *s = (cpu_src *)self;
    if (!s) return;
    if (s->held) bnl_weights_release(s->ctx, s->C, s->m, s->n);
    free(s->H); free(s->U); free(s->Vs); free(s->Ys); free(s->Xc); free(s->Hb); free(s->Bf);
    free(s->Er); free(s->Bk);
    free(s);
}

int bnl_cpu_hprod_open(const bnl_ctx *ctx, const bnl_hprod_problem *pb,
                       const bnl_hprod_opt *opt, bnl_hprod_impl **out, fsvc_error *err)
{
    const bnl_op *op = pb->op;
    int64_t m = pb->m, N = pb->N;
    int n = pb->n, K = pb->K, nv = fsvc_augment_count(pb->aug), cache = opt->cache;
    *out = NULL;
    cpu_src *s = calloc(1, sizeof *s);
    if (!s) return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    N *= nv;
    /* a CSR source's H is float (the sparse layer's) whatever the dtype */
    *s = (cpu_src){ctx, op, pb->C, pb->X, pb->cls, pb->y, pb->aug, nv, pb->rows, pb->cols, NULL,
                   m, N, 0, n, K, op->dtype == FSVC_F64 && !pb->csr, NULL, cache, 0, NULL,
                   NULL, NULL, 0, pb->cw, pb->sw, opt->progress, 0, 0, 0, 0, NULL, 0, NULL,
                   pb->csr, 0, NULL, NULL, NULL, NULL, 0, NULL, 0};
    size_t hs = s->hd ? sizeof(double) : sizeof(float);
    int64_t Nc = (int64_t)((1 << 25) / ((size_t)m * hs)); /* ~32 MB chunks */
    if (Nc < 64) Nc = 64;
    if (Nc > 4096) Nc = 4096;
    if (Nc > N) Nc = N;
    s->Nc = Nc;
    s->h16 = cache && !s->hd ? opt->h16 : BNL_H_F32;
    s->H = malloc((size_t)(cache && !s->h16 ? N : Nc) * m * hs);
    size_t T = ctx->threads > 0 ? (size_t)ctx->threads : 1;
    if (s->h16) {
        s->Hb = malloc((size_t)N * m * sizeof *s->Hb);
        s->Er = malloc((size_t)Nc * sizeof *s->Er);
        s->gk = fused(ctx, 1);
        if (!s->gk)
            s->Bf = malloc(T * HB_BF_ROWS * (size_t)m * sizeof *s->Bf);
    }
    s->U = malloc(T * HB_ROWS * K * hs);
    s->Vs = malloc((size_t)m * K * hs);
    /* one accumulator per processor (2..HB_SLOTS), fewer when they would
     * pass HB_SLOT_BYTES, at least 1 and never fewer than needed for the
     * rhs' K x m product */
    size_t mkb = (size_t)m * K * hs;
    int np = omp_get_num_procs();
    s->slots = np < 2 ? 2 : np > HB_SLOTS ? HB_SLOTS : np;
    while (s->slots > 1 && (size_t)s->slots * mkb > HB_SLOT_BYTES) s->slots /= 2;
    s->Ys = malloc((size_t)s->slots * mkb);
    if (nv > 1) s->Xc = malloc((size_t)Nc * n * fsvc_dtype_size(op->dtype));
    if (!s->H || !s->U || !s->Vs || !s->Ys || (nv > 1 && !s->Xc) ||
        (s->h16 && (!s->Hb || !s->Er || (!s->gk && !s->Bf)))) {
        bnl_cpu_hprod_close((bnl_hprod_impl *)s);
        return fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory for %s (%lld x %lld)",
                         cache ? "the cached H" : "the sample chunks",
                         (long long)(cache ? N : Nc), (long long)m);
    }
    /* every pass makes H from the same C (and K_mm from C against C) */
    s->held = !s->csr && bnl_weights_hold(ctx, s->C, m, n) == 0;
    *out = (bnl_hprod_impl *)s;
    return FSVC_OK;
}
