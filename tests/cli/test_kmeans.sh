# CLI tests of `fsvc train -s kmeans++` (k-means++ seeding): trains and
# evaluates on a UCI set, the same seed gives the same model, the selection
# shows in `fsvc show`, and the refusals (bad value listing kmeans++, no
# radius, sparse data naming --dense).
source "$(dirname "$0")/lib.sh"

expect_exit 0 "train --help lists kmeans++" -- "$FSVC" train --help
expect_match '^  -s, --select .*kmeans\+\+' "train --help: -s choices include kmeans++" "$OUT"
expect_exit 1 "-s kmeans (no ++) is bad usage" -- "$FSVC" train -s kmeans x
expect_match "unknown value 'kmeans' \(.*kmeans\+\+\)" "the bad value message lists kmeans++" "$ERR"

if [ -f "$UCI/satimg.train" ]; then
  expect_exit 0 "train -s kmeans++ on satimg" -- \
    "$FSVC" train -s kmeans++ --max-neurons 300 --seed 3 "$UCI/satimg.train" "$TMP/a.fsvc"
  expect_match '^centroids: 300$' "kmeans++: --max-neurons centroids" "$OUT"
  expect_match 'kmeans\+\+ selection, ridge readout' "kmeans++: the summary names the selection" "$OUT"
  expect_exit 0 "eval the kmeans++ model" -- "$FSVC" eval "$TMP/a.fsvc" "$UCI/satimg.test"
  acc=$(echo "$OUT" | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' | tail -n 1)
  if [ -n "$acc" ] && awk -v a="$acc" 'BEGIN { exit !(a > 85) }'; then ok "kmeans++ satimg accuracy $acc% > 85%"
  else fail "kmeans++ satimg accuracy '$acc'"; fi
  expect_exit 0 "train again with the same seed" -- \
    "$FSVC" train -q -s kmeans++ --max-neurons 300 --seed 3 "$UCI/satimg.train" "$TMP/b.fsvc"
  cmp -s "$TMP/a.fsvc" "$TMP/b.fsvc" && ok "same seed: the same model bytes" || fail "same seed: models differ"
  expect_exit 0 "train with another seed" -- \
    "$FSVC" train -q -s kmeans++ --max-neurons 300 --seed 4 "$UCI/satimg.train" "$TMP/c.fsvc"
  cmp -s "$TMP/a.fsvc" "$TMP/c.fsvc" && fail "another seed: the same model" || ok "another seed: another model"
  expect_exit 0 "show the kmeans++ model" -- "$FSVC" show "$TMP/a.fsvc"
  expect_match 'select kmeans\+\+' "show: the model's selection is kmeans++" "$OUT"
  expect_exit 1 "kmeans++ with the radius search is refused" -- \
    "$FSVC" train -r auto -s kmeans++ "$UCI/satimg.train" "$TMP/x.fsvc"
  expect_match "kmeans\+\+ selection needs a radius" "no radius: says why" "$ERR"
  expect_exit 1 "kmeans++ on sparse data is refused" -- \
    "$FSVC" train --sparse -s kmeans++ "$UCI/satimg.train" "$TMP/x.fsvc"
  expect_one_line "sparse kmeans++: one line" "$ERR"
  expect_match "does not support k-means\+\+ .*--dense" "sparse kmeans++: names --dense" "$ERR"
fi
