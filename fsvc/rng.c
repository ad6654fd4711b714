/* rng.c - the seeded PRNG (splitmix64), a shuffle and the clock. */
#include "internal.h"

#include <time.h>

uint64_t fsvc_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void fsvc_shuffle(int64_t *idx, int64_t N, uint64_t seed)
{
    uint64_t st = seed;
    for (int64_t i = N - 1; i > 0; i--) {
        /* unbiased bounded draw by rejection */
        uint64_t bound = (uint64_t)i + 1, lim = UINT64_MAX - UINT64_MAX % bound, r;
        do r = fsvc_rng_next(&st); while (r >= lim);
        int64_t j = (int64_t)(r % bound), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

double fsvc_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
