#!/usr/bin/env bash
# gpu_targets.sh [FSVC] - measures issue 10's targets on a GPU host and
# records them under results/gpu/<UTC date>-<device tag>/ with the date,
# the device and every command that made a file. Build first (see
# ../shared/gpu-host/README.md): `make -j16`; this script runs
# `make test-cuda` itself (the on-device checks: kernels, device readout).
#
#   1. check_kernels: every kernel and the device-resident readout
#      (scores, H^T H, H^T T, Cholesky, streamed X) against the CPU;
#   2. fsvc bench --backend cuda --strict at m = N = 4096, n = 784:
#      rbf-l1 f32, u8, rbf-l2 f32, mul f32, rbf-l1 f64: end-to-end and
#      kernel-only t_syn and % of the GPU's peak (targets: 0.00015,
#      0.00005, 0.00007, 0.00005, 0.0005 ns);
#   3. a streamed layer, N = 1,000,000 (within 1.5x of the resident rate);
#   4. fsvc train --backend cuda --strict on MNIST 60k, default model
#      (target: 0.25 s wall without file loading), then eval on the 10k
#      test set (target: predict 0.01 s), and the same with --backend cpu.
# Environment: MNIST_DIR (default data/mnist, in the repository),
# THREADS (CPU threads for the cpu runs, default all).
# Exit 0 when every step ran, 1 when one failed (each is reported), 3
# when there is no usable CUDA device (nothing measured).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
FSVC=${1:-$here/build/fsvc}
MNIST_DIR=${MNIST_DIR:-$here/data/mnist}
THREADS=${THREADS:-0}

if ! "$FSVC" info 2>/dev/null | grep -q '^cuda:.*SMs\|^cuda: [^n]' || \
   "$FSVC" info 2>/dev/null | grep -q 'using CPU\|no device\|not compiled in'; then
  echo "gpu_targets: no usable CUDA device here ($("$FSVC" info 2>&1 | grep -i cuda | head -1)); nothing measured"
  exit 3
fi
tag=$("$FSVC" info 2>/dev/null | grep -m1 '^cuda:' | sed 's/^cuda: *//; s/[^A-Za-z0-9_-]\+/-/g' | cut -c1-40)
OUT=$here/results/gpu/$(date -u +%Y-%m-%dT%H%M)-${tag:-gpu}
mkdir -p "$OUT"
fails=0
step() { # step FILE -- CMD...: runs CMD, output (with the command and date) to FILE
  local f=$1; shift 2
  { echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): $*"; "$@"; } >"$OUT/$f" 2>&1
  local rc=$?
  echo "gpu_targets: $f: exit $rc"
  [ $rc = 0 ] || fails=$((fails + 1))
}

step device.txt -- bash -c "\"$FSVC\" info; nvidia-smi -L 2>/dev/null; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv 2>/dev/null"
step check_kernels.txt -- make -C "$here" test-cuda
B="$FSVC bench --backend cuda --strict -m 4096 -N 4096 -n 784 -r 10 --no-ref"
step bench-rbf-l1-f32.txt -- $B --op rbf-l1 --dtype f32
step bench-rbf-l1-u8.txt  -- $B --op rbf-l1 --dtype u8
step bench-rbf-l2-f32.txt -- $B --op rbf-l2 --dtype f32
step bench-mul-f32.txt    -- $B --op mul --dtype f32
step bench-rbf-l1-f64.txt -- $B --op rbf-l1 --dtype f64
step bench-streamed-u8.txt -- "$FSVC" bench --backend cuda --strict -m 4096 -N 1000000 -n 784 -r 3 \
  --no-ref --op rbf-l1 --dtype u8
if [ -e "$MNIST_DIR/train-images-idx3-ubyte.gz" ] || [ -e "$MNIST_DIR/train-images-idx3-ubyte" ]; then
  step train-mnist-cuda.txt -- "$FSVC" train --backend cuda --strict "$MNIST_DIR/train" "$OUT/mnist-cuda.fsvc"
  step eval-mnist-cuda.txt -- "$FSVC" eval --backend cuda --strict "$OUT/mnist-cuda.fsvc" "$MNIST_DIR/t10k"
  step train-mnist-cpu.txt -- "$FSVC" train --backend cpu --threads "$THREADS" "$MNIST_DIR/train" "$OUT/mnist-cpu.fsvc"
  step eval-mnist-cpu.txt -- "$FSVC" eval --backend cpu --threads "$THREADS" "$OUT/mnist-cpu.fsvc" "$MNIST_DIR/t10k"
  rm -f "$OUT"/mnist-*.fsvc
else
  echo "gpu_targets: no MNIST under $MNIST_DIR; train/eval not measured"; fails=$((fails + 1))
fi
{
  echo "# issue 10 targets, $(date -u +%Y-%m-%d), $(grep -m1 '^cuda:' "$OUT/device.txt")"
  echo
  echo "| measurement | target | measured (lines from the files beside this one) |"
  echo "|---|---|---|"
  for f in rbf-l1-f32:0.00015 rbf-l1-u8:0.00005 rbf-l2-f32:0.00007 mul-f32:0.00005 rbf-l1-f64:0.0005; do
    k=${f%%:*}; t=${f#*:}
    echo "| bench $k kernel only / end to end | t_syn <= $t ns | $(grep -h 'kernel only\|end to end\|t_syn =' "$OUT/bench-$k.txt" | sed 's/^ *//' | tr '\n' ' ' | sed 's/|/\//g') |"
  done
  echo "| bench u8 N = 1e6 streamed | within 1.5x of resident | $(grep -h 'end to end\|t_syn =' "$OUT/bench-streamed-u8.txt" | sed 's/^ *//' | tr '\n' ' ') |"
  for b in cuda cpu; do
    [ -e "$OUT/train-mnist-$b.txt" ] && echo "| train MNIST 60k $b | 0.25 s (cuda) | $(grep -h '^time:\|^ridge:' "$OUT/train-mnist-$b.txt" | tr '\n' ' ') |"
    [ -e "$OUT/eval-mnist-$b.txt" ] && echo "| eval MNIST 10k $b | predict 0.01 s (cuda) | $(grep -hi 'accuracy\|time' "$OUT/eval-mnist-$b.txt" | tr '\n' ' ') |"
  done
} >"$OUT/targets.md"
echo "gpu_targets: wrote $OUT (targets.md); $fails step(s) failed"
[ $fails = 0 ]
