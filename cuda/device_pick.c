/* device_pick.c - which CUDA device a process uses: a pure function of
 * the device count and two environment values, so that it is tested
 * without a device (tests/test_cuda_pick.c) and built with or without
 * nvcc. */
#include "bnl_cuda.h"

#include <stdlib.h>

/* A non-negative decimal integer (the whole text, as strtol reads it), else -1. */
static long whole_number(const char *s)
{
    if (!s || !*s) return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return *end || v < 0 ? -1 : v;
}

int bnl_cuda_pick_device(int count, const char *fsvc_device, const char *local_rank)
{
    if (count < 1) return -1;
    if (fsvc_device && *fsvc_device) { /* asked for by number: that one or none */
        long v = whole_number(fsvc_device);
        return v >= 0 && v < count ? (int)v : -1;
    }
    long r = whole_number(local_rank); /* mpirun: local ranks round the devices */
    return r >= 0 ? (int)(r % count) : 0;
}
