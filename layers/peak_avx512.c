/*
 * peak_avx512.c - the 512-bit probes of peak_impl.h. Each asm block zeroes
 * 16 accumulators (zmm0-15, VEX zeroing idioms: no execution port) and runs
 * 96 units of its mix on them, temporaries in zmm16/zmm17 (renamed, so
 * they add no dependence), sources in registers the compiler picks: 16
 * independent chains hide the latency of every mix here (a vdpbf16ps chain
 * needs about 12 at 2 per cycle), so the rate is the issue rate. Built
 * with the AVX-512 flags (the Makefile's _avx512 rule).
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

#define Z(r) "%%zmm" #r
/* one unit on accumulator A with temporary T */
#define SAD(A, T)    "vpsadbw %[b], %[a], " Z(T) "\n\tvpaddq " Z(T) ", " Z(A) ", " Z(A) "\n\t"
#define MINADD(A, T) "vminps %[b], %[a], " Z(T) "\n\tvaddps " Z(T) ", " Z(A) ", " Z(A) "\n\t"
#define ABSADD(A, T) "vsubpd %[b], %[a], " Z(T) "\n\tvandpd %[c], " Z(T) ", " Z(T) "\n\t"       \
                     "vaddpd " Z(T) ", " Z(A) ", " Z(A) "\n\t"
#define FMAPS(A, T)  "vfmadd231ps %[b], %[a], " Z(A) "\n\t"
#define FMAPD(A, T)  "vfmadd231pd %[b], %[a], " Z(A) "\n\t"
#define DPBUSD(A, T) "vpdpbusd %[b], %[a], " Z(A) "\n\t"
#define DPBF16(A, T) "vdpbf16ps %[b], %[a], " Z(A) "\n\t"

#define R16(U) U(0, 16) U(1, 17) U(2, 16) U(3, 17) U(4, 16) U(5, 17) U(6, 16) U(7, 17)      \
               U(8, 16) U(9, 17) U(10, 16) U(11, 17) U(12, 16) U(13, 17) U(14, 16) U(15, 17)
#define X0(r) "vpxor %%xmm" #r ", %%xmm" #r ", %%xmm" #r "\n\t"
#define ZERO16 X0(0) X0(1) X0(2) X0(3) X0(4) X0(5) X0(6) X0(7) X0(8) X0(9) X0(10) X0(11)     \
               X0(12) X0(13) X0(14) X0(15)
#define UNITS 96 /* R16 six times */
#define CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",     \
                 "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17"

/* Units per CPU second, best of 15 rounds of 2^16 blocks (short rounds:
 * the best one misses interruptions a guest's CPU clock still counts,
 * e.g. steal time). Sources: small
 * normal floats (f32 1.0039, f64 0.0078; bf16 pairs of 1.0), so no
 * denormal slow path; c: the f64 abs mask. */
#define PROBE(U)                                                                            \
    do {                                                                                    \
        for (int rep = 0; rep < 15; rep++) {                                                \
            double t0 = thread_cpu();                                                       \
            for (long i = 0; i < (1L << 16); i++)                                           \
                __asm__ volatile(ZERO16 R16(U) R16(U) R16(U) R16(U) R16(U) R16(U)           \
                                 : : [a] "v"(a), [b] "v"(b), [c] "v"(c) : CLOBBERS);        \
            double r = (double)UNITS * (1L << 16) / (thread_cpu() - t0);                    \
            best = r > best ? r : best;                                                     \
        }                                                                                   \
    } while (0)

double bnl_probe_avx512(int mix)
{
    double best = 0;
    const __m512i a = _mm512_set1_epi32(0x3f803f80), b = a;
    const __m512i c = _mm512_set1_epi64(0x7fffffffffffffffLL);
    switch (mix) {
    case BNL_MIX_SAD_Z: PROBE(SAD); break;
    case BNL_MIX_MINADD_Z: PROBE(MINADD); break;
    case BNL_MIX_ABSADD_Z: PROBE(ABSADD); break;
    case BNL_MIX_FMAPS_Z: PROBE(FMAPS); break;
    case BNL_MIX_FMAPD_Z: PROBE(FMAPD); break;
    case BNL_MIX_DPBUSD_Z: PROBE(DPBUSD); break;
    case BNL_MIX_DPBF16_Z: PROBE(DPBF16); break;
    default: break;
    }
    return best;
}
