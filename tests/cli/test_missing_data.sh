# A missing dataset is a FAILURE of the unit tests that need it,
# never a silent pass or a quiet skip: each of those tests fails with one
# line naming the missing path, and the unit summary counts them.
# Uses the unit-test binaries built next to $FSVC (make tests).
source "$(dirname "$0")/lib.sh"
unset FSVC_TEST_QUICK # every data test runs, none skips for speed
RUN=$(cd "$(dirname "$0")/.." && pwd)/run_unit.sh
BIN=$(dirname "$FSVC")/tests
NONE=$TMP/no-data
# binary : how many of its tests need the test data
for spec in test_reproduce:10 test_deskew:1 test_dataset:1 test_libsvm:1 test_cv:1; do
  b=${spec%%:*} want=${spec##*:}
  if [ ! -x "$BIN/$b" ]; then fail "$b: $BIN/$b not built (make tests)"; continue; fi
  FSVC_DATA=$NONE expect_exit 1 "$b fails without the test data" -- bash "$RUN" "$BIN/$b"
  expect_match "^unit: [0-9]+ passed, $want failed, 0 skipped$" "$b: $want tests fail, none skipped" \
    "$(echo "$OUT" | tail -n 1)"
  expect_match "missing dataset $NONE/[a-z-]+/[a-z0-9.-]+: .*FSVC_DATA" \
    "$b names the missing file and FSVC_DATA" "$OUT"
done
