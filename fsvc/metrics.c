/* metrics.c - ground truth against a model's classes (by name when both
 * sides have class names, else by label value), accuracy and the
 * confusion matrix, regression MSE and R^2. */
#include "fsvc.h"

#include <stdlib.h>
#include <string.h>

typedef struct { const char *name; int k; } named;

static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* map[k]: the model class named like d's class k, -1 if none; NULL when
 * there is no memory. */
static int *map_by_name(const fsvc_model *model, const fsvc_dataset *d)
{
    int *map = malloc((size_t)d->K * sizeof *map);
    named *v = malloc((size_t)model->K * sizeof *v);
    if (!map || !v) { free(map); free(v); return NULL; }
    for (int k = 0; k < model->K; k++) v[k] = (named){ model->class_names[k], k };
    qsort(v, (size_t)model->K, sizeof *v, cmp_named);
    for (int k = 0; k < d->K; k++) {
        named key = { d->class_names[k], 0 };
        const named *hit = d->class_names[k]
            ? bsearch(&key, v, (size_t)model->K, sizeof *v, cmp_named) : NULL;
        map[k] = hit ? hit->k : -1;
    }
    free(v);
    return map;
}

/* The model class whose value is y, -1 if none (class_values ascending). */
static int by_value(const fsvc_model *model, double y)
{
    int lo = 0, hi = model->K - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        double v = model->class_values[mid];
        if (v == y) return mid;
        if (v < y) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

int64_t fsvc_model_truth(int *truth, const fsvc_model *model, const fsvc_dataset *d)
{
    int64_t unknown = 0;
    int *map = NULL;
    int names = model->class_names && d->class_names && d->cls && d->K > 0;
    if (names)
        map = map_by_name(model, d); /* NULL (no memory): every label unknown */
    for (int64_t i = 0; i < d->N; i++) {
        int c = d->cls ? d->cls[i] : -1;
        int t = !names ? by_value(model, d->y[i]) : map && c >= 0 && c < d->K ? map[c] : -1;
        truth[i] = t;
        unknown += t < 0;
    }
    free(map);
    return unknown;
}

int64_t fsvc_confusion(int64_t *conf, const int *truth, const int *pred, int64_t N, int K)
{
    int64_t correct = 0;
    if (conf) memset(conf, 0, (size_t)K * K * sizeof *conf);
    for (int64_t i = 0; i < N; i++) {
        correct += truth[i] == pred[i];
        if (conf && truth[i] >= 0 && pred[i] >= 0)
            conf[(size_t)truth[i] * K + pred[i]]++;
    }
    return correct;
}

double fsvc_squared_correlation(const double *y, const double *yhat, int64_t N)
{
    double sy = 0, sp = 0, syy = 0, spp = 0, syp = 0;
    for (int64_t i = 0; i < N; i++) {
        sy += y[i]; sp += yhat[i];
        syy += y[i] * y[i]; spp += yhat[i] * yhat[i]; syp += y[i] * yhat[i];
    }
    double num = N * syp - sy * sp;
    double den = (N * syy - sy * sy) * (N * spp - sp * sp);
    return den > 0 ? num * num / den : 0;
}

void fsvc_regression_stats(double *mse, double *r2, const double *y, const double *yhat,
                           int64_t N)
{
    double mean = 0, ss = 0, st = 0;
    for (int64_t i = 0; i < N; i++) mean += y[i];
    mean = N ? mean / N : 0;
    for (int64_t i = 0; i < N; i++) {
        ss += (y[i] - yhat[i]) * (y[i] - yhat[i]);
        st += (y[i] - mean) * (y[i] - mean);
    }
    *mse = N ? ss / N : 0;
    *r2 = st > 0 ? 1 - ss / st : 0;
}
