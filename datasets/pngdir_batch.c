/* pngdir_batch.c - an image folder listed once, then decoded batch by batch
 * (fsvc_pngdir_list, fsvc_pngdir_decode in fsvc_data.h): the images of a
 * batch are decoded on OpenMP threads, the first failing one in order gives
 * the error, the message fsvc_dataset_load gives for it. */
#include "datasets/loaders.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int fsvc_pngdir_list(fsvc_dataset *d, const char *dir, const fsvc_load_opts *opts,
                     fsvc_error *err)
{
    static const fsvc_load_opts none = {0, 0, 0, FSVC_STORE_DENSE, 0, 0, 0, 0, 0};
    ds_dataset_init(d, dir);
    ds_png_listing L;
    int rc = ds_png_list(&L, dir, opts ? opts : &none, err);
    if (rc)
        return rc;
    unsigned char *pix = NULL;
    int r = 0, c = 0, ch = opts && opts->channels == 3 ? 3 : 1;
    int sized = opts && opts->rows > 0 && opts->cols > 0;
    rc = ds_image_read(&pix, &r, &c, ch, L.files[0], err); /* the first sets the size */
    free(pix);
    if (rc == FSVC_OK) {
        d->rows = sized ? opts->rows : r;
        d->cols = sized ? opts->cols : c;
        d->channels = ch;
        d->skipped = L.skipped;
        if ((int64_t)d->rows * d->cols * ch > INT32_MAX)
            rc = fsvc_fail(err, FSVC_EINPUT, "%s: images of %dx%d (x %d channels) are too "
                           "large", dir, d->cols, d->rows, ch);
        d->n = (int)((int64_t)d->rows * d->cols * ch);
        d->dtype = FSVC_U8;
        d->paths = L.files; /* taken over */
        d->N = (int64_t)L.n;
        L.files = NULL;
        L.n = 0;
    }
    if (rc == FSVC_OK && L.labelled) {
        d->y = L.y;
        L.y = NULL;
        d->has_labels = 1;
        rc = fsvc_dataset_index_classes(d, err);
        if (rc == FSVC_OK)
            rc = ds_png_class_names(d, &L, err);
    }
    ds_png_listing_free(&L);
    if (rc)
        fsvc_dataset_free(d);
    return rc;
}

int fsvc_pngdir_decode(uint8_t *x, const fsvc_dataset *d, int64_t lo, int64_t hi, int resize,
                       int threads, fsvc_error *err)
{
    int ch = d->channels == 3 ? 3 : 1;
    if (!d->paths || lo < 0 || hi > d->N || lo > hi ||
        (int64_t)d->n != (int64_t)d->rows * d->cols * ch)
        return fsvc_fail(err, FSVC_EUSAGE, "%s: not a batch of a listed PNG folder", d->source);
    int64_t bad = hi; /* the first failing image */
    int code = FSVC_OK;
    int nt = 1;
#ifdef _OPENMP
    nt = threads > 0 ? threads : omp_get_max_threads();
#endif
    if (nt > hi - lo) nt = hi - lo > 0 ? (int)(hi - lo) : 1;
    (void)nt; /* without OpenMP */
    #pragma omp parallel for schedule(dynamic, 4) num_threads(nt)
    for (int64_t i = lo; i < hi; i++) {
        fsvc_error e;
        fsvc_error_clear(&e);
        unsigned char *pix = NULL;
        int r = 0, c = 0;
        int rc = ds_image_read(&pix, &r, &c, ch, d->paths[i], &e);
        if (rc == FSVC_OK)
            rc = ds_png_place(x + (size_t)(i - lo) * (size_t)d->n, d->rows, d->cols, ch, pix, r,
                              c, resize, d->paths[i], d->paths[0], &e);
        free(pix);
        if (rc) {
            #pragma omp critical(fsvc_pngdir_decode)
            if (i < bad) {
                bad = i;
                code = rc;
                if (err) *err = e;
            }
        }
    }
    return code;
}
