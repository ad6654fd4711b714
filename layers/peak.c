/*
 * peak.c - the measured peak of a CPU kernel (issue 24): which instruction
 * mix a plan's kernel runs per synapse (its innermost loop, loads left
 * out), and the rate of that mix on this CPU from the register-only probes
 * of peak_avx512.c / peak_avx2.c, run on the layer's thread count at once.
 * A layer runs at least its mix per synapse, so its rate cannot pass the
 * probe's beyond the probe's noise: "% of peak" stays at or below ~100 %.
 */
#include "bnl.h"
#include "peak_impl.h"

#include <omp.h>
#include <string.h>

static const struct {
    const char *name;
    int syn;        /* synapses per unit */
    bnl_arch need;  /* the tier whose cpuid check covers the instructions */
} mixes[BNL_MIX_COUNT] = {
    [BNL_MIX_SAD_Z] = {"vpsadbw + vpaddq zmm", 64, BNL_ARCH_AVX512},
    [BNL_MIX_MINADD_Z] = {"vminps + vaddps zmm", 16, BNL_ARCH_AVX512},
    [BNL_MIX_ABSADD_Z] = {"vsubpd + vandpd + vaddpd zmm", 8, BNL_ARCH_AVX512},
    [BNL_MIX_FMAPS_Z] = {"vfmadd231ps zmm", 16, BNL_ARCH_AVX512},
    [BNL_MIX_FMAPD_Z] = {"vfmadd231pd zmm", 8, BNL_ARCH_AVX512},
    [BNL_MIX_DPBUSD_Z] = {"vpdpbusd zmm", 64, BNL_ARCH_AVX512VNNI},
    [BNL_MIX_DPBF16_Z] = {"vdpbf16ps zmm", 32, BNL_ARCH_AVX512BF16},
    [BNL_MIX_SAD_Y] = {"vpsadbw + vpaddq ymm", 32, BNL_ARCH_AVX2},
    [BNL_MIX_MINADD_Y] = {"vminps + vaddps ymm", 8, BNL_ARCH_AVX2},
    [BNL_MIX_ABSADD_Y] = {"vsubpd + vandpd + vaddpd ymm", 4, BNL_ARCH_AVX2},
    [BNL_MIX_FMAPS_Y] = {"vfmadd231ps ymm", 8, BNL_ARCH_AVX2},
    [BNL_MIX_FMAPD_Y] = {"vfmadd231pd ymm", 4, BNL_ARCH_AVX2},
    [BNL_MIX_MADDWD_Y] = {"vpmaddwd + vpaddd ymm", 16, BNL_ARCH_AVX2},
    [BNL_MIX_DPBUSD_Y] = {"{vex} vpdpbusd ymm", 32, BNL_ARCH_AVXVNNI},
    [BNL_MIX_TDPBUUD] = {"tdpbuud tiles", 16384, BNL_ARCH_AMX},
    [BNL_MIX_TDPBF16] = {"tdpbf16ps tiles", 8192, BNL_ARCH_AMX},
};

static int valid(int mix) { return mix > BNL_MIX_NONE && mix < BNL_MIX_COUNT; }

const char *bnl_mix_name(int mix) { return valid(mix) ? mixes[mix].name : "none"; }
int bnl_mix_syn(int mix) { return valid(mix) ? mixes[mix].syn : 0; }
int bnl_mix_supported(int mix) { return valid(mix) && bnl_arch_supported(mixes[mix].need); }

/* OpenBLAS's GEMM kernels by core: the AVX-512 cores' are 512-bit, the
 * Haswell-class ones' (Haswell, Zen: Zen runs Haswell's) 256-bit FMA;
 * others (SSE, AVX without FMA): no probe. */
static int blas_mix(int f32)
{
    static const char *const z[] = {"skylakex", "cooperlake", "sapphirerapids"};
    static const char *const y[] = {"haswell", "zen"};
    const char *core = bnl_blas_core_name();
    char lc[64] = "";
    for (size_t i = 0; core && core[i] && i + 1 < sizeof lc; i++)
        lc[i] = (char)(core[i] >= 'A' && core[i] <= 'Z' ? core[i] + 32 : core[i]);
    for (size_t i = 0; i < sizeof z / sizeof *z; i++)
        if (!strcmp(lc, z[i]))
            return f32 ? BNL_MIX_FMAPS_Z : BNL_MIX_FMAPD_Z;
    for (size_t i = 0; i < sizeof y / sizeof *y; i++)
        if (!strcmp(lc, y[i]))
            return f32 ? BNL_MIX_FMAPS_Y : BNL_MIX_FMAPD_Y;
    return BNL_MIX_NONE;
}

/* The kernel tables' names (kernels.c; bnl_kernels_op_tier gives the
 * lowest tier holding a function, so "avx512" for every 512-bit L1). */
int bnl_plan_mix(const bnl_plan *plan, const bnl_op *op)
{
    const char *k = plan && plan->kernel ? plan->kernel : "";
    int u8 = op->dtype == FSVC_U8, f32 = op->dtype == FSVC_F32, l1 = op->dist == BNL_L1;
    if (!strcmp(k, "onednn-f32")) /* oneDNN's brgemm on AVX-512 (avx512_core) */
        return BNL_MIX_FMAPS_Z;
    if (!strcmp(k, "onednn-bf16") || !strcmp(k, "avx512bf16"))
        return BNL_MIX_DPBF16_Z;
    if (!strcmp(k, "openblas-sgemm") || !strcmp(k, "openblas-dgemm"))
        return blas_mix(!strcmp(k, "openblas-sgemm"));
    if (!strcmp(k, "avx512") || !strcmp(k, "avx512vnni")) {
        if (!l1)
            return u8 ? BNL_MIX_DPBUSD_Z : BNL_MIX_NONE;
        return u8 ? BNL_MIX_SAD_Z : f32 ? BNL_MIX_MINADD_Z : BNL_MIX_ABSADD_Z;
    }
    if (!strcmp(k, "avx2")) {
        if (!l1)
            return u8 ? BNL_MIX_MADDWD_Y : BNL_MIX_NONE;
        return u8 ? BNL_MIX_SAD_Y : f32 ? BNL_MIX_MINADD_Y : BNL_MIX_ABSADD_Y;
    }
    if (!strcmp(k, "avxvnni") && u8 && !l1)
        return BNL_MIX_DPBUSD_Y;
    if (!strcmp(k, "amx") && !l1)
        return u8 ? BNL_MIX_TDPBUUD : f32 ? BNL_MIX_TDPBF16 : BNL_MIX_NONE;
    return BNL_MIX_NONE; /* ref, scalar, cuda: no probe */
}

double bnl_mix_rate(int mix)
{
    if (!bnl_mix_supported(mix))
        return 0;
    if (mix == BNL_MIX_TDPBUUD || mix == BNL_MIX_TDPBF16)
        return bnl_probe_amx(mix);
    return mix <= BNL_MIX_DPBF16_Z ? bnl_probe_avx512(mix) : bnl_probe_avx2(mix);
}

double bnl_mix_peak(int mix, int threads)
{
    if (!bnl_mix_supported(mix))
        return 0;
    double sum = 0;
    #pragma omp parallel num_threads(threads > 0 ? threads : 1) reduction(+ : sum)
    sum += bnl_mix_rate(mix);
    return sum * mixes[mix].syn;
}
