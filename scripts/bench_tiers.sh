#!/usr/bin/env bash
# bench_tiers.sh FSVC OUTDIR - issue 24's CPU tiers on one layer shape
# (default 4096 x 4096 x 784, all cores): today's u8 kernels (FSVC_ARCH=
# avx512), the int8 GEMM tier (avx512vnni), the f32 path (OpenBLAS sgemm
# with the environment's OPENBLAS_CORETYPE, and with SkylakeX, its AVX-512
# kernels), where the CPU has AVX-VNNI the 256-bit avxvnni tier against
# avx2, and the bf16 layer (--precision bf16: emulated on avx512vnni,
# vdpbf16ps on avx512bf16), where built the onednn tier's f32 and bf16
# products, L2/Gaussian and dot (MUL).
# The machine is shared: every configuration runs once per round, rounds
# interleaved (A/B/A/B), and each figure is the median over the rounds of
# `fsvc bench` minimum wall time (-r 3) and of its CPU-time t_syn; ratios
# are of those medians, all measured in this one run.
# Writes OUTDIR/tiers-cpu.csv (every run) and OUTDIR/tiers-cpu.md.
# Environment: ROUNDS (default 5), SHAPE ("-m 4096 -N 4096 -n 784"),
# THREADS (default 0: all cores), ONLY (a regex of labels to run).
set -uo pipefail
fsvc=${1:?usage: bench_tiers.sh FSVC OUTDIR}
out=${2:?usage: bench_tiers.sh FSVC OUTDIR}
ROUNDS=${ROUNDS:-5}
SHAPE=${SHAPE:--m 4096 -N 4096 -n 784}
THREADS=${THREADS:-0}
ONLY=${ONLY:-.}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# label | environment | bench options
configs=(
  "u8-l2-avx512|FSVC_ARCH=avx512|--op rbf-l2 --dtype u8"
  "u8-l2-avx512vnni|FSVC_ARCH=avx512vnni|--op rbf-l2 --dtype u8"
  "f32-l2-sgemm|FSVC_ARCH=avx512vnni|--op rbf-l2 --dtype f32"
  "f32-l2-sgemm-skx|FSVC_ARCH=avx512vnni OPENBLAS_CORETYPE=SkylakeX|--op rbf-l2 --dtype f32"
  "u8-dot-avx512|FSVC_ARCH=avx512|--op mul --dtype u8"
  "u8-dot-avx512vnni|FSVC_ARCH=avx512vnni|--op mul --dtype u8"
)
# speed-ups reported: new over old
pairs=(
  "u8-l2-avx512vnni u8-l2-avx512" "u8-l2-avx512vnni f32-l2-sgemm" "u8-l2-avx512vnni f32-l2-sgemm-skx"
  "u8-l2-avx512 f32-l2-sgemm" "u8-dot-avx512vnni u8-dot-avx512"
)
if grep -q ' avx_vnni' /proc/cpuinfo; then # the 256-bit tier (CPUs without AVX-512)
  configs+=("u8-l2-avx2|FSVC_ARCH=avx2|--op rbf-l2 --dtype u8"
            "u8-l2-avxvnni|FSVC_ARCH=avxvnni|--op rbf-l2 --dtype u8")
  pairs+=("u8-l2-avxvnni u8-l2-avx2")
fi
if "$fsvc" bench --help | grep -q -- '--precision'; then
  configs+=(
    "f32-l2-bf16-emulated|FSVC_ARCH=avx512vnni|--op rbf-l2 --dtype f32 --precision bf16"
    "f32-l2-bf16-avx512bf16|FSVC_ARCH=avx512bf16|--op rbf-l2 --dtype f32 --precision bf16"
  )
  pairs+=("f32-l2-bf16-avx512bf16 f32-l2-sgemm" "f32-l2-bf16-avx512bf16 f32-l2-sgemm-skx"
          "f32-l2-bf16-avx512bf16 f32-l2-bf16-emulated")
fi

# the onednn tier (built with libdnnl-dev, a CPU with AVX-512 BF16): its
# f32 and bf16 products
if FSVC_ARCH=onednn "$fsvc" info 2>/dev/null | grep -q '^cpu kernels: onednn (FSVC_ARCH'; then
  configs+=("f32-l2-onednn|FSVC_ARCH=onednn|--op rbf-l2 --dtype f32"
            "f32-l2-bf16-onednn|FSVC_ARCH=onednn|--op rbf-l2 --dtype f32 --precision bf16")
  pairs+=("f32-l2-onednn f32-l2-sgemm" "f32-l2-bf16-onednn f32-l2-sgemm")
fi

# the amx tier (AMX tiles granted by Linux): u8 L2 and dot on tdpbuud
if FSVC_ARCH=amx "$fsvc" info 2>/dev/null | grep -q '^cpu kernels: amx (FSVC_ARCH'; then
  configs+=("u8-l2-amx|FSVC_ARCH=amx|--op rbf-l2 --dtype u8"
            "u8-dot-amx|FSVC_ARCH=amx|--op mul --dtype u8")
  pairs+=("u8-l2-amx u8-l2-avx512" "u8-l2-amx u8-l2-avx512vnni" "u8-l2-amx f32-l2-sgemm"
          "u8-dot-amx u8-dot-avx512")
fi

echo "round,label,environment,command,t_min_s,cpu_t_syn_ns,kernel,load1" > "$work/runs.csv"
for ((r = 1; r <= ROUNDS; r++)); do
  for c in "${configs[@]}"; do
    IFS='|' read -r label envs opts <<<"$c"
    [[ $label =~ $ONLY ]] || continue
    # shellcheck disable=SC2086
    cmd="$fsvc bench $opts $SHAPE --threads $THREADS --no-ref -r 3 -v"
    if ! res=$(env $envs $cmd 2>&1); then
      echo "bench_tiers: $label failed: $(echo "$res" | tail -n 1)" >&2
      continue
    fi
    t=$(echo "$res" | sed -n 's/^  time: min \([0-9.e+-]*\) s.*/\1/p')
    ct=$(echo "$res" | sed -n 's/^  CPU-time t_syn = \([0-9.e+-]*\) ns.*/\1/p')
    k=$(echo "$res" | sed -n 's/^  plan: path=\([^ ]*\) kernel=\([^ ]*\).*/\1:\2/p')
    l=$(cut -d' ' -f1 /proc/loadavg)
    echo "$r,$label,$envs,fsvc bench $opts $SHAPE --threads $THREADS --no-ref -r 3 -v,$t,$ct,$k,$l" \
      >> "$work/runs.csv"
    echo "bench_tiers: round $r $label: t_min $t s, CPU-time t_syn $ct ns ($k)" >&2
  done
done

# medians per label, ratios to the baseline's medians
summary=$(awk -F, 'NR > 1 { n[$2]++; t[$2, n[$2]] = $5; c[$2, n[$2]] = $6; k[$2] = $7 }
  function med(a, l, m,   i, j, v, x, tmp) {
    for (i = 1; i <= m; i++) v[i] = a[l, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
    return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
  }
  END { for (l in n) printf "%s %s %s %s %d\n", l, med(t, l, n[l]), med(c, l, n[l]), k[l], n[l] }' \
  "$work/runs.csv")
{
  echo "# CPU tiers (issue 24): one layer, every tier, one run"
  echo
  echo "- command: scripts/bench_tiers.sh $fsvc $out (ROUNDS=$ROUNDS SHAPE='$SHAPE' THREADS=$THREADS)"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores," \
    "family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1);" \
    "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx512f|avx512bw|avx512_vnni|avx512_bf16|avx_vnni|amx_tile|amx_int8|amx_bf16)$' | tr '\n' ' ')"
  echo "- environment: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} (rows marked skx set SkylakeX)"
  echo "- load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (shared machine: compare ratios, not times)"
  echo
  echo "Medians over the rounds of fsvc bench's minimum wall time (-r 3) and of its"
  echo "CPU-time t_syn (CPU seconds / threads / synapses)."
  echo
  echo "| config | environment | runs on | rounds | t_min median s | CPU t_syn median ns |"
  echo "|---|---|---|---|---|---|"
  for c in "${configs[@]}"; do
    IFS='|' read -r label envs opts <<<"$c"
    line=$(echo "$summary" | awk -v l="$label" '$1 == l')
    [ -n "$line" ] || continue
    read -r _ t ct k nr <<<"$line"
    printf '| %s | %s | %s | %s | %.4f | %.5f |\n' "$label" "$envs" "$k" "$nr" "$t" "$ct"
  done
  echo
  echo "Speed-ups (old / new, of the medians above; above 1: new is faster):"
  echo
  echo "| new | old | wall | CPU time |"
  echo "|---|---|---|---|"
  for p in "${pairs[@]}"; do
    read -r a b <<<"$p"
    la=$(echo "$summary" | awk -v l="$a" '$1 == l')
    lb=$(echo "$summary" | awk -v l="$b" '$1 == l')
    [ -n "$la" ] && [ -n "$lb" ] || continue
    read -r _ ta ca _ _ <<<"$la"
    read -r _ tb cb _ _ <<<"$lb"
    awk -v a="$a" -v b="$b" -v ta="$ta" -v ca="$ca" -v tb="$tb" -v cb="$cb" \
      'BEGIN { printf "| %s | %s | %.2fx | %.2fx |\n", a, b, tb / ta, cb / ca }'
  done
  echo
  echo "Every run: tiers-cpu.csv."
} > "$work/tiers-cpu.md"
mv "$work/runs.csv" "$out/tiers-cpu.csv"
mv "$work/tiers-cpu.md" "$out/tiers-cpu.md"
cat "$out/tiers-cpu.md"
