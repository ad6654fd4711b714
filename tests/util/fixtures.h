/* fixtures.h - tiny test inputs written by the tests themselves into a
 * temporary folder: files, gzip files, IDX arrays and MNIST-style pairs,
 * LIBSVM text, PNG images; and where the shared real datasets live.
 * Every function returns 0 on success, -1 on failure (errno or libpng). */
#ifndef FSVC_TESTS_FIXTURES_H
#define FSVC_TESTS_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/* A uniform double in [0, 1) from a splitmix64 state (advanced). */
double fx_urand(uint64_t *state);
/* A new empty folder under $TMPDIR (or /tmp): malloc'd path, NULL on error. */
char *fx_tmpdir(void);
/* Removes dir and everything below it. */
void fx_rmtree(const char *dir);
/* cmocka group fixtures: *state = a fresh fx_tmpdir(), removed after. */
int fx_tmpdir_setup(void **state);
int fx_tmpdir_teardown(void **state);
/* out = dir/name (out: sz bytes); returns out. */
char *fx_join(char *out, size_t sz, const char *dir, const char *name);
/* 1 if path exists. */
int fx_exists(const char *path);

int fx_write_file(const char *path, const void *data, size_t len);
int fx_write_text(const char *path, const char *text);
/* gzip-compressed data (a valid .gz member). */
int fx_write_gz(const char *path, const void *data, size_t len);
/* In-memory gzip of data: *out malloc'd, *outlen bytes. */
int fx_gzip(unsigned char **out, size_t *outlen, const void *data, size_t len);

/* IDX bytes: header (00 00 type rank, dims big-endian) + elements converted
 * from host order to big-endian. data: prod(dims) elements of the C type of
 * `type` (0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32, 0x0E f64).
 * *out malloc'd, returns its length (0 on error). */
size_t fx_idx_bytes(unsigned char **out, int type, int rank, const uint32_t *dims,
                    const void *data);
int fx_write_idx(const char *path, int gz, int type, int rank,
                 const uint32_t *dims, const void *data);
/* DIR/PREFIX-images-idx3-ubyte[.gz] (pix: N x rows x cols u8) and
 * DIR/PREFIX-labels-idx1-ubyte[.gz] (labels: N u8). */
int fx_write_mnist_pair(const char *dir, const char *prefix, int gz, uint32_t N,
                        uint32_t rows, uint32_t cols, const uint8_t *pix,
                        const uint8_t *labels);

/* A PNG of w x h. color_type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha,
 * 6 RGBA; bit_depth 8 or 16 (16: samples are uint16_t in host order).
 * data: h rows of w * channels samples (palette: indices). palette: npal
 * RGB triples for color_type 3, else NULL. */
int fx_write_png(const char *path, int w, int h, int color_type, int bit_depth,
                 const void *data, const uint8_t *palette, int npal);

/* The test data folder (mnist/, uci-dogaru/): $FSVC_DATA if set, else
 * build/data, where make expands the repository's data/ (tests run from
 * the repository root). Writes into out, returns out. */
const char *fx_data(char *out, size_t sz);

/* Real data is never optional: a test that needs a dataset file and does
 * not find it FAILS (it does not skip or pass silently). fx_missing
 * returns NULL when path exists, else one line naming the path and how to
 * provide it (`make test-data` or FSVC_DATA, `make deps` for Debian's
 * /usr/share/datasets). FX_REQUIRE fails the current cmocka test with that
 * line (include <cmocka.h> before using it). */
const char *fx_missing(const char *path);
#define FX_REQUIRE(path)                                                        \
    do {                                                                        \
        const char *fx_why_ = fx_missing(path);                                 \
        if (fx_why_)                                                            \
            fail_msg("%s", fx_why_);                                            \
    } while (0)

#endif
