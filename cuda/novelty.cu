/*
 * novelty.cu - the novelty session of the CUDA backend (bnl_backend_ops.h
 * nov_*, issue 10): the FSVC novelty pass's centroids stay on the device.
 *
 * open: the centroid store dC (cap rows x ldk packed words, as the W tiles
 *   of forward.cu) and, on the GEMM path, their norms; cap from the hint,
 *   bounded by half the free memory (cudaMemGetInfo).
 * add: the new rows packed once into pinned memory and copied to the end
 *   of dC (norms computed there); a full store grows by doubling on the
 *   device (device-to-device copy).
 * sums: the chunk's rows go up as sample tiles (forward.cu's upload) with
 *   their S; per sample tile, the neuron tiles of dC in increasing order
 *   through forward.cu's tile computation (tile kernel or GEMM + epilogue,
 *   transposed) and the actsum kernel: bnl_cuda_actsum's rule and bits,
 *   the centroids never travel again. Only S comes back. One stream (the
 *   context's first), synchronous per call.
 */
#include "cuda_internal.h"

#include <stdlib.h>
#include <string.h>

struct bnl_novelty_impl {
    bnl_cuda *c;
    bnl_op op;
    job_kind k;
    int n, ob;            /* ob: bytes of an H element and of a norm (4, 8 f64) */
    int64_t ldk, cnt, cap;
    uint32_t *dC;         /* cap x ldk words */
    void *dwn;            /* cap norms (GEMM path) */
    uint32_t *hC;         /* pinned staging of added rows */
    size_t pcapC;
};

static int64_t r4(int64_t v) { return (v + 3) / 4 * 4; }

static int gemm_of(const bnl_novelty_impl *s) { return s->k.tile_op < 0; }

/* dC (and dwn) for cap rows, the first cnt kept. */
static int store_alloc(bnl_novelty_impl *s, int64_t cap, fsvc_error *err)
{
    size_t row = (size_t)s->ldk * 4, fr = 0, tot = 0;
    size_t need = (size_t)cap * (row + (gemm_of(s) ? (size_t)s->ob : 0));
    CUDA_CHECK(err, cudaMemGetInfo(&fr, &tot));
    if (need > fr)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: novelty: %lld centroids need %.1f MB of "
                         "device memory, %.1f MB free", (long long)cap, need / 1e6, fr / 1e6);
    uint32_t *dC = NULL;
    void *dwn = NULL;
    CUDA_CHECK(err, cudaMalloc((void **)&dC, (size_t)cap * row));
    if (gemm_of(s) && cudaMalloc(&dwn, (size_t)cap * s->ob) != cudaSuccess) {
        cudaFree(dC);
        cudaGetLastError();
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: novelty: no device memory for the norms "
                         "of %lld centroids", (long long)cap);
    }
    if (s->cnt > 0) {
        /* a legacy-stream D2D copy returns at once and the non-blocking
         * streams of the sums would not wait for it (issue 25): copy on one
         * of them and wait, so every later launch sees the grown store */
        cudaStream_t cs = s->c->st[0].s;
        cudaError_t e = cudaMemcpyAsync(dC, s->dC, (size_t)s->cnt * row,
                                        cudaMemcpyDeviceToDevice, cs);
        if (e == cudaSuccess && dwn)
            e = cudaMemcpyAsync(dwn, s->dwn, (size_t)s->cnt * s->ob, cudaMemcpyDeviceToDevice,
                                cs);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(cs);
        if (e != cudaSuccess) {
            cudaFree(dC);
            cudaFree(dwn);
            return fsvc_fail(err, FSVC_ERESOURCE, "cuda: novelty: growing the centroid store: "
                             "%s", cudaGetErrorString(e));
        }
    }
    cudaFree(s->dC);
    cudaFree(s->dwn);
    s->dC = dC;
    s->dwn = dwn;
    s->cap = cap;
    return FSVC_OK;
}

extern "C" int bnl_cuda_nov_open(bnl_cuda *c, const bnl_op *op, int n, int64_t cap,
                                 bnl_novelty_impl **out, fsvc_error *err)
{
    *out = NULL;
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: backend not open");
    bnl_novelty_impl *s = (bnl_novelty_impl *)calloc(1, sizeof *s);
    if (!s)
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: novelty: out of memory");
    int rc = bnlc_kind_of(op, n, &s->k, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->c = c;
    s->op = *op;
    s->n = n;
    s->ob = s->k.es == 8 ? 8 : 4;
    s->ldk = bnlc_ldk(n, s->k.es);
    size_t fr = 0, tot = 0, row = (size_t)s->ldk * 4 + (size_t)s->ob;
    if (cudaSetDevice(c->dev) != cudaSuccess || cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
        free(s);
        cudaGetLastError();
        return fsvc_fail(err, FSVC_ERESOURCE, "cuda: novelty: the device does not answer");
    }
    int64_t fit = (int64_t)(fr / 2 / row);
    cap = cap < 1 ? 256 : cap;
    cap = cap > fit ? fit : cap;
    if (cap < 1) cap = 1;
    if ((rc = store_alloc(s, cap, err))) {
        free(s);
        return rc;
    }
    *out = s;
    return FSVC_OK;
}

extern "C" void bnl_cuda_nov_close(bnl_novelty_impl *s)
{
    if (!s)
        return;
    cudaSetDevice(s->c->dev);
    cudaFree(s->dC);
    cudaFree(s->dwn);
    if (s->hC)
        cudaFreeHost(s->hC);
    free(s);
}

static int fail_drain(struct bnlc_stream *st, int rc)
{
    cudaStreamSynchronize(st->s);
    cudaGetLastError();
    return rc;
}

static int add_rows(bnl_novelty_impl *s, struct bnlc_stream *st, const void *C, int64_t rows,
                    fsvc_error *err)
{
    int rc;
    if (s->cnt + rows > s->cap) {
        int64_t cap = s->cap;
        while (cap < s->cnt + rows)
            cap *= 2;
        if ((rc = store_alloc(s, cap, err)))
            return rc;
    }
    if ((rc = bnlc_reserve_host((void **)&s->hC, &s->pcapC, (size_t)(rows * s->ldk * 4), err)))
        return rc;
    bnlc_pack_rows(s->hC, s->ldk, C, 0, rows, s->n, s->k.es);
    uint32_t *d = s->dC + s->cnt * s->ldk;
    CUDA_CHECK(err, cudaMemcpyAsync(d, s->hC, (size_t)(rows * s->ldk * 4),
                                    cudaMemcpyHostToDevice, st->s));
    if (gemm_of(s) && s->k.es == 8)
        CUDA_CHECK(err, bnlc_launch_norms_d((double *)s->dwn + s->cnt, (const double *)d, rows,
                                            s->ldk / 2, s->n, st->s));
    else if (gemm_of(s))
        CUDA_CHECK(err, bnlc_launch_norms((float *)s->dwn + s->cnt, (const float *)d, rows,
                                          s->ldk, s->n, st->s));
    CUDA_CHECK(err, cudaStreamSynchronize(st->s)); /* hC is free again */
    s->cnt += rows;
    return FSVC_OK;
}

extern "C" int bnl_cuda_nov_add(bnl_novelty_impl *s, const void *C, int64_t rows, fsvc_error *err)
{
    if (!s || rows < 0)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: novelty: no session or bad rows");
    if (rows == 0)
        return FSVC_OK;
    CUDA_CHECK(err, cudaSetDevice(s->c->dev));
    struct bnlc_stream *st = &s->c->st[0];
    int rc = add_rows(s, st, C, rows, err);
    return rc ? fail_drain(st, rc) : FSVC_OK;
}

static int sums_tiles(bnl_novelty_impl *s, struct bnlc_stream *st, double *S, const void *X,
                      int64_t N, fsvc_error *err)
{
    bnl_cuda *c = s->c;
    bnlc_plan p;
    int rc = bnl_cuda_plan(c, &s->op, 1, s->cnt, N, s->n, &p, err);
    if (rc)
        return rc;
    if (p.ldk != s->ldk)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: novelty: row layout %lld != %lld words",
                         (long long)p.ldk, (long long)s->ldk);
    int gemm = gemm_of(s);
    size_t x = (size_t)(p.tile_N * p.ldk * 4), sb = (size_t)p.tile_N * 8;
    size_t h = (size_t)(p.tile_m * r4(p.tile_N) * s->ob);
    if ((rc = bnlc_reserve_dev((void **)&st->dX, &st->capX, x, err)) ||
        (rc = bnlc_reserve_host((void **)&st->hX, &st->pcapX, x, err)) ||
        (rc = bnlc_reserve_dev((void **)&st->dH, &st->capH, h, err)) ||
        (rc = bnlc_reserve_dev((void **)&st->dS, &st->capS, sb, err)) ||
        (rc = bnlc_reserve_host((void **)&st->hS, &st->pcapS, sb, err)) ||
        (gemm && (rc = bnlc_reserve_dev((void **)&st->dxn, &st->capXn,
                                         (size_t)p.tile_N * s->ob, err))))
        return rc;
    st->ob = s->ob;
    bnlc_actp ap = bnlc_actp_of(&s->op);
    bnlc_actpd apd = bnlc_actpd_of(&s->op);
    for (int64_t i0 = 0; i0 < N; i0 += p.tile_N) {
        int64_t Nt = N - i0 < p.tile_N ? N - i0 : p.tile_N, ldo = r4(Nt);
        if ((rc = bnlc_upload(st, 0, X, i0, Nt, s->n, &s->k, s->ldk, gemm, err)))
            return rc;
        memcpy(st->hS, S + i0, (size_t)Nt * 8);
        CUDA_CHECK(err, cudaMemcpyAsync(st->dS, st->hS, (size_t)Nt * 8, cudaMemcpyHostToDevice,
                                        st->s));
        for (int64_t m0 = 0; m0 < s->cnt; m0 += p.tile_m) { /* increasing j */
            int64_t mt = s->cnt - m0 < p.tile_m ? s->cnt - m0 : p.tile_m;
            const void *wn = gemm ? (const char *)s->dwn + (size_t)m0 * s->ob : NULL;
            if ((rc = bnlc_compute(c, st, &s->k, ap, apd, s->dC + m0 * s->ldk, wn, mt, Nt,
                                   s->n, s->ldk, 1, ldo, err)))
                return rc;
            if (s->k.es == 8)
                CUDA_CHECK(err, bnlc_launch_actsum_d(st->dS, (const double *)st->dH, ldo, mt, Nt,
                                                     st->s));
            else
                CUDA_CHECK(err, bnlc_launch_actsum(st->dS, st->dH, ldo, mt, Nt, st->s));
        }
        CUDA_CHECK(err, cudaMemcpyAsync(st->hS, st->dS, (size_t)Nt * 8, cudaMemcpyDeviceToHost,
                                        st->s));
        CUDA_CHECK(err, cudaStreamSynchronize(st->s));
        memcpy(S + i0, st->hS, (size_t)Nt * 8);
    }
    return FSVC_OK;
}

extern "C" int bnl_cuda_nov_sums(bnl_novelty_impl *s, double *S, const void *X, int64_t N,
                                 fsvc_error *err)
{
    if (!s || N < 0)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: novelty: no session or bad samples");
    if (N == 0 || s->cnt == 0)
        return FSVC_OK;
    if ((s->op.dtype != FSVC_U8 || s->op.dist != BNL_L1) &&
        (s->cnt > 2147483647 || N > 2147483647))
        return fsvc_fail(err, FSVC_EUSAGE, "cuda: cuBLAS sizes over int range");
    struct bnlc_stream *st = &s->c->st[0];
    /* the stream may still hold a job of forward / actsum: they finish
     * their jobs before returning, so it is idle here */
    int rc = sums_tiles(s, st, S, X, N, err);
    return rc ? fail_drain(st, rc) : FSVC_OK;
}
