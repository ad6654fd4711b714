# CLI tests of `fsvc predict -b 1` (class probabilities, svm-predict -b 1
# layout) and `--decision-values` (readout scores), on a tiny LIBSVM set.
source "$(dirname "$0")/lib.sh"

# three classes (labels 1 2 3) in 2-D, 60 samples
awk 'BEGIN { srand(3); for (i = 0; i < 60; i++) { c = i % 3;
  printf "%d 1:%.4f 2:%.4f\n", c + 1, c * 2 + rand() * 0.8, (c == 1) * 2 + rand() * 0.8 } }' \
  > "$TMP/t.libsvm"
awk '{ print ($2 ~ /^1:/ ? substr($2, 3) : 0) * 1.5, $2, $3 }' "$TMP/t.libsvm" > "$TMP/r.libsvm"

expect_exit 0 "train a 3-class model" -- "$FSVC" train -q "$TMP/t.libsvm" "$TMP/m.fsvc"
expect_exit 0 "predict labels" -- "$FSVC" predict -q "$TMP/m.fsvc" "$TMP/t.libsvm" "$TMP/lab.txt"

expect_exit 0 "predict -b 1" -- "$FSVC" predict -b 1 "$TMP/m.fsvc" "$TMP/t.libsvm" "$TMP/p.txt"
expect_match "^Accuracy = " "-b 1 still prints the accuracy" "$(echo "$OUT" | tail -1)"
expect_match "m.fsvc has no probability calibration \(train it with -b 1\)" "-b 1 on an uncalibrated model: a note" "$ERR"
expect_match "^labels 1 2 3$" "-b 1 header names the labels" "$(head -1 "$TMP/p.txt")"
n=$(tail -n +2 "$TMP/p.txt" | wc -l)
expect_match "^60$" "-b 1 one row per sample" "$n"
bad=$(tail -n +2 "$TMP/p.txt" | awk '{ s = $2 + $3 + $4; if (NF != 4 || s < 1 - 1e-12 || s > 1 + 1e-12 || $2 < 0 || $3 < 0 || $4 < 0) print NR }')
expect_match "^$" "-b 1 rows: 3 probabilities in [0,1] summing to 1" "$bad"
am=$(tail -n +2 "$TMP/p.txt" | awk '{ b = 2; for (k = 3; k <= 4; k++) if ($k > $b) b = k; print b - 1 }')
expect_match "^$" "-b 1 argmax is the label column" "$(diff <(echo "$am") <(tail -n +2 "$TMP/p.txt" | cut -d' ' -f1))"
expect_match "^$" "-b 1 labels are the plain predictions" "$(diff <(tail -n +2 "$TMP/p.txt" | cut -d' ' -f1) "$TMP/lab.txt")"

expect_exit 0 "predict --decision-values" -- "$FSVC" predict --decision-values "$TMP/m.fsvc" "$TMP/t.libsvm" "$TMP/d.txt"
expect_match "^labels 1 2 3$" "--decision-values header" "$(head -1 "$TMP/d.txt")"
am=$(tail -n +2 "$TMP/d.txt" | awk '{ b = 2; for (k = 3; k <= 4; k++) if ($k > $b) b = k; print b - 1 }')
expect_match "^$" "--decision-values argmax is the label" "$(diff <(echo "$am") "$TMP/lab.txt")"
# a model trained without -b 1: the softmax of the decision values
sm=$(paste -d' ' <(tail -n +2 "$TMP/d.txt") <(tail -n +2 "$TMP/p.txt") | awk '{
  m = $2; for (k = 3; k <= 4; k++) if ($k > m) m = $k; s = 0;
  for (k = 2; k <= 4; k++) s += exp($k - m);
  for (k = 2; k <= 4; k++) { d = exp($k - m) / s - $(k + 4); if (d > 1e-12 || d < -1e-12) print NR } }')
expect_match "^$" "-b 1 is the softmax of --decision-values" "$sm"

expect_exit 0 "-b 1 without OUT writes the table to stdout" -- "$FSVC" predict -q -b 1 "$TMP/m.fsvc" "$TMP/t.libsvm"
expect_match "^labels 1 2 3$" "stdout starts with the header" "$(echo "$OUT" | head -1)"
expect_match "^Accuracy = " "the accuracy goes to stderr then" "$ERR"
expect_exit 0 "-b 0 is the plain output" -- "$FSVC" predict -q -b 0 "$TMP/m.fsvc" "$TMP/t.libsvm" "$TMP/b0.txt"
expect_match "^$" "-b 0 writes labels" "$(diff "$TMP/b0.txt" "$TMP/lab.txt")"

expect_exit 1 "-b 2 is a usage error" -- "$FSVC" predict -b 2 "$TMP/m.fsvc" "$TMP/t.libsvm" "$TMP/x.txt"
expect_match "^fsvc predict: -b: '2' is not an integer in \\[0, 1\\]" "-b 2: says what is wrong" "$ERR"
expect_exit 1 "-b 1 with --decision-values" -- "$FSVC" predict -b 1 --decision-values "$TMP/m.fsvc" "$TMP/t.libsvm" "$TMP/x.txt"
expect_match "^fsvc predict: -b 1 and --decision-values: choose one" "both: says what is wrong" "$ERR"
expect_exit 0 "train a regression model" -- "$FSVC" train -q --regression "$TMP/r.libsvm" "$TMP/r.fsvc"
expect_exit 1 "-b 1 on a regression model" -- "$FSVC" predict -b 1 "$TMP/r.fsvc" "$TMP/r.libsvm" "$TMP/x.txt"
expect_match "r.fsvc: a regression model has no class probabilities" "regression: names the model" "$ERR"
if [ -e "$TMP/x.txt" ]; then fail "no output file on errors"; else ok "no output file on errors"; fi

# fsvc train -b 1 (issue 27): the calibration in the model, softmax(a x scores)
expect_exit 0 "train -b 1" -- "$FSVC" train -b 1 "$TMP/t.libsvm" "$TMP/c.fsvc"
a=$(echo "$OUT" | sed -n 's/^probability: softmax(\([0-9.e+-]*\) x scores).*/\1/p')
expect_match "^[0-9]" "train -b 1 prints the temperature ($a)" "$a"
expect_exit 0 "predict -b 1 on a calibrated model" -- "$FSVC" predict -b 1 "$TMP/c.fsvc" "$TMP/t.libsvm" "$TMP/pc.txt"
expect_match "^$" "no note for a calibrated model" "$(echo "$ERR" | grep -i note)"
expect_exit 0 "its decision values" -- "$FSVC" predict --decision-values "$TMP/c.fsvc" "$TMP/t.libsvm" "$TMP/dc.txt"
expect_match "^$" "the scores of -b 1 and plain models agree (the readout is the same)" "$(diff "$TMP/dc.txt" "$TMP/d.txt")"
sm=$(paste -d' ' <(tail -n +2 "$TMP/dc.txt") <(tail -n +2 "$TMP/pc.txt") | awk -v a="$a" '{
  m = $2; for (k = 3; k <= 4; k++) if ($k > m) m = $k; s = 0;
  for (k = 2; k <= 4; k++) s += exp(a * ($k - m));
  for (k = 2; k <= 4; k++) { d = exp(a * ($k - m)) / s - $(k + 4); if (d > 1e-6 || d < -1e-6) print NR } }')
expect_match "^$" "-b 1 is softmax(a x --decision-values) with the printed a" "$sm"
expect_match "^$" "calibrated -b 1 labels are the plain predictions" "$(diff <(tail -n +2 "$TMP/pc.txt" | cut -d' ' -f1) "$TMP/lab.txt")"
expect_match "^1$" "a > 1: the calibrated probabilities are sharper here" "$(awk -v a="$a" 'BEGIN { print (a > 1) }')"
expect_exit 0 "show reads a calibrated model" -- "$FSVC" show "$TMP/c.fsvc"
expect_match "format version 6" "a calibrated model is model format 6" "$OUT"
expect_match "^probabilities: softmax\([0-9.]* x scores\), fitted on held-out scores \(-b 1\)" "show names the temperature" "$OUT"
expect_exit 0 "show an uncalibrated model" -- "$FSVC" show "$TMP/m.fsvc"
expect_match "^probabilities: none fitted \(trained without -b 1\)" "show: none fitted" "$OUT"
expect_exit 0 "train -b 0 is the plain model" -- "$FSVC" train -q -b 0 "$TMP/t.libsvm" "$TMP/c0.fsvc"
expect_match "^$" "-b 0 writes the model of no -b" "$(cmp "$TMP/c0.fsvc" "$TMP/m.fsvc")"
expect_exit 0 "-v with -b 1 (LIBSVM accepts it): the accuracy" -- "$FSVC" train -b 1 -v 3 "$TMP/t.libsvm"
expect_match "^Cross Validation Accuracy = " "-v -b 1 prints the accuracy" "$(echo "$OUT" | tail -1)"
expect_exit 1 "train -b 1 --regression is refused" -- "$FSVC" train -b 1 --regression "$TMP/r.libsvm" "$TMP/x.fsvc"
expect_match "a regression model has no class probabilities" "-b 1 --regression: says why" "$ERR"
expect_exit 1 "train -b 2 is a usage error" -- "$FSVC" train -b 2 "$TMP/t.libsvm" "$TMP/x.fsvc"
if [ -e "$TMP/x.fsvc" ]; then fail "no model on refusals"; else ok "no model on refusals"; fi
# an older model file (format 1) still loads; -b 1 falls back to the softmax
expect_exit 0 "-b 1 on a format-1 model" -- "$FSVC" predict -q -b 1 "$(dirname "$0")/model_v1_iris.fsvc" "$UCI/iris.test" "$TMP/v1.txt"
expect_match "no probability calibration" "format 1: the note" "$ERR"
# the refit path: a sparse model and the onehot readout calibrate too
for o in "--sparse" "-R onehot -r 1"; do
  expect_exit 0 "train -b 1 $o" -- "$FSVC" train -q -b 1 $o "$TMP/t.libsvm" "$TMP/o.fsvc"
  expect_exit 0 "predict -b 1 ($o model)" -- "$FSVC" predict -b 1 "$TMP/o.fsvc" "$TMP/t.libsvm" "$TMP/po.txt"
  expect_match "^$" "$o: calibrated, no note" "$(echo "$ERR" | grep -i note)"
  bad=$(tail -n +2 "$TMP/po.txt" | awk '{ s = $2 + $3 + $4; if (NF != 4 || s < 1 - 1e-12 || s > 1 + 1e-12) print NR }')
  expect_match "^$" "$o: rows of 3 probabilities summing to 1" "$bad"
done
