#!/usr/bin/env bash
# act_intrinsics.sh - the Gaussian and tanh epilogues in intrinsics
# (act_avx512.h, act_avx2.h, act_sse2.h) against the build before them (OLD=path/to/
# that fsvc), in one interleaved run: the RBF-L2 (Gaussian) and MUL (tanh)
# layers 4096 x 4096 x 784 (u8 and f32, the default tier, FSVC_ARCH=avx2
# and, u8, FSVC_ARCH=scalar; `fsvc bench -v`: the best wall time and
# the kernels alone), `fsvc train` of the default MNIST model and `fsvc
# predict` of the 10k test images on both tiers (best wall and CPU
# seconds), and whether the two builds' models and predictions are the
# same bytes (they must be: the same operations). Writes OUT
# (results/act_intrinsics.md).
# Usage: OLD=/path/to/old/build/fsvc scripts/act_intrinsics.sh [-o OUT] [MNIST_DIR]
#   ROUNDS (3); another pair of builds: TITLE (the report's heading), LAYERS
#   ("TIER DTYPE OP" items, ';'-separated) and TIERS (those of the jobs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=results/act_intrinsics.md
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
mnist=${1:-data/mnist}
ROUNDS=${ROUNDS:-3}
OLD=${OLD:?set OLD to the fsvc built before the change}
NEW=$root/build/fsvc
TITLE=${TITLE:-The Gaussian and tanh epilogues in intrinsics, against the build before them}
TIERS=${TIERS:-default avx2}
command="OLD=$OLD scripts/act_intrinsics.sh -o $out $mnist (ROUNDS=$ROUNDS${LAYERS:+ LAYERS='$LAYERS'}${TIERS:+ TIERS='$TIERS'})"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A wall cpu kern
acc=()
source "$root/scripts/tier_lib.sh" # best, bestc, timed, ab_head, ab_ratio
load0=$(cut -d' ' -f1-3 /proc/loadavg)
layers=("default u8 rbf-l2" "default f32 rbf-l2" "avx2 u8 rbf-l2" "avx2 f32 rbf-l2"
  "scalar u8 rbf-l2" "default u8 mul" "default f32 mul" "avx2 u8 mul" "avx2 f32 mul"
  "scalar u8 mul")
if [ -n "${LAYERS:-}" ]; then IFS=';' read -r -a layers <<<"$LAYERS"; fi
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then order="old new"; else order="new old"; fi
  for b in $order; do
    bin=$OLD; [ "$b" = new ] && bin=$NEW
    for l in "${layers[@]}"; do
      read -r tier dt opn <<<"$l"
      envs=(env -u FSVC_ARCH); [ "$tier" = default ] || envs=(env FSVC_ARCH="$tier")
      "${envs[@]}" "$bin" bench --op "$opn" --dtype "$dt" --no-ref -v -r 5 >"$work/o" 2>&1 ||
        { echo "${0##*/}: bench $l ($b) failed: $(tail -n 2 "$work/o")" >&2; exit 1; }
      best "$b $l" "$(sed -n 's/^  time: min \([0-9.]*\) s.*/\1/p' "$work/o")"
      k=$(sed -n 's/^  kernels only (same tiles, no activation): \([0-9.]*\) s.*/\1/p' "$work/o")
      [ -n "$k" ] && { [ -z "${kern[$b $l]:-}" ] ||
        awk "BEGIN{exit !($k < ${kern[$b $l]})}"; } && kern[$b $l]=$k
      echo "${0##*/}: round $r, $b, layer $l: ${runs[$b $l]##* } s" >&2
    done
    for tier in $TIERS; do
      envs=(env -u FSVC_ARCH); [ "$tier" = default ] || envs=(env FSVC_ARCH="$tier")
      timed "$b $tier train" "${envs[@]}" "$bin" train "$mnist/train" "$work/$b$tier.fsvc"
      timed "$b $tier predict" "${envs[@]}" "$bin" predict -o "$work/$b$tier.pred" \
        "$work/$b$tier.fsvc" "$mnist/t10k"
      acc[${#acc[@]}]="$b $tier $(sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$work/o")"
    done
  done
done
same_model=yes same_pred=yes
for tier in $TIERS; do
  cmp -s "$work/old$tier.fsvc" "$work/new$tier.fsvc" || same_model=no
  cmp -s "$work/old$tier.pred" "$work/new$tier.pred" || same_pred=no
done
{
  ab_head "$TITLE" act_intrinsics.sh "$command" "$load0"
  echo "- the two builds' MNIST models are the same bytes (on each tier): $same_model;" \
    "their predictions of t10k: $same_pred"
  echo
  echo "Best of $ROUNDS interleaved rounds; layer: \`fsvc bench --op OP --dtype T -v -r 5\`"
  echo "(its minimum; kernels: the same tiles without the activation)."
  echo
  echo "| what | old s | new s | old / new | kernels alone s | old / kernels | new / kernels |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for l in "${layers[@]}"; do
    o=${wall[old $l]} n=${wall[new $l]} k=${kern[new $l]:-}
    if [ -n "$k" ]; then
      echo "| layer $l | $o | $n | $(ab_ratio "$o" "$n") | $k | $(ab_ratio "$o" "$k") | $(ab_ratio "$n" "$k") |"
    else
      echo "| layer $l | $o | $n | $(ab_ratio "$o" "$n") | | | |"
    fi
  done
  for j in $(for t in $TIERS; do echo "$t:train $t:predict"; done); do
    j=${j/:/ }
    echo "| $j MNIST (wall) | ${wall[old $j]} | ${wall[new $j]} |" \
      "$(ab_ratio "${wall[old $j]}" "${wall[new $j]}") | | | |"
    echo "| $j MNIST (CPU) | ${cpu[old $j]} | ${cpu[new $j]} |" \
      "$(ab_ratio "${cpu[old $j]}" "${cpu[new $j]}") | | | |"
  done
  echo
  echo "Accuracy of each run: ${acc[*]} (%)."
  echo
  echo "Every run, seconds in round order:"
  echo
  for k in $(printf '%s\n' "${!runs[@]}" | sort | tr ' ' '_'); do
    echo "- ${k//_/ }: ${runs[${k//_/ }]}"
  done
} >"$out"
echo "${0##*/}: wrote $out" >&2
