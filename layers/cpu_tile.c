/* cpu_tile.c - one BNL tile on the CPU: distance micro-kernels (kernels.h)
 * or BLAS GEMM, then the activation on the tile while it is in cache. */
#include "cpu_tile.h"
#include "cpu_wcache.h"
#include "round_hd.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* OpenBLAS extensions (openblas-pthread's cblas.h declares them too). */
int openblas_get_num_threads(void);
void openblas_set_num_threads(int num_threads);

/* OpenBLAS thread count (the pthread build has its own pool, sized by
 * openblas_set_num_threads, process-wide). */
int bnl_blas_threads(void) { return openblas_get_num_threads(); }
const char *bnl_blas_config(void) { return openblas_get_config(); }

int bnl_blas_threads_push(const bnl_ctx *ctx, int threads)
{
    int saved = openblas_get_num_threads();
    int want = threads > 0 ? threads : ctx && ctx->threads > 0 ? ctx->threads : 1;
    if (want != saved)
        openblas_set_num_threads(want);
    return saved;
}

void bnl_blas_threads_pop(int saved)
{
    if (saved > 0 && saved != openblas_get_num_threads())
        openblas_set_num_threads(saved);
}

/* out: rows squared norms of A (rows x n), summed in double (the tier's
 * vector loop where it has one: blocks of 64 rows per thread). */
static void norms_f32(const bnl_kernels *kern, float *out, const float *A, int64_t rows, int n,
                      int threads)
{
    if (kern->norms_f32) {
        #pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < rows; i += 64)
            kern->norms_f32(out + i, A + i * n, rows - i < 64 ? rows - i : 64, n);
        return;
    }
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < rows; i++) {
        double s = 0.0;
        for (int k = 0; k < n; k++)
            s += (double)A[i * n + k] * A[i * n + k];
        out[i] = (float)s;
    }
}

static void norms_f64(double *out, const double *A, int64_t rows, int n, int threads)
{
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < rows; i++) {
        double s = 0.0;
        for (int k = 0; k < n; k++)
            s += A[i * n + k] * A[i * n + k];
        out[i] = s;
    }
}

static void norms_u8(int32_t *out, const uint8_t *A, int64_t rows, int n, int threads)
{
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < rows; i++) {
        int64_t s = 0;
        for (int k = 0; k < n; k++)
            s += (int32_t)A[i * n + k] * A[i * n + k];
        out[i] = (int32_t)s; /* <= 255^2 * 33025 fits */
    }
}

/* out = A (rows x n) with every value rounded for precision prec. */
static void round_rows(float *out, const float *A, int64_t rows, int n, int prec, int threads)
{
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < rows; i++)
        for (int k = 0; k < n; k++)
            out[i * n + k] = bnl_round_prec(A[i * n + k], prec);
}

/* out = A (rows x n) as bf16 bit patterns, rows of n2 >= n, zero-padded
 * (the tier's vector conversion where it has one). */
static void bf16_rows(const bnl_kernels *kern, uint16_t *out, const float *A, int64_t rows, int n,
                      int n2, int threads)
{
    if (kern->bf16_rows) {
        #pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < rows; i += 64)
            kern->bf16_rows(out + i * n2, A + i * n, rows - i < 64 ? rows - i : 64, n, n2);
        return;
    }
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < rows; i++) {
        for (int k = 0; k < n; k++)
            out[i * n2 + k] = bnl_bf16_bits(A[i * n + k]);
        for (int k = n; k < n2; k++)
            out[i * n2 + k] = 0;
    }
}

/* bf16 operands for the tier's dot_bf16 kernel: the rounding of round_hd.h
 * (what the reference multiplies), half the bytes of the f32 copies. */
static int bf16_operands(bnl_cpu_job *job, int threads, fsvc_error *err)
{
    job->n2 = job->n + (job->n & 1);
    bnl_wc_entry *e = job->wc;
    if (e) { /* held W: its bf16 copy, made by the first call */
        bnl_wcache_lock(job->wcache);
        if (!e->wb && (e->wb = malloc((size_t)(job->m * job->n2) * sizeof(uint16_t)))) {
            bf16_rows(job->kern, e->wb, job->W, job->m, job->n, job->n2, threads);
            e->n2 = job->n2;
            bnl_wcache_count(job->wcache, 1);
        } else if (e->wb) {
            bnl_wcache_count(job->wcache, 0);
        }
        job->wb = e->wb;
        bnl_wcache_unlock(job->wcache);
    } else if ((job->wb = malloc((size_t)(job->m * job->n2) * sizeof(uint16_t)))) {
        bf16_rows(job->kern, job->wb, job->W, job->m, job->n, job->n2, threads);
    }
    job->xb = malloc((size_t)(job->N * job->n2) * sizeof(uint16_t));
    if (!job->wb || !job->xb) {
        bnl_cpu_job_free(job);
        return fsvc_fail(err, FSVC_ERESOURCE, "bnl: out of memory for the bf16 copies of a "
                         "%lld + %lld x %d layer", (long long)job->m, (long long)job->N, job->n);
    }
    bf16_rows(job->kern, job->xb, job->X, job->N, job->n, job->n2, threads);
    return FSVC_OK;
}

/* |w|^2 of a held f32 W: kept in its entry, made by the first call. */
static float *held_norms(bnl_cpu_job *job, int threads)
{
    bnl_wc_entry *e = job->wc;
    bnl_wcache_lock(job->wcache);
    if (!e->wn && (e->wn = malloc((size_t)job->m * sizeof(float)))) {
        norms_f32(job->kern, e->wn, job->W, job->m, job->n, threads);
        bnl_wcache_count(job->wcache, 1);
    } else if (e->wn) {
        bnl_wcache_count(job->wcache, 0);
    }
    float *wn = e->wn;
    bnl_wcache_unlock(job->wcache);
    return wn;
}

/* The emulated tf32 / bf16 GEMM operands (bnl_op_reduced): after the norms;
 * bf16 on a tier with its own kernel: bf16 copies instead. */
static int round_operands(bnl_cpu_job *job, int threads, fsvc_error *err)
{
    const bnl_op *op = job->op;
    if (op->precision == BNL_PREC_BF16 && job->kern->dot_bf16)
        return bf16_operands(job, threads, err);
    job->wr = malloc((size_t)(job->m * job->n) * sizeof(float));
    job->xr = malloc((size_t)(job->N * job->n) * sizeof(float));
    if (!job->wr || !job->xr) {
        bnl_cpu_job_free(job);
        return fsvc_fail(err, FSVC_ERESOURCE, "bnl: out of memory for the %s copies of a "
                         "%lld + %lld x %d layer", bnl_precision_name(op->precision),
                         (long long)job->m, (long long)job->N, job->n);
    }
    round_rows(job->wr, job->W, job->m, job->n, (int)op->precision, threads);
    round_rows(job->xr, job->X, job->N, job->n, (int)op->precision, threads);
    job->W = job->wr;
    job->X = job->xr;
    return FSVC_OK;
}

int bnl_cpu_job_init(bnl_cpu_job *job, const bnl_ctx *ctx, const bnl_op *op,
                     const void *W, int64_t m, const void *X, int64_t N, int n,
                     fsvc_error *err)
{
    job->op = op;
    job->p = bnl_actp_make(op);
    job->kern = bnl_kernels_get(ctx->arch);
    job->epi = bnl_epi_get(ctx->arch);
    job->W = W;
    job->X = X;
    job->m = m;
    job->N = N;
    job->n = n;
    job->gemm = bnl_cpu_uses_gemm(op);
    job->xn = job->wn = NULL;
    job->wr = job->xr = NULL;
    job->wb = job->xb = NULL;
    job->n2 = 0;
    job->dw = NULL;
    job->dnnl_failed = 0;
    job->wcache = ctx->wcache;
    job->wc = op->dtype == FSVC_F32 && job->gemm ? bnl_wcache_use(ctx->wcache, W, m, n) : NULL;
    int t = bnl_par_threads(ctx, m, N, n);
    int need = (job->gemm && op->dist == BNL_L2) ||
               (op->dtype == FSVC_U8 && op->dist == BNL_DOT && !job->kern->dot_u8);
    if (!need)
        return bnl_op_reduced(op) ? round_operands(job, t, err) : FSVC_OK;
    size_t es = op->dtype == FSVC_F64 ? sizeof(double) : 4;
    job->xn = malloc((size_t)N * es);
    job->wn = job->wc ? held_norms(job, t) : malloc((size_t)m * es);
    if (!job->xn || !job->wn) {
        bnl_cpu_job_free(job);
        return fsvc_fail(err, FSVC_ERESOURCE, "bnl: out of memory for %lld + %lld norms",
                         (long long)N, (long long)m);
    }
    switch (op->dtype) {
    case FSVC_F32:
        norms_f32(job->kern, job->xn, X, N, n, t);
        if (!job->wc)
            norms_f32(job->kern, job->wn, W, m, n, t);
        break;
    case FSVC_F64:
        norms_f64(job->xn, X, N, n, t);
        norms_f64(job->wn, W, m, n, t);
        break;
    case FSVC_U8:
        norms_u8(job->xn, X, N, n, t);
        norms_u8(job->wn, W, m, n, t);
        break;
    }
    return bnl_op_reduced(op) ? round_operands(job, t, err) : FSVC_OK;
}

void bnl_cpu_job_dnnl(bnl_cpu_job *job, const bnl_ctx *ctx, int64_t tile_N, int64_t tile_m)
{
    const bnl_op *op = job->op;
    if (!bnl_cpu_uses_dnnl(ctx, op, job->m, job->N, job->n))
        return;
    int bf = op->precision == BNL_PREC_BF16;
    if (bf && !job->wb) /* bf16 operands come from bf16_operands */
        return;
    bnl_dnnl_shape s = {bf, bf ? job->n2 : job->n, job->m, job->N, tile_m, tile_N};
    const void *W = bf ? (const void *)job->wb : job->W;
    int threads = bnl_par_threads(ctx, job->m, job->N, job->n);
    if (job->wc) { /* held W: packed by the first call, kept in its entry */
        bnl_wcache_lock(job->wcache);
        int had = job->wc->packed[bf] != NULL;
        if (bnl_dnnl_pack_keep(ctx->dnnl, &job->dw, &s, W, threads, &job->wc->packed[bf]) == 0)
            bnl_wcache_count(job->wcache, !had);
        bnl_wcache_unlock(job->wcache);
    } else if (bnl_dnnl_pack(ctx->dnnl, &job->dw, &s, W, threads) == 0 && bf) {
        free(job->wb); /* packed: the tiles read W there */
        job->wb = NULL;
    }
}

void bnl_cpu_job_free(bnl_cpu_job *job)
{
    bnl_dnnl_w_free(job->dw);
    job->dw = NULL;
    free(job->xn);
    if (!job->wc || job->wn != job->wc->wn) /* a held W's are its entry's */
        free(job->wn);
    free(job->wr);
    free(job->xr);
    if (!job->wc || job->wb != job->wc->wb)
        free(job->wb);
    free(job->xb);
    bnl_wcache_done(job->wcache, job->wc);
    job->wc = NULL;
    job->xn = job->wn = NULL;
    job->wr = job->xr = NULL;
    job->wb = job->xb = NULL;
}

/* u8 dot from the exact squared distance: x.w = (|x|^2 + |w|^2 - |x-w|^2) / 2.
 * D: rows x cols (ld cols), xn: rows, wn: cols. */
static void u8_dot_from_l2(int32_t *D, const int32_t *xn, const int32_t *wn,
                           int64_t rows, int64_t cols)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            D[i * cols + j] = (int32_t)(((int64_t)xn[i] + wn[j] - D[i * cols + j]) / 2);
}

/* The product on oneDNN into a dense tile (H itself when ldh == cols, else
 * scratch, copied to H in cache), times -2 for L2 (exact), then the
 * epilogue of the GEMM paths. */
static void dnnl_tile(const bnl_cpu_job *job, float *H, int64_t ldh, float *scratch,
                      int64_t i0, int64_t rows, int64_t j0, int64_t cols)
{
    const bnl_op *op = job->op;
    float *C = ldh == cols ? H : scratch;
    const void *X = job->xb ? (const void *)(job->xb + i0 * job->n2)
                            : (const void *)((const float *)job->X + i0 * job->n);
    if (bnl_dnnl_tile(job->dw, C, X, rows, j0, cols) != 0) {
        bnl_cpu_job *j = (bnl_cpu_job *)job;
        #pragma omp atomic write
        j->dnnl_failed = 1;
        return;
    }
    const float a = op->dist == BNL_DOT ? 1.0f : -2.0f;
    if (a != 1.0f) {
        #pragma omp simd
        for (int64_t t = 0; t < rows * cols; t++)
            C[t] *= a;
    }
    /* the epilogue on the dense tile, in cache; then H is written once, by
     * the C library's copy (as epi_from_i32: 1.1x on the layer) */
    if (op->dist != BNL_DOT)
        job->epi->l2_f32(C, cols, (const float *)job->xn + i0, (const float *)job->wn + j0, rows,
                         cols, &job->p);
    else if (op->act != BNL_IDENT)
        job->epi->inplace_f32(C, cols, rows, cols, &job->p);
    if (C != H)
        for (int64_t i = 0; i < rows; i++)
            memcpy(H + i * ldh, C + i * cols, sizeof(float) * (size_t)cols);
}

void bnl_cpu_tile(const bnl_cpu_job *job, void *H, int64_t ldh, int32_t *scratch,
                  int64_t i0, int64_t rows, int64_t j0, int64_t cols)
{
    const bnl_op *op = job->op;
    const int n = job->n;
    const int ident = op->act == BNL_IDENT;
    switch (op->dtype) {
    case FSVC_U8: {
        const uint8_t *W = (const uint8_t *)job->W + j0 * n;
        const uint8_t *X = (const uint8_t *)job->X + i0 * n;
        if (op->dist == BNL_L1)
            job->kern->l1_u8(scratch, cols, W, cols, X, rows, n);
        else if (op->dist == BNL_DOT && job->kern->dot_u8)
            job->kern->dot_u8(scratch, cols, W, cols, X, rows, n);
        else
            job->kern->l2sq_u8(scratch, cols, W, cols, X, rows, n);
        if (op->dist == BNL_DOT && !job->kern->dot_u8)
            u8_dot_from_l2(scratch, (const int32_t *)job->xn + i0,
                           (const int32_t *)job->wn + j0, rows, cols);
        job->epi->from_i32(H, ldh, scratch, cols, rows, cols, &job->p);
        break;
    }
    case FSVC_F32: {
        const float *W = (const float *)job->W + j0 * n;
        const float *X = (const float *)job->X + i0 * n;
        if (!job->gemm) {
            job->kern->l1_f32(H, ldh, W, cols, X, rows, n);
            job->epi->inplace_f32(H, ldh, rows, cols, &job->p); /* clamps ident too */
        } else if (job->dw) {
            dnnl_tile(job, H, ldh, (float *)scratch, i0, rows, j0, cols);
        } else if (job->xb) { /* bf16 on the tier's kernel, then as the GEMM below */
            job->kern->dot_bf16(H, ldh, job->wb + j0 * job->n2, cols, job->xb + i0 * job->n2,
                                rows, job->n2, op->dist == BNL_DOT ? 1.0f : -2.0f);
            if (op->dist != BNL_DOT)
                job->epi->l2_f32(H, ldh, (const float *)job->xn + i0,
                                 (const float *)job->wn + j0, rows, cols, &job->p);
            else if (!ident)
                job->epi->inplace_f32(H, ldh, rows, cols, &job->p);
        } else if (op->dist == BNL_DOT) {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)cols, n,
                        1.0f, X, n, W, n, 0.0f, H, (int)ldh);
            if (!ident)
                job->epi->inplace_f32(H, ldh, rows, cols, &job->p);
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)cols, n,
                        -2.0f, X, n, W, n, 0.0f, H, (int)ldh);
            job->epi->l2_f32(H, ldh, (const float *)job->xn + i0,
                             (const float *)job->wn + j0, rows, cols, &job->p);
        }
        break;
    }
    case FSVC_F64: {
        const double *W = (const double *)job->W + j0 * n;
        const double *X = (const double *)job->X + i0 * n;
        if (!job->gemm) {
            job->kern->l1_f64(H, ldh, W, cols, X, rows, n);
            if (!ident)
                bnl_epi_f64(H, ldh, rows, cols, &job->p);
        } else if (op->dist == BNL_DOT) {
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)cols, n,
                        1.0, X, n, W, n, 0.0, H, (int)ldh);
            if (!ident)
                bnl_epi_f64(H, ldh, rows, cols, &job->p);
        } else {
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)cols, n,
                        -2.0, X, n, W, n, 0.0, H, (int)ldh);
            bnl_epi_f64_l2(H, ldh, (const double *)job->xn + i0,
                           (const double *)job->wn + j0, rows, cols, &job->p);
        }
        break;
    }
    }
}
