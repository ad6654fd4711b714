/*
 * tune_file.h - the per-device tune file that `fsvc tune --backend cuda`
 * writes and the CUDA backend reads at open: a few "key value" lines.
 *
 *   # fsvc tune file
 *   device NVIDIA-H100-80GB-HBM3
 *   max_M 8192          (cap on the BNL tile sides)
 *   launch_s 0.25       (target seconds per launch)
 *   streams 2
 *
 * Default place: $FSVC_TUNE_FILE, else $XDG_CACHE_HOME/fsvc/tune-<tag>.txt,
 * else $HOME/.cache/fsvc/tune-<tag>.txt.
 */
#ifndef FSVC_CUDA_TUNE_FILE_H
#define FSVC_CUDA_TUNE_FILE_H

#include <stddef.h>

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default path for a device tag; -1 if no home/cache folder is known. */
int bnlc_tune_path(char *buf, size_t len, const char *tag);

/* Reads path into lim (only the keys present). FSVC_OK; 1 when the file
 * does not exist (lim untouched); FSVC_EINPUT for a bad file (err says
 * which line). */
int bnlc_tune_read(const char *path, bnlc_limits *lim, fsvc_error *err);

/* Writes path (folders created, temporary file then rename). */
int bnlc_tune_write(const char *path, const char *device, const bnlc_limits *lim,
                    const char *comment, fsvc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_CUDA_TUNE_FILE_H */
