# CLI tests of --features hog: a HOG model of MNIST trains, says what it
# is (info: the option, the feature count), predicts from a file that
# holds pixels only and beats the pixels alone; the settings it cannot
# combine with are refused (exit 1), data without an image shape too; a
# study varies it (--vary features=pixels,hog)
# (exit 2, naming --shape), and --shape makes LIBSVM text of images work.
source "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

if [ -f "$MNIST/train-images-idx3-ubyte.gz" ]; then
  expect_exit 0 "train --features hog on MNIST (800 centroids)" -- \
    "$FSVC" train --max-neurons 800 --features hog "$MNIST/train" hog.fsvc
  expect_match "^model: .*, features hog \(1176 values\)$" "train's model line names the HOG" \
    "$OUT"
  expect_exit 0 "train the same without HOG" -- \
    "$FSVC" train -q --max-neurons 800 --features pixels "$MNIST/train" pix.fsvc
  expect_exit 0 "info of a pixel model" -- "$FSVC" info pix.fsvc
  expect_match "^settings: .* --features pixels" \
    "info: a pixel model's settings say --features pixels (auto would give HOG)" "$OUT"
  expect_exit 0 "info of a HOG model" -- "$FSVC" info hog.fsvc
  expect_match "--features hog" "info: the settings name --features hog" "$OUT"
  expect_match "^features: the 784 values, then their HOG .*392 values.*: 1176 a centroid" \
    "info: 784 + 392 values a centroid" "$OUT"
  expect_match "format version 7" "a HOG model is model format 7" "$OUT"
  expect_exit 0 "predict MNIST t10k with HOG" -- "$FSVC" predict -q hog.fsvc "$MNIST/t10k"
  a_hog=$(echo "$OUT" | tail -n 1 | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
  expect_exit 0 "predict MNIST t10k without" -- "$FSVC" predict -q pix.fsvc "$MNIST/t10k"
  a_pix=$(echo "$OUT" | tail -n 1 | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
  if awk -v h="${a_hog:-0}" -v p="${a_pix:-100}" 'BEGIN { exit !(h >= p + 0.5) }'; then
    ok "HOG beats the pixels by half a point or more ($a_hog% against $a_pix%)"
  else fail "HOG $a_hog% against the pixels' $a_pix%"; fi
  expect_exit 1 "--features hog with --augment shift1: exit 1" -- \
    "$FSVC" train -q --features hog --augment shift1 "$MNIST/t10k" x.fsvc
  expect_match "does not combine with --augment" "the refusal names --augment" "$ERR"
  expect_one_line "the refusal is one line" "$ERR"
  [ ! -e x.fsvc ] && ok "no model written" || fail "a model was written"
  expect_exit 0 "study --vary features=pixels,hog" -- "$FSVC" study -q --max-train 3000 \
    --max-test 2000 --max-neurons 800 --vary features=pixels,hog -o st "$MNIST/train" "$MNIST/t10k"
  accs=$(python3 -c 'import csv, sys
r = {x["point"]: float(x["acc_test"]) for x in csv.DictReader(open(sys.argv[1]))}
print(r["features=pixels"], r["features=hog"])' st/study-mnist-train.csv 2>&1)
  if awk -v a="$accs" 'BEGIN { split(a, v, " "); exit !(v[2] > v[1] + 0.5) }'; then
    ok "the study's HOG point beats its pixels point ($accs)"
  else fail "study points pixels, hog: $accs"; fi
  expect_exit 0 "study --vary features=auto,pixels -r 1500 (auto: absolute radius)" -- \
    "$FSVC" study -q --max-train 1000 --max-test 500 --max-neurons 200 -R onehot \
    --vary features=auto,pixels --vary radius=0.45rms,1500 -o st2 "$MNIST/train" "$MNIST/t10k"
  feats=$(python3 -c 'import csv, sys
rows = csv.DictReader(open(sys.argv[1]))
print(" ".join(sorted(x["point"] + ":" + x["features"] for x in rows)))' \
    st2/study-mnist-train.csv 2>&1)
  want="features=auto;radius=0.45rms:hog features=auto;radius=1500:pixels"
  want="$want features=pixels;radius=0.45rms:pixels features=pixels;radius=1500:pixels"
  [ "$feats" = "$want" ] &&
    ok "the study's features column: auto resolved per point (hog, pixels at an absolute -r)" ||
    fail "study features column: $feats"
else
  fail "MNIST test data missing under $MNIST (make test-data)"
fi

# 4 x 4 images as LIBSVM text: two classes, a bar across or down
awk 'BEGIN { srand(3); for (i = 0; i < 60; i++) { k = i % 2; s = k + 1
  for (f = 1; f <= 16; f++) { r = int((f - 1) / 4); c = (f - 1) % 4
    v = (k ? c == 1 : r == 1) ? 200 + int(rand() * 50) : int(rand() * 30); s = s " " f ":" v }
  print s } }' > bars.txt
expect_exit 2 "--features hog on data with no shape: exit 2" -- \
  "$FSVC" train -q --features hog bars.txt b.fsvc
expect_match "needs the image shape.*--shape ROWSxCOLS" "the refusal names --shape" "$ERR"
expect_exit 0 "--features hog --shape 4x4 on LIBSVM text" -- \
  "$FSVC" train -q --features hog --shape 4x4 -r 1rms bars.txt b.fsvc
expect_exit 0 "predict it" -- "$FSVC" predict -q b.fsvc bars.txt
expect_match "^Accuracy = 100(\.0+)?%" "the bars are told apart" "$(echo "$OUT" | tail -n 1)"
# 8 x 8 PNG folders: gray trains, RGB (--channels 3) is refused in words
python3 -c 'import pngw, random
random.seed(1)
for i in range(20):
    for k in "ab":
        pngw.png(f"pg/{k}/{i}.png", [200 if (c == 3 if k == "a" else r == 3) else
                                     random.randint(0, 30) for r in range(8) for c in range(8)])'
expect_exit 0 "--features hog on a gray PNG folder" -- "$FSVC" train -q --features hog pg g.fsvc
expect_exit 2 "--features hog with --channels 3: exit 2" -- \
  "$FSVC" train -q --features hog --channels 3 pg c.fsvc
expect_match "needs gray images.*no --channels 3" "the RGB refusal says how" "$ERR"
expect_exit 1 "--features hog on sparse data: exit 1" -- \
  "$FSVC" train -q --sparse --features hog bars.txt s.fsvc
expect_match "does not support --features hog" "the sparse refusal names --features hog" "$ERR"
