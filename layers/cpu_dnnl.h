/*
 * cpu_dnnl.h - the products of the CPU backend's f32 and bf16 layers on
 * oneDNN's matmul (Debian's libdnnl; the onednn tier, issue 24).
 *
 * A context holds one bnl_dnnl: the oneDNN engine and one primitive per
 * tile shape, made once (making one costs about a millisecond). A call
 * packs its W once into oneDNN's blocked layout (bnl_dnnl_pack), then every
 * tile of the call's product runs on one thread of the engine's team
 * (bnl_dnnl_tile) and its activation follows on the tile while it is in
 * cache (cpu_tile.c). oneDNN's OpenMP runtime runs a primitive on one
 * thread inside an active team; elsewhere it is held to the context's
 * threads by the calling thread's omp_set_num_threads, restored after.
 * Built without oneDNN (make NO_DNNL=1, or no libdnnl-dev): bnl_dnnl_open
 * gives NULL and the CPU backend keeps the other tiers' paths.
 */
#ifndef FSVC_CPU_DNNL_H
#define FSVC_CPU_DNNL_H

#include <stdint.h>

typedef struct bnl_dnnl bnl_dnnl;
typedef struct bnl_dnnl_w bnl_dnnl_w;

/* 1 when this build has oneDNN. */
int bnl_dnnl_built(void);
/* A context's cache (no engine yet); NULL without oneDNN or memory. */
bnl_dnnl *bnl_dnnl_open(void);
void bnl_dnnl_close(bnl_dnnl *d);

/* One call's product: C = X W^T, X N x k and W m x k, row-major, f32 or
 * (bf16) bf16 bit patterns; tiles of tile_N x tile_m (tile_m a multiple
 * of 64, or >= m). */
typedef struct bnl_dnnl_shape {
    int bf16;
    int k;
    int64_t m, N, tile_m, tile_N;
} bnl_dnnl_shape;

/* Packs W for shape s and readies the primitives of its tile shapes (rows
 * tile_N and N % tile_N, columns tile_m and m % tile_m), on threads
 * threads. 0, or -1 when oneDNN cannot run it (no memory, a layout it
 * does not offer): the caller computes the product another way. */
int bnl_dnnl_pack(bnl_dnnl *d, bnl_dnnl_w **out, const bnl_dnnl_shape *s, const void *W,
                  int threads);
void bnl_dnnl_w_free(bnl_dnnl_w *w);
/* As bnl_dnnl_pack, W's packed form kept in *keep for later calls on the
 * same W (m, k, bf16): taken from there when set (no packing), else
 * packed into a buffer left there (the caller's: bnl_dnnl_packed_free;
 * bnl_dnnl_w_free leaves it). */
int bnl_dnnl_pack_keep(bnl_dnnl *d, bnl_dnnl_w **out, const bnl_dnnl_shape *s, const void *W,
                       int threads, void **keep);
void bnl_dnnl_packed_free(void *packed);

/* C (rows x cols, dense) = X W^T for X's rows (rows x k, dense) and
 * W's rows j0 .. j0 + cols - 1: one tile of the packed shape (j0 a
 * multiple of tile_m). One thread. 0, or -1 on a failure of oneDNN. */
int bnl_dnnl_tile(const bnl_dnnl_w *w, float *C, const void *X, int64_t rows, int64_t j0,
                  int64_t cols);

/* oneDNN's name for the kernel of w's full tiles ("brg:avx512_core_bf16"). */
const char *bnl_dnnl_impl(const bnl_dnnl_w *w);

#endif
