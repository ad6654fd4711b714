#!/usr/bin/env bash
# fsvc train --sample-weights FILE (issue 27 item 14): one weight a line;
# weights of 1 are no weights (model bytes), integer weights are repeated
# samples (same predictions), dense and sparse; each bad file is one
# line naming the file and the line, exit 2, no model written.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IRIS=$UCI/iris.train
N=$(wc -l < "$IRIS")

yes 1 | head -n "$N" > ones.txt
awk '{ print NR % 3 + 1 }' "$IRIS" > w.txt
for s in dense sparse; do
  "$FSVC" train -q --$s "$IRIS" none.fsvc >/dev/null 2>&1
  expect_exit 0 "$s: --sample-weights of ones" -- "$FSVC" train -q --$s --sample-weights ones.txt "$IRIS" ones.fsvc
  cmp -s none.fsvc ones.fsvc && ok "$s: weights of 1 give the model bytes of no weights" \
    || fail "$s: weights of 1 change the model bytes"
  expect_exit 0 "$s: --sample-weights 1..3" -- "$FSVC" train -q --$s --sample-weights w.txt "$IRIS" w.fsvc
  [ -s w.fsvc ] && ! cmp -s none.fsvc w.fsvc && ok "$s: weights change the model" \
    || fail "$s: weights did not change the model"
done

# integer weights = the samples repeated: copies appended after the data
# are never novel (global selection, given radius), so the same centroids
# and, to float64 rounding, the same readout scores
awk 'NR == FNR { w[FNR] = $1; next } { print; for (c = 1; c < w[FNR]; c++) extra = extra $0 "\n" }
     END { printf "%s", extra }' w.txt "$IRIS" > rep.txt
maxdiff() { paste -d' ' "$1" "$2" | awk 'NR > 1 { h = NF / 2; for (k = 2; k <= h; k++) {
  d = $k - $(k + h); if (d < 0) d = -d; if (d > m) m = d } } END { printf "%.3g", m + 0 }'; }
# (pcg: the dense and sparse products weighted; to its tolerance)
for s in dense sparse sparse-pcg dense-pcg; do
  opts="-q -s global -r 1.5 --solver direct --${s%-pcg}" tol=1e-6
  [ $s = dense ] && opts="$opts --dtype f64"
  [ $s = sparse-pcg ] && opts="-q -s global -r 1.5 --solver pcg --sparse" tol=1e-4
  [ $s = dense-pcg ] && opts="-q -s global -r 1.5 --solver pcg --dense --dtype f64" tol=1e-4
  "$FSVC" train $opts --sample-weights w.txt "$IRIS" a.fsvc >/dev/null 2>&1
  "$FSVC" train $opts rep.txt b.fsvc >/dev/null 2>&1
  "$FSVC" predict -q --decision-values a.fsvc "$UCI/iris.test" pa.txt >/dev/null 2>&1
  "$FSVC" predict -q --decision-values b.fsvc "$UCI/iris.test" pb.txt >/dev/null 2>&1
  d=$(maxdiff pa.txt pb.txt)
  [ -s pa.txt ] && awk -v d="$d" -v t=$tol 'BEGIN { exit !(d <= t) }' \
    && ok "$s: integer weights score as the repeated samples (max difference $d)" \
    || fail "$s: integer weights and repeated samples score differently (max difference $d)"
done

expect_exit 0 "-v 5 with weights" -- "$FSVC" train -q -v 5 --sample-weights w.txt "$IRIS"
expect_match "Cross Validation Accuracy" "-v 5 with weights: prints the accuracy" "$OUT"
expect_exit 0 "-b 1 with weights" -- "$FSVC" train -q -b 1 --sample-weights w.txt "$IRIS" b1.fsvc
expect_exit 0 "--regression with weights" -- "$FSVC" train -q --regression --sample-weights w.txt "$IRIS" r.fsvc

# bad files: exit 2 (bad input), one line naming the file (and the line)
bad() { # bad REGEX NAME FILE
  expect_exit 2 "$2: exit 2" -- "$FSVC" train -q --sample-weights "$3" "$IRIS" x.fsvc
  expect_match "$1" "$2: says so" "$ERR"
  expect_one_line "$2: one line" "$ERR"
  [ ! -e x.fsvc ] && ok "$2: no model written" || { fail "$2: a model was written"; rm -f x.fsvc; }
}
bad "nope.txt: cannot open: No such file" "missing file" nope.txt
head -n 5 w.txt > short.txt
bad "short.txt: 5 weights \(lines\) for the $N samples of .*iris.train" "too few lines" short.txt
{ cat w.txt; echo 1; } > long.txt
bad "long.txt line $((N + 1)): more weights than the $N samples" "too many lines" long.txt
sed '7s/.*/abc/' w.txt > word.txt
bad "word.txt line 7: 'abc' is not a number" "not a number" word.txt
sed '7s/.*//' w.txt > empty.txt
bad "empty.txt line 7: '' is not a number" "empty line" empty.txt
sed '9s/.*/0/' w.txt > zero.txt
bad "zero.txt line 9: '0' is not a weight \(each must be finite and > 0\)" "weight 0" zero.txt
sed '9s/.*/-2/' w.txt > neg.txt
bad "neg.txt line 9: '-2' is not a weight" "negative weight" neg.txt
sed '9s/.*/inf/' w.txt > inf.txt
bad "inf.txt line 9: 'inf' is not a weight" "infinite weight" inf.txt
sed '9s/.*/nan/' w.txt > nan.txt
bad "nan.txt line 9: 'nan' is not a weight" "NaN weight" nan.txt

# the onehot readout fits nothing: weights are a usage error there
expect_exit 1 "-R onehot with weights: exit 1" -- "$FSVC" train -q -R onehot --sample-weights w.txt "$IRIS" x.fsvc
expect_match "sample weights need a readout that is fitted \(-R ridge or lms\)" "-R onehot with weights: says so" "$ERR"
expect_one_line "-R onehot with weights: one line" "$ERR"
expect_exit 0 "-R onehot with weights of 1 (no weights)" -- "$FSVC" train -q -R onehot --sample-weights ones.txt "$IRIS" x.fsvc
expect_exit 0 "-R lms with weights" -- "$FSVC" train -q -R lms --sample-weights w.txt "$IRIS" l.fsvc
rm -f x.fsvc

# svm-train -W FILE (LIBSVM's weights variant): pointed to --sample-weights
expect_exit 1 "-W FILE: exit 1" -- "$FSVC" train -W w.txt "$IRIS" x.fsvc
expect_match "unknown option -W: .*--sample-weights FILE" "-W FILE: names --sample-weights" "$ERR"

# across processes: each rank keeps its slice of the file; the model
# scores as one process's (float64 rounding of the summed H^T D H)
if command -v mpirun >/dev/null; then
  MPIRUN=(timeout -k 5 120 mpirun -q --bind-to none --oversubscribe --allow-run-as-root)
  for mode in "" --regression; do
    opts="-q -r 1.5 --solver direct --dtype f64 $mode"
    # shellcheck disable=SC2086
    "$FSVC" train $opts --sample-weights w.txt "$IRIS" one.fsvc >/dev/null 2>&1
    rm -f k.fsvc
    # shellcheck disable=SC2086
    "${MPIRUN[@]}" -np 2 "$FSVC" train $opts --sample-weights w.txt "$IRIS" k.fsvc </dev/null >/dev/null 2>&1
    dv=--decision-values; [ -n "$mode" ] && dv= # regression: the values
    # shellcheck disable=SC2086
    "$FSVC" predict -q $dv one.fsvc "$UCI/iris.test" p1.txt >/dev/null 2>&1
    # shellcheck disable=SC2086
    "$FSVC" predict -q $dv k.fsvc "$UCI/iris.test" pk.txt >/dev/null 2>&1
    if [ -n "$mode" ]; then
      d=$(paste -d' ' p1.txt pk.txt | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3g", m + 0 }')
    else d=$(maxdiff p1.txt pk.txt); fi
    [ -s pk.txt ] && awk -v d="$d" 'BEGIN { exit !(d <= 1e-9) }' \
      && ok "mpirun -np 2 ${mode:-classes}: weights score as one process (max difference $d)" \
      || fail "mpirun -np 2 ${mode:-classes}: scores differ from one process by $d"
  done
else
  fail "mpirun not found: install openmpi-bin libopenmpi-dev (make deps)"
fi
