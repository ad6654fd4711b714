/* metrics.c - ground truth against a model's classes, accuracy and the
 * confusion matrix, regression MSE and R^2. */
#include "fsvc.h"

#include <string.h>

int64_t fsvc_model_truth(int *truth, const fsvc_model *model, const fsvc_dataset *d)
{
    int64_t unknown = 0;
    for (int64_t i = 0; i < d->N; i++) {
        int t = -1, lo = 0, hi = model->K - 1;
        while (lo <= hi) { /* class_values ascending */
            int mid = (lo + hi) / 2;
            double v = model->class_values[mid];
            if (v == d->y[i]) { t = mid; break; }
            if (v < d->y[i]) lo = mid + 1; else hi = mid - 1;
        }
        truth[i] = t;
        unknown += t < 0;
    }
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
