/* wait_env.c - how idle threads wait, chosen before the libraries start.
 *
 * libgomp and OpenBLAS read their wait settings once, in the constructors
 * that run when they are loaded. By default an idle OpenMP thread spins
 * 300000 pauses before it sleeps, and an idle OpenBLAS worker spins
 * (sched_yield) 2^28 cycles, about 0.1 s, after it starts and after each
 * threaded call. On a machine with few cores these spinners hold the cores
 * that the other pool's threads wait for: `fsvc train -v 5` on iris took
 * 0.1 s in about 40 % of the runs instead of 0.01 s, and with other work
 * on the machine phoneme's `-v 5` took 2.4 s instead of 0.95 s.
 *
 * Their constructors run before main, after libc's (which sets the
 * environment up, so an earlier setenv would be lost), and they ask getenv.
 * So the fsvc executable defines getenv: until main starts it answers
 * OMP_WAIT_POLICY=passive and OPENBLAS_THREAD_TIMEOUT=20 (2^20 cycles, a
 * fraction of a millisecond) when the environment has no value of its own
 * (nor GOMP_SPINCOUNT, for the first); otherwise, and from main on, it is
 * the plain lookup. The environment itself is never changed: the programs
 * fsvc starts (gnuplot) see the user's. */
#include "tools/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* OpenBLAS's reading of OPENBLAS_THREAD_TIMEOUT (exported, not in its headers) */
unsigned int openblas_thread_timeout(void);

#define WAIT_POLICY "passive"
#define BLAS_TIMEOUT "20" /* log2 of the cycles an idle OpenBLAS worker spins */

static int g_main;                    /* 1 once main has started */
static int g_gave_policy, g_gave_timeout; /* 1: the libraries got fsvc's value */

static char *lookup(const char *name)
{
    size_t k = strlen(name);
    if (!k) return NULL;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, name, k) && (*e)[k] == '=') return *e + k + 1;
    return NULL;
}

char *getenv(const char *name)
{
    char *v = lookup(name);
    if (v || g_main) return v;
    if (!strcmp(name, "OMP_WAIT_POLICY") && !lookup("GOMP_SPINCOUNT")) {
        g_gave_policy = 1;
        return (char *)WAIT_POLICY;
    }
    if (!strcmp(name, "OPENBLAS_THREAD_TIMEOUT")) {
        g_gave_timeout = 1;
        return (char *)BLAS_TIMEOUT;
    }
    return NULL;
}

void cli_wait_env_main(void) { g_main = 1; }

void cli_wait_env_describe(char *s, size_t cap)
{
    const char *pol = lookup("OMP_WAIT_POLICY"), *spin = lookup("GOMP_SPINCOUNT");
    int t = (int)openblas_thread_timeout(); /* 0: unset; OpenBLAS clamps to 4..30 */
    char omp[96];
    if (g_gave_policy)
        snprintf(omp, sizeof omp, "OpenMP %s (set by fsvc)", WAIT_POLICY);
    else if (pol)
        snprintf(omp, sizeof omp, "OpenMP OMP_WAIT_POLICY=%.40s (from the environment)", pol);
    else if (spin)
        snprintf(omp, sizeof omp, "OpenMP GOMP_SPINCOUNT=%.40s (from the environment)", spin);
    else
        snprintf(omp, sizeof omp, "OpenMP's default");
    if (t > 0)
        snprintf(s, cap, "%s, OpenBLAS workers spin 2^%d cycles (%s)", omp,
                 t < 4 ? 4 : t > 30 ? 30 : t,
                 g_gave_timeout ? "set by fsvc" : "from the environment");
    else
        snprintf(s, cap, "%s, OpenBLAS workers spin its default 2^28 cycles", omp);
}
