/* onednn_bench.c - oneDNN's matmul (Debian's libdnnl) on the product of a
 * layer: X (N x K) times W^T (K x m), in u8 x s8 -> s32, bf16 x bf16 -> f32
 * or f32, weights in the layout oneDNN picks (packed once, as fsvc packs its
 * centroids). Checks 64 entries against a plain loop, then prints
 *   impl=NAME t_min=SECONDS gops=G
 * for the best of REPS runs. Used by scripts/onednn_vs_fsvc.sh.
 * usage: onednn_bench u8|bf16|f32 N m K REPS */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

#define CK(x)                                                                    \
    do {                                                                         \
        dnnl_status_t st_ = (x);                                                 \
        if (st_ != dnnl_success) {                                               \
            fprintf(stderr, "onednn_bench: %s failed (%d)\n", #x, (int)st_);     \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static uint16_t to_bf16(float f) /* round to nearest even; inputs are finite */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* a memory object of md over ptr (NULL: oneDNN allocates) */
static dnnl_memory_t mem(const dnnl_memory_desc_t *md, dnnl_engine_t eng, void *ptr)
{
    dnnl_memory_t m;
    CK(dnnl_memory_create(&m, md, eng, ptr ? ptr : DNNL_MEMORY_ALLOCATE));
    return m;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: onednn_bench u8|bf16|f32 N m K REPS\n");
        return 1;
    }
    const char *type = argv[1];
    dnnl_dim_t N = atol(argv[2]), M = atol(argv[3]), K = atol(argv[4]);
    int reps = atoi(argv[5]);
    int u8 = !strcmp(type, "u8"), bf = !strcmp(type, "bf16");
    if ((!u8 && !bf && strcmp(type, "f32")) || N < 1 || M < 1 || K < 1 || reps < 1) {
        fprintf(stderr, "onednn_bench: bad arguments\n");
        return 1;
    }
    dnnl_data_type_t ts = u8 ? dnnl_u8 : bf ? dnnl_bf16 : dnnl_f32;
    dnnl_data_type_t tw = u8 ? dnnl_s8 : bf ? dnnl_bf16 : dnnl_f32;
    dnnl_data_type_t td = u8 ? dnnl_s32 : dnnl_f32;
    size_t es = u8 ? 1 : bf ? 2 : 4;
    /* data: small integers in every type, so the check can be exact */
    void *x = malloc(N * K * es), *w = malloc(K * M * es);
    srand(7);
    for (dnnl_dim_t i = 0; i < N * K; i++) {
        int v = rand() % (u8 ? 256 : 16);
        if (u8) ((uint8_t *)x)[i] = (uint8_t)v;
        else if (bf) ((uint16_t *)x)[i] = to_bf16((float)v);
        else ((float *)x)[i] = (float)v;
    }
    for (dnnl_dim_t i = 0; i < K * M; i++) {
        int v = rand() % (u8 ? 256 : 16) - (u8 ? 128 : 8);
        if (u8) ((int8_t *)w)[i] = (int8_t)v;
        else if (bf) ((uint16_t *)w)[i] = to_bf16((float)v);
        else ((float *)w)[i] = (float)v;
    }
    dnnl_engine_t eng;
    dnnl_stream_t s;
    CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
    dnnl_dims_t ds = {N, K}, dw = {K, M}, dd = {N, M};
    dnnl_memory_desc_t mds, mdw_any, mdw_plain, mdd;
    CK(dnnl_memory_desc_init_by_tag(&mds, 2, ds, ts, dnnl_ab));
    CK(dnnl_memory_desc_init_by_tag(&mdw_any, 2, dw, tw, dnnl_format_tag_any));
    CK(dnnl_memory_desc_init_by_tag(&mdw_plain, 2, dw, tw, dnnl_ab));
    CK(dnnl_memory_desc_init_by_tag(&mdd, 2, dd, td, dnnl_ab));
    dnnl_matmul_desc_t desc;
    CK(dnnl_matmul_desc_init(&desc, &mds, &mdw_any, NULL, &mdd));
    dnnl_primitive_desc_t pd;
    CK(dnnl_primitive_desc_create(&pd, &desc, NULL, eng, NULL));
    const char *impl = "?";
    CK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    const dnnl_memory_desc_t *mdw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    /* weights packed once into oneDNN's layout */
    dnnl_memory_t mw_plain = mem(&mdw_plain, eng, w), mw = mem(mdw, eng, NULL);
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t rp;
    CK(dnnl_reorder_primitive_desc_create(&rpd, &mdw_plain, eng, mdw, eng, NULL));
    CK(dnnl_primitive_create(&rp, rpd));
    dnnl_exec_arg_t ra[] = {{DNNL_ARG_FROM, mw_plain}, {DNNL_ARG_TO, mw}};
    CK(dnnl_primitive_execute(rp, s, 2, ra));
    CK(dnnl_stream_wait(s));
    dnnl_memory_t msrc = mem(&mds, eng, x), mdst = mem(&mdd, eng, NULL);
    dnnl_primitive_t mm;
    CK(dnnl_primitive_create(&mm, pd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, msrc}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, mdst}};
    double best = 1e30;
    for (int r = 0; r < reps + 1; r++) { /* the first run warms up */
        double t0 = now();
        CK(dnnl_primitive_execute(mm, s, 3, args));
        CK(dnnl_stream_wait(s));
        double t = now() - t0;
        if (r > 0 && t < best) best = t;
    }
    void *out = NULL;
    CK(dnnl_memory_get_data_handle(mdst, &out));
    for (int c = 0; c < 64; c++) { /* 64 entries against a plain loop */
        dnnl_dim_t i = (dnnl_dim_t)(((uint64_t)c * 2654435761u) % (uint64_t)N);
        dnnl_dim_t j = (dnnl_dim_t)(((uint64_t)c * 40503u + 17) % (uint64_t)M);
        double want = 0, got;
        for (dnnl_dim_t k = 0; k < K; k++) {
            double a, b;
            if (u8) { a = ((uint8_t *)x)[i * K + k]; b = ((int8_t *)w)[k * M + j]; }
            else if (bf) { a = from_bf16(((uint16_t *)x)[i * K + k]); b = from_bf16(((uint16_t *)w)[k * M + j]); }
            else { a = ((float *)x)[i * K + k]; b = ((float *)w)[k * M + j]; }
            want += a * b;
        }
        got = u8 ? ((int32_t *)out)[i * M + j] : ((float *)out)[i * M + j];
        if (got != want) {
            fprintf(stderr, "onednn_bench: entry (%ld, %ld) is %.17g, want %.17g\n", (long)i,
                    (long)j, got, want);
            return 2;
        }
    }
    printf("impl=%s t_min=%.6f gops=%.1f\n", impl, best, 2.0 * N * M * K / best / 1e9);
    dnnl_primitive_destroy(mm); dnnl_primitive_destroy(rp);
    dnnl_primitive_desc_destroy(pd); dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(msrc); dnnl_memory_destroy(mdst); dnnl_memory_destroy(mw);
    dnnl_memory_destroy(mw_plain);
    dnnl_stream_destroy(s); dnnl_engine_destroy(eng);
    free(x); free(w);
    return 0;
}
