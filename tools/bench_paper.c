/*
 * bench_paper.c - `fsvc bench --paper`: the 2017 paper's configurations
 * re-measured on this machine's CPU backend, written to a CSV and a PNG
 * (both through a temporary file + rename).
 *
 *   Table III  n = 16 ... 65536 at the paper's M (4096 ... 512), capped to
 *              the largest power of two M <= 4096 whose BNL fits a memory
 *              budget of 512 MiB (paper eq. 4 with our element size:
 *              size * (n m + N n) + 4|8 * N m);
 *   Table IV   m = N = n = 1000 for f32, f64 and u8 (the paper's MKL matrix
 *              product; its int16 figure stands in for u8);
 *   best BNL   M = 4096, n = 1024;
 * for rbf-l1, rbf-l2 and mul in u8 / f32 / f64 (mul has no u8 row: tanh
 * saturates on integer dot products). To finish in a few minutes N is
 * shrunk where one forward pass would take more than about 0.4 s (the CSV
 * says so in its note column).
 */
#include "tools/bench.h"
#include "tools/cli.h"

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
    char tmp[4096], model[256], feat[512];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write: %s", tmp, strerror(errno));
    bench_cpu_model(model, sizeof model);
    bench_cpu_features(feat, sizeof feat);
    fprintf(f, "table,cpu_model,cpu_features,compiler_flags,threads,command,op,dist_act,dtype,"
               "m,N,n,seconds_min,seconds_median,t_syn_ns,gsyn_per_s,peak_fraction,cpu_seconds_min,"
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
        fprintf(f, "%s,%s,%s,%lld,%lld,%d,%.6g,%.6g,%.6g,%.6g,%.4f,%.6g,%.6g,%.2f,%.6g,%s,%.4g,",
                bench_op_name(w->opk), da, fsvc_dtype_name(w->dt), (long long)w->m,
                (long long)w->N, w->n, r->t_min, r->t_med, r->t_syn, r->gsyn, r->peak_frac,
                r->cpu_min, r->t_syn_cpu, r->load1, r->ref_t_syn, sub, r->speedup);
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
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write: %s", path, strerror(e));
    }
    return FSVC_OK;
}

/* gnuplot (pngcairo) fed the data inline through a pipe. */
static int write_png(const char *path, const row *rows, int nr, fsvc_error *err)
{
    char tmp[4096], cmd[4200], model[256];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d.png", path, (int)getpid());
    snprintf(cmd, sizeof cmd, "gnuplot > /dev/null 2>&1");
    FILE *g = popen(cmd, "w");
    if (!g)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot run gnuplot", path);
    bench_cpu_model(model, sizeof model);
    fprintf(g, "set terminal pngcairo size 1000,700 font 'sans,10'\n");
    fprintf(g, "set output '%s'\n", tmp);
    fprintf(g, "set title 'BNL synaptic time vs n (paper Table III sizes) - %s, fsvc cpu backend'\n",
            model);
    fprintf(g, "set logscale xy\nset xlabel 'n (inputs per neuron)'\n"
               "set ylabel 't_{syn} (ns) = seconds / (n m N)'\nset grid\n"
               "set key outside right\nset format y '%%g'\n");
    /* series: each op/dtype of Table III, then the paper's marks */
    const bench_opk ops[] = {BENCH_RBF_L1, BENCH_RBF_L2, BENCH_MUL};
    const fsvc_dtype dts[] = {FSVC_U8, FSVC_F32, FSVC_F64};
    int series = 0;
    fprintf(g, "plot ");
    for (int o = 0; o < 3; o++)
        for (int d = 0; d < 3; d++) {
            int any = 0;
            for (int i = 0; i < nr; i++)
                any |= !strcmp(rows[i].table, "III") && rows[i].opk == ops[o] && rows[i].dt == dts[d];
            if (!any)
                continue;
            fprintf(g, "%s'-' using 1:2 with linespoints lw 2 title '%s %s'", series ? ", " : "",
                    bench_op_name(ops[o]), fsvc_dtype_name(dts[d]));
            series++;
        }
    fprintf(g, ", '-' using 1:2 with points pt 7 ps 1.5 lc rgb 'black' title 'paper: GTX 750 (Table III)'");
    fprintf(g, ", '-' using 1:2 with points pt 5 ps 1.5 lc rgb 'red' title 'paper: CPU MKL f32 (Table V)'");
    fprintf(g, ", '-' using 1:2 with points pt 9 ps 1.5 lc rgb 'orange' title 'paper: CPU gcc .MEX (Table V)'");
    fprintf(g, ", '-' using 1:2 with points pt 11 ps 1.5 lc rgb 'brown' title 'paper: CPU numba jit (Table V)'\n");
    for (int o = 0; o < 3; o++)
        for (int d = 0; d < 3; d++) {
            int any = 0;
            for (int i = 0; i < nr; i++)
                if (!strcmp(rows[i].table, "III") && rows[i].opk == ops[o] && rows[i].dt == dts[d]) {
                    fprintf(g, "%d %g\n", rows[i].n, rows[i].r.t_syn);
                    any = 1;
                }
            if (any)
                fprintf(g, "e\n");
        }
    for (int i = 0; i < T3; i++)
        fprintf(g, "%d %g\n", t3_n[i], t3_gtx[i]);
    fprintf(g, "e\n784 0.33\ne\n784 4.6\ne\n784 46\ne\n");
    int st = pclose(g);
    if (st != 0 || access(tmp, F_OK) != 0) {
        remove(tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: gnuplot failed (is gnuplot with pngcairo installed?)",
                         path);
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot write: %s", path, strerror(e));
    }
    return FSVC_OK;
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
        int rc = bench_run(&w->r, &c, err);
        if (rc) {
            free(rows);
            return rc;
        }
        printf("%-7s %-6s %-3s m=%-5lld N=%-5lld n=%-5d t_syn %.5f ns (CPU-time %.5f, load %.1f)"
               "  %.1fx ref%s%s\n", w->table,
               bench_op_name(w->opk), fsvc_dtype_name(w->dt), (long long)w->m, (long long)w->N,
               w->n, w->r.t_syn, w->r.t_syn_cpu, w->r.load1, w->r.speedup,
               w->note[0] ? "  # " : "", w->note);
        if (tty)
            fflush(stdout);
    }
    int rc = write_csv(csv, rows, nr, command, rows[0].r.plan.threads, err);
    if (!rc)
        rc = write_png(png, rows, nr, err);
    if (!rc)
        printf("wrote %s and %s\n", csv, png);
    free(rows);
    return rc;
}
