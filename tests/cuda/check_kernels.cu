/*
 * check_kernels.cu - the on-device harness of the CUDA backend (llm.c
 * dev/cuda style): on a machine with an NVIDIA GPU it checks every kernel
 * path of cuda/ against the CPU reference backend ("ref") and times it.
 *
 *   make test-cuda                  (from the top: builds, then runs this)
 *   check_kernels [--quick] [--n N] [--csv FILE]
 *
 * 1. correctness: bnl_cuda_forward and bnl_cuda_actsum for u8 L1/L2/dot,
 *    f32 L1/L2/dot (tile kernel and cuBLAS + epilogue; L2 / dot also at
 *    precision tf32 and bf16, which the ref context emulates) and f64
 *    L1/L2/dot (issue 10: the f64 tile kernel, Dgemm + epilogue) at many
 *    shapes with edge tiles, against bnl_forward / bnl_actsum on a ref
 *    context: u8 bit-exact, f32 and f64 within the stated tolerances;
 * 2. kernel-only timing (CUDA events around the tile kernel on device
 *    buffers) for BNLs M x M, n = 784, u8, f32 and f64 L1: time per BNL
 *    and t_syn;
 * 3. end-to-end timing of bnl_cuda_forward (pinned staging, streams,
 *    transfers included, as the paper's GPU times include the D2H of H);
 * 4. the device-resident readout (cuda/ridge.cu): bnl_cuda_scores against
 *    bnl_scores on a cpu context, the normal equations (diag(H^T H),
 *    H^T T) against float64 sums of the CPU's H and the device solve
 *    against LAPACK on those sums, resident and, with the memory budget
 *    forced small, with X streamed in chunks;
 * 5. the LMS readout on the device (cuda/lms.cu): bnl_cuda_lms epochs
 *    against the CPU's sequential loop over the CPU's H (R within a
 *    relative tolerance: the dot's order differs), the divergence status
 *    at the same sample, resident and streamed; seconds per epoch.
 * 6. the novelty session (cuda/novelty.cu, issue 10): centroids added in
 *    pieces to a store opened small (it grows), the sums of a chunk after
 *    each piece against bnl_actsum on a ref context over all the centroids
 *    so far (u8 tri bit-exact; f32 and f64 within check_one's tolerance).
 * 7. the k-means++ min-distance session (cuda/mind.cu, issue 10): D2
 *    after updates of 1, 7 and 300 centroids against the fold of the ref
 *    context's identity forward, squared in double (u8 bit-exact, f32
 *    within a relative 1e-5).
 * The cases, their data, radii and per-element tolerances are
 * ck_cases.h's (issue 25): each case's H spans (0, 1) and a dropped k
 * element fails its tolerance, which tests/test_cuda_cases.c checks on
 * the host and check_one checks again here on the first 64 samples
 * ("UNFIT" when a case could not fail).
 * Exit 0 all correct, 1 a mismatch, 3 no usable device (one line says why).
 */
#include "cuda/cuda_internal.h"
#include "cuda/tune_file.h"
#include "layers/bnl.h"
#include "tests/cuda/ck_cases.h" /* the cases, radii, tolerances and guard */

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(e_));                                            \
            exit(3);                                                                    \
        }                                                                               \
    } while (0)

static uint64_t rs = 88172645463325252ull;
static uint32_t rnd(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint32_t)(rs >> 20);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void *fill(int64_t count, fsvc_dtype dt)
{
    void *p = malloc((size_t)count * fsvc_dtype_size(dt));
    if (!p) { fprintf(stderr, "out of memory\n"); exit(3); }
    for (int64_t e = 0; e < count; e++) {
        if (dt == FSVC_U8) ((uint8_t *)p)[e] = (uint8_t)rnd();
        else if (dt == FSVC_F64) ((double *)p)[e] = (double)(rnd() % 1000003) / 1000003.0;
        else ((float *)p)[e] = (float)(rnd() % 4096) / 4095.0f + (float)(rnd() % 7) * 1e-5f;
    }
    return p;
}

/* Rows drawn as ck_cases.h draws them (the host test sees the same). */
static void *draw(int64_t count, const ck_case *cc, uint64_t *rs)
{
    void *p = ck_fill(count, cc->t, cc->data, rs);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(3); }
    return p;
}

/* one case at one shape: forward and actsum vs ref, each element within
 * its own tolerance (ck_tol); returns mismatches (1 when the case could
 * not fail: ck_guard) */
static int check_one(bnl_cuda *c, bnl_ctx *ref, const ck_case *cc, uint64_t seed, int64_t m,
                     int64_t N, int n)
{
    uint64_t rs = seed;
    bnl_op op = ck_op(cc, n);
    void *W = draw(m * n, cc, &rs), *X = draw(N * n, cc, &rs);
    size_t es = fsvc_dtype_size(op.dtype);
    int64_t ldh = m + 3; /* a leading dimension that is not m */
    int f64 = op.dtype == FSVC_F64;
    size_t hs = f64 ? 8 : 4; /* H: float, double for f64 */
    void *H = malloc(hs * N * ldh), *R = malloc(hs * N * m);
    double *S = (double *)malloc(8 * N), *SR = (double *)malloc(8 * N);
    double *ST = (double *)calloc((size_t)N, 8); /* per sample: the sum of its tolerances */
    fsvc_error err;
    int bad = 0, shown = 0;
    ck_guard_res gr;
    if (ck_guard(ref, cc, &op, W, m, X, N < 64 ? N : 64, n, &gr, &err) ||
        !ck_guard_ok(&gr, 1)) {
        printf("  UNFIT: %lld of %lld inside (0, 1), a dropped element seen in %lld H, %lld S\n",
               (long long)gr.inside, (long long)gr.total, (long long)gr.fault_h,
               (long long)gr.fault_s);
        bad++;
    }
    for (int64_t i = 0; i < N * ldh; i++) {
        if (f64) ((double *)H)[i] = -5.0;
        else ((float *)H)[i] = -5.0f;
    }
    for (int64_t i = 0; i < N; i++) S[i] = SR[i] = 0.5 * i;
    if (bnl_cuda_forward(c, &op, H, ldh, W, m, X, N, n, &err) ||
        bnl_forward(ref, &op, R, m, W, m, X, N, n, &err)) {
        printf("  ERROR %s\n", err.msg);
        return bad + 1;
    }
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < m; j++) {
            double g = f64 ? ((double *)H)[i * ldh + j] : ((float *)H)[i * ldh + j];
            double w = f64 ? ((double *)R)[i * m + j] : ((float *)R)[i * m + j];
            double tol = ck_tol(cc, &op, (const char *)W + j * n * es,
                                (const char *)X + i * n * es, n);
            ST[i] += tol;
            if (!ck_ok(cc, g, w, tol)) {
                bad++;
                if (shown++ < 4)
                    printf("  H[%lld][%lld] gpu %.9g ref %.9g (tol %.3g)\n", (long long)i,
                           (long long)j, g, w, tol);
            }
        }
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = m; j < ldh; j++)
            if ((f64 ? ((double *)H)[i * ldh + j] : ((float *)H)[i * ldh + j]) != -5.0) bad++;
    if (bnl_cuda_actsum(c, &op, S, W, m, X, N, n, &err) ||
        bnl_actsum(ref, &op, SR, W, m, X, N, n, &err)) {
        printf("  ERROR %s\n", err.msg);
        return bad + 1;
    }
    for (int64_t i = 0; i < N; i++) {
        double ts = ck_tol_s(cc, ST[i], m, SR[i]);
        int ok = ts == 0.0 ? memcmp(&S[i], &SR[i], 8) == 0 : fabs(S[i] - SR[i]) <= ts;
        if (!ok) {
            bad++;
            if (shown++ < 8)
                printf("  S[%lld] gpu %.17g ref %.17g (tol %.3g)\n", (long long)i, S[i], SR[i],
                       ts);
        }
    }
    free(W); free(X); free(H); free(R); free(S); free(SR); free(ST);
    return bad;
}

static int correctness(bnl_cuda *c, int quick)
{
    bnl_ctx ref;
    fsvc_error err;
    if (bnl_ctx_open(&ref, "ref", 0, 1, &err)) { printf("%s\n", err.msg); return 1; }
    int nshapes = quick ? 5 : CK_NSHAPES, fails = 0;
    for (int o = 0; o < CK_NFWD; o++)
        for (int s = 0; s < nshapes; s++) {
            const ck_case *cc = &ck_fwd_cases[o];
            if (ck_shapes[s][2] > cc->max_n) /* the bound would not see a dropped element */
                continue;
            int bad = check_one(c, &ref, cc, ck_seed(0, o, s), ck_shapes[s][0], ck_shapes[s][1],
                                ck_shapes[s][2]);
            printf("%-4s %-3s %-5s %-4s m %5d N %5d n %5d: %s", fsvc_dtype_name(cc->t),
                   bnl_dist_name(cc->d), bnl_act_name(cc->a), bnl_precision_name(cc->p),
                   ck_shapes[s][0], ck_shapes[s][1], ck_shapes[s][2], bad ? "MISMATCH" : "ok");
            if (bad) printf(" (%d)", bad);
            printf("\n");
            fails += bad != 0;
        }
    /* many tiles: force small BNLs so that streaming and edge tiles run */
    bnlc_limits lim, small;
    bnl_cuda_limits(c, &lim, NULL);
    small = lim;
    small.max_M = 384;
    bnl_cuda_limits(c, NULL, &small);
    for (int t = 0; t < 3; t++) {
        const ck_case *cc = &ck_tile_cases[t];
        int bad = check_one(c, &ref, cc, ck_seed(1, t, 0), 1000, 1500, 300);
        printf("%-4s l1 tri   m 1000 N 1500 n 300, BNL <= 384 (12 tiles): %s\n",
               fsvc_dtype_name(cc->t), bad ? "MISMATCH" : "ok");
        fails += bad != 0;
    }
    bnl_cuda_limits(c, NULL, &lim);
    bnl_ctx_close(&ref);
    return fails;
}

/* The share of H strictly inside (0, 1) is at least a tenth (ck_spans):
 * else H^T H is ~0 and the checks below compare zeros (issue 25). */
static int spans(const float *H, int64_t count)
{
    int64_t in = 0;
    for (int64_t q = 0; q < count; q++) in += H[q] > 0.001f && H[q] < 0.999f;
    if (count >= 16 && in * 10 < count) {
        printf("  UNFIT: %lld of %lld of H inside (0, 1)\n", (long long)in, (long long)count);
        return 0;
    }
    return 1;
}

/* The device readout at one shape against the CPU; returns mismatches. */
static int check_readout(bnl_cuda *c, bnl_ctx *cpu, const ck_case *cc, uint64_t seed,
                         int64_t m, int64_t N, int n, int K)
{
    uint64_t rs = seed;
    bnl_op opv = ck_op(cc, n);
    const bnl_op *op = &opv;
    void *W = draw(m * n, cc, &rs), *X = draw(N * n, cc, &rs);
    float *H = (float *)malloc(sizeof(float) * N * m);
    double *R = (double *)malloc(8 * m * K), *Y = (double *)malloc(8 * N * K);
    double *Yc = (double *)malloc(8 * N * K), *dg = (double *)malloc(8 * m);
    double *B = (double *)malloc(8 * m * K), *Rd = (double *)malloc(8 * m * K);
    double *G = (double *)calloc((size_t)(m * m), 8), *Bc = (double *)calloc((size_t)(m * K), 8);
    int *cls = (int *)malloc(sizeof(int) * N);
    for (int64_t q = 0; q < m * K; q++) R[q] = (double)((int)(rnd() % 2001) - 1000) / 1000.0;
    for (int64_t i = 0; i < N; i++) cls[i] = (int)(rnd() % (unsigned)K);
    fsvc_error err;
    int bad = 0;
    bnl_normal_impl *nq = NULL;
    int info = -1;
    if (bnl_cuda_scores(c, op, Y, W, m, X, N, n, R, K, &err) ||
        bnl_scores(cpu, op, Yc, W, m, X, N, n, R, K, &err) ||
        bnl_forward(cpu, op, H, m, W, m, X, N, n, &err) ||
        bnl_cuda_normal_open(c, &nq, &err) ||
        bnl_cuda_normal_accum(nq, op, W, m, X, N, n, cls, NULL, NULL, K, dg, B, &err)) {
        printf("  ERROR %s\n", err.msg);
        bnl_cuda_normal_close(nq);
        return 1;
    }
    double ftol = ck_tol_readout(op->dtype);
    bad += !spans(H, N * m);
    for (int64_t q = 0; q < N * K; q++)
        if (!(fabs(Y[q] - Yc[q]) <= ftol * (double)m)) {
            if (bad++ < 4) printf("  Y[%lld] gpu %.17g cpu %.17g\n", (long long)q, Y[q], Yc[q]);
        }
    for (int64_t i = 0; i < N; i++) { /* float64 sums of the CPU's H */
        const float *h = H + i * m;
        for (int64_t a = 0; a < m; a++) {
            if (h[a] == 0) continue;
            Bc[a + (int64_t)cls[i] * m] += h[a];
            for (int64_t b = 0; b <= a; b++) G[a + b * m] += (double)h[a] * h[b];
        }
    }
    double md = 0;
    for (int64_t j = 0; j < m; j++) {
        md += G[j + j * m];
        if (!(fabs(dg[j] - G[j + j * m]) <= ftol * (1 + G[j + j * m])) && bad++ < 8)
            printf("  diag[%lld] gpu %.17g cpu %.17g\n", (long long)j, dg[j], G[j + j * m]);
    }
    for (int64_t q = 0; q < m * K; q++)
        if (!(fabs(B[q] - Bc[q]) <= ftol * (1 + fabs(Bc[q]))) && bad++ < 8)
            printf("  B[%lld] gpu %.17g cpu %.17g\n", (long long)q, B[q], Bc[q]);
    double lam = CK_RIDGE_C * md / (double)m; /* ck_cases.h: R's tolerance holds at it */
    if (bnl_cuda_normal_solve(nq, 0.0 * lam, Rd, &info, &err) ||   /* may fail: a retry */
        bnl_cuda_normal_solve(nq, lam, Rd, &info, &err) || info != 0) {
        printf("  ERROR solve info %d: %s\n", info, err.msg);
        bad++;
    } else {
        for (int64_t j = 0; j < m; j++) G[j + j * m] += lam;
        LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (int)m, G, (int)m);
        LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (int)m, K, G, (int)m, Bc, (int)m);
        double rmax = 0;
        for (int64_t q = 0; q < m * K; q++) rmax = fmax(rmax, fabs(Bc[q]));
        for (int64_t q = 0; q < m * K; q++)
            if (!(fabs(Rd[q] - Bc[q]) <= ck_tol_r(op->dtype) * rmax) &&
                bad++ < 12)
                printf("  R[%lld] gpu %.17g cpu %.17g\n", (long long)q, Rd[q], Bc[q]);
    }
    /* class weights (G = H^T D H, B = H^T D T, D = diag(cw[cls_i])) and G
     * fetched whole (both triangles), against float64 sums of the CPU's H */
    double *cw = (double *)malloc(8 * K), *Gw = (double *)calloc((size_t)(m * m), 8);
    double *Bw = (double *)calloc((size_t)(m * K), 8), *Gd = (double *)malloc(8 * m * m);
    for (int k = 0; k < K; k++) cw[k] = 0.5 + 0.25 * k;
    for (int64_t i = 0; i < N; i++) {
        const float *h = H + i * m;
        double w = cw[cls[i]];
        for (int64_t a = 0; a < m; a++) {
            if (h[a] == 0) continue;
            Bw[a + (int64_t)cls[i] * m] += w * h[a];
            for (int64_t b = 0; b <= a; b++) Gw[a + b * m] += w * h[a] * h[b];
        }
    }
    if (bnl_cuda_normal_accum(nq, op, W, m, X, N, n, cls, NULL, cw, K, dg, B, &err) ||
        bnl_cuda_normal_fetch(nq, Gd, &err)) {
        printf("  ERROR weighted: %s\n", err.msg);
        bad++;
    } else {
        for (int64_t j = 0; j < m; j++)
            if (!(fabs(dg[j] - Gw[j + j * m]) <= ftol * (1 + Gw[j + j * m])) && bad++ < 8)
                printf("  weighted diag[%lld] gpu %.17g cpu %.17g\n", (long long)j, dg[j],
                       Gw[j + j * m]);
        for (int64_t q = 0; q < m * K; q++)
            if (!(fabs(B[q] - Bw[q]) <= ftol * (1 + fabs(Bw[q]))) && bad++ < 8)
                printf("  weighted B[%lld] gpu %.17g cpu %.17g\n", (long long)q, B[q], Bw[q]);
        for (int64_t a = 0; a < m; a++)
            for (int64_t b = 0; b <= a; b++) {
                double ref = Gw[a + b * m], tol = ftol * (1 + sqrt(Gw[a + a * m] * Gw[b + b * m]));
                if (!(fabs(Gd[a + b * m] - ref) <= tol && fabs(Gd[b + a * m] - ref) <= tol) &&
                    bad++ < 8)
                    printf("  fetched G[%lld, %lld] gpu %.17g / %.17g cpu %.17g\n", (long long)a,
                           (long long)b, Gd[a + b * m], Gd[b + a * m], ref);
            }
    }
    free(cw); free(Gw); free(Bw); free(Gd);
    bnl_cuda_normal_close(nq);
    free(W); free(X); free(H); free(R); free(Y); free(Yc); free(dg); free(B); free(Rd);
    free(G); free(Bc); free(cls);
    return bad;
}

static int readout(bnl_cuda *c, int quick)
{
    bnl_ctx cpu;
    fsvc_error err;
    if (bnl_ctx_open(&cpu, "cpu", 0, 1, &err)) { printf("%s\n", err.msg); return 1; }
    int fails = 0;
    printf("\ndevice readout (scores, H^T H, H^T T, solve; weighted, fetched G) vs cpu:\n");
    for (int o = 0; o < 4; o++)
        for (int s = 0; s < (quick ? 2 : 3); s++) {
            const ck_case *cc = &ck_readout_cases[o];
            const int *sh = ck_readout_shapes[s];
            int bad = check_readout(c, &cpu, cc, ck_seed(2, o, s), sh[0], sh[1], sh[2], 10);
            printf("%-4s %-3s %-5s m %5d N %5d n %5d: %s\n", fsvc_dtype_name(cc->t),
                   bnl_dist_name(cc->d), bnl_act_name(cc->a), sh[0], sh[1], sh[2],
                   bad ? "MISMATCH" : "ok");
            fails += bad != 0;
        }
    /* streamed: leave the readout ~48 MB so that X (40000 x 800 B) comes in chunks */
    size_t fr = 0, tot = 0;
    CK(cudaMemGetInfo(&fr, &tot));
    bnlc_limits lim, small;
    bnl_cuda_limits(c, &lim, NULL);
    small = lim;
    small.mem_frac = 0.9;
    small.mem_reserve = (int64_t)(0.9 * (double)fr) - (48 << 20);
    bnl_cuda_limits(c, NULL, &small);
    int bad = check_readout(c, &cpu, &ck_readout_cases[0], ck_seed(2, 9, 0), 300, 40000, 784, 10);
    printf("u8   l1  gauss m   300 N 40000 n   784, X streamed in chunks: %s\n",
           bad ? "MISMATCH" : "ok");
    fails += bad != 0;
    bnl_cuda_limits(c, NULL, &lim);
    bnl_ctx_close(&cpu);
    return fails;
}

/* The LMS epochs on the device at one shape against the CPU's loop over
 * the CPU's H (fsvc/readout.c); returns mismatches. */
static int check_lms(bnl_cuda *c, bnl_ctx *cpu, const ck_case *cc, uint64_t seed, int64_t m,
                     int64_t N, int n, int K, double eta, int epochs)
{
    uint64_t rs = seed;
    bnl_op opv = ck_op(cc, n);
    const bnl_op *op = &opv;
    void *W = draw(m * n, cc, &rs), *X = draw(N * n, cc, &rs);
    float *H = (float *)malloc(sizeof(float) * N * m);
    double *R = (double *)calloc((size_t)(m * K), 8), *Rc = (double *)calloc((size_t)(m * K), 8);
    double *e = (double *)malloc(8 * K);
    int *cls = (int *)malloc(sizeof(int) * N);
    for (int64_t i = 0; i < N; i++) cls[i] = (int)(rnd() % (unsigned)K);
    for (int64_t j = 0; j < m; j++) R[j * K + j % K] = Rc[j * K + j % K] = 1.0;
    fsvc_error err;
    int bad = 0;
    if (bnl_forward(cpu, op, H, m, W, m, X, N, n, &err)) {
        printf("  ERROR %s\n", err.msg);
        return 1;
    }
    bad += !spans(H, N * m);
    int64_t bc = -1, bd = -1;
    for (int ep = 0; ep < epochs && bc < 0; ep++)
        for (int64_t i = 0; i < N && bc < 0; i++) {
            const float *h = H + i * m;
            for (int k = 0; k < K; k++) e[k] = cls[i] == k ? 1.0 : 0.0;
            for (int64_t j = 0; j < m; j++)
                if (h[j] != 0)
                    for (int k = 0; k < K; k++) e[k] -= (double)h[j] * Rc[j * K + k];
            for (int k = 0; k < K; k++)
                if (!isfinite(e[k])) bc = ep * N + i;
            if (bc >= 0) break;
            for (int64_t j = 0; j < m; j++)
                if (h[j] != 0)
                    for (int k = 0; k < K; k++) Rc[j * K + k] += eta * (double)h[j] * e[k];
        }
    double t0 = now();
    for (int ep = 0; ep < epochs && bd < 0; ep++) {
        int64_t b = -1;
        if (bnl_cuda_lms(c, op, R, W, m, X, cls, N, n, K, eta, &b, &err)) {
            printf("  ERROR %s\n", err.msg);
            return 1;
        }
        if (b >= 0) bd = ep * N + b;
    }
    double sec = (now() - t0) / epochs;
    if (bc != bd) {
        printf("  diverged at gpu %lld cpu %lld\n", (long long)bd, (long long)bc);
        bad++;
    } else if (bc < 0) {
        double rmax = 0;
        for (int64_t q = 0; q < m * K; q++) rmax = fmax(rmax, fabs(Rc[q]));
        for (int64_t q = 0; q < m * K; q++)
            if (!(fabs(R[q] - Rc[q]) <= (op->dtype == FSVC_U8 ? 1e-9 : 1e-4) * rmax) &&
                bad++ < 8)
                printf("  R[%lld] gpu %.17g cpu %.17g\n", (long long)q, R[q], Rc[q]);
    }
    printf("%-4s %-3s m %5lld N %6lld n %4d K %3d eta %-6g: %s (%.4f s per epoch)\n",
           fsvc_dtype_name(op->dtype), bnl_dist_name(op->dist), (long long)m, (long long)N, n,
           K, eta, bad ? "MISMATCH" : bc >= 0 ? "ok, diverged at the same sample" : "ok", sec);
    free(W); free(X); free(H); free(R); free(Rc); free(e); free(cls);
    return bad;
}

static int lms(bnl_cuda *c, int quick)
{
    bnl_ctx cpu;
    fsvc_error err;
    if (bnl_ctx_open(&cpu, "cpu", 0, 1, &err)) { printf("%s\n", err.msg); return 1; }
    printf("\nLMS readout on the device (bnl_cuda_lms) vs the cpu loop:\n");
    int fails = 0;
    for (int o = 0; o < 4; o++)
        for (int s = 0; s < (quick ? 3 : 4); s++) {
            const int *sh = ck_lms_shapes[s];
            fails += check_lms(c, &cpu, &ck_lms_cases[o], ck_seed(3, o, s), sh[0], sh[1], sh[2],
                               sh[3], 1e-3, 2) != 0;
        }
    fails += check_lms(c, &cpu, &ck_lms_cases[0], ck_seed(3, 8, 0), 133, 301, 50, 10, 1e6,
                       2) != 0; /* diverges */
    /* streamed: leave ~48 MB so that X (40000 x 800 B) comes in chunks */
    size_t fr = 0, tot = 0;
    CK(cudaMemGetInfo(&fr, &tot));
    bnlc_limits lim, small;
    bnl_cuda_limits(c, &lim, NULL);
    small = lim;
    small.mem_frac = 0.9;
    small.mem_reserve = (int64_t)(0.9 * (double)fr) - (48 << 20);
    bnl_cuda_limits(c, NULL, &small);
    printf("X streamed in chunks:\n");
    fails += check_lms(c, &cpu, &ck_lms_cases[0], ck_seed(3, 9, 0), 300, 40000, 784, 10, 1e-3,
                       1) != 0;
    bnl_cuda_limits(c, NULL, &lim);
    bnl_ctx_close(&cpu);
    return fails;
}

/* The novelty session against ref actsum over the same centroids. */
static int novelty_session(bnl_cuda *c)
{
    bnl_ctx ref;
    fsvc_error err;
    if (bnl_ctx_open(&ref, "ref", 0, 1, &err)) { printf("%s\n", err.msg); return 1; }
    const int64_t pieces[] = {1, 6, 130, 300, 700}; /* CK_NOV_CENTROIDS, grown from 4 */
    const int n = CK_NOV_N;
    const int64_t N = CK_NOV_SAMPLES;
    int fails = 0;
    printf("\nnovelty session (resident centroids, grown) vs ref actsum, n %d, N %lld:\n", n,
           (long long)N);
    for (int o = 0; o < (int)(sizeof ck_nov_cases / sizeof *ck_nov_cases); o++) {
        const ck_case *cc = &ck_nov_cases[o];
        uint64_t rs = ck_seed(4, o, 0);
        bnl_op op = ck_op(cc, n);
        void *C = draw(CK_NOV_CENTROIDS * n, cc, &rs), *X = draw(N * n, cc, &rs);
        double *S = (double *)malloc(8 * N), *SR = (double *)malloc(8 * N);
        double *ST = (double *)calloc((size_t)N, 8); /* the sums' element tolerances so far */
        size_t es = fsvc_dtype_size(op.dtype);
        bnl_novelty_impl *s = NULL;
        int bad = 0;
        ck_guard_res gr;
        if (ck_guard(&ref, cc, &op, C, CK_NOV_CENTROIDS, X, 64, n, &gr, &err) ||
            !ck_guard_ok(&gr, 1)) {
            printf("  UNFIT: %lld of %lld inside (0, 1), a dropped element seen in %lld S\n",
                   (long long)gr.inside, (long long)gr.total, (long long)gr.fault_s);
            bad++;
        }
        if (bnl_cuda_nov_open(c, &op, n, 4, &s, &err)) {
            printf("  ERROR %s\n", err.msg);
            return fails + 1;
        }
        int64_t cnt = 0;
        for (int p = 0; p < 5; p++) {
            if (bnl_cuda_nov_add(s, (const char *)C + cnt * n * es, pieces[p], &err)) {
                printf("  ERROR %s\n", err.msg);
                bad++;
                break;
            }
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = cnt; j < cnt + pieces[p]; j++)
                    ST[i] += ck_tol(cc, &op, (const char *)C + j * n * es,
                                    (const char *)X + i * n * es, n);
            cnt += pieces[p];
            for (int64_t i = 0; i < N; i++) S[i] = SR[i] = 0.25 * i;
            if (bnl_cuda_nov_sums(s, S, X, N, &err) ||
                bnl_actsum(&ref, &op, SR, C, cnt, X, N, n, &err)) {
                printf("  ERROR %s\n", err.msg);
                bad++;
                break;
            }
            for (int64_t i = 0; i < N; i++) {
                double ts = ck_tol_s(cc, ST[i], cnt, SR[i]);
                int ok = ts == 0.0 ? memcmp(&S[i], &SR[i], 8) == 0 : fabs(S[i] - SR[i]) <= ts;
                if (!ok && bad++ < 4)
                    printf("  %lld centroids: S[%lld] gpu %.17g ref %.17g\n", (long long)cnt,
                           (long long)i, S[i], SR[i]);
            }
        }
        bnl_cuda_nov_close(s);
        printf("%-4s %-3s %-5s 1 .. 1137 centroids: %s\n", fsvc_dtype_name(op.dtype),
               bnl_dist_name(op.dist), bnl_act_name(op.act), bad ? "MISMATCH" : "ok");
        fails += bad != 0;
        free(C); free(X); free(S); free(SR); free(ST);
    }
    bnl_ctx_close(&ref);
    return fails;
}

/* The min-distance session against the fold of ref's identity forward. */
static int mind_session(bnl_cuda *c)
{
    bnl_ctx ref;
    fsvc_error err;
    if (bnl_ctx_open(&ref, "ref", 0, 1, &err)) { printf("%s\n", err.msg); return 1; }
    const int64_t pieces[] = {1, 7, 300};
    const int n = 785;
    const int64_t N = 20011;
    int fails = 0;
    printf("\nmin-distance session (resident X and D2) vs ref forward, n %d, N %lld:\n", n,
           (long long)N);
    for (int o = 0; o < 4; o++) {
        bnl_op op = {o % 2 ? BNL_L2 : BNL_L1, BNL_IDENT, o < 2 ? FSVC_U8 : FSVC_F32, 1.0,
                     BNL_PREC_FULL};
        void *C = fill(308 * n, op.dtype), *X = fill(N * n, op.dtype);
        double *D2 = (double *)malloc(8 * N), *R = (double *)malloc(8 * N);
        float *H = (float *)malloc(sizeof(float) * N * 300);
        size_t es = fsvc_dtype_size(op.dtype);
        for (int64_t i = 0; i < N; i++) R[i] = INFINITY;
        bnl_mind_impl *s = NULL;
        int bad = 0;
        if (bnl_cuda_mind_open(c, &op, X, N, n, &s, &err) || !s) {
            printf("  ERROR %s\n", s ? err.msg : "not offered");
            return fails + 1;
        }
        int64_t cnt = 0;
        for (int p = 0; p < 3 && !bad; p++) {
            const char *Cp = (const char *)C + cnt * n * es;
            if (bnl_cuda_mind_update(s, Cp, pieces[p], D2, &err) ||
                bnl_forward(&ref, &op, H, pieces[p], Cp, pieces[p], X, N, n, &err)) {
                printf("  ERROR %s\n", err.msg);
                bad++;
                break;
            }
            cnt += pieces[p];
            for (int64_t i = 0; i < N; i++) {
                for (int64_t j = 0; j < pieces[p]; j++) {
                    double d = H[i * pieces[p] + j];
                    if (d * d < R[i]) R[i] = d * d;
                }
                int ok = op.dtype == FSVC_U8 ? memcmp(&D2[i], &R[i], 8) == 0
                                             : fabs(D2[i] - R[i]) <= 1e-5 * (1 + R[i]);
                if (!ok && bad++ < 4)
                    printf("  %lld centroids: D2[%lld] gpu %.17g ref %.17g\n", (long long)cnt,
                           (long long)i, D2[i], R[i]);
            }
        }
        bnl_cuda_mind_close(s);
        printf("%-4s %-3s 1 .. 308 centroids: %s\n", fsvc_dtype_name(op.dtype),
               bnl_dist_name(op.dist), bad ? "MISMATCH" : "ok");
        fails += bad != 0;
        free(C); free(X); free(D2); free(R); free(H);
    }
    bnl_ctx_close(&ref);
    return fails;
}

/* kernel-only time of one M x M BNL (device buffers, CUDA events) */
static double time_kernel(int op, int64_t M, int n, int reps)
{
    int es = op == BNLC_F64_L1 ? 8 : op == BNLC_F32_L1 ? 4 : 1, hs = es == 8 ? 8 : 4;
    int64_t ldk = bnlc_ldk(n, es), ldo = (M + 3) / 4 * 4;
    uint32_t *dW, *dX;
    float *dH;
    CK(cudaMalloc(&dW, M * ldk * 4));
    CK(cudaMalloc(&dX, M * ldk * 4));
    CK(cudaMalloc(&dH, M * ldo * hs));
    CK(cudaMemset(dW, 0x35, M * ldk * 4));
    CK(cudaMemset(dX, 0x3a, M * ldk * 4));
    bnlc_actp p = {0, 0, 1e-5f, 1e-6f};
    bnlc_actpd pd = {0, 0, 1e5, 1e6};
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    /* f64: its own launcher (double H); bnlc_launch_tile refuses BNLC_F64_L1 */
#define LAUNCH() (es == 8 ? bnlc_launch_tile_f64(pd, (double *)dH, ldo, 0, dW, M, dX, M, ldk, 0) \
                          : bnlc_launch_tile(op, p, dH, ldo, 0, dW, M, dX, M, ldk, 0))
    CK(LAUNCH()); /* warm-up */
    CK(cudaEventRecord(a));
    for (int r = 0; r < reps; r++)
        CK(LAUNCH());
#undef LAUNCH
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    cudaFree(dW); cudaFree(dX); cudaFree(dH);
    cudaEventDestroy(a); cudaEventDestroy(b);
    return ms / 1e3 / reps;
}

int main(int argc, char **argv)
{
    int quick = 0, n = 784;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
        else { fprintf(stderr, "usage: check_kernels [--quick] [--n N] [--csv FILE]\n"); return 1; }
    }
    char desc[4096];
    if (!bnl_cuda_describe(desc, sizeof desc)) {
        printf("check_kernels: %s; nothing was checked\n", desc);
        return 3;
    }
    printf("%s\n", desc);
    bnl_cuda *c = NULL;
    fsvc_error err;
    if (bnl_cuda_open(&c, 1, &err)) { printf("%s\n", err.msg); return 3; }
    int fails = correctness(c, quick);
    fails += readout(c, quick);
    fails += lms(c, quick);
    fails += novelty_session(c);
    fails += mind_session(c);

    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (out) fprintf(out, "what,dtype,M,n,seconds_per_bnl,t_syn_ns\n");
    printf("\nkernel only (CUDA events), n = %d:\n%-7s %6s %12s %10s\n", n, "dtype", "M",
           "s per BNL", "t_syn ns");
    const int64_t Ms[] = {1024, 2048, 4096, 8192};
    const char *names[] = {"u8", "f32", "f64"};
    const int kops[] = {BNLC_U8_L1, BNLC_F32_L1, BNLC_F64_L1};
    for (int o = 0; o < 3; o++) {
        for (int k = 0; k < (quick ? 3 : 4); k++) {
            double s = time_kernel(kops[o], Ms[k], n, Ms[k] <= 2048 ? 10 : 3);
            double ts = s / ((double)n * Ms[k] * Ms[k]) * 1e9;
            printf("%-7s %6lld %12.6f %10.5f\n", names[o], (long long)Ms[k], s, ts);
            if (out) fprintf(out, "kernel,%s,%lld,%d,%.9g,%.6g\n", names[o], (long long)Ms[k], n, s, ts);
        }
    }
    printf("\nend to end (bnl_cuda_forward: packing, H2D, kernels, D2H), n = %d:\n", n);
    for (int o = 0; o < 2; o++) {
        fsvc_dtype dt = o ? FSVC_F32 : FSVC_U8;
        int64_t M = quick ? 4096 : 8192;
        void *W = fill(M * n, dt), *X = fill(M * n, dt);
        float *H = (float *)malloc(sizeof(float) * M * M);
        bnl_op op = {BNL_L1, BNL_TRI, dt, 1e4, BNL_PREC_FULL};
        bnl_cuda_forward(c, &op, H, M, W, M, X, M, n, &err); /* warm-up: buffers */
        double t0 = now();
        int rc = bnl_cuda_forward(c, &op, H, M, W, M, X, M, n, &err);
        double s = now() - t0, ts = s / ((double)n * M * M) * 1e9;
        if (rc) printf("  ERROR %s\n", err.msg);
        printf("%-7s %6lld %12.6f %10.5f\n", o ? "f32" : "u8", (long long)M, s, ts);
        if (out) fprintf(out, "end_to_end,%s,%lld,%d,%.9g,%.6g\n", o ? "f32" : "u8", (long long)M, n, s, ts);
        free(W); free(X); free(H);
    }
    if (out) fclose(out);
    bnl_cuda_close(c);
    printf("\ncheck_kernels: %s\n", fails ? "MISMATCHES (see above)" : "all kernels match the reference");
    return fails ? 1 : 0;
}
