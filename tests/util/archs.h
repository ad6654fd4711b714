/* archs.h - the CPU kernel sets a cross-backend test runs: every set this
 * CPU can run (scalar, avx2, avx512), not only the one cpuid would pick, so
 * a bug in a set the machine does not choose by default still fails. */
#ifndef FSVC_TESTS_ARCHS_H
#define FSVC_TESTS_ARCHS_H

#include "layers/bnl.h"

/* Fills out (BNL_ARCH_COUNT entries) with the sets this CPU runs, scalar first, and
 * returns how many; -1 when the engine refuses a set that cpuid (asked
 * here on its own) says this CPU has, which would shrink the coverage
 * without a word. */
int fx_cpu_archs(bnl_arch out[BNL_ARCH_COUNT]);

/* The kernels of tier a when this CPU runs it and fn (one of its kernels)
 * is code no tier before it held (seen, *n: the code so far), else NULL:
 * each kernel checked once, on the first tier that holds it. */
struct bnl_kernels;
const struct bnl_kernels *fx_own_tier(int a, const void *fn, const void **seen, int *n);

/* FSVC_ARCH=<arch> for the contexts the library opens itself (fsvc_train,
 * fsvc_predict); fx_arch_reset() removes it again. */
void fx_arch_force(bnl_arch arch);
void fx_arch_reset(void);

#endif
