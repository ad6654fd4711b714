/* blas_core.c - OpenBLAS's core type on CPUs it does not know (issue 11).
 *
 * A DYNAMIC_ARCH OpenBLAS picks its kernels once, when the library is
 * loaded, from its own CPU table; on a CPU newer than the table (Debian's
 * 0.3.21 on a Xeon with AMX) it falls back to generic "Prescott" kernels,
 * 3x slower for fsvc's GEMMs. It reads OPENBLAS_CORETYPE at that moment,
 * so the fix has to come before the process starts: when the core
 * OpenBLAS chose is weaker than the CPU's ISA (cpuid, bnl_arch_supported),
 * fsvc sets OPENBLAS_CORETYPE to the core of that ISA (SkylakeX for
 * AVX-512, Haswell for AVX2 + FMA) and re-executes itself once
 * (/proc/self/exe, same arguments). The new process checks a small sgemm
 * and dgemm against a plain loop before it trusts the core; a wrong
 * result re-executes once more without the variable (OpenBLAS's own
 * choice again). A user's OPENBLAS_CORETYPE is never touched.
 * FSVC_BLAS_CORE carries the state to the new process. Test hooks (the
 * fix cannot be provoked otherwise on a CPU OpenBLAS knows):
 * FSVC_BLAS_CORE_PRETEND=NAME treats OpenBLAS's choice as NAME, and
 * FSVC_BLAS_CORE_WANT=NAME replaces the target core (so a test sees the
 * variable take effect at load time), FSVC_BLAS_CORE_FAILCHECK=1 fails the
 * GEMM check. */

#include "tools/cli.h"
#include "layers/bnl.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static char status[256] = "OpenBLAS's choice for this CPU";

/* 3: AVX-512 kernels, 2: AVX2, 1: AVX, 0: older or unknown */
static int core_rank(const char *c)
{
    static const char *r3[] = {"SkylakeX", "CooperLake", "SapphireRapids", NULL};
    static const char *r2[] = {"Haswell", "Zen", "Excavator", "SkylakeX", NULL};
    static const char *r1[] = {"Sandybridge", "Bulldozer", "Piledriver", "Steamroller", NULL};
    const char **t[] = {r3, r2, r1};
    for (int k = 0; k < 3; k++)
        for (const char **p = t[k]; *p; p++)
            if (!strcasecmp(c, *p)) return 3 - k;
    return 0;
}

/* sgemm and dgemm of odd sizes against a plain loop in double */
int cli_blas_gemm_ok(void)
{
    enum { M = 67, N = 53, K = 71 };
    static double a[M * K], b[K * N], c[M * N], r[M * N];
    static float af[M * K], bf[K * N], cf[M * N];
    uint32_t s = 12345;
    for (int q = 0; q < M * K; q++) { s = s * 1664525u + 1013904223u; a[q] = af[q] = (float)((s >> 8) % 2001) / 1000 - 1; }
    for (int q = 0; q < K * N; q++) { s = s * 1664525u + 1013904223u; b[q] = bf[q] = (float)((s >> 8) % 2001) / 1000 - 1; }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double t = 0;
            for (int k = 0; k < K; k++) t += a[i * K + k] * b[k * N + j];
            r[i * N + j] = t;
        }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, a, K, b, N, 0.0, c, N);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, af, K, bf, N, 0.0f, cf, N);
    for (int q = 0; q < M * N; q++)
        if (!(fabs(c[q] - r[q]) <= 1e-12 * K) || !(fabs(cf[q] - r[q]) <= 1e-4 * K)) return 0;
    return 1;
}

static void reexec(char **argv)
{
    execv("/proc/self/exe", argv);
    /* no exec: go on with the core OpenBLAS has */
}

void cli_blas_core_fix(char **argv)
{
    const char *mark = getenv("FSVC_BLAS_CORE");
    const char *core = openblas_get_corename();
    if (mark && !strncmp(mark, "fixed:", 6)) { /* the re-executed process */
        char was[64];
        snprintf(was, sizeof was, "%s", mark + 6);
        const char *fc = getenv("FSVC_BLAS_CORE_FAILCHECK");
        if (cli_blas_gemm_ok() && !(fc && *fc == '1')) {
            snprintf(status, sizeof status, "set by fsvc (OPENBLAS_CORETYPE): OpenBLAS chose %s "
                     "on this CPU; GEMM check passed", was);
            unsetenv("FSVC_BLAS_CORE");
            return;
        }
        char m2[128];
        snprintf(m2, sizeof m2, "rejected:%s:%s", core, was);
        setenv("FSVC_BLAS_CORE", m2, 1);
        unsetenv("OPENBLAS_CORETYPE");
        reexec(argv);
        return;
    }
    if (mark && !strncmp(mark, "rejected:", 9)) {
        char tried[64];
        const char *c = strchr(mark + 9, ':');
        snprintf(tried, sizeof tried, "%.*s", c ? (int)(c - mark - 9) : 63, mark + 9);
        snprintf(status, sizeof status, "OpenBLAS's choice: fsvc tried %s, whose GEMM check "
                 "failed", tried);
        unsetenv("FSVC_BLAS_CORE");
        return;
    }
    if (getenv("OPENBLAS_CORETYPE")) {
        snprintf(status, sizeof status, "OPENBLAS_CORETYPE=%s from the environment, respected",
                 getenv("OPENBLAS_CORETYPE"));
        return;
    }
    const char *pretend = getenv("FSVC_BLAS_CORE_PRETEND");
    if (pretend && *pretend) core = pretend;
    const char *want = bnl_arch_supported(BNL_ARCH_AVX512) ? "SkylakeX"
                     : bnl_arch_supported(BNL_ARCH_AVX2) ? "Haswell" : NULL;
    const char *w2 = getenv("FSVC_BLAS_CORE_WANT");
    if (want && w2 && *w2) want = w2;
    if (!want || !core || !(core_rank(core) < core_rank(want))) return;
    if (!strstr(openblas_get_config(), "DYNAMIC_ARCH")) {
        snprintf(status, sizeof status, "OpenBLAS's choice (%s is weaker than this CPU, but "
                 "this OpenBLAS has one core compiled in)", core);
        return;
    }
    char m[96];
    snprintf(m, sizeof m, "fixed:%s", core);
    setenv("OPENBLAS_CORETYPE", want, 1);
    setenv("FSVC_BLAS_CORE", m, 1);
    reexec(argv);
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv("FSVC_BLAS_CORE");
    snprintf(status, sizeof status, "OpenBLAS's choice (%s is weaker than this CPU; re-executing "
             "with OPENBLAS_CORETYPE=%s failed)", core, want);
}

const char *cli_blas_core_status(void) { return status; }
