/* deskew.c - moment-based deskewing of images (see deskew.h). */
#include "fsvc/deskew.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* A row's sum of p[c] and of c p[c], in double in column order; for u8
 * rows in integers (exact, so the same doubles), vectorised. */
static void row_sums_float(const float *p, int cols, double *rs, double *xs)
{
    double a = 0, b = 0;
    for (int c = 0; c < cols; c++) {
        a += (double)p[c];
        b += (double)c * (double)p[c];
    }
    *rs = a;
    *xs = b;
}

static void row_sums_uint8_t(const uint8_t *p, int cols, double *rs, double *xs)
{
    int64_t a = 0, b = 0;
    for (int c0 = 0; c0 < cols; c0 += 2048) { /* int32 within 2048 columns: exact */
        int c1 = cols - c0 < 2048 ? cols : c0 + 2048;
        int32_t a32 = 0, b32 = 0;
#pragma omp simd reduction(+ : a32, b32)
        for (int c = c0; c < c1; c++) {
            a32 += p[c];
            b32 += (c - c0) * p[c];
        }
        a += a32;
        b += b32 + (int64_t)c0 * a32;
    }
    *rs = (double)a;
    *xs = (double)b;
}

/* Moments in double: returns 0 and leaves *alpha, *cy when defined. */
#define MOMENTS(T)                                                          \
    static int moments_##T(const T *img, int rows, int cols, double *alpha, \
                           double *cy_out)                                  \
    {                                                                       \
        double m0 = 0, sx = 0, sy = 0;                                      \
        for (int r = 0; r < rows; r++) {                                    \
            const T *p = img + (size_t)r * cols;                            \
            double rs, xs;                                                  \
            row_sums_##T(p, cols, &rs, &xs);                                \
            m0 += rs;                                                       \
            sy += (double)r * rs;                                           \
            sx += xs;                                                       \
        }                                                                   \
        if (!(m0 > 0))                                                      \
            return -1;                                                      \
        double cy = sy / m0, cx = sx / m0, vy = 0, cxy = 0;                 \
        for (int r = 0; r < rows; r++) {                                    \
            const T *p = img + (size_t)r * cols;                            \
            double dy = (double)r - cy, rs = 0, xs = 0;                     \
            for (int c = 0; c < cols; c++) {                                \
                rs += (double)p[c];                                         \
                xs += ((double)c - cx) * (double)p[c];                      \
            }                                                               \
            vy += dy * dy * rs;                                             \
            cxy += dy * xs;                                                 \
        }                                                                   \
        vy /= m0;                                                           \
        cxy /= m0;                                                          \
        if (!(vy > 1e-12) || !isfinite(cxy))                                \
            return -1;                                                      \
        *alpha = cxy / vy;                                                  \
        *cy_out = cy;                                                       \
        return isfinite(*alpha) ? 0 : -1;                                   \
    }

MOMENTS(uint8_t)
MOMENTS(float)

double fsvc_deskew_alpha_u8(const uint8_t *img, int rows, int cols)
{
    double a, cy;
    if (!img || rows < 1 || cols < 1 || moments_uint8_t(img, rows, cols, &a, &cy))
        return 0;
    return a;
}

double fsvc_deskew_alpha_f32(const float *img, int rows, int cols)
{
    double a, cy;
    if (!img || rows < 1 || cols < 1 || moments_float(img, rows, cols, &a, &cy))
        return 0;
    return a;
}

/* Value of row p at real column s by linear interpolation, 0 outside. */
#define SAMPLE(T)                                                           \
    static inline double sample_##T(const T *p, int cols, double s)         \
    {                                                                       \
        double fl = floor(s);                                               \
        if (fl < -1.0 || fl > (double)cols)                                 \
            return 0;                                                       \
        int x0 = (int)fl;                                                   \
        double f = s - fl;                                                  \
        double v0 = (x0 >= 0 && x0 < cols) ? (double)p[x0] : 0.0;           \
        double v1 = (x0 + 1 >= 0 && x0 + 1 < cols) ? (double)p[x0 + 1] : 0.0; \
        return v0 * (1.0 - f) + v1 * f;                                     \
    }

SAMPLE(uint8_t)
SAMPLE(float)

/* One row of u8 deskewing: sample_uint8_t's value, rounded as floor(v +
 * 0.5), by the same double operations, its branches and floor() replaced
 * by exact equivalents: the row read through a copy with two zeros on each
 * side (pad: cols + 4 values, as doubles), floor(s) = trunc(s) - (trunc(s) >
 * s) once s is in range, and floor(v + 0.5) = trunc(v + 0.5) for v >= 0. */
#define DESKEW_PAD_COLS 256 /* the padded copy's width on the stack */
static void deskew_row_u8(const double *pad, uint8_t *q, int cols, double sh)
{
    for (int c = 0; c < cols; c++) {
        double s = (double)c + sh;
        if (!(s >= -1.0 && s < (double)cols + 1.0)) { /* floor(s) < -1 or > cols */
            q[c] = 0;
            continue;
        }
        int x0 = (int)s;
        x0 -= (double)x0 > s;
        double f = s - (double)x0;
        double v = pad[x0 + 2] * (1.0 - f) + pad[x0 + 3] * f;
        int iv = (int)(v + 0.5);
        q[c] = (uint8_t)(iv < 0 ? 0 : iv > 255 ? 255 : iv);
    }
}

void fsvc_deskew_u8(const uint8_t *in, uint8_t *out, int rows, int cols)
{
    double a, cy;
    if (rows < 1 || cols < 1)
        return;
    if (moments_uint8_t(in, rows, cols, &a, &cy)) {
        memcpy(out, in, (size_t)rows * cols);
        return;
    }
    double pad[DESKEW_PAD_COLS + 4];
    for (int r = 0; r < rows; r++) {
        const uint8_t *p = in + (size_t)r * cols;
        uint8_t *q = out + (size_t)r * cols;
        double sh = a * ((double)r - cy);
        if (cols > DESKEW_PAD_COLS) { /* wider than MNIST-like images: the plain loop */
            for (int c = 0; c < cols; c++) {
                double v = floor(sample_uint8_t(p, cols, (double)c + sh) + 0.5);
                q[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
            continue;
        }
        pad[0] = pad[1] = pad[cols + 2] = pad[cols + 3] = 0.0;
        for (int c = 0; c < cols; c++) pad[c + 2] = (double)p[c];
        deskew_row_u8(pad, q, cols, sh);
    }
}

void fsvc_deskew_f32(const float *in, float *out, int rows, int cols)
{
    double a, cy;
    if (rows < 1 || cols < 1)
        return;
    if (moments_float(in, rows, cols, &a, &cy)) {
        memcpy(out, in, (size_t)rows * cols * sizeof(float));
        return;
    }
    for (int r = 0; r < rows; r++) {
        const float *p = in + (size_t)r * cols;
        float *q = out + (size_t)r * cols;
        double sh = a * ((double)r - cy);
        for (int c = 0; c < cols; c++)
            q[c] = (float)sample_float(p, cols, (double)c + sh);
    }
}

/* Runs one(image) over N images through a per-thread scratch copy, so that
 * in == out works. */
typedef void (*deskew_one_fn)(const void *in, void *out, int rows, int cols);

static void one_u8(const void *in, void *out, int rows, int cols)
{
    fsvc_deskew_u8(in, out, rows, cols);
}

static void one_f32(const void *in, void *out, int rows, int cols)
{
    fsvc_deskew_f32(in, out, rows, cols);
}

static int batch(const void *in, void *out, int64_t N, int rows, int cols,
                 int threads, size_t esz, deskew_one_fn one)
{
    if (!in || !out || N < 0 || rows < 1 || cols < 1)
        return -1;
    size_t bytes = (size_t)rows * (size_t)cols * esz;
    int fail = 0;
#ifdef _OPENMP
    int nt = threads > 0 ? threads : omp_get_max_threads();
    if ((int64_t)nt > N)
        nt = N > 0 ? (int)N : 1;
#pragma omp parallel num_threads(nt) reduction(| : fail)
#else
    (void)threads;
#endif
    {
        unsigned char *tmp = malloc(bytes);
        if (!tmp)
            fail = 1;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (int64_t i = 0; i < N; i++) {
            if (!tmp)
                continue;
            memcpy(tmp, (const unsigned char *)in + (size_t)i * bytes, bytes);
            one(tmp, (unsigned char *)out + (size_t)i * bytes, rows, cols);
        }
        free(tmp);
    }
    return fail ? -1 : 0;
}

int fsvc_deskew_u8_batch(const uint8_t *in, uint8_t *out, int64_t N, int rows,
                         int cols, int threads)
{
    return batch(in, out, N, rows, cols, threads, sizeof(uint8_t), one_u8);
}

int fsvc_deskew_f32_batch(const float *in, float *out, int64_t N, int rows,
                          int cols, int threads)
{
    return batch(in, out, N, rows, cols, threads, sizeof(float), one_f32);
}
