/* bench.h - `fsvc bench` pieces: one measured configuration (bench_run.c),
 * the machine description (bench_machine.c), the paper's tables
 * (bench_paper.c). */
#ifndef FSVC_BENCH_H
#define FSVC_BENCH_H

#include "layers/bnl.h"

typedef enum { BENCH_RBF_L1 = 0, BENCH_RBF_L2 = 1, BENCH_MUL = 2 } bench_opk;

typedef struct bench_cfg {
    bench_opk opk;
    bnl_act act;          /* tri for rbf-l1; gauss (default) or tri for rbf-l2; tanh for mul */
    fsvc_dtype dtype;
    int64_t m, N;
    int n;
    const char *backend;  /* ref, cpu, cuda */
    int strict;           /* cuda: fail instead of falling back to the CPU */
    int threads;
    int repeats;
    int verbose;
    int64_t tile_m, tile_N;
    double ref_budget;    /* synapses the ref run may take (sub-sample N) */
    int no_ref, no_gemm, no_kernel_only;
    bnl_precision precision; /* f32 L2 / dot GEMM operands (full, tf32, bf16) */
    const char *arch;     /* a CPU tier to force (bnl_arch_names), NULL: cpuid's */
} bench_cfg;

typedef struct bench_res {
    double t_min, t_med;  /* seconds, forward pass (wall clock) */
    double cpu_min;       /* process CPU seconds of the fastest repeat */
    double t_syn_cpu;     /* ns, CPU time / threads / synapses: what t_syn
                             would be with the cores to itself (shared,
                             loaded machines); >= t_syn when uncontended */
    double load1;         /* 1-minute load average at the start */
    double t_syn;         /* ns, from t_min */
    double gsyn;          /* G synapses / s */
    double peak_frac;     /* wall-clock synapses/s / the measured peak (CPU:
                             bench_probe_peak; cuda: the device's model), 0 if none */
    double probe_peak;    /* synapses / s, measured (bench_probe_peak), 0 if none */
    double probe_frac;    /* the same per CPU second (other jobs cancel out) */
    const char *probe_what;
    double ref_t_syn;     /* ns, 0 when not measured */
    int64_t ref_m, ref_N; /* shape ref ran on */
    double speedup;       /* ref time scaled to the full shape / t_min */
    double gemm_min;      /* bare sgemm/dgemm, seconds (0 if not timed) */
    double gemm_cpu_min;  /* its process CPU seconds */
    double kern_min;      /* kernel-only pass over the same tiles (0 if not) */
    double kern1_min;     /* the same with one thread (verbose) */
    /* backend cuda (u8, f32): the device's own peak model and the
     * kernel-only time with W, X and H resident (CUDA events) */
    double gpu_peak;      /* synapses / s, 0 when the layer ran on the CPU */
    double gpu_kern_min;  /* seconds, 0 if not measured */
    double gpu_kern_syn;  /* ns, kernel-only t_syn */
    double gpu_kern_frac; /* kernel-only fraction of the device's peak */
    const char *gpu_model;
    bnl_plan plan;
    char backend_used[16];
    char arch[16];
} bench_res;

const char *bench_op_name(bench_opk k);
int bench_op_parse(const char *s, bench_opk *out);
bnl_op bench_make_op(const bench_cfg *c);

/* Process CPU seconds and the 1-minute load average. */
double bench_cpu_seconds(void);
double bench_loadavg(void);

/* Runs one configuration. */
int bench_run(bench_res *r, const bench_cfg *c, fsvc_error *err);

/* Machine: CPU model, features, peak synapses per second for a dtype. */
void bench_cpu_model(char *buf, size_t len);
void bench_cpu_features(char *buf, size_t len);
double bench_cpu_ghz(void);
/* The measured peak of the CPU kernel plan runs for op (layers/peak.c:
 * a register-only probe of its instruction mix on plan->threads threads
 * at once, measured once per mix and thread count in this process):
 * synapses/s, the mix's name in *what; 0 (and "none") when the kernel
 * has no probe (ref, scalar, an OpenBLAS core without FMA). */
double bench_probe_peak(const bnl_plan *plan, const bnl_op *op, const char **what);
/* Peak synapses/s of the GPU d for a layer the cuda backend runs (u8 on the
 * dp4a tile kernel, f32 L1 on the tile kernel, f32 L2 / dot through cuBLAS
 * Sgemm), from its own lanes and clock; the model in words. */
double bench_gpu_peak(const bnlc_device *d, const bnl_op *op);
const char *bench_gpu_peak_model(void);
const char *bench_compiler_flags(void);

/* --paper: the paper's configurations -> CSV + PNG. */
int bench_paper(const bench_cfg *base, const char *csv, const char *png,
                const char *command, fsvc_error *err);

/* --tiers (and --paper's "tiers" rows): the layer on every CPU tier this
 * machine runs, u8 on the integer tiers and f32 (full, bf16) on the float
 * paths, each against today's kernels of its dtype (FSVC_ARCH=avx512, or
 * avx2 without AVX-512: the first row of its dtype, rows[i].base). */
#define BENCH_TIERS_MAX 12
typedef struct bench_tier {
    const char *arch;
    fsvc_dtype dt;
    bnl_precision prec;
    int base;             /* index of its baseline row (itself for a baseline) */
    bench_res r;
} bench_tier;
/* Fills rows with the tiers this CPU runs; returns how many. */
int bench_tier_rows(bench_tier rows[BENCH_TIERS_MAX]);
/* Runs rows on base's shape and op (rbf-l2 / mul; rbf-l1 is the same
 * kernels on every tier above avx512), printing a line per row. */
int bench_tiers_run(const bench_cfg *base, bench_tier *rows, int nr, fsvc_error *err);

/* --targets: issue 3's five targets at m = N = 4096, n = 784 -> CSV. */
int bench_targets(const bench_cfg *base, const char *csv, const char *command,
                  fsvc_error *err);

#endif
