#!/usr/bin/env bash
# Who does the tiles: fsvc's own kernels against oneDNN (Debian's libdnnl,
# the library that drives Intel's and AMD's matrix units), on the product
# of one layer, N = m = 4096 samples and centroids, n = 784 features, all
# cores. oneDNN computes only the product (u8 x s8 -> s32, bf16 -> f32,
# f32), weights pre-packed in its own layout; fsvc's layer computes the
# product AND the distances' norms and the activation (`fsvc bench`), so
# the comparison favours oneDNN. fsvc's rows run FSVC_ARCH=avx512bf16 (its
# own kernels, OpenBLAS for f32) or FSVC_ARCH=onednn (oneDNN's matmul with
# fsvc's epilogue, the default where it runs). Rounds interleave every configuration
# (the machine is shared); each figure is the median over rounds of the
# best of REPS runs, ratios of medians measured in this one run.
# usage: scripts/onednn_vs_fsvc.sh [-o FILE]   (make first; needs libdnnl-dev)
# Exit 3 when oneDNN's headers or library are missing (nothing measured).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-3}
N=${N:-4096}; M=${M:-4096}; K=${K:-784}
FSVC=${FSVC:-$root/build/fsvc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! cc -O2 -std=c11 -o "$work/onednn_bench" scripts/onednn_bench.c -ldnnl 2>"$work/cc.txt"; then
  echo "onednn_vs_fsvc: cannot build against oneDNN (apt-get install libdnnl-dev): $(head -n 1 "$work/cc.txt")" >&2
  exit 3
fi
# label | command (prints a time in seconds on its last line)
configs=(
  "oneDNN u8 x s8 -> s32 product|$work/onednn_bench u8 $N $M $K $REPS"
  "fsvc u8 dot layer (mul: product, identity activation)|env FSVC_ARCH=avx512bf16 $FSVC bench --op mul --dtype u8 -N $N -m $M -n $K --no-ref -r $REPS"
  "fsvc u8 L2 layer (rbf-l2: distances + Gaussian)|env FSVC_ARCH=avx512bf16 $FSVC bench --op rbf-l2 --dtype u8 -N $N -m $M -n $K --no-ref -r $REPS"
  "oneDNN bf16 product|$work/onednn_bench bf16 $N $M $K $REPS"
  "fsvc f32 L2 layer, --precision bf16|env FSVC_ARCH=avx512bf16 $FSVC bench --op rbf-l2 --dtype f32 --precision bf16 -N $N -m $M -n $K --no-ref -r $REPS"
  "fsvc f32 L2 layer, --precision bf16, onednn tier|env FSVC_ARCH=onednn $FSVC bench --op rbf-l2 --dtype f32 --precision bf16 -N $N -m $M -n $K --no-ref -r $REPS"
  "oneDNN f32 product|$work/onednn_bench f32 $N $M $K $REPS"
  "fsvc f32 L2 layer (OpenBLAS sgemm + epilogue)|env FSVC_ARCH=avx512bf16 $FSVC bench --op rbf-l2 --dtype f32 -N $N -m $M -n $K --no-ref -r $REPS"
  "fsvc f32 L2 layer, onednn tier (oneDNN's product + epilogue)|env FSVC_ARCH=onednn $FSVC bench --op rbf-l2 --dtype f32 -N $N -m $M -n $K --no-ref -r $REPS"
)
# the amx tier (AMX tiles granted by Linux): fsvc's own tiles beside oneDNN's
pairs=()
if FSVC_ARCH=amx "$FSVC" info 2>/dev/null | grep -q '^cpu kernels: amx (FSVC_ARCH'; then
  configs+=(
    "fsvc u8 dot layer, amx tiles|env FSVC_ARCH=amx $FSVC bench --op mul --dtype u8 -N $N -m $M -n $K --no-ref -r $REPS"
    "fsvc u8 L2 layer, amx tiles|env FSVC_ARCH=amx $FSVC bench --op rbf-l2 --dtype u8 -N $N -m $M -n $K --no-ref -r $REPS"
  )
  pairs+=("fsvc u8 dot layer, amx tiles|oneDNN u8 x s8 -> s32 product"
          "fsvc u8 L2 layer, amx tiles|oneDNN u8 x s8 -> s32 product")
fi
declare -A times impl kern
for ((r = 1; r <= ROUNDS; r++)); do
  for c in "${configs[@]}"; do
    label=${c%%|*}; cmd=${c#*|}
    res=$($cmd -v 2>&1 || $cmd 2>&1) || { echo "onednn_vs_fsvc: $label failed: $res" >&2; exit 1; }
    case $label in
      oneDNN*) t=$(echo "$res" | sed -n 's/.*t_min=\([0-9.]*\).*/\1/p'); impl[$label]=$(echo "$res" | sed -n 's/^impl=\([^ ]*\).*/\1/p') ;;
      *) t=$(echo "$res" | sed -n 's/^  time: min \([0-9.e+-]*\) s.*/\1/p')
         impl[$label]=$(echo "$res" | sed -n 's/^  plan: path=\([^ ]*\) kernel=\([^ ]*\).*/\1:\2/p')
         kt=$(echo "$res" | sed -n 's/^  kernels only (same tiles, no activation): \([0-9.e+-]*\) s.*/\1/p')
         [ -n "$kt" ] && kern[$label]="${kern[$label]:-} $kt" ;;
    esac
    [ -n "$t" ] || { echo "onednn_vs_fsvc: no time from $label" >&2; exit 1; }
    times[$label]="${times[$label]:-} $t"
    echo "onednn_vs_fsvc: round $r, $label: $t s" >&2
  done
done
med() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
report() {
  echo "# fsvc's kernels and oneDNN on the product of one layer"
  echo
  echo "- command: \`scripts/onednn_vs_fsvc.sh${out:+ -o $out}\` (ROUNDS=$ROUNDS REPS=$REPS, N=$N m=$M n=$K)"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(grep -o 'amx_int8\|avx512_vnni\|avx512_bf16' /proc/cpuinfo | sort -u | tr '\n' ' '); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared: compare the ratios)"
  echo "- oneDNN $(dpkg-query -W -f='${Version}' libdnnl-dev 2>/dev/null || echo '?'); OpenBLAS core ${OPENBLAS_CORETYPE:-as detected}"
  echo
  echo "| configuration | runs on | median s | GOP/s (2 N m n) | fsvc's product kernels alone, median s |"
  echo "| --- | --- | ---: | ---: | ---: |"
  for c in "${configs[@]}"; do
    label=${c%%|*}; t=$(med "${times[$label]}"); k=""
    [ -n "${kern[$label]:-}" ] && k=$(med "${kern[$label]}")
    echo "| $label | ${impl[$label]} | $t | $(awk "BEGIN{printf \"%.0f\", 2*$N*$M*$K/$t/1e9}") | $k |"
  done
  echo
  echo "Time of fsvc's whole layer over oneDNN's product alone (below 1: fsvc is faster):"
  echo
  for p in "fsvc u8 dot layer (mul: product, identity activation)|oneDNN u8 x s8 -> s32 product" \
           "fsvc u8 L2 layer (rbf-l2: distances + Gaussian)|oneDNN u8 x s8 -> s32 product" \
           "fsvc f32 L2 layer, --precision bf16|oneDNN bf16 product" \
           "fsvc f32 L2 layer, --precision bf16, onednn tier|oneDNN bf16 product" \
           "fsvc f32 L2 layer (OpenBLAS sgemm + epilogue)|oneDNN f32 product" \
           "fsvc f32 L2 layer, onednn tier (oneDNN's product + epilogue)|oneDNN f32 product" \
           ${pairs[@]+"${pairs[@]}"}; do
    a=${p%%|*}; b=${p#*|}
    kk=""
    [ -n "${kern[$a]:-}" ] && kk="; its product kernels alone: $(awk "BEGIN{printf \"%.2f\", $(med "${kern[$a]}")/$(med "${times[$b]}")}")"
    echo "- $a / $b: $(awk "BEGIN{printf \"%.2f\", $(med "${times[$a]}")/$(med "${times[$b]}")}")$kk"
  done
}
report
if [ -n "$out" ]; then report >"$out.tmp" && mv -f "$out.tmp" "$out"; fi
