/*
 * kern_amx.c - the amx tier's GEMMs (exact u8 squared L2 and dot, the bf16
 * layer's product): the body of kern_amx_body.h on the real tiles
 * (Sapphire Rapids and later). The tier is offered only once Linux granted
 * the tile state and the kernels passed their self-check (kernels.c).
 */
#include <immintrin.h>

#include "kern_impl.h"

static inline uint32_t amx_sumsq(const uint8_t *x, int n)
{
    uint32_t s1, s2;
    u8_rowsums_avx512(x, n, &s1, &s2);
    return s2;
}

#define AMX_SFX amx
#define AMX_CFG(cfg) _tile_loadconfig(cfg)
#define AMX_LOAD(t, p, stride) _tile_loadd(t, p, stride)
#define AMX_STORE(t, p, stride) _tile_stored(t, p, stride)
#define AMX_ZERO(t) _tile_zero(t)
#define AMX_DPBUUD(c, a, b) _tile_dpbuud(c, a, b)
#define AMX_DPBF16PS(c, a, b) _tile_dpbf16ps(c, a, b)
#define AMX_RELEASE() _tile_release()
#define AMX_SUMSQ(x, n) amx_sumsq(x, n)
#define AMX_PACK kern_pack4_avx512
#include "kern_amx_body.h"
