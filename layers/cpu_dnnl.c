/*
 * cpu_dnnl.c - oneDNN's matmul for the f32 and bf16 layers' products
 * (cpu_dnnl.h). W is packed once per call into oneDNN's blocked layout
 * (BA16a64b for f32, BA16a64b2a for bf16: blocks of 64 columns, each
 * contiguous), so a tile of 64-aligned columns is a pointer into it; X and
 * the tile of C stay dense row-major, the form oneDNN's brgemm kernels
 * take (strided ones fall to slower kernels, measured; so do output
 * scales: the caller scales the tile). The packed buffer of the last call
 * is kept for the next (the first touch of fresh pages costs as much as
 * the packing).
 */
#include "cpu_dnnl.h"

#ifdef FSVC_HAVE_DNNL

#include "dnnl_api.h" /* oneDNN loaded on first use */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DNNL_CACHE 32      /* primitives kept per context; more: per call */
#define DNNL_SCRATCH 16384 /* scratchpad bytes on the stack; more: malloc */

typedef struct prim {
    int bf16, k;
    int64_t rows, cols;
    dnnl_primitive_t p;
    dnnl_memory_desc_t src, wei, dst, scr;
    size_t scratch;
    char impl[48];
} prim;

struct bnl_dnnl {
    pthread_mutex_t mu;
    dnnl_engine_t eng;
    int n;
    prim *cache[DNNL_CACHE];
    char *spare;        /* a packed buffer no call holds, or NULL */
    size_t spare_bytes;
};

struct bnl_dnnl_w {
    bnl_dnnl *d;
    bnl_dnnl_shape s;
    int64_t tN, tm;
    char *packed;
    size_t packed_bytes;
    size_t block_bytes; /* one block of 64 columns */
    int borrowed;       /* packed belongs to the caller's keep (held W) */
    prim *pr[2][2];     /* [edge rows][edge columns] */
    prim *own[4];       /* made for this call only (the cache was full) */
    int nown;
};

int bnl_dnnl_built(void) { return 1; }

/* oneDNN's threads for what the calling thread runs next: its OpenMP
 * nthreads, outside an active team (inside one, oneDNN is sequential). */
static int hold_threads(int t)
{
    if (omp_in_parallel())
        return 0;
    int saved = omp_get_max_threads();
    omp_set_num_threads(t);
    return saved;
}

static void release_threads(int saved)
{
    if (saved > 0)
        omp_set_num_threads(saved);
}

bnl_dnnl *bnl_dnnl_open(void)
{
    bnl_dnnl *d = calloc(1, sizeof *d);
    if (d && pthread_mutex_init(&d->mu, NULL) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

static void prim_free(prim *p)
{
    if (p) {
        dnnl_primitive_destroy(p->p);
        free(p);
    }
}

void bnl_dnnl_close(bnl_dnnl *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->n; i++)
        prim_free(d->cache[i]);
    if (d->eng)
        dnnl_engine_destroy(d->eng);
    free(d->spare);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

static dnnl_format_tag_t wei_tag(int bf16) { return bf16 ? dnnl_BA16a64b2a : dnnl_BA16a64b; }

/* The primitive of one tile shape, made for one thread (it runs on one). */
static prim *prim_make(dnnl_engine_t eng, int bf16, int k, int64_t rows, int64_t cols)
{
    prim *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->bf16 = bf16;
    p->k = k;
    p->rows = rows;
    p->cols = cols;
    dnnl_data_type_t dt = bf16 ? dnnl_bf16 : dnnl_f32;
    dnnl_dims_t ds = {rows, k}, dw = {k, cols}, dd = {rows, cols};
    dnnl_matmul_desc_t desc;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    int ok = dnnl_memory_desc_init_by_tag(&p->src, 2, ds, dt, dnnl_ab) == dnnl_success &&
             dnnl_memory_desc_init_by_tag(&p->wei, 2, dw, dt, wei_tag(bf16)) == dnnl_success &&
             dnnl_memory_desc_init_by_tag(&p->dst, 2, dd, dnnl_f32, dnnl_ab) == dnnl_success &&
             dnnl_matmul_desc_init(&desc, &p->src, &p->wei, NULL, &p->dst) == dnnl_success &&
             dnnl_primitive_attr_create(&attr) == dnnl_success &&
             dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) ==
                 dnnl_success;
    int saved = hold_threads(1);
    ok = ok && dnnl_primitive_desc_create(&pd, &desc, attr, eng, NULL) == dnnl_success;
    const char *impl = NULL;
    const dnnl_memory_desc_t *scr = NULL;
    if (ok) {
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        scr = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        ok = dnnl_primitive_create(&p->p, pd) == dnnl_success;
    }
    release_threads(saved);
    if (ok) {
        snprintf(p->impl, sizeof p->impl, "%s", impl ? impl : "?");
        if (scr)
            p->scr = *scr;
        p->scratch = scr ? dnnl_memory_desc_get_size(scr) : 0;
    }
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    if (!ok) {
        free(p);
        return NULL;
    }
    return p;
}

/* From d's cache, or made (and cached while there is room; else w owns
 * it). Under d->mu. */
static prim *prim_get(bnl_dnnl *d, bnl_dnnl_w *w, int64_t rows, int64_t cols)
{
    for (int i = 0; i < d->n; i++) {
        prim *p = d->cache[i];
        if (p->bf16 == w->s.bf16 && p->k == w->s.k && p->rows == rows && p->cols == cols)
            return p;
    }
    prim *p = prim_make(d->eng, w->s.bf16, w->s.k, rows, cols);
    if (!p)
        return NULL;
    if (d->n < DNNL_CACHE)
        d->cache[d->n++] = p;
    else
        w->own[w->nown++] = p;
    return p;
}

/* The primitives of w's tile shapes; 0 or -1. */
static int prims_ready(bnl_dnnl *d, bnl_dnnl_w *w)
{
    int64_t rows[2] = {w->tN, w->s.N % w->tN}, cols[2] = {w->tm, w->s.m % w->tm};
    int rc = 0;
    pthread_mutex_lock(&d->mu);
    if (!d->eng && dnnl_engine_create(&d->eng, dnnl_cpu, 0) != dnnl_success)
        d->eng = NULL;
    for (int r = 0; r < 2 && d->eng && !rc; r++)
        for (int c = 0; c < 2 && !rc; c++)
            if (rows[r] > 0 && cols[c] > 0 && !(w->pr[r][c] = prim_get(d, w, rows[r], cols[c])))
                rc = -1;
    if (!d->eng)
        rc = -1;
    pthread_mutex_unlock(&d->mu);
    return rc;
}

/* The blocked layout of one tile's columns is that of the whole W from
 * its first column on (same strides and blocks), so tiles point into it. */
static int same_blocks(const dnnl_memory_desc_t *a, const dnnl_memory_desc_t *b)
{
    const dnnl_blocking_desc_t *x = &a->format_desc.blocking, *y = &b->format_desc.blocking;
    if (a->format_kind != dnnl_blocked || b->format_kind != dnnl_blocked ||
        a->data_type != b->data_type || a->padded_dims[0] != b->padded_dims[0] ||
        x->strides[0] != y->strides[0] || x->strides[1] != y->strides[1] ||
        x->inner_nblks != y->inner_nblks)
        return 0;
    for (int i = 0; i < x->inner_nblks; i++)
        if (x->inner_blks[i] != y->inner_blks[i] || x->inner_idxs[i] != y->inner_idxs[i])
            return 0;
    return 1;
}

/* W (m x k row-major: the k x m matrix with strides {1, k}) into
 * w->packed (layout whole), by oneDNN's reorder on threads threads. */
static int pack_w(bnl_dnnl_w *w, const dnnl_memory_desc_t *whole, const void *W, int threads)
{
    dnnl_engine_t eng = w->d->eng;
    dnnl_data_type_t dt = w->s.bf16 ? dnnl_bf16 : dnnl_f32;
    dnnl_dims_t dims = {w->s.k, w->s.m}, strides = {1, w->s.k};
    dnnl_memory_desc_t plain;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t rp = NULL;
    dnnl_memory_t from = NULL, to = NULL;
    dnnl_stream_t st = NULL;
    int saved = hold_threads(threads);
    int ok = dnnl_memory_desc_init_by_strides(&plain, 2, dims, dt, strides) == dnnl_success &&
             dnnl_reorder_primitive_desc_create(&rpd, &plain, eng, whole, eng, NULL) ==
                 dnnl_success &&
             dnnl_primitive_create(&rp, rpd) == dnnl_success &&
             dnnl_memory_create(&from, &plain, eng, (void *)W) == dnnl_success &&
             dnnl_memory_create(&to, whole, eng, w->packed) == dnnl_success &&
             dnnl_stream_create(&st, eng, dnnl_stream_default_flags) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t a[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        ok = dnnl_primitive_execute(rp, st, 2, a) == dnnl_success &&
             dnnl_stream_wait(st) == dnnl_success;
    }
    release_threads(saved);
    if (st) dnnl_stream_destroy(st);
    if (from) dnnl_memory_destroy(from);
    if (to) dnnl_memory_destroy(to);
    if (rp) dnnl_primitive_destroy(rp);
    if (rpd) dnnl_primitive_desc_destroy(rpd);
    return ok ? 0 : -1;
}

int bnl_dnnl_pack(bnl_dnnl *d, bnl_dnnl_w **out, const bnl_dnnl_shape *s, const void *W,
                  int threads)
{
    return bnl_dnnl_pack_keep(d, out, s, W, threads, NULL);
}

void bnl_dnnl_packed_free(void *packed) { free(packed); }

int bnl_dnnl_pack_keep(bnl_dnnl *d, bnl_dnnl_w **out, const bnl_dnnl_shape *s, const void *W,
                       int threads, void **keep)
{
    *out = NULL;
    if (!d || s->m < 1 || s->N < 1 || s->k < 1)
        return -1;
    bnl_dnnl_w *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->d = d;
    w->s = *s;
    w->tN = s->tile_N < s->N ? s->tile_N : s->N;
    w->tm = s->tile_m < s->m ? s->tile_m : s->m;
    dnnl_memory_desc_t whole;
    dnnl_dims_t dims = {s->k, s->m};
    int ok = (w->tm == s->m || w->tm % 64 == 0) && prims_ready(d, w) == 0 &&
             dnnl_memory_desc_init_by_tag(&whole, 2, dims, s->bf16 ? dnnl_bf16 : dnnl_f32,
                                          wei_tag(s->bf16)) == dnnl_success &&
             whole.format_desc.blocking.inner_nblks >= 2 &&
             whole.format_desc.blocking.inner_idxs[1] == 1 &&
             whole.format_desc.blocking.inner_blks[1] == 64;
    for (int r = 0; r < 2 && ok; r++)
        for (int c = 0; c < 2 && ok; c++)
            ok = !w->pr[r][c] || same_blocks(&w->pr[r][c]->wei, &whole);
    if (ok) {
        size_t bytes = (dnnl_memory_desc_get_size(&whole) + 63) / 64 * 64;
        w->block_bytes = (size_t)whole.format_desc.blocking.strides[1] * (s->bf16 ? 2 : 4);
        if (keep && *keep) { /* packed by an earlier call on the held W */
            w->packed = *keep;
            w->packed_bytes = bytes;
            w->borrowed = 1;
            *out = w;
            return 0;
        }
        if (keep) { /* a buffer of its own, left in keep for the next calls */
            w->packed = aligned_alloc(64, bytes);
            w->packed_bytes = bytes;
            ok = w->packed && pack_w(w, &whole, W, threads) == 0;
            if (ok) {
                *keep = w->packed;
                w->borrowed = 1;
                *out = w;
                return 0;
            }
            bnl_dnnl_w_free(w);
            return -1;
        }
        pthread_mutex_lock(&d->mu);
        if (d->spare && d->spare_bytes >= bytes) { /* taken over */
            w->packed = d->spare;
            w->packed_bytes = d->spare_bytes;
            d->spare = NULL;
        }
        pthread_mutex_unlock(&d->mu);
        if (!w->packed) {
            w->packed = aligned_alloc(64, bytes);
            w->packed_bytes = bytes;
        }
        ok = w->packed && pack_w(w, &whole, W, threads) == 0;
    }
    if (!ok) {
        bnl_dnnl_w_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

void bnl_dnnl_w_free(bnl_dnnl_w *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->nown; i++)
        prim_free(w->own[i]);
    bnl_dnnl *d = w->d;
    if (w->borrowed)
        w->packed = NULL;
    pthread_mutex_lock(&d->mu);
    if (w->packed && (!d->spare || d->spare_bytes < w->packed_bytes)) { /* kept */
        free(d->spare);
        d->spare = w->packed;
        d->spare_bytes = w->packed_bytes;
        w->packed = NULL;
    }
    pthread_mutex_unlock(&d->mu);
    free(w->packed);
    free(w);
}

const char *bnl_dnnl_impl(const bnl_dnnl_w *w)
{
    return w && w->pr[0][0] ? w->pr[0][0]->impl : "?";
}

int bnl_dnnl_tile(const bnl_dnnl_w *w, float *C, const void *X, int64_t rows, int64_t j0,
                  int64_t cols)
{
    const prim *p = w->pr[rows != w->tN][cols != w->tm];
    if (!p || p->rows != rows || p->cols != cols || j0 % w->tm)
        return -1;
    dnnl_engine_t eng = w->d->eng;
    _Alignas(64) char stack[DNNL_SCRATCH];
    char *scr = p->scratch <= sizeof stack ? stack : malloc(p->scratch);
    dnnl_memory_t ms = NULL, mw = NULL, md = NULL, mp = NULL;
    dnnl_stream_t st = NULL;
    int saved = hold_threads(1);
    int ok = scr && dnnl_memory_create(&ms, &p->src, eng, (void *)X) == dnnl_success &&
             dnnl_memory_create(&mw, &p->wei, eng,
                                w->packed + (size_t)(j0 / 64) * w->block_bytes) ==
                 dnnl_success &&
             dnnl_memory_create(&md, &p->dst, eng, C) == dnnl_success &&
             (!p->scratch || dnnl_memory_create(&mp, &p->scr, eng, scr) == dnnl_success) &&
             dnnl_stream_create(&st, eng, dnnl_stream_default_flags) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t a[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw},
                               {DNNL_ARG_DST, md}, {DNNL_ARG_SCRATCHPAD, mp}};
        ok = dnnl_primitive_execute(p->p, st, mp ? 4 : 3, a) == dnnl_success &&
             dnnl_stream_wait(st) == dnnl_success;
    }
    release_threads(saved);
    if (st) dnnl_stream_destroy(st);
    if (ms) dnnl_memory_destroy(ms);
    if (mw) dnnl_memory_destroy(mw);
    if (md) dnnl_memory_destroy(md);
    if (mp) dnnl_memory_destroy(mp);
    if (scr != stack)
        free(scr);
    return ok ? 0 : -1;
}

#else /* built without oneDNN */

int bnl_dnnl_built(void) { return 0; }
bnl_dnnl *bnl_dnnl_open(void) { return 0; }
void bnl_dnnl_close(bnl_dnnl *d) { (void)d; }
int bnl_dnnl_pack(bnl_dnnl *d, bnl_dnnl_w **out, const bnl_dnnl_shape *s, const void *W,
                  int threads)
{
    (void)d; (void)s; (void)W; (void)threads;
    *out = 0;
    return -1;
}
int bnl_dnnl_pack_keep(bnl_dnnl *d, bnl_dnnl_w **out, const bnl_dnnl_shape *s, const void *W,
                       int threads, void **keep)
{
    (void)keep;
    return bnl_dnnl_pack(d, out, s, W, threads);
}
void bnl_dnnl_packed_free(void *packed) { (void)packed; }
void bnl_dnnl_w_free(bnl_dnnl_w *w) { (void)w; }
int bnl_dnnl_tile(const bnl_dnnl_w *w, float *C, const void *X, int64_t rows, int64_t j0,
                  int64_t cols)
{
    (void)w; (void)C; (void)X; (void)rows; (void)j0; (void)cols;
    return -1;
}
const char *bnl_dnnl_impl(const bnl_dnnl_w *w) { (void)w; return "none"; }

#endif
