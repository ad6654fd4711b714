/* epi.c - picks the float epilogue copy for an arch; the f64 epilogues
 * (scalar, libm: f64 is the exact-reproduction path, not the fast one). */
#include "act.h"
#include "kernels.h"

extern const bnl_epi bnl_epi_table_scalar;
extern const bnl_epi bnl_epi_table_avx2;
extern const bnl_epi bnl_epi_table_avx512;

const bnl_epi *bnl_epi_get(bnl_arch arch)
{
    if (bnl_arch_rank(arch) >= bnl_arch_rank(BNL_ARCH_AVX512) &&
        bnl_arch_supported(BNL_ARCH_AVX512))
        return &bnl_epi_table_avx512;
    if (bnl_arch_rank(arch) >= bnl_arch_rank(BNL_ARCH_AVX2) && bnl_arch_supported(BNL_ARCH_AVX2))
        return &bnl_epi_table_avx2;
    return &bnl_epi_table_scalar;
}

/* H: rows x cols (ldh), in place. */
void bnl_epi_f64(double *H, int64_t ldh, int64_t rows, int64_t cols,
                 const bnl_actp *p)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            H[i * ldh + j] = bnl_act_d(p, H[i * ldh + j]);
}

/* H holds -2 x.c; v = max(0, (xn[i] + wn[j]) + H). xn: rows, wn: cols. */
void bnl_epi_f64_l2(double *H, int64_t ldh, const double *xn, const double *wn,
                    int64_t rows, int64_t cols, const bnl_actp *p)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double v = (xn[i] + wn[j]) + H[i * ldh + j];
            H[i * ldh + j] = bnl_act_d(p, v > 0.0 ? v : 0.0);
        }
}
