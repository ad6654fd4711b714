#!/usr/bin/env bash
# The pcg preconditioner in lower precision (issue 24: "the preconditioner
# in the precision its accuracy needs"), measured on whole training jobs.
# Builds a copy of this commit with scripts/precond_precision.patch, which
# adds an experiment switch PRECOND_VARIANT (never in fsvc itself):
#   f32          today's preconditioner (the same bits as main)
#   f16-factor   the Cholesky factor rounded to f16 before the solves read
#                it (half the bytes each iteration's 4 triangular passes read)
#   bf16-factor  the same in bf16
#   bf16-update  every trailing update of the Cholesky on bf16 copies of
#                the panel (what a bf16 GEMM, AVX512-BF16 or AMX, computes:
#                bf16 products are exact in f32, the sums in f32)
# A rounded factor still gives an SPD preconditioner, so the solution is
# as accurate (the same --cg-tol): only the number of iterations moves.
# For each DATA set: `fsvc train` (the default model: pcg, 10000
# centroids) per variant, interleaved over ROUNDS, then `fsvc eval` on
# t10k; a table of iterations, the pcg times, wall seconds and accuracy.
# `make test` checks that the patch still applies; to remake it, apply it
# (git apply), mend, and `git diff fsvc/pcg.c layers/chol.c` into it.
# usage: scripts/precond_precision.sh [-o FILE] DATA...   (make first)
#   ROUNDS (1: iterations are exact; times are one run), OPTS ("")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: scripts/precond_precision.sh [-o FILE] DATA..." >&2; exit 2; }
ROUNDS=${ROUNDS:-1}
OPTS=${OPTS:-}
VARIANTS="f32 f16-factor bf16-factor bf16-update"
[ -x build/fsvc ] || { echo "precond_precision: build/fsvc missing (run make)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the patched copy: this commit's files, this build's objects (only the
# two patched files recompile)
mkdir "$work/tree"
git archive HEAD | tar -x -C "$work/tree" -f -
cp -a build "$work/tree/"
(cd "$work/tree" && patch -s -p1 <"$root/scripts/precond_precision.patch") ||
  { echo "precond_precision: the patch no longer applies to this commit" >&2; exit 1; }
make -s -C "$work/tree" -j2 build/fsvc >"$work/make.log" 2>&1 ||
  { echo "precond_precision: the patched build failed: $(tail -n 3 "$work/make.log")" >&2; exit 1; }
FSVC=$work/tree/build/fsvc
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2034 # cpu: filled by tier_lib's bestc
declare -A wall cpu extra acc iters shift_s
# shellcheck source=scripts/tier_lib.sh
source "$root/scripts/tier_lib.sh" # best, bestc, timed
for ((r = 1; r <= ROUNDS; r++)); do
  for d in "$@"; do
    for v in $VARIANTS; do
      k="$(basename "$d") $v"
      # shellcheck disable=SC2086 # OPTS: words on purpose
      PRECOND_VARIANT=$v timed "$k" "$FSVC" train $OPTS "$d/train" "$work/m.fsvc"
      extra[$k]=$(sed -n 's/^ridge: pcg, \(.*\); [0-9]* iterations.*/\1/p' "$work/o")
      iters[$k]=$(sed -n 's/^ridge: pcg, .*; \([0-9]*\) iterations.*/\1/p' "$work/o")
      shift_s[$k]=$(sed -n 's/^precond: .*, s \(.*\)/\1/p' "$work/o")
      if [ -z "${iters[$k]}" ] || [ -z "${shift_s[$k]}" ]; then
        echo "precond_precision: $k did not run the patched pcg" >&2; exit 1
      fi
      if [ "$r" = 1 ]; then
        "$FSVC" eval "$work/m.fsvc" "$d/t10k" >"$work/e" 2>&1
        acc[$k]=$(sed -n 's/^Accuracy = \([0-9.]*%\).*/\1/p' "$work/e")
      fi
    done
  done
done
report() {
  echo "# The pcg preconditioner in f32, f16 and bf16"
  echo
  echo "- command: \`scripts/precond_precision.sh${out:+ -o $out} $*\` (ROUNDS=$ROUNDS OPTS='$OPTS')"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
  echo "- load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  echo
  echo "Each row: \`fsvc train $OPTS DATA/train\` built with scripts/precond_precision.patch and"
  echo "PRECOND_VARIANT set; s: the shift of K_mm + s I that factored (x 10 per retry after a"
  echo "factorisation that failed in rounding); wall: best of $ROUNDS; accuracy: \`fsvc eval\` on DATA/t10k."
  echo
  echo "| data | variant | s | iterations | pcg | wall s | test accuracy |"
  echo "| --- | --- | ---: | ---: | --- | ---: | ---: |"
  for d in "$@"; do
    local b
    b=$(basename "$d")
    for v in $VARIANTS; do
      echo "| $b | $v | ${shift_s[$b $v]} | ${iters[$b $v]} | ${extra[$b $v]} | ${wall[$b $v]} | ${acc[$b $v]} |"
    done
  done
}
report "$@"
if [ -n "$out" ]; then report "$@" >"$out.tmp" && mv -f "$out.tmp" "$out"; fi
