/* comm_load.c - predict and eval input across the processes: each rank
 * loads only its slice (fsvc_dataset_load_slice), fitted to the model as
 * cli_load_data fits the whole set; then the labels, classes and paths
 * (not the samples) are gathered, so that rank 0 reports on the whole set
 * in input order. One process: cli_load_data. */
#include "tools/comm.h"
#include "tools/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_load_data_slice(fsvc_dataset *d, int64_t *first, int64_t *N_total, const char *data,
                        const fsvc_model *m, int allow_unlabelled, const char *cmd,
                        fsvc_error *err)
{
    const fsvc_comm *D = cli_comm();
    *first = 0;
    *N_total = 0;
    if (D->size <= 1) {
        int rc = cli_load_data(d, data, m, allow_unlabelled, cmd, err);
        if (!rc) *N_total = d->N;
        return rc;
    }
    fsvc_slice_comm c = cli_slice_comm(D);
    fsvc_load_opts lopt = { 0 };
    lopt.allow_unlabelled = allow_unlabelled;
    cli_image_opts(&lopt, m);
    int rc = fsvc_dataset_load_slice(d, first, N_total, data, &lopt, &c, err);
    if (rc) return rc; /* failed on every rank */
    /* n, rows and the model are the same on every rank: the same branches */
    int64_t rec[2] = { 0, 0 }, *all = calloc((size_t)D->size * 2, sizeof *all);
    int fx = 0;
    if (d->rows == 0 && d->n != m->n)
        rc = fsvc_dataset_fit_features(d, m->n, &rec[0], &fx, err);
    rec[1] = fx;
    if (!rc && !all) rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", cmd);
    rc = cli_comm_agree(rc, err);
    if (!rc && D->allgather(D->self, rec, sizeof rec, all))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: the exchange of the slices failed", cmd);
    int64_t dropped = 0, lowest = 0;
    for (int r = 0; !rc && r < D->size; r++) {
        dropped += all[2 * r];
        if (all[2 * r + 1] && (!lowest || all[2 * r + 1] < lowest)) lowest = all[2 * r + 1];
    }
    free(all);
    if (!rc && dropped)
        fprintf(stderr, "fsvc %s: warning: %s: %lld values at features %lld and above "
                "ignored: the model has %d features and never saw them\n", cmd, d->source,
                (long long)dropped, (long long)lowest, m->n);
    if (!rc && m->rows > 0 && d->rows == 0)
        rc = fsvc_dataset_set_shape_slice(d, m->rows, m->cols, &c, err);
    if (rc) fsvc_dataset_free(d);
    return rc;
}

/* buf (n bytes, this rank's part at off, zeros elsewhere) on every rank */
static int or_all(void *buf, size_t n, fsvc_error *err)
{
    const fsvc_comm *D = cli_comm();
    return D->bor(D->self, buf, n)
         ? fsvc_fail(err, FSVC_ERESOURCE, "gathering the labels failed") : FSVC_OK;
}

/* The paths of every rank's slice, in order, into g->paths (N_total). */
static int gather_paths(fsvc_dataset *g, const fsvc_dataset *d, fsvc_error *err)
{
    const fsvc_comm *D = cli_comm();
    int64_t mine = 0, *all = calloc((size_t)D->size, sizeof *all);
    for (int64_t i = 0; d->paths && i < d->N; i++) mine += (int64_t)strlen(d->paths[i]) + 1;
    int rc = all ? FSVC_OK : fsvc_fail(err, FSVC_ERESOURCE, "out of memory");
    rc = cli_comm_agree(rc, err);
    if (!rc && D->allgather(D->self, &mine, sizeof mine, all))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "gathering the paths failed");
    int64_t off = 0, tot = 0;
    for (int r = 0; !rc && r < D->size; r++) {
        if (r < D->rank) off += all[r];
        tot += all[r];
    }
    free(all);
    if (rc) return rc;
    char *buf = calloc((size_t)tot + 1, 1);
    g->paths = calloc((size_t)(g->N ? g->N : 1), sizeof *g->paths);
    rc = buf && g->paths ? FSVC_OK : fsvc_fail(err, FSVC_ERESOURCE, "out of memory");
    rc = cli_comm_agree(rc, err);
    for (int64_t i = 0, at = off; !rc && i < d->N; i++) {
        size_t l = strlen(d->paths[i]) + 1;
        memcpy(buf + at, d->paths[i], l);
        at += (int64_t)l;
    }
    if (!rc) rc = or_all(buf, (size_t)tot, err);
    for (int64_t i = 0, at = 0; !rc && i < g->N; i++) {
        size_t l = strlen(buf + at) + 1;
        if (!(g->paths[i] = malloc(l))) {
            rc = fsvc_fail(err, FSVC_ERESOURCE, "out of memory");
            break;
        }
        memcpy(g->paths[i], buf + at, l);
        at += (int64_t)l;
    }
    free(buf);
    return rc;
}

int cli_comm_gather_meta(fsvc_dataset *g, const fsvc_dataset *d, int64_t first,
                         int64_t N_total, fsvc_error *err)
{
    fsvc_dataset_init_like(g, d, N_total);
    size_t N = (size_t)(N_total ? N_total : 1);
    int rc = FSVC_OK;
    if (d->y) g->y = calloc(N, sizeof *g->y);
    if (d->cls) g->cls = calloc(N, sizeof *g->cls);
    if (d->K > 0 && d->class_values) g->class_values = malloc((size_t)d->K * sizeof(double));
    if (d->K > 0 && d->class_names) g->class_names = calloc((size_t)d->K, sizeof(char *));
    if ((d->y && !g->y) || (d->cls && !g->cls) || (d->class_values && d->K > 0 && !g->class_values) ||
        (d->class_names && d->K > 0 && !g->class_names))
        rc = fsvc_fail(err, FSVC_ERESOURCE, "out of memory");
    for (int k = 0; !rc && g->class_values && k < d->K; k++) g->class_values[k] = d->class_values[k];
    for (int k = 0; !rc && g->class_names && k < d->K; k++)
        if (!(g->class_names[k] = strdup(d->class_names[k])))
            rc = fsvc_fail(err, FSVC_ERESOURCE, "out of memory");
    rc = cli_comm_agree(rc, err);
    /* every rank has the same kind of data: the same gathers */
    if (!rc && d->y) {
        memcpy(g->y + first, d->y, (size_t)d->N * sizeof *g->y);
        rc = or_all(g->y, (size_t)N_total * sizeof *g->y, err);
    }
    if (!rc && d->cls) {
        memcpy(g->cls + first, d->cls, (size_t)d->N * sizeof *g->cls);
        rc = or_all(g->cls, (size_t)N_total * sizeof *g->cls, err);
    }
    int paths = d->paths != NULL;
    if (!rc && paths) rc = gather_paths(g, d, err);
    if (rc) {
        if (!g->paths) g->N = 0;
        fsvc_dataset_free(g);
    }
    return rc;
}
