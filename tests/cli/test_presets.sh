#!/usr/bin/env bash
# tools/presets.sh (issue 11's 2-core presets): --list gives each preset's
# command, and the README carries each one verbatim; RENDER_ONLY=1 renders
# presets.md from a presets.csv (a preset meets its target only with both
# the accuracy and the time), and without one fails; ONLY=NAME with an
# unknown name trains nothing and keeps the rows.
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
P="$here/tools/presets.sh"
expect_exit 0 "--list" -- bash "$P" --list
list=$OUT
expect_match '^fsvc train .* data/mnist/train mnist-2core\.fsvc$' "an MNIST preset" "$list"
expect_match '^fsvc train .* /usr/share/datasets/fashion-mnist/train fashion-2core\.fsvc$' "a Fashion preset" "$list"
while IFS= read -r line; do
  if grep -qxF -- "$line" "$here/README.md"; then ok "README has: $line"
  else fail "README lacks the preset line: $line"; fi
done <<< "$list"
expect_exit 0 "--options of a preset" -- bash "$P" --options fashion-2core
expect_match '^--max-neurons [0-9]+ ' "its options" "$OUT"
if grep -qF -- "fsvc train $OUT /usr/share" <<< "$list"; then ok "--options is what --list shows"
else fail "--options '$OUT' not in --list"; fi
expect_exit 1 "--options of an unknown preset" -- bash "$P" --options nosuch
expect_match "no preset named 'nosuch'" "names it" "$ERR"
R="$TMP/res"
mkdir -p "$R"
expect_exit 1 "RENDER_ONLY without presets.csv fails" -- \
  env RENDER_ONLY=1 RESULTS="$R" bash "$P" "$FSVC"
cat > "$R/presets.csv" <<'C'
name,data,options,train_s,accuracy,iterations,target_acc,target_s,load1,date
mnist-2core,mnist,--max-neurons 20000 -l 1e-7,70.5,99.01,10,99.0,90,0.5,2026-11-26 15:00 UTC
fashion-2core,fashion,--max-neurons 20000 -l 1e-6,95.2,90.79,9,90.5,90,0.5,2026-11-26 15:02 UTC
C
expect_exit 0 "RENDER_ONLY renders" -- env RENDER_ONLY=1 RESULTS="$R" bash "$P" "$FSVC"
md=$(cat "$R/presets.md")
expect_match '^\| mnist-2core \| `fsvc train --max-neurons 20000 -l 1e-7 mnist/train` \| 70.5 \| 99.01% \| >= 99.0% in <= 90 s \| yes \|$' \
  "a preset within both targets: met" "$md"
expect_match '^\| fashion-2core \| .* \| 95.2 \| 90.79% \| >= 90.5% in <= 90 s \| no \|$' \
  "over the time target: not met" "$md"
cp "$R/presets.csv" "$TMP/before.csv"
expect_exit 0 "ONLY=unknown trains nothing" -- env ONLY=none RESULTS="$R" bash "$P" "$FSVC"
if cmp -s "$R/presets.csv" "$TMP/before.csv"; then ok "ONLY keeps the other rows"
else fail "ONLY=none changed presets.csv"; fi
