/* peak_avx512.c - the measured peak of the instruction a CPU tier's layer
 * runs on (issue 24): one thread issues 24 independent chains of it on
 * registers only (no memory, no dependence within a round of 24), and the
 * rate per CPU second is the core's ceiling for that instruction; times
 * the synapses one instruction does and the threads, it is the peak that
 * `fsvc bench` divides by. Built with the AVX-512 flags (the Makefile's
 * _avx512 rule); called only where cpuid has the instruction. */
#include "tools/bench.h"

#include <immintrin.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define OP3(I, a, b, c) I " %[s1], %[s0], %%zmm" #a "\n\t" I " %[s1], %[s0], %%zmm" #b "\n\t" \
                        I " %[s1], %[s0], %%zmm" #c "\n\t"
#define ZERO "vpxord %%zmm0, %%zmm0, %%zmm0\n\tvmovdqa64 %%zmm0, %%zmm1\n\t"           \
             "vmovdqa64 %%zmm0, %%zmm2\n\tvmovdqa64 %%zmm0, %%zmm3\n\t"                  \
             "vmovdqa64 %%zmm0, %%zmm4\n\tvmovdqa64 %%zmm0, %%zmm5\n\t"                  \
             "vmovdqa64 %%zmm0, %%zmm6\n\tvmovdqa64 %%zmm0, %%zmm7\n\t"                  \
             "vmovdqa64 %%zmm0, %%zmm8\n\tvmovdqa64 %%zmm0, %%zmm9\n\t"                  \
             "vmovdqa64 %%zmm0, %%zmm10\n\tvmovdqa64 %%zmm0, %%zmm11\n\t"
#define OP24(I) OP3(I, 0, 1, 2) OP3(I, 3, 4, 5) OP3(I, 6, 7, 8) OP3(I, 9, 10, 11)           \
                OP3(I, 0, 1, 2) OP3(I, 3, 4, 5) OP3(I, 6, 7, 8) OP3(I, 9, 10, 11)
#define CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",     \
                 "xmm9", "xmm10", "xmm11"

/* Instructions per CPU second, best of 5 rounds of 2^18 x 96; the 12
 * accumulators start from 0 in every block (known values, and zeroing
 * idioms cost no execution port). */
#define PROBE(I)                                                                            \
    do {                                                                                    \
        for (int rep = 0; rep < 5; rep++) {                                                 \
            double t0 = cpu_now();                                                          \
            for (long i = 0; i < (1L << 18); i++)                                           \
                __asm__ volatile(ZERO OP24(I) OP24(I) OP24(I) OP24(I)                       \
                                 : : [s0] "v"(s0), [s1] "v"(s1) : CLOBBERS);                \
            double r = 96.0 * (1L << 18) / (cpu_now() - t0);                                \
            best = r > best ? r : best;                                                     \
        }                                                                                   \
    } while (0)

double bench_probe_rate(bench_insn insn)
{
    double best = 0;
    /* small normal values: no denormal slow paths in the float forms */
    const __m512i s0 = _mm512_set1_epi32(0x3f803f80), s1 = s0;
    switch (insn) {
    case BENCH_INSN_VPDPBUSD:
        PROBE("vpdpbusd");
        break;
    case BENCH_INSN_VDPBF16PS:
        PROBE("vdpbf16ps");
        break;
    case BENCH_INSN_VFMADD231PS:
        PROBE("vfmadd231ps");
        break;
    }
    return best;
}
