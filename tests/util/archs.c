/* archs.c - the CPU kernel sets a test covers (see archs.h). */
#include "tests/util/archs.h"
#include "layers/kernels.h"

#include <cpuid.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* cpuid's answer for a set, independent of layers/kernels.c */
static int cpu_has(bnl_arch a)
{
    __builtin_cpu_init();
    unsigned l1[4];
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("bmi2") &&
               __get_cpuid(1, &l1[0], &l1[1], &l1[2], &l1[3]) && (l1[2] >> 29 & 1); /* F16C */
    if (a == BNL_ARCH_AVX2)
        return avx2;
    if (a == BNL_ARCH_AVXVNNI)
        return avx2 && __builtin_cpu_supports("avxvnni");
    int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                 __builtin_cpu_supports("avx512vnni");
    if (a == BNL_ARCH_AVX512BF16)
        return avx512 && __builtin_cpu_supports("avx512bf16");
    if (a == BNL_ARCH_AMX) { /* AMX-BF16, -TILE, -INT8, and Linux's grant */
        unsigned r[4];
        return avx512 && __builtin_cpu_supports("avx512bf16") &&
               __get_cpuid_count(7, 0, &r[0], &r[1], &r[2], &r[3]) && (r[3] >> 22 & 1) &&
               (r[3] >> 24 & 1) && (r[3] >> 25 & 1) && syscall(SYS_arch_prctl, 0x1023, 18) == 0;
    }
    if (a == BNL_ARCH_AVX512 || a == BNL_ARCH_AVX512VNNI)
        return avx512;
    return 1;
}

int fx_cpu_archs(bnl_arch out[BNL_ARCH_COUNT])
{
    static const bnl_arch all[] = {BNL_ARCH_SCALAR, BNL_ARCH_AVX2, BNL_ARCH_AVX512,
                                   BNL_ARCH_AVX512VNNI, BNL_ARCH_AVX512BF16, BNL_ARCH_AVXVNNI,
                                   BNL_ARCH_AMX};
    bnl_ctx ctx;
    if (bnl_ctx_open(&ctx, "cpu", 1, 1, NULL) != FSVC_OK)
        return -1;
    int k = 0;
    for (int i = 0; i < (int)(sizeof all / sizeof *all); i++) {
        int ok = bnl_ctx_set_arch(&ctx, all[i], NULL) == FSVC_OK;
        if (!ok && cpu_has(all[i])) {
            k = -1; /* the CPU has it, the engine will not run it */
            break;
        }
        if (ok)
            out[k++] = all[i];
    }
    bnl_ctx_close(&ctx);
    return k;
}

void fx_arch_force(bnl_arch arch)
{
    setenv("FSVC_ARCH", bnl_arch_name(arch), 1);
}

void fx_arch_reset(void)
{
    unsetenv("FSVC_ARCH");
}

const bnl_kernels *fx_own_tier(int a, const void *fn, const void **seen, int *n)
{
    if (!bnl_arch_supported((bnl_arch)a) || !fn) return NULL;
    for (int t = 0; t < *n; t++)
        if (seen[t] == fn) return NULL;
    seen[(*n)++] = fn;
    return bnl_kernels_get((bnl_arch)a);
}
