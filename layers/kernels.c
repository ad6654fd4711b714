/*
 * kernels.c - the distance-kernel tables per ISA and their run-time choice
 * (cpuid). Built for the baseline: no ISA intrinsics here.
 */
#include "kern_impl.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the x86-64 baseline: plain C, u8 L2 and dot on SSE2's pmaddwd */
static const bnl_kernels k_scalar = {
    "scalar", l1_f32_scalar_4x8, l1_f64_scalar_4x4, l1_u8_scalar_2x2,
    l2sq_u8_sse2_4x8, NULL, dot_u8_sse2_4x8, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL,
    NULL, NULL,
};
static const bnl_kernels k_avx2 = {
    "avx2", l1_f32_avx2_6x16, l1_f64_avx2_6x8, l1_u8_avx2_4x4, l2sq_u8_avx2_4x16, NULL,
    dot_u8_avx2_4x16, NULL, NULL, NULL, hgram_avx2, 0, f16_round_avx2, f16_widen_avx2,
    hscore_avx2, tri_fwd_avx2, tri_back_avx2,
};
static const bnl_kernels k_avx512 = {
    "avx512", l1_f32_avx512_8x32, l1_f64_avx512_8x24, l1_u8_avx512_4x4,
    l2sq_u8_avx512_4x4, NULL, NULL, NULL, norms_f32_avx512, NULL,
    NULL, /* pcg's products on GEMMs: FSVC_ARCH=avx512 keeps today's kernels */
    0, f16_round_avx512, f16_widen_avx512, NULL, /* and its scores on dgemm, */
    NULL, NULL, /* its triangular solves on sgemm */
};
/* avx512's kernels, u8 L2 (and dot, from it) as a packed vpdpbusd GEMM,
 * pcg's products fused. */
static const bnl_kernels k_avx512vnni = {
    "avx512vnni", l1_f32_avx512_8x32, l1_f64_avx512_8x24, l1_u8_avx512_4x4,
    l2sq_u8_avx512vnni_8x48, NULL, dot_u8_avx512vnni_8x48, NULL, norms_f32_avx512,
    NULL, hgram_avx512, 0, f16_round_avx512, f16_widen_avx512, hscore_avx512,
    tri_fwd_avx512, tri_back_avx512,
};
/* avx2's kernels, u8 L2 and dot as a 256-bit vpdpbusd GEMM (AVX-VNNI). */
static const bnl_kernels k_avxvnni = {
    "avxvnni", l1_f32_avx2_6x16, l1_f64_avx2_6x8, l1_u8_avx2_4x4, l2sq_u8_avxvnni_4x24, NULL,
    dot_u8_avxvnni_4x24, NULL, NULL, NULL, hgram_avx2, 0, f16_round_avx2, f16_widen_avx2,
    hscore_avx2, tri_fwd_avx2, tri_back_avx2,
};
/* avx512vnni's, and the bf16 layer's GEMM on vdpbf16ps. */
static const bnl_kernels k_avx512bf16 = {
    "avx512bf16", l1_f32_avx512_8x32, l1_f64_avx512_8x24, l1_u8_avx512_4x4,
    l2sq_u8_avx512vnni_8x48, dot_bf16_avx512bf16_8x48, dot_u8_avx512vnni_8x48,
    bf16_rows_avx512bf16, norms_f32_avx512, bf16_widen_avx512bf16, hgram_avx512, 0,
    f16_round_avx512, f16_widen_avx512, hscore_avx512, tri_fwd_avx512, tri_back_avx512,
};

/* avx512bf16's, and u8 L2 and dot and the bf16 GEMM on the AMX tiles
 * (kern_amx.c), in 32-neuron panels. */
static const bnl_kernels k_amx = {
    "amx", l1_f32_avx512_8x32, l1_f64_avx512_8x24, l1_u8_avx512_4x4,
    l2sq_u8_amx, dot_bf16_amx, dot_u8_amx,
    bf16_rows_avx512bf16, norms_f32_avx512, bf16_widen_avx512bf16, hgram_avx512, 32,
    f16_round_avx512, f16_widen_avx512, hscore_avx512, tri_fwd_avx512, tri_back_avx512,
};

/* The amx tier's self-check. Its tiles were written on CPUs without them
 * (checked there on an emulated unit, tests/test_amx_emu.c): a fault the
 * emulation cannot show then costs the tier, never a wrong model; and
 * tests/util/archs.c's own cpuid check fails the suite when the check
 * refuses a CPU that has AMX. */
int bnl_u8_kernels_agree(bnl_l2sq_u8_fn l2sq, bnl_l2sq_u8_fn dot)
{
    enum { M = 33, N = 35, K = 70 };
    uint8_t W[M * K], X[N * K];
    int32_t D[N * M], R[N * M];
    uint32_t v = 12345;
    for (int i = 0; i < M * K; i++) W[i] = (uint8_t)((v = v * 1103515245u + 12345u) >> 24);
    for (int i = 0; i < N * K; i++) X[i] = (uint8_t)((v = v * 1103515245u + 12345u) >> 24);
    l2sq(D, M, W, M, X, N, K);
    l2sq_u8_scalar_2x2(R, M, W, M, X, N, K);
    if (memcmp(D, R, sizeof D))
        return 0;
    dot(D, M, W, M, X, N, K);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            int32_t s = 0;
            for (int k = 0; k < K; k++) s += X[i * K + k] * W[j * K + k];
            if (D[i * M + j] != s)
                return 0;
        }
    return 1;
}

int bnl_bf16_kernel_agrees(bnl_dot_bf16_fn dot)
{
    enum { M = 33, N = 35, K = 70 };
    uint16_t W[M * K], X[N * K];
    float C[N * M];
    uint32_t v = 777;
    /* multiples of 1/8 up to 1: every product and partial sum is exact in
     * f32, so the sum is the same bits in any order */
    for (int i = 0; i < M * K + N * K; i++) {
        v = v * 1103515245u + 12345u;
        float f = (float)((int)(v >> 24) % 17 - 8) / 8.0f;
        uint32_t b;
        memcpy(&b, &f, 4);
        *(i < M * K ? &W[i] : &X[i - M * K]) = (uint16_t)(b >> 16);
    }
    dot(C, M, W, M, X, N, K, -2.0f);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            float s = 0;
            for (int k = 0; k < K; k++) {
                uint32_t a = (uint32_t)X[i * K + k] << 16, b = (uint32_t)W[j * K + k] << 16;
                float fa, fb;
                memcpy(&fa, &a, 4);
                memcpy(&fb, &b, 4);
                s += fa * fb;
            }
            if (C[i * M + j] != -2.0f * s)
                return 0;
        }
    return 1;
}

/* cpuid's AMX-TILE, AMX-INT8 and AMX-BF16, Linux's grant of the tile state
 * to this process (arch_prctl ARCH_REQ_XCOMP_PERM, XTILEDATA; kernels
 * before 5.16 refuse it, and then tiles would fault), and the self-check.
 * Asked once: the grant is for the whole process. */
static int amx_state; /* 0 not asked yet, 1 usable, -1 no AMX, -2 not granted, -3 check failed */
static int amx_granted(void)
{
    int s = __atomic_load_n(&amx_state, __ATOMIC_ACQUIRE);
    if (s)
        return s > 0;
    unsigned a, b, c, d;
    s = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 22 & 1) && (d >> 24 & 1) &&
        (d >> 25 & 1) && bnl_arch_supported(BNL_ARCH_AVX512BF16) ? 1 : -1;
#ifdef SYS_arch_prctl
    if (s > 0 && syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */,
                         18 /* XFEATURE_XTILEDATA */) != 0)
        s = -2;
#else
    s = s > 0 ? -2 : s;
#endif
    if (s > 0 && !(bnl_u8_kernels_agree(l2sq_u8_amx, dot_u8_amx) &&
                   bnl_bf16_kernel_agrees(dot_bf16_amx)))
        s = -3;
    __atomic_store_n(&amx_state, s, __ATOMIC_RELEASE);
    return s > 0;
}

const char *bnl_arch_note(bnl_arch arch)
{
    if (arch != BNL_ARCH_AMX || amx_granted())
        return NULL;
    int s = __atomic_load_n(&amx_state, __ATOMIC_ACQUIRE);
    return s == -2 ? "the CPU has AMX, but Linux did not grant the tile state (kernel 5.16 or "
                     "later needed)"
           : s == -3 ? "the CPU has AMX, but the amx kernels failed their self-check against "
                       "the scalar ones: not used (please report)"
                     : NULL; /* no AMX: nothing to say */
}

/* One cpuid bit (leaf, subleaf, register 0-3 = EAX..EDX), asked once per
 * cache word: cpuid traps to the hypervisor in a VM, and the tables are
 * looked up per call. */
static int cpuid_bit(int *known, unsigned leaf, unsigned sub, int reg, int bit)
{
    int s = __atomic_load_n(known, __ATOMIC_RELAXED); /* 0 not asked yet, 1 yes, -1 no */
    if (!s) {
        unsigned r[4];
        s = __get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]) && (r[reg] >> bit & 1)
                ? 1 : -1;
        __atomic_store_n(known, s, __ATOMIC_RELAXED);
    }
    return s > 0;
}

/* F16C: cpuid 1 ECX bit 29 (every AVX2 CPU has it). */
static int has_f16c(void)
{
    static int known;
    return cpuid_bit(&known, 1, 0, 2, 29);
}

/* AVX-VNNI: cpuid 7.1 EAX bit 4 (clang 14, which builds make fuzz, has no
 * __builtin_cpu_supports("avxvnni")). */
static int has_avxvnni(void)
{
    static int known;
    return cpuid_bit(&known, 7, 1, 0, 4);
}

int bnl_arch_supported(bnl_arch arch)
{
    switch (arch) {
    case BNL_ARCH_REF:
    case BNL_ARCH_SCALAR:
        return 1;
    case BNL_ARCH_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("bmi2") && has_f16c();
    case BNL_ARCH_AVX512:
        __builtin_cpu_init();
        return bnl_arch_supported(BNL_ARCH_AVX2) &&
               __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vnni");
    case BNL_ARCH_AVX512VNNI: /* today's avx512 tier already asks for VNNI */
        return bnl_arch_supported(BNL_ARCH_AVX512);
    case BNL_ARCH_AVX512BF16:
        __builtin_cpu_init();
        return bnl_arch_supported(BNL_ARCH_AVX512VNNI) && __builtin_cpu_supports("avx512bf16");
    case BNL_ARCH_ONEDNN: /* built with oneDNN (cpu_dnnl.c); its bf16 matmul
                             wants the BF16 instructions */
#ifdef FSVC_HAVE_DNNL
        return bnl_arch_supported(BNL_ARCH_AVX512BF16);
#else
        return 0;
#endif
    case BNL_ARCH_AMX: /* needs no oneDNN: without it, avx512bf16's GEMMs */
        return amx_granted();
    case BNL_ARCH_AVXVNNI: /* the VEX form: not implied by AVX-512 VNNI */
        return bnl_arch_supported(BNL_ARCH_AVX2) && has_avxvnni();
    }
    return 0;
}

int bnl_arch_rank(bnl_arch arch)
{
    static const int rank[BNL_ARCH_COUNT] = {0, 1, 2, 4, 5, 6, 3, 7, 8}; /* by enum value */
    return (unsigned)arch < BNL_ARCH_COUNT ? rank[arch] : -1;
}

/* The slot of op in a table, as a plain pointer for comparison. */
static const void *op_slot(const bnl_kernels *k, const bnl_op *op)
{
    if (op->dist == BNL_L1)
        return op->dtype == FSVC_U8 ? (const void *)k->l1_u8
               : op->dtype == FSVC_F32 ? (const void *)k->l1_f32 : (const void *)k->l1_f64;
    if (op->dtype == FSVC_F32 && op->precision == BNL_PREC_BF16)
        return (const void *)k->dot_bf16; /* NULL: emulated on sgemm */
    if (op->dtype == FSVC_U8 && op->dist == BNL_DOT && k->dot_u8)
        return (const void *)k->dot_u8;
    return op->dtype == FSVC_U8 ? (const void *)k->l2sq_u8 : NULL;
}

const char *bnl_kernels_op_tier(bnl_arch arch, const bnl_op *op)
{
    if (arch == BNL_ARCH_REF)
        return "ref";
    const void *fn = op_slot(bnl_kernels_get(arch), op);
    if (!fn)
        return NULL;
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++)
        if (op_slot(bnl_kernels_get((bnl_arch)a), op) == fn)
            return bnl_kernels_get((bnl_arch)a)->name;
    return bnl_kernels_get(arch)->name;
}

const bnl_kernels *bnl_kernels_get(bnl_arch arch)
{
    /* the best-ranked tier at or below arch that this CPU runs */
    static const struct { bnl_arch a; const bnl_kernels *k; } down[] = {
        {BNL_ARCH_AMX, &k_amx},
        {BNL_ARCH_AVX512BF16, &k_avx512bf16}, {BNL_ARCH_AVX512VNNI, &k_avx512vnni},
        {BNL_ARCH_AVX512, &k_avx512}, {BNL_ARCH_AVXVNNI, &k_avxvnni}, {BNL_ARCH_AVX2, &k_avx2},
    };
    for (size_t i = 0; i < sizeof down / sizeof *down; i++)
        if (bnl_arch_rank(arch) >= bnl_arch_rank(down[i].a) && bnl_arch_supported(down[i].a))
            return down[i].k;
    return &k_scalar;
}
