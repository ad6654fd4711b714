/* oom_embed.c - the path of the Python estimators (fsvc/embed.h) as one
 * program, for test_oom.sh's allocation sweep: load DATA (dense, then
 * sparse), train on the array view (then with -b 1's calibration), predict,
 * round-trip the model through bytes, train and predict the CSR view, and
 * write every result to OUT (through OUT.tmp, renamed at the end). Errors:
 * "fsvc: MESSAGE", exit with the library's code (3 out of memory), and no
 * OUT.
 * Usage: oom_embed DATA OUT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/embed.h"

static char tmp[4096];

static void die(const fsvc_error *err, const char *what)
{
    if (tmp[0]) remove(tmp);
    if (err) fprintf(stderr, "fsvc: %s\n", err->msg);
    else fprintf(stderr, "fsvc: out of memory (%s)\n", what);
    exit(err && err->code ? err->code : 3);
}

/* pred and score of m on the view a (dense) or x (sparse), into f */
static void put_predictions(FILE *f, const fsvc_model *m, const fsvc_array_view *a,
                            const fsvc_csr *x, int64_t N, int64_t n, int K, fsvc_error *err)
{
    int *pred = malloc((size_t)N * sizeof *pred);
    double *score = malloc((size_t)N * K * sizeof *score);
    if (!pred || !score) die(NULL, "predictions");
    int rc = a ? fsvc_predict_view(pred, score, m, a, "cpu", 2, err)
               : fsvc_predict_csr_view(pred, score, m, x, n, "cpu", 2, err);
    if (rc) die(err, NULL);
    for (int64_t i = 0; i < N; i++) {
        fprintf(f, "%d", pred[i]);
        for (int k = 0; k < K; k++) fprintf(f, " %.17g", score[(size_t)i * K + k]);
        fputc('\n', f);
    }
    free(pred);
    free(score);
}

static void put_bytes(FILE *f, const fsvc_model *m, fsvc_error *err)
{
    unsigned char *buf;
    size_t len;
    if (fsvc_model_to_bytes(&buf, &len, m, err)) die(err, NULL);
    fprintf(f, "model %zu bytes\n", len);
    fwrite(buf, 1, len, f);
    fsvc_bytes_free(buf);
}

int main(int argc, char **argv)
{
    if (argc != 3 || snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]) >= (int)sizeof tmp) return 1;
    fsvc_error err = {0};
    fsvc_set_print(fsvc_print_discard);
    fsvc_dataset *d = fsvc_dataset_alloc(), *s = fsvc_dataset_alloc();
    fsvc_model *m = fsvc_model_alloc(), *back = fsvc_model_alloc(), *sm = fsvc_model_alloc();
    fsvc_param *p = fsvc_param_alloc(0, 0);
    if (!d || !s || !m || !back || !sm || !p) die(NULL, "handles");
    if (fsvc_dataset_load_with(d, argv[1], 0, 0, 0, &err)) die(&err, NULL);
    int64_t dm[8];
    fsvc_dataset_meta(dm, d);
    fsvc_array_view a = {fsvc_dataset_x(d), dm[0], dm[1], (int)dm[2], dm[5], dm[6],
                         fsvc_dataset_y(d), NULL};
    fsvc_train_info info;
    if (fsvc_train_view(m, &info, &a, p, &err) || fsvc_calibrate_view(m, &a, p, &err))
        die(&err, NULL);
    int64_t mm[8];
    fsvc_model_meta(mm, m);
    FILE *f = fopen(tmp, "wb");
    if (!f) die(NULL, "opening OUT");
    put_predictions(f, m, &a, NULL, dm[0], dm[1], (int)mm[4], &err);
    put_bytes(f, m, &err);
    unsigned char *buf;
    size_t len;
    if (fsvc_model_to_bytes(&buf, &len, m, &err) ||
        fsvc_model_from_bytes(back, buf, len, "bytes", &err))
        die(&err, NULL);
    fsvc_bytes_free(buf);
    put_predictions(f, back, &a, NULL, dm[0], dm[1], (int)mm[4], &err);
    if (fsvc_dataset_load_csr(s, argv[1], 0, &err)) die(&err, NULL);
    int64_t sd[8];
    fsvc_dataset_meta(sd, s);
    const fsvc_csr *x = fsvc_dataset_csr(s);
    if (!x) { err.code = 2; snprintf(err.msg, sizeof err.msg, "%s: not sparse", argv[1]); die(&err, NULL); }
    if (fsvc_train_csr_view(sm, &info, x, sd[1], fsvc_dataset_y(s), NULL, p, &err))
        die(&err, NULL);
    put_predictions(f, sm, NULL, x, sd[0], sd[1], (int)mm[4], &err);
    put_bytes(f, sm, &err);
    if (ferror(f) | fclose(f)) die(NULL, "writing OUT");
    if (rename(tmp, argv[2])) die(NULL, "renaming OUT");
    fsvc_model_release(m); fsvc_model_release(back); fsvc_model_release(sm);
    fsvc_dataset_release(d); fsvc_dataset_release(s);
    fsvc_param_release(p);
    return 0;
}
