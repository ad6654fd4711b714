/* embed.c - the binding API of embed.h: handles, training and prediction
 * on caller memory (a dataset view: no copy), the model as bytes, and
 * probabilities from scores.
 *
 * The model bytes are the model file's bytes, produced and read by
 * fsvc_model_save/fsvc_model_load themselves (through a private temporary
 * folder and an anonymous memory file), so the bytes follow the one file
 * format and its checks (magic, version, CRC32, sizes) whatever they are. */
#include "embed.h"
#include "calibrate.h"
#include "sparse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

fsvc_model *fsvc_model_alloc(void) { return calloc(1, sizeof(fsvc_model)); }

void fsvc_model_release(fsvc_model *model)
{
    if (!model) return;
    fsvc_free_model(model);
    free(model);
}

fsvc_param *fsvc_param_alloc(int regression, int progress)
{
    fsvc_param *p = malloc(sizeof *p);
    if (!p) return NULL;
    fsvc_param_default(p);
    p->regression = regression != 0;
    p->progress = progress != 0;
    return p;
}

void fsvc_param_release(fsvc_param *p) { free(p); }

void fsvc_print_discard(const char *line) { (void)line; }

void fsvc_model_meta(int64_t meta[8], const fsvc_model *M)
{
    meta[0] = M->n; meta[1] = M->rows; meta[2] = M->cols; meta[3] = M->K;
    meta[4] = M->Kout; meta[5] = M->m; meta[6] = M->regression; meta[7] = M->dtype;
}

const double *fsvc_model_class_values(const fsvc_model *M) { return M->class_values; }

/* d: a view of caller memory; only cls and class_values (from y) are
 * allocated, and freed by view_done. */
static int view(fsvc_dataset *d, const fsvc_array_view *a, int labels, int classes,
                fsvc_error *err)
{
    int64_t N = a->N, n = a->n, rows = a->rows, cols = a->cols;
    memset(d, 0, sizeof *d);
    snprintf(d->source, sizeof d->source, "array");
    if (N < 1 || n < 1 || !a->x)
        return fsvc_fail(err, FSVC_EINPUT, "array: %lld x %lld samples: need at least one "
                         "sample and one feature", (long long)N, (long long)n);
    /* sizes are 64-bit here: a larger array is refused, never cut */
    if (n > FSVC_DENSE_MAX_N)
        return fsvc_fail(err, FSVC_EINPUT, "array: %lld features; dense data holds at most %d",
                         (long long)n, FSVC_DENSE_MAX_N);
    if (a->dtype < FSVC_U8 || a->dtype > FSVC_F64)
        return fsvc_fail(err, FSVC_EUSAGE, "array: unknown element type %d", a->dtype);
    if (rows < 0 || cols < 0 || rows > n || cols > n || (rows && rows * cols != n))
        return fsvc_fail(err, FSVC_EUSAGE, "array: image shape %lld x %lld does not match %lld "
                         "features", (long long)rows, (long long)cols, (long long)n);
    d->N = N; d->n = (int)n; d->dtype = (fsvc_dtype)a->dtype; d->rows = (int)rows;
    d->cols = (int)cols;
    d->x = (void *)a->x;  /* read only: train and predict take a const dataset */
    if (labels && a->y) {
        d->y = (double *)a->y;
        d->weight = (double *)a->w; /* read only too (fsvc_train checks it) */
        d->has_labels = 1;
        if (classes) return fsvc_dataset_index_classes(d, err);
    }
    return FSVC_OK;
}

static void view_done(fsvc_dataset *d)
{
    free(d->cls);
    free(d->class_values);
    memset(d, 0, sizeof *d);
}

int fsvc_train_view(fsvc_model *model, fsvc_train_info *info, const fsvc_array_view *a,
                    const fsvc_param *p, fsvc_error *err)
{
    if (!a->y) return fsvc_fail(err, FSVC_EINPUT, "array: training needs labels");
    fsvc_dataset d;
    int rc = view(&d, a, 1, !p->regression, err);
    if (!rc) {
        fsvc_free_model(model);
        rc = fsvc_train(model, info, &d, p, err);
    }
    view_done(&d);
    return rc;
}

int fsvc_calibrate_view(fsvc_model *model, const fsvc_array_view *a, const fsvc_param *p,
                        fsvc_error *err)
{
    if (!a->y) return fsvc_fail(err, FSVC_EINPUT, "array: calibration needs labels");
    fsvc_dataset d;
    int rc = view(&d, a, 1, 1, err);
    if (!rc && a->n != model->n)
        rc = fsvc_fail(err, FSVC_EINPUT, "array: %lld features, the model has %d",
                       (long long)a->n, model->n);
    if (!rc) rc = fsvc_weights_check(&d, NULL, err);
    if (!rc) rc = fsvc_calibrate(model, &d, p, err);
    view_done(&d);
    return rc;
}

int fsvc_predict_view(int *pred, double *score, const fsvc_model *model,
                      const fsvc_array_view *a, const char *backend, int threads,
                      fsvc_error *err)
{
    fsvc_dataset d;
    int rc = view(&d, a, 0, 0, err);
    if (!rc && a->n != model->n)
        rc = fsvc_fail(err, FSVC_EINPUT, "array: %lld features, the model has %d",
                       (long long)a->n, model->n);
    if (!rc) rc = fsvc_predict(pred, score, model, &d, backend, threads, err);
    view_done(&d);
    return rc;
}

/* d: a view of the caller's CSR rows (as view, for sparse data). */
static int csr_view(fsvc_dataset *d, const fsvc_csr *x, int64_t n, const double *y,
                    int classes, fsvc_error *err)
{
    memset(d, 0, sizeof *d);
    snprintf(d->source, sizeof d->source, "sparse array");
    if (!x || x->rows < 1 || n < 1)
        return fsvc_fail(err, FSVC_EINPUT, "sparse array: %lld x %lld samples: need at least "
                         "one sample and one feature", (long long)(x ? x->rows : 0),
                         (long long)n);
    if (n > FSVC_CSR_MAX_N)
        return fsvc_fail(err, FSVC_EINPUT, "sparse array: %lld features; sparse data holds at "
                         "most %d", (long long)n, FSVC_CSR_MAX_N);
    int rc = fsvc_csr_check(x, (int)n, "sparse array", err);
    if (rc) return rc;
    d->N = x->rows; d->n = (int)n; d->dtype = FSVC_F32;
    d->csr = (fsvc_csr *)x; /* read only, as view's x */
    if (y) {
        d->y = (double *)y;
        d->has_labels = 1;
        if (classes) return fsvc_dataset_index_classes(d, err);
    }
    return FSVC_OK;
}

int fsvc_train_csr_view(fsvc_model *model, fsvc_train_info *info, const fsvc_csr *x,
                        int64_t n, const double *y, const double *w, const fsvc_param *p,
                        fsvc_error *err)
{
    if (!y) return fsvc_fail(err, FSVC_EINPUT, "sparse array: training needs labels");
    fsvc_dataset d;
    int rc = csr_view(&d, x, n, y, !p->regression, err);
    d.weight = (double *)w; /* read only (fsvc_train checks it) */
    if (!rc) {
        fsvc_free_model(model);
        rc = fsvc_train(model, info, &d, p, err);
    }
    view_done(&d);
    return rc;
}

int fsvc_predict_csr_view(int *pred, double *score, const fsvc_model *model,
                          const fsvc_csr *x, int64_t n, const char *backend, int threads,
                          fsvc_error *err)
{
    fsvc_dataset d;
    int rc = csr_view(&d, x, n, NULL, 0, err);
    if (!rc && n != model->n)
        rc = fsvc_fail(err, FSVC_EINPUT, "sparse array: %lld features, the model has %d",
                       (long long)n, model->n);
    if (!rc) rc = fsvc_predict(pred, score, model, &d, backend, threads, err);
    view_done(&d);
    return rc;
}

int fsvc_model_is_sparse(const fsvc_model *model) { return model->Cs != NULL; }

static void free_names(char **v, int K)
{
    for (int k = 0; v && k < K; k++) free(v[k]);
    free(v);
}

int fsvc_model_set_class_names(fsvc_model *model, const char *const *names, int K,
                               fsvc_error *err)
{
    if (names && K != model->K)
        return fsvc_fail(err, FSVC_EINPUT, "class names: %d names for %d classes", K,
                         model->K);
    char **v = NULL;
    if (names) {
        if (!(v = calloc((size_t)K, sizeof *v)))
            return fsvc_fail(err, FSVC_ERESOURCE, "class names: out of memory");
        for (int k = 0; k < K; k++)
            if (!names[k] || !(v[k] = strdup(names[k]))) {
                free_names(v, K);
                return names[k] ? fsvc_fail(err, FSVC_ERESOURCE, "class names: out of memory")
                                : fsvc_fail(err, FSVC_EINPUT, "class names: class %d has "
                                            "none", k + 1);
            }
    }
    char **old = model->class_names;
    model->class_names = v;
    int rc = fsvc_model_check(model, "class names", err); /* the model file's rules */
    if (rc) {
        model->class_names = old;
        free_names(v, K);
        return rc;
    }
    free_names(old, model->K);
    return FSVC_OK;
}

const char *fsvc_model_class_name(const fsvc_model *model, int k)
{
    return model->class_names && k >= 0 && k < model->K ? model->class_names[k] : NULL;
}

fsvc_dataset *fsvc_dataset_alloc(void) { return calloc(1, sizeof(fsvc_dataset)); }

void fsvc_dataset_release(fsvc_dataset *d)
{
    if (!d) return;
    fsvc_dataset_free(d);
    free(d);
}

int fsvc_dataset_load_with(fsvc_dataset *d, const char *source, int resize,
                           int allow_unlabelled, int n_features, fsvc_error *err)
{
    fsvc_load_opts o = { .resize = resize, .allow_unlabelled = allow_unlabelled,
                         .n_features = n_features, .storage = FSVC_STORE_DENSE };
    fsvc_dataset_free(d);
    return fsvc_dataset_load(d, source, &o, err);
}

int fsvc_dataset_load_csr(fsvc_dataset *d, const char *path, int n_features,
                          fsvc_error *err)
{
    fsvc_load_opts o = { .n_features = n_features, .storage = FSVC_STORE_SPARSE,
                         .sparse_finite = 1 };
    fsvc_dataset_free(d);
    return fsvc_dataset_load(d, path, &o, err);
}

const fsvc_csr *fsvc_dataset_csr(const fsvc_dataset *d) { return d->csr; }

void fsvc_dataset_meta(int64_t meta[8], const fsvc_dataset *d)
{
    meta[0] = d->N; meta[1] = d->n; meta[2] = d->dtype; meta[3] = d->has_labels && d->y;
    meta[4] = d->K; meta[5] = d->rows; meta[6] = d->cols; meta[7] = d->scale;
}

const void *fsvc_dataset_x(const fsvc_dataset *d) { return d->x; }
const double *fsvc_dataset_y(const fsvc_dataset *d) { return d->has_labels ? d->y : NULL; }

const char *fsvc_dataset_class_name(const fsvc_dataset *d, int k)
{
    return d->class_names && k >= 0 && k < d->K ? d->class_names[k] : NULL;
}

/* Replaces a leading "path" in err->msg by "what". */
static void rename_source(fsvc_error *err, const char *path, const char *what)
{
    if (!err) return;
    size_t pl = strlen(path);
    if (strncmp(err->msg, path, pl)) return;
    char tmp[sizeof err->msg];
    snprintf(tmp, sizeof tmp, "%s%s", what, err->msg + pl);
    memcpy(err->msg, tmp, sizeof tmp);
}

/* errno named: fopen's FILE or stdio's buffer out of memory is not a
 * file that cannot be read */
static int read_back_failed(fsvc_error *err, const char *path)
{
    const char *why = strerror(errno);
    return fsvc_fail(err, FSVC_ERESOURCE, "model bytes: cannot read back %s: %s", path, why);
}

int fsvc_model_to_bytes(unsigned char **buf, size_t *len, const fsvc_model *model,
                        fsvc_error *err)
{
    *buf = NULL;
    *len = 0;
    const char *t = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/fsvc-model-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir))
        return fsvc_fail(err, FSVC_ERESOURCE, "model bytes: cannot create a temporary folder "
                         "in %s: %s", t && *t ? t : "/tmp", strerror(errno));
    snprintf(path, sizeof path, "%s/model.fsvc", dir);
    int rc = fsvc_model_save(model, path, err);
    if (rc) /* the temporary path means nothing to the caller */
        rename_source(err, path, "model bytes");
    if (!rc) {
        FILE *f = fopen(path, "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
        if (size < 0 || !f || fseek(f, 0, SEEK_SET) != 0)
            rc = read_back_failed(err, path);
        else if (!(*buf = malloc((size_t)size + 1)))
            rc = fsvc_fail(err, FSVC_ERESOURCE, "model bytes: out of memory (%ld bytes)", size);
        else if (fread(*buf, 1, (size_t)size, f) != (size_t)size)
            rc = read_back_failed(err, path);
        else
            *len = (size_t)size;
        if (f) fclose(f);
        if (rc) { free(*buf); *buf = NULL; }
        unlink(path);
    }
    rmdir(dir);
    return rc;
}

int fsvc_model_from_bytes(fsvc_model *model, const void *buf, size_t len, const char *what,
                          fsvc_error *err)
{
    if (!what) what = "model bytes";
    fsvc_free_model(model);
    int fd = memfd_create("fsvc-model", MFD_CLOEXEC);
    if (fd < 0)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot create a memory file: %s", what,
                         strerror(errno));
    const unsigned char *p = buf;
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, p + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write a memory file: %s", what,
                             strerror(e));
        }
        done += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int rc = fsvc_model_load(model, path, err);
    close(fd);
    if (rc) rename_source(err, path, what);
    return rc;
}

void fsvc_bytes_free(void *buf) { free(buf); }

void fsvc_scores_proba(double *proba, const double *score, int64_t N, int K)
{
    for (int64_t i = 0; i < N; i++) {
        const double *s = score + (size_t)i * K;
        double *q = proba + (size_t)i * K, sum = 0;
        int best = 0;
        for (int k = 1; k < K; k++)
            if (s[k] > s[best]) best = k;
        double top = s[best]; /* proba may be score: s[k] is read before q[k] is set */
        for (int k = 0; k < K; k++) sum += q[k] = exp(s[k] - top);
        for (int k = 0; k < K; k++) q[k] /= sum;
        /* rounding must not make an earlier class tie the predicted one */
        for (int k = 0; k < best; k++)
            if (q[k] >= q[best]) q[k] = nextafter(q[best], 0);
    }
}
