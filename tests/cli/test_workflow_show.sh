#!/usr/bin/env bash
# fsvc show MODEL / fsvc info MODEL: the model in words (issue 14 point 10).
source "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$TMP"
"$FSVC" train -q -r 0.7 -s global -R onehot "$UCI/iris.train" iris.fsvc >/dev/null
expect_exit 0 "show MODEL without --png" -- "$FSVC" show iris.fsvc
expect_match '^file: fsvc model format version 3, [0-9]+ bytes$' "show: file version and size" "$OUT"
expect_match '^task: classification$' "show: the task" "$OUT"
expect_match '^settings: --dist l2 --kernel gauss --radius 0.7 --prag 1 --select global --readout onehot ' \
  "show: the settings as train options" "$OUT"
expect_match '^input: 4 features \(no image geometry\), preprocessing none' "show: sizes and preprocessing" "$OUT"
expect_match '^classes: 3, by label value$' "show: the classes" "$OUT"
m=$(echo "$OUT" | sed -n 's/^centroids: \([0-9]*\) .*/\1/p')
sum=$(echo "$OUT" | sed -n 's/^  class [0-9]*: label .*, \([0-9]*\) centroids$/\1/p' | paste -sd+ | bc)
if [ -n "$m" ] && [ "$m" = "$sum" ]; then ok "show: centroids per class add up ($m)"; else fail "show: centroids $m, per class sum $sum"; fi
expect_exit 0 "info MODEL" -- "$FSVC" info iris.fsvc
show_out=$("$FSVC" show iris.fsvc)
if [ "$OUT" = "$show_out" ]; then ok "info MODEL = show MODEL"; else fail "info MODEL differs from show MODEL"; fi
expect_exit 0 "show of a version 1 model" -- "$FSVC" show "$HERE/model_v1_iris.fsvc"
expect_match 'format version 1,' "show names version 1" "$OUT"
# a regression model
"$FSVC" train -q --regression "$UCI/iris.train" reg.fsvc >/dev/null
expect_exit 0 "show a regression model" -- "$FSVC" show reg.fsvc
expect_match '^task: regression' "show: regression task" "$OUT"
expect_match '^output offset: ' "show: regression offset" "$OUT"
# a sparse model (C is NULL, the centroids are CSR): the montage of its
# rows, as for a dense model (issue 26 item 1: it crashed, exit 139)
"$FSVC" train -q --sparse "$UCI/iris.train" sp.fsvc >/dev/null
expect_exit 0 "show --png of a sparse model" -- "$FSVC" show sp.fsvc --png sp.png --size 2x2
expect_match '^montage: 3 classes' "show --png of a sparse model: the montage line" "$OUT"
"$FSVC" train -q --dense "$UCI/iris.train" dn.fsvc >/dev/null
"$FSVC" show dn.fsvc --png dn.png --size 2x2 >/dev/null
if cmp -s sp.png dn.png; then ok "sparse and dense iris models draw the same montage"; else fail "sparse and dense montages differ"; fi
# PNG class folders keep their names (python3 writes the PNGs)
if command -v python3 >/dev/null; then
  python3 - "$TMP/pets" <<'PY'
import os, struct, sys, zlib
def png(path, w, h, v):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    raw = b"".join(b"\0" + bytes([(v + 7 * x) % 256 for x in range(w)]) for _ in range(h))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
for cls, base in (("cat", 10), ("dog", 150)):
    os.makedirs(os.path.join(sys.argv[1], cls))
    for i in range(6):
        png(os.path.join(sys.argv[1], cls, "%d.png" % i), 6, 6, base + 3 * i)
PY
  "$FSVC" train -q -r 0.5rms -R onehot -s global "$TMP/pets" pets.fsvc >/dev/null
  expect_exit 0 "show a PNG folder model" -- "$FSVC" show pets.fsvc
  expect_match '^  class 0: name cat, [0-9]+ centroids$' "show: class names (cat)" "$OUT"
  expect_match '^  class 1: name dog, ' "show: class names (dog)" "$OUT"
  expect_match '^input: 36 features \(6 x 6 images\)' "show: image geometry" "$OUT"
fi
# bad input: one line, exit 2; usage: exit 1
printf 'not a model' > bad.fsvc
expect_exit 2 "show of a bad file" -- "$FSVC" show bad.fsvc
expect_one_line "show of a bad file: one line" "$ERR"
expect_exit 2 "show of a missing file (bad input, as predict)" -- "$FSVC" show missing.fsvc
expect_exit 1 "info with two arguments" -- "$FSVC" info a b
expect_exit 1 "info with an unknown option" -- "$FSVC" info --bogus
expect_exit 0 "info without MODEL still describes the machine" -- "$FSVC" info
expect_match '^fsvc [0-9]' "info: version line" "$OUT"
