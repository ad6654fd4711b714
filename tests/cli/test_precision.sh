# CLI tests of --precision full|tf32|bf16 (issue 10): the option parses
# and is listed with its default, it goes into the model file (format
# version 5; full models stay version 3) and back out through show, predict
# and eval, bad values are usage errors (exit 1, one line), and on MNIST
# (300 random centroids, the cpu backend emulating the tensor cores) bf16
# costs at most 3 points of accuracy against full precision, tf32 at most 1.
source "$(dirname "$0")/lib.sh"

expect_exit 0 "train --help" -- "$FSVC" train --help
expect_match '^  --precision full\|tf32\|bf16$' "train --help lists --precision and its values" "$OUT"
expect_match 'ignore it \[full\]$' "train --help shows the precision default (full)" "$OUT"

expect_exit 1 "train --precision fp8 is bad usage" -- "$FSVC" train --precision fp8 "$UCI/iris.train" "$TMP/x.fsvc"
expect_match "^fsvc train: --precision: unknown value 'fp8' \(full\|tf32\|bf16\)" "the error names the option and the values" "$ERR"
expect_one_line "--precision fp8: one line before the hint" "$(echo "$ERR" | head -n 1)"
if [ -e "$TMP/x.fsvc" ]; then fail "--precision fp8 wrote a model"; else ok "--precision fp8 wrote no model"; fi
expect_exit 1 "train --precision with no value is bad usage" -- "$FSVC" train "$UCI/iris.train" "$TMP/x.fsvc" --precision
expect_exit 1 "study --vary precision=half is bad usage" -- \
  "$FSVC" study --vary precision=half -o "$TMP/st" "$UCI/iris.train" "$UCI/iris.test"

# the optd64 digits are small integers: exact in bf16, so the model's
# predictions are those of full precision while the file says bf16
expect_exit 0 "train --precision bf16 (optd64)" -- \
  "$FSVC" train -q --precision bf16 "$UCI/optd64.train" "$TMP/b.fsvc"
expect_exit 0 "train (full, optd64)" -- "$FSVC" train -q "$UCI/optd64.train" "$TMP/f.fsvc"
# the training summary names a reduced precision (the model keeps it for predict)
expect_exit 0 "train --precision bf16, with its summary" -- \
  "$FSVC" train --precision bf16 "$UCI/optd64.train" "$TMP/b2.fsvc"
expect_match '^model: l2 gauss, f32 \(bf16 products\), r = ' "the summary names bf16 products" "$OUT"
expect_exit 0 "train (full), with its summary" -- "$FSVC" train "$UCI/optd64.train" "$TMP/f2.fsvc"
expect_match '^model: l2 gauss, f32, r = ' "a full-precision summary names no products" "$OUT"
expect_exit 0 "show the bf16 model" -- "$FSVC" show "$TMP/b.fsvc"
expect_match '^file: fsvc model format version 5,' "a bf16 model is format version 5" "$OUT"
expect_match '^settings: .* --precision bf16$' "show reads bf16 back from the file" "$OUT"
expect_exit 0 "show the full model" -- "$FSVC" show "$TMP/f.fsvc"
expect_match '^file: fsvc model format version 3,' "a full-precision model stays format version 3" "$OUT"
if echo "$OUT" | grep -q -- '--precision'; then fail "show prints --precision for a full model"
else ok "show prints no --precision for a full model"; fi
expect_exit 0 "predict with the bf16 model" -- "$FSVC" predict -q "$TMP/b.fsvc" "$UCI/optd64.test"
pb=$OUT
expect_exit 0 "predict with the full model" -- "$FSVC" predict -q "$TMP/f.fsvc" "$UCI/optd64.test"
if [ "$pb" = "$OUT" ]; then ok "exact-in-bf16 data: bf16 and full predict the same"
else fail "exact-in-bf16 data: bf16 and full predictions differ"; fi
# the old file (format version 1) still loads
expect_exit 0 "a version 1 model still loads" -- "$FSVC" show "$(dirname "$0")/model_v1_iris.fsvc"

if [ -f "$MNIST/train-images-idx3-ubyte.gz" ]; then
  # the pixels alone: the rounding is the subject, and HOG doubles the time
  for p in full tf32 bf16; do
    expect_exit 0 "train MNIST --precision $p (300 centroids)" -- "$FSVC" train -q \
      --max-neurons 300 --features pixels --precision "$p" "$MNIST/train" "$TMP/mn-$p.fsvc"
    expect_exit 0 "eval MNIST t10k ($p)" -- "$FSVC" eval "$TMP/mn-$p.fsvc" "$MNIST/t10k"
    acc=$(echo "$OUT" | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
    eval "acc_$p=\${acc:-0}"
  done
  # the rounding is really applied: the class probabilities move
  expect_exit 0 "predict -b 1 (full)" -- "$FSVC" predict -q -b 1 "$TMP/mn-full.fsvc" "$MNIST/t10k" "$TMP/pf.txt"
  expect_exit 0 "predict -b 1 (bf16)" -- "$FSVC" predict -q -b 1 "$TMP/mn-bf16.fsvc" "$MNIST/t10k" "$TMP/pb.txt"
  if [ -s "$TMP/pf.txt" ] && ! cmp -s "$TMP/pf.txt" "$TMP/pb.txt"; then ok "MNIST: bf16 probabilities differ from full"
  else fail "MNIST: bf16 gives the very probabilities of full (no rounding?)"; fi
  if awk -v f="$acc_full" -v b="$acc_bf16" 'BEGIN { exit !(f > 80 && b >= f - 3) }'; then
    ok "MNIST bf16 within 3 points of full ($acc_bf16% vs $acc_full%)"
  else fail "MNIST bf16 $acc_bf16% vs full $acc_full% (bound: 3 points)"; fi
  if awk -v f="$acc_full" -v t="$acc_tf32" 'BEGIN { exit !(f > 80 && t >= f - 1) }'; then
    ok "MNIST tf32 within 1 point of full ($acc_tf32% vs $acc_full%)"
  else fail "MNIST tf32 $acc_tf32% vs full $acc_full% (bound: 1 point)"; fi
else
  fail "missing $MNIST/train-images-idx3-ubyte.gz (make test-data, or FSVC_DATA)"
fi
