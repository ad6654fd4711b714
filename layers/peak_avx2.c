/*
 * peak_avx2.c - the 256-bit probes of peak_impl.h, as peak_avx512.c with
 * the 16 ymm registers: 11 accumulators (ymm0-10; enough for an FMA at 2
 * per cycle and latency 4-5), temporaries ymm11/ymm12, the three sources
 * in ymm13-15, 88 units a block. Built with the AVX2 flags (_avx2 rule);
 * {vex} vpdpbusd is the AVX-VNNI form, run only where cpuid has it.
 */
#include "peak_impl.h"

#include <immintrin.h>
#include <time.h>

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define Y(r) "%%ymm" #r
#define SAD(A, T)    "vpsadbw %[b], %[a], " Y(T) "\n\tvpaddq " Y(T) ", " Y(A) ", " Y(A) "\n\t"
#define MINADD(A, T) "vminps %[b], %[a], " Y(T) "\n\tvaddps " Y(T) ", " Y(A) ", " Y(A) "\n\t"
#define ABSADD(A, T) "vsubpd %[b], %[a], " Y(T) "\n\tvandpd %[c], " Y(T) ", " Y(T) "\n\t"       \
                     "vaddpd " Y(T) ", " Y(A) ", " Y(A) "\n\t"
#define FMAPS(A, T)  "vfmadd231ps %[b], %[a], " Y(A) "\n\t"
#define FMAPD(A, T)  "vfmadd231pd %[b], %[a], " Y(A) "\n\t"
/* 16 u8 synapses: one vpmaddwd of widened pairs and its add (the avx2
 * kernel widens outside its loop) */
#define MADDWD(A, T) "vpmaddwd %[b], %[a], " Y(T) "\n\tvpaddd " Y(T) ", " Y(A) ", " Y(A) "\n\t"
#define DPBUSD(A, T) "%{vex%} vpdpbusd %[b], %[a], " Y(A) "\n\t"

#define R11(U) U(0, 11) U(1, 12) U(2, 11) U(3, 12) U(4, 11) U(5, 12) U(6, 11) U(7, 12)      \
               U(8, 11) U(9, 12) U(10, 11)
#define X0(r) "vpxor %%xmm" #r ", %%xmm" #r ", %%xmm" #r "\n\t"
#define ZERO11 X0(0) X0(1) X0(2) X0(3) X0(4) X0(5) X0(6) X0(7) X0(8) X0(9) X0(10)
#define UNITS 88 /* R11 eight times */
#define CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",     \
                 "xmm9", "xmm10", "xmm11", "xmm12"

#define PROBE(U)                                                                            \
    do {                                                                                    \
        for (int rep = 0; rep < 15; rep++) {                                                \
            double t0 = thread_cpu();                                                       \
            for (long i = 0; i < (1L << 16); i++)                                           \
                __asm__ volatile(ZERO11 R11(U) R11(U) R11(U) R11(U) R11(U) R11(U) R11(U)    \
                                 R11(U) : : [a] "x"(a), [b] "x"(b), [c] "x"(c) : CLOBBERS); \
            double r = (double)UNITS * (1L << 16) / (thread_cpu() - t0);                    \
            best = r > best ? r : best;                                                     \
        }                                                                                   \
        __asm__ volatile("vzeroupper" ::: "memory");                                        \
    } while (0)

double bnl_probe_avx2(int mix)
{
    double best = 0;
    const __m256i a = _mm256_set1_epi32(0x3f803f80), b = a;
    const __m256i c = _mm256_set1_epi64x(0x7fffffffffffffffLL);
    switch (mix) {
    case BNL_MIX_SAD_Y: PROBE(SAD); break;
    case BNL_MIX_MINADD_Y: PROBE(MINADD); break;
    case BNL_MIX_ABSADD_Y: PROBE(ABSADD); break;
    case BNL_MIX_FMAPS_Y: PROBE(FMAPS); break;
    case BNL_MIX_FMAPD_Y: PROBE(FMAPD); break;
    case BNL_MIX_MADDWD_Y: PROBE(MADDWD); break;
    case BNL_MIX_DPBUSD_Y: PROBE(DPBUSD); break;
    default: break;
    }
    return best;
}
