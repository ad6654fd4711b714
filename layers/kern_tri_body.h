/*
 * kern_tri_body.h - the block updates of the f32 triangular solves
 * (kernels.h tri_fwd, tri_back; chol.c), written once with the hooks of
 * kern_gram_body.h and included after it by each ISA file, which also sets
 *   TA, TK    forward tiles: TA vectors of rows x TK right-hand sides
 *   TJ        forward: columns of L per pass down the rows
 *   TC, TKB   backward tiles: TC columns of L x TKB right-hand sides
 *   TRI_FWD_NAME TRI_BACK_NAME   the functions' names
 * pcg applies its preconditioner with few right-hand sides (the classes),
 * so the updates are bound by the factor's bytes: BLAS GEMMs pack each
 * block first and reach a third of the memory speed (2-core Zen 4: 9 of
 * 30 GB/s); these read each element of L once, straight into FMAs.
 * Every sum runs in an order fixed by the shapes alone.
 */
#define TRI_AHEAD 256 /* floats down a column: the backward tiles' prefetch */

/* the loops over the right-hand sides unrolled whole, so that the
 * accumulators stay in registers */
#define TUNROLL _Pragma("GCC unroll 12")

/* call(NK) with NK a constant 1..12, at most max (the tile's) */
#define TK_MAX(n, max) ((n) < (max) ? (n) : (max))
#define BY_TK(nk, max, call)               \
    switch (nk) {                          \
    case 1: call(TK_MAX(1, max)); break;   \
    case 2: call(TK_MAX(2, max)); break;   \
    case 3: call(TK_MAX(3, max)); break;   \
    case 4: call(TK_MAX(4, max)); break;   \
    case 5: call(TK_MAX(5, max)); break;   \
    case 6: call(TK_MAX(6, max)); break;   \
    case 7: call(TK_MAX(7, max)); break;   \
    case 8: call(TK_MAX(8, max)); break;   \
    case 9: call(TK_MAX(9, max)); break;   \
    case 10: call(TK_MAX(10, max)); break; \
    case 11: call(TK_MAX(11, max)); break; \
    default: call(TK_MAX(12, max)); break; \
    }

/* B's rows r..r + TA GL (n[a] lanes of vector a), NK columns -= L(r.., j)
 * X(j, k) for j < jb in order, one rounding a step */
AI void fwd_strip(float *B, int64_t ldb, const float *L, int64_t lda, const float *X,
                  int64_t ldx, int jb, const int NK, const int tail, const int n[TA])
{
    GV acc[TK][TA];
    TUNROLL for (int k = 0; k < NK; k++)
        TUNROLL for (int a = 0; a < TA; a++) {
            const float *b = B + k * ldb + GL * a;
            acc[k][a] = tail ? GV_LOAD_TAIL(b, n[a]) : GV_LOAD(b);
        }
    for (int j = 0; j < jb; j++) {
        const float *l = L + j * lda;
        GV v[TA];
        TUNROLL for (int a = 0; a < TA; a++)
            v[a] = tail ? GV_LOAD_TAIL(l + GL * a, n[a]) : GV_LOAD(l + GL * a);
        TUNROLL for (int k = 0; k < NK; k++) {
            GV x = GV_SET1(-X[j + k * ldx]); /* b - l x = fma(l, -x, b): one rounding */
            TUNROLL for (int a = 0; a < TA; a++) acc[k][a] = GV_FMA(v[a], x, acc[k][a]);
        }
    }
    TUNROLL for (int k = 0; k < NK; k++)
        TUNROLL for (int a = 0; a < TA; a++) {
            float *b = B + k * ldb + GL * a;
            if (tail) GV_STORE_TAIL(b, n[a], acc[k][a]);
            else GV_STORE(b, acc[k][a]);
        }
}

/* TJ columns of L at a time, down all rows: TJ sequential streams (the
 * hardware prefetcher follows them), B's rows kept in L1 between groups */
void TRI_FWD_NAME(float *B, int64_t ldb, const float *L, int64_t lda, const float *X,
                  int64_t ldx, int64_t rb, int64_t kb, int K)
{
    for (int64_t j0 = 0; j0 < kb; j0 += TJ) {
        int jb = kb - j0 < TJ ? (int)(kb - j0) : TJ;
        const float *Lj = L + j0 * lda, *Xj = X + j0;
        int pf = j0 + TJ < kb; /* the next group's columns, strip by strip */
        for (int64_t r = 0; r < rb; r += TA * GL) {
            if (pf)
                for (int j = 0; j < TJ && j0 + TJ + j < kb; j++)
                    for (int q = 0; q < TA * GL; q += 16) /* 16 floats: a line */
                        _mm_prefetch((const char *)(Lj + (TJ + j) * lda + r + q), _MM_HINT_T0);
            int tail = r + TA * GL > rb, n[TA];
            TUNROLL for (int a = 0; a < TA; a++) {
                int64_t left = rb - r - GL * a;
                n[a] = left >= GL ? GL : left > 0 ? (int)left : 0;
            }
            for (int k0 = 0; k0 < K; k0 += TK) {
#define FWD_FULL(NK) fwd_strip(B + r + k0 * ldb, ldb, Lj + r, lda, Xj + k0 * ldx, ldx, jb, NK, \
                               0, n)
#define FWD_TAIL(NK) fwd_strip(B + r + k0 * ldb, ldb, Lj + r, lda, Xj + k0 * ldx, ldx, jb, NK, \
                               1, n)
                if (tail) BY_TK(K - k0 < TK ? K - k0 : TK, TK, FWD_TAIL)
                else BY_TK(K - k0 < TK ? K - k0 : TK, TK, FWD_FULL)
#undef FWD_FULL
#undef FWD_TAIL
            }
        }
    }
}

/* acc[c][k] += L(i.., col c) X(i.., k) over GL rows from i (n < GL: a tail) */
AI void back_step(GV acc[TC][TKB], const float *const col[TC], const float *X, int64_t ldx,
                  const int NK, int64_t i, const int tail, int n)
{
    GV v[TC];
    TUNROLL for (int c = 0; c < TC; c++) v[c] = tail ? GV_LOAD_TAIL(col[c] + i, n)
                                                    : GV_LOAD(col[c] + i);
    TUNROLL for (int k = 0; k < NK; k++) {
        const float *x = X + k * ldx + i;
        GV xv = tail ? GV_LOAD_TAIL(x, n) : GV_LOAD(x);
        TUNROLL for (int c = 0; c < TC; c++) acc[c][k] = GV_FMA(v[c], xv, acc[c][k]);
    }
}

/* B(c, k) -= sum over i < len of L(i, c) X(i, k) for TC columns (past nc:
 * repeats, not stored) and NK right-hand sides */
AI void back_tile(float *B, int64_t ldb, const float *const col[TC], int nc, const float *X,
                  int64_t ldx, int64_t len, const int NK)
{
    GV acc[TC][TKB];
    TUNROLL for (int c = 0; c < TC; c++)
        TUNROLL for (int k = 0; k < NK; k++) acc[c][k] = GV_ZERO();
    int64_t i = 0;
    for (; i + GL <= len; i += GL) {
        if (i + TRI_AHEAD < len) /* Zen 4, one core: 1.25x */
            TUNROLL for (int c = 0; c < TC; c++)
                _mm_prefetch((const char *)(col[c] + i + TRI_AHEAD), _MM_HINT_T0);
        back_step(acc, col, X, ldx, NK, i, 0, GL);
    }
    if (i < len) back_step(acc, col, X, ldx, NK, i, 1, (int)(len - i));
    for (int c = 0; c < nc; c++)
        TUNROLL for (int k = 0; k < NK; k++) B[c + k * ldb] -= GV_REDUCE(acc[c][k]);
}

void TRI_BACK_NAME(float *B, int64_t ldb, const float *L, int64_t lda, const float *X,
                   int64_t ldx, int64_t cb, int64_t len, int K)
{
    for (int64_t c0 = 0; c0 < cb; c0 += TC) {
        int nc = cb - c0 < TC ? (int)(cb - c0) : TC;
        const float *col[TC];
        TUNROLL for (int c = 0; c < TC; c++) col[c] = L + (c0 + (c < nc ? c : nc - 1)) * lda;
        for (int k0 = 0; k0 < K; k0 += TKB) {
#define BACK_TILE(NK) back_tile(B + c0 + k0 * ldb, ldb, col, nc, X + k0 * ldx, ldx, len, NK)
            BY_TK(K - k0 < TKB ? K - k0 : TKB, TKB, BACK_TILE)
#undef BACK_TILE
        }
    }
}
