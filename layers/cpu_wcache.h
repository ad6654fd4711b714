/*
 * cpu_wcache.h - what the CPU backend derives from a layer's weights W (the
 * f32 norms |w|^2, the bf16 copy, oneDNN's packed form), kept across calls
 * while the caller holds W unchanged (bnl.h bnl_weights_hold), instead of
 * made again by every call: a pcg solve runs its ~70 chunks of H, and
 * predict its chunks, on the same centroids.
 *
 * Entries are keyed by (W, m, n) and counted: holds, and every job using
 * the entry, take a reference; the buffers go with the last one, so a
 * release during a call cannot free what the call reads. Nothing is kept
 * for weights no one holds: a call with an unheld W derives per call, as
 * before (W may change between calls: LMS, k-means++ rounds, a new model).
 */
#ifndef FSVC_CPU_WCACHE_H
#define FSVC_CPU_WCACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct bnl_wcache bnl_wcache;

typedef struct bnl_wc_entry {
    const void *W;
    int64_t m;
    int n;
    int holds, users;       /* bnl_weights_hold counts; jobs in flight */
    float *wn;              /* f32 squared norms (m), or NULL until needed */
    uint16_t *wb;           /* bf16 rows of n2, or NULL until needed */
    int n2;
    void *packed[2];        /* oneDNN's packed W, [bf16]; NULL until needed */
} bnl_wc_entry;

bnl_wcache *bnl_wcache_open(void);
void bnl_wcache_close(bnl_wcache *c);

/* Holds and releases (bnl.h); hold: 0, or -1 (no room, no memory). */
int bnl_wcache_hold(bnl_wcache *c, const void *W, int64_t m, int n);
void bnl_wcache_release(bnl_wcache *c, const void *W, int64_t m, int n);

/* The held entry of (W, m, n) with a use taken, or NULL (none held; c
 * NULL). Fill its fields under bnl_wcache_lock; give it back with
 * bnl_wcache_done. */
bnl_wc_entry *bnl_wcache_use(bnl_wcache *c, const void *W, int64_t m, int n);
void bnl_wcache_done(bnl_wcache *c, bnl_wc_entry *e);
void bnl_wcache_lock(bnl_wcache *c);
void bnl_wcache_unlock(bnl_wcache *c);

/* Counters for the tests: derivations kept (fills) and reused (hits). */
typedef struct bnl_wcache_stats {
    int64_t fills, hits;
    int entries;
} bnl_wcache_stats;
void bnl_wcache_stats_get(bnl_wcache *c, bnl_wcache_stats *st);
void bnl_wcache_count(bnl_wcache *c, int fill);

#endif
