#!/usr/bin/env bash
# hgram_bench.sh - pcg's block products: the fused kernel (kernels.h hgram)
# against the two GEMMs, f32, bf16 and f16 H (tests/bench_hgram.c,
# interleaved, best of REPS), on the default tier, avx512vnni and avx2,
# then the MNIST pcg readout with the cached H in f32, bf16 and f16
# (`fsvc train --pcg-h`: the products' seconds per iteration), and with
# OLD=path/to/fsvc also that build's bf16 run. Writes OUT (results/hgram.md).
# Usage: scripts/hgram_bench.sh [-o OUT] [MNIST_DIR]
set -euo pipefail
out=results/hgram.md
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
mnist=${1:-data/mnist}
REPS=${REPS:-5} M=${M:-10000} OLD=${OLD:-}
make -s build/fsvc build/tests/bench_hgram >/dev/null
load0=$(cut -d' ' -f1-3 /proc/loadavg)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench=""
for arch in "" avx512vnni avx2; do # the default tier, and those the CPU has
  for m in 5000 10000 20000; do
    echo "${0##*/}: products, m = $m${arch:+, FSVC_ARCH=$arch}" >&2
    out1=$(FSVC_ARCH=$arch build/tests/bench_hgram "$m" 10 $((600000000 / m)) "$REPS") || continue
    tier=$(printf '%s\n' "$out1" | sed -n 's/^tier,\([^,]*\),.*/\1/p')
    bench+=$(printf '%s\n' "$out1" | sed "s/^\([0-9]\)/$tier,\1/")$'\n'
  done
done
# one train: its ridge line (products seconds, iterations)
train() { # train FSVC PCG_H
  "$1" train -q --max-neurons "$M" -l 1e-7 -r 0.5rms --pcg-h "$2" "$mnist/train" "$work/m.fsvc" \
    2>&1 | sed -n 's/^ridge: pcg, \(.*\)$/\1/p'
  "$1" train --max-neurons "$M" -l 1e-7 -r 0.5rms --pcg-h "$2" "$mnist/train" "$work/m.fsvc" \
    2>&1 | sed -n 's/^ridge: pcg, \(.*\)$/\1/p'
}
per_iter() { sed -n 's/.*products \([0-9.]*\) s.*; \([0-9]*\) iterations.*/\1 \2/p' |
  awk '{printf "%.4f", $1 / $2}'; }
declare -A rid
for h in f32 bf16 f16; do
  echo "${0##*/}: fsvc train --pcg-h $h" >&2
  rid[$h]=$(train build/fsvc "$h" | tail -n 1)
done
[ -n "$OLD" ] && { echo "${0##*/}: $OLD train --pcg-h bf16" >&2; rid[old]=$(train "$OLD" bf16 | tail -n 1); }
{
  echo "# pcg's block products: fused kernel against two GEMMs (issue 24)"
  echo
  echo "Written by \`scripts/hgram_bench.sh\`; do not edit."
  echo
  echo "- command: \`scripts/hgram_bench.sh -o $out $mnist\` (REPS=$REPS M=$M${OLD:+ OLD=$OLD})"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared: compare ratios, measured interleaved in one run)"
  echo "- threads: $(printf '%s' "$bench" | sed -n 's/^tier,.*,threads,\(.*\)/\1/p' | head -n 1); tiers: the default, then avx512vnni and avx2 (FSVC_ARCH; OpenBLAS's GEMMs there)"
  echo
  echo "Products over the same H (N x m, K = 10, 6e8 values; best of $REPS): G values of H per second, and the ratio to the bf16 H's GEMMs (16 rows widened, then two GEMMs: the path before the fused kernel)."
  echo
  echo "| tier | m | path | seconds | G values/s | / gemm bf16 |"
  echo "| --- | ---: | --- | ---: | ---: | ---: |"
  printf '%s' "$bench" | grep -v '^tier' | awk -F, 'NF == 7 {printf "| %s | %s | %s | %s | %s | %sx |\n", $1, $2, $4, $5, $6, $7}'
  echo
  echo "MNIST readout (\`fsvc train --max-neurons $M -l 1e-7 -r 0.5rms --pcg-h H\`, 60000 images; second of two runs):"
  echo
  echo "| build | --pcg-h | ridge | products s per iteration |"
  echo "| --- | --- | --- | ---: |"
  for h in f32 bf16 f16; do echo "| this | $h | ${rid[$h]} | $(printf '%s' "${rid[$h]}" | per_iter) |"; done
  [ -n "$OLD" ] && echo "| $OLD | bf16 | ${rid[old]} | $(printf '%s' "${rid[old]}" | per_iter) |"
} >"$out"
echo "${0##*/}: wrote $out" >&2
