/* sparse_ridge.c - the ridge readout on sparse data (sparse.h): H chunks
 * from the sparse layer, then the direct solve (H^T H by dsyrk in double,
 * Cholesky) or the PCG of fsvc/pcg.c over the engine's block products
 * of a CSR source (bnl_hprod_*, layers/cpu_hprod.c). The lambda rule, its
 * retries and the words of degenerate systems are those of fsvc/ridge.c;
 * sample weights as there (rows of H and T times sqrt(w)). */
#include "sparse.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SP_CHUNK_BYTES (1 << 25) /* one H chunk, float */
#define SP_PCG_MAX_ITER 500
#define SP_RAM_USE 0.9

static int64_t chunk_rows(int64_t m, int64_t N)
{
    int64_t Nc = (int64_t)(SP_CHUNK_BYTES / ((size_t)m * sizeof(float)));
    if (Nc < 64) Nc = 64;
    if (Nc > 4096) Nc = 4096;
    return Nc > N ? (N > 0 ? N : 1) : Nc;
}

/* ---- the direct solve ---- */

/* One solve of the lambda rule: A = G + lam I, its Cholesky factor, B. */
typedef struct sp_sys {
    const bnl_ctx *ctx;
    const double *G;
    double *A;
    int64_t m;
    int K, bars;
} sp_sys;

static int sp_solve(void *self, double lam, double *B, int *info, fsvc_error *err)
{
    sp_sys *s = self;
    int64_t m = s->m;
    (void)err;
    memcpy(s->A, s->G, (size_t)m * m * sizeof *s->A);
    for (int64_t j = 0; j < m; j++) s->A[(size_t)j * m + j] += lam;
    bnl_chol_progress pr = {"ridge", 0.5};
    *info = bnl_chol(s->ctx, s->A, m, m, 0, s->bars ? &pr : NULL);
    if (!*info) *info = bnl_chol_solve(s->ctx, s->A, m, m, 0, B, s->K, m);
    return FSVC_OK;
}

static int direct(double *R, const fsvc_sparse_problem *pb, double lambda, int progress,
                  double *times, fsvc_error *err)
{
    const bnl_ctx *ctx = pb->ctx;
    const fsvc_csr *X = pb->X;
    const int *cls = pb->cls;
    const double *y = pb->y, *sw = pb->sw;
    int K = pb->K;
    int64_t m = pb->Ct->m, N = X->rows, Nc = chunk_rows(m, N);
    double *G = calloc((size_t)m * m, sizeof *G);       /* upper (column-major lower) */
    double *A = malloc((size_t)m * m * sizeof *A);      /* G + lam I, factored */
    double *Hd = malloc((size_t)Nc * m * sizeof *Hd);   /* chunk widened to double */
    float *H = malloc((size_t)Nc * m * sizeof *H);
    double *B0 = calloc((size_t)m * K, sizeof *B0);     /* H^T T, column-major m x K */
    double *B = malloc((size_t)m * K * sizeof *B);
    double *dg = malloc((size_t)m * sizeof *dg);        /* diag(H^T H) */
    int rc = FSVC_OK;
    if (!G || !A || !Hd || !H || !B0 || !B || !dg) {
        rc = fsvc_fail(err, FSVC_ERESOURCE, "ridge: out of memory for %lld centroids",
                       (long long)m);
        goto done;
    }
    double t_h = 0, t_g = 0, t0;
    for (int64_t i0 = 0; i0 < N; i0 += Nc) {
        int64_t b = N - i0 < Nc ? N - i0 : Nc;
        bnl_csr v = fsvc_csr_view(X, i0, b);
        t0 = fsvc_clock();
        if ((rc = bnl_sparse_forward(ctx, pb->op, H, m, pb->Ct, &v, err))) goto done;
        t_h += fsvc_clock() - t0;
        t0 = fsvc_clock();
        for (size_t q = 0; q < (size_t)b * m; q++) Hd[q] = H[q];
        for (int64_t i = 0; sw && i < b; i++) /* rows of H and T times sqrt(w) */
            cblas_dscal((int)m, sqrt(sw[i0 + i]), Hd + (size_t)i * m, 1);
        /* row-major H_c: H_c^T H_c into G's upper = column-major lower */
        bnl_syrk_acc(ctx, G, m, Hd, m, m, b, 1.0, 0); /* fixed blocks: any --threads */
        for (int64_t i = 0; i < b; i++) {
            const double *h = Hd + (size_t)i * m;
            double t = sw ? sqrt(sw[i0 + i]) * (y ? y[i0 + i] : 1) : y ? y[i0 + i] : 1;
            double *bk = B0 + (y ? 0 : (size_t)cls[i0 + i] * m);
            if (y || sw) { for (int64_t j = 0; j < m; j++) bk[j] += h[j] * t; }
            else { for (int64_t j = 0; j < m; j++) bk[j] += h[j]; }
        }
        t_g += fsvc_clock() - t0;
    }
    for (int64_t j = 0; j < m; j++) dg[j] = G[(size_t)j * m + j];
    sp_sys ss = {ctx, G, A, m, K, progress == FSVC_PROGRESS_ALL};
    fsvc_ridge_sys sys = {sp_solve, &ss, dg, m, K, B0, B};
    double tc = fsvc_clock();
    rc = fsvc_ridge_lambda_solve(&sys, lambda, pb->op->radius, progress, err);
    if (times) { times[0] = t_h; times[1] = t_g; times[2] = fsvc_clock() - tc; }
    if (rc)
        goto done;
    for (int64_t j = 0; j < m; j++)
        for (int k = 0; k < K; k++) R[j * K + k] = B[(size_t)k * m + j];
done:
    free(G); free(A); free(Hd); free(H); free(B0); free(B); free(dg);
    return rc;
}

/* ---- the PCG solve ---- */

/* The pcg readout over the engine's block products of the CSR source
 * (bnl_hprod_*, as the dense readout's: fsvc/solver.c). */
static int pcg(double *R, const fsvc_sparse_problem *pb, const fsvc_ridge_opt *o, int cache,
               fsvc_train_info *info, fsvc_error *err)
{
    int64_t m = pb->Ct->m, N = pb->X->rows;
    bnl_csr cv = fsvc_csr_view(pb->C, 0, m), xv = fsvc_csr_view(pb->X, 0, N);
    bnl_hprod_csr csr = {pb->Ct, &cv, &xv};
    /* one process: comm is not read by the source */
    fsvc_ridge_problem rp = {pb->ctx, pb->op, NULL, m, NULL, pb->cls, pb->y, NULL, N, N,
                             pb->Ct->n, pb->K, NULL, pb->sw, &csr};
    int bars = o->progress == FSVC_PROGRESS_ALL;
    fsvc_hsrc_opt ho = {FSVC_AUG_NONE, 0, 0, cache, bars, o->progress != 0, o->h16};
    fsvc_hsrc src;
    int rc = fsvc_hsrc_open(&src, &rp, &ho, err);
    if (rc)
        return rc;
    double *W = malloc((size_t)m * pb->K * sizeof *W);
    fsvc_pcg_opt opt = {o->lambda, o->tol, SP_PCG_MAX_ITER, 0, bars};
    rc = W ? FSVC_OK : fsvc_fail(err, FSVC_ERESOURCE, "pcg: out of memory");
    if (!rc) rc = fsvc_pcg_readout(R, W, &src, pb->op, &opt, o->progress, info, err);
    free(W);
    fsvc_hsrc_close(&src);
    return rc;
}

int fsvc_sparse_ridge(double *R, const fsvc_sparse_problem *pb, const fsvc_ridge_opt *o,
                      fsvc_train_info *info, fsvc_error *err)
{
    int64_t m = pb->Ct->m, N = pb->X->rows;
    double lambda = o->lambda, tol = o->tol;
    fsvc_solver s = o->solver;
    int progress = o->progress;
    int rc0 = fsvc_lambda_check(lambda, err);
    if (rc0)
        return rc0;
    if (m < 1 || N < 1)
        return fsvc_fail(err, FSVC_EINPUT, "ridge: no %s to fit (m = %lld, N = %lld)",
                         m < 1 ? "centroids" : "samples", (long long)m, (long long)N);
    int rule = s == FSVC_SOLVER_AUTO ? FSVC_AUTO_BY_M : FSVC_AUTO_NONE;
    if (s == FSVC_SOLVER_AUTO)
        s = m >= FSVC_PCG_AUTO_M ? FSVC_SOLVER_PCG : FSVC_SOLVER_DIRECT;
    if (s == FSVC_SOLVER_PCG && !(tol > 0 && tol < 1))
        return fsvc_fail(err, FSVC_EUSAGE, "ridge: the pcg tolerance must be in (0, 1)");
    /* memory: direct G and its factor in double (2 m^2 x 8) + chunks; pcg
     * the factor of K_mm (float) + chunks */
    double ram = fsvc_phys_ram(), budget = ram * SP_RAM_USE, mm = (double)m * m;
    double chunk = (double)chunk_rows(m, N) * m * 12;
    double need = s == FSVC_SOLVER_DIRECT ? 16 * mm + chunk : 4 * mm + chunk;
    if (ram > 0 && need > budget) {
        double per = s == FSVC_SOLVER_DIRECT ? 16 : 4;
        return fsvc_fail(err, FSVC_ERESOURCE, "ridge (%s): %lld centroids need %.1f GB, this "
                         "machine has %.1f GB; the largest that fits is about %lld "
                         "(--max-neurons)%s", fsvc_solver_name(s), (long long)m, need / 1e9,
                         ram / 1e9, (long long)sqrt((budget - chunk) / per),
                         s == FSVC_SOLVER_DIRECT ? ", or use --solver pcg" : "");
    }
    if (info) {
        info->solver = s;
        info->solver_rule = rule;
        info->cg_iter = 0;
        info->cg_res = 0;
        info->cg_converged = 0;
    }
    int saved = bnl_blas_threads_push(pb->ctx, 0);
    int rc;
    if (s == FSVC_SOLVER_DIRECT) {
        rc = direct(R, pb, lambda, progress, info ? info->t_ridge : NULL, err);
    } else {
        fsvc_ridge_opt po = *o;
        int cache; /* a CSR source's H is float (or bf16) whatever the dtype */
        int bounded = fsvc_h_bounded(pb->op, NULL, 0, pb->sw, N);
        po.h16 = fsvc_pcg_h_pick(o->h16, 0, bounded, lambda, (double)N * m,
                                 ram > 0 ? (budget - need) / 2 : 0, o->progress, &cache);
        rc = fsvc_pcg_h_check(o->h16, 0, bounded, err);
        if (!rc) rc = pcg(R, pb, &po, cache, info, err);
    }
    bnl_blas_threads_pop(saved);
    return rc;
}
