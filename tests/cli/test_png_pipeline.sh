# CLI tests of pipelined PNG-folder inference (issue 10): `fsvc predict` and
# `fsvc eval` with --batch B decode the next B images (rounded up to a
# multiple of 8192) on CPU threads while the ones before are scored.
# --batch 1, 3, 7, 8192, 8193 (not dividing the count), more than the
# count, 0 (the whole-folder path) and the default give byte-identical
# output files (labels, %.17g decision values, probabilities) and reports,
# on a labelled folder of 8400 images (two batches) and on a small
# unlabelled nested one; a corrupt PNG, a truncated one and one of another
# size in the middle (in the first or the second batch) give the whole-
# folder path's one-line error naming the file, exit 2 and no output file;
# progress goes to stderr when it is a terminal and -q silences it; a bad
# --batch value is a usage error (exit 1).
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { fail "python3 missing (writes the test images)"; exit 1; }
cd "$TMP"

# MNIST digits as PNG files: train/{zero,one,two} (40 each, MNIST t10k),
# test/{zero,one,two} (2800 each: 8400, MNIST train), flat/ (20 + 5 in
# flat/sub, MNIST train)
python3 - "$MNIST" <<'PY' || fail "writing the test images"
import gzip, os, struct, sys, zlib
mn = sys.argv[1]
def png(path, w, h, pix):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    raw = b"".join(b"\0" + pix[r * w:(r + 1) * w] for r in range(h))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
names = {0: "zero", 1: "one", 2: "two"}
for part, folder, per in (("t10k", "train", 40), ("train", "test", 2800)):
    img = gzip.open(os.path.join(mn, part + "-images-idx3-ubyte.gz")).read()
    lab = gzip.open(os.path.join(mn, part + "-labels-idx1-ubyte.gz")).read()
    count = {0: 0, 1: 0, 2: 0}
    flat = 0
    for i in range(len(lab) - 8):
        y = lab[8 + i]
        pix = img[16 + 784 * i:16 + 784 * (i + 1)]
        if y in names and count[y] < per:
            png(os.path.join(folder, names[y], "%04d.png" % i), 28, 28, pix)
            count[y] += 1
        elif folder == "test" and flat < 25:
            png(os.path.join("flat", "sub" if flat >= 20 else "", "%04d.png" % i), 28, 28, pix)
            flat += 1
        if min(count.values()) == per and (folder == "train" or flat == 25):
            break
png("odd.png", 27, 28, bytes(27 * 28))
PY
"$FSVC" train -q -r 1rms --solver direct train m.fsvc >/dev/null 2>&1 || fail "training the test model"
[ "$(find test -name '*.png' | wc -l)" -eq 8400 ] && [ "$(find flat -name '*.png' | wc -l)" -eq 25 ] \
  && ok "8400 labelled and 25 unlabelled test images" || fail "the test images"

# same_out NAME DATA OPTIONS...: predict (labels, decision values, -b 1) and
# eval give the --batch 0 bytes for every --batch (timing lines aside)
same_out() {
  local name=$1 data=$2; shift 2
  local B ref=0
  for B in 0 1 3 8192 8193 20000 default; do
    local bo=(--batch "$B"); [ "$B" = default ] && bo=()
    rm -f "p$B.csv" "d$B.csv" "q$B.csv"
    "$FSVC" predict "${bo[@]}" "$@" m.fsvc "$data" "p$B.csv" > "p$B.out" 2>"p$B.err" || ref=1
    "$FSVC" predict "${bo[@]}" --decision-values "$@" m.fsvc "$data" "d$B.csv" >/dev/null 2>&1 || ref=1
    "$FSVC" predict "${bo[@]}" -b 1 "$@" m.fsvc "$data" > "q$B.csv" 2>/dev/null || ref=1
    grep -v '^predicted ' "p$B.out" > "p$B.rep"
    if [ "$name" = labelled ]; then
      "$FSVC" eval "${bo[@]}" "$@" m.fsvc "$data" 2>"e$B.err" | grep -v '^predicted ' > "e$B.rep" || ref=1
    else : > "e$B.rep"; fi
  done
  [ "$ref" -eq 0 ] && ok "$name: predict and eval succeed for every --batch" \
    || fail "$name: a predict or eval run failed"
  [ "$(sed -n 2p p0.csv | cut -d, -f1)" != "" ] && [ "$(wc -l < p0.csv)" -gt 20 ] \
    && ok "$name: --batch 0 writes the CSV" || fail "$name: --batch 0 CSV: $(head -c 200 p0.csv)"
  for B in 1 3 8192 8193 20000 default; do
    local same=1 f
    for f in p d q; do cmp -s "${f}0.csv" "$f$B.csv" || same=0; done
    cmp -s p0.rep "p$B.rep" && cmp -s e0.rep "e$B.rep" || same=0
    [ "$same" -eq 1 ] && ok "$name: --batch $B: the same bytes as --batch 0 (labels, scores, probabilities, report)" \
      || fail "$name: --batch $B differs from --batch 0: $(cmp p0.csv "p$B.csv"; cmp d0.csv "d$B.csv"; cmp e0.rep "e$B.rep")"
  done
}
same_out labelled test
cp p0.csv lab0.csv # the labelled folder's --batch 0 CSV
grep -q '^Accuracy = ' p0.rep && grep -q '^Accuracy = ' e0.rep && [ ! -s p3.err ] && [ ! -s e3.err ] \
  && ok "labelled: the accuracy lines, nothing on stderr (not a terminal)" \
  || fail "labelled: the accuracy lines: $(cat p0.rep e0.rep p3.err | head -c 300)"
same_out unlabelled flat
grep -q '/sub/' p0.csv && ok "unlabelled: the nested images are scored" || fail "unlabelled: nested images"
# stdout (no OUT) for a PNG folder: the CSV, the same
"$FSVC" predict --batch 4 m.fsvc test > s4.csv 2>/dev/null
"$FSVC" predict --batch 0 m.fsvc test > s0.csv 2>/dev/null
cmp -s s0.csv s4.csv && [ -s s0.csv ] && ok "no OUT: the CSV on stdout, the same bytes" \
  || fail "no OUT: stdout differs"

# --backend cuda: one context for the run (without a device: the fallback
# line once, not once per batch, and the CPU's labels)
expect_exit 0 "--backend cuda: exit 0" -- "$FSVC" predict --backend cuda m.fsvc test cu.csv
n_fb=$(printf '%s\n' "$ERR" | grep -c 'using CPU')
[ "$n_fb" -le 1 ] && ok "--backend cuda: at most one fallback line for 2 batches" \
  || fail "--backend cuda: $n_fb fallback lines"
if [ "$n_fb" -eq 1 ]; then
  cmp -s cu.csv lab0.csv && ok "--backend cuda (CPU fallback): the --batch 0 bytes" \
    || fail "--backend cuda (CPU fallback): differs from --batch 0"
fi

# broken images in the middle of the folder (classes one, two, zero in
# order, 2800 each: the 1500th of two is image 4300, in the first batch;
# the 2700th of zero is image 8300, the 108th image of the second batch):
# the error of the whole-folder path
bad_image() { # NAME CLASS INDEX SETUP-COMMAND
  local name=$1 cls=$2 idx=$3; shift 3
  rm -rf bad; cp -r test bad
  local victim; victim=$(ls bad/$cls/*.png | sed -n ${idx}p)
  "$@" "$victim"
  local B first=""
  for B in 0 3 default; do
    local bo=(--batch "$B"); [ "$B" = default ] && bo=()
    rm -f bad.csv
    expect_exit 2 "$name, --batch $B: predict exits 2" -- "$FSVC" predict "${bo[@]}" m.fsvc bad bad.csv
    expect_one_line "$name, --batch $B: one line" "$ERR"
    expect_match "$victim" "$name, --batch $B: names the file" "$ERR"
    [ ! -e bad.csv ] && [ -z "$(ls -A . | grep -i 'bad\.csv.')" ] \
      && ok "$name, --batch $B: no output file, no temp file" || fail "$name, --batch $B: output left: $(ls)"
    if [ -z "$first" ]; then first=$ERR
    else [ "$ERR" = "$first" ] && ok "$name, --batch $B: the --batch 0 message" \
      || fail "$name, --batch $B: message '$ERR' vs '$first'"; fi
    expect_exit 2 "$name, --batch $B: eval exits 2" -- "$FSVC" eval "${bo[@]}" m.fsvc bad
    [ "$ERR" = "$first" ] && [ -z "$OUT" ] && ok "$name, --batch $B: eval: the same message, no report" \
      || fail "$name, --batch $B: eval: '$ERR' / '$(echo "$OUT" | head -c 100)'"
  done
}
corrupt() { echo "not a png" > "$1"; }
truncate_png() { head -c 60 test/zero/$(ls test/zero | head -n 1) > "$1"; }
other_size() { cp odd.png "$1"; }
bad_image "a corrupt PNG in batch 2" zero 2700 corrupt
bad_image "a truncated PNG in batch 1" two 1500 truncate_png
bad_image "a PNG of another size in batch 2" zero 2700 other_size
expect_match "image is 27x28" "a PNG of another size: says the sizes" "$ERR"

# a folder whose pixels exceed the load limit (hard links of one 8192 x 8192
# PNG of 64 KB, as tests/cli/test_files.sh): refused as --batch 0 refuses
# it (exit 2, the limit named), not an allocation failure
python3 - big/a <<'PY'
import os, struct, sys, zlib
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
w = h = 8192
os.makedirs(sys.argv[1])
open(os.path.join(sys.argv[1], "0.png"), "wb").write(
    b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(b"\0" * ((w + 1) * h), 9)) + chunk(b"IEND", b""))
PY
ram=$(( $(getconf _PHYS_PAGES) * $(getconf PAGESIZE) )); lim=$(( 1 << 36 ))
[ $ram -lt $lim ] && lim=$ram
for i in $(seq 1 $(( lim / (8192 * 8192) + 1 ))); do ln big/a/0.png "big/a/$i.png"; done
for B in 0 default; do
  bo=(--batch "$B"); [ "$B" = default ] && bo=()
  expect_exit 2 "over the load limit, --batch $B: exit 2" -- "$FSVC" eval "${bo[@]}" m.fsvc big
  expect_match "images of 8192x8192 need [0-9]+ bytes, more than the load limit" \
    "over the load limit, --batch $B: says so" "$ERR"
done
rm -rf big

# progress: on stderr when it is a terminal (script(1) gives one), not with -q
if command -v script >/dev/null; then
  script -qec "'$FSVC' predict m.fsvc test tty.csv >/dev/null" /dev/null > tty.txt 2>&1
  grep -q 'fsvc predict: 8192/8400 images' tty.txt && grep -q '8400/8400 images' tty.txt \
    && ok "progress on a terminal: batch by batch" || fail "progress: $(head -c 300 tty.txt)"
  script -qec "'$FSVC' predict -q --batch 10 m.fsvc test tty.csv >/dev/null" /dev/null > ttyq.txt 2>&1
  [ ! -s ttyq.txt ] && ok "predict -q: nothing on the terminal's stderr" || fail "predict -q: $(head -c 300 ttyq.txt)"
  script -qec "'$FSVC' eval m.fsvc test >/dev/null" /dev/null > ttye.txt 2>&1
  grep -q 'fsvc eval: 8400/8400 images' ttye.txt && ok "eval: progress on a terminal" \
    || fail "eval progress: $(head -c 300 ttye.txt)"
  script -qec "'$FSVC' eval -q m.fsvc test >/dev/null" /dev/null > ttyeq.txt 2>&1
  [ ! -s ttyeq.txt ] && ok "eval -q: nothing on the terminal's stderr" || fail "eval -q: $(head -c 300 ttyeq.txt)"
  # an error after a progress line: the message on a line of its own
  script -qec "'$FSVC' predict m.fsvc bad ttyb.csv >/dev/null" /dev/null > ttyb.txt 2>&1
  tr -d '\r' < ttyb.txt | grep -q '^fsvc: .*image is 27x28' && grep -q '8192/8400' ttyb.txt \
    && ok "an error after progress: on its own line" || fail "error after progress: $(head -c 300 ttyb.txt)"
else
  ok "script(1) absent: the terminal progress checks skipped"
fi
expect_exit 0 "predict -q: exit 0" -- "$FSVC" predict -q m.fsvc test q.csv
[ -z "$ERR" ] && ok "predict -q: nothing on stderr" || fail "predict -q: stderr '$ERR'"

# --batch values
expect_exit 1 "--batch -1: usage error" -- "$FSVC" predict --batch -1 m.fsvc test x.csv
expect_match "[-]-batch" "--batch -1: names the option" "$ERR"
expect_exit 1 "eval --batch x: usage error" -- "$FSVC" eval --batch x m.fsvc test
expect_exit 0 "predict --help" -- "$FSVC" predict --help
expect_match "[-]-batch B" "predict --help documents --batch" "$OUT"
expect_exit 0 "eval --help" -- "$FSVC" eval --help
expect_match "[-]-batch B" "eval --help documents --batch" "$OUT"
