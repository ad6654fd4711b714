/* comm_mpi.c - the fsvc_comm of `mpirun -np K fsvc ...`, on the MPI plugin.
 *
 * MPI starts only when mpirun started the process (OMPI_COMM_WORLD_SIZE
 * or PMIX_RANK in the environment); otherwise this is one process, and
 * neither the plugin nor libmpi is loaded. The plugin (mpi_plugin.h) is
 * fsvc-mpi.so next to the executable, or in ../lib/fsvc from it (make
 * install), or FSVC_MPI_PLUGIN=PATH; it is loaded RTLD_GLOBAL because Open
 * MPI's own components, which it loads, look for libmpi's symbols there.
 * Under mpirun without a plugin that loads, fsvc stops with one line:
 * K processes each running the whole job would write the same outputs. */
#include "tools/comm.h"
#include "tools/cli.h"
#include "tools/mpi_plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_on;                   /* MPI started */
static fsvc_comm g_comm = { 0, 1, NULL, NULL, NULL, NULL, NULL };
static const cli_mpi_api *g_api;   /* the plugin's table, once loaded */
static char g_why[2 * PATH_MAX + 128]; /* why it did not load */

/* Loads path; NULL with why set. */
static const cli_mpi_api *load_one(const char *path, char *why, size_t cap)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        snprintf(why, cap, "%s", dlerror());
        return NULL;
    }
    const cli_mpi_api *(*entry)(void) = (const cli_mpi_api *(*)(void))dlsym(h, CLI_MPI_ENTRY);
    const cli_mpi_api *api = entry ? entry() : NULL;
    if (api && api->abi == CLI_MPI_ABI) return api;
    snprintf(why, cap, "%s: not an fsvc MPI plugin of this version", path);
    dlclose(h);
    return NULL;
}

/* The plugin's table, loading it on the first call; NULL with g_why set. */
static const cli_mpi_api *plugin(void)
{
    if (g_api || g_why[0]) return g_api;
    const char *env = getenv("FSVC_MPI_PLUGIN");
    if (env && *env) {
        g_api = load_one(env, g_why, sizeof g_why);
        return g_api;
    }
    char dir[PATH_MAX], p[2][PATH_MAX + 64];
    ssize_t k = readlink("/proc/self/exe", dir, sizeof dir - 1);
    dir[k > 0 ? k : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0; else snprintf(dir, sizeof dir, ".");
    snprintf(p[0], sizeof p[0], "%s/%s", dir, CLI_MPI_PLUGIN);
    snprintf(p[1], sizeof p[1], "%s/../lib/fsvc/%s", dir, CLI_MPI_PLUGIN);
    for (int i = 0; i < 2 && !g_api; i++) {
        if (access(p[i], F_OK) != 0) continue;
        g_api = load_one(p[i], g_why, sizeof g_why); /* the first one there tells */
        if (!g_api) return NULL;
    }
    if (!g_api)
        snprintf(g_why, sizeof g_why, "no %s next to %s/fsvc nor in %s/../lib/fsvc",
                 CLI_MPI_PLUGIN, dir, dir);
    return g_api;
}

int cli_comm_init(int *argc, char ***argv)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK"))
        return FSVC_OK; /* not under mpirun: one process, no MPI */
    const cli_mpi_api *api = plugin();
    if (!api) {
        fprintf(stderr, "fsvc: mpirun started this process, but MPI did not load: %s\n", g_why);
        return FSVC_ERESOURCE;
    }
    if (api->init(argc, argv, &g_comm.rank, &g_comm.size) != FSVC_OK) {
        fprintf(stderr, "fsvc: MPI_Init failed\n");
        return FSVC_ERESOURCE;
    }
    g_on = 1;
    g_comm.sum = api->sum;
    g_comm.bor = api->bor;
    g_comm.agree = api->agree;
    g_comm.allgather = api->allgather;
    if (g_comm.rank > 0) { /* one voice: rank 0 */
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            return FSVC_ERESOURCE;
    }
    return FSVC_OK;
}

const fsvc_comm *cli_comm(void)
{
    return g_on ? &g_comm : fsvc_comm_one();
}

int cli_comm_agree(int rc, fsvc_error *err)
{
    if (!g_on) return rc;
    int worst = g_api->agree(NULL, rc);
    if (worst && !rc) fsvc_fail(err, worst, FSVC_COMM_ELSEWHERE);
    return worst;
}

int cli_comm_end(int rc, const fsvc_error *err)
{
    if (!g_on) return rc ? cli_report(err) : FSVC_OK;
    /* the lowest rank with an error of its own tells it, through rank 0 */
    int own = rc && strcmp(err->msg, FSVC_COMM_ELSEWHERE) != 0;
    int first = g_api->min(own ? g_comm.rank : g_comm.size);
    int worst = g_api->agree(NULL, rc);
    if (!worst) return FSVC_OK;
    fsvc_error e = *err;
    if (first < g_comm.size) {
        g_api->bcast(&e, sizeof e, first);
    } else { /* only "another process failed": should not happen */
        fsvc_fail(&e, worst, "a process failed");
    }
    if (g_comm.rank == 0) {
        if (first > 0 && first < g_comm.size) {
            fsvc_error r = e;
            fsvc_fail(&r, e.code, "rank %d of %d: %s", first, g_comm.size, e.msg);
            return cli_report(&r);
        }
        return cli_report(&e);
    }
    return e.code ? e.code : worst;
}

void cli_comm_finalize(void)
{
    if (g_on) g_api->finalize();
    g_on = 0;
}

const char *cli_comm_library(void)
{
    static char v[sizeof g_why + 32];
    const cli_mpi_api *api = plugin();
    snprintf(v, sizeof v, "%s%s", api ? api->library() : "not available: ", api ? "" : g_why);
    return v;
}
