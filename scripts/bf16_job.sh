#!/usr/bin/env bash
# --precision bf16 against full f32 on the whole MNIST job, in one run on
# this machine (the default CPU tier: onednn where it runs):
#   layer: `fsvc bench` of the 4096 x 4096 x 784 L2/Gaussian layer, best of
#     REPS runs per round;
#   train: `fsvc train` on MNIST with float preprocessing (PRE, deskew+sqrt:
#     f32 layers; the default auto keeps u8, which bf16 leaves alone);
#   predict: `fsvc predict` of the 10k test images with the model just
#     trained;
#   pcg H: `--solver pcg --max-neurons PCG_M --precision bf16`, the cached H
#     in f32 against bf16 (--pcg-h): iterations, times, accuracy;
#   chunk: one chunk of a pcg pass (scripts/chunk_bench.c: bnl_forward of
#     838 samples against 10000 x 784 centroids, least process CPU time),
#     the centroids held (their bf16 copy, norms and oneDNN packing kept
#     across chunks, as in training) or made per call; OLD_TREE=DIR adds
#     the same chunk from another built tree (DIR/build/libfsvc.a).
# Rounds interleave the configurations (the machine is shared); each time is
# the best over the rounds, wall seconds and CPU seconds (user + system).
# OLD=path/to/fsvc adds the same train and predict rows for another build
# (the one before the weights cache) in the same rounds.
# usage: scripts/bf16_job.sh [-o FILE] [MNIST_DIR]   (make first)
#   ROUNDS (2), REPS (5), PRE (deskew+sqrt), PCG_M (20000; 0 skips the pcg
#   rows), OLD, OLD_TREE (unset), JOB=0 skips train and predict. Exit 3
#   without the bf16 tiers here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
mnist=${1:-${MNIST_DIR:-$root/data/mnist}}
ROUNDS=${ROUNDS:-2}
REPS=${REPS:-5}
PRE=${PRE:-deskew+sqrt}
PCG_M=${PCG_M:-20000}
OLD=${OLD:-}
OLD_TREE=${OLD_TREE:-}
JOB=${JOB:-1}
FSVC=${FSVC:-$root/build/fsvc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libs="-lm -lpthread $(pkg-config --libs openblas lapacke zlib libpng libjpeg) -llapack"
[ "$(nm "$root/build/libfsvc.a" 2>/dev/null | grep -c ' U dnnl_')" -gt 0 ] && libs="$libs -ldnnl"
cc -O2 -std=c11 -fopenmp -I"$root" -o "$work/chunk" scripts/chunk_bench.c \
  "$root/build/libfsvc.a" $libs
if [ -n "$OLD_TREE" ]; then
  cc -O2 -std=c11 -fopenmp -DNO_HOLD -I"$OLD_TREE" -o "$work/chunk_old" scripts/chunk_bench.c \
    "$OLD_TREE/build/libfsvc.a" $libs
fi
if ! "$FSVC" info 2>/dev/null | grep -q '^cpu kernels: \(onednn\|avx512bf16\)'; then
  echo "bf16_job: no bf16 tier here (AVX-512 BF16)" >&2
  exit 3
fi
tier=$("$FSVC" info 2>/dev/null | sed -n 's/^cpu kernels: \([a-z0-9]*\).*/\1/p')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A wall cpu extra
source "$root/scripts/tier_lib.sh" # best, bestc, timed
ridge() { sed -n 's/^ridge: pcg, \(.*\)/\1/p' "$work/o"; }
accuracy() { sed -n 's/^Accuracy = \([0-9.]*%\).*/\1/p' "$work/o"; }
bins="new"
[ -n "$OLD" ] && bins="new old"
bin() { if [ "$1" = old ]; then echo "$OLD"; else echo "$FSVC"; fi; }
for ((r = 1; r <= ROUNDS; r++)); do
  for prec in full bf16; do
    k="layer $prec"
    res=$("$FSVC" bench --op rbf-l2 --dtype f32 --precision "$prec" -N 4096 -m 4096 -n 784 \
            --no-ref -r "$REPS" -v 2>&1)
    t=$(echo "$res" | sed -n 's/^  time: min \([0-9.e+-]*\) s.*/\1/p')
    [ -n "$t" ] || { echo "bf16_job: no time from $k: $res" >&2; exit 1; }
    best "$k" "$t"
    extra[$k]=$(echo "$res" | sed -n 's/^  plan: path=\([^ ]*\) kernel=\([^ ]*\).*/\1:\2/p')
    echo "bf16_job: round $r, $k: $t s" >&2
    for mode in unheld held old; do
      [ "$mode" = old ] && [ -z "$OLD_TREE" ] && continue
      k="chunk $prec $mode"
      c=$work/chunk; [ "$mode" = old ] && c=$work/chunk_old
      ms=$(OMP_WAIT_POLICY=passive "$c" 10000 838 784 "$REPS" "$prec" \
             "$([ "$mode" = held ] && echo held || echo unheld)" | sed -n 's/^cpu_ms=//p')
      [ -n "$ms" ] || { echo "bf16_job: no time from $k" >&2; exit 1; }
      bestc "$k" "$ms"
      echo "bf16_job: round $r, $k: $ms ms CPU" >&2
    done
    [ "$JOB" = 0 ] && continue
    for b in $bins; do
      k="train $prec $b"
      timed "$k" "$(bin "$b")" train "$mnist/train" "$work/$b-$prec.fsvc" --preprocess "$PRE" \
        --precision "$prec"
      extra[$k]=$(ridge)
      k="predict $prec $b"
      timed "$k" "$(bin "$b")" predict "$work/$b-$prec.fsvc" "$mnist/t10k"
      extra[$k]=$(accuracy)
    done
  done
done
if [ "$PCG_M" != 0 ]; then # once each: minutes, and their iterations do not vary
  for h in f32 bf16; do
    k="pcg $h"
    timed "$k" "$FSVC" train "$mnist/train" "$work/pcg-$h.fsvc" --preprocess "$PRE" \
      --precision bf16 --solver pcg --max-neurons "$PCG_M" --pcg-h "$h"
    extra[$k]=$(ridge)
    timed "$k predict" "$FSVC" predict "$work/pcg-$h.fsvc" "$mnist/t10k"
    extra[$k]="${extra[$k]}; accuracy $(accuracy)"
  done
fi
ratio() { awk "BEGIN{printf \"%.2f\", $1 / $2}"; }
report() {
  echo "# --precision bf16 on the whole MNIST job (CPU tier $tier)"
  echo
  echo "- command: \`scripts/bf16_job.sh${out:+ -o $out} $mnist\` (ROUNDS=$ROUNDS REPS=$REPS PRE=$PRE PCG_M=$PCG_M JOB=$JOB${OLD:+ OLD=$OLD}${OLD_TREE:+ OLD_TREE=$OLD_TREE})"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(grep -o 'amx_bf16\|avx512_vnni\|avx512_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "- load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared with other jobs: compare the ratios, measured in this run, interleaved)"
  echo
  echo "| what | full wall s | bf16 wall s | full / bf16 | full CPU s | bf16 CPU s | full / bf16 CPU | full | bf16 |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
  local a b
  echo "| layer 4096 x 4096 x 784 | ${wall[layer full]} | ${wall[layer bf16]} | $(ratio "${wall[layer full]}" "${wall[layer bf16]}") | | | | ${extra[layer full]} | ${extra[layer bf16]} |"
  for mode in unheld held old; do
    [ -n "${cpu[chunk full $mode]:-}" ] || continue
    a="chunk full $mode" b="chunk bf16 $mode"
    echo "| H chunk, W $mode (ms) | | | | ${cpu[$a]} | ${cpu[$b]} | $(ratio "${cpu[$a]}" "${cpu[$b]}") | | |"
  done
  local whats="train predict"
  [ "$JOB" = 0 ] && whats=""
  for w in $whats; do
    for bn in $bins; do
      a="$w full $bn" b="$w bf16 $bn"
      echo "| $w ($bn) | ${wall[$a]} | ${wall[$b]} | $(ratio "${wall[$a]}" "${wall[$b]}") | ${cpu[$a]} | ${cpu[$b]} | $(ratio "${cpu[$a]}" "${cpu[$b]}") | ${extra[$a]} | ${extra[$b]} |"
    done
  done
  echo
  echo "H chunk CPU ms, the same rounds: made per call / held: full $(ratio "${cpu[chunk full unheld]}" "${cpu[chunk full held]}"), bf16 $(ratio "${cpu[chunk bf16 unheld]}" "${cpu[chunk bf16 held]}")${OLD_TREE:+; old tree / held: full $(ratio "${cpu[chunk full old]:-0}" "${cpu[chunk full held]}"), bf16 $(ratio "${cpu[chunk bf16 old]:-0}" "${cpu[chunk bf16 held]}")}"
  if [ -n "$OLD" ] && [ "$JOB" != 0 ]; then
    echo
    echo "new / old, the same rounds (wall; CPU):"
    for w in train predict; do
      for prec in full bf16; do
        echo "- $w $prec: old / new $(ratio "${wall[$w $prec old]}" "${wall[$w $prec new]}"); CPU $(ratio "${cpu[$w $prec old]}" "${cpu[$w $prec new]}")"
      done
    done
  fi
  if [ "$PCG_M" != 0 ]; then
    echo
    echo "pcg with the cached H in f32 or bf16 (--pcg-h), --precision bf16 --solver pcg --max-neurons $PCG_M, one run each:"
    echo
    echo "| pcg H | train wall s | train CPU s | ridge | predict wall s |"
    echo "| --- | ---: | ---: | --- | ---: |"
    for h in f32 bf16; do
      echo "| $h | ${wall[pcg $h]} | ${cpu[pcg $h]} | ${extra[pcg $h]} | ${wall[pcg $h predict]} |"
    done
  fi
  echo
  echo "H chunk: scripts/chunk_bench.c, bnl_forward of 838 samples x 10000 centroids x 784"
  echo "(a chunk of pcg's first pass over MNIST), least process CPU time of $REPS calls per round;"
  echo "held: the centroids held (bf16 copy, norms, oneDNN packing kept); unheld: made per call${OLD_TREE:+; old: the build of $OLD_TREE}."
  echo "layer: fsvc bench --op rbf-l2 --dtype f32 -N 4096 -m 4096 -n 784 (best of $REPS per round,"
  echo "columns: path:kernel); train: MNIST train, --preprocess $PRE (columns: the pcg readout's"
  echo "seconds and iterations); predict: the 10k test images (columns: accuracy). Best of"
  echo "$ROUNDS rounds."
}
report
if [ -n "$out" ]; then report >"$out.tmp" && mv -f "$out.tmp" "$out"; fi
