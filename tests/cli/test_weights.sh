#!/usr/bin/env bash
# Class weights (issue 14 point 7): -w LABEL WEIGHT (repeatable, as
# svm-train -w) and --class-weight balanced|LABEL:W,... for the ridge
# readout, direct and pcg solvers, -v K, PNG class names, mpirun.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IRIS=$UCI/iris.train
SAT=$UCI/satimg.train

# all weights 1: the same model bytes as no weights (both solvers)
for s in direct pcg; do
  "$FSVC" train -q --solver $s "$IRIS" none.fsvc >/dev/null 2>&1
  expect_exit 0 "$s: -w 1 1 -w 2 1 -w 3 1" -- "$FSVC" train -q --solver $s -w 1 1 -w 2 1 -w 3 1 "$IRIS" ones.fsvc
  cmp -s none.fsvc ones.fsvc && ok "$s: all weights 1 give the model bytes of no weights" \
    || fail "$s: all weights 1 change the model bytes"
  "$FSVC" train -q --solver $s --class-weight 1:1,3:1 "$IRIS" ones2.fsvc >/dev/null 2>&1
  cmp -s none.fsvc ones2.fsvc && ok "$s: --class-weight 1:1,3:1 = no weights" \
    || fail "$s: --class-weight 1:1,3:1 changes the model bytes"
  "$FSVC" train -q --solver $s -w 2 5 "$IRIS" five.fsvc >/dev/null 2>&1
  [ -s five.fsvc ] && ! cmp -s none.fsvc five.fsvc && ok "$s: -w 2 5 changes the model" \
    || fail "$s: -w 2 5 did not change the model"
done

# an imbalanced subset of satimg: class 4 keeps 1 sample in 8 (37 of 294)
awk '$1 != 4 || (n++ % 8 == 0)' "$SAT" > imb.txt
recall4() { "$FSVC" eval "$1" "$UCI/satimg.test" | awk '$1 == "4" && $3 ~ /%$/ { sub("%", "", $3); print $3; exit }'; }
"$FSVC" train -q imb.txt plain.fsvc >/dev/null 2>&1
expect_exit 0 "train --class-weight balanced (direct)" -- "$FSVC" train -q --solver direct --class-weight balanced imb.txt bal.fsvc
# the float H: the same system as direct's (auto's f16 H rounds it)
expect_exit 0 "train --class-weight balanced (pcg)" -- "$FSVC" train -q --solver pcg --pcg-h f32 --class-weight balanced imb.txt balp.fsvc
r0=$(recall4 plain.fsvc); r1=$(recall4 bal.fsvc)
if awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(b >= a + 20) }'; then
  ok "balanced raises the minority class's recall ($r0% -> $r1%)"
else fail "balanced: minority recall $r0% -> '$r1%' (wanted +20 points)"; fi
"$FSVC" predict bal.fsvc "$UCI/satimg.test" d.txt >/dev/null 2>&1
"$FSVC" predict balp.fsvc "$UCI/satimg.test" p.txt >/dev/null 2>&1
diff=$(paste d.txt p.txt | awk '$1 != $2' | wc -l)
[ -s d.txt ] && [ "$diff" -le 3 ] && ok "weighted direct and pcg predict alike ($diff of 3218 differ)" \
  || fail "weighted direct and pcg: $diff predictions differ"
# balanced = the explicit list N / (K N_k): N = 2960, K = 6
w=$(cut -d' ' -f1 imb.txt | sort | uniq -c | awk '{ printf "%s%s:%.17g", s, $2, 2960 / (6 * $1); s = "," }')
"$FSVC" train -q --solver direct --class-weight "$w" imb.txt list.fsvc >/dev/null 2>&1
cmp -s bal.fsvc list.fsvc && ok "balanced = LABEL:N/(K N_k) list ($w)" || fail "balanced differs from the list $w"

# -v K uses the weights: balanced changes the CV accuracy, weights 1 do not
cv() { "$FSVC" train -q -v 4 "$@" imb.txt; }
a=$(cv); b=$(cv -w 4 1); c=$(cv --class-weight balanced)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "-v 4: -w 4 1 gives the unweighted result ($a)" || fail "-v 4: '$a' vs -w 4 1 '$b'"
[ -n "$c" ] && [ "$a" != "$c" ] && ok "-v 4 uses the weights ($a vs balanced $c)" || fail "-v 4 balanced: '$c' (unweighted '$a')"

# bad inputs: one line, exit 1
bad() { # bad REGEX NAME -- ARGS...
  local re=$1 name=$2; shift 3
  expect_exit 1 "$name: exit 1" -- "$FSVC" train -q "$@"
  expect_match "$re" "$name: says so" "$ERR"
  expect_one_line "$name: one line" "$(echo "$ERR" | grep -v '^Try ')"
  [ ! -e x.fsvc ] && ok "$name: no model written" || { fail "$name: a model was written"; rm -f x.fsvc; }
}
bad "class weight for '9': no such class \(the classes are: 1 2 3\)" "unknown label" -- -w 9 2 "$IRIS" x.fsvc
bad "weight of class '1': '0' must be > 0" "weight 0" -- -w 1 0 "$IRIS" x.fsvc
bad "'-2' must be > 0" "negative weight" -- -w 1 -2 "$IRIS" x.fsvc
bad "'abc' is not a finite number" "weight not a number" -- -w 1 abc "$IRIS" x.fsvc
bad "'nan' is not a finite number" "weight nan" -- --class-weight 1:nan "$IRIS" x.fsvc
bad "'inf' is not a finite number" "weight inf" -- -w 1 inf "$IRIS" x.fsvc
bad "expected -w LABEL WEIGHT" "-w without a weight" -- "$IRIS" -w 1
bad "'1' is not LABEL:WEIGHT" "--class-weight 1" -- --class-weight 1 "$IRIS" x.fsvc
bad "the onehot readout cannot weight classes" "-w with -R onehot" -- -R onehot -w 1 2 "$IRIS" x.fsvc
bad "the lms readout cannot weight classes" "-w with -R lms" -- -R lms --class-weight balanced "$IRIS" x.fsvc
bad "class weights are for classification" "-w with --regression" -- --regression -w 1 2 "$IRIS" x.fsvc
bad "-w and --class-weight balanced: choose one" "-w after balanced" -- --class-weight balanced -w 1 2 "$IRIS" x.fsvc
bad "class '2' is given twice" "label twice" -- -w 2 2 -w 2 3 "$IRIS" x.fsvc
bad "sparse data does not support class weights" "sparse data" -- --sparse -w 1 2 "$IRIS" x.fsvc

# PNG class folders: the weight goes by the folder name (-w cat 2)
python3 - <<'PY'
import os, struct, zlib, random
from pngw import png
random.seed(1)
def img(k):
    return [min(255, (200 if (c < 4) == (k == 0) else 20) + random.randint(0, 40)) for r in range(8) for c in range(8)]
for k, name in enumerate(("cat", "dog")):
    os.makedirs("pets/" + name, exist_ok=True)
    for i in range(12):
        png("pets/%s/%02d.png" % (name, i), img(k), 8, 8)
PY
"$FSVC" train -q -r 300 --preprocess none pets p0.fsvc >/dev/null 2>&1
expect_exit 0 "PNG folders: -w cat 1 -w dog 1" -- "$FSVC" train -q -r 300 --preprocess none -w cat 1 -w dog 1 pets p1.fsvc
cmp -s p0.fsvc p1.fsvc && ok "PNG folders: weights 1 by class name = no weights" || fail "PNG folders: -w cat 1 -w dog 1 changed the model"
expect_exit 0 "PNG folders: -w cat 4" -- "$FSVC" train -q -r 300 --preprocess none -w cat 4 pets p2.fsvc
! cmp -s p0.fsvc p2.fsvc && ok "PNG folders: -w cat 4 weights the cats" || fail "PNG folders: -w cat 4 did nothing"
bad "class weight for 'bird': no such class \(the classes are: cat dog\)" "PNG folders: unknown class name" -- -r 300 -w bird 2 pets x.fsvc

# across processes: weights on K ranks give the one-process model's predictions
if command -v mpirun >/dev/null; then
  MPIRUN=(timeout -k 5 120 mpirun -q --bind-to none --oversubscribe --allow-run-as-root)
  for spec in "--class-weight balanced"; do # the class counts summed over the ranks
    # shellcheck disable=SC2086
    "$FSVC" train -q -r 1rms --solver direct $spec imb.txt one.fsvc >/dev/null 2>&1
    "$FSVC" predict one.fsvc "$UCI/satimg.test" one.txt >/dev/null 2>&1
    rm -f k.fsvc k.txt
    # shellcheck disable=SC2086
    "${MPIRUN[@]}" -np 2 "$FSVC" train -q -r 1rms --solver direct $spec imb.txt k.fsvc </dev/null >/dev/null 2>&1
    "$FSVC" predict k.fsvc "$UCI/satimg.test" k.txt >/dev/null 2>&1
    [ -s one.txt ] && cmp -s one.txt k.txt && ok "mpirun -np 2 $spec: predictions of one process" \
      || fail "mpirun -np 2 $spec: predictions differ from one process"
  done
else
  fail "mpirun not found: install openmpi-bin libopenmpi-dev (make deps)"
fi
