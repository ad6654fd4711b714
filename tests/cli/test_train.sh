# CLI tests of fsvc train / predict / eval: the published optd64 result end
# to end, defaults in --help, model file errors (exit 2, one line), usage
# errors (exit 1), PNG folder inference and the confusion-matrix image.
source "$(dirname "$0")/lib.sh"

expect_exit 0 "train --help" -- "$FSVC" train --help
expect_match '^  -p, --prag PRAG$' "train --help shows -p and --prag" "$OUT"
expect_match 'sum < PRAG \[1\]$' "train --help shows the prag default" "$OUT"
expect_match '^  -R, --readout onehot\|lms\|ridge$' "train --help shows the readout choices" "$OUT"
expect_match '^        readout \[ridge\]$' "train --help shows the readout default" "$OUT"
# every setting of the settings model is an option of train, with its default
for s in radius prag dist kernel select readout lambda eta epochs scale dtype preprocess \
         regression shuffle max-neurons backend threads; do
  expect_match "^  (-., )?--$s" "train --help lists --$s" "$OUT"
done
expect_exit 0 "train: long option names of the settings model" -- \
  "$FSVC" train -q --readout=onehot --dist l1 --kernel tri --prag 1 --radius 7.6 --dtype f64 \
  "$UCI/optd64.train" "$TMP/long.fsvc"
expect_exit 0 "train: short options give the same model" -- \
  "$FSVC" train -q -R onehot -d l1 -k tri -p 1 -r 7.6 --dtype f64 "$UCI/optd64.train" "$TMP/short.fsvc"
if cmp -s "$TMP/long.fsvc" "$TMP/short.fsvc"; then ok "long and short options: same model bytes"
else fail "long and short options: models differ"; fi
expect_exit 1 "train: --regression=maybe is bad usage" -- "$FSVC" train --regression=maybe x
expect_match "^fsvc train: --regression: unknown value 'maybe'" "train: --regression=maybe names the option" "$ERR"
expect_exit 1 "train: --regression with lms is bad usage" -- "$FSVC" train --regression -R lms x
expect_match "regression needs the ridge readout" "train: --regression with lms says why" "$ERR"
expect_exit 1 "train: -l 0 is bad usage" -- "$FSVC" train -l 0 x
expect_match "^fsvc train: -l: '0' must be > 0" "train: -l 0 names -l" "$ERR"
expect_exit 1 "train: unknown option" -- "$FSVC" train --bogus x
expect_exit 1 "train: bad kernel" -- "$FSVC" train -k box x
expect_exit 1 "train: bad radius" -- "$FSVC" train -r -3 x
expect_exit 1 "predict: missing DATA" -- "$FSVC" predict m.fsvc
expect_exit 2 "train: missing data file" -- "$FSVC" train "$TMP/none.txt" "$TMP/x.fsvc"
expect_one_line "train: missing data is one line" "$ERR"

if [ -f "$UCI/optd64.train" ]; then
  cd "$TMP"
  expect_exit 0 "train optd64 (published FSVC options)" -- \
    "$FSVC" train -R onehot -d l1 -k tri -p 1 -r 7.6 --dtype f64 "$UCI/optd64.train"
  expect_match '^centroids: 595$' "optd64: 595 centroids" "$OUT"
  [ -f optd64.train.fsvc ] && ok "model named after the data" || fail "model named after the data"
  expect_exit 0 "predict optd64" -- "$FSVC" predict optd64.train.fsvc "$UCI/optd64.test" pred.txt
  expect_match 'Accuracy = 97\.66% \(1755/1797\)$' "optd64: 1755/1797" "$(echo "$OUT" | tail -n 1)"
  [ "$(wc -l < pred.txt)" -eq 1797 ] && ok "one prediction per line" || fail "one prediction per line"
  expect_exit 0 "eval optd64 with --png" -- "$FSVC" eval optd64.train.fsvc "$UCI/optd64.test" --png conf.png
  expect_match 'confusion matrix' "eval prints the confusion matrix" "$OUT"
  expect_match 'precision' "eval prints precision/recall" "$OUT"
  expect_match 'Accuracy = 97\.66% \(1755/1797\)$' "eval: 1755/1797" "$(echo "$OUT" | tail -n 1)"
  [ "$(head -c 8 conf.png | od -An -tx1 | tr -d ' ')" = "89504e470d0a1a0a" ] && ok "eval --png writes a PNG" || fail "eval --png writes a PNG"

  # damaged model files: exit 2 and one line on stderr
  sz=$(stat -c %s optd64.train.fsvc)
  head -c $((sz / 2)) optd64.train.fsvc > trunc.fsvc
  expect_exit 2 "truncated model refused" -- "$FSVC" predict trunc.fsvc "$UCI/optd64.test"
  expect_one_line "truncated model: one line" "$ERR"
  expect_match 'truncated' "truncated model: says so" "$ERR"
  cp optd64.train.fsvc crc.fsvc
  printf '\x55' | dd of=crc.fsvc bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
  cmp -s crc.fsvc optd64.train.fsvc && printf '\xaa' | dd of=crc.fsvc bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
  expect_exit 2 "corrupted model refused" -- "$FSVC" predict crc.fsvc "$UCI/optd64.test"
  expect_one_line "corrupted model: one line" "$ERR"
  expect_match 'CRC32' "corrupted model: CRC" "$ERR"
  cp optd64.train.fsvc future.fsvc
  printf '\x09' | dd of=future.fsvc bs=1 seek=8 conv=notrunc 2>/dev/null
  expect_exit 2 "future-version model refused" -- "$FSVC" eval future.fsvc "$UCI/optd64.test"
  expect_one_line "future-version model: one line" "$ERR"
  expect_match 'version 9' "future-version model: names the version" "$ERR"
  expect_exit 2 "data file as model refused" -- "$FSVC" predict "$UCI/optd64.test" "$UCI/optd64.test"
  expect_one_line "data file as model: one line" "$ERR"
  ls | grep -q tmp && fail "no temporary files left" || ok "no temporary files left"

  # regression on the phoneme labels as real values
  expect_exit 0 "train --regression" -- "$FSVC" train -q --regression -d l2 -k gauss -r 0.5 -p 1 "$UCI/phoneme.train" ph.fsvc
  expect_exit 0 "predict regression" -- "$FSVC" predict ph.fsvc "$UCI/phoneme.test"
  expect_match '^Squared correlation coefficient = 0\.[0-9]' "regression prints r^2 last, as svm-predict" "$(echo "$OUT" | tail -n 1)"
  # LIBSVM semantics (issue 14 point 1): features beyond the model's are
  # ignored, with one warning
  expect_exit 0 "optd64 data (64 features) with a phoneme model (5): predicted" -- "$FSVC" predict ph.fsvc "$UCI/optd64.test"
  expect_one_line "feature mismatch: one warning line" "$ERR"
  expect_match "warning: .*optd64.test: [0-9]+ values at features 6 and above ignored" "feature mismatch: warns" "$ERR"
  cd - >/dev/null
else
  ok "optd64 absent: skipped"
fi

# PNG folders: train on class sub-folders, batch inference on a flat folder
# (CSV path,class,score). The images are written here with python3's zlib.
if command -v python3 >/dev/null; then
  cd "$TMP"
  python3 - <<'PY'
import os, struct, zlib, random
from pngw import png
random.seed(1)
def img(k):  # class 0: left half bright, class 1: right half bright
    return [min(255, (200 if (c < 4) == (k == 0) else 20) + random.randint(0, 40)) for r in range(8) for c in range(8)]
for k in (0, 1):
    os.makedirs("pngtrain/%d" % k, exist_ok=True)
    for i in range(20):
        png("pngtrain/%d/%02d.png" % (k, i), img(k), 8, 8)
os.makedirs("pnginfer", exist_ok=True)
for i in range(6):
    png("pnginfer/img%d.png" % i, img(i % 2), 8, 8)
PY
  expect_exit 0 "train on a PNG class folder" -- "$FSVC" train -q -r 300 -R onehot -d l1 -k tri --preprocess none pngtrain png.fsvc
  expect_exit 0 "predict a PNG folder" -- "$FSVC" predict png.fsvc pnginfer out.csv
  expect_match '^path,class,score$' "CSV header" "$(head -n 1 out.csv)"
  [ "$(grep -c '\.png,' out.csv)" -eq 6 ] && ok "one CSV line per image" || fail "one CSV line per image: $(cat out.csv)"
  expect_match 'img0\.png,0,' "img0 is class 0" "$(cat out.csv)"
  expect_match 'img1\.png,1,' "img1 is class 1" "$(cat out.csv)"
  cd - >/dev/null
fi

if [ -f "$MNIST/train-images-idx3-ubyte.gz" ]; then
  cd "$TMP"
  expect_exit 0 "train on MNIST (defaults, 300 centroids)" -- "$FSVC" train -q --max-neurons 300 "$MNIST/train" mn.fsvc
  expect_exit 0 "predict MNIST t10k" -- "$FSVC" predict -q mn.fsvc "$MNIST/t10k"
  expect_match '^Accuracy = (9[0-9]|8[0-9])\.' "MNIST defaults with 300 centroids above 80%" "$(echo "$OUT" | tail -n 1)"
  cd - >/dev/null
fi

# -r auto and -r search are the same setting (the author's radius search)
if [ -f "$UCI/iris.train" ]; then
  expect_exit 0 "train -r auto" -- "$FSVC" train -r auto -R onehot -d l1 -k tri --dtype f64 "$UCI/iris.train" "$TMP/ra.fsvc"
  expect_match '^radius search: r = ' "train -r auto runs the radius search" "$ERR"
  expect_exit 0 "train -r search" -- "$FSVC" train -q -r search -R onehot -d l1 -k tri --dtype f64 "$UCI/iris.train" "$TMP/rs.fsvc"
  if cmp -s "$TMP/ra.fsvc" "$TMP/rs.fsvc"; then ok "-r auto and -r search: same model"; else fail "-r auto and -r search differ"; fi
else
  fail "missing $UCI/iris.train (make test-data, or FSVC_DATA)"
fi
