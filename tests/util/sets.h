/* sets.h - small labelled sets made in memory for the library's tests. */
#ifndef FSVC_TESTS_SETS_H
#define FSVC_TESTS_SETS_H

#include <stdint.h>

#include "fsvc/fsvc.h"

/* N samples of 2 f64 features, classes k = i % 3 valued k + 1:
 * x0 = geo[0] k + geo[1] u, x1 = geo[2] (k % 2) + geo[3] v, with u, v
 * uniform in [0, 1) from seed. Owns its arrays (fsvc_dataset_free). */
void fx_three_classes(fsvc_dataset *d, int64_t N, const double geo[4], uint64_t seed,
                      const char *name);

#endif
