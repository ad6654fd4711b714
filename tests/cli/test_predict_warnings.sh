#!/usr/bin/env bash
# predict and eval warn once on stderr when the data does not match the
# model (issue 14 point 14): fewer features (taken as 0, LIBSVM's rule:
# not with -q), more features (ignored: results may be wrong, so even with
# -q), labels the model never saw (counted as errors: even with -q), each
# named with its count (issue 27, item 15: eval named none, predict the
# first). Sparse test data gets no fewer-features warning: absent features
# are its norm.
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
warns "predict, unknown label" "^fsvc predict: $lab \(label 7 \(16\); the model has 3" -- "$FSVC" predict ir.fsvc lab.txt o.txt
warns "predict -q, unknown label" "^fsvc predict: $lab" -- "$FSVC" predict -q ir.fsvc lab.txt o.txt
warns "eval, fewer features" "^fsvc eval: $few" -- "$FSVC" eval ir.fsvc few.txt
warns "eval, more features" "^fsvc eval: $more" -- "$FSVC" eval ir.fsvc more.txt
warns "eval, unknown label" "^fsvc eval: $lab \(label 7 \(16\); the model has 3" -- "$FSVC" eval ir.fsvc lab.txt
expect_match "16 samples have a label the model does not know" "eval: the report says it too" "$OUT"
silent "predict, matching data" -- "$FSVC" predict ir.fsvc "$UCI/iris.test" o.txt
silent "eval, matching data" -- "$FSVC" eval ir.fsvc "$UCI/iris.test"
# one feature short: "feature 4"
cut -d' ' -f1-4 "$UCI/iris.test" > three.txt
warns "predict, one feature short" "features, the model has 4: feature 4 taken as 0" -- "$FSVC" predict ir.fsvc three.txt o.txt

# PNG class folders the model does not know are named, with their counts
python3 - <<'PY'
import os, struct, zlib
def png(path, v):
    raw = b"".join(b"\x00" + bytes([v] * 4) for r in range(4))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
for name, n, v in (("tr/cat", 3, 20), ("tr/dog", 3, 200), ("te/cat", 2, 20), ("te/wolf", 3, 190), ("te/fox", 1, 90)):
    os.makedirs(name, exist_ok=True)
    for i in range(n): png("%s/%d.png" % (name, i), v + i)
PY
"$FSVC" train -q -R onehot -r 100 tr pets.fsvc >/dev/null 2>&1 || fail "train on PNG folders"
unk="warning: te: 4 of 6 samples have a label the model does not know \(folder 'fox' \(1\), folder 'wolf' \(3\); the model has 2 classes\)"
warns "eval, unknown class folders" "^fsvc eval: $unk" -- "$FSVC" eval pets.fsvc te
warns "predict, unknown class folders" "^fsvc predict: $unk" -- "$FSVC" predict pets.fsvc te o.csv

# sparse test data with fewer features than the model: no warning
awk 'BEGIN { srand(2); for (i = 0; i < 60; i++) { k = i % 2; s = k + 1; for (f = 1 + k; f <= 70000; f += 997) s = s " " f ":1"; print s } }' > wide.txt
"$FSVC" train -q -R onehot -r 1 wide.txt wide.fsvc >/dev/null 2>&1 || fail "train on 70000 sparse features"
head -n 4 wide.txt | cut -d' ' -f1-5 > narrow.txt
silent "predict, sparse data with fewer features" -- "$FSVC" predict wide.fsvc narrow.txt o.txt
