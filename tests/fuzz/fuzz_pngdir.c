/* fuzz_pngdir.c - libFuzzer target for PNG folder walking (datasets/pngdir.c
 * and png.c): the input is a small program that builds a folder tree in a
 * temporary folder - sub-folders, valid PNGs of several sizes and colour
 * types, junk named .png, other files, hidden entries, FIFOs, symbolic links
 * (to files, folders, loops, nowhere) - which is then loaded as a training
 * set and as an unlabelled set, with and without resizing.
 *
 * Input: byte 0 = options (bit 0 resize, bit 1 unlabelled); then commands,
 * one byte each (low 3 bits the command, high bits its argument) followed
 * by the bytes the command takes. On success the dataset must be
 * consistent; on failure the message is one line without "(null)" and
 * nothing is left allocated. Build and run: make fuzz. */
#include "datasets/datasets.h"
#include "datasets/loaders.h"

#include <dirent.h>
#include <fcntl.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64]; /* the temporary folder of this process */

static void rmtree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rmtree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void cleanup(void)
{
    if (root[0])
        rmtree(root);
}

typedef struct reader {
    const uint8_t *p, *end;
} reader;

static int next(reader *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

/* A short entry name from the input: 1-3 letters of "abc" (few distinct
 * names, so that collisions, sorting and overwrites happen). */
static void name(reader *r, char *out, const char *suffix)
{
    int b = next(r), k = 1 + b % 3;
    for (int i = 0; i < k; i++)
        out[i] = (char)('a' + (b >> (2 + 2 * i)) % 3);
    strcpy(out + k, suffix);
}

/* A valid PNG: 1..8 x 1..8, gray / gray+alpha / RGB / RGBA, pixels from
 * the input. */
static void write_png(reader *r, const char *path)
{
    static const png_uint_32 fmt[4] = {PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB,
                                       PNG_FORMAT_RGBA};
    int b = next(r);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = 1 + (b & 7);
    img.height = 1 + ((b >> 3) & 7);
    img.format = fmt[(b >> 6) & 3];
    size_t n = PNG_IMAGE_SIZE(img);
    unsigned char *px = malloc(n);
    if (!px)
        return;
    for (size_t i = 0; i < n; i++)
        px[i] = (unsigned char)next(r);
    png_image_write_to_file(&img, path, 0, px, 0, NULL);
    png_image_free(&img);
    free(px);
}

/* Removes a non-folder entry at p, so that writing a file there never
 * opens a FIFO made earlier under the same name (that would block). */
static const char *fresh(const char *p)
{
    struct stat st;
    if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
        unlink(p);
    return p;
}

static void build(reader *r, const char *top)
{
    char cwd[8][1024]; /* the folder stack */
    int depth = 0;
    snprintf(cwd[0], sizeof cwd[0], "%s", top);
    char p[1200], q[1200], nm[16];
    for (int ops = 0; r->p < r->end && ops < 64; ops++) {
        int c = next(r);
        switch (c & 7) {
        case 0: /* enter a (new) sub-folder */
            name(r, nm, "");
            snprintf(p, sizeof p, "%s/%s", cwd[depth], nm);
            mkdir(p, 0700);
            if (depth < 7) {
                struct stat st;
                if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && strlen(p) < sizeof cwd[0])
                    memcpy(cwd[++depth], p, strlen(p) + 1);
            }
            break;
        case 1: /* leave it */
            if (depth > 0)
                depth--;
            break;
        case 2: /* a valid PNG */
            name(r, nm, (c & 8) ? ".PNG" : ".png");
            snprintf(p, sizeof p, "%s/%s", cwd[depth], nm);
            write_png(r, fresh(p));
            break;
        case 3: { /* junk bytes under a .png name (a PNG signature sometimes) */
            name(r, nm, ".png");
            snprintf(p, sizeof p, "%s/%s", cwd[depth], nm);
            int fd = open(fresh(p), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) {
                int k = next(r) % 64;
                if (c & 8)
                    (void)!write(fd, "\x89PNG\r\n\x1a\n", 8);
                if (k > r->end - r->p)
                    k = (int)(r->end - r->p);
                (void)!write(fd, r->p, (size_t)k);
                r->p += k;
                close(fd);
            }
            break;
        }
        case 4: /* another file, or a hidden one */
            name(r, nm, (c & 8) ? ".txt" : "");
            snprintf(p, sizeof p, "%s/%s%s", cwd[depth], (c & 16) ? "." : "", nm);
            if (c & 32)
                write_png(r, fresh(p));
            else
                close(open(fresh(p), O_WRONLY | O_CREAT, 0600));
            break;
        case 5: /* a FIFO named like an image */
            name(r, nm, ".png");
            snprintf(p, sizeof p, "%s/%s", cwd[depth], nm);
            mkfifo(p, 0600);
            break;
        case 6: { /* a symbolic link: to a folder above (a loop), to a
                     sibling entry, or to nothing */
            name(r, nm, (c & 8) ? ".png" : "");
            snprintf(p, sizeof p, "%s/%s", cwd[depth], nm);
            int to = (c >> 4) & 3;
            if (to == 0)
                snprintf(q, sizeof q, "%s", cwd[0]);
            else if (to == 1)
                snprintf(q, sizeof q, "..");
            else if (to == 2)
                name(r, q, ".png");
            else
                snprintf(q, sizeof q, "/nonexistent/x.png");
            symlink(q, p);
            break;
        }
        default: /* an unreadable file */
            name(r, nm, ".png");
            snprintf(p, sizeof p, "%s/%s", cwd[depth], nm);
            write_png(r, fresh(p));
            chmod(p, 0);
            break;
        }
    }
}

static void check(const fsvc_dataset *d, int rc, const fsvc_error *err, int labelled_ok)
{
    if (rc != FSVC_OK) {
        if (!err->msg[0] || strchr(err->msg, '\n') || strstr(err->msg, "(null)") || d->x ||
            d->paths || d->y)
            abort();
        return;
    }
    if (d->N < 1 || d->n < 1 || d->n != d->rows * d->cols || !d->x || !d->paths)
        abort();
    for (int64_t i = 0; i < d->N; i++)
        if (!d->paths[i])
            abort();
    if (d->has_labels) {
        if (!labelled_ok || !d->y || !d->cls || d->K < 1 || !d->class_names)
            abort();
        for (int64_t i = 0; i < d->N; i++)
            if (d->cls[i] < 0 || d->cls[i] >= d->K)
                abort();
        for (int k = 0; k < d->K; k++)
            if (!d->class_names[k])
                abort();
    }
    /* touch every pixel */
    unsigned sum = 0;
    for (size_t i = 0; i < (size_t)d->N * (size_t)d->n; i++)
        sum += ((const unsigned char *)d->x)[i];
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!root[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(root, sizeof root, "%s/fuzz_pngdir.XXXXXX", t && strlen(t) < 32 ? t : "/tmp");
        if (!mkdtemp(root)) {
            root[0] = 0;
            return 0;
        }
        atexit(cleanup);
    }
    char top[128];
    snprintf(top, sizeof top, "%s/t", root);
    rmtree(top);
    if (mkdir(top, 0700) != 0)
        return 0;
    reader r = {data + 1, data + size};
    build(&r, top);
    fsvc_load_opts o = {.resize = (data[0] & 1) != 0, .allow_unlabelled = (data[0] & 2) != 0};
    fsvc_dataset d;
    fsvc_error err;
    fsvc_error_clear(&err);
    int rc = ds_png_load_dir(&d, top, &o, &err);
    check(&d, rc, &err, 1);
    if (rc == FSVC_OK)
        fsvc_dataset_free(&d);
    /* the whole loader too (folder kind detection) */
    fsvc_error_clear(&err);
    rc = fsvc_dataset_load(&d, top, &o, &err);
    check(&d, rc, &err, 1);
    if (rc == FSVC_OK)
        fsvc_dataset_free(&d);
    return 0;
}
