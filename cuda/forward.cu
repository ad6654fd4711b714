/*
 * forward.cu - the CUDA backend's BNL driver: H = act(dist(W, X)) and the
 * activation sums, tiled by the planner (plan.h) and streamed.
 *
 * The order of the tiles and their streams is jobs.h's (tested on the host).
 * Per tile job on stream s (>= 2 streams):
 *   wait for s's previous job, copy its output from pinned memory to the
 *   caller's H / S (host work overlapping the other streams' GPU work);
 *   pack the W / X tile into s's pinned buffers (rows padded to ldk words
 *   with zeros) unless s already holds it; H2D; kernel(s); D2H; event.
 * Forward: neuron tiles outer, sample tiles inner. Activation sums: sample
 * tiles outer (one stream per sample tile), neuron tiles inner in
 * increasing order, so each S[i] adds its neurons in increasing j.
 */
#include "cuda_internal.h"
#include "jobs.h"
#include "../layers/act.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bnlc_reserve_dev(void **p, size_t *cap, size_t need, fsvc_error *err)
{
    if (*cap >= need)
        return FSVC_OK;
    if (*p) { cudaFree(*p); *p = NULL; *cap = 0; }
    CUDA_CHECK(err, cudaMalloc(p, need));
    *cap = need;
    return FSVC_OK;
}

int bnlc_reserve_host(void **p, size_t *cap, size_t need, fsvc_error *err)
{
    if (*cap >= need)
        return FSVC_OK;
    if (*p) { cudaFreeHost(*p); *p = NULL; *cap = 0; }
    CUDA_CHECK(err, cudaMallocHost(p, need));
    *cap = need;
    return FSVC_OK;
}

static int64_t r4(int64_t v) { return (v + 3) / 4 * 4; }

/* dst: rows x ldk words; src rows r0.. of a matrix with n elements of es bytes */
void bnlc_pack_rows(uint32_t *dst, int64_t ldk, const void *src, int64_t r0, int64_t rows,
                      int n, int es)
{
    size_t bytes = (size_t)n * es, row = (size_t)ldk * 4;
    for (int64_t r = 0; r < rows; r++) {
        char *d = (char *)dst + r * row;
        memcpy(d, (const char *)src + (size_t)(r0 + r) * bytes, bytes);
        memset(d + bytes, 0, row - bytes);
    }
}

int bnlc_kind_of(const bnl_op *op, int n, job_kind *k, fsvc_error *err)
{
    k->prec = bnl_op_reduced(op) ? (int)op->precision : BNL_PREC_FULL;
    if (op->dtype == FSVC_U8) {
        k->es = 1;
        k->l2 = 0;
        k->tile_op = op->dist == BNL_L1 ? BNLC_U8_L1 : op->dist == BNL_L2 ? BNLC_U8_L2 : BNLC_U8_DOT;
        if (op->dist != BNL_L1 && n > 33025)
            return fsvc_fail(err, FSVC_EUSAGE,
                             "cuda: u8 %s needs n <= 33025 (int32 sums), n is %d",
                             op->dist == BNL_L2 ? "L2" : "dot", n);
        return FSVC_OK;
    }
    if (op->dtype == FSVC_F32) {
        k->es = 4;
        k->tile_op = op->dist == BNL_L1 ? BNLC_F32_L1 : -1;
        k->l2 = op->dist == BNL_L2;
        return FSVC_OK;
    }
    if (op->dtype == FSVC_F64) { /* issue 10: the FP64 pipe, H in double */
        k->es = 8;
        k->tile_op = op->dist == BNL_L1 ? BNLC_F64_L1 : -1;
        k->l2 = op->dist == BNL_L2;
        return FSVC_OK;
    }
    return fsvc_fail(err, FSVC_EUSAGE, "cuda: %s layers are not offered on the GPU (use cpu)",
                     fsvc_dtype_name(op->dtype));
}

bnlc_actpd bnlc_actpd_of(const bnl_op *op)
{
    bnl_actp a = bnl_actp_make(op);
    bnlc_actpd p = {(int)a.act, (int)a.vk, a.s, a.g2};
    return p;
}

bnlc_actp bnlc_actp_of(const bnl_op *op)
{
    bnl_actp a = bnl_actp_make(op);
    bnlc_actp p = {(int)a.act, (int)a.vk, a.a, a.g};
    return p;
}

/* Plans on the device's free memory of now. */
static int plan_now(bnl_cuda *c, const bnl_op *op, int actsum, int64_t m, int64_t N, int n,
                    bnlc_plan *p, fsvc_error *err)
{
    size_t fr = 0, tot = 0;
    CUDA_CHECK(err, cudaSetDevice(c->dev));
    /* what this context already holds is free for it too */
    size_t held = 0;
    for (int i = 0; i < c->nstreams; i++)
        held += c->st[i].capW + c->st[i].capX + c->st[i].capH + c->st[i].capS +
                c->st[i].capXn + c->st[i].capWn;
    CUDA_CHECK(err, cudaMemGetInfo(&fr, &tot));
    bnlc_device d = c->props;
    d.mem_free = (int64_t)(fr + held);
    job_kind k;
    int rc = bnlc_kind_of(op, n, &k, err);
    if (rc)
        return rc;
    bnlc_limits lim = c->lim;
    lim.streams = c->nstreams;
    return bnlc_plan_make(p, &d, &lim, op->dtype, k.tile_op < 0, actsum, m, N, n, err);
}

static int reserve_all(bnl_cuda *c, const bnlc_plan *p, int actsum, int gemm, int ob,
                       fsvc_error *err)
{
    size_t w = (size_t)(p->tile_m * p->ldk * 4), x = (size_t)(p->tile_N * p->ldk * 4);
    size_t h = actsum ? (size_t)(p->tile_m * r4(p->tile_N) * ob)
                      : (size_t)(p->tile_N * r4(p->tile_m) * ob);
    int rc;
    for (int i = 0; i < c->nstreams; i++) {
        struct bnlc_stream *s = &c->st[i];
        if ((rc = bnlc_reserve_dev((void **)&s->dW, &s->capW, w, err)) ||
            (rc = bnlc_reserve_dev((void **)&s->dX, &s->capX, x, err)) ||
            (rc = bnlc_reserve_dev((void **)&s->dH, &s->capH, h, err)) ||
            (rc = bnlc_reserve_host((void **)&s->hW, &s->pcapW, w, err)) ||
            (rc = bnlc_reserve_host((void **)&s->hX, &s->pcapX, x, err)))
            return rc;
        if (actsum) {
            size_t sb = (size_t)p->tile_N * 8;
            if ((rc = bnlc_reserve_dev((void **)&s->dS, &s->capS, sb, err)) ||
                (rc = bnlc_reserve_host((void **)&s->hS, &s->pcapS, sb, err)))
                return rc;
        } else if ((rc = bnlc_reserve_host((void **)&s->hH, &s->pcapH, h, err))) {
            return rc;
        }
        if (gemm) {
            if ((rc = bnlc_reserve_dev((void **)&s->dxn, &s->capXn, (size_t)p->tile_N * ob, err)) ||
                (rc = bnlc_reserve_dev((void **)&s->dwn, &s->capWn, (size_t)p->tile_m * ob, err)))
                return rc;
        }
        s->ob = ob;
    }
    return FSVC_OK;
}

/* Waits for s's job and copies its output to the caller (H: float, or
 * double for f64 layers: s->ob bytes an element). */
static int finish(struct bnlc_stream *s, void *H, int64_t ldh, double *S, fsvc_error *err)
{
    if (!s->busy)
        return FSVC_OK;
    s->busy = 0;
    CUDA_CHECK(err, cudaEventSynchronize(s->done));
    if (H) {
        for (int64_t r = 0; r < s->rows; r++)
            memcpy((char *)H + ((s->i0 + r) * ldh + s->m0) * s->ob,
                   (const char *)s->hH + r * s->ldo * s->ob, (size_t)s->cols * s->ob);
    } else {
        memcpy(S + s->i0, s->hS, (size_t)s->rows * 8);
    }
    return FSVC_OK;
}

static int finish_all(bnl_cuda *c, void *H, int64_t ldh, double *S, fsvc_error *err)
{
    int rc = FSVC_OK;
    for (int i = 0; i < c->nstreams; i++) {
        int r = finish(&c->st[i], H, ldh, S, err);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

/* Uploads rows r0 .. r0 + rows - 1 of A as the stream's W or X tile. */
int bnlc_upload(struct bnlc_stream *s, int is_w, const void *A, int64_t r0, int64_t rows,
                  int n, const job_kind *k, int64_t ldk, int gemm, fsvc_error *err)
{
    uint32_t *h = is_w ? s->hW : s->hX, *d = is_w ? s->dW : s->dX;
    /* the pinned buffer may still feed an earlier copy on this stream */
    CUDA_CHECK(err, cudaStreamSynchronize(s->s));
    bnlc_pack_rows(h, ldk, A, r0, rows, n, k->es);
    CUDA_CHECK(err, cudaMemcpyAsync(d, h, (size_t)(rows * ldk * 4), cudaMemcpyHostToDevice, s->s));
    if (gemm && k->es == 8)
        CUDA_CHECK(err, bnlc_launch_norms_d((double *)(is_w ? s->dwn : s->dxn), (const double *)d,
                                            rows, ldk / 2, n, s->s));
    else if (gemm)
        CUDA_CHECK(err, bnlc_launch_norms(is_w ? s->dwn : s->dxn, (const float *)d, rows, ldk, n,
                                          s->s));
    return FSVC_OK;
}

/* compute() of an f64 layer: the f64 tile kernel (L1) or cublasDgemm +
 * the f64 epilogue (L2, dot), H in double; ldk / 2 doubles a row. */
static int compute_f64(bnl_cuda *c, struct bnlc_stream *s, const job_kind *k, bnlc_actpd ap,
                       const uint32_t *dW, const void *dwn, int64_t mt, int64_t Nt, int n,
                       int64_t ldk, int trans, int64_t ldo, fsvc_error *err)
{
    double *H = (double *)s->dH;
    if (k->tile_op >= 0) {
        CUDA_CHECK(err, bnlc_launch_tile_f64(ap, H, ldo, trans, dW, mt, s->dX, Nt, ldk, s->s));
        return FSVC_OK;
    }
    const double alpha = k->l2 ? -2.0 : 1.0, beta = 0.0;
    const double *W = (const double *)dW, *X = (const double *)s->dX;
    int ldd = (int)(ldk / 2);
    CUBLAS_CHECK(err, cublasSetStream(c->blas, s->s));
    if (!trans)
        CUBLAS_CHECK(err, cublasDgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)mt, (int)Nt, n,
                                      &alpha, W, ldd, X, ldd, &beta, H, (int)ldo));
    else
        CUBLAS_CHECK(err, cublasDgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)Nt, (int)mt, n,
                                      &alpha, X, ldd, W, ldd, &beta, H, (int)ldo));
    CUDA_CHECK(err, bnlc_launch_gemm_epi_d(H, ldo, trans ? mt : Nt, trans ? Nt : mt, trans,
                                           (const double *)s->dxn, (const double *)dwn,
                                           k->l2, ap, s->s));
    return FSVC_OK;
}

/* s->dH (device) = act(dist) of one tile of the neuron rows dW (their
 * norms dwn on the GEMM path) against s's sample tile s->dX; trans: Ht
 * (mt x ldo) else H (Nt x ldo). */
int bnlc_compute(bnl_cuda *c, struct bnlc_stream *s, const job_kind *k, bnlc_actp ap,
                 bnlc_actpd apd, const uint32_t *dW, const void *dwn, int64_t mt, int64_t Nt,
                 int n, int64_t ldk, int trans, int64_t ldo, fsvc_error *err)
{
    if (k->es == 8)
        return compute_f64(c, s, k, apd, dW, dwn, mt, Nt, n, ldk, trans, ldo, err);
    if (k->tile_op >= 0) {
        CUDA_CHECK(err, bnlc_launch_tile(k->tile_op, ap, s->dH, ldo, trans, dW, mt, s->dX, Nt,
                                         ldk, s->s));
        return FSVC_OK;
    }
    const float alpha = k->l2 ? -2.0f : 1.0f;
    const float *W = (const float *)dW, *X = (const float *)s->dX;
    int rc;
    if (!trans) /* column-major mt x Nt = W^T X: row-major H[i][j] */
        rc = bnlc_gemm_prec(c->blas, s->s, k->prec, (int)mt, (int)Nt, n, alpha, W, (int)ldk, X,
                            (int)ldk, s->dH, (int)ldo, &s->dQ, &s->capQ, err);
    else        /* column-major Nt x mt: row-major Ht[j][i] */
        rc = bnlc_gemm_prec(c->blas, s->s, k->prec, (int)Nt, (int)mt, n, alpha, X, (int)ldk, W,
                            (int)ldk, s->dH, (int)ldo, &s->dQ, &s->capQ, err);
    if (rc)
        return rc;
    CUDA_CHECK(err, bnlc_launch_gemm_epi(s->dH, ldo, trans ? mt : Nt, trans ? Nt : mt, trans,
                                         s->dxn, (const float *)dwn, k->l2, ap, s->s));
    return FSVC_OK;
}

static int check_args(bnl_cuda *c, const bnl_op *op, int64_t m, int64_t N, int n,
                      fsvc_error *err)
{
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: backend not open");
    if (m < 1 || N < 1 || n < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: empty layer (m %lld, N %lld, n %d)",
                         (long long)m, (long long)N, n);
    if ((op->dtype != FSVC_U8 && op->dist != BNL_L1) && (m > 2147483647 || N > 2147483647))
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: cuBLAS sizes over int range");
    return FSVC_OK;
}

static int forward_tiles(bnl_cuda *c, const bnl_op *op, void *H, int64_t ldh, const void *W,
                         int64_t m, const void *X, int64_t N, int n, fsvc_error *err)
{
    bnlc_plan p;
    job_kind k;
    int rc;
    if ((rc = bnlc_kind_of(op, n, &k, err)) || (rc = plan_now(c, op, 0, m, N, n, &p, err)) ||
        (rc = reserve_all(c, &p, 0, k.tile_op < 0, k.es == 8 ? 8 : 4, err)))
        return rc;
    bnlc_actp ap = bnlc_actp_of(op);
    bnlc_actpd apd = bnlc_actpd_of(op);
    int gemm = k.tile_op < 0;
    bnlc_jobs it;
    bnlc_job j;
    bnlc_jobs_init(&it, &p, 0, c->nstreams, m, N);
    while (bnlc_jobs_next(&it, &j)) {
        struct bnlc_stream *s = &c->st[j.stream];
        int64_t ldo = r4(j.mt);
        if ((rc = finish(s, H, ldh, NULL, err)) ||
            (j.load_w && (rc = bnlc_upload(s, 1, W, j.m0, j.mt, n, &k, p.ldk, gemm, err))) ||
            (j.load_x && (rc = bnlc_upload(s, 0, X, j.i0, j.Nt, n, &k, p.ldk, gemm, err))) ||
            (rc = bnlc_compute(c, s, &k, ap, apd, s->dW, s->dwn, j.mt, j.Nt, n, p.ldk, 0, ldo,
                               err)))
            return rc;
        CUDA_CHECK(err, cudaMemcpyAsync(s->hH, s->dH, (size_t)(j.Nt * ldo * s->ob),
                                        cudaMemcpyDeviceToHost, s->s));
        CUDA_CHECK(err, cudaEventRecord(s->done, s->s));
        s->busy = 1;
        s->i0 = j.i0; s->m0 = j.m0; s->rows = j.Nt; s->cols = j.mt; s->ldo = ldo;
    }
    return finish_all(c, H, ldh, NULL, err);
}

static int actsum_tiles(bnl_cuda *c, const bnl_op *op, double *S, const void *W, int64_t m,
                        const void *X, int64_t N, int n, fsvc_error *err)
{
    bnlc_plan p;
    job_kind k;
    int rc;
    if ((rc = bnlc_kind_of(op, n, &k, err)) || (rc = plan_now(c, op, 1, m, N, n, &p, err)) ||
        (rc = reserve_all(c, &p, 1, k.tile_op < 0, k.es == 8 ? 8 : 4, err)))
        return rc;
    bnlc_actp ap = bnlc_actp_of(op);
    bnlc_actpd apd = bnlc_actpd_of(op);
    int gemm = k.tile_op < 0;
    bnlc_jobs it;
    bnlc_job j;
    bnlc_jobs_init(&it, &p, 1, c->nstreams, m, N);
    while (bnlc_jobs_next(&it, &j)) {
        struct bnlc_stream *s = &c->st[j.stream];
        int64_t ldo = r4(j.Nt);
        if (j.first) { /* a new sample tile on this stream: S in */
            if ((rc = finish(s, NULL, 0, S, err)))
                return rc;
            memcpy(s->hS, S + j.i0, (size_t)j.Nt * 8);
            CUDA_CHECK(err, cudaMemcpyAsync(s->dS, s->hS, (size_t)j.Nt * 8,
                                            cudaMemcpyHostToDevice, s->s));
        }
        if ((j.load_x && (rc = bnlc_upload(s, 0, X, j.i0, j.Nt, n, &k, p.ldk, gemm, err))) ||
            (j.load_w && (rc = bnlc_upload(s, 1, W, j.m0, j.mt, n, &k, p.ldk, gemm, err))) ||
            (rc = bnlc_compute(c, s, &k, ap, apd, s->dW, s->dwn, j.mt, j.Nt, n, p.ldk, 1, ldo,
                               err)))
            return rc;
        if (k.es == 8)
            CUDA_CHECK(err, bnlc_launch_actsum_d(s->dS, (const double *)s->dH, ldo, j.mt, j.Nt,
                                                 s->s));
        else
            CUDA_CHECK(err, bnlc_launch_actsum(s->dS, s->dH, ldo, j.mt, j.Nt, s->s));
        if (j.last) { /* S out; hS fed the H2D above, earlier on the same stream */
            CUDA_CHECK(err, cudaMemcpyAsync(s->hS, s->dS, (size_t)j.Nt * 8,
                                            cudaMemcpyDeviceToHost, s->s));
            CUDA_CHECK(err, cudaEventRecord(s->done, s->s));
            s->busy = 1;
            s->i0 = j.i0; s->rows = j.Nt;
        }
    }
    return finish_all(c, NULL, 0, S, err);
}

/* On error, drain the streams so that no copy still targets caller memory. */
static int drain(bnl_cuda *c, int rc)
{
    for (int i = 0; i < c->nstreams; i++) {
        cudaStreamSynchronize(c->st[i].s);
        c->st[i].busy = 0;
    }
    cudaGetLastError();
    return rc;
}

extern "C" int bnl_cuda_forward(bnl_cuda *c, const bnl_op *op, void *H, int64_t ldh,
                                const void *W, int64_t m, const void *X, int64_t N, int n,
                                fsvc_error *err)
{
    int rc = check_args(c, op, m, N, n, err);
    if (rc)
        return rc;
    if (ldh < m)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: ldh %lld < m %lld", (long long)ldh, (long long)m);
    rc = forward_tiles(c, op, H, ldh, W, m, X, N, n, err);
    return rc ? drain(c, rc) : FSVC_OK;
}

extern "C" int bnl_cuda_actsum(bnl_cuda *c, const bnl_op *op, double *S, const void *W,
                               int64_t m, const void *X, int64_t N, int n, fsvc_error *err)
{
    int rc = check_args(c, op, m, N, n, err);
    if (rc)
        return rc;
    rc = actsum_tiles(c, op, S, W, m, X, N, n, err);
    return rc ? drain(c, rc) : FSVC_OK;
}

extern "C" int bnl_cuda_plan(bnl_cuda *c, const bnl_op *op, int actsum, int64_t m, int64_t N,
                             int n, bnlc_plan *out, fsvc_error *err)
{
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: backend not open");
    return plan_now(c, op, actsum, m, N, n, out, err);
}

extern "C" void bnl_cuda_limits(bnl_cuda *c, bnlc_limits *get, const bnlc_limits *set)
{
    if (!c)
        return;
    if (get)
        *get = c->lim;
    if (set) {
        c->lim = *set;
        c->lim.streams = c->nstreams;
    }
}

extern "C" int bnl_cuda_props(const bnl_cuda *c, bnlc_device *d, char *tune_path, size_t len)
{
    if (!c)
        return -1;
    if (d)
        *d = c->props;
    if (tune_path && len)
        snprintf(tune_path, len, "%s", c->tune_path);
    return 0;
}
