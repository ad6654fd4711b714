/*
 * peak_amx.c - the AMX probes of peak_impl.h: tdpbuud or tdpbf16ps on 6
 * independent accumulator tiles (the latency is about 3 times the 16-cycle
 * issue interval on Sapphire Rapids, so 6 chains give the issue rate),
 * sources in tiles 6 and 7 (zeros: no denormal path), all 16 x 64 bytes;
 * nothing touches memory inside a round. A unit is one instruction: 16 x
 * 16 x 64 u8 or 16 x 16 x 32 bf16 products. Built with the AMX flags (the
 * Makefile's _amx rule); call only once the tier is granted.
 */
#include "peak_impl.h"

#include <immintrin.h>
#include <string.h>
#include <time.h>

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

double bnl_probe_amx(int mix)
{
    if (mix != BNL_MIX_TDPBUUD && mix != BNL_MIX_TDPBF16)
        return 0;
    _Alignas(64) unsigned char cfg[64];
    memset(cfg, 0, sizeof cfg);
    cfg[0] = 1; /* palette 1; every tile 16 rows x 64 bytes */
    for (int t = 0; t < 8; t++) {
        cfg[16 + 2 * t] = 64;
        cfg[48 + t] = 16;
    }
    _tile_loadconfig(cfg);
    _tile_zero(6);
    _tile_zero(7);
    double best = 0;
    for (int rep = 0; rep < 15; rep++) { /* best of 15 short rounds, as peak_avx512.c */
        _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3); _tile_zero(4); _tile_zero(5);
        double t0 = thread_cpu();
        if (mix == BNL_MIX_TDPBUUD)
            for (long i = 0; i < (1L << 12); i++) {
                _tile_dpbuud(0, 6, 7); _tile_dpbuud(1, 6, 7); _tile_dpbuud(2, 6, 7);
                _tile_dpbuud(3, 6, 7); _tile_dpbuud(4, 6, 7); _tile_dpbuud(5, 6, 7);
            }
        else
            for (long i = 0; i < (1L << 12); i++) {
                _tile_dpbf16ps(0, 6, 7); _tile_dpbf16ps(1, 6, 7); _tile_dpbf16ps(2, 6, 7);
                _tile_dpbf16ps(3, 6, 7); _tile_dpbf16ps(4, 6, 7); _tile_dpbf16ps(5, 6, 7);
            }
        double r = 6.0 * (1L << 12) / (thread_cpu() - t0);
        best = r > best ? r : best;
    }
    _tile_release();
    return best;
}
