/*
 * bench_kernels.c - times each distance micro-kernel (layers/kernels.h) on
 * every supported arch: one thread on a cache-resident tile, then the big
 * shape with T OpenMP threads splitting the samples into blocks of 256.
 * Prints CSV: arch,kernel,m,N,n,threads,seconds,gsyn_per_s,t_syn_ns,
 * cpu_seconds,gsyn_per_cpu_s,syn_per_cycle (t_syn = wall seconds / (n m N),
 * best of the repeats; the CPU-time columns show the per-core rate when
 * other jobs share the machine, and syn_per_cycle divides it by the clock
 * measured at start; peaks: 64 for l1_u8 (one vpsadbw zmm per cycle), 16
 * for l1_f32 (vminps + vaddps on 2 ports), 16/3 for l1_f64 (3 ops / 8 lanes)).
 *
 * Not part of make test. Build by hand after `make BUILD=build-kern tests`:
 *   gcc -O2 -fopenmp -I. -o build-kern/bench_kernels tests/bench_kernels.c \
 *       build-kern/libfsvc.a -lm
 * Usage: bench_kernels [m N n threads]   (default 4096 4096 784 2)
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layers/kernels.h"

static double clk(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now(void) { return clk(CLOCK_MONOTONIC); }
static double cpu(void) { return clk(CLOCK_PROCESS_CPUTIME_ID); }

/* Core clock seen by this thread (GHz of CPU time): a chain of dependent
 * imul (3-cycle latency; dependent immediate adds are no use, this core
 * folds them), best of 5. Divides the per-core rates into synapses/cycle
 * (only as good as the clock under AVX-512 load equals this one). */
static double probe_ghz(void)
{
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        long y = 3, iters = 100000000L;
        double c0 = clk(CLOCK_THREAD_CPUTIME_ID);
        for (long i = 0; i < iters; i += 4)
            __asm__ volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0" : "+r"(y));
        double g = 3.0 * (double)iters / (clk(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e-9;
        if (g > best) best = g;
    }
    return best;
}
static double ghz;

enum { K_F32, K_F64, K_U8, K_L2U8, K_COUNT };
static const char *kname[] = {"l1_f32", "l1_f64", "l1_u8", "l2sq_u8"};
static const char *aname[] = {"ref", "scalar", "avx2", "avx512", "avx512vnni", "avx512bf16", "avxvnni",
                              "onednn", "amx"};

typedef struct data {
    float *Wf, *Xf, *Df;
    double *Wd, *Xd, *Dd;
    uint8_t *Wu, *Xu;
    int32_t *Du;
} data;

/* One call of kernel kk on samples [i0, i0 + nb) of the shape. */
static void call(const bnl_kernels *k, int kk, const data *d, int64_t m, int64_t i0, int64_t nb, int n)
{
    switch (kk) {
    case K_F32: k->l1_f32(d->Df + i0 * m, m, d->Wf, m, d->Xf + i0 * n, nb, n); break;
    case K_F64: k->l1_f64(d->Dd + i0 * m, m, d->Wd, m, d->Xd + i0 * n, nb, n); break;
    case K_U8: k->l1_u8(d->Du + i0 * m, m, d->Wu, m, d->Xu + i0 * n, nb, n); break;
    default: k->l2sq_u8(d->Du + i0 * m, m, d->Wu, m, d->Xu + i0 * n, nb, n); break;
    }
}

/* Best seconds of one pass over (m, N, n), threads splitting the samples;
 * *cpu_best: the least process CPU seconds of a pass (all threads). */
static double timed(const bnl_kernels *k, int kk, const data *d, int64_t m, int64_t N, int n,
                    int threads, double budget, double *cpu_best)
{
    const int64_t nb = 256;
    double best = 1e30, spent = 0;
    *cpu_best = 1e30;
    for (int rep = 0; rep < 50 && (rep < (budget > 0 ? 3 : 1) || spent < budget); rep++) {
        double t0 = now(), c0 = cpu();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i0 = 0; i0 < N; i0 += nb)
            call(k, kk, d, m, i0, N - i0 < nb ? N - i0 : nb, n);
        double t = now() - t0, c = cpu() - c0;
        if (c < *cpu_best) *cpu_best = c;
        spent += t;
        if (t < best) best = t;
    }
    return best;
}

static void fill(data *d, int64_t m, int64_t N, int n)
{
    size_t wn = (size_t)(m * n), xn = (size_t)(N * n), dn = (size_t)(m * N);
    d->Wf = malloc(wn * 4); d->Xf = malloc(xn * 4); d->Df = malloc(dn * 4);
    d->Wd = malloc(wn * 8); d->Xd = malloc(xn * 8); d->Dd = malloc(dn * 8);
    d->Wu = malloc(wn); d->Xu = malloc(xn); d->Du = malloc(dn * 4);
    if (!d->Wf || !d->Xf || !d->Df || !d->Wd || !d->Xd || !d->Dd || !d->Wu || !d->Xu || !d->Du) {
        fprintf(stderr, "bench_kernels: out of memory\n");
        exit(1);
    }
    uint32_t s = 12345;
    for (size_t t = 0; t < wn; t++) {
        s = s * 1664525u + 1013904223u;
        d->Wu[t] = (uint8_t)(s >> 24);
        d->Wf[t] = (float)(s >> 8) * 0x1.0p-24f;
        d->Wd[t] = d->Wf[t];
    }
    for (size_t t = 0; t < xn; t++) {
        s = s * 1664525u + 1013904223u;
        d->Xu[t] = (uint8_t)(s >> 24);
        d->Xf[t] = (float)(s >> 8) * 0x1.0p-24f;
        d->Xd[t] = d->Xf[t];
    }
    memset(d->Df, 0, dn * 4); memset(d->Dd, 0, dn * 8); memset(d->Du, 0, dn * 4);
}

static void release(data *d)
{
    free(d->Wf); free(d->Xf); free(d->Df); free(d->Wd); free(d->Xd); free(d->Dd);
    free(d->Wu); free(d->Xu); free(d->Du);
}

static void row(int a, int kk, int64_t m, int64_t N, int n, int threads, double sec, double cs)
{
    double syn = (double)m * (double)N * n;
    printf("%s,%s,%lld,%lld,%d,%d,%.6f,%.2f,%.5f,%.6f,%.2f,%.1f\n", aname[a], kname[kk],
           (long long)m, (long long)N, n, threads, sec, syn / sec * 1e-9, sec / syn * 1e9, cs,
           syn / cs * 1e-9, syn / cs * 1e-9 / ghz);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *only = getenv("BENCH_ARCH"); /* e.g. avx512: that arch only */
    int64_t M = argc > 1 ? atoll(argv[1]) : 4096, NN = argc > 2 ? atoll(argv[2]) : 4096;
    int n = argc > 3 ? atoi(argv[3]) : 784, T = argc > 4 ? atoi(argv[4]) : 2;
    /* cache-resident tiles (W + X well inside the 2 MB L2), one thread */
    const int64_t tile_m[K_COUNT] = {128, 64, 256, 256}, tile_N[K_COUNT] = {256, 256, 256, 256};
    const int tile_n = 784;
    ghz = probe_ghz();
    printf("# core clock probe: %.2f GHz\n", ghz);
    printf("arch,kernel,m,N,n,threads,seconds,gsyn_per_s,t_syn_ns,cpu_seconds,gsyn_per_cpu_s,"
           "syn_per_cycle\n");
    data t, big;
    fill(&t, 256, 256, tile_n);
    fill(&big, M, NN, n);
    for (int a = BNL_ARCH_SCALAR; a < BNL_ARCH_COUNT; a++) {
        if (!bnl_arch_supported((bnl_arch)a)) continue;
        if (only && strcmp(only, aname[a]) != 0) continue;
        const bnl_kernels *k = bnl_kernels_get((bnl_arch)a);
        for (int kk = 0; kk < K_COUNT; kk++) {
            if (kk == K_L2U8 && n > BNL_L2SQ_U8_MAX_N) continue;
            double cs, sec = timed(k, kk, &t, tile_m[kk], tile_N[kk], tile_n, 1, 0.3, &cs);
            row(a, kk, tile_m[kk], tile_N[kk], tile_n, 1, sec, cs);
            /* the slow archs and f64 on the big shape once, the rest best of repeats */
            double budget = (a == BNL_ARCH_SCALAR || kk == K_F64) ? 0.0 : 1.0;
            sec = timed(k, kk, &big, M, NN, n, T, budget, &cs);
            row(a, kk, M, NN, n, T, sec, cs);
        }
    }
    release(&t);
    release(&big);
    return 0;
}
