/* study_grid.c - named settings, study grids (cartesian products of
 * setting values) and reading back a study CSV for --resume. */
#include "study.h"
#include "../layers/bnl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int num(double *out, const char *name, const char *s, double lo, fsvc_error *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' is not a number >= %g", name, s, lo);
    *out = v;
    return FSVC_OK;
}

static int integer(long long *out, const char *name, const char *s, long long lo,
                   long long hi, fsvc_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: '%s' is not an integer in [%lld, %lld]",
                         name, s, lo, hi);
    *out = v;
    return FSVC_OK;
}

static int bad(const char *name, const char *s, const char *choices, fsvc_error *err)
{
    return fsvc_fail(err, FSVC_EUSAGE, "%s: unknown value '%s' (%s)", name, s, choices);
}

int fsvc_param_set(fsvc_param *p, const char *name, const char *s, fsvc_error *err)
{
    double v;
    long long iv;
    char names[128]; /* the choices of an enum, from its name table */
    int rc = FSVC_OK;
    if (!strcmp(name, "radius")) {
        size_t l = strlen(s);
        if (!strcmp(s, "auto") || !strcmp(s, "search")) {
            p->radius = 0;          /* the author's radius search */
            p->radius_rms = 0;
        } else if (l > 3 && l < 64 && !strcmp(s + l - 3, "rms")) {
            char nb[64];
            snprintf(nb, sizeof nb, "%.*s", (int)(l - 3), s);
            if ((rc = num(&v, name, nb, 0, err))) return rc;
            if (!(v > 0)) return fsvc_fail(err, FSVC_EUSAGE, "radius: '%s' must be > 0", s);
            p->radius = 0;          /* v times the rms distance */
            p->radius_rms = v;
        } else if (!(rc = num(&v, name, s, 0, err))) {
            if (!(v > 0))
                return fsvc_fail(err, FSVC_EUSAGE, "radius: '%s' must be > 0, Xrms or auto", s);
            p->radius = v;
            p->radius_rms = 0;
        }
    } else if (!strcmp(name, "prag")) {
        if (!(rc = num(&v, name, s, 0, err))) {
            if (!(v > 0)) return fsvc_fail(err, FSVC_EUSAGE, "prag: '%s' must be > 0", s);
            p->prag = v;
        }
    } else if (!strcmp(name, "lambda")) {
        if (!(rc = num(&v, name, s, 0, err))) {
            if (!(v > 0)) return fsvc_fail(err, FSVC_EUSAGE, "lambda: '%s' must be > 0", s);
            p->lambda = v;
        }
    } else if (!strcmp(name, "eta")) {
        if (!(rc = num(&v, name, s, 0, err))) p->eta = v;
    } else if (!strcmp(name, "epochs")) {
        if (!(rc = integer(&iv, name, s, 0, 1000000, err))) p->epochs = (int)iv;
    } else if (!strcmp(name, "threads")) {
        if (!(rc = integer(&iv, name, s, 0, 4096, err))) p->threads = (int)iv;
    } else if (!strcmp(name, "max-neurons")) {
        if (!(rc = integer(&iv, name, s, 0, 1LL << 40, err))) p->max_neurons = iv;
    } else if (!strcmp(name, "shuffle")) {
        if (!strcmp(s, "off")) p->shuffle = 0;
        else if (!(rc = integer(&iv, name, s, 0, 0x7fffffffffffffffLL, err))) {
            p->shuffle = 1;
            p->seed = (uint64_t)iv;
        }
    } else if (!strcmp(name, "dist")) {
        bnl_dist d;
        if (bnl_dist_parse(s, &d) || d == BNL_DOT) return bad(name, s, "l1|l2", err);
        p->dist = d;
    } else if (!strcmp(name, "kernel")) {
        bnl_act a;
        if (bnl_act_parse(s, &a) || a > BNL_GAUSS) return bad(name, s, "tri|gauss", err);
        p->act = a;
    } else if (!strcmp(name, "select")) {
        if (fsvc_select_parse(s, &p->select))
            return bad(name, s, fsvc_name_list(fsvc_select_names, names, sizeof names), err);
    } else if (!strcmp(name, "preprocess")) {
        if (fsvc_preprocess_parse(s, &p->preprocess))
            return bad(name, s, fsvc_name_list(fsvc_preprocess_names, names, sizeof names), err);
    } else if (!strcmp(name, "readout")) {
        if (fsvc_readout_parse(s, &p->readout)) return bad(name, s, fsvc_name_list(fsvc_readout_names, names, sizeof names), err);
    } else if (!strcmp(name, "scale")) {
        if (fsvc_scale_parse(s, &p->scale)) return bad(name, s, fsvc_name_list(fsvc_scale_names, names, sizeof names), err);
    } else if (!strcmp(name, "dtype")) {
        fsvc_dtype t;
        if (fsvc_dtype_parse(s, &t)) return bad(name, s, fsvc_name_list(fsvc_dtype_names, names, sizeof names), err);
        p->dtype = t;
    } else if (!strcmp(name, "backend")) {
        bnl_backend b;
        if (bnl_backend_parse(s, &b)) return bad(name, s, fsvc_name_list(bnl_backend_names, names, sizeof names), err);
        p->backend = s;
    } else {
        return fsvc_fail(err, FSVC_EUSAGE, "'%s' is not a setting (radius, prag, dist, kernel, "
                         "select, readout, lambda, eta, epochs, scale, dtype, preprocess, "
                         "max-neurons, shuffle, backend, threads)", name);
    }
    return rc;
}

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

/* Splits a CSV line in place on commas (no quoting: study values never
 * hold commas). Returns the number of fields (at most max). */
static int split(char **f, int max, char *line)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *s = line; n < max;) {
        f[n++] = s;
        char *c = strchr(s, ',');
        if (!c) break;
        *c = 0;
        s = c + 1;
    }
    return n;
}

void fsvc_csv_keys_free(char **keys, int64_t nkeys)
{
    for (int64_t i = 0; i < nkeys; i++) free(keys[i]);
    free(keys);
}

int fsvc_csv_column(char ***keys, int64_t *nkeys, char *header, size_t hlen,
                    const char *path, const char *column, fsvc_error *err)
{
    *keys = NULL;
    *nkeys = 0;
    if (header && hlen) header[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return FSVC_OK;
        return fsvc_fail(err, FSVC_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    }
    char line[8192], *fld[256];
    int col = -1, rc = FSVC_OK;
    int64_t cap = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = fsvc_fail(err, FSVC_EINPUT, "%s:%lld: line too long", path, (long long)lineno);
            break;
        }
        if (col < 0) {
            if (header && hlen) {
                snprintf(header, hlen, "%s", line);
                header[strcspn(header, "\r\n")] = 0;
            }
            int nf = split(fld, 256, line);
            for (int k = 0; k < nf; k++)
                if (!strcmp(fld[k], column)) col = k;
            if (col < 0) {
                rc = fsvc_fail(err, FSVC_EINPUT, "%s: no column '%s' in the header", path, column);
                break;
            }
            continue;
        }
        /* a row cut short by an interruption has no newline: ignore it */
        if (!strchr(line, '\n')) break;
        int nf = split(fld, 256, line);
        if (*nkeys == cap) {
            cap = cap ? 2 * cap : 64;
            char **k2 = realloc(*keys, (size_t)cap * sizeof *k2);
            if (!k2) { rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); break; }
            *keys = k2;
        }
        (*keys)[*nkeys] = strdup(nf > col ? fld[col] : ""); /* short row: empty */
        if (!(*keys)[*nkeys]) { rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path); break; }
        (*nkeys)++;
    }
    fclose(f);
    if (rc) {
        fsvc_csv_keys_free(*keys, *nkeys);
        *keys = NULL;
        *nkeys = 0;
    }
    return rc;
}

int fsvc_csv_has_key(char *const *keys, int64_t nkeys, const char *key)
{
    for (int64_t i = 0; i < nkeys; i++)
        if (!strcmp(keys[i], key)) return 1;
    return 0;
}

int fsvc_csv_trim_partial(int *cut, const char *path, fsvc_error *err)
{
    *cut = 0;
    FILE *f = fopen(path, "r");
    if (!f) return errno == ENOENT ? FSVC_OK : fsvc_fail(err, FSVC_EINPUT, "%s: cannot open: %s",
                                                    path, strerror(errno));
    long last = 0, pos = 0; /* bytes up to and including the last newline */
    int c;
    while ((c = fgetc(f)) != EOF) {
        pos++;
        if (c == '\n') last = pos;
    }
    fclose(f);
    if (last == pos) return FSVC_OK;
    if (truncate(path, last) != 0)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot truncate: %s", path, strerror(errno));
    *cut = 1;
    return FSVC_OK;
}
