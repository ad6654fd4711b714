/* hog.c - histograms of oriented gradients (see hog.h). */
#include "fsvc/hog.h"

#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int64_t fsvc_hog_width(int rows, int cols)
{
    if (rows < 1 || cols < 1) return 0;
    int64_t cr = (rows + FSVC_HOG_CELL - 1) / FSVC_HOG_CELL;
    int64_t cc = (cols + FSVC_HOG_CELL - 1) / FSVC_HOG_CELL;
    return cr * cc * FSVC_HOG_BINS;
}

/* atan(t) for t in [0, 1]: an odd minimax polynomial, |error| < 1e-5. */
static float atan01(float t)
{
    float s = t * t;
    return t * (0.99997726f + s * (-0.33262347f + s * (0.19354346f + s * (-0.11643287f +
           s * (0.05265332f + s * -0.01172120f)))));
}

/* The orientation of (gx, gy) != 0 in bins: atan2(gy, gx) mod pi times
 * 8 / pi, in [0, 8). */
static float orient_bins(float gx, float gy)
{
    const float pi = 3.14159265358979f;
    if (gy < 0 || (gy == 0 && gx < 0)) { gx = -gx; gy = -gy; } /* same line, gy >= 0 */
    float ax = fabsf(gx);
    float a = ax >= gy ? atan01(gy / ax) : 0.5f * pi - atan01(ax / gy); /* in [0, pi/2] */
    float th = gx >= 0 ? a : pi - a;
    float pos = th * (FSVC_HOG_BINS / pi);
    return pos >= FSVC_HOG_BINS ? pos - FSVC_HOG_BINS : pos;
}

void fsvc_hog_image(float *out, const float *img, int rows, int cols)
{
    int cc = (cols + FSVC_HOG_CELL - 1) / FSVC_HOG_CELL;
    int64_t w = fsvc_hog_width(rows, cols);
    for (int64_t q = 0; q < w; q++) out[q] = 0;
    for (int r = 0; r < rows; r++) {
        float *cell_row = out + (size_t)(r / FSVC_HOG_CELL) * cc * FSVC_HOG_BINS;
        for (int c = 0; c < cols; c++) {
            const float *p = img + (size_t)r * cols + c;
            float gx = c > 0 && c < cols - 1 ? p[1] - p[-1] : 0;
            float gy = r > 0 && r < rows - 1 ? p[cols] - p[-cols] : 0;
            float mag = sqrtf(gx * gx + gy * gy);
            if (!(mag > 0)) continue;
            float pos = orient_bins(gx, gy);
            int lo = (int)pos;
            float f = pos - (float)lo;
            float *h = cell_row + (size_t)(c / FSVC_HOG_CELL) * FSVC_HOG_BINS;
            h[lo] += mag * (1 - f);
            h[(lo + 1) % FSVC_HOG_BINS] += mag * f;
        }
    }
    for (int64_t q = 0; q < w; q++) out[q] = sqrtf(out[q]);
}

int fsvc_hog_batch(float *out, const void *img, fsvc_dtype t, double unit, int64_t N, int rows,
                   int cols, int threads)
{
    int64_t w = fsvc_hog_width(rows, cols);
    size_t n = (size_t)rows * (size_t)cols;
    if (!out || (!img && N > 0) || N < 0 || w < 1 || t > FSVC_F64) return -1;
    int bad = 0;
#ifdef _OPENMP
    int nt = threads > 0 ? threads : omp_get_max_threads();
    if ((int64_t)nt > N) nt = N > 0 ? (int)N : 1;
#pragma omp parallel num_threads(nt) reduction(| : bad)
#else
    (void)threads;
#endif
    {
        float *f = malloc(n * sizeof *f);
        bad = !f;
        #pragma omp for schedule(static)
        for (int64_t i = 0; i < N; i++) {
            if (!f) continue;
            size_t q = (size_t)i * n;
            if (t == FSVC_U8)
                for (size_t k = 0; k < n; k++) f[k] = (float)(((const uint8_t *)img)[q + k] * unit);
            else if (t == FSVC_F32)
                for (size_t k = 0; k < n; k++) f[k] = (float)(((const float *)img)[q + k] * unit);
            else
                for (size_t k = 0; k < n; k++) f[k] = (float)(((const double *)img)[q + k] * unit);
            fsvc_hog_image(out + (size_t)i * (size_t)w, f, rows, cols);
        }
        free(f);
    }
    return bad ? -1 : 0;
}
