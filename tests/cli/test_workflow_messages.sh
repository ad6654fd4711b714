#!/usr/bin/env bash
# Messages (issue 14 points 14, 15): regression figures named as
# svm-predict names them; predict warns about labels the model does not
# know; bench --paper checks its output paths before measuring.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
"$FSVC" train -q --regression -r 0.5 "$UCI/phoneme.train" ph.fsvc >/dev/null
expect_exit 0 "predict regression" -- "$FSVC" predict ph.fsvc "$UCI/phoneme.test"
expect_match '^Mean squared error = [0-9.e+-]+ \(regression\)$' "MSE line" "$OUT"
expect_match '^Coefficient of determination R\^2 = [0-9.e+-]+ \(regression\)$' "R^2 named coefficient of determination" "$OUT"
expect_match '^Squared correlation coefficient = [0-9.e+-]+ \(regression\)$' "r^2 named as svm-predict names it" "$OUT"
if echo "$OUT" | grep -q 'Squared correlation coefficient R\^2'; then fail "R^2 still labelled squared correlation"; else ok "no mislabelled R^2"; fi
# the two figures differ on an offset fit: labels shifted by +10 in the test file
awk '{ $1 = $1 + 10; print }' "$UCI/phoneme.test" > shifted.txt
expect_exit 0 "predict regression on shifted labels" -- "$FSVC" predict ph.fsvc shifted.txt
R2=$(echo "$OUT" | sed -n 's/^Coefficient of determination R^2 = \([^ ]*\) .*/\1/p')
r2=$(echo "$OUT" | sed -n 's/^Squared correlation coefficient = \([^ ]*\) .*/\1/p')
r2b=$("$FSVC" predict ph.fsvc "$UCI/phoneme.test" | sed -n 's/^Squared correlation coefficient = \([^ ]*\) .*/\1/p')
if awk -v a="$R2" -v b="$r2" -v c="$r2b" 'BEGIN { exit !(a < 0 && b == c) }'; then
  ok "offset labels: R^2 $R2 falls, r^2 $r2 unchanged"
else fail "offset labels: R^2 '$R2', r^2 '$r2' (unshifted '$r2b')"; fi

# labels the model does not know
"$FSVC" train -q "$UCI/iris.train" iris.fsvc >/dev/null
{ head -3 "$UCI/iris.test" | sed 's/^[^ ]*/7/'; cat "$UCI/iris.test"; } > odd.txt
expect_exit 0 "predict with unknown labels" -- "$FSVC" predict iris.fsvc odd.txt
expect_match '^fsvc predict: warning: .*odd.txt: 3 of [0-9]+ samples have a label the model does not know \(label 7 \(3\); the model has 3 classes\)' \
  "predict warns about unknown labels" "$ERR"
expect_exit 0 "predict with known labels" -- "$FSVC" predict iris.fsvc "$UCI/iris.test"
if [ -z "$ERR" ]; then ok "no warning when the labels are the model's"; else fail "warning: $ERR"; fi

# bench --paper checks its output paths before measuring (issue 14 point 15)
touch afile
expect_exit 3 "bench --paper, csv under a file" -- "$FSVC" bench --paper --csv afile/x.csv
expect_match '^fsvc: afile/x.csv: afile is not a folder$' "bench --paper: names the path at once" "$ERR"
if [ -z "$OUT" ]; then ok "bench --paper: nothing measured before the path check"; else fail "bench measured: $(echo "$OUT" | head -2)"; fi
mkdir adir
start=$(date +%s)
expect_exit 3 "bench --paper, png is a folder" -- "$FSVC" bench --paper --csv new/deep/x.csv --png adir
expect_match 'adir: is a folder, not a file' "bench --paper: png folder named" "$ERR"
if [ -d new/deep ]; then ok "bench --paper creates the csv's folders"; else fail "new/deep not created"; fi
if [ $(( $(date +%s) - start )) -lt 10 ] && [ -z "$OUT" ]; then ok "bench --paper fails before measuring"; else fail "bench --paper took long or measured"; fi
expect_exit 3 "bench --targets, csv under a file" -- "$FSVC" bench --targets --csv afile/t.csv
expect_one_line "bench --targets: one line" "$ERR"
