/* deskew.h - deskewing of grey-level images by their second moments, the
 * classic preprocessing step of kernel methods on MNIST digits.
 *
 * For an image I(row, col) >= 0 (pixel centres at integer coordinates):
 *   m0 = sum I,  cy = sum row*I / m0,  cx = sum col*I / m0
 *   var_y = sum (row-cy)^2 I / m0,  cov_xy = sum (col-cx)(row-cy) I / m0
 *   alpha = cov_xy / var_y
 * and the output is the image sheared by alpha about its centre of mass
 * (rows stay in place, the centre of mass does not move):
 *   out(row, col) = I(row, col + alpha * (row - cy))
 * with (bi)linear interpolation, pixels outside the image reading as 0.
 * The u8 versions round to nearest (x.5 up) and clamp to 0..255.
 * A blank image (m0 = 0) or one with var_y = 0 (a single row) is copied
 * unchanged. An upright image (cov_xy = 0) is reproduced exactly.
 *
 * All functions are thread-safe (no global state). The batch functions run
 * on OpenMP threads when built with OpenMP (threads <= 0: the default team),
 * and accept in == out (in place); the single-image functions need
 * non-overlapping in and out. */
#ifndef FSVC_DESKEW_H
#define FSVC_DESKEW_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The skew alpha = cov(x,y)/var(y) of one image, 0 when undefined (blank
 * image or a single row). Row-major rows x cols. */
double fsvc_deskew_alpha_u8(const uint8_t *img, int rows, int cols);
double fsvc_deskew_alpha_f32(const float *img, int rows, int cols);

/* One image: in, out are rows x cols, row-major, distinct buffers. */
void fsvc_deskew_u8(const uint8_t *in, uint8_t *out, int rows, int cols);
/* f32: pixel values must be >= 0 (weights of the moments); output not
 * rounded. */
void fsvc_deskew_f32(const float *in, float *out, int rows, int cols);

/* N images of rows x cols each, contiguous (N x rows*cols). in == out is
 * allowed. Returns 0, or -1 on bad arguments (rows/cols < 1, N < 0, NULL)
 * or out of memory. */
int fsvc_deskew_u8_batch(const uint8_t *in, uint8_t *out, int64_t N,
                         int rows, int cols, int threads);
int fsvc_deskew_f32_batch(const float *in, float *out, int64_t N,
                          int rows, int cols, int threads);

#ifdef __cplusplus
}
#endif

#endif
