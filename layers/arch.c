/* arch.c - which CPU kernels to run: cpuid (gcc's __builtin_cpu_supports),
 * or FSVC_ARCH=ref|scalar|avx2|avx512 from the environment. Pure: nothing
 * is cached here beyond what the compiler's cpuid model holds. */
#include "bnl.h"
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>

bnl_arch bnl_arch_detect(char *why, size_t len)
{
    bnl_arch best = BNL_ARCH_SCALAR;
    if (bnl_arch_supported(BNL_ARCH_AVX512))
        best = BNL_ARCH_AVX512;
    else if (bnl_arch_supported(BNL_ARCH_AVX2))
        best = BNL_ARCH_AVX2;

    const char *env = getenv("FSVC_ARCH");
    if (env && *env) {
        bnl_arch want;
        if (bnl_arch_parse(env, &want) != 0) {
            if (why)
                snprintf(why, len, "%s (cpuid; FSVC_ARCH='%s' is not ref|scalar|avx2|avx512, ignored)",
                         bnl_arch_name(best), env);
            return best;
        }
        if (!bnl_arch_supported(want)) {
            if (why)
                snprintf(why, len, "%s (cpuid; FSVC_ARCH=%s is not supported by this CPU, ignored)",
                         bnl_arch_name(best), env);
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
