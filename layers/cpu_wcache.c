/* cpu_wcache.c - the CPU backend's kept derivations of held weights
 * (cpu_wcache.h): a few entries under one mutex. */
#include "cpu_wcache.h"
#include "backend.h"
#include "cpu_dnnl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define WC_MAX 8 /* weights held at once (nested sessions hold one or two) */

struct bnl_wcache {
    pthread_mutex_t mu;
    bnl_wc_entry *e[WC_MAX];
    int64_t fills, hits;
};

bnl_wcache *bnl_wcache_open(void)
{
    bnl_wcache *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

static void entry_free(bnl_wc_entry *e)
{
    free(e->wn);
    free(e->wb);
    bnl_dnnl_packed_free(e->packed[0]);
    bnl_dnnl_packed_free(e->packed[1]);
    free(e);
}

void bnl_wcache_close(bnl_wcache *c)
{
    if (!c)
        return;
    for (int i = 0; i < WC_MAX; i++)
        if (c->e[i])
            entry_free(c->e[i]);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static int find(bnl_wcache *c, const void *W, int64_t m, int n)
{
    for (int i = 0; i < WC_MAX; i++)
        if (c->e[i] && c->e[i]->W == W && c->e[i]->m == m && c->e[i]->n == n)
            return i;
    return -1;
}

int bnl_wcache_hold(bnl_wcache *c, const void *W, int64_t m, int n)
{
    if (!c || !W || m < 1 || n < 1)
        return -1;
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    int i = find(c, W, m, n); /* released entries have W NULL: never found */
    if (i >= 0) {
        c->e[i]->holds++;
    } else {
        int f = -1;
        for (int k = 0; k < WC_MAX && f < 0; k++)
            if (!c->e[k])
                f = k;
        bnl_wc_entry *e = f >= 0 ? calloc(1, sizeof *e) : NULL;
        if (e) {
            *e = (bnl_wc_entry){.W = W, .m = m, .n = n, .holds = 1};
            c->e[f] = e;
        } else {
            rc = -1;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* Frees slot i when no hold and no job has it. Under mu. */
static void drop_unused(bnl_wcache *c, int i)
{
    if (c->e[i]->holds == 0 && c->e[i]->users == 0) {
        entry_free(c->e[i]);
        c->e[i] = NULL;
    }
}

void bnl_wcache_release(bnl_wcache *c, const void *W, int64_t m, int n)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    int i = find(c, W, m, n);
    if (i >= 0 && c->e[i]->holds > 0) {
        c->e[i]->holds--;
        if (c->e[i]->holds == 0)
            c->e[i]->W = NULL; /* no new uses; freed now or with its last job */
        drop_unused(c, i);
    }
    pthread_mutex_unlock(&c->mu);
}

bnl_wc_entry *bnl_wcache_use(bnl_wcache *c, const void *W, int64_t m, int n)
{
    if (!c)
        return NULL;
    bnl_wc_entry *e = NULL;
    pthread_mutex_lock(&c->mu);
    int i = find(c, W, m, n);
    if (i >= 0 && c->e[i]->holds > 0) {
        e = c->e[i];
        e->users++;
    }
    pthread_mutex_unlock(&c->mu);
    return e;
}

void bnl_wcache_done(bnl_wcache *c, bnl_wc_entry *e)
{
    if (!c || !e)
        return;
    pthread_mutex_lock(&c->mu);
    e->users--;
    for (int i = 0; i < WC_MAX; i++)
        if (c->e[i] == e)
            drop_unused(c, i);
    pthread_mutex_unlock(&c->mu);
}

void bnl_wcache_lock(bnl_wcache *c) { pthread_mutex_lock(&c->mu); }
void bnl_wcache_unlock(bnl_wcache *c) { pthread_mutex_unlock(&c->mu); }

void bnl_wcache_count(bnl_wcache *c, int fill)
{
    if (fill)
        c->fills++;
    else
        c->hits++;
}

void bnl_wcache_stats_get(bnl_wcache *c, bnl_wcache_stats *st)
{
    memset(st, 0, sizeof *st);
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    st->fills = c->fills;
    st->hits = c->hits;
    for (int i = 0; i < WC_MAX; i++)
        st->entries += c->e[i] != NULL;
    pthread_mutex_unlock(&c->mu);
}

int bnl_weights_hold(const bnl_ctx *ctx, const void *W, int64_t m, int n)
{
    return ctx ? bnl_wcache_hold(ctx->wcache, W, m, n) : -1;
}

void bnl_weights_release(const bnl_ctx *ctx, const void *W, int64_t m, int n)
{
    if (ctx)
        bnl_wcache_release(ctx->wcache, W, m, n);
}
