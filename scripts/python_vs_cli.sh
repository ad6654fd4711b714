#!/usr/bin/env bash
# The CLI and Python on the same job: the MNIST default model trained on
# the 60k set and the 10k test set predicted, by `fsvc train`/`fsvc
# predict` and by FSVCClassifier().fit/predict in one Python process, in
# turn REPS times (this machine is shared: the ratio of each pair is the
# figure, not the seconds). Times are each side's own: the CLI's "total"
# and "predicted ... in" lines, Python's around fit() and predict(), so
# loading the files counts on neither side. Also which OpenBLAS core each
# ran (fsvc info; fsvc.blas_core()). Writes markdown to stdout and, with
# -o FILE, to FILE.   usage: scripts/python_vs_cli.sh [-o FILE]   (make first)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
REPS=${REPS:-3}
FSVC=$root/build/fsvc
PY=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=()
for r in $(seq "$REPS"); do
  echo "python_vs_cli: pair $r of $REPS" >&2
  "$FSVC" train data/mnist/train "$work/m.fsvc" >"$work/t.txt" 2>&1
  "$FSVC" predict "$work/m.fsvc" data/mnist/t10k "$work/p.txt" >"$work/pr.txt" 2>&1
  ct=$(sed -n 's/^time: .*total \([0-9.]*\) s$/\1/p' "$work/t.txt")
  cp=$(sed -n 's/^predicted [0-9]* samples in \([0-9.]*\) s.*/\1/p' "$work/pr.txt")
  ca=$(sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$work/pr.txt")
  read -r pt pp pa pcore < <(PYTHONPATH=python FSVC_LIBRARY=build/libfsvc.so "$PY" - <<'P'
import time
import fsvc
X, y = fsvc.load_idx("data/mnist/train")
Xt, yt = fsvc.load_idx("data/mnist/t10k")
t = time.perf_counter(); clf = fsvc.FSVCClassifier().fit(X, y); fit = time.perf_counter() - t
t = time.perf_counter(); p = clf.predict(Xt); pred = time.perf_counter() - t
print("%.3f %.3f %.2f %s" % (fit, pred, 100 * (p == yt).mean(), fsvc.blas_core()[0]))
P
)
  rows+=("| $r | $ct | $pt | $(awk "BEGIN{printf \"%.3f\", $pt/$ct}") | $cp | $pp | $(awk "BEGIN{printf \"%.3f\", $pp/$cp}") | $ca / $pa |")
done
ccore=$("$FSVC" info | sed -n 's/^blas core: \(.*\); GEMM.*/\1/p')
med() { printf '%s\n' "${rows[@]}" | awk -F'|' -v c="$1" '{print $c}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
report() {
  echo "# The CLI and Python on the MNIST default model"
  echo
  local envs=""
  for v in OPENBLAS_CORETYPE FSVC_BLAS_CORE FSVC_BLAS_CORE_PRETEND FSVC_ARCH; do
    [ -n "${!v:-}" ] && envs="$envs$v=${!v} "
  done
  echo "- command: \`${envs}scripts/python_vs_cli.sh${out:+ -o $out}\` (REPS=$REPS)"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared: compare the ratios)"
  echo "- OpenBLAS core: CLI $ccore; Python $pcore"
  echo
  echo "| pair | CLI train (s) | Python fit (s) | fit ratio | CLI predict 10k (s) | Python predict (s) | predict ratio | accuracy CLI / Python (%) |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Median ratios Python / CLI: fit $(med 5), predict $(med 8)."
}
report
if [ -n "$out" ]; then report >"$out.tmp" && mv -f "$out.tmp" "$out"; fi
