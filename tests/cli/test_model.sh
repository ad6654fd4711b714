# CLI tests of model files and degenerate training (issue 15 defects 1, 7,
# 11; issue 14 point 5): a crafted valid-CRC model whose montage would
# overflow `fsvc show`; training that diverges or cannot compute its
# activations exits 2 with one line in words; models with degenerate values
# are refused at load; PNG class names are stored in the model, printed by
# predict/eval/show and matched by name; a version-1 file (written by fsvc
# before class names) still loads and predicts as it did.
source "$(dirname "$0")/lib.sh"
V1=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/model_v1_iris.fsvc
cd "$TMP"

# ---- version-1 model file, written by the fsvc of before version 2 ----
if [ -f "$UCI/iris.test" ]; then
  expect_exit 0 "version-1 model still loads" -- "$FSVC" predict "$V1" "$UCI/iris.test"
  expect_match 'Accuracy = 60\.00% \(30/50\)$' "version-1 model predicts as before" "$(echo "$OUT" | tail -n 1)"
else
  fail "iris.test missing under $UCI"
fi

# ---- model bytes crafted with a correct CRC (python3 writes them) ----
# craft FILE KEY=VALUE...: a model, u8 centroids, n = rows x cols; keys: n
# rows cols K m radius dtype nan_c (1: NaN in an f32 centroid) ver (format
# version 1, which fsvc before class names reads too, or 2)
craft() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
out = sys.argv[1]
a = dict(n=4, rows=2, cols=2, K=2, m=2, radius=1.0, dtype=0, nan_c=0, ver=1)
for kv in sys.argv[2:]:
    k, v = kv.split("=")
    a[k] = float(v) if k == "radius" else int(v)
n, K, m, dt = a["n"], a["K"], a["m"], a["dtype"]
p = struct.pack("<8I", dt, n, a["rows"], a["cols"], 0, 0, 0, 0)
p += struct.pack("<2d", a["radius"], 1.0) + struct.pack("<5I", 0, 0, 0, K, K)
p += struct.pack("<d", 0.0) + struct.pack("<Q", m)
p += b"".join(struct.pack("<d", k) for k in range(K))
p += b"".join(struct.pack("<I", j % K) for j in range(m))
if dt == 0:
    p += bytes(m * n)
else:
    c = [0.0] * (m * n)
    if a["nan_c"]: c[0] = float("nan")
    p += struct.pack("<%df" % (m * n), *c)
p += b"".join(struct.pack("<d", 1.0 if k == j % K else 0.0) for j in range(m) for k in range(K))
if a["ver"] == 2:
    p += struct.pack("<I", 0)  # no class names
open(out, "wb").write(b"FSVCMODL" + struct.pack("<IQ", a["ver"], len(p)) + p
                      + struct.pack("<I", zlib.crc32(p) & 0xffffffff))
PY
}

if command -v python3 >/dev/null; then
  # defect 1: rows = 2^24, cols = 1, K = 256 wrapped the montage height
  craft big.fsvc n=16777216 rows=16777216 cols=1 K=256 m=1
  expect_exit 2 "show: a montage too large for the limits is refused" -- "$FSVC" show big.fsvc --png big.png
  expect_one_line "show: too large montage, one line" "$ERR"
  expect_match 'big\.fsvc: .*exceeds the limits' "show: says the montage exceeds the limits" "$ERR"
  [ -e big.png ] && fail "show: no PNG left behind" || ok "show: no PNG left behind"
  craft wide.fsvc n=64 rows=8 cols=8 K=3 m=30 ver=2
  expect_exit 1 "show: options making the montage too large are bad usage" -- \
    "$FSVC" show wide.fsvc --png w.png --zoom 64 --per-row 100
  expect_match 'lower --max, --per-row or --zoom' "show: too large by options names them" "$ERR"
  expect_exit 0 "show: a sane crafted model draws" -- "$FSVC" show wide.fsvc --png w.png
  # defect 7: degenerate values are refused at load, in words
  craft m0.fsvc m=0
  expect_exit 2 "a model with no centroids is refused" -- "$FSVC" predict m0.fsvc "$UCI/iris.test"
  expect_match 'no centroids' "m = 0: says so" "$ERR"
  craft nan.fsvc dtype=1 nan_c=1
  expect_exit 2 "a model with a NaN centroid is refused" -- "$FSVC" predict nan.fsvc "$UCI/iris.test"
  expect_match 'centroid 1 is not finite' "NaN centroid: says so" "$ERR"
  craft r0.fsvc radius=0 ver=2
  expect_exit 2 "a model with radius 0 is refused" -- "$FSVC" show r0.fsvc --png r0.png
  expect_one_line "radius 0: one line" "$ERR"
  craft geo.fsvc n=4 rows=3 cols=2
  expect_exit 2 "a model whose rows x cols is not n is refused" -- "$FSVC" show geo.fsvc --png g.png
  expect_match 'geometry 3 x 2' "bad geometry: says so" "$ERR"
else
  fail "python3 missing: crafted model checks not run"
fi

# ---- defect 7: degenerate training exits 2 with the option to change ----
if [ -f "$UCI/optd64.train" ]; then
  expect_exit 2 "train: a diverging LMS readout is bad input" -- \
    "$FSVC" train -q -R lms -e 1e300 "$UCI/optd64.train" lms.fsvc
  # (the trainer's "radius: ..." information line is not part of the error)
  expect_one_line "train: LMS divergence, one error line" "$(echo "$ERR" | grep -v '^radius: ')"
  expect_match 'diverged.*lower the learning rate \(-e\)' "train: LMS divergence names -e" "$ERR"
  [ -e lms.fsvc ] && fail "train: no model written after divergence" || ok "train: no model written after divergence"
  expect_exit 2 "train: -r 1e-300 is bad input" -- "$FSVC" train -q -r 1e-300 "$UCI/optd64.train" r.fsvc
  expect_one_line "train: -r 1e-300, one line" "$ERR"
  expect_match 'radius 1e-300 is too small.*\(-r\)' "train: -r 1e-300 says the radius is too small" "$ERR"
  echo "$ERR" | grep -q LAPACK && fail "train: no raw LAPACK code" || ok "train: no raw LAPACK code"
  expect_exit 2 "train: -r 1e-300 -k tri is bad input" -- \
    "$FSVC" train -q -r 1e-300 -k tri -d l1 "$UCI/optd64.train" r.fsvc
  ls | grep -q tmp && fail "no temporary files left" || ok "no temporary files left"
else
  fail "optd64.train missing under $UCI"
fi

# ---- issue 14 point 5 / defect 11: PNG class names ----
if command -v python3 >/dev/null; then
  python3 - "$TMP" <<'PY'
import os, struct, sys, zlib
def png(path, rows):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    raw = b"".join(b"\0" + bytes(r) for r in rows)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", len(rows[0]), len(rows), 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    open(path, "wb").write(data)
def img(side, i):  # 6 x 6: bright left (side 0) or right (side 1) half
    return [[(200 + i * 7) if (x < 3) == (side == 0) else (10 + i) for x in range(6)] for _ in range(6)]
root = sys.argv[1]
for folder, classes in (("train", (("cat", 0, 6), ("dog", 1, 6))),
                        ("test", (("dog", 1, 3), ("fox", 0, 2)))):
    for name, side, cnt in classes:
        os.makedirs(os.path.join(root, folder, name))
        for i in range(cnt):
            png(os.path.join(root, folder, name, "%d.png" % i), img(side, i))
os.makedirs(os.path.join(root, "unl"))
png(os.path.join(root, "unl", "a.png"), img(0, 1))
png(os.path.join(root, "unl", "b.png"), img(1, 2))
PY
  expect_exit 0 "train on PNG class folders {cat, dog}" -- \
    "$FSVC" train -q -R onehot -d l1 -k tri -r 2000 --preprocess none train pets.fsvc
  expect_exit 0 "predict an unlabelled PNG folder" -- "$FSVC" predict pets.fsvc unl out.csv
  expect_match '^unl/a\.png,cat,' "predict CSV prints the class name (cat)" "$(cat out.csv)"
  expect_match '^unl/b\.png,dog,' "predict CSV prints the class name (dog)" "$(cat out.csv)"
  expect_exit 0 "eval {cat, dog} model on {dog, fox}" -- "$FSVC" eval pets.fsvc test
  expect_match 'Accuracy = 60\.00% \(3/5\)$' "eval matches classes by name (dog right, fox unknown)" "$(echo "$OUT" | tail -n 1)"
  expect_match '^2 samples have a label the model does not know' "eval: fox is not in the model" "$OUT"
  expect_match '^ +cat +dog$' "eval: the confusion matrix is labelled by name" "$OUT"
  expect_exit 0 "predict labelled PNG folder" -- "$FSVC" predict pets.fsvc test
  expect_match 'Accuracy = 60\.00% \(3/5\)$' "predict matches classes by name" "$(echo "$ERR" | tail -n 1)"
  expect_exit 0 "show a model with names" -- "$FSVC" show pets.fsvc --png pets.png
  expect_match 'class 1 \(name dog\)' "show prints class names" "$OUT"
  mkdir -p 'a,b'; cp unl/a.png 'a,b/x.png'
  expect_exit 0 "predict a folder with a comma in its name" -- "$FSVC" predict pets.fsvc 'a,b' c.csv
  expect_match '^"a,b/x\.png",cat,' "predict CSV quotes a path with a comma" "$(cat c.csv)"
else
  fail "python3 missing: PNG class name checks not run"
fi
