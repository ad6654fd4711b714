#!/usr/bin/env bash
# bench_solver.sh [FSVC] - issue 11's solver target: `fsvc train --solver
# pcg` against `--solver direct` on the default model (MNIST: m = 10000
# random centroids, r = 0.45 rms, lambda 1e-5, deskew+sqrt), measured in
# the same run, alternating direct and pcg REPS times so both see the
# same load; the load average is recorded with each run. Writes
# results/solver.csv (one row per run) and results/solver.md (medians,
# the time ratio, the accuracies). Environment: REPS (default 3), DATA
# (train prefix, default the MNIST train set), TEST (its test set),
# EXTRA (more train options for both), RESULTS (default results),
# RENDER_ONLY=1 (no runs: solver.md again from the solver.csv there; the
# date line then says when the CSV was written).
#   --summary CSV  print the verdict line of a solver.csv (the time ratio
#                  and accuracy difference against the targets; accuracy.md)
set -uo pipefail
med() { # CSV SOLVER COLUMN -> median
  awk -F, -v s="$2" -v c="$3" 'NR > 1 && $2 == s { print $c }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
summary() { # CSV -> the verdict line
  awk -v a="$(med "$1" pcg 4)" -v b="$(med "$1" direct 4)" -v x="$(med "$1" pcg 5)" \
      -v y="$(med "$1" direct 5)" 'BEGIN {
    r = a / b; d = x - y
    printf "Training time ratio pcg / direct: **%.3f** (target <= 0.35: %s); accuracy difference %+.2f points (target within 0.1: %s).\n", r, r <= 0.35 ? "met" : "not met", d, (d <= 0.1 && d >= -0.1) ? "met" : "not met" }'
}
if [ "${1:-}" = --summary ]; then
  [ -f "${2:-}" ] && awk -F, 'NR > 1 && $2 == "pcg" { p = 1 } NR > 1 && $2 == "direct" { d = 1 }
                             END { exit !(p && d) }' "$2" ||
    { echo "bench_solver: --summary needs a solver.csv with pcg and direct runs: '${2:-}'" >&2; exit 1; }
  summary "$2"
  exit 0
fi
FSVC=${1:-build/fsvc}
here=$(cd "$(dirname "$0")/.." && pwd)
R=${RESULTS:-results}
MNIST_DIR=${MNIST_DIR:-$here/data/mnist}
DATA=${DATA:-$MNIST_DIR/train}
TEST=${TEST:-$MNIST_DIR/t10k}
REPS=${REPS:-3}
EXTRA=${EXTRA:-}
mkdir -p "$R"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv="$R/solver.csv"
when=$(date -u '+%Y-%m-%d %H:%M UTC')
if [ "${RENDER_ONLY:-0}" = 1 ]; then
  [ -f "$csv" ] || { echo "bench_solver: RENDER_ONLY=1 but no $csv" >&2; exit 1; }
  REPS=$(awk -F, 'NR > 1 && $2 == "direct"' "$csv" | wc -l)
  when="runs written $(date -u -r "$csv" '+%Y-%m-%d %H:%M UTC')"
else
echo "rep,solver,readout_s,train_s,accuracy,iterations,residual,load1" > "$csv.tmp"
for rep in $(seq 1 "$REPS"); do
  for s in direct pcg; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086
    if ! "$FSVC" train --solver "$s" $EXTRA "$DATA" "$tmp/$s.fsvc" > "$tmp/out" 2>&1; then
      echo "bench_solver: train --solver $s failed:" >&2; cat "$tmp/out" >&2; exit 1
    fi
    ro=$(sed -n 's/^time: .* readout \([0-9.]*\) s, total \([0-9.]*\) s$/\1/p' "$tmp/out")
    tt=$(sed -n 's/^time: .* readout \([0-9.]*\) s, total \([0-9.]*\) s$/\2/p' "$tmp/out")
    it=$(sed -n 's/^ridge: pcg, .*; \([0-9]*\) iterations, relative residual \(.*\)$/\1/p' "$tmp/out")
    res=$(sed -n 's/^ridge: pcg, .*; \([0-9]*\) iterations, relative residual \(.*\)$/\2/p' "$tmp/out")
    acc=$("$FSVC" eval "$tmp/$s.fsvc" "$TEST" | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
    echo "$rep,$s,$ro,$tt,$acc,${it:-},${res:-},$load" >> "$csv.tmp"
    echo "rep $rep $s: readout $ro s, train $tt s, accuracy $acc %, load $load" >&2
  done
done
mv "$csv.tmp" "$csv"
fi
td=$(med "$csv" direct 4); tp=$(med "$csv" pcg 4); rd=$(med "$csv" direct 3); rp=$(med "$csv" pcg 3)
ad=$(med "$csv" direct 5); ap=$(med "$csv" pcg 5)
{
  echo "# Ridge solvers: pcg vs direct (issue 11)"
  echo
  echo "Command: \`REPS=$REPS scripts/bench_solver.sh\` (\`fsvc train --solver direct|pcg $EXTRA $(basename "$DATA")\`, alternating, $REPS runs each); $when."
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), shared with other jobs: the load average at each run's start is in solver.csv."
  echo
  echo "| solver | training s (median) | readout s (median) | test accuracy % (median) |"
  echo "| --- | --- | --- | --- |"
  echo "| direct | $td | $rd | $ad |"
  echo "| pcg | $tp | $rp | $ap |"
  echo
  summary "$csv"
  echo
  echo "Runs: [solver.csv](solver.csv)."
} > "$R/solver.md"
cat "$R/solver.md"
