/*
 * plan.c - the GPU planner (plan.h): BNL tile sizes from the device's
 * properties and free memory, the paper's rules generalised. Pure host C.
 */
#include "plan.h"
#include "kernels_hd.h"
#include "perf_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIN_TILE 4 /* rows: below this n is absurd for the device */

void bnlc_limits_default(bnlc_limits *l)
{
    memset(l, 0, sizeof *l);
    l->max_M = 0;
    l->max_launch_syn = 0;
    l->launch_s = 0.25;
    l->mem_frac = 0.9;
    l->mem_reserve = (int64_t)96 << 20;
    l->streams = 2;
    l->pow2 = 0;
    l->max_out_bytes = (int64_t)256 << 20;
}

double bnlc_mem_eq4(int es_in, int es_out, int64_t n, int64_t m, int64_t N)
{
    return (double)es_in * ((double)n * m + (double)N * n) + (double)es_out * N * m;
}

static int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

int64_t bnlc_stream_bytes(fsvc_dtype dt, int gemm, int actsum, int n,
                          int64_t tile_m, int64_t tile_N)
{
    int64_t ldk = bnlc_ldk(n, (int)fsvc_dtype_size(dt));
    int64_t ob = dt == FSVC_F64 ? 8 : 4;                   /* H and norms: f64 in double */
    int64_t b = 4 * ldk * (tile_m + tile_N);              /* W, X packed */
    if (actsum)
        b += ob * tile_m * round_up(tile_N, 4) + 8 * tile_N; /* Ht, S */
    else
        b += ob * tile_N * round_up(tile_m, 4);            /* H */
    if (gemm)
        b += ob * (tile_m + tile_N);                       /* norms */
    return b;
}

double bnlc_tsyn_peak_ns(const bnlc_device *dev, fsvc_dtype dt)
{
    const bnlc_mix *x = bnlc_mix_get(dt == FSVC_U8 ? 0 : dt == FSVC_F32 ? 2 : 3);
    int lanes = x->pipe == BNLC_PIPE_INT32 ? dev->int32_per_sm
              : x->pipe == BNLC_PIPE_FP32 ? dev->fp32_per_sm : dev->fp64_per_sm;
    if (lanes <= 0 || dev->sms <= 0 || dev->clock_ghz <= 0)
        return 0.0;
    double syn_per_s = (double)dev->sms * lanes * dev->clock_ghz * 1e9 / bnlc_mix_alu_per_syn(x);
    return 1e9 / syn_per_s;
}

static int64_t pow2_floor(int64_t v)
{
    int64_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

/* Halves the larger side, keeping whole 128-row block tiles while it can. */
static void shrink(int64_t *tm, int64_t *tN)
{
    int64_t *s = *tm >= *tN ? tm : tN;
    int64_t h = *s / 2;
    if (h >= BNLC_TM)
        h = h / BNLC_TM * BNLC_TM;
    *s = h < MIN_TILE ? MIN_TILE : h;
}

int bnlc_plan_make(bnlc_plan *p, const bnlc_device *dev, const bnlc_limits *lim,
                   fsvc_dtype dt, int gemm, int actsum, int64_t m, int64_t N, int n,
                   fsvc_error *err)
{
    memset(p, 0, sizeof *p);
    if (dt != FSVC_U8 && dt != FSVC_F32 && dt != FSVC_F64)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda plan: dtype %s is not offered on the GPU",
                         fsvc_dtype_name(dt));
    if (m < 1 || N < 1 || n < 1)
        return fsvc_fail(err, FSVC_EUSAGE, "cuda plan: empty layer (m %lld, N %lld, n %d)",
                         (long long)m, (long long)N, n);
    int streams = lim->streams > 0 ? lim->streams : 1;
    double free_b = (double)dev->mem_free;
    double budget = free_b * (lim->mem_frac > 0 ? lim->mem_frac : 0.9);
    if (free_b - (double)lim->mem_reserve < budget)
        budget = free_b - (double)lim->mem_reserve;
    p->budget = budget > 0 ? (int64_t)budget : 0;
    p->ldk = bnlc_ldk(n, (int)fsvc_dtype_size(dt));
    p->block = BNLC_THREADS;
    p->streams = streams;

    double syn_cap = lim->max_launch_syn;
    if (syn_cap <= 0) {
        double ts = bnlc_tsyn_peak_ns(dev, dt);
        syn_cap = ts > 0 ? lim->launch_s * 1e9 / ts : 1e12;
    }
    int64_t tm = m, tN = N;
    snprintf(p->bound, sizeof p->bound, "shape");
    if (lim->max_M > 0 && (tm > lim->max_M || tN > lim->max_M)) {
        tm = tm < lim->max_M ? tm : lim->max_M;
        tN = tN < lim->max_M ? tN : lim->max_M;
        snprintf(p->bound, sizeof p->bound, "max_M");
    }
    int64_t grid_m = dev->max_grid_y > 0 ? dev->max_grid_y * BNLC_TM : INT64_MAX;
    int64_t grid_N = dev->max_grid_x > 0 ? dev->max_grid_x * BNLC_TN : INT64_MAX;
    if (tm > grid_m) { tm = grid_m; snprintf(p->bound, sizeof p->bound, "grid"); }
    if (tN > grid_N) { tN = grid_N; snprintf(p->bound, sizeof p->bound, "grid"); }
    if (lim->pow2) {
        if (tm < m) tm = pow2_floor(tm);
        if (tN < N) tN = pow2_floor(tN);
    }
    while ((double)n * tm * tN > syn_cap && (tm > MIN_TILE || tN > MIN_TILE)) {
        shrink(&tm, &tN);
        snprintf(p->bound, sizeof p->bound, "launch");
    }
    while (!actsum && lim->max_out_bytes > 0 &&
           (dt == FSVC_F64 ? 8.0 : 4.0) * (double)round_up(tm, 4) * tN >
               (double)lim->max_out_bytes &&
           (tm > MIN_TILE || tN > MIN_TILE)) {
        shrink(&tm, &tN);
        snprintf(p->bound, sizeof p->bound, "pinned");
    }
    while ((double)streams * bnlc_stream_bytes(dt, gemm, actsum, n, tm, tN) > budget) {
        if (tm <= MIN_TILE && tN <= MIN_TILE)
            return fsvc_fail(err, FSVC_ERESOURCE,
                             "cuda: not enough device memory for n = %d (%.0f MiB free, "
                             "budget %.0f MiB)", n, free_b / 1048576.0,
                             budget > 0 ? budget / 1048576.0 : 0.0);
        shrink(&tm, &tN);
        snprintf(p->bound, sizeof p->bound, "memory");
    }
    p->tiles_m = (m + tm - 1) / tm;
    p->tiles_N = (N + tN - 1) / tN;
    if (!lim->pow2) {
        /* even tiles, same count: no tiny edge tile */
        int64_t em = round_up((m + p->tiles_m - 1) / p->tiles_m, BNLC_TM);
        int64_t eN = round_up((N + p->tiles_N - 1) / p->tiles_N, BNLC_TN);
        if (em < tm) tm = em;
        if (eN < tN) tN = eN;
    }
    if (tm > m) tm = m;
    if (tN > N) tN = N;
    p->tile_m = tm;
    p->tile_N = tN;
    p->tiles = p->tiles_m * p->tiles_N;
    p->bytes_stream = bnlc_stream_bytes(dt, gemm, actsum, n, tm, tN);
    p->bytes_total = streams * p->bytes_stream;
    p->pairs = (double)tm * tN;
    p->syn_launch = p->pairs * n;
    p->blocks_x = (tN + BNLC_TN - 1) / BNLC_TN;
    p->blocks_y = (tm + BNLC_TM - 1) / BNLC_TM;
    return FSVC_OK;
}

int64_t bnlc_paper_M(int64_t n, int64_t max_M, double syn_cap, double budget)
{
    int64_t M = pow2_floor(max_M);
    while (M > 1 && ((double)n * M * M > syn_cap || bnlc_mem_eq4(8, 8, n, M, M) > budget))
        M /= 2;
    return M;
}
