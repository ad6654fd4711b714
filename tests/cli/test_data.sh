# CLI tests of `fsvc data`: real datasets when present, tiny fixtures, and
# every bad input (exit 2, one line on stderr naming the file, no output).
source "$(dirname "$0")/lib.sh"

expect_exit 0 "data --help" -- "$FSVC" data --help
expect_match "default 0 = largest index" "help prints defaults" "$OUT"
expect_exit 1 "data without SOURCE is a usage error" -- "$FSVC" data
expect_exit 1 "data with an unknown option" -- "$FSVC" data --bogus x

if [ -e "$MNIST/train-images-idx3-ubyte.gz" ]; then
  expect_exit 0 "mnist train loads" -- "$FSVC" data "$MNIST/train"
  expect_match "size: 60000 x 784" "mnist train shape" "$OUT"
  expect_match "image: 28 x 28" "mnist geometry" "$OUT"
  counts=$(echo "$OUT" | sed -n 's/^  class [0-9] (label [0-9]): //p' | tr '\n' ' ')
  expect_match "^5923 6742 5958 6131 5842 5421 5918 6265 5851 5949 $" "mnist class counts" "$counts"
  expect_exit 0 "mnist t10k loads" -- "$FSVC" data "$MNIST/t10k"
  expect_match "size: 10000 x 784" "mnist t10k shape" "$OUT"
else echo "ok - mnist absent, skipped"; fi

if [ -e "$FASHION/train-images-idx3-ubyte.gz" ]; then
  expect_exit 0 "fashion train loads" -- "$FSVC" data "$FASHION/train"
  expect_match "size: 60000 x 784" "fashion shape" "$OUT"
  n=$(echo "$OUT" | grep -c ': 6000$')
  expect_match "^10$" "fashion 6000 per class" "$n"
else echo "ok - fashion-mnist absent, skipped"; fi

if [ -e "$UCI/satimg.train" ]; then
  expect_exit 0 "satimg loads" -- "$FSVC" data "$UCI/satimg.train"
  expect_match "size: 3217 x 36" "satimg shape" "$OUT"
  expect_match "classes: 6" "satimg classes" "$OUT"
  before=$(echo "$OUT" | grep -v 'load time')
  expect_exit 0 "satimg written as LIBSVM" -- "$FSVC" data -o "$TMP/sat.txt" "$UCI/satimg.train"
  expect_exit 0 "written LIBSVM reloads" -- "$FSVC" data "$TMP/sat.txt"
  after=$(echo "$OUT" | grep -v 'load time' | sed "s|$TMP/sat.txt|$UCI/satimg.train|")
  if [ "$before" = "$after" ]; then ok "LIBSVM round trip keeps the summary"; else
    fail "LIBSVM round trip: $before vs $after"; fi
else echo "ok - uci-dogaru absent, skipped"; fi

# ---- tiny fixtures --------------------------------------------------------
D=$TMP/d; mkdir -p "$D"
# 2 images of 2x2 u8 and 2 labels
printf '\x00\x00\x08\x03\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x02\x01\x02\x03\x04\x05\x06\x07\x08' > "$D/ok-images-idx3-ubyte"
printf '\x00\x00\x08\x01\x00\x00\x00\x02\x03\x09' > "$D/ok-labels-idx1-ubyte"
expect_exit 0 "tiny raw IDX pair" -- "$FSVC" data "$D/ok"
expect_match "size: 2 x 4" "tiny IDX shape" "$OUT"
gzip -k "$D/ok-images-idx3-ubyte" "$D/ok-labels-idx1-ubyte"
mkdir -p "$D/gz"; mv "$D"/ok-*.gz "$D/gz/"
expect_exit 0 "tiny gz IDX by images path" -- "$FSVC" data "$D/gz/ok-images-idx3-ubyte.gz"
expect_match "classes: 2" "tiny gz IDX labels found" "$OUT"

# PNG class folders (written with python3's zlib when python3 is present)
if command -v python3 >/dev/null; then
  python3 - "$D/png-ok" <<'PY'
import os, struct, sys, zlib
def png(path, w, h, v):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    raw = b"".join(b"\0" + bytes([v]) * w for _ in range(h))
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    open(path, "wb").write(data)
root = sys.argv[1]
for cls, n in (("dog", 2), ("cat", 3)):
    os.makedirs(os.path.join(root, cls))
    for i in range(n):
        png(os.path.join(root, cls, "%d.png" % i), 5, 4, 10 * i)
png(os.path.join(root, "..", "odd.png"), 6, 4, 1)
PY
  expect_exit 0 "PNG class folders load" -- "$FSVC" data "$D/png-ok"
  expect_match "size: 5 x 20" "PNG folder shape" "$OUT"
  expect_match "image: 4 x 5" "PNG folder geometry" "$OUT"
  expect_match "class 0 cat: 3" "PNG class names sorted, counts" "$OUT"
  expect_match "class 1 dog: 2" "PNG second class" "$OUT"
  cp "$D/odd.png" "$D/png-ok/dog/9.png"
  expect_exit 2 "PNG of another size is refused" -- "$FSVC" data "$D/png-ok"
  expect_one_line "PNG of another size: one line" "$ERR"
  expect_match "dog/9.png: image is 6x4" "PNG of another size: names the file" "$ERR"
  expect_exit 0 "PNG of another size with --resize" -- "$FSVC" data --resize "$D/png-ok"
  expect_match "size: 6 x 20" "resized PNG folder shape" "$OUT"
else echo "ok - python3 absent, PNG folder checks skipped"; fi

# bad_input NAME FILE-IN-MESSAGE -- ARGS: exit 2, one line naming the file,
# and with -o no output file left behind.
bad_input() {
  local name=$1 file=$2; shift 3
  expect_exit 2 "$name: exit 2" -- "$FSVC" data "$@"
  expect_one_line "$name: one line" "$ERR"
  expect_match "$(printf '%s' "$file" | sed 's/[][\.*^$]/\\&/g')" "$name: names the file" "$ERR"
  rm -f "$TMP/out.txt"
  "$FSVC" data -o "$TMP/out.txt" "$@" >/dev/null 2>&1
  if [ -e "$TMP/out.txt" ] || ls "$TMP" | grep -q 'out.txt.tmp'; then
    fail "$name: output left behind"; else ok "$name: no output left"; fi
}

head -c 20 "$D/gz/ok-images-idx3-ubyte.gz" > "$D/cut-images-idx3-ubyte.gz"
bad_input "truncated gz" "$D/cut-images-idx3-ubyte.gz" -- "$D/cut-images-idx3-ubyte.gz"
expect_match "truncated gzip" "truncated gz: says so" "$ERR"

echo "plain text pretending" > "$D/plain-images-idx3-ubyte.gz"
bad_input "not gzip in .gz" "$D/plain-images-idx3-ubyte.gz" -- "$D/plain-images-idx3-ubyte.gz"
expect_match "not gzip" "not gzip: says so" "$ERR"

printf '\x00\x00\x07\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00' > "$D/magic-images-idx3-ubyte"
bad_input "wrong IDX magic" "$D/magic-images-idx3-ubyte" -- "$D/magic-images-idx3-ubyte"
expect_match "not an IDX file" "wrong magic: says so" "$ERR"

cp "$D/ok-images-idx3-ubyte" "$D/mm-images-idx3-ubyte"
printf '\x00\x00\x08\x01\x00\x00\x00\x03\x01\x02\x03' > "$D/mm-labels-idx1-ubyte"
bad_input "image/label count mismatch" "$D/mm-labels-idx1-ubyte" -- "$D/mm"
expect_match "3 labels for 2 images" "count mismatch: says so" "$ERR"

printf '\x00\x00\x08\x03\x00\x0f\x42\x40\x00\x0f\x42\x40\x00\x00\x00\x01' > "$D/huge-images-idx3-ubyte"
bad_input "header claiming 10^12 items" "$D/huge-images-idx3-ubyte" -- "$D/huge-images-idx3-ubyte"
expect_match "1000000000000 items" "10^12: says so" "$ERR"
gzip -k "$D/huge-images-idx3-ubyte"
bad_input "gz header claiming 10^12 items" "$D/huge-images-idx3-ubyte.gz" -- "$D/huge-images-idx3-ubyte.gz"

head -c 22 "$D/ok-images-idx3-ubyte" | gzip > "$D/short-images-idx3-ubyte.gz"
bad_input "payload shorter than the header" "$D/short-images-idx3-ubyte.gz" -- "$D/short-images-idx3-ubyte.gz"
expect_match "shorter than" "short payload: says so" "$ERR"

mkdir -p "$D/png/cat"; echo "not a png" > "$D/png/cat/x.png"
bad_input "a PNG that is not a PNG" "$D/png/cat/x.png" -- "$D/png"
expect_match "not a PNG" "not a PNG: says so" "$ERR"

mkdir -p "$D/empty"
bad_input "empty folder" "$D/empty" -- "$D/empty"
expect_match "empty folder" "empty folder: says so" "$ERR"

printf '1 1:0.5\n2 0:1\n' > "$D/idx0.txt"
bad_input "LIBSVM index 0" "$D/idx0.txt:2:" -- "$D/idx0.txt"
printf '1 1:0.5 2:abc\n' > "$D/nonnum.txt"
bad_input "LIBSVM non-numeric value" "$D/nonnum.txt:1:" -- "$D/nonnum.txt"
printf '1 1:0.5\n1 1:1\n1 2:1 2:2\n' > "$D/dup.txt"
bad_input "LIBSVM duplicate index" "$D/dup.txt:3:" -- "$D/dup.txt"
printf '1 3:0.5 1:1\n' > "$D/desc.txt"
bad_input "LIBSVM descending index" "$D/desc.txt:1:" -- "$D/desc.txt"
bad_input "missing source" "$D/nothing" -- "$D/nothing"

# the writer never leaves half a file: an unwritable target is exit 3
printf '1 1:0.5\n' > "$D/good.txt"
expect_exit 3 "unwritable output is a resource error" -- "$FSVC" data -o /nonexistent-dir/x.txt "$D/good.txt"
expect_one_line "unwritable output: one line" "$ERR"
