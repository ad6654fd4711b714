/* load.c - the CUDA table of this process (bnl_cuda_table,
 * layers/bnl_backend_ops.h). Built with nvcc, the backend is the plugin
 * fsvc-cuda.so (cuda/plugin.h), loaded by the first call, once per
 * process: FSVC_CUDA_PLUGIN=PATH, else the one next to the file holding
 * this code (the fsvc executable, libfsvc.so, a test), else the one in
 * ../lib/fsvc from there (make install). One that is not there, does not
 * load or belongs to another build: the none table, whose open fails with
 * one line saying what was tried. Built without nvcc: the none table
 * ("not compiled in"). */
#include "bnl_cuda.h"
#include "plugin.h"

#ifndef FSVC_HAVE_CUDA

const bnl_backend_ops *bnl_cuda_table(void) { return &bnlc_none_ops; }

#else

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const bnl_backend_ops *g_table = &bnlc_none_ops;

/* The plugin's table from path (named as label in messages), or NULL with
 * why set. */
static const bnl_backend_ops *load_one(const char *path, const char *label, char *why,
                                       size_t cap)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        size_t l = strlen(path); /* "PATH: cannot open ...": the path once is enough */
        if (e && strncmp(e, path, l) == 0 && strncmp(e + l, ": ", 2) == 0)
            e += l + 2;
        snprintf(why, cap, "cuda: cannot load %s: %s", label, e ? e : "?");
        return NULL;
    }
    const bnl_cuda_plugin *(*entry)(void) =
        (const bnl_cuda_plugin *(*)(void))dlsym(h, BNL_CUDA_ENTRY);
    const bnl_cuda_plugin *p = entry ? entry() : NULL;
    if (p && p->abi == BNL_CUDA_PLUGIN_ABI && p->ops_size == sizeof(bnl_backend_ops) &&
        p->ctx_size == sizeof(bnl_ctx) && p->op_size == sizeof(bnl_op) &&
        p->err_size == sizeof(fsvc_error) && p->ops)
        return p->ops; /* kept loaded to the end of the process */
    if (!p)
        snprintf(why, cap, "cuda: %s is not an fsvc CUDA plugin (no %s)", label, BNL_CUDA_ENTRY);
    else if (p->abi != BNL_CUDA_PLUGIN_ABI)
        snprintf(why, cap, "cuda: %s is an fsvc CUDA plugin of another build (ABI %d, this "
                 "fsvc needs %d)", label, p->abi, BNL_CUDA_PLUGIN_ABI);
    else
        snprintf(why, cap, "cuda: %s is an fsvc CUDA plugin of another build (its tables "
                 "differ from this fsvc's)", label);
    dlclose(h);
    return NULL;
}

/* The file holding this code: the executable (whose link map has no name)
 * or the shared library; 0, or -1 when unknown. */
static int self_path(char *path, size_t cap)
{
    Dl_info info;
    struct link_map *lm = NULL;
    char buf[PATH_MAX];
    if (dladdr1((void *)bnl_cuda_table, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm &&
        lm->l_name && lm->l_name[0]) {
        snprintf(path, cap, "%s", realpath(lm->l_name, buf) ? buf : lm->l_name);
        return 0;
    }
    ssize_t k = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (k <= 0)
        return -1;
    buf[k] = 0;
    snprintf(path, cap, "%s", buf);
    return 0;
}

static void load(void)
{
    char why[3 * PATH_MAX];
    const bnl_backend_ops *t = NULL;
    const char *env = getenv("FSVC_CUDA_PLUGIN");
    if (env && *env) {
        char label[PATH_MAX + 32];
        snprintf(label, sizeof label, "FSVC_CUDA_PLUGIN=%s", env);
        t = load_one(env, label, why, sizeof why);
    } else {
        char self[PATH_MAX], p[2][PATH_MAX + 64];
        if (self_path(self, sizeof self) != 0)
            snprintf(self, sizeof self, "./fsvc");
        char *slash = strrchr(self, '/');
        int dl = slash ? (int)(slash - self) : 1;
        snprintf(p[0], sizeof p[0], "%.*s/%s", dl, slash ? self : ".", BNL_CUDA_PLUGIN);
        snprintf(p[1], sizeof p[1], "%.*s/../lib/fsvc/%s", dl, slash ? self : ".",
                 BNL_CUDA_PLUGIN);
        int there = 0;
        for (int i = 0; i < 2 && !there; i++) {
            there = access(p[i], F_OK) == 0; /* the first one there tells */
            if (there)
                t = load_one(p[i], p[i], why, sizeof why);
        }
        if (!there)
            snprintf(why, sizeof why, "cuda: no %s next to %s nor in %.*s/../lib/fsvc "
                     "(FSVC_CUDA_PLUGIN=PATH names one)", BNL_CUDA_PLUGIN, self, dl,
                     slash ? self : ".");
    }
    if (t)
        g_table = t;
    else
        bnlc_none_set_why(why);
}

const bnl_backend_ops *bnl_cuda_table(void)
{
    pthread_once(&g_once, load);
    return g_table;
}

#endif
