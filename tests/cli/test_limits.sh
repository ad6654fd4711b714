# CLI tests of the limits in README.md's table: each limit that is cheap to
# reach gives its one-line error and its exit code (1 bad usage, 2 bad
# input, 3 resource), before any heavy work.
source "$(dirname "$0")/lib.sh"
cd "$TMP"

limit() { # limit CODE REGEX NAME -- CMD...
  local code=$1 re=$2 name=$3; shift 4
  expect_exit "$code" "$name: exit $code" -- "$@"
  expect_match "$re" "$name: says which limit" "$(echo "$ERR" | head -n 1)"
}

# features: at most 65536 (the engine), bad input for train
printf '1 70000:1\n0 3:1\n' > wide.libsvm
limit 2 'wide.libsvm: 70000 features; dense data holds at most 65536 \(read it sparse: --sparse\)' \
  "train --dense on 70000 features" -- "$FSVC" train -q --dense wide.libsvm wide.fsvc
expect_one_line "train on 70000 features: one line" "$ERR"
[ -e wide.fsvc ] && fail "no model for 70000 features" || ok "no model for 70000 features"

# a valid model file (format version 1) with 70000 features: predict and
# eval refuse it as bad input before loading any data
if command -v python3 >/dev/null; then
  python3 - wide.fsvc <<'PY'
import struct, sys, zlib
n, m, K = 70000, 1, 2
p = struct.pack('<8I', 0, n, 0, 0, 0, 0, 0, 0)          # u8, n, no geometry, L1 tri
p += struct.pack('<2d', 1.0, 1.0)                        # radius, prag
p += struct.pack('<3I', 0, 0, 0) + struct.pack('<2I', K, K) + struct.pack('<d', 0.0)
p += struct.pack('<Q', m) + struct.pack('<2d', 0.0, 1.0) + struct.pack('<I', 0)
p += bytes(m * n) + struct.pack('<2d', 1.0, 0.0)
open(sys.argv[1], 'wb').write(b'FSVCMODL' + struct.pack('<IQ', 1, len(p)) + p
                              + struct.pack('<I', zlib.crc32(p) & 0xffffffff))
PY
  limit 2 'wide.fsvc: the model has 70000 features; fsvc handles at most 65536' \
    "predict with a 70000-feature model" -- "$FSVC" predict wide.fsvc wide.libsvm
  limit 2 'wide.fsvc: the model has 70000 features' "eval with a 70000-feature model" -- \
    "$FSVC" eval wide.fsvc wide.libsvm
fi

# PNG: sides up to 16384; folders nested at most 32 deep
png() { # png W H FILE: an 8-bit gray PNG of zeros
  python3 - "$@" <<'PY'
import struct, sys, zlib
w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
raw = b''.join(b'\0' + b'\0' * w for _ in range(h))
open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
                       + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
PY
}
if command -v python3 >/dev/null; then
  png 16384 1 side-ok.png; png 16385 1 side-big.png
  expect_exit 0 "PNG 16384 pixels wide loads" -- "$FSVC" data side-ok.png
  limit 2 'side-big.png: bad PNG' "PNG 16385 pixels wide refused" -- "$FSVC" data side-big.png
  d=deep/c0; for i in $(seq 1 33); do d=$d/x; done; mkdir -p "$d"; cp side-ok.png "$d/a.png"
  limit 2 'nested deeper than 32' "PNG folders 33 deep refused" -- "$FSVC" data deep
else
  ok "python3 absent: PNG limits skipped"
fi

# option ranges (bad usage)
limit 1 "'4097' is not an integer in \[0, 4096\]" "--threads above 4096" -- "$FSVC" train --threads 4097 x
limit 1 "'1000001' is not an integer in \[0, 1000000\]" "-E above 10^6" -- "$FSVC" train -E 1000001 x
limit 1 "--max-neurons: '1099511627777' is not an integer" "--max-neurons above 2^40" -- \
  "$FSVC" train --max-neurons 1099511627777 x
limit 1 "-v: '65' is not an integer in \[2, 64\]" "study -v above 64 folds" -- "$FSVC" study -v 65 x
limit 1 'at most 64 values' "study axis with 65 values" -- \
  "$FSVC" study --vary radius=$(seq -s, 1 65) x x
limit 1 'at most 8 axes' "study with 9 axes" -- "$FSVC" study --vary radius=1 --vary prag=1 \
  --vary dist=l1 --vary kernel=tri --vary lambda=1 --vary eta=1 --vary epochs=1 \
  --vary threads=1 --vary scale=none x x
limit 1 "-n: '65537' is not an integer in \[1, 65536\]" "bench -n above 65536" -- "$FSVC" bench -n 65537
limit 1 "-m: '16777217' is not an integer" "bench -m above 2^24" -- "$FSVC" bench -m 16777217

# bench: the layer must fit in RAM (resource), refused before allocating
limit 3 "needs [0-9.]+ GiB, more than this machine's [0-9.]+ GiB of RAM" "bench larger than RAM" -- \
  "$FSVC" bench -m 16777216 -N 16777216 -n 65536 --no-ref
expect_one_line "bench larger than RAM: one line" "$ERR"

# classes: a 20000-class model (10 centroids) predicts and evaluates in
# 800 MB of address space above what fsvc needs to start; predict held
# 8192 x K scores whatever N (1.3 GB here), eval a K x K matrix (3.2 GB):
# both were exit 3 (issue 26 item 9)
awk 'BEGIN { for (i = 0; i < 20000; i++) print i " 1:" i / 20000 }' > many.train
head -100 many.train > many.test
"$FSVC" train -q --max-neurons 10 -s random -r 0.1 --solver direct many.train many.fsvc >/dev/null
VM800=$(($(vm_startup) + 800000))
in_800mb() { bash -c 'ulimit -v '"$VM800"'; exec "$@"' sh "$@"; }
expect_exit 0 "predict with 20000 classes in 800 MB" -- in_800mb "$FSVC" predict --threads 1 \
  many.fsvc many.test many.out
expect_exit 0 "eval with 20000 classes in 800 MB" -- in_800mb "$FSVC" eval --threads 1 many.fsvc many.test
expect_match '^confusion matrix: not shown for 20000 classes \(at most 1000\)$' \
  "eval: no matrix above 1000 classes" "$OUT"
limit 2 'many.fsvc: 20000 classes; --png draws the confusion matrix of at most 1000' \
  "eval --png above 1000 classes" -- "$FSVC" eval many.fsvc many.test --png many.png

# values beyond float32 (fine as float64): said where they are, not later
# as a non-finite radius or centroid (issue 26)
printf '1 1:1 2:1\n# a comment\n0 1:1e39 2:2\n1 1:2 2:1\n0 1:0 2:3\n' > f32.txt
limit 2 "f32.txt:3: value '1e39' is beyond float32's range" "sparse value beyond float32" -- \
  "$FSVC" train -q --sparse f32.txt f32.fsvc
limit 2 "f32.txt: value 1 of sample 2 \(1e\+39\) is beyond float32's range" \
  "dense value beyond float32 (f32 model)" -- "$FSVC" train -q -r 1 f32.txt f32.fsvc
expect_exit 0 "the same value trains with --dtype f64" -- "$FSVC" train -q --dtype f64 f32.txt f32.fsvc

# a feature range of -1e308 .. 1e308 (wider than DBL_MAX): --scale-features
# scales it in halves; it blamed the data ('value 1 of sample 1 is not
# finite', exit 2; issue 26)
printf '1 1:1e308 2:1\n0 1:-1e308 2:2\n1 1:2 2:1\n0 1:0 2:3\n' > range.txt
expect_exit 0 "--scale-features over a range wider than DBL_MAX" -- \
  "$FSVC" train -q --scale-features range --dtype f64 range.txt range.fsvc
expect_exit 0 "predict with that range" -- "$FSVC" predict range.fsvc range.txt
expect_match '^Accuracy = 100.00% \(4/4\)' "predict with that range: every sample right" "$OUT"
