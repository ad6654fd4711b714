/* test_quiet.c - the library prints nothing unless asked: fsvc_train with
 * p.progress = 0 sends no line through the print hook (no "radius:",
 * "radius search", "preprocess auto" lines), whatever the radius rule or
 * preprocessing; with p.progress = 1 the same runs do speak (so the hook
 * is seen). Issue 14 points 9 and 16. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsvc/fsvc.h"

static char heard[8192];

static void hear(const char *line)
{
    size_t l = strlen(heard);
    snprintf(heard + l, sizeof heard - l, "%s", line);
}

/* N u8 images 8 x 8 of two classes: class 0 a slanted bar, class 1 a
 * block, with seeded noise. */
static void make_images(fsvc_dataset *d, int64_t N)
{
    memset(d, 0, sizeof *d);
    d->N = N; d->n = 64; d->rows = d->cols = 8; d->dtype = FSVC_U8;
    d->has_labels = 1; d->K = 2;
    uint8_t *x = calloc((size_t)N * 64, 1);
    d->y = malloc((size_t)N * sizeof *d->y);
    d->cls = malloc((size_t)N * sizeof *d->cls);
    d->class_values = malloc(2 * sizeof *d->class_values);
    d->class_values[0] = 0; d->class_values[1] = 1;
    uint32_t s = 12345;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(i % 2);
        d->cls[i] = k; d->y[i] = k;
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) {
                s = s * 1103515245u + 12345u;
                int on = k ? (r >= 2 && r < 6 && c >= 2 && c < 6) : (c == r / 2 + 2);
                x[i * 64 + r * 8 + c] = (uint8_t)(on ? 200 + (s >> 28) : (s >> 27));
            }
    }
    d->x = x;
    snprintf(d->source, sizeof d->source, "synthetic");
}

static void free_images(fsvc_dataset *d)
{
    free(d->x); free(d->y); free(d->cls); free(d->class_values);
}

/* Trains with the settings spec and progress; returns what was printed. */
static const char *train_heard(const fsvc_dataset *d, const char *spec, int progress)
{
    fsvc_param p;
    fsvc_param_default(&p);
    assert_int_equal(fsvc_param_parse(&p, spec, NULL), FSVC_OK);
    p.threads = 1;
    p.progress = progress;
    heard[0] = 0;
    fsvc_set_print(hear);
    fsvc_model m;
    fsvc_error err;
    int rc = fsvc_train(&m, NULL, d, &p, &err);
    fsvc_set_print(NULL);
    assert_int_equal(rc, FSVC_OK);
    fsvc_free_model(&m);
    return heard;
}

static const char *specs[] = {
    "preprocess=auto",                      /* preprocess auto, radius 0.45rms */
    "radius=auto;readout=onehot",           /* the radius search */
    "radius=0.5rms;readout=lms;epochs=2",   /* lms epochs */
};

static void test_silent_without_progress(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_images(&d, 400);
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        const char *h = train_heard(&d, specs[i], 0);
        if (h[0]) fail_msg("%s with progress 0 printed: %s", specs[i], h);
    }
    free_images(&d);
}

static void test_speaks_with_progress(void **state)
{
    (void)state;
    fsvc_dataset d;
    make_images(&d, 400);
    assert_non_null(strstr(train_heard(&d, specs[0], 1), "preprocess auto"));
    assert_non_null(strstr(train_heard(&d, specs[0], 1), "radius: 0.45 x rms"));
    assert_non_null(strstr(train_heard(&d, specs[1], 1), "radius search"));
    assert_non_null(strstr(train_heard(&d, specs[1], 1), "novelty:"));
    /* the messages alone (fsvc study): the steps, no progress lines */
    const char *h = train_heard(&d, specs[1], FSVC_PROGRESS_STEPS);
    assert_non_null(strstr(h, "radius search"));
    assert_null(strstr(h, "novelty:"));
    assert_null(strchr(h, '\r'));
    free_images(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_silent_without_progress),
        cmocka_unit_test(test_speaks_with_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
