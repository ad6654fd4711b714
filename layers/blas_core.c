/* blas_core.c - OpenBLAS's core type on CPUs it does not know.
 *
 * A DYNAMIC_ARCH OpenBLAS picks its kernels once, when it is loaded, from
 * its own CPU table; on a CPU newer than the table (Debian's 0.3.21 on a
 * Xeon with AMX) it falls back to generic "Prescott" kernels, 3x slower for
 * fsvc's GEMMs. The engine fixes that in the process, on the first context
 * it opens: when the core OpenBLAS chose is weaker than the CPU's ISA, it
 * asks OpenBLAS to choose again with OPENBLAS_CORETYPE set to the core of
 * that ISA (gotoblas_dynamic_quit/init, exported by DYNAMIC_ARCH builds),
 * then checks a small sgemm and dgemm against a plain loop; a wrong result
 * puts OpenBLAS's own choice back. Being in the library, the CLI and a
 * Python process (whatever loaded OpenBLAS first) run the same kernels.
 * The choice is OpenBLAS's, process-wide: NumPy on the same libopenblas
 * gets it too. A user's OPENBLAS_CORETYPE, or FSVC_BLAS_CORE=keep, is
 * never overridden. Test hooks (the fix cannot be provoked on a CPU
 * OpenBLAS knows): FSVC_BLAS_CORE_PRETEND=NAME treats OpenBLAS's choice as
 * NAME, FSVC_BLAS_CORE_WANT=NAME replaces the target core,
 * FSVC_BLAS_CORE_FAILCHECK=1 fails the GEMM check. */
#include "bnl.h"

#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char status[256] = "OpenBLAS's choice for this CPU";
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* 3: AVX-512 kernels, 2: AVX2, 1: AVX, 0: older or unknown */
static int core_rank(const char *c)
{
    static const char *r3[] = {"SkylakeX", "CooperLake", "SapphireRapids", NULL};
    static const char *r2[] = {"Haswell", "Zen", "Excavator", NULL};
    static const char *r1[] = {"Sandybridge", "Bulldozer", "Piledriver", "Steamroller", NULL};
    const char **t[] = {r3, r2, r1};
    for (int k = 0; k < 3; k++)
        for (const char **p = t[k]; *p; p++)
            if (!strcasecmp(c, *p)) return 3 - k;
    return 0;
}

int bnl_blas_gemm_ok(void)
{
    enum { M = 67, N = 53, K = 71 };
    double *a = malloc(sizeof(double) * (M * K + K * N + 2 * M * N));
    float *af = malloc(sizeof(float) * (M * K + K * N + M * N));
    if (!a || !af) { free(a); free(af); return 0; }
    double *b = a + M * K, *c = b + K * N, *r = c + M * N;
    float *bf = af + M * K, *cf = bf + K * N;
    uint32_t s = 12345;
    for (int q = 0; q < M * K + K * N; q++) {
        s = s * 1664525u + 1013904223u;
        a[q] = af[q] = (float)((s >> 8) % 2001) / 1000 - 1;
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double t = 0;
            for (int k = 0; k < K; k++) t += a[i * K + k] * b[k * N + j];
            r[i * N + j] = t;
        }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, a, K, b, N, 0.0, c, N);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, af, K, bf, N, 0.0f, cf, N);
    int ok = 1;
    for (int q = 0; q < M * N; q++)
        if (!(fabs(c[q] - r[q]) <= 1e-12 * K) || !(fabs(cf[q] - r[q]) <= 1e-4 * K)) ok = 0;
    free(a); free(af);
    return ok;
}

/* OpenBLAS chooses again, reading OPENBLAS_CORETYPE=core (NULL: its own
 * detection); 0 when the entry points exist. setenv is brief and happens
 * once, on the first context, before the engine runs any thread. */
static int rechoose(const char *core)
{
    void (*quit)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit");
    void (*init)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init");
    if (!quit || !init) return -1;
    if (core) setenv("OPENBLAS_CORETYPE", core, 1);
    quit();
    init();
    if (core) unsetenv("OPENBLAS_CORETYPE");
    return 0;
}

static void fix(void)
{
    const char *keep = getenv("FSVC_BLAS_CORE");
    if (keep && !strcmp(keep, "keep")) {
        snprintf(status, sizeof status, "OpenBLAS's choice (FSVC_BLAS_CORE=keep)");
        return;
    }
    if (getenv("OPENBLAS_CORETYPE")) {
        snprintf(status, sizeof status, "OPENBLAS_CORETYPE=%s from the environment, respected",
                 getenv("OPENBLAS_CORETYPE"));
        return;
    }
    char chose[64];
    snprintf(chose, sizeof chose, "%s", openblas_get_corename());
    const char *pretend = getenv("FSVC_BLAS_CORE_PRETEND");
    const char *core = pretend && *pretend ? pretend : chose;
    const char *want = bnl_arch_supported(BNL_ARCH_AVX512) ? "SkylakeX"
                     : bnl_arch_supported(BNL_ARCH_AVX2) ? "Haswell" : NULL;
    const char *w2 = getenv("FSVC_BLAS_CORE_WANT");
    if (want && w2 && *w2) want = w2;
    if (!want || !(core_rank(core) < core_rank(want))) return;
    if (!strstr(openblas_get_config(), "DYNAMIC_ARCH") || rechoose(want) != 0) {
        snprintf(status, sizeof status, "OpenBLAS's choice (%s is weaker than this CPU, but "
                 "this OpenBLAS has one core compiled in)", core);
        return;
    }
    const char *fc = getenv("FSVC_BLAS_CORE_FAILCHECK");
    if (bnl_blas_gemm_ok() && !(fc && *fc == '1')) {
        snprintf(status, sizeof status, "set by fsvc: OpenBLAS chose %s on this CPU; "
                 "GEMM check passed", core);
        return;
    }
    rechoose(NULL);
    snprintf(status, sizeof status, "OpenBLAS's choice: fsvc tried %s, whose GEMM check "
             "failed", want);
}

void bnl_blas_core_fix(void) { pthread_once(&once, fix); }

const char *bnl_blas_core_status(void)
{
    bnl_blas_core_fix();
    return status;
}

const char *bnl_blas_core_name(void) { return openblas_get_corename(); }
