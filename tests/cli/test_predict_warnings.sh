#!/usr/bin/env bash
# predict and eval warn once on stderr when the data does not match the
# model (issue 14 point 14): fewer features (taken as 0, LIBSVM's rule:
# not with -q), more features (ignored: results may be wrong, so even with
# -q), labels the model never saw (counted as errors: even with -q).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
"$FSVC" train -q "$UCI/iris.train" ir.fsvc >/dev/null 2>&1 || fail "train iris"
cut -d' ' -f1-3 "$UCI/iris.test" > few.txt             # features 1, 2 of 4
awk '{ print $0, "9:1" }' "$UCI/iris.test" > more.txt  # a feature 9
sed 's/^1 /7 /' "$UCI/iris.test" > lab.txt             # label 7: unknown

# warns NAME REGEX -- CMD...: exactly one line on stderr, matching REGEX
warns() {
  local name=$1 re=$2; shift 3
  expect_exit 0 "$name: exit 0" -- "$@"
  expect_match "$re" "$name: warns" "$ERR"
  expect_one_line "$name: one warning line" "$ERR"
}
# silent NAME -- CMD...: nothing on stderr
silent() {
  local name=$1; shift 2
  expect_exit 0 "$name: exit 0" -- "$@"
  [ -z "$ERR" ] && ok "$name: no warning" || fail "$name: stderr: $ERR"
}

few='warning: few.txt: 2 features, the model has 4: features 3 to 4 taken as 0'
more='warning: more.txt: 50 values at features 9 and above ignored: the model has 4 features'
lab='warning: lab.txt: 16 of 50 samples have a label the model does not know'
warns "predict, fewer features" "^fsvc predict: $few" -- "$FSVC" predict ir.fsvc few.txt o.txt
silent "predict -q, fewer features" -- "$FSVC" predict -q ir.fsvc few.txt o.txt
warns "predict, more features" "^fsvc predict: $more" -- "$FSVC" predict ir.fsvc more.txt o.txt
warns "predict -q, more features" "^fsvc predict: $more" -- "$FSVC" predict -q ir.fsvc more.txt o.txt
warns "predict, unknown label" "^fsvc predict: $lab \(first: 7" -- "$FSVC" predict ir.fsvc lab.txt o.txt
warns "predict -q, unknown label" "^fsvc predict: $lab" -- "$FSVC" predict -q ir.fsvc lab.txt o.txt
warns "eval, fewer features" "^fsvc eval: $few" -- "$FSVC" eval ir.fsvc few.txt
warns "eval, more features" "^fsvc eval: $more" -- "$FSVC" eval ir.fsvc more.txt
warns "eval, unknown label" "^fsvc eval: $lab" -- "$FSVC" eval ir.fsvc lab.txt
expect_match "16 samples have a label the model does not know" "eval: the report says it too" "$OUT"
silent "predict, matching data" -- "$FSVC" predict ir.fsvc "$UCI/iris.test" o.txt
silent "eval, matching data" -- "$FSVC" eval ir.fsvc "$UCI/iris.test"
# one feature short: "feature 4"
cut -d' ' -f1-4 "$UCI/iris.test" > three.txt
warns "predict, one feature short" "features, the model has 4: feature 4 taken as 0" -- "$FSVC" predict ir.fsvc three.txt o.txt
