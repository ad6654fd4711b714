/*
 * model.h - the instruction mix of the tile kernel's inner loop and the
 * peak synaptic time it implies on a device (a roofline of the ALU and
 * shared-memory pipes). Used by the planner (launch sizes) and by the
 * generator of results/cuda-model.md (tests/cuda/cuda_model.c).
 *
 * Per thread and per 32-bit word of k (cuda/kernels_hd.h, bnlc_compute_*):
 * 4 LDS.128 (2 of W, 2 of X) and an 8 x 8 block of word operations:
 *   u8 L1   4 synapses a word-pair: VABSDIFF4 + IDP4A (2 INT32 ops)
 *   u8 L2   4 synapses: VABSDIFF4 + IDP4A(d, d)       (2 INT32 ops)
 *   f32 L1  1 synapse:  FADD (x - w) + FADD |.|       (2 FP32 ops; |.| is
 *           an operand modifier)
 *   f64 L1  the paper's float64 loop: 2 DADD a synapse (reference row)
 */
#ifndef FSVC_CUDA_MODEL_H
#define FSVC_CUDA_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { BNLC_PIPE_INT32 = 0, BNLC_PIPE_FP32 = 1, BNLC_PIPE_FP64 = 2 } bnlc_pipe;

typedef struct bnlc_mix {
    const char *name;
    int syn_per_op;          /* synapses per word operation (4 u8, 1 f32) */
    int alu_per_op;          /* ALU instructions per word operation */
    bnlc_pipe pipe;          /* which lanes run them */
    int ops_per_word;        /* word operations per thread per k word (64) */
    int lds128_per_word;     /* 16-byte shared loads per thread per k word (4) */
} bnlc_mix;

/* The mixes, in the order of bnlc_mix_name: u8 L1, u8 L2, f32 L1, f64 L1 */
#define BNLC_MIXES 4
const bnlc_mix *bnlc_mix_get(int i);

/* Per synapse: ALU instructions, shared-memory bytes. */
double bnlc_mix_alu_per_syn(const bnlc_mix *x);
double bnlc_mix_lds_bytes_per_syn(const bnlc_mix *x);

#ifdef __cplusplus
}
#endif
#endif /* FSVC_CUDA_MODEL_H */
