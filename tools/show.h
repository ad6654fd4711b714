/* show.h - `fsvc show MODEL` without --png, and `fsvc info MODEL`: the
 * model described in words (tools/show_text.c). */
#ifndef FSVC_SHOW_H
#define FSVC_SHOW_H

/* Loads the model at path and prints its file version and size, settings,
 * classes (names or labels, centroids per class), sizes and preprocessing
 * on stdout. Returns the exit code (errors as one line, as cli_report). */
int show_describe(const char *path);

#endif
