# What train refuses, said so a new user can act on it (issue 27, item 15):
# one class (a classifier of it would answer it for everything; it trained
# silently), and sparse data that an option needs dense: `--dense` is
# advised only where dense data can hold the features (65536 at most).
source "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

# ---- one class: exit 2, one line naming it -------------------------------------
awk '$1 == 2' "$UCI/iris.train" > one.txt
expect_exit 2 "train on one class: exit 2" -- "$FSVC" train one.txt one.fsvc
expect_one_line "one class: one line" "$ERR"
expect_match "^fsvc: one.txt: every sample is of one class \(label 2\); a classifier needs two classes or more" \
  "one class: names it and says why" "$ERR"
expect_match "svm-train -s 2; --regression fits the label values" "one class: what to do instead" "$ERR"
[ -e one.fsvc ] && fail "one class: a model was written" || ok "one class: no model"
expect_exit 2 "train -v 3 on one class: exit 2" -- "$FSVC" train -v 3 one.txt
expect_exit 0 "one class with --regression trains" -- "$FSVC" train -q --regression -r 1 one.txt reg.fsvc
mkdir -p pets/cat
python3 -c '
import struct, zlib
raw = b"".join(b"\x00" + bytes([9] * 4) for r in range(4))
ch = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open("pets/cat/a.png", "wb").write(b"\x89PNG\r\n\x1a\n" + ch(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0)) + ch(b"IDAT", zlib.compress(raw)) + ch(b"IEND", b""))'
expect_exit 2 "train on one class folder: exit 2" -- "$FSVC" train pets pets.fsvc
expect_match "every sample is of one class \(class folder 'cat'\)" "one class folder: names it" "$ERR"

# ---- --dense advised only where it can hold the data ---------------------------
awk 'BEGIN { for (i = 0; i < 40; i++) { k = i % 2; s = k + 1; for (f = 1 + k; f <= 70000; f += 997) s = s " " f ":1"; print s } }' > wide.txt
expect_exit 1 "sparse 70000 features with -R lms: exit 1" -- "$FSVC" train -R lms wide.txt w.fsvc
expect_match "sparse data does not support the LMS readout \(-R lms\), and its [0-9]+ features are too many to read it dense \(at most 65536\)" \
  "over 65536 features: says why, no --dense" "$ERR"
echo "$ERR" | grep -q -- '--dense' && fail "over 65536 features: still advises --dense" || ok "over 65536 features: no --dense advice"
expect_exit 1 "sparse 4 features with -R lms: exit 1" -- "$FSVC" train --sparse -R lms "$UCI/iris.train" i.fsvc
expect_match "read the data --dense$" "4 features read sparse: --dense advised" "$ERR"

# ---- --shape over the dense limit: refused up front, the product in 64 bits -----
# (46341 x 46341 overflows int: the product once wrapped to a negative count)
for s in 46341x46341 256x257; do
  expect_exit 1 "--shape $s: exit 1" -- "$FSVC" train --shape "$s" "$UCI/iris.train" sh.fsvc
  expect_one_line "--shape $s: one line" "$ERR"
  expect_match "--shape $s is $(( ${s%x*} * ${s#*x} )) values a sample; dense data holds at most 65536" \
    "--shape $s: the product and the limit" "$ERR"
done
[ -e sh.fsvc ] && fail "--shape over the limit: a model was written" || ok "--shape over the limit: no model"
