/* arch.c - which CPU kernels to run: cpuid (gcc's __builtin_cpu_supports),
 * or FSVC_ARCH=ref|scalar|avx2|avxvnni|avx512|avx512vnni|avx512bf16|onednn|amx
 * from the environment; their names and the kernels alone for benchmarks
 * (the public face of kernels.h). Nothing is cached here beyond the
 * compiler's cpuid model and Linux's AMX grant (kernels.c). */
#include "bnl.h"
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>

bnl_arch bnl_arch_detect(char *why, size_t len)
{
    bnl_arch best = BNL_ARCH_SCALAR; /* the highest tier this CPU runs */
    for (int a = BNL_ARCH_SCALAR + 1; a < BNL_ARCH_COUNT; a++)
        if (bnl_arch_supported((bnl_arch)a) && bnl_arch_rank((bnl_arch)a) > bnl_arch_rank(best))
            best = (bnl_arch)a;

    const char *env = getenv("FSVC_ARCH");
    if (env && *env) {
        bnl_arch want;
        if (bnl_arch_parse(env, &want) != 0) {
            if (why)
                snprintf(why, len, "%s (cpuid; FSVC_ARCH='%s' is not ref|scalar|avx2|avxvnni|"
                         "avx512|avx512vnni|avx512bf16|onednn|amx, ignored)", bnl_arch_name(best), env);
            return best;
        }
        if (!bnl_arch_supported(want)) {
            if (why)
                snprintf(why, len, "%s (cpuid; FSVC_ARCH=%s is not supported by this CPU or "
                         "build, ignored)", bnl_arch_name(best), env);
            return best;
        }
        if (why)
            snprintf(why, len, "%s (FSVC_ARCH; cpuid would give %s)", bnl_arch_name(want),
                     bnl_arch_name(best));
        return want;
    }
    if (why)
        snprintf(why, len, "%s (cpuid)", bnl_arch_name(best));
    return best;
}

const char *bnl_arch_kernels(bnl_arch arch)
{
    return arch == BNL_ARCH_REF ? "ref" : bnl_kernels_get(arch)->name;
}

int bnl_kernel_dist(bnl_arch arch, const bnl_op *op, void *D, int64_t ldd,
                    const void *W, int64_t m, const void *X, int64_t N, int n,
                    fsvc_error *err)
{
    const bnl_kernels *k = bnl_kernels_get(arch);
    if (!op || (op->dist != BNL_L1 && op->dtype != FSVC_U8))
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: no distance kernel for this op "
                         "(L1, or L2 squared / dot on u8)");
    if (m < 1 || N < 1 || n < 1 || n > 65536 || ldd < m)
        return fsvc_fail(err, FSVC_EUSAGE, "bnl: bad kernel shape m=%lld N=%lld n=%d",
                         (long long)m, (long long)N, n);
    switch (op->dtype) {
    case FSVC_U8:
        if (op->dist == BNL_L1)
            k->l1_u8(D, ldd, W, m, X, N, n);
        else if (op->dist == BNL_DOT && k->dot_u8)
            k->dot_u8(D, ldd, W, m, X, N, n);
        else /* L2, or the dot's distance part where there is no dot kernel */
            k->l2sq_u8(D, ldd, W, m, X, N, n);
        return FSVC_OK;
    case FSVC_F32:
        k->l1_f32(D, ldd, W, m, X, N, n);
        return FSVC_OK;
    case FSVC_F64:
        k->l1_f64(D, ldd, W, m, X, N, n);
        return FSVC_OK;
    }
    return fsvc_fail(err, FSVC_EUSAGE, "bnl: unknown dtype %d", (int)op->dtype);
}
