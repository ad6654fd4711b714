#!/usr/bin/env bash
# The unit and Python suites under each OpenBLAS core and each fsvc kernel
# tier this machine can run: a bit-identity promise that holds only for
# some BLAS kernels fails here. Not part of make test (about 1.5 min per
# configuration on 2 cores); writes a table to stdout and, with -o FILE, a
# markdown report with the command, date and machine.
# usage: scripts/portability.sh [-o FILE] [CORES...]   (make tests first)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
cores=${*:-Prescott Haswell SkylakeX Zen Cooperlake}
make -s all tests test-data >/dev/null || { echo "portability: the build failed" >&2; exit 1; }
# the kernel tiers this CPU runs: those fsvc takes from FSVC_ARCH (not
# ref: it makes every context run the oracle, device contexts included,
# so the device and GEMM tests do not apply; the tests call it directly)
tiers=""
for t in scalar avx2 avxvnni avx512 avx512vnni avx512bf16 amx; do
  env FSVC_ARCH=$t build/fsvc info | grep -q "^cpu kernels: $t (FSVC_ARCH" && tiers="$tiers $t"
done
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
rows=() fails=0
# run LABEL ENV...: the unit tests and the Python tests under ENV
run() {
  local label=$1; shift
  local t0=$SECONDS u p
  env "$@" make -s --no-print-directory unit-test >"$log/u" 2>&1
  u=$(grep -E '^unit: ' "$log/u" | tail -n 1)
  env "$@" make -s --no-print-directory python-test >"$log/p" 2>&1
  p=$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$log/p" | tail -n 1 | sed 's/=//g; s/^ *//; s/ *$//')
  if ! grep -q ' 0 failed' <<<"$u" || grep -qE '(^|[^x])failed' <<<"$p" || [ -z "$p" ]; then
    fails=$((fails + 1))
    grep -E '^\[  FAILED  \] [a-z]|^FAIL' "$log/u" | sort -u | head -n 5 >&2
    grep -E '^FAILED ' "$log/p" | head -n 5 >&2
  fi
  rows+=("| $label | ${u#unit: } | ${p:-no summary} | $((SECONDS - t0)) |")
  echo "${rows[-1]}" >&2
}
for c in $cores; do run "OPENBLAS_CORETYPE=$c" OPENBLAS_CORETYPE=$c; done
for a in $tiers; do run "FSVC_ARCH=$a" FSVC_ARCH=$a; done
report() {
  echo "# The unit and Python suites under each OpenBLAS core and kernel tier"
  echo
  echo "- command: \`scripts/portability.sh${out:+ -o $out}${*:+ $*}\`"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; OpenBLAS's own core: $(env -u OPENBLAS_CORETYPE FSVC_BLAS_CORE=keep build/fsvc info | sed -n 's/^blas core: \([A-Za-z0-9]*\).*/\1/p')"
  echo
  echo "| environment | unit | Python | seconds |"
  echo "| --- | --- | --- | ---: |"
  printf '%s\n' "${rows[@]}"
}
report "$cores"
if [ -n "$out" ]; then report "$cores" >"$out.tmp" && mv -f "$out.tmp" "$out"; fi
[ "$fails" -eq 0 ]
