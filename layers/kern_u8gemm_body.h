/*
 * kern_u8gemm_body.h - exact u8 squared L2 and dot as a packed int16 GEMM,
 * written once for the vector width of the file that includes it
 * (kern_u8gemm_avx2.c: 8 int32 lanes, kern_u8gemm_sse2.c: 4), which
 * defines KG_V (the vector type), KG_W (its int32 lanes), KG_SFX, the
 * entry points' names KG_L2SQ / KG_DOT and the operations KG_*:
 *
 *   KG_L2SQ   D = Sx2 + Sw2 - 2 x.w
 *   KG_DOT    D = x.w
 *
 * Bytes widened to 16 bits once, outside the micro-kernel: per pair of k,
 * one broadcast of a sample's two values (x_k | x_k+1 << 16) against 2
 * vectors of KG_W neurons x the same two k from a packed panel, pmaddwd
 * (two products <= 255^2 each, their sum fits int32) and paddd: a
 * register tile of 4 samples x 2 KG_W neurons, 8 accumulators (on AVX2, 4
 * x 24 needs 12 and a temporary per vpmaddwd: one accumulator spilled;
 * 3 x 24 is no faster). The 4 x 4 AVX2 kernel before it widened both
 * operands for every pair of rows: 0.133 s for the 4096^2 x 784 layer's
 * products on a Zen 4 (2 threads), this one 0.091 s, 70 % of its vpmaddwd
 * probe; on SSE2 0.20 s, against 0.39 s for the scalar tier's plain-C 2 x 2
 * kernel before it. int32 modulo 2^32: exact while D fits (n <=
 * BNL_L2SQ_U8_MAX_N).
 * Loops: samples by KG_HG (their k block widened on the stack, up to 64
 * KB) > k by KG_KP pairs > neurons by 2 KG_W (the panel) > samples by 4,
 * adding into D after the first k block. Rows past an edge repeat the
 * last valid row and are not stored; neurons past m are zero in the panel
 * and not stored. D: N x m (ldd >= m), W: m x n, X: N x n, row-major.
 */
#define KG_CAT2(a, b) a##b
#define KG_CAT(a, b) KG_CAT2(a, b)
#define KG_FN(name) KG_CAT(name, KG_SFX)

#define KG_MR 4
#define KG_NR (2 * KG_W)
#define KG_KP 64  /* k pairs per block: the panel, 2 KG_W x 256 bytes */
#define KG_HG 256 /* samples per group: their block, 64 KB on the stack */

/* sum of x_k^2 over a row, modulo 2^32 */
static uint32_t KG_FN(kg_sumsq)(const uint8_t *x, int n)
{
    KG_V a = KG_ZERO();
    int k = 0;
    for (; k + 2 * KG_W <= n; k += 2 * KG_W) {
        KG_V v = KG_WIDEN(x + k);
        a = KG_ADD(a, KG_MADD(v, v));
    }
    uint32_t t[KG_W], s = 0;
    KG_STOREU(t, a);
    for (int l = 0; l < KG_W; l++) s += t[l];
    for (; k < n; k++) s += (uint32_t)x[k] * x[k];
    return s;
}

/* k pairs p0 .. p0 + kp - 1 of one row as 32-bit pairs x_2p | x_2p+1 << 16
 * (0 past n): out[0 .. kp - 1] */
static void KG_FN(kg_pairs)(uint32_t *out, const uint8_t *x, int n, int p0, int kp)
{
    const uint8_t *s = x + 2 * p0;
    int full = n / 2 - p0; /* pairs with both values */
    if (full > kp) full = kp;
    int p = 0;
    for (; p + KG_W <= full; p += KG_W)
        KG_STOREU(out + p, KG_WIDEN(s + 2 * p));
    for (; p < kp; p++) {
        int k = 2 * (p0 + p);
        uint32_t lo = k < n ? x[k] : 0, hi = k + 1 < n ? x[k + 1] : 0;
        out[p] = lo | hi << 16;
    }
}

#define KG_ROW(r)                                                              \
    b = KG_SET1((int32_t)x##r[p]);                                              \
    c##r##0 = KG_ADD(c##r##0, KG_MADD(b, w0));                                  \
    c##r##1 = KG_ADD(c##r##1, KG_MADD(b, w1))

#define KG_STORE(r)                                                            \
    if ((r) < rows) {                                                           \
        int32_t *d = D + (r) * ldd;                                             \
        KG_V xv = KG_SET1((int32_t)xs[r]);                                      \
        KG_STORE1(d, c##r##0, 0, xv); KG_STORE1(d, c##r##1, 1, xv);           \
    }
/* full tiles by plain loads and stores: vpmaskmovd stores are slow on AMD
 * (the AVX2 kernel 1.2x slower on a Zen 4 with masks everywhere); the
 * edge's partial vectors by KG_LOADP / KG_STOREP (lanes < left) */
#define KG_STORE1(d, acc, v, xv)                                               \
    do {                                                                        \
        KG_V a = (acc);                                                         \
        int32_t *dv = (d) + KG_W * (v);                                         \
        int left = cols - KG_W * (v) < KG_W ? cols - KG_W * (v) : KG_W;         \
        if (!first) a = KG_ADD(a, full ? KG_LOADU(dv) : KG_LOADP(dv, left));    \
        if (last && !dot)                                                       \
            a = KG_SUB(KG_ADD(xv, KG_LOADU(sw + KG_W * (v))), KG_ADD(a, a));    \
        if (full)                                                               \
            KG_STOREU(dv, a);                                                   \
        else                                                                    \
            KG_STOREP(dv, a, left);                                             \
    } while (0)

/* D tile (rows x cols of 4 x KG_NR) over kp pairs of the panel wp (kp x KG_NR)
 * and the sample rows xr (their pairs); finished on the last k block (L2:
 * xs + sw - 2 a). */
static void KG_FN(kg_tile)(int32_t *D, int64_t ldd, const uint32_t *wp,
                           const uint32_t *const xr[KG_MR], int kp, int rows, int cols,
                           int first, int last, const uint32_t *xs, const uint32_t *sw, int dot)
{
    KG_V c00 = KG_ZERO(), c01 = c00, c10 = c00, c11 = c00;
    KG_V c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    const uint32_t *x0 = xr[0], *x1 = xr[1], *x2 = xr[2], *x3 = xr[3];
    for (int p = 0; p < kp; p++) {
        const uint32_t *wq = wp + (size_t)p * KG_NR;
        KG_V w0 = KG_LOAD(wq), w1 = KG_LOAD(wq + KG_W);
        KG_V b;
        KG_ROW(0); KG_ROW(1); KG_ROW(2); KG_ROW(3);
    }
    const int full = cols == KG_NR;
    KG_STORE(0) KG_STORE(1) KG_STORE(2) KG_STORE(3)
}

static void KG_FN(kg_gemm)(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                           const uint8_t *X, int64_t N, int n, int dot)
{
    _Alignas(32) uint32_t xb[KG_HG * KG_KP]; /* the group's pairs, ld kp */
    _Alignas(32) uint32_t wp[KG_KP * KG_NR]; /* pairs x KG_NR neurons */
    _Alignas(32) uint32_t sw[KG_NR];        /* Sw2 of the panel (L2) */
    uint32_t xs[KG_HG + KG_MR];             /* Sx2 of the group (L2) */
    const int np = (n + 1) / 2, nb = (np + KG_KP - 1) / KG_KP;
    for (int64_t h0 = 0; h0 < N; h0 += KG_HG) {
        int64_t h1 = kern_min64(N, h0 + KG_HG);
        for (int64_t i = h0; i < h1; i++)
            xs[i - h0] = dot ? 0 : KG_FN(kg_sumsq)(X + i * (int64_t)n, n);
        for (int b = 0; b < nb; b++) {
            int p0 = b * KG_KP, kp = (int)kern_min64(KG_KP, np - p0), last = b == nb - 1;
            for (int64_t i = h0; i < h1; i++)
                KG_FN(kg_pairs)(xb + (i - h0) * kp, X + i * (int64_t)n, n, p0, kp);
            for (int64_t j0 = 0; j0 < m; j0 += KG_NR) {
                int cols = (int)kern_min64(KG_NR, m - j0);
                for (int c = 0; c < KG_NR; c++) {
                    uint32_t col[KG_KP];
                    if (c < cols)
                        KG_FN(kg_pairs)(col, W + (j0 + c) * (int64_t)n, n, p0, kp);
                    for (int p = 0; p < kp; p++)
                        wp[p * KG_NR + c] = c < cols ? col[p] : 0;
                    sw[c] = last && !dot && c < cols
                                ? KG_FN(kg_sumsq)(W + (j0 + c) * (int64_t)n, n) : 0;
                }
                for (int64_t i0 = h0; i0 < h1; i0 += KG_MR) {
                    int rows = (int)kern_min64(KG_MR, h1 - i0);
                    const uint32_t *xr[KG_MR];
                    for (int r = 0; r < KG_MR; r++)
                        xr[r] = xb + (i0 - h0 + (r < rows ? r : rows - 1)) * kp;
                    KG_FN(kg_tile)(D + i0 * ldd + j0, ldd, wp, xr, kp, rows, cols, b == 0, last,
                                   xs + (i0 - h0), sw, dot);
                }
            }
        }
    }
}

void KG_L2SQ(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X, int64_t N,
             int n)
{
    KG_FN(kg_gemm)(D, ldd, W, m, X, N, n, 0);
}

void KG_DOT(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X, int64_t N,
            int n)
{
    KG_FN(kg_gemm)(D, ldd, W, m, X, N, n, 1);
}

#undef KG_CAT2
#undef KG_CAT
#undef KG_FN
#undef KG_MR
#undef KG_NR
#undef KG_KP
#undef KG_HG
#undef KG_ROW
#undef KG_STORE
#undef KG_STORE1
