#!/usr/bin/env bash
# precision_results.sh FSVC OUTDIR - the accuracy cost of the reduced
# precision GEMM (issue 10): `fsvc train` with its defaults and --precision
# full, tf32, bf16 on MNIST and Fashion-MNIST (full 60k training sets),
# then `fsvc eval` on the 10k test sets. On the cpu backend tf32 and bf16
# are emulated exactly (the operands rounded as the tensor cores take
# them), so the accuracies are those a GPU run would give; the speed of
# the tensor-core path is measured only on a GPU.
# Writes OUTDIR/precision.csv and OUTDIR/precision.md; every command run is
# recorded in them. Runs one training at a time, under `nice -n 10`.
#
# Environment: MNIST_DIR, FASHION_DIR, PRECISIONS (default "full tf32
# bf16"), THREADS (fsvc --threads, default 0: all cores), DEVICE_NOTE (a
# line for the .md about the GPU speed; default: none was measured).
set -uo pipefail
fsvc=${1:?usage: precision_results.sh FSVC OUTDIR}
out=${2:?usage: precision_results.sh FSVC OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
MNIST_DIR=${MNIST_DIR:-$here/data/mnist}
FASHION_DIR=${FASHION_DIR:-/usr/share/datasets/fashion-mnist}
PRECISIONS=${PRECISIONS:-full tf32 bf16}
THREADS=${THREADS:-0}
DEVICE_NOTE=${DEVICE_NOTE:-"Speed on a GPU (tensor cores) is unmeasured: no device was lent to this run; the times above are the CPU emulation's, which rounds the operands and then runs the same f32 GEMM, so they say nothing about the tensor-core speed."}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tmpcsv=$work/precision.csv
echo "dataset,precision,train_samples,test_samples,centroids,train_s,eval_s,accuracy_pct,delta_vs_full_pct,train_command,eval_command" > "$tmpcsv"
log() { echo "precision: $*" >&2; }
now() { date +%s.%N; }
nice_run() { nice -n 10 "$@"; }

declare -A full_acc
row() { # NAME DIR PRECISION
  local name=$1 dir=$2 p=$3 model=$work/$1-$3.fsvc
  local tr=(nice -n 10 "$fsvc" train -q --threads "$THREADS" --precision "$p" "$dir/train" "$model")
  local ev=(nice -n 10 "$fsvc" eval --threads "$THREADS" "$model" "$dir/t10k")
  log "${tr[*]}"
  local t0 t1 t2
  t0=$(now)
  if ! "${tr[@]}" >"$work/train.log" 2>&1; then log "train failed: $(tail -n 2 "$work/train.log")"; return 1; fi
  t1=$(now)
  log "${ev[*]}"
  if ! "${ev[@]}" >"$work/eval.log" 2>&1; then log "eval failed: $(tail -n 2 "$work/eval.log")"; return 1; fi
  t2=$(now)
  local acc right total m
  acc=$(sed -n 's/^Accuracy = \([0-9.]*\)% (\([0-9]*\)\/\([0-9]*\)).*/\1 \2 \3/p' "$work/eval.log" | tail -n 1)
  [ -n "$acc" ] || { log "no accuracy line in: $(tail -n 2 "$work/eval.log")"; return 1; }
  read -r acc right total <<<"$acc"
  m=$("$fsvc" show "$model" 2>/dev/null | sed -n 's/^centroids: \([0-9]*\).*/\1/p')
  [ "$p" = full ] && full_acc[$name]=$acc
  local delta=""
  [ -n "${full_acc[$name]:-}" ] && delta=$(awk -v a="$acc" -v f="${full_acc[$name]}" 'BEGIN { printf "%+.2f", a - f }')
  printf '%s,%s,60000,%s,%s,%.1f,%.1f,%s,%s,%s,%s\n' "$name" "$p" "$total" "$m" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')" "$acc" "$delta" \
    "${tr[*]//$work\//}" "${ev[*]//$work\//}" >> "$tmpcsv"
}

for ds in "mnist:$MNIST_DIR" "fashion:$FASHION_DIR"; do
  name=${ds%%:*} dir=${ds#*:}
  if [ ! -f "$dir/train-images-idx3-ubyte.gz" ] && [ ! -f "$dir/train-images-idx3-ubyte" ]; then
    log "$name: no data in $dir (skipped)"; continue
  fi
  for p in $PRECISIONS; do row "$name" "$dir" "$p"; done
done

cp "$tmpcsv" "$out/precision.csv"
{
  echo "# Reduced-precision GEMM (tf32, bf16): accuracy cost"
  echo
  echo "Written by \`scripts/precision_results.sh $fsvc $out\` on $(date -u '+%Y-%m-%d %H:%M UTC'),"
  echo "machine: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
  echo "$(nproc) cores, backend cpu (tf32 and bf16 emulated exactly: the GEMM"
  echo "operands of the L2 layer rounded to nearest even to 10 / 7 mantissa bits,"
  echo "f32 sums, the squared norms in full f32). \`fsvc train\` defaults"
  echo "(L2 Gaussian, 10000 random centroids, ridge readout), full training set,"
  echo "tested on the 10k test set; delta = accuracy minus the full-precision one."
  echo
  echo "| dataset | precision | centroids | train s | eval s | accuracy % | delta vs full |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  tail -n +2 "$tmpcsv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $5, $6, $7, $8, ($9 == "" ? "-" : $9) }'
  echo
  echo "$DEVICE_NOTE"
  echo
  echo "Commands (the model path shortened to its name):"
  echo
  tail -n +2 "$tmpcsv" | awk -F, '{ printf "    %s\n    %s\n", $10, $11 }'
} > "$out/precision.md"
log "wrote $out/precision.csv and $out/precision.md"
