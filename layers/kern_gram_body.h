/*
 * kern_gram_body.h - THE fused block products of pcg (kernels.h hgram:
 * U = H V^T, then Y += H^T U), written once and included by each ISA file
 * (kern_gram_avx512.c, kern_gram_avx2.c) after its hooks:
 *   GV, GL             the vector type and its float lanes
 *   GV_ZERO() GV_LOAD(p) GV_STORE(p, v) GV_FMA(a, b, c) GV_SET1(x)
 *   GV_REDUCE(v)       the lanes' sum (a fixed tree)
 *   GV_LOAD_BF(p)      GL bf16 bit patterns widened (exact)
 *   GV_LOAD_F16(p)     GL f16 bit patterns widened (exact)
 *   GV_LOAD_TAIL(p, n) GV_LOAD_BF_TAIL(p, n) GV_LOAD_F16_TAIL(p, n)
 *   GV_STORE_TAIL(p, n, v)
 *                      the first n < GL lanes, the others zero / untouched
 *   GR, GK             U's register tile: GR rows x GK columns
 *   GA, YK             Y's: GA vectors of columns x YK rows (GK, YK <= 6)
 *   GRAM_NAME          the function's name
 * U: GR rows x up to GK columns of GL-lane sums over m, each then reduced.
 * Y: GA x GL columns x up to YK rows of Y held while the block's rows
 * stream by (from cache: U read them just before), in row order, and the
 * same columns of the next rb rows prefetched (callers walk H in order)
 * while both blocks fit in L2 (PF_BYTES; Zen 5, 2 threads, K = 10, AVX-512:
 * 1.1-1.3x at m 5000-20000 bf16 and 5000 f32, 0.9x at f32 m 20000, past
 * L2). Full vectors take plain loads and stores, only tails partial ones
 * (AVX-512 masked ones cost 1.6x on the U pass of a Zen 5). Every sum has
 * an order fixed by the shapes alone.
 */
#define AI static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 8")
#define PF_BYTES (512.0 * 1024)

/* GL values of H (fmt: f32, or bf16 / f16 bits) from element q; n < GL: a tail */
AI GV load_h(const void *H, const int fmt, int64_t q, const int tail, int n)
{
    if (fmt == BNL_H_F16) {
        const uint16_t *p = (const uint16_t *)H + q;
        return tail ? GV_LOAD_F16_TAIL(p, n) : GV_LOAD_F16(p);
    }
    if (fmt) {
        const uint16_t *p = (const uint16_t *)H + q;
        return tail ? GV_LOAD_BF_TAIL(p, n) : GV_LOAD_BF(p);
    }
    const float *p = (const float *)H + q;
    return tail ? GV_LOAD_TAIL(p, n) : GV_LOAD(p);
}

/* acc[r][k] += H(row r, a..a+GL-1) V(k, a..a+GL-1) */
AI void u_step(GV acc[GR][6], const void *H, const int fmt, const int64_t row[GR], int64_t m,
               const float *V, const int NK, int64_t a, const int tail, int n)
{
    GV h[GR];
    UNROLL for (int r = 0; r < GR; r++) h[r] = load_h(H, fmt, row[r] + a, tail, n);
    UNROLL for (int k = 0; k < NK; k++) {
        const float *v = V + (int64_t)k * m + a;
        GV vv = tail ? GV_LOAD_TAIL(v, n) : GV_LOAD(v);
        UNROLL for (int r = 0; r < GR; r++) acc[r][k] = GV_FMA(h[r], vv, acc[r][k]);
    }
}

/* U rows at H offsets row[] (past the block's end: repeats, not stored),
 * columns of V's first NK rows, into U (ldu) */
AI void u_tile(const void *H, const int fmt, const int64_t row[GR], int nr, int64_t m,
               const float *V, const int NK, float *U, int ldu)
{
    GV acc[GR][6]; /* GK used: the switch of BY_NK names 6 too */
    UNROLL for (int r = 0; r < GR; r++)
        UNROLL for (int k = 0; k < NK; k++) acc[r][k] = GV_ZERO();
    int64_t a = 0;
    for (; a + GL <= m; a += GL) u_step(acc, H, fmt, row, m, V, NK, a, 0, GL);
    if (a < m) u_step(acc, H, fmt, row, m, V, NK, a, 1, (int)(m - a));
    for (int r = 0; r < nr; r++)
        UNROLL for (int k = 0; k < NK; k++) U[r * ldu + k] = GV_REDUCE(acc[r][k]);
}

/* Y's NK rows (ldy m) at columns a.. (tail: n[j] lanes of vector j) +=
 * sum over the rb rows of H(r, a..) U(r, k); pf: prefetch the next rows */
AI void y_tile(const void *H, const int fmt, int rb, int64_t m, int64_t a, const int tail,
               const int n[GA], const float *U, int ldu, const int NK, float *Y, int pf)
{
    GV acc[YK][GA];
    UNROLL for (int k = 0; k < NK; k++)
        UNROLL for (int j = 0; j < GA; j++) {
            const float *y = Y + (int64_t)k * m + a + GL * j;
            acc[k][j] = tail ? GV_LOAD_TAIL(y, n[j]) : GV_LOAD(y);
        }
    for (int r = 0; r < rb; r++) {
        GV h[GA];
        if (pf) {
            const char *nx = (const char *)H + ((int64_t)(rb + r) * m + a) * (fmt ? 2 : 4);
            for (int l = 0; l < GA * GL * (fmt ? 2 : 4); l += 64) _mm_prefetch(nx + l, _MM_HINT_T2);
        }
        UNROLL for (int j = 0; j < GA; j++)
            h[j] = load_h(H, fmt, (int64_t)r * m + a + GL * j, tail, tail ? n[j] : GL);
        UNROLL for (int k = 0; k < NK; k++) {
            GV u = GV_SET1(U[r * ldu + k]);
            UNROLL for (int j = 0; j < GA; j++) acc[k][j] = GV_FMA(h[j], u, acc[k][j]);
        }
    }
    UNROLL for (int k = 0; k < NK; k++)
        UNROLL for (int j = 0; j < GA; j++) {
            float *y = Y + (int64_t)k * m + a + GL * j;
            if (tail) GV_STORE_TAIL(y, n[j], acc[k][j]);
            else GV_STORE(y, acc[k][j]);
        }
}

/* call(NK) with NK a constant 1..6 */
#define BY_NK(nk, call)       \
    switch (nk) {             \
    case 1: call(1); break;   \
    case 2: call(2); break;   \
    case 3: call(3); break;   \
    case 4: call(4); break;   \
    case 5: call(5); break;   \
    default: call(6); break;  \
    }

AI void gram(const void *H, const int fmt, int rb, int64_t m, int K, const float *V, float *U,
             float *Y)
{
    for (int r0 = 0; r0 < rb; r0 += GR) {
        int nr = rb - r0 < GR ? rb - r0 : GR;
        int64_t row[GR];
        UNROLL for (int r = 0; r < GR; r++) row[r] = (int64_t)(r0 + (r < nr ? r : nr - 1)) * m;
        for (int k0 = 0; k0 < K; k0 += GK) {
#define U_TILE(NK) u_tile(H, fmt, row, nr, m, V + (int64_t)k0 * m, NK, U + r0 * K + k0, K)
            BY_NK(K - k0 < GK ? K - k0 : GK, U_TILE)
#undef U_TILE
        }
    }
    int n[GA];
    int pf = (double)rb * (double)m * (fmt ? 2 : 4) <= PF_BYTES;
    for (int64_t a = 0; a < m; a += GL * GA) {
        int tail = a + GL * GA > m;
        UNROLL for (int j = 0; j < GA; j++) {
            int64_t left = m - a - GL * j;
            n[j] = left >= GL ? GL : left > 0 ? (int)left : 0;
        }
        for (int k0 = 0; k0 < K; k0 += YK) {
#define Y_FULL(NK) y_tile(H, fmt, rb, m, a, 0, n, U + k0, K, NK, Y + (int64_t)k0 * m, pf && !k0)
#define Y_TAIL(NK) y_tile(H, fmt, rb, m, a, 1, n, U + k0, K, NK, Y + (int64_t)k0 * m, pf && !k0)
            if (tail) BY_NK(K - k0 < YK ? K - k0 : YK, Y_TAIL)
            else BY_NK(K - k0 < YK ? K - k0 : YK, Y_FULL)
#undef Y_FULL
#undef Y_TAIL
        }
    }
}

void GRAM_NAME(const void *H, int fmt, int rb, int64_t m, int K, const float *V, float *U,
               float *Y)
{
    if (fmt == BNL_H_F16) gram(H, BNL_H_F16, rb, m, K, V, U, Y);
    else if (fmt == BNL_H_BF16) gram(H, BNL_H_BF16, rb, m, K, V, U, Y);
    else gram(H, BNL_H_F32, rb, m, K, V, U, Y);
}
