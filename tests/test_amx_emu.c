/*
 * test_amx_emu.c - the amx tier's kernels (layers/kern_amx_body.h: u8 L2,
 * u8 dot, the bf16 GEMM) on an emulated tile unit, on any CPU: the
 * blocking, the packing, the staging of edge samples and of the last bytes
 * of k, the k blocks, against plain loops, bit-exact. The emulator follows
 * the ISA: ldtilecfg's palette 1, rows x colsb per tile, tileloadd /
 * tilestored of rows x colsb bytes, the shape rules of tdpbuud and
 * tdpbf16ps (C rows = A rows, C colsb = B colsb, A colsb = 4 B rows; bf16
 * with DAZ / FTZ, two f32 additions per pair in order), and it fails on a
 * tile used with no configuration loaded. X and W end at a page with no
 * access, so any read past them faults. The real tiles run the same body
 * in test_kernels and test_bf16 where the CPU has AMX.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

static struct {
    int on; /* a configuration is loaded */
    uint8_t rows[8];
    uint16_t colsb[8];
    uint8_t t[8][16][64];
    long ops;
} emu;

static void emu_check(int t)
{
    if (!emu.on || t < 0 || t > 7 || emu.rows[t] < 1 || emu.rows[t] > 16 || emu.colsb[t] < 1 ||
        emu.colsb[t] > 64)
        fail_msg("tile %d used without a valid configuration", t);
}

static void emu_cfg(const void *cfg)
{
    const uint8_t *c = cfg;
    if (c[0] != 1) fail_msg("palette %d, not 1", c[0]);
    memset(&emu, 0, sizeof emu);
    for (int t = 0; t < 8; t++) {
        memcpy(&emu.colsb[t], c + 16 + 2 * t, 2);
        emu.rows[t] = c[48 + t];
    }
    emu.on = 1;
}

static void emu_load(int t, const void *p, int64_t stride)
{
    emu_check(t);
    memset(emu.t[t], 0, sizeof emu.t[t]);
    for (int r = 0; r < emu.rows[t]; r++)
        memcpy(emu.t[t][r], (const uint8_t *)p + r * stride, emu.colsb[t]);
    emu.ops++;
}

static void emu_store(int t, void *p, int64_t stride)
{
    emu_check(t);
    for (int r = 0; r < emu.rows[t]; r++)
        memcpy((uint8_t *)p + r * stride, emu.t[t][r], emu.colsb[t]);
}

static void emu_zero(int t)
{
    emu_check(t);
    memset(emu.t[t], 0, sizeof emu.t[t]);
}

/* the dot-product instructions' rules: three distinct configured tiles,
 * C rows = A rows, C colsb = B colsb, A colsb = 4 B rows */
static void emu_dp_check(const char *op, int c, int a, int b)
{
    emu_check(c); emu_check(a); emu_check(b);
    if (emu.rows[c] != emu.rows[a] || emu.colsb[c] != emu.colsb[b] ||
        emu.colsb[a] != 4 * emu.rows[b] || c == a || c == b || a == b)
        fail_msg("%s tmm%d, tmm%d, tmm%d: shapes do not agree", op, c, a, b);
}

static void emu_dpbuud(int c, int a, int b)
{
    emu_dp_check("tdpbuud", c, a, b);
    for (int i = 0; i < emu.rows[c]; i++)
        for (int j = 0; j < emu.colsb[c] / 4; j++) {
            uint32_t acc;
            memcpy(&acc, &emu.t[c][i][4 * j], 4);
            for (int k = 0; k < emu.rows[b]; k++)
                for (int q = 0; q < 4; q++)
                    acc += (uint32_t)emu.t[a][i][4 * k + q] * emu.t[b][k][4 * j + q];
            memcpy(&emu.t[c][i][4 * j], &acc, 4);
        }
}

/* bf16 bits to f32, denormals as zeros (DAZ) */
static float emu_bf(const uint8_t *p)
{
    uint32_t b = (uint32_t)(p[0] | p[1] << 8) << 16;
    if (!(b & 0x7F800000u)) b &= 0x80000000u;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* f32 result with denormals flushed to a zero of their sign (FTZ) */
static float emu_ftz(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    if (!(b & 0x7F800000u)) b &= 0x80000000u;
    memcpy(&f, &b, 4);
    return f;
}

/* tdpbf16ps as the ISA writes it: per pair, two f32 additions in order */
static void emu_dpbf16ps(int c, int a, int b)
{
    emu_dp_check("tdpbf16ps", c, a, b);
    for (int i = 0; i < emu.rows[c]; i++)
        for (int j = 0; j < emu.colsb[c] / 4; j++) {
            float acc;
            memcpy(&acc, &emu.t[c][i][4 * j], 4);
            for (int k = 0; k < emu.rows[b]; k++)
                for (int q = 0; q < 2; q++)
                    acc = emu_ftz(acc + emu_bf(&emu.t[a][i][4 * k + 2 * q]) *
                                            emu_bf(&emu.t[b][k][4 * j + 2 * q]));
            memcpy(&emu.t[c][i][4 * j], &acc, 4);
        }
}

#define AMX_SFX amxemu
#define AMX_CFG(cfg) emu_cfg(cfg)
#define AMX_LOAD(t, p, stride) emu_load(t, p, stride)
#define AMX_STORE(t, p, stride) emu_store(t, p, stride)
#define AMX_ZERO(t) emu_zero(t)
#define AMX_DPBUUD(c, a, b) emu_dpbuud(c, a, b)
#define AMX_DPBF16PS(c, a, b) emu_dpbf16ps(c, a, b)
#define AMX_RELEASE() (emu.on = 0)
#include "layers/kern_amx_body.h"

/* bytes ending at a page with no access (freed by guard_free) */
static uint8_t *guard_alloc(size_t len, size_t *map_len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), body = (len + pg - 1) / pg * pg;
    *map_len = body + pg;
    uint8_t *p = mmap(NULL, *map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(mprotect(p + body, pg, PROT_NONE), 0);
    return p + body - len;
}

static void guard_free(uint8_t *p, size_t len, size_t map_len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), body = (len + pg - 1) / pg * pg;
    munmap(p + len - body, map_len);
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint8_t rbyte(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint8_t)(rng >> 24);
}

/* Both kernels on one shape; fill: 0 random, 1 all 255 (the int32 edge). */
static void check(int64_t m, int64_t N, int n, int fill)
{
    size_t wl = (size_t)(m * n), xl = (size_t)(N * n), wm, xm;
    uint8_t *W = guard_alloc(wl, &wm), *X = guard_alloc(xl, &xm);
    for (size_t t = 0; t < wl; t++) W[t] = fill ? 255 : rbyte();
    for (size_t t = 0; t < xl; t++) X[t] = fill ? 255 : rbyte();
    const int64_t ldd = m + 3;
    int32_t *D = malloc(sizeof(int32_t) * (size_t)(N * ldd));
    assert_non_null(D);
    for (int dot = 0; dot < 2; dot++) {
        for (int64_t t = 0; t < N * ldd; t++) D[t] = 0x5A5A5A5A;
        emu.ops = 0;
        (dot ? dot_u8_amxemu : l2sq_u8_amxemu)(D, ldd, W, m, X, N, n);
        assert_false(emu.on); /* released */
        assert_true(emu.ops > 0);
        for (int64_t i = 0; i < N; i++)
            for (int64_t j = 0; j < ldd; j++) {
                int32_t want = 0x5A5A5A5A;
                if (j < m) {
                    uint32_t s = 0;
                    for (int k = 0; k < n; k++) {
                        int x = X[i * n + k], w = W[j * n + k];
                        s += dot ? (uint32_t)(x * w) : (uint32_t)((x - w) * (x - w));
                    }
                    want = (int32_t)s;
                }
                if (D[i * ldd + j] != want)
                    fail_msg("%s m %lld N %lld n %d: D[%lld][%lld] = %d, want %d",
                             dot ? "dot" : "l2sq", (long long)m, (long long)N, n, (long long)i,
                             (long long)j, D[i * ldd + j], want);
            }
    }
    free(D);
    guard_free(W, wl, wm);
    guard_free(X, xl, xm);
}

/* Around the 32 x 32 accumulator, the 16-row tiles, 64-byte steps and the
 * 1024-byte k blocks (and their even split: 1088 gives 2 blocks of 9 and 8). */
static void test_shapes(void **state)
{
    (void)state;
    static const int mN[] = {1, 2, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 97};
    static const int ns[] = {1, 3, 4, 5, 63, 64, 65, 127, 128, 200, 784, 1023, 1024, 1025, 1088, 2100};
    int shapes = 0;
    for (size_t a = 0; a < sizeof mN / sizeof *mN; a++)
        for (size_t b = 0; b < sizeof mN / sizeof *mN; b++) {
            int n = ns[(a * 5 + b * 3) % (sizeof ns / sizeof *ns)];
            check(mN[a], mN[b], n, 0);
            shapes++;
        }
    for (size_t c = 0; c < sizeof ns / sizeof *ns; c++) {
        check(33, 47, ns[c], 0);
        check(1, 1, ns[c], 0);
        shapes += 2;
    }
    printf("  %d shapes, bit-exact\n", shapes);
}

/* The bf16 GEMM on one shape (n2 bf16 per row) against the same sums in
 * k order, bit for bit (the emulated tiles add in that order), the
 * padding of C untouched; values of both signs and wide magnitudes. */
static void check_bf16(int64_t m, int64_t N, int n2, float alpha)
{
    size_t wl = (size_t)(m * n2) * 2, xl = (size_t)(N * n2) * 2, wm, xm;
    uint16_t *W = (uint16_t *)guard_alloc(wl, &wm), *X = (uint16_t *)guard_alloc(xl, &xm);
    for (size_t t = 0; t < wl / 2 + xl / 2; t++) {
        uint16_t v = (uint16_t)(0x3800 + rbyte() * 8 + (rbyte() & 7)) | (rbyte() & 1) << 15;
        *(t < wl / 2 ? &W[t] : &X[t - wl / 2]) = v; /* |v| in [2^-15, 2^1) */
    }
    const int64_t ldc = m + 2;
    float *C = malloc(sizeof(float) * (size_t)(N * ldc));
    assert_non_null(C);
    for (int64_t t = 0; t < N * ldc; t++) C[t] = -7.25f;
    dot_bf16_amxemu(C, ldc, W, m, X, N, n2, alpha);
    assert_false(emu.on);
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < ldc; j++) {
            float want = -7.25f;
            if (j < m) {
                float s = 0;
                for (int k = 0; k < n2; k++)
                    s = emu_ftz(s + emu_bf((const uint8_t *)&X[i * n2 + k]) *
                                        emu_bf((const uint8_t *)&W[j * n2 + k]));
                want = s * alpha;
            }
            if (memcmp(&C[i * ldc + j], &want, 4))
                fail_msg("bf16 m %lld N %lld n2 %d: C[%lld][%lld] = %.9g, want %.9g",
                         (long long)m, (long long)N, n2, (long long)i, (long long)j,
                         C[i * ldc + j], want);
        }
    free(C);
    guard_free((uint8_t *)W, wl, wm);
    guard_free((uint8_t *)X, xl, xm);
}

/* Around the tiles as for u8; n2 around 32 bf16 per tile and 512 per k
 * block (1030: three blocks). */
static void test_bf16_shapes(void **state)
{
    (void)state;
    static const int mN[] = {1, 15, 16, 17, 31, 32, 33, 65};
    static const int n2s[] = {2, 30, 32, 34, 64, 98, 510, 512, 514, 784, 1030};
    int shapes = 0;
    for (size_t a = 0; a < sizeof mN / sizeof *mN; a++)
        for (size_t b = 0; b < sizeof mN / sizeof *mN; b++) {
            check_bf16(mN[a], mN[b], n2s[(a * 3 + b * 5) % (sizeof n2s / sizeof *n2s)],
                       (a + b) % 2 ? -2.0f : 1.0f);
            shapes++;
        }
    for (size_t c = 0; c < sizeof n2s / sizeof *n2s; c++, shapes++)
        check_bf16(33, 40, n2s[c], 0.5f);
    check_bf16(7, 1030, 34, 1.0f); /* two groups of samples */
    printf("  %d bf16 shapes, bit-exact\n", shapes + 1);
}

/* More samples than one group of row sums (1024), both partial. */
static void test_groups(void **state)
{
    (void)state;
    check(40, 1030, 70, 0);
    check(5, 2049, 9, 0);
}

/* The largest n whose squared L2 fits int32, every byte 255: the dot is
 * 255^2 n = 2147450625 and Sx2 + Sw2 passes 2^31 before the 2 x.w that
 * brings L2 back to 0 (the finish's modulo-2^32 arithmetic). */
static void test_int32_edge(void **state)
{
    (void)state;
    check(17, 33, 33025, 1);
    check(3, 2, 33025, 0);
}

/* The tier's self-check at start-up (kernels.c) passes these kernels and
 * refuses one fault of each. */
static void l2sq_off_by_one(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m,
                            const uint8_t *X, int64_t N, int n)
{
    l2sq_u8_amxemu(D, ldd, W, m, X, N, n);
    D[(N - 1) * ldd + m - 1]++;
}

static void dot_as_l2(int32_t *D, int64_t ldd, const uint8_t *W, int64_t m, const uint8_t *X,
                      int64_t N, int n)
{
    l2sq_u8_amxemu(D, ldd, W, m, X, N, n);
}

static void bf16_half_k(float *C, int64_t ldc, const uint16_t *W, int64_t m, const uint16_t *X,
                        int64_t N, int n2, float alpha)
{
    dot_bf16_amxemu(C, ldc, W, m, X, N, n2 / 2 & ~1, alpha); /* drops the last k */
}

static void test_self_check(void **state)
{
    (void)state;
    assert_true(bnl_bf16_kernel_agrees(dot_bf16_amxemu));
    assert_false(bnl_bf16_kernel_agrees(bf16_half_k));
    assert_true(bnl_u8_kernels_agree(l2sq_u8_amxemu, dot_u8_amxemu));
    assert_false(bnl_u8_kernels_agree(l2sq_off_by_one, dot_u8_amxemu));
    assert_false(bnl_u8_kernels_agree(l2sq_u8_amxemu, dot_as_l2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_check),
        cmocka_unit_test(test_bf16_shapes),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_int32_edge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
