/* hog.h - histograms of oriented gradients (HOG) of grey images, the
 * features `--features hog` appends to the pixels (fsvc_model_input).
 *
 * For an image I (rows x cols, row-major, values as given):
 *   gx(r, c) = I(r, c+1) - I(r, c-1) for 0 < c < cols-1, else 0
 *   gy(r, c) = I(r+1, c) - I(r-1, c) for 0 < r < rows-1, else 0
 *   magnitude sqrt(gx^2 + gy^2), unsigned orientation atan2(gy, gx) mod pi
 * Each pixel votes its magnitude into FSVC_HOG_BINS bins over [0, pi),
 * split linearly between the two bins whose centres-at-k*pi/8 enclose its
 * orientation. Cells of FSVC_HOG_CELL x FSVC_HOG_CELL pixels (the last row
 * and column of cells partial when rows or cols are not multiples), in
 * row-major cell order, bins innermost; each value is the square root of
 * its bin's sum (a variance-stabilising curve, as sqrt on the pixels).
 * The orientation comes from a polynomial arctangent (error < 1e-5 rad), so
 * that a batch costs a few flops a pixel and gives the same bits on every
 * CPU (no libm in the loop). 28 x 28 images: 7 x 7 cells, 392 values. */
#ifndef FSVC_HOG_H
#define FSVC_HOG_H

#include "../base/fsvc_base.h" /* fsvc_dtype */

#include <stdint.h>

#define FSVC_HOG_CELL 4
#define FSVC_HOG_BINS 8

/* Values of one image's HOG: ceil(rows/4) ceil(cols/4) 8; 0 for a bad
 * shape (rows or cols < 1). */
int64_t fsvc_hog_width(int rows, int cols);

/* One image: out (fsvc_hog_width values) from img. */
void fsvc_hog_image(float *out, const float *img, int rows, int cols);

/* N images of rows x cols values of type t, each value multiplied by unit
 * first (u8 images: 1/255), into out (N x fsvc_hog_width); on up to
 * threads OpenMP threads (<= 0: the default).
 * -1 on bad arguments or no memory, else 0. */
int fsvc_hog_batch(float *out, const void *img, fsvc_dtype t, double unit, int64_t N, int rows,
                   int cols, int threads);

#endif
