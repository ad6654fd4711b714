#!/usr/bin/env bash
# pcg's cached H in f32, bf16 and f16 (--pcg-h) on whole jobs, in one run
# on this machine: `fsvc train` of each DATA set's default model (pcg,
# 10000 centroids, lambda 1e-5) with each format, interleaved over ROUNDS
# (the machine is shared), then `fsvc eval` on its t10k set; writes a table
# of the best wall and CPU seconds (/usr/bin/time), the ratio to f32 in
# the same rounds, the pcg line (H, products, preconditioner, iterations)
# and the test accuracy. OPTS adds training options (the same for all).
# usage: scripts/pcg_h16.sh [-o FILE] DATA...   (make first; DATA: a folder
#   with train and t10k IDX files, e.g. data/mnist)
#   ROUNDS (3), OPTS (""), FORMATS ("f32 bf16 f16"), FSVC (build/fsvc)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: scripts/pcg_h16.sh [-o FILE] DATA..." >&2; exit 2; }
ROUNDS=${ROUNDS:-3}
OPTS=${OPTS:-}
FORMATS=${FORMATS:-f32 bf16 f16}
FSVC=${FSVC:-$root/build/fsvc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A wall cpu extra acc
source "$root/scripts/tier_lib.sh" # best, bestc, timed
for ((r = 1; r <= ROUNDS; r++)); do
  for d in "$@"; do
    for h in $FORMATS; do
      k="$(basename "$d") $h"
      # shellcheck disable=SC2086 # OPTS: words on purpose
      timed "$k" "$FSVC" train $OPTS --pcg-h "$h" "$d/train" "$work/m.fsvc"
      extra[$k]=$(sed -n 's/^ridge: pcg, \(.*\)/\1/p' "$work/o")
      [ -n "${extra[$k]}" ] || { echo "pcg_h16: $k did not run pcg" >&2; exit 1; }
      if [ "$r" = 1 ]; then # the model does not change between rounds
        "$FSVC" eval "$work/m.fsvc" "$d/t10k" >"$work/e" 2>&1
        acc[$k]=$(sed -n 's/^Accuracy = \([0-9.]*%\).*/\1/p' "$work/e")
      fi
    done
  done
done
ratio() { awk "BEGIN{printf \"%.2f\", $1 / $2}"; }
report() {
  echo "# pcg's cached H in f32, bf16 and f16 (--pcg-h) on whole training jobs"
  echo
  echo "- command: \`scripts/pcg_h16.sh${out:+ -o $out} $*\` (ROUNDS=$ROUNDS OPTS='$OPTS')"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; CPU tier $("$FSVC" info 2>/dev/null | sed -n 's/^cpu kernels: \([a-z0-9]*\).*/\1/p')"
  echo "- load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared with other jobs: compare the ratios, measured in this run, interleaved)"
  echo
  echo "Each row: \`fsvc train $OPTS --pcg-h H DATA/train\`, best of $ROUNDS interleaved rounds, wall and"
  echo "user + system seconds; ratios: this format's time / f32's; accuracy: \`fsvc eval\` on DATA/t10k."
  echo
  echo "| data | --pcg-h | wall s | / f32 | CPU s | / f32 | pcg | test accuracy |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |"
  for d in "$@"; do
    local b f
    b=$(basename "$d")
    for h in $FORMATS; do
      f="$b f32"
      echo "| $b | $h | ${wall[$b $h]} | $(ratio "${wall[$b $h]}" "${wall[$f]:-${wall[$b $h]}}") | ${cpu[$b $h]} | $(ratio "${cpu[$b $h]}" "${cpu[$f]:-${cpu[$b $h]}}") | ${extra[$b $h]} | ${acc[$b $h]} |"
    done
  done
  echo
  echo "Every run, wall seconds in round order:"
  echo
  for d in "$@"; do
    for h in $FORMATS; do echo "- $(basename "$d") $h: ${runs[$(basename "$d") $h]}"; done
  done
}
report "$@"
if [ -n "$out" ]; then report "$@" >"$out.tmp" && mv -f "$out.tmp" "$out"; fi
