/*
 * plan.c - the CPU planner: splits (m, N) into BNL tiles for the caches.
 *
 * Tile sizes depend only on the shape, the dtype, the op and the cache
 * sizes, never on the thread count: threads only share out the tiles, so
 * 1 and 2 threads compute every tile the same way (identical bits).
 *   kernels (L1, u8 L2/dot): W tile (tile_m x n) and X tile (tile_N x n)
 *     each within a quarter of L2, the distance tile within another;
 *     u8 L2/dot on the packed GEMMs (avx512vnni, avxvnni, avx2, scalar):
 *     1024 x 240;
 *     on the AMX tiles: 1024 x 256;
 *   gemm (f32/f64 dot and L2): tiles of 1024 samples x 2048 neurons (8 MiB
 *     of f32, 512 x 2048 for f64): each one-thread sgemm re-packs its W and
 *     X panels, a cost of about 32 (1/tile_N + 1/tile_m) of the GEMM, so
 *     tiles must be large (256 x 1024 tiles measured 1.2-1.5x the bare
 *     sgemm, 1024 x 2048 about 1.1x, on 4096^2 x 784, 2 threads); the
 *     activation then runs on the tile while it is in L3 (L2 is 2 MiB).
 *   onednn (f32 and bf16 L2/dot, large calls): 256 samples x 1024 neurons,
 *     the f32 H tile (1 MiB) in L2 for the activation; neurons in
 *     multiples of 64 (oneDNN's blocks of W, cpu_dnnl.c).
 * Then tiles are halved (N first) until there are at least 8, so 2 threads
 * balance on small layers. Edge tiles are exact (the last tile is smaller).
 */
#include "cpu_tile.h"
#include "dnnl_load.h"

#include <string.h>
#include <unistd.h>

int bnl_cpu_uses_gemm(const bnl_op *op)
{
    return op->dtype != FSVC_U8 && op->dist != BNL_L1;
}

int bnl_cpu_uses_dnnl(const bnl_ctx *ctx, const bnl_op *op, int64_t m, int64_t N, int n)
{
    return ctx && ctx->dnnl && ctx->backend == BNL_CPU &&
           bnl_arch_rank(ctx->arch) >= bnl_arch_rank(BNL_ARCH_ONEDNN) &&
           bnl_arch_supported(BNL_ARCH_ONEDNN) && op->dtype == FSVC_F32 &&
           op->dist != BNL_L1 &&
           (op->precision == BNL_PREC_FULL || op->precision == BNL_PREC_BF16) &&
           (ctx->dnnl_min_syn < 0 ||
            (N >= BNL_DNNL_MIN_N &&
             (double)m * (double)N * n >= (double)(ctx->dnnl_min_syn ? ctx->dnnl_min_syn
                                                                     : BNL_DNNL_MIN_SYN))) &&
           bnl_dnnl_load(); /* last: only a call that would run on it loads it */
}

static int64_t l2_bytes(void)
{
    long v = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
    v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 65536 ? v : 1 << 20;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Neurons per tile of the packed u8 / bf16 GEMM kernels: whole panels of
 * the tier's width near 256 (48 or 24: 240; amx's 32: 256). */
static int64_t gemm_tile_m(const bnl_ctx *ctx)
{
    int nr = bnl_kernels_get(ctx->arch)->gemm_panel;
    return nr ? 256 / nr * nr : 240;
}

bnl_plan bnl_plan_for(const bnl_ctx *ctx, const bnl_op *op, int64_t m, int64_t N, int n)
{
    bnl_plan p = {0};
    p.threads = ctx && ctx->threads > 0 ? ctx->threads : 1;
    if (m < 1) m = 1;
    if (N < 1) N = 1;
    if (n < 1) n = 1;
    if (!ctx || ctx->backend == BNL_REF || ctx->backend == BNL_CUDA ||
        ctx->arch == BNL_ARCH_REF) {
        p.tile_m = m;
        p.tile_N = N;
        p.tiles = 1;
        p.threads = 1;
        p.path = ctx && ctx->backend == BNL_CUDA ? "cuda" : "ref-loops";
        p.kernel = ctx && ctx->backend == BNL_CUDA ? "cuda (cuda/ planner)" : "ref";
        return p;
    }
    int64_t elem = (int64_t)fsvc_dtype_size(op->dtype);
    int64_t q = l2_bytes() / 4;
    int64_t tm, tN;
    if (bnl_cpu_uses_dnnl(ctx, op, m, N, n)) {
        tm = 1024;
        tN = 256;
        p.path = "onednn";
        p.kernel = op->precision == BNL_PREC_BF16 ? "onednn-bf16" : "onednn-f32";
    } else if (bnl_op_reduced(op) && op->precision == BNL_PREC_BF16 &&
               bnl_kernels_get(ctx->arch)->dot_bf16) {
        /* the bf16 GEMM kernel (avx512bf16, amx): its own packing, so the
         * tiles of the u8 GEMM kernel (the f32 H tile, 1 MiB, in L2) */
        tm = gemm_tile_m(ctx);
        tN = 1024;
        p.path = "kernels";
        p.kernel = bnl_kernels_op_tier(ctx->arch, op);
    } else if (bnl_cpu_uses_gemm(op)) {
        tm = 2048;
        tN = 1024 * 4 / elem;
        p.path = "gemm";
        p.kernel = op->dtype == FSVC_F32 ? "openblas-sgemm" : "openblas-dgemm";
    } else if (op->dtype == FSVC_U8 && op->dist != BNL_L1 && bnl_kernels_get(ctx->arch)->dot_u8) {
        /* the packed GEMMs (avx512vnni, avxvnni, the int16 ones of avx2 and
         * scalar: the tiers with a dot_u8 kernel) pack a 48-neuron panel per
         * call and reuses it over the tile's samples: tall tiles (measured
         * at 4096^2 x 784, CPU time: 192 x 320 0.0019 ns, 512 x 480 0.0018,
         * 1024 x 240 0.0015); the int32 tile (1 MiB) stays in L2. amx's
         * panels are 32 neurons: 256, no partial panel. */
        tm = gemm_tile_m(ctx);
        tN = 1024;
        p.path = "kernels";
        p.kernel = bnl_kernels_op_tier(ctx->arch, op);
    } else {
        /* The float kernels block k internally (KC panels in L1), so a
         * tile need not fit L2; tiles under 256 x 256 cost packing and row
         * sums (measured at 4096^2: f32 160 -> 256 tiles 0.022 -> 0.019 ns,
         * f64 80 -> 256 tiles 0.083 -> 0.058 ns; at n = 16384 f32 16 ->
         * 256 tiles 0.063 -> 0.020 ns). u8 keeps the L2 rule (best there). */
        int64_t lo = op->dtype == FSVC_U8 ? 16 : 256;
        tm = clamp64(q / (n * elem), lo, 1024) / 16 * 16;
        tN = clamp64(q / (n * elem), lo, 1024);
        tN = clamp64(q / (tm * 4), lo, tN) / 16 * 16;
        p.path = "kernels";
        p.kernel = bnl_kernels_op_tier(ctx->arch, op);
    }
    tm = tm < m ? tm : m;
    tN = tN < N ? tN : N;
    while (ceil_div(m, tm) * ceil_div(N, tN) < 8 && (tN > 16 || tm > 16)) {
        if (tN > 16 && (tN >= tm || tm <= 16))
            tN = (tN + 1) / 2;
        else
            tm = (tm + 1) / 2;
    }
    if (ctx->tile_m > 0) tm = ctx->tile_m < m ? ctx->tile_m : m;
    if (ctx->tile_N > 0) tN = ctx->tile_N < N ? ctx->tile_N : N;
    if (!strcmp(p.path, "onednn") && tm < m) /* whole blocks of 64 neurons */
        tm = tm < 64 ? 64 : tm / 64 * 64;
    p.tile_m = tm;
    p.tile_N = tN;
    p.tiles = ceil_div(m, tm) * ceil_div(N, tN);
    return p;
}
