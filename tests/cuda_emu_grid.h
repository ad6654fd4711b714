/*
 * cuda_emu_grid.h - the tile kernel of cuda/tile.cu run on the host over
 * its whole emulated grid, and the packing the host driver does; shared
 * by tests/test_cuda_emu.c and tests/test_cuda_emu2.c (include after
 * cmocka.h and cuda/kernels_hd.h).
 */
#ifndef FSVC_TESTS_CUDA_EMU_GRID_H
#define FSVC_TESTS_CUDA_EMU_GRID_H

/* Packs rows x n elements (es bytes each) into rows x ldk zero-padded words. */
static uint32_t *pack(const void *A, int64_t rows, int n, int es, int64_t *ldk)
{
    *ldk = bnlc_ldk(n, es);
    uint32_t *P = calloc((size_t)(rows * *ldk), 4); /* exact: ASan sees overreads */
    assert_non_null(P);
    for (int64_t r = 0; r < rows; r++)
        memcpy((char *)(P + r * *ldk), (const char *)A + r * n * es, (size_t)n * es);
    return P;
}

/* Emulates the tile kernel over the whole grid, as the .cu launches it.
 * trans = 0: out is N x ldo (neuron quads < ldo); 1: m x ldo (sample quads
 * < ldo). Shared memory is refilled with garbage before each stage: the
 * staging must overwrite every word the compute phase reads. */
static void emulate_tile(int op, const bnlc_actp *p, float *out, int64_t ldo, int trans,
                         const uint32_t *W, int64_t m, const uint32_t *X, int64_t N,
                         int64_t ldk)
{
    uint32_t *sW = malloc(BNLC_SMEM_WORDS * 4), *sX = malloc(BNLC_SMEM_WORDS * 4);
    uint32_t(*acc)[BNLC_EPB] = malloc(sizeof(uint32_t[BNLC_EPB]) * BNLC_THREADS);
    float(*facc)[BNLC_EPB] = malloc(sizeof(float[BNLC_EPB]) * BNLC_THREADS);
    assert_non_null(sW); assert_non_null(sX); assert_non_null(acc); assert_non_null(facc);
    int64_t gx = (N + BNLC_TN - 1) / BNLC_TN, gy = (m + BNLC_TM - 1) / BNLC_TM;
    for (int64_t by = 0; by < gy; by++)
        for (int64_t bx = 0; bx < gx; bx++) {
            int64_t m0 = by * BNLC_TM, i0 = bx * BNLC_TN;
            memset(acc, 0, sizeof(uint32_t[BNLC_EPB]) * BNLC_THREADS);
            memset(facc, 0, sizeof(float[BNLC_EPB]) * BNLC_THREADS);
            for (int64_t k0 = 0; k0 < ldk; k0 += BNLC_KW) {
                memset(sW, 0xA5, BNLC_SMEM_WORDS * 4);
                memset(sX, 0x5A, BNLC_SMEM_WORDS * 4);
                for (int t = 0; t < BNLC_THREADS; t++) {       /* phase 1 */
                    bnlc_stage(sW, W, m, ldk, m0, k0, t);
                    bnlc_stage(sX, X, N, ldk, i0, k0, t);
                }
                int kw = (int)(ldk - k0 < BNLC_KW ? ldk - k0 : BNLC_KW);
                for (int t = 0; t < BNLC_THREADS; t++) {       /* phase 2 */
                    if (op == BNLC_F32_L1)
                        bnlc_compute_f(facc[t], sW, sX, t, kw);
                    else
                        bnlc_compute_u8(acc[t], sW, sX, t, kw, op);
                }
            }
            for (int t = 0; t < BNLC_THREADS; t++) {           /* phase 3 */
                float v[BNLC_EPB];
                if (op == BNLC_F32_L1)
                    memcpy(v, facc[t], sizeof v);
                else
                    bnlc_acc_to_float_u8(v, acc[t]);
                if (!trans)
                    bnlc_epilogue_f(out + i0 * ldo + m0, ldo, N - i0, ldo - m0, 0, v, p, t);
                else
                    bnlc_epilogue_f(out + m0 * ldo + i0, ldo, m - m0, ldo - i0, 1, v, p, t);
            }
        }
    free(sW); free(sX); free(acc); free(facc);
}

#endif /* FSVC_TESTS_CUDA_EMU_GRID_H */
