/*
 * bench_paper.c - `fsvc bench --paper`: the 2017 paper's configurations
 * re-measured on this machine's CPU backend, written to a CSV (through
 * ds_tmp_*, every write checked) and a PNG (tools/plot.c).
 *
 *   Table III  n = 16 ... 65536 at the paper's M (4096 ... 512), capped to
 *              the largest power of two M <= 4096 whose BNL fits a memory
 *              budget of 512 MiB (paper eq. 4 with our element size:
 *              size * (n m + N n) + 4|8 * N m);
 *   Table IV   m = N = n = 1000 for f32, f64 and u8 (the paper's MKL matrix
 *              product; its int16 figure stands in for u8);
 *   best BNL   M = 4096, n = 1024;
 *   tiers      issue 24's CPU tiers at 4096 x 4096 x 784, rbf-l2 (bench_tiers.c);
 * for rbf-l1, rbf-l2 and mul in u8 / f32 / f64 (mul has no u8 row: tanh
 * saturates on integer dot products). To finish in a few minutes N is
 * shrunk where one forward pass would take more than about 0.4 s (the CSV
 * says so in its note column).
 */
#include "tools/bench.h"
#include "tools/cli.h"
#include "tools/plot.h"
#include "datasets/datasets.h" /* ds_tmp_*: temporary file + rename */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAPER_BUDGET (512.0 * 1024 * 1024)

static const int t3_n[] = {16, 64, 256, 784, 1024, 4096, 16384, 65536};
static const int t3_M[] = {4096, 4096, 4096, 4096, 4096, 2048, 1024, 512};
static const double t3_gtx[] = {1.60, 0.5, 0.22, 0.15, 0.14, 0.133, 0.13, 0.134};
#define T3 8

typedef struct row {
    const char *table;
    bench_opk opk;
    fsvc_dtype dt;
    int64_t m, N;
    int n;
    double paper;         /* paper's t_syn (ns) for comparison, 0 if none */
    const char *paper_src;
    char note[256];
    bnl_precision prec;
    bench_res r;
} row;

static int64_t budget_M(int64_t M, int n, fsvc_dtype dt)
{
    double es = (double)fsvc_dtype_size(dt), hs = dt == FSVC_F64 ? 8 : 4;
    while (M > 16 && es * (2.0 * M * n) + hs * (double)M * M > PAPER_BUDGET)
        M /= 2;
    return M;
}

static double est_tsyn(bench_opk k, fsvc_dtype dt)
{
    if (dt == FSVC_U8) return 0.006;
    if (dt == FSVC_F32) return k == BENCH_RBF_L1 ? 0.015 : 0.008;
    return k == BENCH_RBF_L1 ? 0.05 : 0.02;
}

static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int write_csv(const char *path, const row *rows, int nr, const char *command,
                     int threads, fsvc_error *err)
{
    char model[256], feat[512];
    size_t tl = strlen(path) + 64;
    char *tmp = malloc(tl);
    FILE *f;
    if (!tmp)
        return fsvc_fail(err, FSVC_ERESOURCE, "bench: out of memory");
    int rc = ds_tmp_open(&f, tmp, tl, path, err);
    if (rc) {
        free(tmp);
        return rc;
    }
    bench_cpu_model(model, sizeof model);
    bench_cpu_features(feat, sizeof feat);
    fprintf(f, "table,cpu_model,cpu_features,compiler_flags,threads,command,op,dist_act,dtype,"
               "arch,precision,"
               "m,N,n,seconds_min,seconds_median,t_syn_ns,gsyn_per_s,peak_fraction,peak_fraction_cpu_time,"
               "peak_gsyn_per_s,peak_instructions,cpu_seconds_min,"
               "t_syn_cpu_ns,load_avg_1min,"
               "ref_t_syn_ns,ref_sub_sample,speedup_vs_ref,bare_gemm_s,ratio_to_bare_gemm,"
               "paper_t_syn_ns,paper_source,paper_over_ours,note\n");
    for (int i = 0; i < nr; i++) {
        const row *w = &rows[i];
        const bench_res *r = &w->r;
        bench_cfg c = {.opk = w->opk, .dtype = w->dt, .n = w->n};
        c.act = w->opk == BENCH_RBF_L1 ? BNL_TRI : w->opk == BENCH_RBF_L2 ? BNL_GAUSS
                : w->dt == FSVC_U8 ? BNL_IDENT : BNL_TANH;
        bnl_op op = bench_make_op(&c);
        char da[32], sub[64];
        snprintf(da, sizeof da, "%s/%s", bnl_dist_name(op.dist), bnl_act_name(op.act));
        snprintf(sub, sizeof sub, "%lldx%lld", (long long)r->ref_m, (long long)r->ref_N);
        fprintf(f, "%s,", w->table);
        csv_str(f, model); fputc(',', f);
        csv_str(f, feat); fputc(',', f);
        csv_str(f, bench_compiler_flags()); fputc(',', f);
        fprintf(f, "%d,", threads);
        csv_str(f, command); fputc(',', f);
        fprintf(f, "%s,%s,%s,%s,%s,%lld,%lld,%d,%.6g,%.6g,%.6g,%.6g,", bench_op_name(w->opk), da,
                fsvc_dtype_name(w->dt), r->arch, bnl_precision_name(w->prec), (long long)w->m, (long long)w->N, w->n, r->t_min,
                r->t_med, r->t_syn, r->gsyn);
        if (r->probe_peak > 0) { /* the measured peak (bench_run.c); none: empty */
            fprintf(f, "%.4f,%.4f,%.6g,", r->peak_frac, r->probe_frac, r->probe_peak / 1e9);
            csv_str(f, r->probe_what);
            fputc(',', f);
        } else {
            fprintf(f, ",,,,");
        }
        fprintf(f, "%.6g,%.6g,%.2f,%.6g,%s,%.4g,", r->cpu_min, r->t_syn_cpu, r->load1,
                r->ref_t_syn, sub, r->speedup);
        if (r->gemm_min > 0)
            fprintf(f, "%.6g,%.4f,", r->gemm_min, r->t_min / r->gemm_min);
        else
            fprintf(f, ",,");
        if (w->paper > 0)
            fprintf(f, "%.4g,%s,%.4g,", w->paper, w->paper_src, w->paper / r->t_syn);
        else
            fprintf(f, ",,,");
        csv_str(f, w->note);
        fputc('\n', f);
    }
    rc = ds_tmp_commit(f, tmp, path, err);  /* checks every write (ferror), flushes */
    free(tmp);
    return rc;
}

/* The plot of Table III: t_syn vs n per op and dtype, with the paper's
 * figures as marks (through tools/plot.c, the one plot path). */
static int write_png(const char *path, const row *rows, int nr, fsvc_error *err)
{
    enum { NS = 9 + 4 };
    double x[NS][T3], y[NS][T3];
    char lab[NS][64], model[256], title[400];
    plot_series s[NS];
    int ns = 0;
    const bench_opk ops[] = {BENCH_RBF_L1, BENCH_RBF_L2, BENCH_MUL};
    const fsvc_dtype dts[] = {FSVC_U8, FSVC_F32, FSVC_F64};
    for (int o = 0; o < 3; o++)
        for (int d = 0; d < 3; d++) {
            int n = 0;
            for (int i = 0; i < nr && n < T3; i++)
                if (!strcmp(rows[i].table, "III") && rows[i].opk == ops[o] && rows[i].dt == dts[d]) {
                    x[ns][n] = rows[i].n;
                    y[ns][n++] = rows[i].r.t_syn;
                }
            if (!n)
                continue;
            snprintf(lab[ns], sizeof lab[ns], "%s %s", bench_op_name(ops[o]), fsvc_dtype_name(dts[d]));
            s[ns] = (plot_series){lab[ns], x[ns], y[ns], NULL, n, "linespoints", "lw 2"};
            ns++;
        }
    for (int i = 0; i < T3; i++) {
        x[ns][i] = t3_n[i];
        y[ns][i] = t3_gtx[i];
    }
    s[ns] = (plot_series){"paper: GTX 750 (Table III)", x[ns], y[ns], NULL, T3, "points",
                          "pt 7 ps 1.5 lc rgb 'black'"};
    ns++;
    static const double cpu_x[] = {784}, mkl[] = {0.33}, mex[] = {4.6}, numba[] = {46};
    s[ns++] = (plot_series){"paper: CPU MKL f32 (Table V)", cpu_x, mkl, NULL, 1, "points",
                            "pt 5 ps 1.5 lc rgb 'red'"};
    s[ns++] = (plot_series){"paper: CPU gcc .MEX (Table V)", cpu_x, mex, NULL, 1, "points",
                            "pt 9 ps 1.5 lc rgb 'orange'"};
    s[ns++] = (plot_series){"paper: CPU numba jit (Table V)", cpu_x, numba, NULL, 1, "points",
                            "pt 11 ps 1.5 lc rgb 'brown'"};
    bench_cpu_model(model, sizeof model);
    snprintf(title, sizeof title,
             "BNL synaptic time vs n (paper Table III sizes) - %s, fsvc cpu backend", model);
    plot_spec sp = {title, "n (inputs per neuron)", "t_syn (ns) = seconds / (n m N)", 1, 1,
                    1000, 700, "outside right"};
    int rc = plot_png(path, &sp, s, ns, err);
    if (rc == PLOT_EMPTY)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: no measurement to plot", path);
    return rc;
}

static void add(row *rows, int *nr, const char *table, bench_opk k, fsvc_dtype dt, int64_t M,
                int n, double paper, const char *src)
{
    row *w = &rows[(*nr)++];
    memset(w, 0, sizeof *w);
    w->table = table;
    w->opk = k;
    w->dt = dt;
    w->n = n;
    w->m = M;
    w->N = M;
    w->paper = paper;
    w->paper_src = src;
    double pred = (double)M * M * n * est_tsyn(k, dt) * 1e-9;
    if (pred > 0.4) {
        int64_t N = (int64_t)(0.4e9 / ((double)M * n * est_tsyn(k, dt)));
        N = N < 64 ? 64 : N / 64 * 64;
        if (N < M) {
            snprintf(w->note, sizeof w->note, "N shrunk from %lld to %lld to keep --paper short",
                     (long long)M, (long long)N);
            w->N = N;
        }
    }
}

int bench_paper(const bench_cfg *base, const char *csv, const char *png, const char *command,
                fsvc_error *err)
{
    row *rows = calloc(200, sizeof *rows);
    if (!rows)
        return fsvc_fail(err, FSVC_ERESOURCE, "bench: out of memory");
    int nr = 0;
    const bench_opk ops[] = {BENCH_RBF_L1, BENCH_RBF_L2, BENCH_MUL};
    const fsvc_dtype dts[] = {FSVC_U8, FSVC_F32, FSVC_F64};
    for (int i = 0; i < T3; i++)
        for (int o = 0; o < 3; o++)
            for (int d = 0; d < 3; d++) {
                if (ops[o] == BENCH_MUL && dts[d] == FSVC_U8)
                    continue;
                if (dts[d] == FSVC_U8 && ops[o] != BENCH_RBF_L1 && t3_n[i] > 33025)
                    continue; /* exact int32 u8 L2 limit */
                int64_t M = budget_M(t3_M[i], t3_n[i], dts[d]);
                add(rows, &nr, "III", ops[o], dts[d], M, t3_n[i], t3_gtx[i], "GTX750 Table III");
                if (M < t3_M[i]) {
                    row *w = &rows[nr - 1];
                    char extra[256];
                    snprintf(extra, sizeof extra, "%s", w->note);
                    snprintf(w->note, sizeof w->note, "M %lld (paper %d) for the 512 MiB budget%s%.160s",
                             (long long)M, t3_M[i], extra[0] ? "; " : "", extra);
                }
            }
    const double t4[] = {7.86, 0.094, 0.43}; /* int16 (for u8), float32, float64 */
    for (int o = 0; o < 3; o++)
        for (int d = 0; d < 3; d++) {
            if (ops[o] == BENCH_MUL && dts[d] == FSVC_U8)
                continue;
            add(rows, &nr, "IV", ops[o], dts[d], 1000, 1000, t4[d],
                dts[d] == FSVC_U8 ? "MKL int16 Table IV" : "MKL Table IV");
        }
    for (int o = 0; o < 3; o++)
        for (int d = 0; d < 3; d++) {
            if (ops[o] == BENCH_MUL && dts[d] == FSVC_U8)
                continue;
            add(rows, &nr, "bestBNL", ops[o], dts[d], 4096, 1024, 0.14, "GTX750 Table III n=1024");
        }
    int tty = cli_progress_wanted(0);
    for (int i = 0; i < nr; i++) {
        row *w = &rows[i];
        bench_cfg c = *base;
        c.opk = w->opk;
        c.dtype = w->dt;
        c.m = w->m;
        c.N = w->N;
        c.n = w->n;
        c.act = w->opk == BENCH_RBF_L1 ? BNL_TRI : w->opk == BENCH_RBF_L2 ? BNL_GAUSS : BNL_TANH;
        if (w->opk == BENCH_MUL && w->dt == FSVC_U8)
            c.act = BNL_IDENT;
        c.repeats = base->repeats < 3 ? base->repeats : 3;
        c.ref_budget = 3e7;
        c.no_kernel_only = 1;
        c.verbose = 0;
        c.tile_m = c.tile_N = 0;
        bnl_op op = bench_make_op(&c); /* the CSV's precision: what ran (u8, L1: full) */
        w->prec = bnl_op_reduced(&op) ? c.precision : BNL_PREC_FULL;
        int rc = bench_run(&w->r, &c, err);
        if (rc) {
            free(rows);
            return rc;
        }
        printf("%-7s %-6s %-3s m=%-5lld N=%-5lld n=%-5d t_syn %.5f ns (CPU-time %.5f, load %.1f)"
               "  %.1fx ref  %.0f%% of peak (CPU time %.0f%%)%s%s\n", w->table,
               bench_op_name(w->opk), fsvc_dtype_name(w->dt), (long long)w->m, (long long)w->N,
               w->n, w->r.t_syn, w->r.t_syn_cpu, w->r.load1, w->r.speedup,
               100.0 * w->r.peak_frac, 100.0 * w->r.probe_frac,
               w->note[0] ? "  # " : "", w->note);
        if (tty)
            fflush(stdout);
    }
    /* issue 24's tiers at its layer, 4096 x 4096 x 784 (about 0.1 s each) */
    bench_tier tr[BENCH_TIERS_MAX];
    int nt = bench_tier_rows(tr);
    bench_cfg tc = *base;
    tc.opk = BENCH_RBF_L2;
    tc.act = BNL_GAUSS;
    tc.m = tc.N = 4096;
    tc.n = 784;
    tc.repeats = base->repeats < 3 ? base->repeats : 3;
    tc.tile_m = tc.tile_N = 0;
    int rc = bench_tiers_run(&tc, tr, nt, err);
    for (int i = 0; !rc && i < nt; i++) {
        add(rows, &nr, "tiers", BENCH_RBF_L2, tr[i].dt, 4096, 784, 0, "");
        row *w = &rows[nr - 1];
        w->prec = tr[i].prec;
        w->r = tr[i].r;
        w->N = 4096;
        if (tr[i].base == i)
            snprintf(w->note, sizeof w->note, "baseline of %s tiers", fsvc_dtype_name(tr[i].dt));
        else
            snprintf(w->note, sizeof w->note, "%.2fx %s (wall), %.2fx (CPU time), same run",
                     tr[tr[i].base].r.t_min / tr[i].r.t_min, tr[tr[i].base].arch,
                     tr[tr[i].base].r.t_syn_cpu / tr[i].r.t_syn_cpu);
    }
    if (rc) {
        free(rows);
        return rc;
    }
    rc = write_csv(csv, rows, nr, command, rows[0].r.plan.threads, err);
    if (!rc)
        rc = write_png(png, rows, nr, err);
    if (!rc)
        printf("wrote %s and %s\n", csv, png);
    free(rows);
    return rc;
}
