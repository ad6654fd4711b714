/* study_grid.c - study grids: cartesian products of setting values, each
 * point applied through the settings model (fsvc/params.c). */
#include "study.h"
#include "../layers/bnl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fsvc_grid_add(fsvc_grid *g, const char *spec, fsvc_error *err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec)
        return fsvc_fail(err, FSVC_EUSAGE, "--vary '%s': expected NAME=V1,V2,...", spec);
    if (g->naxes >= FSVC_GRID_MAX_AXES)
        return fsvc_fail(err, FSVC_EUSAGE, "--vary: at most %d axes", FSVC_GRID_MAX_AXES);
    fsvc_grid_axis *a = &g->axis[g->naxes];
    memset(a, 0, sizeof *a);
    size_t nl = (size_t)(eq - spec);
    if (nl >= sizeof a->name)
        return fsvc_fail(err, FSVC_EUSAGE, "--vary '%s': name too long", spec);
    memcpy(a->name, spec, nl);
    for (int k = 0; k < g->naxes; k++)
        if (!strcmp(g->axis[k].name, a->name))
            return fsvc_fail(err, FSVC_EUSAGE, "--vary: '%s' given twice", a->name);
    const char *s = eq + 1;
    if (!*s)
        return fsvc_fail(err, FSVC_EUSAGE, "--vary '%s': no values", spec);
    fsvc_param scratch;
    fsvc_param_default(&scratch);
    for (;;) {
        const char *c = strchr(s, ',');
        size_t l = c ? (size_t)(c - s) : strlen(s);
        if (l == 0)
            return fsvc_fail(err, FSVC_EUSAGE, "--vary '%s': empty value", spec);
        if (a->nval >= FSVC_GRID_MAX_VALUES)
            return fsvc_fail(err, FSVC_EUSAGE, "--vary '%s': at most %d values", spec,
                             FSVC_GRID_MAX_VALUES);
        if (l >= sizeof a->val[0])
            return fsvc_fail(err, FSVC_EUSAGE, "--vary '%s': value too long", spec);
        memcpy(a->val[a->nval], s, l);
        a->val[a->nval][l] = 0;
        for (int k = 0; k < a->nval; k++)
            if (!strcmp(a->val[k], a->val[a->nval]))
                return fsvc_fail(err, FSVC_EUSAGE, "--vary '%s': value '%s' given twice",
                                 spec, a->val[k]);
        int rc = fsvc_param_set(&scratch, a->name, a->val[a->nval], err);
        if (rc) return rc;
        a->nval++;
        if (!c) break;
        s = c + 1;
    }
    g->naxes++;
    return FSVC_OK;
}

int64_t fsvc_grid_size(const fsvc_grid *g)
{
    int64_t n = 1;
    for (int k = 0; k < g->naxes; k++) n *= g->axis[k].nval;
    return n;
}

int fsvc_grid_point(fsvc_param *p, char *key, size_t keylen,
                    const fsvc_grid *g, int64_t k, fsvc_error *err)
{
    if (k < 0 || k >= fsvc_grid_size(g))
        return fsvc_fail(err, FSVC_EUSAGE, "grid: no point %lld", (long long)k);
    int vi[FSVC_GRID_MAX_AXES];
    for (int a = g->naxes - 1; a >= 0; a--) {
        vi[a] = (int)(k % g->axis[a].nval);
        k /= g->axis[a].nval;
    }
    size_t used = 0;
    if (keylen) key[0] = 0;
    for (int a = 0; a < g->naxes; a++) {
        const char *v = g->axis[a].val[vi[a]];
        int rc = fsvc_param_set(p, g->axis[a].name, v, err);
        if (rc) return rc;
        if (used < keylen)
            used += (size_t)snprintf(key + used, keylen - used, "%s%s=%s", a ? ";" : "",
                                     g->axis[a].name, v);
    }
    if (used >= keylen && keylen)
        return fsvc_fail(err, FSVC_EUSAGE, "grid: point key too long");
    return FSVC_OK;
}
