/*
 * peak_impl.h - the register-only probes behind bnl_mix_peak (bnl.h): one
 * per instruction mix a CPU kernel runs per synapse, so that "% of peak"
 * divides by what this core can issue of that very mix, measured, never by
 * a clock times a port count.
 *
 * A probe runs UNITS units of its mix per asm block on independent
 * accumulators (registers only: no loads, stores or branches inside a
 * block) and returns units per CPU second of the calling thread (best of
 * a few rounds); a unit is one synapse-vector's instructions (e.g. vpsadbw
 * + vpaddq: 64 u8 synapses) and bnl_mix_syn gives its synapses.
 */
#ifndef FSVC_PEAK_IMPL_H
#define FSVC_PEAK_IMPL_H

enum {
    BNL_MIX_NONE = 0,
    /* 512-bit (peak_avx512.c) */
    BNL_MIX_SAD_Z,      /* l1_u8:  vpsadbw + vpaddq, 64 synapses */
    BNL_MIX_MINADD_Z,   /* l1_f32: vminps + vaddps, 16 */
    BNL_MIX_ABSADD_Z,   /* l1_f64: vsubpd + vandpd + vaddpd, 8 */
    BNL_MIX_FMAPS_Z,    /* f32 GEMM: vfmadd231ps, 16 */
    BNL_MIX_FMAPD_Z,    /* f64 GEMM: vfmadd231pd, 8 */
    BNL_MIX_DPBUSD_Z,   /* u8 L2 / dot: vpdpbusd, 64 */
    BNL_MIX_DPBF16_Z,   /* bf16 GEMM: vdpbf16ps, 32 */
    /* 256-bit (peak_avx2.c) */
    BNL_MIX_SAD_Y,      /* vpsadbw + vpaddq, 32 */
    BNL_MIX_MINADD_Y,   /* vminps + vaddps, 8 */
    BNL_MIX_ABSADD_Y,   /* vsubpd + vandpd + vaddpd, 4 */
    BNL_MIX_FMAPS_Y,    /* vfmadd231ps, 8 */
    BNL_MIX_FMAPD_Y,    /* vfmadd231pd, 4 */
    BNL_MIX_MADDWD_Y,   /* avx2 l2sq_u8 / dot_u8: vpmaddwd + vpaddd, 16 (pairs
                           widened outside the loop) */
    BNL_MIX_DPBUSD_Y,   /* avxvnni: {vex} vpdpbusd, 32 */
    /* tiles (peak_amx.c) */
    BNL_MIX_TDPBUUD,    /* amx u8 L2 / dot: tdpbuud, 16 x 16 x 64 = 16384 */
    BNL_MIX_TDPBF16,    /* amx bf16 GEMM: tdpbf16ps, 16 x 16 x 32 = 8192 */
    BNL_MIX_COUNT
};

/* Units per CPU second of the calling thread; 0 for a mix of the other
 * file. Call only where bnl_mix_supported says the CPU has it. */
double bnl_probe_avx512(int mix);
double bnl_probe_avx2(int mix);
double bnl_probe_amx(int mix);

#endif
