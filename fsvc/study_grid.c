/* study_grid.c - named settings (set from text, printed back as canonical
 * text), study grids (cartesian products of setting values) and the
 * canonical settings strings that key a study's --resume. */
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
        if (!strcmp(s, "auto")) {
            p->dtype = -1;                      /* u8 for u8 data unscaled, else f32 */
        } else if (fsvc_dtype_parse(s, &t)) {
            fsvc_name_list(fsvc_dtype_names, names, sizeof names - 5);
            return bad(name, s, strcat(names, "|auto"), err);
        } else {
            p->dtype = t;
        }
    } else if (!strcmp(name, "backend")) {
        bnl_backend b;
        if (bnl_backend_parse(s, &b)) return bad(name, s, fsvc_name_list(bnl_backend_names, names, sizeof names), err);
        p->backend = bnl_backend_name(b);       /* a static name, not s */
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

/* ---- settings as canonical text ---- */

static const char *const setting_names[] = {
    "radius", "prag", "dist", "kernel", "select", "readout", "lambda", "eta", "epochs",
    "scale", "dtype", "preprocess", "max-neurons", "shuffle", "backend", "threads"};
#define NSETTINGS ((int)(sizeof setting_names / sizeof setting_names[0]))

const char *fsvc_setting_name(int i)
{
    return i >= 0 && i < NSETTINGS ? setting_names[i] : NULL;
}

/* The shortest %g text that reads back as exactly v. */
static void shortest(char *out, size_t len, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, len, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

int fsvc_param_get(const fsvc_param *p, const char *name, char *out, size_t len)
{
    char num[40];
    const char *s = num;
    if (!strcmp(name, "radius")) {
        if (p->radius > 0) shortest(num, sizeof num, p->radius);
        else if (p->radius_rms > 0) {
            shortest(num, sizeof num - 3, p->radius_rms);
            strcat(num, "rms");
        } else s = "auto";
    } else if (!strcmp(name, "prag")) shortest(num, sizeof num, p->prag);
    else if (!strcmp(name, "lambda")) shortest(num, sizeof num, p->lambda);
    else if (!strcmp(name, "eta")) shortest(num, sizeof num, p->eta);
    else if (!strcmp(name, "epochs")) snprintf(num, sizeof num, "%d", p->epochs);
    else if (!strcmp(name, "threads")) snprintf(num, sizeof num, "%d", p->threads);
    else if (!strcmp(name, "max-neurons")) snprintf(num, sizeof num, "%lld", (long long)p->max_neurons);
    else if (!strcmp(name, "shuffle")) {
        if (p->shuffle) snprintf(num, sizeof num, "%llu", (unsigned long long)p->seed);
        else s = "off";
    } else if (!strcmp(name, "dist")) s = bnl_dist_name((bnl_dist)p->dist);
    else if (!strcmp(name, "kernel")) s = bnl_act_name((bnl_act)p->act);
    else if (!strcmp(name, "select")) s = fsvc_select_name(p->select);
    else if (!strcmp(name, "readout")) s = fsvc_readout_name(p->readout);
    else if (!strcmp(name, "scale")) s = fsvc_scale_name(p->scale);
    else if (!strcmp(name, "dtype")) s = p->dtype < 0 ? "auto" : fsvc_dtype_name((fsvc_dtype)p->dtype);
    else if (!strcmp(name, "preprocess")) s = fsvc_preprocess_name(p->preprocess);
    else if (!strcmp(name, "backend")) s = p->backend ? p->backend : "cpu";
    else return -1;
    return (size_t)snprintf(out, len, "%s", s) < len ? 0 : -1;
}

int fsvc_settings_add(char *s, size_t cap, const char *key, const char *value)
{
    size_t u = strlen(s);
    int n = snprintf(s + u, cap - u, "%s%s=", u ? ";" : "", key);
    if (n < 0 || (size_t)n >= cap - u) { s[u] = 0; return FSVC_EUSAGE; }
    size_t w = u + (size_t)n;
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *v = (const unsigned char *)value; *v; v++) {
        int esc = *v == '%' || *v == ';' || *v == '=' || *v < 0x20 || *v == 0x7f;
        if (w + (esc ? 3 : 1) >= cap) { s[u] = 0; return FSVC_EUSAGE; }
        if (esc) {
            s[w++] = '%';
            s[w++] = hex[*v >> 4];
            s[w++] = hex[*v & 15];
        } else {
            s[w++] = (char)*v;
        }
    }
    s[w] = 0;
    return FSVC_OK;
}

const char *fsvc_settings_find(const char *s, const char *key, size_t *vlen)
{
    size_t kl = strlen(key);
    for (const char *t = s; *t;) {
        const char *end = strchr(t, ';');
        size_t tl = end ? (size_t)(end - t) : strlen(t);
        if (tl > kl && !strncmp(t, key, kl) && t[kl] == '=') {
            *vlen = tl - kl - 1;
            return t + kl + 1;
        }
        if (!end) break;
        t = end + 1;
    }
    return NULL;
}

int fsvc_param_canon(char *s, size_t cap, const fsvc_param *p)
{
    char v[64];
    for (int i = 0; i < NSETTINGS; i++)
        if (fsvc_param_get(p, setting_names[i], v, sizeof v) ||
            fsvc_settings_add(s, cap, setting_names[i], v))
            return FSVC_EUSAGE;
    return FSVC_OK;
}
