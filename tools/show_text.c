/* show_text.c - a model described in words: what `fsvc show MODEL` (no
 * --png) and `fsvc info MODEL` print. */
#include "tools/show.h"
#include "tools/cli.h"
#include "layers/bnl.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* The format version in the file's header (bytes 8..11, little-endian),
 * 0 when it cannot be read (the load has already checked the file). */
static unsigned file_version(const char *path)
{
    unsigned char h[12];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    if (got != sizeof h) return 0;
    return (unsigned)h[8] | (unsigned)h[9] << 8 | (unsigned)h[10] << 16 | (unsigned)h[11] << 24;
}

int show_describe(const char *path)
{
    fsvc_error err;
    fsvc_error_clear(&err);
    fsvc_model m;
    if (fsvc_model_load(&m, path, &err)) return cli_report(&err);
    int64_t *counts = calloc((size_t)(m.K > 0 ? m.K : 1), sizeof *counts);
    if (!counts) {
        fsvc_free_model(&m);
        fsvc_fail(&err, FSVC_ERESOURCE, "show: out of memory");
        return cli_report(&err);
    }
    for (int64_t j = 0; j < m.m; j++)
        if (m.lab[j] >= 0 && m.lab[j] < m.K) counts[m.lab[j]]++;
    struct stat st;
    long long bytes = stat(path, &st) == 0 ? (long long)st.st_size : -1;
    printf("model: %s\n", path);
    printf("file: fsvc model format version %u, %lld bytes\n", file_version(path), bytes);
    printf("task: %s\n", m.regression ? "regression (ridge on the label values)" : "classification");
    printf("settings: --dist %s --kernel %s --radius %.9g --prag %.9g --select %s --readout %s "
           "--dtype %s --scale %s --preprocess %s --features %s%s%s%s%s\n",
           bnl_dist_name((bnl_dist)m.dist), bnl_act_name((bnl_act)m.act), m.radius, m.prag,
           fsvc_select_name(m.select), fsvc_readout_name(m.readout), fsvc_dtype_name(m.dtype),
           fsvc_scale_name(m.scale), fsvc_preprocess_name(m.preprocess),
           fsvc_name_of(fsvc_features_names, (int)m.features), /* auto would pick again */
           m.feat_min ? " --scale-features range" : "", m.regression ? " --regression" : "",
           m.precision ? " --precision " : "",
           m.precision ? bnl_precision_name((bnl_precision)m.precision) : "");
    if (m.rows > 0)
        printf("input: %d features (%d x %d images), preprocessing %s, scaling %s\n", m.n,
               m.rows, m.cols, fsvc_preprocess_name(m.preprocess), fsvc_scale_name(m.scale));
    else
        printf("input: %d features (no image geometry), preprocessing %s, scaling %s\n", m.n,
               fsvc_preprocess_name(m.preprocess), fsvc_scale_name(m.scale));
    if (m.features == FSVC_FEAT_HOG)
        printf("features: the %d values, then their HOG (4x4 cells, 8 orientations, "
               "%lld values, times %.9g): %lld a centroid\n", m.n,
               (long long)(fsvc_model_width(&m) - m.n), m.hog_scale,
               (long long)fsvc_model_width(&m));
    if (m.img_rows > 0) /* how images are read for the model */
        printf("images: %d x %d (rows x cols), %s%s\n", m.img_rows, m.img_cols,
               m.img_channels == 3 ? "RGB (3 values a pixel)" : "gray (BT.601 luma)",
               m.img_resize ? ", other sizes resized to it (train --resize)" : "");
    if (m.feat_min)
        printf("feature scaling: range, each feature's training min and max to [-1, 1] "
               "(as svm-scale)\n");
    if (!m.regression && m.proba_a > 0) /* -b 1: what predict -b 1 and predict_proba give */
        printf("probabilities: softmax(%.9g x scores), fitted on held-out scores (-b 1)\n",
               m.proba_a);
    else if (!m.regression)
        printf("probabilities: none fitted (trained without -b 1): the softmax of the "
               "scores\n");
    printf("centroids: %lld (%s), readout %lld x %d\n", (long long)m.m, fsvc_dtype_name(m.dtype),
           (long long)m.m, m.Kout);
    if (m.Cs)
        printf("centroid storage: sparse, %lld nonzero values (%.3g%% of %lld x %d)\n",
               (long long)m.Cs->nnz, 100.0 * (double)m.Cs->nnz / ((double)m.m * m.n),
               (long long)m.m, m.n);
    if (m.regression) {
        printf("output offset: %.9g (the training targets' mean)\n", m.y_offset);
    } else {
        printf("classes: %d, %s\n", m.K, m.class_names ? "named (PNG class folders)"
                                                        : "by label value");
        char name[FSVC_MODEL_MAX_NAME + 1];
        for (int k = 0; k < m.K; k++)
            printf("  class %d: %s %s, %lld centroids\n", k, m.class_names ? "name" : "label",
                   fsvc_model_class_text(&m, k, name, sizeof name), (long long)counts[k]);
    }
    free(counts);
    fsvc_free_model(&m);
    return FSVC_OK;
}
