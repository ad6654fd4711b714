#!/usr/bin/env bash
# train_time.sh OLD_FSVC [MNIST_DIR] - the time of `fsvc train` on MNIST with
# the former 2-core preset (-s per-class -p 350: pcg readout over a float
# H, about 20700 centroids; the rates below assume that H), this tree's build against another one (OLD_FSVC: main's,
# built apart), and OLD_FSVC with FSVC_ARCH=avx512 (issue 24's baseline:
# today's kernels), in rounds that interleave the three (the machine is
# shared: compare the ratios of one run). Per run: wall and CPU seconds
# (user + system, /usr/bin/time), the readout's breakdown (the `ridge:` line:
# H first pass and K_mm, products, preconditioner: its Cholesky and the
# solves; builds before 174a8e6 add K_mm's engine seconds to it, those
# from 174a8e6 to 90bf196 the first pass's H^T T seconds), the Cholesky's
# own seconds (its progress line, printed on a
# terminal: the run goes through `script`), the iterations, and the test
# accuracy of the model (fsvc predict on t10k); from them the rates: GB/s
# of the cached H (N x m floats) the products stream (one product per
# iteration and per true residual: iterations + restarts + 1), GF/s of the
# Cholesky (m^3 / 3 flops), GB/s of the preconditioner's solves (4 passes
# over the factor's triangle, 2 m^2 bytes each, per iteration and restart;
# their seconds: preconditioner less the Cholesky). Writes OUT (default
# results/train_time.md) and OUT's .csv beside it.
# Environment: ROUNDS (3), FSVC (build/fsvc), OUT, RENDER_ONLY=1 (the .md
# from an existing .csv, no training).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
old=${1:?usage: train_time.sh OLD_FSVC [MNIST_DIR]}
mnist=${2:-$root/data/mnist}
ROUNDS=${ROUNDS:-3}
FSVC=${FSVC:-$root/build/fsvc}
OUT=${OUT:-results/train_time.md}
csv=${OUT%.md}.csv
opts='-s per-class -p 350 -r 0.5rms -l 1e-7'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# label|binary|environment
CONFIGS="new|$FSVC|
old|$old|
old-avx512|$old|FSVC_ARCH=avx512"
[ "${RENDER_ONLY:-0}" = 1 ] && ROUNDS=0 ||
  echo "round,config,wall_s,cpu_s,h_s,products_s,pre_s,chol_s,iterations,residual,accuracy,m,N,restarts" > "$csv"
for r in $(seq 1 "$ROUNDS"); do
  while IFS='|' read -r label bin envs; do
    log="$work/$label.$r.log" # stdin from /dev/null: not the loop's lines
    # shellcheck disable=SC2086 # opts and envs are words
    script -qec "env $envs /usr/bin/time -f 'TIME %e %U %S' $bin train $opts $mnist/train \
      $work/$label.fsvc" /dev/null < /dev/null > "$log" 2>&1
    tr '\r' '\n' < "$log" > "$log.t"
    read -r wall u s < <(sed -n 's/^TIME //p' "$log.t")
    cpu=$(echo "$u + $s" | bc)
    ridge=$(grep '^ridge: pcg' "$log.t")
    h=$(echo "$ridge" | sed -n 's/.*H \([0-9.]*\) s.*/\1/p')
    pr=$(echo "$ridge" | sed -n 's/.*products \([0-9.]*\) s.*/\1/p')
    pre=$(echo "$ridge" | sed -n 's/.*preconditioner \([0-9.]*\) s.*/\1/p')
    it=$(echo "$ridge" | sed -n 's/.*; \([0-9]*\) iterations.*/\1/p')
    res=$(echo "$ridge" | sed -n 's/.*relative residual \([0-9.e+-]*\).*/\1/p')
    chol=$(sed -n 's/.*Cholesky done in \([0-9.]*\) s.*/\1/p' "$log.t" | tail -1)
    m=$(sed -n 's/^centroids: \([0-9]*\).*/\1/p' "$log.t")
    N=$(sed -n 's/^data: .*, \([0-9]*\) x [0-9]* .*/\1/p' "$log.t")
    rs=$(grep -c ': restart [0-9]' "$log.t" || true)
    # shellcheck disable=SC2086
    acc=$(env $envs "$bin" predict "$work/$label.fsvc" "$mnist/t10k" "$work/p.csv" 2>&1 < /dev/null |
          sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
    echo "$r,$label,$wall,$cpu,$h,$pr,$pre,${chol:-},$it,$res,$acc,$m,$N,$rs" | tee -a "$csv" >&2
  done <<< "$CONFIGS"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
[ "${RENDER_ONLY:-0}" = 1 ] && load0="(not measured: RENDER_ONLY)" && load1=$load0
{
  echo "# fsvc train, MNIST 2-core preset: this build against main's"
  echo
  echo "- command: \`ROUNDS=$ROUNDS scripts/train_time.sh $old $mnist\` (this tree: \`$FSVC\`)"
  echo "- train: \`fsvc train $opts $mnist/train\`; accuracy: \`fsvc predict\` on t10k"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- layers fsvc || echo ' + changes')"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"
  echo "- load average $load0 at the start, $load1 at the end (shared with other jobs: compare the ratios of this run; rounds interleave new, old, old-avx512)"
  echo
  echo "| round | config | wall s | CPU s | H s | products s | preconditioner s | Cholesky s | iterations | restarts | residual | accuracy % | products GB/s | Cholesky GF/s | solves GB/s |"
  echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  awk -F, 'NR > 1 { np = $9 + $14 + 1; m = $12; n = $13
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %.0f | %.1f |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $14, $10, $11,
             np * n * m * 4 / $6 / 1e9, m * m * m / 3 / $8 / 1e9, ($9 + $14) * 8 * m * m / ($7 - $8) / 1e9 }' "$csv"
  echo
  echo "Medians over the rounds, and new / old of the medians:"
  echo
  echo "| config | wall s | CPU s | products s | preconditioner s | Cholesky s | new / config wall | new / config CPU |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  med() { awk -F, -v c="$1" -v k="$2" 'NR > 1 && $2 == c { print $k }' "$csv" | sort -g |
          awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  nw=$(med new 3); nc=$(med new 4)
  for c in new old old-avx512; do
    w=$(med $c 3); cp=$(med $c 4)
    printf "| %s | %s | %s | %s | %s | %s | %.2f | %.2f |\n" "$c" "$w" "$cp" "$(med $c 6)" \
      "$(med $c 7)" "$(med $c 8)" "$(echo "$nw / $w" | bc -l)" "$(echo "$nc / $cp" | bc -l)"
  done
  echo
  echo "H: the first pass (the layer) and K_mm; preconditioner: the Cholesky of K_mm +"
  echo "s I and the two triangular solves per iteration (pcg.c; builds before 174a8e6"
  echo "add K_mm's engine seconds, those from 174a8e6 to 90bf196 the first pass's H^T T"
  echo "seconds); Cholesky: its progress line. Written by scripts/train_time.sh."
} > "$OUT"
echo "wrote $OUT and $csv" >&2
