/* test_jpeg.c - the JPEG reader (gray, RGB, progressive; CMYK, corrupt,
 * truncated and oversized files refused in one line naming the file, and
 * random byte flips that never crash), RGB from PNG, mixed folders with
 * the files skipped counted, resizing to a given size, and the model's
 * image fields (saved, loaded, checked). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <jpeglib.h> /* after stdio.h: it uses FILE */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "datasets/loaders.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

/* Writes a w x h JPEG of comps components (1 gray, 3 RGB, 4 CMYK) at
 * quality 100; progressive when asked. */
static void write_jpeg(const char *path, int w, int h, int comps, const uint8_t *px,
                       int progressive)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = comps;
    c.in_color_space = comps == 1 ? JCS_GRAYSCALE : comps == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 100, TRUE);
    if (progressive)
        jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(px + (size_t)c.next_scanline * w * comps);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*len);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

/* A 16 x 16 gradient, gray */
static void gradient(uint8_t *g)
{
    for (int i = 0; i < 256; i++)
        g[i] = (uint8_t)((i % 16) * 16);
}

static void expect_close(const unsigned char *got, const uint8_t *want, int n, int tol,
                         const char *what)
{
    for (int i = 0; i < n; i++)
        if (abs((int)got[i] - (int)want[i]) > tol)
            fail_msg("%s: value %d is %d, want %d +- %d", what, i, got[i], want[i], tol);
}

static void test_gray_rgb_progressive(void **state)
{
    char p[4096], q[4096], r3[4096];
    uint8_t g[256], rgb[768];
    gradient(g);
    for (int i = 0; i < 256; i++) { /* pure red: luma (299 * 255 + 500) / 1000 = 76 */
        rgb[3 * i] = 255;
        rgb[3 * i + 1] = rgb[3 * i + 2] = 0;
    }
    fx_join(p, sizeof p, *state, "g.jpg");
    fx_join(q, sizeof q, *state, "gp.jpeg");
    fx_join(r3, sizeof r3, *state, "red.jpg");
    write_jpeg(p, 16, 16, 1, g, 0);
    write_jpeg(q, 16, 16, 1, g, 1);
    write_jpeg(r3, 16, 16, 3, rgb, 0);
    unsigned char *pix;
    int r, c;
    fsvc_error err;
    assert_int_equal(ds_image_read(&pix, &r, &c, 1, p, &err), FSVC_OK);
    assert_int_equal(r, 16);
    assert_int_equal(c, 16);
    expect_close(pix, g, 256, 2, "gray baseline");
    free(pix);
    assert_int_equal(ds_image_read(&pix, &r, &c, 1, q, &err), FSVC_OK);
    expect_close(pix, g, 256, 2, "gray progressive");
    free(pix);
    /* gray read as RGB: R = G = B */
    assert_int_equal(ds_image_read(&pix, &r, &c, 3, p, &err), FSVC_OK);
    for (int i = 0; i < 256; i++) {
        assert_int_equal(pix[3 * i], pix[3 * i + 1]);
        assert_int_equal(pix[3 * i], pix[3 * i + 2]);
    }
    free(pix);
    assert_int_equal(ds_image_read(&pix, &r, &c, 3, r3, &err), FSVC_OK);
    expect_close(pix, rgb, 768, 3, "red as RGB");
    free(pix);
    uint8_t y[256];
    memset(y, 76, sizeof y);
    assert_int_equal(ds_image_read(&pix, &r, &c, 1, r3, &err), FSVC_OK);
    expect_close(pix, y, 256, 2, "red as gray (BT.601)");
    free(pix);
}

/* One line naming the file and the problem, FSVC_EINPUT, nothing out. */
static void expect_bad(const char *path, int channels, const char *what)
{
    unsigned char *pix = (unsigned char *)1;
    int r = 7, c = 7;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = ds_image_read(&pix, &r, &c, channels, path, &err);
    if (rc != FSVC_EINPUT)
        fail_msg("%s: rc %d (%s)", what, rc, err.msg);
    assert_null(pix);
    assert_int_equal(r, 0);
    assert_non_null(strstr(err.msg, path));
    assert_null(strchr(err.msg, '\n'));
    if (!strstr(err.msg, what))
        fail_msg("wanted '%s' in: %s", what, err.msg);
}

static void test_bad_files(void **state)
{
    char p[4096], bad[4096];
    uint8_t g[256], cmyk[1024];
    gradient(g);
    memset(cmyk, 40, sizeof cmyk);
    fx_join(p, sizeof p, *state, "g.jpg");
    fx_join(bad, sizeof bad, *state, "bad.jpg");
    write_jpeg(p, 16, 16, 1, g, 0);
    size_t len;
    unsigned char *b = slurp(p, &len);
    /* truncated: half the file (in the header), then in the scan data
     * (libjpeg would pad it with gray and only warn) */
    assert_int_equal(fx_write_file(bad, b, len / 2), 0);
    expect_bad(bad, 1, "bad JPEG");
    size_t sos = 0;
    for (size_t i = 2; i + 1 < len && !sos; i++)
        if (b[i] == 0xFF && b[i + 1] == 0xDA) sos = i;
    assert_true(sos > 0 && sos + 40 < len);
    assert_int_equal(fx_write_file(bad, b, sos + (len - sos) / 2), 0);
    expect_bad(bad, 1, "Premature end");
    /* corrupt: the header destroyed after the signature */
    unsigned char *z = malloc(len);
    memcpy(z, b, len);
    memset(z + 3, 0x5A, 40);
    assert_int_equal(fx_write_file(bad, z, len), 0);
    expect_bad(bad, 1, "bad JPEG");
    /* a huge declared size in a small file: the SOF0 marker's height and
     * width set to 16000 x 16000 */
    memcpy(z, b, len);
    size_t sof = 0;
    for (size_t i = 2; i + 9 < len && !sof; i++)
        if (z[i] == 0xFF && z[i + 1] == 0xC0) sof = i;
    assert_true(sof > 0);
    z[sof + 5] = 16000 >> 8; z[sof + 6] = 16000 & 255; /* height */
    z[sof + 7] = 16000 >> 8; z[sof + 8] = 16000 & 255; /* width */
    assert_int_equal(fx_write_file(bad, z, len), 0);
    expect_bad(bad, 1, "more than its");
    z[sof + 5] = 20000 >> 8; z[sof + 6] = 20000 & 255; /* over the side limit */
    assert_int_equal(fx_write_file(bad, z, len), 0);
    expect_bad(bad, 1, "the limit is 16384");
    free(z);
    free(b);
    /* CMYK */
    write_jpeg(bad, 16, 16, 4, cmyk, 0);
    expect_bad(bad, 1, "CMYK");
    expect_bad(bad, 3, "CMYK");
    /* neither PNG nor JPEG, and an empty file */
    assert_int_equal(fx_write_text(bad, "P5 not an image"), 0);
    expect_bad(bad, 1, "not a PNG or JPEG image");
    assert_int_equal(fx_write_file(bad, "", 0), 0);
    expect_bad(bad, 1, "an empty file");
}

/* Fuzz-style: every run flips a few random bytes of a valid JPEG; the
 * reader returns OK or one line of FSVC_EINPUT, never crashes (ASan). */
static void test_byte_flips(void **state)
{
    char p[4096], bad[4096];
    uint8_t rgb[768];
    for (int i = 0; i < 768; i++) rgb[i] = (uint8_t)(i * 7);
    fx_join(p, sizeof p, *state, "c.jpg");
    fx_join(bad, sizeof bad, *state, "flip.jpg");
    write_jpeg(p, 16, 16, 3, rgb, 1);
    size_t len;
    unsigned char *b = slurp(p, &len), *z = malloc(len);
    uint64_t s = 12345;
    int refused = 0;
    for (int run = 0; run < 300; run++) {
        memcpy(z, b, len);
        for (int k = 0; k < 1 + run % 4; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = 2 + (size_t)(s >> 33) % (len - 2); /* keep the signature */
            z[at] ^= (unsigned char)(1 + (s >> 20) % 255);
        }
        size_t cut = run % 5 == 4 ? len - (size_t)(s >> 40) % len / 2 : len;
        assert_int_equal(fx_write_file(bad, z, cut), 0);
        unsigned char *pix;
        int r, c;
        fsvc_error err;
        int rc = ds_image_read(&pix, &r, &c, 1 + 2 * (run & 1), bad, &err);
        assert_true(rc == FSVC_OK || rc == FSVC_EINPUT);
        if (rc == FSVC_OK) {
            assert_true(r >= 1 && c >= 1 && r <= 16384 && c <= 16384);
            free(pix);
        } else {
            refused++;
            assert_null(strchr(err.msg, '\n'));
            assert_non_null(strstr(err.msg, bad));
        }
    }
    assert_true(refused > 0);
    free(z);
    free(b);
}

/* A class folder of PNG and JPEG images with other files: every image
 * read, the others counted; sizes made one by opts->rows x cols. */
static void test_mixed_folder(void **state)
{
    char root[2048], p[4096];
    fx_join(root, sizeof root, *state, "mixed");
    assert_int_equal(mkdir(root, 0755), 0);
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%c", root, 'a' + k);
        assert_int_equal(mkdir(p, 0755), 0);
    }
    uint8_t g[256], small[64];
    gradient(g);
    memset(small, 200, sizeof small);
    snprintf(p, sizeof p, "%s/a/1.jpg", root);
    write_jpeg(p, 16, 16, 1, g, 0);
    snprintf(p, sizeof p, "%s/a/2.PNG", root);
    assert_int_equal(fx_write_png(p, 16, 16, 0, 8, g, NULL, 0), 0);
    snprintf(p, sizeof p, "%s/b/3.jpeg", root);
    write_jpeg(p, 8, 8, 1, small, 1);
    snprintf(p, sizeof p, "%s/b/notes.txt", root);
    assert_int_equal(fx_write_text(p, "not an image"), 0);
    snprintf(p, sizeof p, "%s/a/thumbs.db", root);
    assert_int_equal(fx_write_text(p, "x"), 0);
    snprintf(p, sizeof p, "%s/b/.hidden", root);
    assert_int_equal(fx_write_text(p, "x"), 0);
    fsvc_dataset d;
    fsvc_error err;
    /* sizes differ: refused without resizing, naming the image */
    assert_int_equal(fsvc_dataset_load(&d, root, NULL, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "3.jpeg"));
    fsvc_load_opts o = {0};
    o.rows = 4;
    o.cols = 8;
    assert_int_equal(fsvc_dataset_load(&d, root, &o, &err), FSVC_OK);
    assert_int_equal(d.N, 3);
    assert_int_equal(d.K, 2);
    assert_int_equal(d.rows, 4);
    assert_int_equal(d.cols, 8);
    assert_int_equal(d.n, 32);
    assert_int_equal(d.channels, 1);
    assert_int_equal(d.skipped, 2); /* notes.txt, thumbs.db; hidden ones aside */
    const uint8_t *x = d.x;
    for (int i = 0; i < 32; i++) /* the flat image stays flat when resized */
        assert_true(abs(x[2 * 32 + i] - 200) <= 2);
    fsvc_dataset_free(&d);
    o.channels = 3;
    assert_int_equal(fsvc_dataset_load(&d, root, &o, &err), FSVC_OK);
    assert_int_equal(d.n, 96);
    assert_int_equal(d.channels, 3);
    fsvc_dataset_free(&d);
    /* the batch listing: the same size, channels and count */
    assert_int_equal(fsvc_pngdir_list(&d, root, &o, &err), FSVC_OK);
    assert_int_equal(d.n, 96);
    assert_int_equal(d.skipped, 2);
    uint8_t xb[3 * 96];
    assert_int_equal(fsvc_pngdir_decode(xb, &d, 0, 3, 1, 1, &err), FSVC_OK);
    fsvc_dataset_free(&d);
    /* one .jpg file is a set of one image */
    snprintf(p, sizeof p, "%s/a/1.jpg", root);
    assert_int_equal(fsvc_dataset_load(&d, p, NULL, &err), FSVC_OK);
    assert_int_equal(d.N, 1);
    assert_int_equal(d.n, 256);
    fsvc_dataset_free(&d);
    assert_true(fsvc_source_is_png(p));
}

/* RGB from a PNG: colour kept, alpha over black. */
static void test_png_rgb(void **state)
{
    char p[4096];
    uint8_t rgba[8] = {255, 0, 0, 255, 0, 130, 0, 128};
    fx_join(p, sizeof p, *state, "rgba.png");
    assert_int_equal(fx_write_png(p, 2, 1, 6, 8, rgba, NULL, 0), 0);
    unsigned char *pix;
    int r, c;
    fsvc_error err;
    assert_int_equal(ds_image_read(&pix, &r, &c, 3, p, &err), FSVC_OK);
    const uint8_t want[6] = {255, 0, 0, 0, 65, 0}; /* 130 * 128 / 255 = 65.3 */
    assert_memory_equal(pix, want, 6);
    free(pix);
    assert_int_equal(ds_image_read(&pix, &r, &c, 1, p, &err), FSVC_OK);
    assert_int_equal(pix[0], 76);
    assert_int_equal(pix[1], (76 * 128 + 127) / 255);
    free(pix);
}

/* A tiny model of n features for the image fields. */
static void tiny_model(fsvc_model *m, int n)
{
    memset(m, 0, sizeof *m);
    m->dtype = FSVC_U8;
    m->n = n;
    m->dist = 1;
    m->act = 1;
    m->radius = 1;
    m->prag = 1;
    m->readout = FSVC_READOUT_RIDGE;
    m->K = 2;
    m->Kout = 2;
    m->m = 2;
    m->class_values = calloc(2, sizeof *m->class_values);
    m->class_values[1] = 1;
    m->lab = calloc(2, sizeof *m->lab);
    m->lab[1] = 1;
    m->C = calloc((size_t)2 * n, 1);
    m->R = calloc(4, sizeof *m->R);
}

static void test_model_image_fields(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "m.fsvc");
    fsvc_model m, l;
    fsvc_error err;
    /* RGB 4 x 2 resized: 24 features, written as version 6 */
    tiny_model(&m, 24);
    m.img_rows = 4; m.img_cols = 2; m.img_channels = 3; m.img_resize = 1;
    if (fsvc_model_save(&m, p, &err)) fail_msg("%s", err.msg);
    size_t len;
    unsigned char *b = slurp(p, &len);
    assert_int_equal(b[8], 6);
    free(b);
    assert_int_equal(fsvc_model_load(&l, p, &err), FSVC_OK);
    assert_int_equal(l.img_rows, 4);
    assert_int_equal(l.img_cols, 2);
    assert_int_equal(l.img_channels, 3);
    assert_int_equal(l.img_resize, 1);
    fsvc_free_model(&l);
    /* fields that do not make n: refused on save */
    m.img_cols = 3;
    assert_int_equal(fsvc_model_save(&m, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "image fields"));
    m.img_cols = 2; m.img_channels = 2;
    assert_int_equal(fsvc_model_save(&m, p, &err), FSVC_EINPUT);
    /* a gray model that is not resized keeps the older version */
    m.img_channels = 1; m.img_resize = 0; m.img_rows = 4; m.img_cols = 6;
    if (fsvc_model_save(&m, p, &err)) fail_msg("%s", err.msg);
    b = slurp(p, &len);
    assert_int_equal(b[8], 3);
    free(b);
    assert_int_equal(fsvc_model_load(&l, p, &err), FSVC_OK);
    assert_int_equal(l.img_rows, 0);
    assert_int_equal(l.img_resize, 0);
    fsvc_free_model(&l);
    fsvc_free_model(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_gray_rgb_progressive, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_bad_files, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_byte_flips, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_mixed_folder, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_png_rgb, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_model_image_fields, fx_tmpdir_setup, fx_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
