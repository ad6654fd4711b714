# The results scripts (scripts/) still run: each parses, every script or
# file they, tools/demo.sh and the Makefile name by path exists, and the
# ones that can render without measuring (RENDER_ONLY=1, results_readme.sh)
# run end to end on small inputs and write their file. What the markdown
# says is theirs to decide: no check here reads it.
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
S=$here/scripts
for f in "$S"/*.sh; do
  if bash -n "$f" 2>"$TMP/syn"; then ok "parses: scripts/$(basename "$f")"
  else fail "scripts/$(basename "$f") does not parse: $(head -c 200 "$TMP/syn")"; fi
done
for f in "$S"/*.py; do
  if python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$f" 2>"$TMP/syn"
  then ok "parses: scripts/$(basename "$f")"
  else fail "scripts/$(basename "$f") does not parse: $(head -c 200 "$TMP/syn")"; fi
done
# paths written from the repository root ($here/..., $root/..., "$(dirname
# "$0")/...") and the Makefile's `bash DIR/x.sh`: a moved script breaks them
refs=$(cd "$here" && {
  grep -ohE '\$(here|root)/(tools|scripts)/[A-Za-z0-9_./]+\.(sh|py)' scripts/*.sh tools/*.sh |
    sed -E 's#^\$(here|root)/##'
  grep -oE '"\$\(dirname "\$0"\)/[A-Za-z0-9_./]+\.(sh|py)' scripts/*.sh tools/*.sh |
    sed -E 's#^([a-z]+)/[^:]*:"\$\(dirname "\$0"\)/#\1/#'
  grep -ohE '^	@?bash (tools|scripts)/[A-Za-z0-9_./]+\.sh' Makefile | sed -E 's#^	@?bash ##'
} | sort -u)
[ -n "$refs" ] && ok "found $(wc -l <<<"$refs") script paths" || fail "no script paths found"
while read -r p; do
  if [ -f "$here/$p" ]; then ok "exists: $p"; else fail "named but missing: $p"; fi
done <<<"$refs"

R=$TMP/res
mkdir -p "$R"
cat > "$R/accuracy.csv" <<'C'
dataset,method,train_samples,test_samples,centroids_or_SVs,train_s,predict_s,accuracy_pct,command
mnist,fsvc (defaults),60000,10000,10000,25.10,1.000,98.73,fsvc study (train defaults): x
C
printf '%s\n' rep,solver,readout_s,train_s,accuracy,iterations,residual,load1 \
  1,direct,78,80,98.73,,,1.5 1,pcg,20,24,98.70,12,9e-05,1.5 > "$R/solver.csv"
cat > "$R/presets.csv" <<'C'
name,data,options,train_s,accuracy,iterations,target_acc,target_s,load1,date
mnist-2core,mnist,--max-neurons 20000 -l 1e-7,59.9,98.94,10,99.0,90,0.5,2020-01-04 05:06 UTC
C
# written: exit 0 and a non-empty file, newer than the inputs
wrote() { # NAME FILE -- CMD...
  local name=$1 f=$2; shift 3
  rm -f "$f"
  expect_exit 0 "$name runs" -- "$@"
  [ -s "$f" ] && ok "$name writes $(basename "$f")" || fail "$name: no $(basename "$f")"
}
wrote "bench_solver.sh RENDER_ONLY=1" "$R/solver.md" -- env RENDER_ONLY=1 RESULTS="$R" bash "$S/bench_solver.sh" "$FSVC"
wrote "presets.sh RENDER_ONLY=1" "$R/presets.md" -- env RENDER_ONLY=1 RESULTS="$R" bash "$S/presets.sh" "$FSVC"
wrote "accuracy.sh RENDER_ONLY=1" "$R/accuracy.md" -- env RENDER_ONLY=1 bash "$S/accuracy.sh" "$FSVC" "$R"
# tier_targets.sh on a tiny layer, no jobs: its rows, each with a verdict
wrote "tier_targets.sh, tiny layer" "$R/tt.md" -- env FSVC="$FSVC" ROUNDS=1 JOB=0 \
  SHAPE="-m 64 -N 64 -n 16" bash "$S/tier_targets.sh" -o "$R/tt.md"
expect_match '^\| u8 L2/Gaussian layer, best tier vs today.s f32 path \| .* \| >= 6x \| (met|not met) \(wall\)' \
  "tier_targets.sh: a target row with its verdict" "$(cat "$R/tt.md" 2>/dev/null)"
expect_exit 2 "tier_targets.sh: a SHAPE without -m -N -n" -- env FSVC="$FSVC" SHAPE="-m 64" \
  bash "$S/tier_targets.sh" -o "$R/tt2.md"
expect_one_line "tier_targets.sh: one line for the bad SHAPE" "$ERR"
[ -e "$R/tt2.md" ] && fail "tier_targets.sh: wrote a file for a bad SHAPE" || ok "tier_targets.sh: no file for a bad SHAPE"
# train_ab.sh: one round of one small job, this build on both sides: the
# job's row with its ratios, accuracies and the same model bytes
wrote "train_ab.sh, iris" "$R/ab.md" -- env OLD="$FSVC" ROUNDS=1 \
  JOBS="iris|--max-neurons 30|$UCI/iris.train|$UCI/iris.test" bash "$S/train_ab.sh" -o "$R/ab.md"
expect_match '^\| iris \| [0-9.]+ \| [0-9.]+ \| ([0-9.]+x|n/a) \| .* \| [0-9.]+ / [0-9.]+ \| yes \|$' \
  "train_ab.sh: the job's row, the same model from the same build" "$(cat "$R/ab.md" 2>/dev/null)"
expect_exit 1 "train_ab.sh: a job that cannot train" -- env OLD="$FSVC" ROUNDS=1 \
  JOBS="none||$TMP/no-such-data|$TMP/no-such-data" bash "$S/train_ab.sh" -o "$R/ab2.md"
[ -e "$R/ab2.md" ] && fail "train_ab.sh: wrote a file for a failed job" || ok "train_ab.sh: no file for a failed job"
# results_readme.sh over what `fsvc study` writes today
"$FSVC" study -q --no-plots -v 3 --vary radius=0.3rms,0.6rms -o "$R" --name iris "$UCI/iris.train" >/dev/null 2>&1 ||
  fail "fsvc study on iris failed"
expect_exit 0 "results_readme.sh runs" -- bash "$S/results_readme.sh" "$R"
[ -n "$OUT" ] && ok "results_readme.sh prints the README" || fail "results_readme.sh printed nothing"
if grep -q 'iris' <<<"$OUT"; then ok "results_readme.sh reads the study"
else fail "results_readme.sh: the iris study is not in its README"; fi
expect_exit 0 "presets.sh --list" -- bash "$S/presets.sh" --list
# each preset is a README example: the README carries its command verbatim
while IFS= read -r line; do
  if grep -qxF -- "$line" "$here/README.md"; then ok "README has: $line"
  else fail "README lacks the preset line: $line"; fi
done <<<"$OUT"
expect_exit 0 "presets.sh --options (tools/demo.sh uses it)" -- bash "$S/presets.sh" --options fashion-2core
expect_match '^--max-neurons [0-9]+ ' "a preset's options" "$OUT"
# presets_search.sh: the held-out split is the last 10000 training images,
# the first 50000 train; one row per run in presets-search.csv
PS=$TMP/ps
expect_exit 1 "presets_search.sh: data other than mnist|fashion" -- bash "$S/presets_search.sh" "$FSVC" digits -q
expect_exit 0 "presets_search.sh runs a trial" -- env RESULTS="$PS" SPLIT_DIR="$PS/split" MNIST_DIR="$MNIST" \
  bash "$S/presets_search.sh" "$FSVC" mnist "--max-neurons 50"
{ cat "$MNIST/train-labels-idx1-ubyte" 2>/dev/null || gzip -dc "$MNIST/train-labels-idx1-ubyte.gz"; } |
  tail -c 10000 > "$TMP/last10k"
if tail -c 10000 "$PS/split/mnist/val-labels-idx1-ubyte" | cmp -s - "$TMP/last10k" &&
   [ "$(stat -c %s "$PS/split/mnist/fit-labels-idx1-ubyte")" -eq 50008 ]
then ok "presets_search.sh: held-out = the last 10000, fit = the first 50000"
else fail "presets_search.sh: the split is not first 50000 / last 10000"; fi
expect_match '^[0-9: UTC-]+,mnist,--max-neurons 50,heldout,50000,heldout,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,50,$' \
  "presets_search.sh: its CSV row" "$(tail -n 1 "$PS/presets-search.csv")"
