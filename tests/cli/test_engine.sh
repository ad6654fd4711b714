# CLI checks of the engine plumbing: FSVC_ARCH=ref runs the oracle loops,
# the removed --gemm-mode is refused, `fsvc info` and `fsvc tune` reach the
# CUDA backend through the engine (no device here: tune fails with exit 3
# and one line), and train/predict on one thread match all threads.
source "$(dirname "$0")/lib.sh"

expect_exit 0 "bench with FSVC_ARCH=ref" -- env FSVC_ARCH=ref "$FSVC" bench --op rbf-l1 \
  --dtype u8 -m 64 -N 64 -n 16 -v --no-ref -r 1
expect_match "arch=ref" "bench names arch ref" "$OUT"
expect_match "plan: path=ref-loops kernel=ref" "FSVC_ARCH=ref runs the ref loops" "$OUT"
expect_exit 0 "bench, cpuid arch" -- env -u FSVC_ARCH "$FSVC" bench --op rbf-l1 --dtype u8 \
  -m 64 -N 64 -n 16 -v --no-ref -r 1
expect_match "plan: path=kernels kernel=(scalar|avx2|avx512)" "default arch runs the kernels" "$OUT"
expect_exit 1 "bench --gemm-mode is gone" -- "$FSVC" bench --gemm-mode 1
expect_match "unknown or ambiguous option '--gemm-mode'" "bench --gemm-mode: says so" "$ERR"

expect_exit 0 "info" -- env FSVC_ARCH=ref "$FSVC" info
expect_match "^cpu kernels: ref \(FSVC_ARCH" "info: kernels ref from FSVC_ARCH" "$OUT"
expect_match "^blas: .*, [0-9]+ threads" "info: BLAS line" "$OUT"
expect_match "^cuda: " "info: the cuda line" "$OUT"

# issue 24: the tier per op, and FSVC_ARCH forcing any tier the CPU has
expect_exit 0 "info, FSVC_ARCH=scalar" -- env FSVC_ARCH=scalar "$FSVC" info
expect_match "^  pcg products bf16 openblas-sgemm \(gemm\)" "info: scalar: pcg bf16 H on GEMMs" "$OUT"
expect_match "^  pcg products f16  openblas-sgemm \(gemm\)" "info: scalar: pcg f16 H on GEMMs" "$OUT"
expect_match "^  scores u8, f32    openblas-dgemm \(gemm\)" "info: scalar: scores on dgemm" "$OUT"
expect_match "^  pcg solves f32    openblas-sgemm \(gemm\)" "info: scalar: pcg solves on GEMMs" "$OUT"
if env FSVC_ARCH=avx2 "$FSVC" info 2>/dev/null | grep -q '^cpu kernels: avx2 (FSVC_ARCH'; then
  expect_exit 0 "info, FSVC_ARCH=avx2" -- env FSVC_ARCH=avx2 "$FSVC" info
  expect_match "^  pcg products f32  avx2 \(fused\)" "info: avx2: pcg float H fused" "$OUT"
  expect_match "^  pcg products bf16 avx2 \(fused\)" "info: avx2: pcg bf16 H fused" "$OUT"
  expect_match "^  pcg products f16  avx2 \(fused\)" "info: avx2: pcg f16 H fused" "$OUT"
  expect_match "^  scores u8, f32    avx2 \(fused\)" "info: avx2: scores by hscore" "$OUT"
  expect_match "^  pcg solves f32    avx2 \(kernels\)" "info: avx2: pcg solves on tri kernels" "$OUT"
fi
expect_exit 0 "info, cpuid arch" -- env -u FSVC_ARCH "$FSVC" info
expect_match "^  u8 l2, dot +(scalar|avx2|avxvnni|avx512|avx512vnni|amx) \(kernels\)" "info: u8 L2 tier" "$OUT"
# the onednn tier: built with libdnnl-dev, on a CPU with AVX-512 BF16
dnnl=no
env FSVC_ARCH=onednn "$FSVC" info 2>/dev/null | grep -q '^cpu kernels: onednn (FSVC_ARCH' && dnnl=yes
if [ $dnnl = yes ]; then
  expect_match "^  f32 l2, dot +onednn-f32 \(onednn\)" "info: f32 L2 on oneDNN" "$OUT"
  expect_match "^  pcg products f32  onednn-sgemm \(gemm\)" "info: pcg float H on oneDNN's GEMMs" "$OUT"
else
  expect_match "^  f32 l2, dot +openblas-sgemm \(gemm\)" "info: f32 L2 on GEMM" "$OUT"
fi
if grep -q ' avx512_vnni' /proc/cpuinfo && grep -q ' avx512bw' /proc/cpuinfo; then
  if grep -q ' avx512_bf16' /proc/cpuinfo; then top=avx512bf16; else top=avx512vnni; fi
  [ $dnnl = yes ] && top=onednn
  # the amx tier: AMX tiles granted by Linux (Sapphire Rapids and later)
  env FSVC_ARCH=amx "$FSVC" info 2>/dev/null | grep -q '^cpu kernels: amx (FSVC_ARCH' && top=amx
  expect_match "^cpu kernels: $top \(cpuid\)" "cpuid picks $top" "$OUT"
  expect_match "^  u8 l1 +avx512 \(kernels\)" "avx512vnni runs avx512's L1" "$OUT"
  expect_exit 0 "info, FSVC_ARCH=avx512" -- env FSVC_ARCH=avx512 "$FSVC" info
  expect_match "^  u8 l2, dot +avx512 \(kernels\)" "FSVC_ARCH=avx512 keeps today's u8 L2" "$OUT"
  expect_match "^  pcg products bf16 openblas-sgemm \(gemm\)" \
    "FSVC_ARCH=avx512 keeps today's pcg products" "$OUT"
  expect_match "^  scores u8, f32    openblas-dgemm \(gemm\)" "FSVC_ARCH=avx512 keeps dgemm scores" "$OUT"
  expect_match "^  pcg solves f32    openblas-sgemm \(gemm\)" "FSVC_ARCH=avx512 keeps pcg's GEMM solves" "$OUT"
  expect_exit 0 "info, FSVC_ARCH=avx512vnni" -- env FSVC_ARCH=avx512vnni "$FSVC" info
  expect_match "^  pcg products f32  avx512vnni \(fused\)" "avx512vnni: pcg products fused" "$OUT"
  expect_match "^  pcg products f16  avx512vnni \(fused\)" "avx512vnni: pcg f16 products fused" "$OUT"
  expect_match "^  scores u8, f32    avx512vnni \(fused\)" "avx512vnni: scores by hscore" "$OUT"
  expect_match "^  pcg solves f32    avx512vnni \(kernels\)" "avx512vnni: pcg solves on tri kernels" "$OUT"
  expect_exit 0 "bench u8 L2 on avx512vnni" -- env FSVC_ARCH=avx512vnni "$FSVC" bench \
    --op rbf-l2 --dtype u8 -m 100 -N 70 -n 29 -v -r 1
  expect_match "plan: path=kernels kernel=avx512vnni" "bench plan names avx512vnni" "$OUT"
  expect_match "peak: [0-9.]+ G synapses/s measured on [0-9]+ threads \(register probe of vpdpbusd zmm, kernel avx512vnni's instructions per synapse\); the layer per CPU second: [0-9.]+% of it" \
    "bench: % of the tier's measured peak" "$OUT"
  if [ $top != avx512vnni ]; then
    expect_exit 0 "info, FSVC_ARCH=avx512bf16" -- env FSVC_ARCH=avx512bf16 "$FSVC" info
    expect_match "^  f32 l2, dot bf16 +avx512bf16 \(kernels\)" "info: bf16 layers on avx512bf16" "$OUT"
    expect_match "^  f32 l2, dot +openblas-sgemm \(gemm\)" "avx512bf16 keeps f32 L2 on GEMM" "$OUT"
    expect_exit 0 "info, FSVC_ARCH=avx512vnni" -- env FSVC_ARCH=avx512vnni "$FSVC" info
    expect_match "^  f32 l2, dot bf16 +openblas-sgemm \(gemm\)" "below avx512bf16: bf16 emulated" "$OUT"
    expect_exit 0 "bench --precision bf16" -- env FSVC_ARCH=avx512bf16 "$FSVC" bench --op rbf-l2 \
      --dtype f32 --precision bf16 -m 100 -N 70 -n 29 -v -r 1
    expect_match "precision=bf16 .*arch=avx512bf16" "bench names the precision and tier" "$OUT"
    expect_match "plan: path=kernels kernel=avx512bf16" "bench bf16 plan names avx512bf16" "$OUT"
  fi
  # --tiers: each tier forced in turn, against today's kernels of its dtype
  expect_exit 0 "bench --tiers" -- "$FSVC" bench --tiers -m 100 -N 70 -n 29 -r 1
  expect_match "^tiers rbf-l2 u8 arch=avx512 kernel=avx512 m=100 N=70 n=29: .* baseline$" \
    "tiers: today's u8 kernels first" "$OUT"
  expect_match "^tiers rbf-l2 u8 arch=avx512vnni kernel=avx512vnni .* [0-9.]+x avx512 \(wall\), [0-9.]+x \(CPU time\)$" \
    "tiers: avx512vnni against avx512" "$OUT"
  expect_match "^tiers rbf-l2 f32 arch=avx512 kernel=openblas-sgemm .* baseline$" \
    "tiers: today's f32 path" "$OUT"
  if [ $top != avx512vnni ]; then
    expect_match "^tiers rbf-l2 f32 bf16 arch=avx512bf16 kernel=avx512bf16 .*x avx512 \(wall\)" \
      "tiers: the bf16 layer on avx512bf16" "$OUT"
  fi
  if [ $dnnl = yes ]; then
    expect_match "^tiers rbf-l2 f32 bf16 arch=onednn " "tiers: the bf16 layer on the onednn tier" "$OUT"
  fi
  if [ $top = amx ]; then
    expect_match "^tiers rbf-l2 u8 arch=amx kernel=amx .*x avx512 \(wall\)" "tiers: u8 on the AMX tiles" "$OUT"
  fi
  if [ "$(echo "$OUT" | grep -c '^tiers rbf-l2 u8 arch=avxvnni')" = 0 ]; then
    ok "tiers: no avxvnni row where avx512 runs"
  else fail "tiers: avxvnni measured beside avx512"; fi
  if [ $top = amx ]; then
    expect_match "^  u8 l2, dot +amx \(kernels\)" "info: u8 L2 on the AMX tiles" "$OUT"
    expect_exit 0 "bench u8 L2 on amx" -- "$FSVC" bench --op rbf-l2 --dtype u8 -m 100 -N 70 \
      -n 29 -v -r 1
    expect_match "plan: path=kernels kernel=amx" "bench plan names amx" "$OUT"
    expect_match "register probe of tdpbuud tiles" "bench: % of the tiles' measured peak" "$OUT"
    expect_exit 0 "bench bf16 on amx" -- "$FSVC" bench --op rbf-l2 --dtype f32 --precision bf16 \
      -m 100 -N 70 -n 29 -v -r 1
    expect_match "plan: path=kernels kernel=amx" "bench bf16 plan names amx" "$OUT"
    expect_match "register probe of tdpbf16ps tiles" "bench bf16: % of the tiles' peak" "$OUT"
  else echo "ok - no AMX tiles here: the amx tier not checked on them (test_amx_emu emulates it)"; fi
  if [ $dnnl = yes ]; then
    expect_exit 0 "info, cpuid arch (onednn)" -- env -u FSVC_ARCH "$FSVC" info
    expect_match "^  f32 l2, dot bf16 +onednn-bf16 \(onednn\)" "info: bf16 layers on oneDNN" "$OUT"
    expect_exit 0 "bench bf16 on onednn" -- "$FSVC" bench --op rbf-l2 --dtype f32 \
      --precision bf16 -m 300 -N 300 -n 784 -v -r 1
    expect_match "plan: path=onednn kernel=onednn-bf16" "bench plan names onednn-bf16" "$OUT"
    expect_exit 0 "bench small f32 on onednn" -- "$FSVC" bench --op rbf-l2 --dtype f32 \
      -m 300 -N 70 -n 29 -v -r 1
    expect_match "plan: path=gemm kernel=openblas-sgemm" "few samples keep the GEMM path" "$OUT"
  fi
else echo "ok - no AVX-512 VNNI here: the avx512vnni tier not checked"; fi
if grep -q ' avx_vnni' /proc/cpuinfo; then
  expect_exit 0 "info, FSVC_ARCH=avxvnni" -- env FSVC_ARCH=avxvnni "$FSVC" info
  expect_match "^cpu kernels: avxvnni \(FSVC_ARCH" "FSVC_ARCH=avxvnni is taken" "$OUT"
  expect_match "^  u8 l2, dot +avxvnni \(kernels\)" "avxvnni runs its u8 GEMM" "$OUT"
  expect_match "^  u8 l1 +avx2 \(kernels\)" "avxvnni runs avx2's L1" "$OUT"
else echo "ok - no AVX-VNNI here: the avxvnni tier not checked"; fi

if echo "$OUT" | grep -q "using CPU"; then
  expect_exit 3 "tune without a device" -- "$FSVC" tune --backend cuda --dry-run
  expect_one_line "tune without a device: one line" "$ERR"
  expect_match "^fsvc tune: cuda: " "tune names the cause" "$ERR"
else echo "ok - a CUDA device is present: tune not checked for failure"; fi

# one thread vs all threads: same model bits (tiles do not depend on threads)
printf '1 1:0.1 2:0.2\n2 1:0.9 2:0.8\n1 1:0.15 2:0.1\n2 1:0.8 2:0.95\n1 1:0.2 2:0.25\n2 1:0.85 2:0.9\n' \
  > "$TMP/tiny.txt"
expect_exit 0 "train --threads 1" -- "$FSVC" train -q --threads 1 -r 0.5 "$TMP/tiny.txt" "$TMP/t1.fsvc"
expect_exit 0 "train --threads 0" -- "$FSVC" train -q --threads 0 -r 0.5 "$TMP/tiny.txt" "$TMP/t0.fsvc"
if cmp -s "$TMP/t1.fsvc" "$TMP/t0.fsvc"; then ok "1 thread and all threads: same model"; else
  fail "1 thread and all threads: models differ"; fi
