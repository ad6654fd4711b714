#!/usr/bin/env bash
# The default image preprocessing in float (sqrt, deskew+sqrt: f32
# centroids and kernels) against its u8 form (sqrt-u8, deskew+sqrt-u8: the
# exact u8 kernels), on MNIST and Fashion-MNIST with the default model,
# trained on the 60k set and evaluated on the 10k set, each pair run back
# to back REPS times (the machine is shared: the ratio of each pair is the
# figure). Train time is the CLI's "total" line, predict time its
# "predicted ... in" line. Writes markdown to stdout and, with -o FILE, to
# FILE.   usage: scripts/preprocess_u8.sh [-o FILE]   (make first)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
REPS=${REPS:-1}
FSVC=${FSVC:-$root/build/fsvc}
FASHION=${FASHION:-/usr/share/datasets/fashion-mnist}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=()
# one NAME DIR PRE: train + predict, prints "train_s predict_s accuracy"
one() {
  "$FSVC" train --preprocess "$3" "$2/train" "$work/m.fsvc" >"$work/t.txt" 2>&1
  "$FSVC" predict "$work/m.fsvc" "$2/t10k" "$work/p.txt" >"$work/pr.txt" 2>&1
  echo "$(sed -n 's/^time: .*total \([0-9.]*\) s$/\1/p' "$work/t.txt")" \
       "$(sed -n 's/^predicted [0-9]* samples in \([0-9.]*\) s.*/\1/p' "$work/pr.txt")" \
       "$(sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$work/pr.txt")"
}
for set in "MNIST:data/mnist:deskew+sqrt" "Fashion-MNIST:$FASHION:sqrt"; do
  IFS=: read -r name dir pre <<<"$set"
  for r in $(seq "$REPS"); do
    echo "preprocess_u8: $name, pair $r of $REPS" >&2
    read -r ft fp fa < <(one "$name" "$dir" "$pre")
    read -r ut up ua < <(one "$name" "$dir" "$pre-u8")
    rows+=("| $name | $r | $pre / $pre-u8 | $ft | $ut | $(awk "BEGIN{printf \"%.2f\", $ut/$ft}") | $fp | $up | $(awk "BEGIN{printf \"%.2f\", $up/$fp}") | $fa / $ua |")
  done
done
report() {
  echo "# Image preprocessing in float and in u8"
  echo
  echo "- command: \`scripts/preprocess_u8.sh${out:+ -o $out}\` (REPS=$REPS)"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, kernels $("$FSVC" info | sed -n 's/^cpu kernels: //p' | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared: compare the ratios)"
  echo "- model: the default (10000 random centroids, L2 Gaussian, 0.45 rms radius, ridge by pcg)"
  echo
  echo "| data | pair | preprocessing float / u8 | train float (s) | train u8 (s) | ratio | predict 10k float (s) | predict u8 (s) | ratio | accuracy float / u8 (%) |"
  echo "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  printf '%s\n' "${rows[@]}"
}
report
if [ -n "$out" ]; then report >"$out.tmp" && mv -f "$out.tmp" "$out"; fi
