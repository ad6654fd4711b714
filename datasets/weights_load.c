/* weights_load.c - sample weights from a text file, one a line
 * (fsvc_data.h fsvc_dataset_load_weights). */
#include "datasets/datasets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number of one line (without its newline) into *w, else the reason. */
static const char *parse_line(char *s, double *w)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t l = strlen(s);
    while (l && (s[l - 1] == ' ' || s[l - 1] == '\t')) s[--l] = 0;
    char *end;
    *w = strtod(s, &end);
    if (!l || end == s || *end) return "is not a number (one weight a line)";
    if (!isfinite(*w) || !(*w > 0)) return "is not a weight (each must be finite and > 0)";
    return NULL;
}

int fsvc_dataset_load_weights(fsvc_dataset *d, const char *path, int64_t first,
                              int64_t N_total, fsvc_error *err)
{
    FILE *f;
    int rc = ds_open_input(&f, path, err);
    if (rc) return rc;
    double *w = malloc((size_t)(d->N > 0 ? d->N : 1) * sizeof *w);
    char *line = NULL;
    size_t cap = 0;
    int64_t k = 0; /* lines read */
    if (!w) rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    while (!rc && getline(&line, &cap, f) >= 0) {
        k++;
        line[strcspn(line, "\r\n")] = 0;
        if (k > N_total) {
            rc = fsvc_fail(err, FSVC_EINPUT, "%s line %lld: more weights than the %lld "
                           "samples of %s (one weight a line)", path, (long long)k,
                           (long long)N_total, d->source);
            break;
        }
        double v;
        char shown[40]; /* the line as given, cut */
        snprintf(shown, sizeof shown, "%.32s", line);
        const char *why = parse_line(line, &v);
        if (why)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s line %lld: '%s' %s", path,
                           (long long)k, shown, why);
        else if (k > first && k <= first + d->N)
            w[k - 1 - first] = v;
    }
    if (!rc && ferror(f))
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: read error", path);
    if (!rc && k < N_total)
        rc = fsvc_fail(err, FSVC_EINPUT, "%s: %lld weights (lines) for the %lld samples of %s "
                       "(one weight a line)", path, (long long)k, (long long)N_total,
                       d->source);
    free(line);
    fclose(f);
    if (rc) {
        free(w);
        return rc;
    }
    free(d->weight);
    d->weight = w;
    return FSVC_OK;
}
