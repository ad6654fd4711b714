# CLI tests of the LIBSVM workflows (issue 14 points 1, 3, 4): gzipped
# LIBSVM text, test files with more or fewer features than the model
# (svm-scale style), the built-in feature scaling against svm-scale, and
# image preprocessing for images given as LIBSVM text (--shape).
source "$(dirname "$0")/lib.sh"

# ---- point 3: gzipped LIBSVM reads like gzipped IDX ----
cp "$UCI/iris.train" "$TMP/iris.train"
gzip -c "$TMP/iris.train" > "$TMP/iris.train.gz"
gzip -c "$TMP/iris.train" > "$TMP/iris-gz"          # gzip magic, no .gz name
expect_exit 0 "data: gzipped LIBSVM (.gz) loads" -- "$FSVC" data "$TMP/iris.train.gz"
expect_match "size: 100 x 4" "gzipped LIBSVM: 100 x 4" "$OUT"
expect_exit 0 "data: gzipped LIBSVM without .gz name loads" -- "$FSVC" data "$TMP/iris-gz"
expect_exit 0 "train on plain LIBSVM" -- "$FSVC" train -q "$TMP/iris.train" "$TMP/plain.fsvc"
expect_exit 0 "train on gzipped LIBSVM" -- "$FSVC" train -q "$TMP/iris.train.gz" "$TMP/gz.fsvc"
if cmp -s "$TMP/plain.fsvc" "$TMP/gz.fsvc"; then ok "gzipped LIBSVM: same model bytes as plain"
else fail "gzipped LIBSVM: models differ"; fi
gzip -c "$UCI/iris.test" > "$TMP/iris.test.gz"
expect_exit 0 "predict on gzipped LIBSVM" -- "$FSVC" predict "$TMP/gz.fsvc" "$TMP/iris.test.gz"
expect_match "^Accuracy = " "predict on gzipped LIBSVM: accuracy line" "$OUT"
head -c 40 "$TMP/iris.train.gz" > "$TMP/cut.gz"
expect_exit 2 "truncated gzipped LIBSVM: exit 2" -- "$FSVC" data "$TMP/cut.gz"
expect_one_line "truncated gzipped LIBSVM: one line" "$ERR"
expect_match "cut.gz" "truncated gzipped LIBSVM: names the file" "$ERR"
printf '1 1:0.5\n2 1:x\n' | gzip > "$TMP/badv.gz"
expect_exit 2 "gzipped LIBSVM with a bad value: exit 2" -- "$FSVC" data "$TMP/badv.gz"
expect_match "badv.gz:2: value is not a number" "gzipped LIBSVM bad value: file and line" "$ERR"

# ---- point 4: preprocessing does not depend on the file format ----
if [ -e "$MNIST/train-images-idx3-ubyte.gz" ]; then
  # the first 400 MNIST training images as IDX and as LIBSVM text (zeros
  # left out, as LIBSVM files do: the largest index is below 784)
  python3 - "$MNIST" "$TMP" <<'PY'
import gzip, struct, sys
src, out = sys.argv[1], sys.argv[2]
img = gzip.open(src + "/train-images-idx3-ubyte.gz").read()
lab = gzip.open(src + "/train-labels-idx1-ubyte.gz").read()
def write(start, n, pfx):
    p = out + "/" + pfx
    open(p + "-images-idx3-ubyte", "wb").write(
        struct.pack(">IIII", 0x803, n, 28, 28) + img[16 + start * 784:16 + (start + n) * 784])
    open(p + "-labels-idx1-ubyte", "wb").write(
        struct.pack(">II", 0x801, n) + lab[8 + start:8 + start + n])
    with open(p + ".libsvm", "w") as f:
        for i in range(start, start + n):
            px = img[16 + i * 784:16 + (i + 1) * 784]
            f.write(str(lab[8 + i]) + "".join(" %d:%d" % (k + 1, v)
                                              for k, v in enumerate(px) if v) + "\n")
write(0, 300, "mtr")
write(300, 100, "mte")
PY
  expect_exit 0 "train MNIST 300 from IDX" -- "$FSVC" train "$TMP/mtr" "$TMP/idx.fsvc"
  expect_match "deskew\+sqrt" "IDX: auto preprocessing deskew+sqrt" "$ERR"
  expect_exit 0 "train MNIST 300 from LIBSVM --shape 28x28" -- \
    "$FSVC" train --shape 28x28 "$TMP/mtr.libsvm" "$TMP/txt.fsvc"
  expect_match "300 x 784 u8" "LIBSVM --shape 28x28: 784 features as u8 pixels" "$OUT"
  expect_match "deskew\+sqrt" "LIBSVM --shape: the same auto preprocessing as IDX" "$ERR"
  expect_exit 0 "show the LIBSVM --shape model" -- "$FSVC" show "$TMP/txt.fsvc"
  expect_match "^input: 784 features \(28 x 28 images\), preprocessing deskew\+sqrt" \
    "LIBSVM --shape model: 28 x 28 images, deskew+sqrt" "$OUT"
  if cmp -s "$TMP/idx.fsvc" "$TMP/txt.fsvc"; then ok "IDX and LIBSVM --shape: same model bytes"
  else fail "IDX and LIBSVM --shape: models differ"; fi
  expect_exit 0 "predict IDX test set" -- "$FSVC" predict "$TMP/idx.fsvc" "$TMP/mte" "$TMP/p_idx"
  expect_exit 0 "predict LIBSVM test set with the LIBSVM model" -- \
    "$FSVC" predict "$TMP/txt.fsvc" "$TMP/mte.libsvm" "$TMP/p_txt"
  expect_exit 0 "predict LIBSVM test set with the IDX model" -- \
    "$FSVC" predict "$TMP/idx.fsvc" "$TMP/mte.libsvm" "$TMP/p_mix"
  if cmp -s "$TMP/p_idx" "$TMP/p_txt" && cmp -s "$TMP/p_idx" "$TMP/p_mix"; then
    ok "MNIST as IDX and as LIBSVM: same predictions"
  else fail "MNIST as IDX and as LIBSVM: predictions differ"; fi
  expect_exit 0 "eval LIBSVM test set with the IDX model" -- \
    "$FSVC" eval "$TMP/idx.fsvc" "$TMP/mte.libsvm"
  # deskew without a shape: one line naming --shape
  expect_exit 2 "deskew on LIBSVM without a shape: exit 2" -- \
    "$FSVC" train --preprocess deskew "$TMP/mtr.libsvm" "$TMP/x.fsvc"
  expect_one_line "deskew without a shape: one line" "$ERR"
  expect_match "mtr.libsvm: deskew needs the image shape.*--shape ROWSxCOLS" \
    "deskew without a shape: names the file and --shape" "$ERR"
  [ ! -e "$TMP/x.fsvc" ] && ok "deskew without a shape: no model written" || fail "deskew without a shape: model written"
  expect_exit 2 "--shape that does not match n: exit 2" -- \
    "$FSVC" train --shape 20x20 "$TMP/mtr.libsvm" "$TMP/x.fsvc"
  expect_match "index above the forced n = 400" "--shape 20x20 on 28x28 data: says why" "$ERR"
else
  fail "missing dataset $MNIST/train-images-idx3-ubyte.gz (make test-data, or FSVC_DATA)"
fi
expect_exit 1 "--shape 28 is bad usage" -- "$FSVC" train --shape 28 "$TMP/iris.train" "$TMP/x.fsvc"
expect_match "^fsvc train: --shape: '28' is not ROWSxCOLS" "--shape 28: names the option" "$ERR"
expect_exit 2 "--shape 1x3 on 4 features: exit 2" -- \
  "$FSVC" train --shape 1x3 "$TMP/iris.train" "$TMP/x.fsvc"
expect_match "index above the forced n = 3" "--shape 1x3 on 4 features: says why" "$ERR"
expect_exit 0 "--shape 2x2 on iris (not pixels): trains" -- \
  "$FSVC" train -q --shape 2x2 "$TMP/iris.train" "$TMP/x.fsvc"

# ---- point 1: test files with more or fewer features than the model ----
expect_exit 0 "predict iris as given" -- "$FSVC" predict "$TMP/plain.fsvc" "$UCI/iris.test" "$TMP/p_ref"
REF_ACC=$(echo "$OUT" | grep '^Accuracy')
# extra features (indices 5 and 9, never seen in training) on every line
awk '{ print $0 " 5:0.75 9:-2" }' "$UCI/iris.test" > "$TMP/extra.test"
expect_exit 0 "predict with features beyond the model's: exit 0" -- \
  "$FSVC" predict "$TMP/plain.fsvc" "$TMP/extra.test" "$TMP/p_extra"
if cmp -s "$TMP/p_ref" "$TMP/p_extra"; then ok "extra features ignored: same predictions"
else fail "extra features ignored: predictions differ"; fi
echo "$OUT" | grep -qxF "$REF_ACC" && ok "extra features: same accuracy" || fail "extra features: accuracy: $OUT"
n=$(printf '%s\n' "$ERR" | grep -c 'warning')
[ "$n" -eq 1 ] && ok "extra features: warned once" || fail "extra features: $n warnings: $ERR"
expect_match "extra.test: 100 values at features 5 and above ignored: the model has 4 features" \
  "extra features: the warning names the file, the count and the model's n" "$ERR"
expect_exit 0 "eval with features beyond the model's: exit 0" -- \
  "$FSVC" eval "$TMP/plain.fsvc" "$TMP/extra.test"
echo "$OUT" | grep -qxF "$REF_ACC" && ok "eval extra features: same accuracy" || fail "eval extra features: accuracy: $OUT"
expect_match "fsvc eval: warning: .*extra.test" "eval extra features: warns" "$ERR"
# feature 4 missing on every line (as if always 0): padded, one warning
# (not with -q: tests/cli/test_predict_warnings.sh)
awk '{ $NF = ""; print }' "$UCI/iris.test" > "$TMP/fewer.test"
awk '{ $NF = ""; print $0 " 4:0" }' "$UCI/iris.test" > "$TMP/zero4.test"
expect_exit 0 "predict with fewer features: exit 0" -- \
  "$FSVC" predict "$TMP/plain.fsvc" "$TMP/fewer.test" "$TMP/p_fewer"
expect_match "fewer.test: 3 features, the model has 4: feature 4 taken as 0" \
  "fewer features: one warning, zeros assumed" "$ERR"
expect_exit 0 "predict with feature 4 = 0 written out" -- \
  "$FSVC" predict "$TMP/plain.fsvc" "$TMP/zero4.test" "$TMP/p_zero4"
if cmp -s "$TMP/p_fewer" "$TMP/p_zero4"; then ok "missing features read as 0"
else fail "missing features: predictions differ from explicit zeros"; fi

# ---- point 1: the svm-scale workflow and the built-in feature scaling ----
# satimg (1000 + 500 rows) with each feature put on its own raw scale
raw() { awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) { split($i, a, ":"); k = a[1];
               printf " %d:%.6g", k, a[2] * (k * 10 + 3) + k * 7 - 50 } print "" }'; }
head -1000 "$UCI/satimg.train" | raw > "$TMP/s.train"
head -500 "$UCI/satimg.test" | raw > "$TMP/s.test"
if command -v svm-scale >/dev/null; then
  svm-scale -s "$TMP/range" "$TMP/s.train" > "$TMP/s.train.scale"
  svm-scale -r "$TMP/range" "$TMP/s.test" > "$TMP/s.test.scale"
  expect_exit 0 "train on svm-scale output" -- "$FSVC" train -q "$TMP/s.train.scale" "$TMP/ss.fsvc"
  expect_exit 0 "predict svm-scale test output" -- \
    "$FSVC" predict "$TMP/ss.fsvc" "$TMP/s.test.scale" "$TMP/p_ss"
  ACC_SS=$(echo "$OUT" | grep '^Accuracy')
  expect_exit 0 "train --scale-features range on the raw data" -- \
    "$FSVC" train -q --scale-features range "$TMP/s.train" "$TMP/fs.fsvc"
  expect_exit 0 "predict the raw test data with the scaling model" -- \
    "$FSVC" predict "$TMP/fs.fsvc" "$TMP/s.test" "$TMP/p_fs"
  echo "$OUT" | grep -qxF "$ACC_SS" && ok "svm-scale and --scale-features: same accuracy" ||
    fail "svm-scale and --scale-features: $ACC_SS vs $OUT"
  if cmp -s "$TMP/p_ss" "$TMP/p_fs"; then ok "svm-scale and --scale-features: same predictions"
  else fail "svm-scale and --scale-features: predictions differ"; fi
else
  fail "svm-scale not found: install libsvm-tools (Debian) for the svm-scale round trip"
fi
expect_exit 0 "train without scaling on the raw data" -- \
  "$FSVC" train -q "$TMP/s.train" "$TMP/noscale.fsvc"
if cmp -s "$TMP/noscale.fsvc" "$TMP/fs.fsvc"; then fail "--scale-features changes the model: no"
else ok "--scale-features range changes the model"; fi
expect_exit 0 "show the scaling model" -- "$FSVC" show "$TMP/fs.fsvc"
expect_match "^settings: .* --scale-features range" "show: settings name --scale-features range" "$OUT"
expect_match "^feature scaling: range" "show: the feature scaling line" "$OUT"
expect_exit 0 "eval the raw test data with the scaling model" -- \
  "$FSVC" eval "$TMP/fs.fsvc" "$TMP/s.test"
expect_exit 1 "--scale-features with --preprocess sqrt: bad usage" -- \
  "$FSVC" train --scale-features range --preprocess sqrt "$TMP/s.train" "$TMP/x.fsvc"
expect_match "does not combine with --preprocess sqrt" "--scale-features + sqrt: says why" "$ERR"
expect_exit 1 "--scale-features bogus: bad usage" -- \
  "$FSVC" train --scale-features bogus "$TMP/s.train" "$TMP/x.fsvc"
expect_match "^fsvc train: --scale-features: unknown value 'bogus' \(none\|range\)" \
  "--scale-features bogus: names the option and the values" "$ERR"
# the model file: version 3; a version 1 file still loads
ver=$(od -An -tu4 -j8 -N4 "$TMP/fs.fsvc" | tr -d ' ')
[ "$ver" = 3 ] && ok "model file version 3" || fail "model file version $ver"
expect_exit 0 "a version 1 model still predicts" -- \
  "$FSVC" predict "$(dirname "$0")/model_v1_iris.fsvc" "$UCI/iris.test"
