#include "tests/util/sets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/util/fixtures.h"

void fx_three_classes(fsvc_dataset *d, int64_t N, const double geo[4], uint64_t seed,
                      const char *name)
{
    memset(d, 0, sizeof *d);
    d->N = N; d->n = 2; d->dtype = FSVC_F64; d->has_labels = 1; d->K = 3;
    double *x = malloc((size_t)N * 2 * sizeof *x);
    d->y = malloc((size_t)N * sizeof *d->y);
    d->cls = malloc((size_t)N * sizeof *d->cls);
    d->class_values = malloc(3 * sizeof *d->class_values);
    if (!x || !d->y || !d->cls || !d->class_values) abort(); /* a test cannot go on */
    for (int k = 0; k < 3; k++) d->class_values[k] = k + 1;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(i % 3);
        x[2 * i] = geo[0] * k + geo[1] * fx_urand(&seed);
        x[2 * i + 1] = geo[2] * (k % 2) + geo[3] * fx_urand(&seed);
        d->cls[i] = k;
        d->y[i] = k + 1;
    }
    d->x = x;
    snprintf(d->source, sizeof d->source, "%s", name);
}
