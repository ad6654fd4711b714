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
