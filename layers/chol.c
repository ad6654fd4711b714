/* chol.c - blocked Cholesky, its solve and syrk with fixed blocks and one
 * thread per BLAS call (bnl.h bnl_chol): the same bits for any thread count. */
#include "backend.h"
#include "cpu_sgemm.h"

#include <cblas.h>
#include <lapacke.h>
#include <omp.h>
#include <stdlib.h>

#define NB BNL_CHOL_NB
#define SOLVE_ROWS 512 /* rows per update chunk of a forward solve */
#define SOLVE_COLS 16  /* columns per update chunk of a backward solve */

/* The team for nt blocks: one block is one task, so one thread (waking a
 * team for it costs more than the block: iris's 80 x 80 systems). */
static int team(const bnl_ctx *ctx, int64_t nt)
{
    return nt > 1 && ctx && ctx->threads > 0 ? ctx->threads : 1;
}

/* element (i, j) of a column-major matrix */
static void *at(void *A, int64_t lda, int64_t i, int64_t j, int f32)
{
    size_t es = f32 ? sizeof(float) : sizeof(double);
    return (char *)A + ((size_t)j * (size_t)lda + (size_t)i) * es;
}

/* C (r x c) += alpha A B^T, A r x k, B c x k (column-major); f32 on the
 * context's tier (cpu_sgemm.h) */
static void gemm_nt(const bnl_ctx *ctx, int f32, int64_t r, int64_t c, int64_t k, double alpha,
                    const void *A, int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                    int64_t ldc)
{
    if (r < 1 || c < 1) return;
    if (f32)
        bnl_sgemm(ctx, CblasColMajor, CblasNoTrans, CblasTrans, (int)r, (int)c, (int)k,
                  (float)alpha, A, (int)lda, B, (int)ldb, (float)beta, C, (int)ldc);
    else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)r, (int)c, (int)k, alpha,
                    A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

/* C (c x c, lower) = beta C + alpha A A^T, A c x k */
static void syrk_n(int f32, int64_t c, int64_t k, double alpha, const void *A, int64_t lda,
                   double beta, void *C, int64_t ldc)
{
    if (f32)
        cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)c, (int)k, (float)alpha, A,
                    (int)lda, (float)beta, C, (int)ldc);
    else
        cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)c, (int)k, alpha, A,
                    (int)lda, beta, C, (int)ldc);
}

/* Column block [j0, j0 + jb) of C (lower) := beta C + alpha A A^T, A the
 * rows j0.. of an ma x k matrix: the diagonal block by syrk, the rows
 * below it by one gemm. */
static void col_update(const bnl_ctx *ctx, int f32, void *C, int64_t ldc, const void *A,
                       int64_t lda, int64_t ma, int64_t k, int64_t j0, int64_t jb, double alpha,
                       double beta)
{
    syrk_n(f32, jb, k, alpha, at((void *)A, lda, j0, 0, f32), lda, beta, at(C, ldc, j0, j0, f32),
           ldc);
    gemm_nt(ctx, f32, ma - j0 - jb, jb, k, alpha, at((void *)A, lda, j0 + jb, 0, f32), lda,
            at((void *)A, lda, j0, 0, f32), lda, beta, at(C, ldc, j0 + jb, j0, f32), ldc);
}

void bnl_syrk_acc(const bnl_ctx *ctx, void *G, int64_t ldg, const void *Ht, int64_t ldh,
                   int64_t ma, int64_t b, double beta, int f32)
{
    int64_t nt = (ma + NB - 1) / NB;
    int saved = bnl_blas_threads_push(ctx, 1);
    /* the tallest column blocks first: the largest tasks start early */
#pragma omp parallel for schedule(dynamic, 1) num_threads(team(ctx, nt))
    for (int64_t t = 0; t < nt; t++) {
        int64_t j0 = t * NB, jb = ma - j0 < NB ? ma - j0 : NB;
        col_update(ctx, f32, G, ldg, Ht, ldh, ma, b, j0, jb, 1.0, beta);
    }
    bnl_blas_threads_pop(saved);
}

/* the share of the factorisation's flops done when the first c of m
 * columns are factored */
static double share(int64_t c, int64_t m)
{
    double r = (double)(m - c) / (double)m;
    return 1.0 - r * r * r;
}

/* Progress after panel k0..k0+kb-1 (from the panel's task: panels run one
 * after the other). */
typedef struct chol_state {
    const bnl_chol_progress *pr;
    double t0, last;
    int shown;
    int64_t m;
} chol_state;

static void chol_progress(chol_state *st, int64_t r0)
{
    double now = bnl_clock();
    if (!st->pr || now - st->t0 < st->pr->after || (st->shown && now - st->last <= 0.25 &&
                                                    r0 < st->m))
        return;
    double sh = share(r0, st->m);
    fsvc_printf("\r%s: Cholesky %3.0f%% of %lld columns, ETA %.0f s   ", st->pr->label,
                100 * sh, (long long)st->m, (now - st->t0) / sh * (1 - sh));
    st->shown = 1;
    st->last = now;
}

/* Right-looking, one task per column block with OpenMP dependencies: the
 * panel task of block k (potrf of its diagonal block, trsm of the rows
 * below) waits for every update of block k; the update of block j by
 * panel k waits for panel k and for block j's previous update. So each
 * block gets the same calls in the same order whatever thread runs them
 * (the same bits), and panel k + 1 starts as soon as its own block is
 * updated, while the other blocks are (look-ahead). */
int bnl_chol(const bnl_ctx *ctx, void *A, int64_t m, int64_t lda, int f32,
              const bnl_chol_progress *pr)
{
    int64_t nt = (m + NB - 1) / NB;
    int info = 0;
    char *dep = malloc((size_t)(nt ? nt : 1)); /* the dependency handle of each block */
    chol_state st = {pr, bnl_clock(), 0, 0, m};
    st.last = st.t0;
    if (!dep) return BNL_CHOL_NOMEM;
    int saved = bnl_blas_threads_push(ctx, 1);
    /* the tasks are children of one explicit task: its dependency table is
     * freed when it ends (that of an implicit task, libgomp 12, can be left
     * behind: LeakSanitizer saw it) */
#pragma omp parallel num_threads(team(ctx, nt))
#pragma omp single
#pragma omp task shared(info, st)
    {
        for (int64_t k = 0; k < nt; k++) {
            int64_t k0 = k * NB, kb = m - k0 < NB ? m - k0 : NB;
#pragma omp task depend(inout : dep[k]) shared(info, st) firstprivate(k0, kb)
            {
                int failed;
#pragma omp atomic read
                failed = info;
                if (!failed) {
                    void *Akk = at(A, lda, k0, k0, f32);
                    int r = f32 ? LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)kb, Akk,
                                                 (lapack_int)lda)
                                : LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)kb, Akk,
                                                 (lapack_int)lda);
                    int64_t rest = m - k0 - kb;
                    if (!r && rest > 0) {
                        if (f32)
                            cblas_strsm(CblasColMajor, CblasRight, CblasLower, CblasTrans,
                                        CblasNonUnit, (int)rest, (int)kb, 1.0f, Akk, (int)lda,
                                        at(A, lda, k0 + kb, k0, f32), (int)lda);
                        else
                            cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans,
                                        CblasNonUnit, (int)rest, (int)kb, 1.0, Akk, (int)lda,
                                        at(A, lda, k0 + kb, k0, f32), (int)lda);
                    }
                    if (r) {
                        r = r > 0 ? r + (int)k0 : r;
#pragma omp atomic write
                        info = r;
                    } else {
                        chol_progress(&st, k0 + kb);
                    }
                }
            }
            for (int64_t j = k + 1; j < nt; j++) {
#pragma omp task depend(in : dep[k]) depend(inout : dep[j]) shared(info) \
    firstprivate(k0, kb, j)
                {
                    int failed;
#pragma omp atomic read
                    failed = info;
                    if (!failed) { /* A_jj.. -= A_j.k A_j.k^T over the rows from j0 */
                        int64_t r0 = k0 + kb, j0 = j * NB, jb = m - j0 < NB ? m - j0 : NB;
                        col_update(ctx, f32, at(A, lda, r0, r0, f32), lda, at(A, lda, r0, k0, f32),
                                   lda, m - r0, kb, j0 - r0, jb, -1.0, 1.0);
                    }
                }
            }
        }
#pragma omp taskwait
    }
    if (st.shown)
        fsvc_printf("\r%s: Cholesky done in %.1f s%30s\n", pr->label, bnl_clock() - st.t0, "");
    bnl_blas_threads_pop(saved);
    free(dep);
    return info;
}

/* B (rows x K, ldb) -= A X, X len x K (ldx): forward, A = L's rows x len
 * block (lda); backward, A^T with A L's len x rows block. f32 on the
 * tier's kernels where it has them (kernels.h tri_fwd, tri_back), else
 * one GEMM. */
static void update(const bnl_ctx *ctx, const bnl_kernels *kt, int f32, int back, void *B,
                   int64_t ldb, const void *A, int64_t lda, const void *X, int64_t ldx,
                   int64_t rows, int64_t len, int K)
{
    bnl_tri_fn fn = kt ? (back ? kt->tri_back : kt->tri_fwd) : NULL;
    CBLAS_TRANSPOSE ta = back ? CblasTrans : CblasNoTrans;
    if (f32 && fn)
        fn(B, ldb, A, lda, X, ldx, rows, len, K);
    else if (f32)
        bnl_sgemm(ctx, CblasColMajor, ta, CblasNoTrans, (int)rows, K, (int)len, -1.0f, A,
                  (int)lda, X, (int)ldx, 1.0f, B, (int)ldb);
    else
        cblas_dgemm(CblasColMajor, ta, CblasNoTrans, (int)rows, K, (int)len, -1.0, A, (int)lda,
                    X, (int)ldx, 1.0, B, (int)ldb);
}

/* One triangular solve of the factor over all K columns, block column by
 * block column, the factor read once and streamed by the whole team (one
 * potrs with a few right-hand sides runs on one thread at half the memory
 * speed). Forward (L X = B), right-looking: block k's diagonal by one
 * trsm, then the rows below it (B_r -= L_rk X_k) in fixed chunks of
 * SOLVE_ROWS rows. Backward (L^T X = B), left-looking: block k's rows
 * first take the solved rows below (B_k -= L_rk^T X_r, a dot down each of
 * its columns of L, contiguous) in fixed chunks of SOLVE_COLS columns,
 * then its trsm. Each chunk gets the same calls in the same order
 * whatever the thread count (the same bits). */
static void tri_solve(const bnl_ctx *ctx, const void *L, int64_t m, int64_t lda, int f32,
                      void *B, int K, int64_t ldb, int back)
{
    int64_t nt = (m + NB - 1) / NB;
    const bnl_kernels *kt = f32 && ctx ? bnl_kernels_get(ctx->arch) : NULL;
#pragma omp parallel num_threads(team(ctx, nt))
    for (int64_t s = 0; s < nt; s++) {
        int64_t k = back ? nt - 1 - s : s, k0 = k * NB, kb = m - k0 < NB ? m - k0 : NB;
        int64_t r0 = k0 + kb, below = m - r0; /* the rows under the block */
        void *Lkk = at((void *)L, lda, k0, k0, f32), *Xk = at(B, ldb, k0, 0, f32);
        if (back && below > 0) {
            int64_t nc = (kb + SOLVE_COLS - 1) / SOLVE_COLS;
#pragma omp for schedule(dynamic, 1)
            for (int64_t c = 0; c < nc; c++) {
                int64_t c0 = k0 + c * SOLVE_COLS, cb = r0 - c0 < SOLVE_COLS ? r0 - c0
                                                                            : SOLVE_COLS;
                update(ctx, kt, f32, 1, at(B, ldb, c0, 0, f32), ldb,
                       at((void *)L, lda, r0, c0, f32), lda, at(B, ldb, r0, 0, f32), ldb, cb,
                       below, K);
            }
        }
#pragma omp single
        {
            if (f32)
                cblas_strsm(CblasColMajor, CblasLeft, CblasLower,
                            back ? CblasTrans : CblasNoTrans, CblasNonUnit, (int)kb, K, 1.0f,
                            Lkk, (int)lda, Xk, (int)ldb);
            else
                cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower,
                            back ? CblasTrans : CblasNoTrans, CblasNonUnit, (int)kb, K, 1.0,
                            Lkk, (int)lda, Xk, (int)ldb);
        }
        if (back) continue;
        int64_t nc = (below + SOLVE_ROWS - 1) / SOLVE_ROWS;
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < nc; c++) {
            int64_t c0 = r0 + c * SOLVE_ROWS, rb = m - c0 < SOLVE_ROWS ? m - c0 : SOLVE_ROWS;
            update(ctx, kt, f32, 0, at(B, ldb, c0, 0, f32), ldb, at((void *)L, lda, c0, k0, f32),
                   lda, Xk, ldb, rb, kb, K);
        }
    }
}

const char *bnl_chol_solve_path(const bnl_ctx *ctx, const char **tier)
{
    const bnl_kernels *k = bnl_kernels_get(ctx->arch);
    *tier = k->tri_fwd ? k->name : bnl_sgemm_dnnl(ctx) ? "onednn-sgemm" : "openblas-sgemm";
    return k->tri_fwd ? "kernels" : "gemm";
}

int bnl_chol_solve(const bnl_ctx *ctx, const void *L, int64_t m, int64_t lda, int f32,
                    void *B, int K, int64_t ldb)
{
    if (m < 0 || K < 0 || lda < (m > 1 ? m : 1) || ldb < (m > 1 ? m : 1)) return -1;
    if (m == 0 || K == 0) return 0;
    int saved = bnl_blas_threads_push(ctx, 1);
    tri_solve(ctx, L, m, lda, f32, B, K, ldb, 0);
    tri_solve(ctx, L, m, lda, f32, B, K, ldb, 1);
    bnl_blas_threads_pop(saved);
    return 0;
}
