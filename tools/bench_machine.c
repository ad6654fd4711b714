/* bench_machine.c - what `fsvc bench` and `fsvc info` say about the
 * machine: CPU model and features, clock, and the measured peak. */
#include "tools/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double bench_loadavg(void)
{
    double l = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1.0;
        fclose(f);
    }
    return l;
}

static void cpuinfo_field(const char *key, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[8192];
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, kl) && (line[kl] == ' ' || line[kl] == '\t' || line[kl] == ':')) {
            char *c = strchr(line, ':');
            if (!c)
                continue;
            c++;
            while (*c == ' ')
                c++;
            c[strcspn(c, "\n")] = '\0';
            snprintf(buf, len, "%s", c);
            break;
        }
    }
    fclose(f);
}

void bench_cpu_model(char *buf, size_t len)
{
    cpuinfo_field("model name", buf, len);
    if (!buf[0])
        snprintf(buf, len, "unknown CPU");
}

double bench_cpu_ghz(void)
{
    char b[64];
    cpuinfo_field("cpu MHz", b, sizeof b);
    double mhz = atof(b);
    return mhz > 100 ? mhz / 1000.0 : 2.0;
}

void bench_cpu_features(char *buf, size_t len)
{
    __builtin_cpu_init();
    snprintf(buf, len, "%s%s%s%s%s%s%s",
             __builtin_cpu_supports("avx2") ? "avx2 " : "",
             __builtin_cpu_supports("fma") ? "fma " : "",
             __builtin_cpu_supports("avx512f") ? "avx512f " : "",
             __builtin_cpu_supports("avx512bw") ? "avx512bw " : "",
             __builtin_cpu_supports("avx512vl") ? "avx512vl " : "",
             __builtin_cpu_supports("avx512vnni") ? "avx512vnni " : "",
             __builtin_cpu_supports("avx512bf16") ? "avx512bf16 " : "");
    char flags[8192];
    cpuinfo_field("flags", flags, sizeof flags);
    if (strstr(flags, " amx_tile") && strlen(buf) + 10 < len)
        strcat(buf, "amx ");
    size_t l = strlen(buf);
    if (l && buf[l - 1] == ' ')
        buf[l - 1] = '\0';
}

/* The tile kernel's instruction mix (cuda/perf_model.c): u8 4 synapses per 2
 * INT32 ops (VABSDIFF4 + IDP4A), f32 L1 1 synapse per 2 FP32 ops; cuBLAS
 * Sgemm 1 synapse per FMA lane cycle. */
double bench_gpu_peak(const bnlc_device *d, const bnl_op *op)
{
    double hz = d->clock_ghz * 1e9 * d->sms;
    if (op->dtype == FSVC_U8)
        return hz * (d->int32_per_sm > 0 ? d->int32_per_sm : d->fp32_per_sm) * 2.0;
    if (op->dtype == FSVC_F32)
        return hz * d->fp32_per_sm * (op->dist == BNL_L1 ? 0.5 : 1.0);
    return hz * d->fp64_per_sm * (op->dist == BNL_L1 ? 0.5 : 1.0); /* f64: as f32, FP64 lanes */
}

const char *bench_gpu_peak_model(void)
{
    return "GPU peak = SMs x clock x lanes/SM x synapses/lane/cycle: u8 INT32 lanes x 2 "
           "(VABSDIFF4 + IDP4A per 4 synapses), f32 L1 FP32 lanes x 0.5 (2 FADD a synapse), "
           "f32 L2/dot FP32 lanes x 1 (cuBLAS Sgemm, one FMA a synapse); f64 the same "
           "with FP64 lanes (L1 tile kernel x 0.5, Dgemm x 1)";
}

const char *bench_compiler_flags(void)
{
    return "gcc " __VERSION__ " -std=c11 -O2 -fopenmp (baseline x86-64); *_avx512.c: -mavx512f "
           "-mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma -mbmi2 (*_avx512bf16.c: and "
           "-mavx512bf16; *_amx.c: and -mavx512bf16 -mamx-tile -mamx-int8 -mamx-bf16); "
           "*_avx2.c: -mavx2 -mfma -mbmi2";
}

/* Measured once per mix and thread count: --paper asks for the same few
 * peaks on every row. */
double bench_probe_peak(const bnl_plan *plan, const bnl_op *op, const char **what)
{
    static struct { int mix, threads; double peak; } seen[32];
    static int nseen;
    int mix = bnl_plan_mix(plan, op), threads = plan->threads > 0 ? plan->threads : 1;
    *what = bnl_mix_name(mix);
    for (int i = 0; i < nseen; i++)
        if (seen[i].mix == mix && seen[i].threads == threads)
            return seen[i].peak;
    double peak = bnl_mix_peak(mix, threads);
    if (nseen < 32)
        seen[nseen].mix = mix, seen[nseen].threads = threads, seen[nseen++].peak = peak;
    return peak;
}
