/*
 * kernels_real_hd.h - the kernel bodies that f32 and f64 layers share,
 * written once over a real type. kernels_hd.h includes it twice, with
 *   BNLC_R        float | double          BNLC_RN(x)  x##_f | x##_d
 *   BNLC_RADD/RSUB/RMUL, BNLC_RABS        IEEE operations, never fused
 *   BNLC_ACTP, BNLC_ACT(p, v)             the activation of that precision
 *   BNLC_WPE (words an element), bnlc_ld8_f|d, bnlc_st4_f|d: staged loads, stores
 * so the two precisions cannot drift apart; no include guard on purpose,
 * and the parameters are undefined at the end for the next inclusion.
 */

/* L1 over the kw words of a stage: acc += |x - w| per element in
 * increasing k (f64: two words an element), acc laid out as
 * bnlc_compute_u8's. */
FSVC_HD void BNLC_RN(bnlc_compute)(BNLC_R acc[BNLC_EPB], const uint32_t *sW,
                                   const uint32_t *sX, int t, int kw)
{
    int tx = t % BNLC_TX, ty = t / BNLC_TX;
    for (int k = 0; k + BNLC_WPE - 1 < kw; k += BNLC_WPE) {
        BNLC_R w[8], x[8];
        BNLC_RN(bnlc_ld8)(sW + k * BNLC_LDS + ty * 4, w);
        BNLC_RN(bnlc_ld8)(sX + k * BNLC_LDS + tx * 4, x);
        BNLC_UNROLL for (int r = 0; r < 8; r++)
            BNLC_UNROLL for (int c = 0; c < 8; c++)
                acc[r * 8 + c] = BNLC_RADD(acc[r * 8 + c], BNLC_RABS(BNLC_RSUB(x[c], w[r])));
    }
}

/* Epilogue of the tile kernel: v = the accumulator (u8: (float)(int32),
 * f32 / f64: the sum), H = act(v). out points at the block's corner;
 * rows / cols are what remains of the buffer from there (tile-local, cols
 * a multiple of 4):
 *   not transposed: out[i*ldo + j], i sample (< rows), j neuron (quad < cols)
 *   transposed:     out[j*ldo + i], j neuron (< rows), i sample (quad < cols)
 * Each thread writes 16-byte vectors: 4 consecutive neurons (or samples).
 * Unrolled: v stays in registers (a runtime index put it on the stack). */
FSVC_HD void BNLC_RN(bnlc_epilogue)(BNLC_R *out, int64_t ldo, int64_t rows, int64_t cols,
                                    int trans, const BNLC_R v[BNLC_EPB], const BNLC_ACTP *p,
                                    int t)
{
    int tx = t % BNLC_TX, ty = t / BNLC_TX;
    BNLC_UNROLL for (int i = 0; i < 2; i++)
        BNLC_UNROLL for (int j = 0; j < 2; j++) {
            int64_t nj = ty * 4 + 64 * i; /* first neuron of the quad */
            int64_t si = tx * 4 + 64 * j; /* first sample of the quad */
            const BNLC_R *q = v + (4 * i) * 8 + 4 * j; /* q[a*8 + b]: neuron a, sample b */
            if (!trans) {
                if (nj >= cols)
                    continue;
                BNLC_UNROLL for (int b = 0; b < 4; b++)
                    if (si + b < rows)
                        BNLC_RN(bnlc_st4)(out + (si + b) * ldo + nj, BNLC_ACT(p, q[b]),
                                          BNLC_ACT(p, q[8 + b]), BNLC_ACT(p, q[16 + b]),
                                          BNLC_ACT(p, q[24 + b]));
            } else {
                if (si >= cols)
                    continue;
                BNLC_UNROLL for (int a = 0; a < 4; a++)
                    if (nj + a < rows)
                        BNLC_RN(bnlc_st4)(out + (nj + a) * ldo + si, BNLC_ACT(p, q[a * 8]),
                                          BNLC_ACT(p, q[a * 8 + 1]), BNLC_ACT(p, q[a * 8 + 2]),
                                          BNLC_ACT(p, q[a * 8 + 3]));
            }
        }
}

/* The GEMM path (L2 and dot through cuBLAS): the squared norm of row r of
 * A (rows x ld elements), one thread a row, in increasing k, unfused as
 * the CPU's norms (cpu_tile.c). */
FSVC_HD BNLC_R BNLC_RN(bnlc_rownorm)(const BNLC_R *A, int64_t ld, int n, int64_t r)
{
    BNLC_R s = 0;
    for (int k = 0; k < n; k++) {
        BNLC_R a = A[r * ld + k];
        s = BNLC_RADD(s, BNLC_RMUL(a, a));
    }
    return s;
}

/* One element of the GEMM epilogue: G = -2 x.w (GEMM with alpha = -2) for
 * L2, or x.w for dot. L2: v = max(0, (xn + wn) + G), as epi.c. */
FSVC_HD BNLC_R BNLC_RN(bnlc_gemm_epi)(BNLC_R G, BNLC_R xn, BNLC_R wn, int l2,
                                      const BNLC_ACTP *p)
{
    BNLC_R v = G;
    if (l2) {
        v = BNLC_RADD(BNLC_RADD(xn, wn), G);
        v = v > 0 ? v : 0;
    }
    return BNLC_RN(bnlc_act)(p, v);
}

/* Activation sums, one thread a sample, neurons in increasing order.
 * Ht: rows neurons x ldo (a transposed tile); S[i] continues the sum of
 * the earlier neuron tiles in double. A warp reads 32 consecutive samples
 * of one neuron row (coalesced). */
FSVC_HD void BNLC_RN(bnlc_actsum_body)(double *S, const BNLC_R *Ht, int64_t ldo, int64_t mt,
                                       int64_t i)
{
    double s = S[i];
    for (int64_t j = 0; j < mt; j++)
        s = BNLC_DADD(s, (double)Ht[j * ldo + i]);
    S[i] = s;
}

#undef BNLC_R
#undef BNLC_RN
#undef BNLC_WPE
#undef BNLC_RADD
#undef BNLC_RSUB
#undef BNLC_RMUL
#undef BNLC_RABS
#undef BNLC_ACTP
#undef BNLC_ACT
