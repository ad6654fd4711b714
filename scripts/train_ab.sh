#!/usr/bin/env bash
# train_ab.sh - `fsvc train` of each job by this tree's build against
# another (OLD=path/to/that fsvc), in interleaved rounds (the machine is
# shared: compare the ratios of one run): the best wall and CPU seconds,
# the readout's `ridge:` line of the best run, the test accuracy (`fsvc
# eval`) and whether the two builds' models are the same bytes. Writes
# OUT (results/train_ab.md).
# Usage: OLD=/path/to/old/build/fsvc scripts/train_ab.sh [-o OUT]
#   JOBS: "LABEL|OPTIONS|TRAIN|TEST" items, ';'-separated; default the
#   MNIST default model and the 2-core Fashion-MNIST preset
#   (scripts/presets.sh). ROUNDS (3), TITLE.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=results/train_ab.md
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
ROUNDS=${ROUNDS:-3}
OLD=${OLD:?set OLD to the fsvc built before the change}
NEW=$root/build/fsvc
TITLE=${TITLE:-fsvc train, this build against the one before it}
fashion_opts=$(bash scripts/presets.sh --options fashion-2core)
fm=/usr/share/datasets/fashion-mnist
JOBS=${JOBS:-"mnist default||data/mnist/train|data/mnist/t10k;fashion-2core|$fashion_opts|$fm/train|$fm/t10k"}
command="OLD=$OLD scripts/train_ab.sh -o $out (ROUNDS=$ROUNDS JOBS='$JOBS')"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A wall cpu ridge acc
source "$root/scripts/tier_lib.sh" # best, bestc, timed, ab_head, ab_ratio
IFS=';' read -r -a jobs <<<"$JOBS"
labels=() opts=() trains=() tests=()
for j in "${jobs[@]}"; do
  IFS='|' read -r l o tr te <<<"$j"
  labels+=("$l") opts+=("$o") trains+=("$tr") tests+=("$te")
done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then order="old new"; else order="new old"; fi
  for b in $order; do
    bin=$OLD; [ "$b" = new ] && bin=$NEW
    for ((j = 0; j < ${#jobs[@]}; j++)); do
      k="$b $j"
      before=${wall[$k]:-}
      # shellcheck disable=SC2086 # the options are words
      timed "$k" "$bin" train ${opts[$j]} "${trains[$j]}" "$work/$b$j.fsvc"
      [ "${wall[$k]}" != "$before" ] && ridge[$k]=$(sed -n 's/^ridge: //p' "$work/o")
      "$bin" eval "$work/$b$j.fsvc" "${tests[$j]}" >"$work/e" 2>&1 ||
        { echo "${0##*/}: eval of ${labels[$j]} ($b) failed: $(tail -n 2 "$work/e")" >&2; exit 1; }
      acc[$k]=$(sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$work/e")
      echo "${0##*/}: round $r, $b, ${labels[$j]}: ${acc[$k]} %" >&2
    done
  done
done
{
  ab_head "$TITLE" train_ab.sh "$command" "$load0"
  echo
  echo "Best of $ROUNDS interleaved rounds: wall and user + system seconds (/usr/bin/time);"
  echo "accuracy: \`fsvc eval\` on the test set (the last round's model)."
  echo
  echo "| job | old wall s | new wall s | old / new | old CPU s | new CPU s | old / new | accuracy old / new % | same model bytes |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
  for ((j = 0; j < ${#jobs[@]}; j++)); do
    same=no; cmp -s "$work/old$j.fsvc" "$work/new$j.fsvc" && same=yes
    echo "| ${labels[$j]} | ${wall[old $j]} | ${wall[new $j]} | $(ab_ratio "${wall[old $j]}" "${wall[new $j]}")" \
      "| ${cpu[old $j]} | ${cpu[new $j]} | $(ab_ratio "${cpu[old $j]}" "${cpu[new $j]}")" \
      "| ${acc[old $j]} / ${acc[new $j]} | $same |"
  done
  echo
  echo "Each job's \`fsvc train\` options and the \`ridge:\` line of its best run:"
  echo
  for ((j = 0; j < ${#jobs[@]}; j++)); do
    echo "- ${labels[$j]}: \`fsvc train ${opts[$j]:+${opts[$j]} }${trains[$j]}\`"
    echo "  - old: ${ridge[old $j]}"
    echo "  - new: ${ridge[new $j]}"
  done
  echo
  echo "Every run, wall seconds in round order:"
  echo
  for ((j = 0; j < ${#jobs[@]}; j++)); do
    echo "- ${labels[$j]}: old ${runs[old $j]}; new ${runs[new $j]}"
  done
} >"$out"
echo "${0##*/}: wrote $out" >&2
