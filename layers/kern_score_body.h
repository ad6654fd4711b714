/*
 * kern_score_body.h - THE readout scores of an f32 H tile (kernels.h
 * hscore: Y += H R in float64), written once and included by each ISA
 * file (kern_score_avx512.c, kern_score_avx2.c) after its hooks:
 *   SV, SL             the vector type and its double lanes
 *   SV_LOAD(p, n)      the first n <= SL lanes, the others zero
 *   SV_STORE(p, n, v)  the first n <= SL lanes, the others untouched
 *   SV_FMA(a, b, c)    a b + c, rounded once
 *   SV_SET1(x)
 *   SR, SP             rows per block, vectors of K per panel (SR x SP
 *                      accumulators)
 *   SCORE_NAME         the function's name
 * Each y = Y[i][k] takes y = fma(h_ij, R[j][k], y) for j = 0..cols-1 in
 * order, one lane per k: a scalar fma loop's bits on every tier and for
 * any blocking of the rows, which is why it is not a GEMM.
 */
#define AI static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 8")

/* Y rows i..i+NR-1, columns k0..k0+kw-1 (NV vectors) */
AI void score_block(double *Y, const float *H, int64_t cols, const double *R, int K,
                    int k0, int kw, const int NR, const int NV)
{
    SV acc[SR][SP];
    int n[SP];
    UNROLL for (int v = 0; v < NV; v++) n[v] = kw - v * SL < SL ? kw - v * SL : SL;
    UNROLL for (int r = 0; r < NR; r++)
        UNROLL for (int v = 0; v < NV; v++) acc[r][v] = SV_LOAD(Y + r * K + k0 + v * SL, n[v]);
    for (int64_t j = 0; j < cols; j++) {
        SV rv[SP];
        UNROLL for (int v = 0; v < NV; v++) rv[v] = SV_LOAD(R + j * K + k0 + v * SL, n[v]);
        UNROLL for (int r = 0; r < NR; r++) {
            SV h = SV_SET1((double)H[r * cols + j]);
            UNROLL for (int v = 0; v < NV; v++) acc[r][v] = SV_FMA(h, rv[v], acc[r][v]);
        }
    }
    UNROLL for (int r = 0; r < NR; r++)
        UNROLL for (int v = 0; v < NV; v++) SV_STORE(Y + r * K + k0 + v * SL, n[v], acc[r][v]);
}

/* the rows of one panel: blocks of SR, then one by one; NV constant */
AI void score_panel(double *Y, const float *H, int64_t rows, int64_t cols, const double *R,
                    int K, int k0, int kw, const int NV)
{
    int64_t i = 0;
    for (; i + SR <= rows; i += SR)
        score_block(Y + i * K, H + i * cols, cols, R, K, k0, kw, SR, NV);
    for (; i < rows; i++)
        score_block(Y + i * K, H + i * cols, cols, R, K, k0, kw, 1, NV);
}

_Static_assert(SP >= 2 && SP <= 3, "score panels of 2 or 3 vectors");

void SCORE_NAME(double *Y, const float *H, int64_t rows, int64_t cols, const double *R, int K)
{
    for (int k0 = 0; k0 < K; k0 += SP * SL) {
        int kw = K - k0 < SP * SL ? K - k0 : SP * SL;
        switch ((kw + SL - 1) / SL) { /* vectors: each count its own code */
        case 1: score_panel(Y, H, rows, cols, R, K, k0, kw, 1); break;
        case 2: score_panel(Y, H, rows, cols, R, K, k0, kw, 2); break;
        default: score_panel(Y, H, rows, cols, R, K, k0, kw, SP); break;
        }
    }
}

#undef AI
#undef UNROLL
