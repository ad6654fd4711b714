#!/usr/bin/env bash
# tier_targets.sh - issue 24's targets measured on this machine, in one run:
#   layer: the u8 L2/Gaussian layer 4096 x 4096 x 784 on the best tier
#     (avx512vnni) against today's u8 kernels (FSVC_ARCH=avx512; target >= 4x)
#     and today's f32 path (OpenBLAS sgemm; >= 6x); the bf16 float layer on
#     the best bf16 tier against today's f32 path (>= 3x);
#   job: `fsvc train` of the default model on MNIST, the default tier
#     against FSVC_ARCH=avx512 (time <= 0.4x, accuracy within 0.1 point),
#     and `fsvc predict` of the 10k test images with each model (<= 0.3x).
# Each round runs scripts/bench_tiers.sh once (ROUNDS=1, its layer configs
# in turn), then the jobs (the two tiers' order alternating by round): all
# interleaved, because the machine is shared. Each figure is the best over
# the rounds, wall seconds and CPU seconds (user + system); ratios are new
# / old of those bests.
# usage: scripts/tier_targets.sh [-o FILE] [MNIST_DIR]  (make first; FILE
#   default results/tier_targets.md, MNIST_DIR default data/mnist, from
#   the repository root)
#   ROUNDS (3), SHAPE (-m 4096 -N 4096 -n 784), JOB=0 skips the jobs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=results/tier_targets.md
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
mnist=${1:-data/mnist}
ROUNDS=${ROUNDS:-3}
SHAPE=${SHAPE:--m 4096 -N 4096 -n 784}
JOB=${JOB:-1}
FSVC=${FSVC:-$root/build/fsvc}
command="scripts/tier_targets.sh -o $out $mnist (ROUNDS=$ROUNDS SHAPE='$SHAPE' JOB=$JOB)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A wall cpu extra
source "$root/scripts/tier_lib.sh" # best, bestc, timed
load0=$(cut -d' ' -f1-3 /proc/loadavg)
read -r m N n <<<"$(echo "$SHAPE" | sed -n 's/.*-m \([0-9]*\).*-N \([0-9]*\).*-n \([0-9]*\).*/\1 \2 \3/p')"
[ -n "${n:-}" ] || { echo "tier_targets: SHAPE must read -m M -N N -n n" >&2; exit 2; }
# the layer configurations of bench_tiers.sh this compares (the bf16 ones
# that exist here: avx512bf16's kernel, the onednn tier's matmul)
ONLY='^(u8-l2-avx512|u8-l2-avx512vnni|u8-l2-amx|f32-l2-sgemm|f32-l2-bf16-avx512bf16|f32-l2-bf16-onednn)$'

for ((r = 1; r <= ROUNDS; r++)); do
  ROUNDS=1 ONLY=$ONLY SHAPE=$SHAPE bash "$root/scripts/bench_tiers.sh" "$FSVC" "$work/r$r" \
    >/dev/null
  # round,label,environment,command,t_min_s,cpu_t_syn_ns,kernel,load1
  while IFS=, read -r _ label _ _ t ct k _; do
    best "$label" "$t"
    bestc "$label" "$(awk -v c="$ct" -v m="$m" -v N="$N" -v n="$n" \
      'BEGIN { printf "%.6f", c * m * N * n / 1e9 }')" # CPU s / threads
    extra[$label]=$k
  done < <(tail -n +2 "$work/r$r/tiers-cpu.csv")
  [ "$JOB" = 0 ] && continue
  if ((r % 2)); then order="default avx512"; else order="avx512 default"; fi
  for tier in $order; do
    envs=(env -u FSVC_ARCH)
    [ "$tier" = avx512 ] && envs=(env FSVC_ARCH=avx512)
    timed "train $tier" "${envs[@]}" "$FSVC" train "$mnist/train" "$work/$tier.fsvc"
    timed "predict $tier" "${envs[@]}" "$FSVC" predict "$work/$tier.fsvc" "$mnist/t10k"
    extra["acc $tier"]=$(sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$work/o")
    extra["train $tier"]="accuracy ${extra["acc $tier"]} %"
    extra["predict $tier"]=${extra["train $tier"]}
  done
done

# row NAME NEW OLD GOAL: a ratio old/new (speed-up, GOAL >= it) or new/old
# (time, GOAL <= it) of the bests, wall and CPU
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
met() { awk -v v="$1" -v g="$2" -v ge="$3" 'BEGIN { print ((ge ? v >= g : v <= g) ? "met" : "not met") }'; }
row() { # row TARGET NEW OLD GOAL GE(1: speed-up >= goal; 0: time ratio <= goal)
  local t=$1 a=$2 b=$3 g=$4 ge=$5 rw rc
  [ -n "${wall[$a]:-}" ] && [ -n "${wall[$b]:-}" ] || { echo "| $t | $a | $b | not measured here | | | |"; return; }
  if [ "$ge" = 1 ]; then rw=$(ratio "${wall[$b]}" "${wall[$a]}"); rc=$(ratio "${cpu[$b]}" "${cpu[$a]}")
  else rw=$(ratio "${wall[$a]}" "${wall[$b]}"); rc=$(ratio "${cpu[$a]}" "${cpu[$b]}"); fi
  echo "| $t | $a (${extra[$a]:-}) ${wall[$a]} s | $b (${extra[$b]:-}) ${wall[$b]} s | ${rw}x | ${rc}x | $([ "$ge" = 1 ] && echo ">=" || echo "<=") ${g}x | $(met "$rw" "$g" "$ge") (wall), $(met "$rc" "$g" "$ge") (CPU) |"
}
# the u8 layer's best tier here: amx's tiles where they run
u8=u8-l2-avx512vnni
[ -n "${wall[u8-l2-amx]:-}" ] && u8=u8-l2-amx
# the bf16 layer's best tier here: the faster of the two bf16 configs
bf=f32-l2-bf16-avx512bf16
if [ -n "${wall[f32-l2-bf16-onednn]:-}" ] && { [ -z "${wall[$bf]:-}" ] ||
   awk -v a="${wall[f32-l2-bf16-onednn]}" -v b="${wall[$bf]}" 'BEGIN { exit !(a < b) }'; }; then
  bf=f32-l2-bf16-onednn
fi
{
  echo "# Issue 24's targets on this machine"
  echo
  echo "- command: \`$command\`"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
    "family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1);" \
    "$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx512_vnni|avx512_bf16|avx_vnni|amx_tile|amx_int8|amx_bf16)$' | tr '\n' ' ')$(grep -q ' amx_tile' /proc/cpuinfo || echo '(no AMX; the issue set the targets for AMX machines)')"
  echo "- load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared with other jobs: compare the ratios, measured in this run)"
  echo "- OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; default tier: $(env -u FSVC_ARCH "$FSVC" info 2>/dev/null | sed -n 's/^cpu kernels: \([^ ]*\).*/\1/p')"
  echo
  echo "Best over $ROUNDS interleaved rounds; layer: \`fsvc bench $SHAPE\` per \`scripts/bench_tiers.sh\`"
  echo "(-r 3, its minimum wall time; CPU: its CPU-time t_syn x synapses, per thread); jobs:"
  echo "\`fsvc train $mnist/train\` (the default model) and \`fsvc predict\` of $mnist/t10k,"
  echo "wall and user + system seconds (/usr/bin/time)."
  echo
  echo "| target | new | old | wall | CPU | goal | |"
  echo "| --- | --- | --- | ---: | ---: | --- | --- |"
  row "u8 L2/Gaussian layer, best tier vs today's u8 kernels" "$u8" u8-l2-avx512 4 1
  row "u8 L2/Gaussian layer, best tier vs today's f32 path" "$u8" f32-l2-sgemm 6 1
  row "bf16 float layer vs today's f32 path" "$bf" f32-l2-sgemm 3 1
  if [ "$JOB" != 0 ]; then
    row "fsvc train MNIST, default model: time, default tier / FSVC_ARCH=avx512" "train default" "train avx512" 0.4 0
    row "fsvc predict 10k: time, default tier / FSVC_ARCH=avx512" "predict default" "predict avx512" 0.3 0
    a=${extra[acc default]:-} b=${extra[acc avx512]:-}
    if [ -n "$a" ] && [ -n "$b" ]; then
      d=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a - b }')
      echo "| MNIST accuracy, default tier vs FSVC_ARCH=avx512 | $a % | $b % | $d points | | within 0.1 point | $(awk -v d="$d" 'BEGIN { print (d >= -0.1 && d <= 0.1) ? "met" : "not met" }') |"
    fi
  fi
  echo
  echo "Speed-up rows: old / new (above 1: the new tier is faster); time rows: new / old."
  echo
  echo "Every run, wall seconds in round order (the best of each is in the table):"
  echo
  for k in u8-l2-amx u8-l2-avx512vnni u8-l2-avx512 f32-l2-sgemm f32-l2-bf16-avx512bf16 f32-l2-bf16-onednn \
           "train default" "train avx512" "predict default" "predict avx512"; do
    [ -n "${runs[$k]:-}" ] && echo "- $k: ${runs[$k]}"
  done
} > "$work/md"
mkdir -p "$(dirname "$out")"
mv "$work/md" "$out"
cat "$out"
