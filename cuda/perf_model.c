/*
 * model.c - instruction mix of the tile kernel (see model.h) and the peak
 * synaptic time it implies. Host C, no CUDA needed.
 */
#include "perf_model.h"
#include "kernels_hd.h"

static const bnlc_mix mixes[BNLC_MIXES] = {
    /* name            syn/op alu/op pipe             ops/word lds128/word */
    {"u8 L1 (dp4a)",   4,     2,     BNLC_PIPE_INT32, 64, 4},
    {"u8 L2 (dp4a)",   4,     2,     BNLC_PIPE_INT32, 64, 4},
    {"f32 L1",         1,     2,     BNLC_PIPE_FP32,  64, 4},
    {"f64 L1 (paper)", 1,     2,     BNLC_PIPE_FP64,  64, 4},
};

const bnlc_mix *bnlc_mix_get(int i)
{
    return i >= 0 && i < BNLC_MIXES ? &mixes[i] : 0;
}

double bnlc_mix_alu_per_syn(const bnlc_mix *x)
{
    return (double)x->alu_per_op / x->syn_per_op;
}

double bnlc_mix_lds_bytes_per_syn(const bnlc_mix *x)
{
    /* 16 bytes per LDS.128; synapses per thread per k word: ops * syn/op */
    return 16.0 * x->lds128_per_word / ((double)x->ops_per_word * x->syn_per_op);
}

/* the 8 x 8 register block and the 4 loads per word are the kernel's */
typedef char bnlc_model_matches_kernel[(BNLC_EPB == 64 && BNLC_TM / BNLC_TY == 8) ? 1 : -1];
