/* chol.h - the dense kernels of the ridge solves with results that do not
 * depend on the thread count (internal to fsvc/).
 *
 * OpenBLAS's threaded dsyrk and dpotrf split the work by the thread count
 * and round differently for each count, so a model trained with --threads
 * 1 and --threads 2 differed in its bytes (issue 14, point 11). These
 * functions cut the work into fixed blocks of FSVC_CHOL_NB columns, whatever
 * the thread count, run each block as one single-threaded BLAS/LAPACK call
 * and spread the blocks over ctx->threads OpenMP threads: every block is
 * computed the same way in the same order of updates, so the bits are
 * those of one thread. The Cholesky factor is right-looking blocked
 * (potrf of the diagonal block, trsm of the panel below it, syrk/gemm of
 * the trailing columns), which also gives it progress per panel.
 *
 * Matrices are column-major lower (the same memory as row-major upper);
 * f32: float, else double. */
#ifndef FSVC_CHOL_H
#define FSVC_CHOL_H

#include "internal.h"

#ifndef FSVC_CHOL_NB
#define FSVC_CHOL_NB 256
#endif

/* Progress of a factorisation, printed through fsvc_printf when non-NULL
 * and the factorisation has run for more than `after` seconds (the
 * solvers: 0.5): "\r<label>: Cholesky NN% of M columns, ETA S s", at most
 * every 0.25 s, then "<label>: Cholesky done in S s" and a newline. */
typedef struct fsvc_chol_progress {
    const char *label;
    double after;
} fsvc_chol_progress;

/* A (m x m, lda) = L L^T in place (lower triangle; the upper one is not
 * touched). Returns LAPACK's info: 0, > 0 the column (1-based) where A is
 * not positive definite, < 0 a NaN/argument refusal of LAPACKE, or
 * FSVC_CHOL_NOMEM. */
#define FSVC_CHOL_NOMEM (-1000)
int fsvc_chol(const bnl_ctx *ctx, void *A, int64_t m, int64_t lda, int f32,
              const fsvc_chol_progress *pr);

/* B (m x K column-major, ldb) := A^{-1} B with the factor of fsvc_chol:
 * the forward and backward triangular solves by blocks of FSVC_CHOL_NB
 * columns, the updates in fixed chunks of rows spread over the team (the
 * factor streamed once per solve by all threads). 0, or -1 for a bad
 * size or leading dimension (as LAPACK's argument refusals). */
int fsvc_chol_solve(const bnl_ctx *ctx, const void *L, int64_t m, int64_t lda, int f32,
                    void *B, int K, int64_t ldb);

/* G (ma x ma, ldg, lower) := beta G + Ht Ht^T with Ht ma x b column-major
 * (ld ldh): a row-major b x ma block of H gives Ht with ldh = ma, and a
 * row-major upper G. Only the lower triangle of G is written. */
void fsvc_syrk_acc(const bnl_ctx *ctx, void *G, int64_t ldg, const void *Ht, int64_t ldh,
                   int64_t ma, int64_t b, double beta, int f32);

#endif
