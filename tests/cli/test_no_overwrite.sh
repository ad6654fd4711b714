# No command writes over its input (issue 27, item 4): `fsvc predict
# clothes.fsvc a.png b.png` once wrote its CSV over b.png. Several PNG
# files are several inputs; an output that is an input is refused (exit 2,
# one line naming it) and the input keeps its bytes.
source "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

python3 - <<'PY'
import os, struct, zlib
from pngw import png
def img(k, i):  # class 0: left half bright, class 1: right half bright
    return [(200 if (c < 4) == (k == 0) else 20) + (r * 7 + c * 3 + i) % 40 for r in range(8) for c in range(8)]
for k in (0, 1):
    os.makedirs("train/%d" % k, exist_ok=True)
    for i in range(6):
        png("train/%d/%d.png" % (k, i), img(k, i))
png("a.png", img(0, 9)); png("b.png", img(1, 9)); png("noext", img(1, 8))
# an IDX pair t-images / t-labels: two 8x8 images
open("t-images-idx3-ubyte", "wb").write(struct.pack(">IIII", 0x803, 2, 8, 8) + bytes(img(0, 1) + img(1, 1)))
open("t-labels-idx1-ubyte", "wb").write(struct.pack(">II", 0x801, 2) + bytes([0, 1]))
PY
printf '1 1:0.5 2:1\n2 1:1 2:0.5\n1 1:0.4 2:0.9\n2 1:0.9 2:0.3\n' > d.txt
"$FSVC" train -q -R onehot -r 300 -d l1 -k tri --preprocess none train png.fsvc >/dev/null
"$FSVC" train -q d.txt d.fsvc >/dev/null
for f in a.png b.png noext d.txt png.fsvc d.fsvc t-labels-idx1-ubyte train/0/0.png; do
  cp "$f" "$f.orig"; done

# same NAME FILE...: each FILE still has its original bytes
same() {
  local name=$1 f bad=; shift
  for f in "$@"; do cmp -s "$f" "$f.orig" || bad="$bad $f"; done
  if [ -z "$bad" ]; then ok "$name"; else fail "$name: changed:$bad"; fi
}

# ---- several PNG files are several inputs ----------------------------------
expect_exit 0 "predict MODEL a.png b.png: two inputs" -- "$FSVC" predict png.fsvc a.png b.png
same "predict MODEL a.png b.png: b.png kept" b.png a.png
expect_match '^a\.png,0,' "a.png scored (class 0)" "$OUT"
expect_match 'b\.png,1,' "b.png scored (class 1)" "$OUT"
expect_exit 0 "predict MODEL a.png b.png out.csv" -- "$FSVC" predict png.fsvc a.png b.png out.csv
[ "$(grep -c '\.png,' out.csv)" = 2 ] && ok "out.csv: one row per image" || fail "out.csv: $(cat out.csv)"
expect_exit 0 "predict -o OUT MODEL a.png b.png" -- "$FSVC" predict -o o.csv png.fsvc a.png b.png
cmp -s o.csv out.csv && ok "-o OUT: the same CSV" || fail "-o OUT: $(cat o.csv)"
expect_exit 1 "several DATA that are not images: exit 1" -- "$FSVC" predict d.fsvc d.txt d.txt o.txt
expect_match "several DATA are images" "several DATA: says why" "$ERR"

# ---- an output that is an input: exit 2, one line, nothing written ---------
expect_exit 2 "predict OUT = a PNG image without .png: exit 2" -- "$FSVC" predict png.fsvc a.png noext
expect_one_line "predict OUT = an image: one line" "$ERR"
expect_match "noext is an image, not an output" "predict OUT = an image: names it" "$ERR"
same "predict OUT = an image: kept" noext
expect_exit 2 "predict OUT = the model: exit 2" -- "$FSVC" predict png.fsvc a.png png.fsvc
expect_match "png.fsvc is an input, not an output" "predict OUT = the model: names it" "$ERR"
expect_exit 2 "predict OUT = DATA: exit 2" -- "$FSVC" predict d.fsvc d.txt d.txt
expect_exit 2 "predict -o DATA: exit 2" -- "$FSVC" predict -o b.png png.fsvc a.png b.png
expect_exit 2 "predict OUT = the labels of an IDX prefix: exit 2" -- \
  "$FSVC" predict png.fsvc t t-labels-idx1-ubyte
expect_match "t-labels-idx1-ubyte is an input \(read for t\)" "IDX: names the pair" "$ERR"
expect_exit 2 "train DATA DATA: exit 2" -- "$FSVC" train -q d.txt d.txt
expect_match "name another MODEL" "train: says what to do" "$ERR"
expect_exit 2 "data -o SOURCE SOURCE: exit 2" -- "$FSVC" data -o d.txt d.txt
expect_exit 2 "eval --png MODEL: exit 2" -- "$FSVC" eval d.fsvc d.txt --png d.fsvc
expect_exit 2 "eval --png an image of the DATA folder: exit 2" -- \
  "$FSVC" eval png.fsvc train --png train/0/0.png
expect_exit 2 "show --png MODEL: exit 2" -- "$FSVC" show png.fsvc --png png.fsvc
expect_one_line "show --png MODEL: one line" "$ERR"
same "every input kept" a.png b.png noext d.txt png.fsvc d.fsvc t-labels-idx1-ubyte train/0/0.png
