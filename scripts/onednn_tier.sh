#!/usr/bin/env bash
# The onednn tier (f32 and bf16 layer products on oneDNN's matmul) against
# the tier below it, today's paths (avx512bf16: OpenBLAS sgemm for f32, the
# vdpbf16ps kernel for bf16), in one run on this machine:
#   layer: `fsvc bench` of the 4096 x 4096 x 784 L2/Gaussian layer, f32 and
#     --precision bf16, best of REPS runs per round;
#   job: `fsvc train` on MNIST with float preprocessing (deskew+sqrt: f32
#     layers; the default auto is u8, which the tier leaves alone), full and
#     --precision bf16, then `fsvc predict` of the 10k test images with the
#     model just trained, on the same tier.
# Rounds interleave the configurations (the machine is shared); each figure
# is the best over rounds, wall seconds and CPU seconds (user + system:
# less sensitive to other jobs on the machine), ratios new / old of those.
# usage: scripts/onednn_tier.sh [-o FILE] [MNIST_DIR]   (make first)
#   ROUNDS (3) layer rounds, JOB_ROUNDS (3) job rounds, REPS (5), JOB=0 skips
#   the job, PRE (deskew+sqrt) its preprocessing. Exit 3 when the onednn tier is not available here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
mnist=${1:-${MNIST_DIR:-$root/data/mnist}}
ROUNDS=${ROUNDS:-3}
JOB_ROUNDS=${JOB_ROUNDS:-3}
REPS=${REPS:-5}
JOB=${JOB:-1}
PRE=${PRE:-deskew+sqrt} # the float preprocessing of the job
FSVC=${FSVC:-$root/build/fsvc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! FSVC_ARCH=onednn "$FSVC" info 2>/dev/null | grep -q '^cpu kernels: onednn (FSVC_ARCH'; then
  echo "onednn_tier: no onednn tier here (build with libdnnl-dev, a CPU with AVX-512 BF16)" >&2
  exit 3
fi
load0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A wall cpu extra
source "$root/scripts/tier_lib.sh" # best, bestc, timed
# layer: wall = bench's best of REPS; cpu = CPU-time t_syn x synapses x threads
for ((r = 1; r <= ROUNDS; r++)); do
  for prec in full bf16; do
    for arch in onednn avx512bf16; do
      k="layer $prec $arch"
      res=$(FSVC_ARCH=$arch "$FSVC" bench --op rbf-l2 --dtype f32 --precision "$prec" \
              -N 4096 -m 4096 -n 784 --no-ref -r "$REPS" -v 2>&1)
      t=$(echo "$res" | sed -n 's/^  time: min \([0-9.e+-]*\) s.*/\1/p')
      ts=$(echo "$res" | sed -n 's/^  CPU-time t_syn = \([0-9.e+-]*\) ns.*/\1/p')
      th=$(echo "$res" | sed -n 's/^  plan: .* threads=\([0-9]*\).*/\1/p')
      extra[$k]=$(echo "$res" | sed -n 's/^  plan: path=\([^ ]*\) kernel=\([^ ]*\).*/\1:\2/p')
      [ -n "$t" ] && [ -n "$ts" ] || { echo "onednn_tier: no time from $k: $res" >&2; exit 1; }
      best "$k" "$t"
      bestc "$k" "$(awk "BEGIN{printf \"%.6f\", $ts * 4096 * 4096 * 784 * $th / 1e9}")"
      echo "onednn_tier: round $r, $k: $t s" >&2
    done
  done
done
declare -A hsec
if [ "$JOB" != 0 ]; then
  for ((r = 1; r <= JOB_ROUNDS; r++)); do
    for prec in full bf16; do
      for arch in onednn avx512bf16; do
        k="train $prec $arch"
        FSVC_ARCH=$arch timed "$k" "$FSVC" train "$mnist/train" "$work/m.fsvc" \
          --preprocess "$PRE" --precision "$prec"
        h=$(sed -n 's/^ridge: .* H \([0-9.]*\) s.*/\1/p' "$work/o")
        [ -n "$h" ] && { [ -z "${hsec[$k]:-}" ] || awk "BEGIN{exit !($h < ${hsec[$k]})}"; } &&
          hsec[$k]=$h
        extra[$k]="H ${hsec[$k]:-?} s"
        FSVC_ARCH=$arch timed "predict $prec $arch" "$FSVC" predict "$work/m.fsvc" "$mnist/t10k"
        extra["predict $prec $arch"]=$(sed -n 's/^Accuracy = \([0-9.]*%\).*/\1/p' "$work/o")
      done
    done
  done
fi
report() {
  echo "# The onednn tier against today's paths (avx512bf16 tier)"
  echo
  echo "- command: \`scripts/onednn_tier.sh${out:+ -o $out} $mnist\` (ROUNDS=$ROUNDS JOB_ROUNDS=$JOB_ROUNDS REPS=$REPS PRE=$PRE)"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(grep -o 'amx_int8\|avx512_vnni\|avx512_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "- load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared with other jobs: compare the ratios, measured in this run)"
  echo "- oneDNN $(dpkg-query -W -f='${Version}' libdnnl-dev 2>/dev/null || echo '?'); OpenBLAS core ${OPENBLAS_CORETYPE:-as detected}"
  echo "- new: FSVC_ARCH=onednn (the default where it runs); old: FSVC_ARCH=avx512bf16"
  echo
  echo "| what | precision | new wall s | old wall s | old / new | new CPU s | old CPU s | old / new CPU | new | old |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
  local whats="layer"
  [ "$JOB" != 0 ] && whats="layer train predict"
  for w in $whats; do
    for prec in full bf16; do
      local a="$w $prec onednn" b="$w $prec avx512bf16"
      echo "| $w | $prec | ${wall[$a]} | ${wall[$b]} | $(awk "BEGIN{printf \"%.2f\", ${wall[$b]}/${wall[$a]}}") | ${cpu[$a]} | ${cpu[$b]} | $(awk "BEGIN{printf \"%.2f\", ${cpu[$b]}/${cpu[$a]}}") | ${extra[$a]:-} | ${extra[$b]:-} |"
    done
  done
  echo
  echo "layer: fsvc bench --op rbf-l2 --dtype f32 -N 4096 -m 4096 -n 784 (wall: best of $REPS per round;"
  echo "CPU: bench's CPU-time t_syn x synapses x threads); train: MNIST train, --preprocess"
  echo "$PRE (columns new/old: the readout's seconds of H, best of the rounds; the rest of"
  echo "training, pcg products and preconditioner, does not run on the layer's product); predict:"
  echo "the 10k test images (columns new/old: accuracy)."
}
report
if [ -n "$out" ]; then report >"$out.tmp" && mv -f "$out.tmp" "$out"; fi
