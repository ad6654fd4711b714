/*
 * dnnl_load.c - loads oneDNN on first use and fills the table of
 * dnnl_api.h (why: dnnl_load.h). The library stays loaded to the end of
 * the process, like a linked one.
 */
#include "dnnl_load.h"
#include "bnl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef FSVC_HAVE_DNNL

#define BNL_DNNL_LOADER
#include "dnnl_api.h"

#include <dlfcn.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#define DNNL_SONAME "libdnnl.so." STR(DNNL_VERSION_MAJOR)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char status[512] = "not loaded yet";

/* The entry of dnnl_engine_create until the library is loaded. */
static dnnl_status_t lazy_engine_create(dnnl_engine_t *e, dnnl_engine_kind_t kind, size_t i)
{
    if (!bnl_dnnl_load()) {
        *e = NULL;
        return dnnl_runtime_error;
    }
    return bnl_dnnl_fn.dnnl_engine_create(e, kind, i);
}

bnl_dnnl_api bnl_dnnl_fn = {.dnnl_engine_create = lazy_engine_create};

static void load(void)
{
    const char *name = getenv("FSVC_DNNL_LIB");
    if (!name || !*name)
        name = DNNL_SONAME;
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    bnl_dnnl_api t = {0};
    const char *missing = NULL;
    if (h) {
#define BNL_DNNL_SYM(f) \
    if (!(*(void **)&t.f = dlsym(h, #f)) && !missing) missing = #f;
        BNL_DNNL_FUNCS(BNL_DNNL_SYM)
#undef BNL_DNNL_SYM
    }
    const dnnl_version_t *v = h && !missing ? t.dnnl_version() : NULL;
    if (!h)
        snprintf(status, sizeof status, "cannot load %s (%s)", name, dlerror());
    else if (missing)
        snprintf(status, sizeof status, "%s has no %s", name, missing);
    else if (!v || v->major != DNNL_VERSION_MAJOR)
        snprintf(status, sizeof status, "%s is oneDNN v%d, fsvc was built for v%d", name,
                 v ? v->major : -1, DNNL_VERSION_MAJOR);
    else {
        snprintf(status, sizeof status, "%s (oneDNN v%d.%d.%d)", name, v->major, v->minor,
                 v->patch);
        bnl_dnnl_fn = t;
        loaded = 1;
        return;
    }
    if (h)
        dlclose(h);
    fsvc_printf("onednn: %s; its products run on the avx512bf16 tier\n", status);
}

int bnl_dnnl_load(void)
{
    pthread_once(&once, load);
    return loaded;
}

const char *bnl_dnnl_load_status(void)
{
    return status;
}

#else /* built without oneDNN */

int bnl_dnnl_load(void) { return 0; }
const char *bnl_dnnl_load_status(void) { return "not compiled in"; }

#endif
