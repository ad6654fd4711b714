/* fixtures.c - tiny test inputs written by the tests (see fixtures.h). */
#include "tests/util/fixtures.h"

#include <dirent.h>
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

char *fx_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/fsvc-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpl))
        return NULL;
    return strdup(tmpl);
}

void fx_rmtree(const char *dir)
{
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[4096];
            fx_join(p, sizeof p, dir, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                fx_rmtree(p);
            else
                unlink(p);
        }
        closedir(dp);
    }
    rmdir(dir);
}

char *fx_join(char *out, size_t sz, const char *dir, const char *name)
{
    snprintf(out, sz, "%s/%s", dir, name);
    return out;
}

int fx_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int fx_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = len ? fwrite(data, 1, len, f) : 0;
    return (fclose(f) == 0 && w == len) ? 0 : -1;
}

int fx_write_text(const char *path, const char *text)
{
    return fx_write_file(path, text, strlen(text));
}

int fx_gzip(unsigned char **out, size_t *outlen, const void *data, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = deflateBound(&z, (uLong)len) + 64;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)len;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *outlen = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

int fx_write_gz(const char *path, const void *data, size_t len)
{
    unsigned char *gz;
    size_t gl;
    if (fx_gzip(&gz, &gl, data, len))
        return -1;
    int rc = fx_write_file(path, gz, gl);
    free(gz);
    return rc;
}

static size_t type_size(int type)
{
    switch (type) {
    case 0x08: case 0x09: return 1;
    case 0x0B: return 2;
    case 0x0C: case 0x0D: return 4;
    case 0x0E: return 8;
    }
    return 0;
}

size_t fx_idx_bytes(unsigned char **out, int type, int rank, const uint32_t *dims,
                    const void *data)
{
    size_t es = type_size(type), count = 1;
    for (int k = 0; k < rank; k++)
        count *= dims[k];
    size_t len = 4 + 4 * (size_t)rank + count * es;
    unsigned char *b = malloc(len);
    if (!b)
        return 0;
    b[0] = b[1] = 0;
    b[2] = (unsigned char)type;
    b[3] = (unsigned char)rank;
    for (int k = 0; k < rank; k++) {
        b[4 + 4 * k] = (unsigned char)(dims[k] >> 24);
        b[5 + 4 * k] = (unsigned char)(dims[k] >> 16);
        b[6 + 4 * k] = (unsigned char)(dims[k] >> 8);
        b[7 + 4 * k] = (unsigned char)dims[k];
    }
    unsigned char *p = b + 4 + 4 * rank;
    const unsigned char *s = data;
    for (size_t i = 0; i < count; i++, p += es, s += es) {
        /* host (little-endian here) to big-endian */
        const unsigned one = 1;
        int little = *(const unsigned char *)&one == 1;
        for (size_t k = 0; k < es; k++)
            p[k] = little ? s[es - 1 - k] : s[k];
    }
    *out = b;
    return len;
}

int fx_write_idx(const char *path, int gz, int type, int rank,
                 const uint32_t *dims, const void *data)
{
    unsigned char *b;
    size_t len = fx_idx_bytes(&b, type, rank, dims, data);
    if (!len)
        return -1;
    int rc = gz ? fx_write_gz(path, b, len) : fx_write_file(path, b, len);
    free(b);
    return rc;
}

int fx_write_mnist_pair(const char *dir, const char *prefix, int gz, uint32_t N,
                        uint32_t rows, uint32_t cols, const uint8_t *pix,
                        const uint8_t *labels)
{
    char p[4096];
    uint32_t di[3] = {N, rows, cols}, dl[1] = {N};
    snprintf(p, sizeof p, "%s/%s-images-idx3-ubyte%s", dir, prefix, gz ? ".gz" : "");
    if (fx_write_idx(p, gz, 0x08, 3, di, pix))
        return -1;
    snprintf(p, sizeof p, "%s/%s-labels-idx1-ubyte%s", dir, prefix, gz ? ".gz" : "");
    return fx_write_idx(p, gz, 0x08, 1, dl, labels);
}

int fx_write_png(const char *path, int w, int h, int color_type, int bit_depth,
                 const void *data, const uint8_t *palette, int npal)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return -1;
    }
    int ch = color_type == 0 || color_type == 3 ? 1 : color_type == 4 ? 2
           : color_type == 2 ? 3 : 4;
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, bit_depth, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (color_type == 3) {
        png_color pal[256];
        for (int i = 0; i < npal && i < 256; i++) {
            pal[i].red = palette[3 * i];
            pal[i].green = palette[3 * i + 1];
            pal[i].blue = palette[3 * i + 2];
        }
        png_set_PLTE(png, info, pal, npal);
    }
    png_write_info(png, info);
    if (bit_depth == 16) {
        const unsigned one = 1;
        if (*(const unsigned char *)&one == 1)
            png_set_swap(png);
    }
    size_t rb = (size_t)w * ch * (bit_depth == 16 ? 2 : 1);
    for (int r = 0; r < h; r++)
        png_write_row(png, (png_const_bytep)data + r * rb);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return fclose(f) == 0 ? 0 : -1;
}

const char *fx_data(char *out, size_t sz)
{
    const char *e = getenv("FSVC_DATA");
    snprintf(out, sz, "%s", e && *e ? e : "build/data");
    return out;
}

const char *fx_missing(const char *path)
{
    static char why[4600];
    if (fx_exists(path))
        return NULL;
    if (!strncmp(path, "/usr/share/datasets/", 20))
        snprintf(why, sizeof why, "missing dataset %s: install the Debian package "
                 "(make deps)", path);
    else
        snprintf(why, sizeof why, "missing dataset %s: the tests read the repository's "
                 "data/ expanded by `make test-data` (default build/data; "
                 "FSVC_DATA=DIR for another folder)", path);
    return why;
}

int fx_tmpdir_setup(void **state)
{
    char *dir = fx_tmpdir();
    *state = dir;
    return dir ? 0 : -1;
}

int fx_tmpdir_teardown(void **state)
{
    fx_rmtree(*state);
    free(*state);
    return 0;
}

double fx_urand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}
