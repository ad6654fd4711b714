#!/usr/bin/env bash
# tri_bench.sh - pcg's preconditioner solves (bnl_chol_solve, f32, K = 10
# right-hand sides) at m = 5000, 10000 and 20000 centroids: the default
# tier's kernels.h tri updates against avx512's GEMMs and the avx2 kernels
# (tests/bench_tri.c, interleaved in one process, best of REPS), then,
# with OLD=path/to/fsvc (the build before the kernels), the training of
# the MNIST default model and the 2-core Fashion-MNIST preset (20000
# centroids) by both builds (scripts/train_ab.sh). Writes OUT
# (results/tri_solve.md).
# Usage: scripts/tri_bench.sh [-o OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=results/tri_solve.md
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
REPS=${REPS:-7} OLD=${OLD:-}
make -s build/fsvc build/tests/bench_tri >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$root/scripts/tier_lib.sh" # ab_head
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rows=""
for m in 5000 10000 20000; do
  echo "${0##*/}: solves, m = $m" >&2
  rows+=$(build/tests/bench_tri "$m" 10 "$REPS")$'\n'
done
if [ -n "$OLD" ]; then
  OLD=$OLD bash scripts/train_ab.sh -o "$work/ab.md" >&2
fi
{
  ab_head "pcg's preconditioner solves: own kernels against GEMMs" "tri_bench.sh" \
    "scripts/tri_bench.sh -o $out (REPS=$REPS${OLD:+ OLD=$OLD})" "$load0"
  echo
  echo "One bnl_chol_solve (forward and backward solve, K = 10) over an f32 factor:"
  echo "best of $REPS, the tiers interleaved; GB/s: the lower triangle read twice;"
  echo "speed-up: avx512's time (its updates on GEMMs) over the tier's."
  echo
  echo "| tier | m | ms | GB/s | speed-up |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  printf '%s' "$rows" | awk -F, 'NF == 6 {printf "| %s | %s | %s | %s | %sx |\n", $1, $2, $4, $5, $6}'
  if [ -n "$OLD" ]; then
    echo
    echo "## Training, this build against $OLD"
    echo
    sed -n '/^|/,$p' "$work/ab.md"
  fi
} >"$out"
echo "${0##*/}: wrote $out" >&2
