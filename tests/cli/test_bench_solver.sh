# tools/bench_solver.sh RENDER_ONLY=1: solver.md from an existing
# solver.csv (medians, the ratio to 3 decimals and whether each target is
# met), no training run; a missing CSV is an error. --summary: the same
# verdict line alone (accuracy.md's); a CSV without both solvers refused.
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
R="$TMP/res"
mkdir -p "$R"
expect_exit 1 "RENDER_ONLY without solver.csv fails" -- \
  env RENDER_ONLY=1 RESULTS="$R" bash "$here/tools/bench_solver.sh" "$FSVC"
cat > "$R/solver.csv" <<'C'
rep,solver,readout_s,train_s,accuracy,iterations,residual,load1
1,direct,9,10,98.70,,,0.1
1,pcg,3,3.4,98.75,12,1e-4,0.1
2,direct,11,12,98.70,,,0.1
2,pcg,3,3.6,98.65,12,1e-4,0.1
C
expect_exit 0 "RENDER_ONLY renders" -- env RENDER_ONLY=1 RESULTS="$R" bash "$here/tools/bench_solver.sh" "$FSVC"
md=$(cat "$R/solver.md")
expect_match '^\| direct \| 11 \| 10 \| 98.7 \|$' "direct medians" "$md"
expect_match 'ratio pcg / direct: \*\*0.318\*\* \(target <= 0.35: met\); accuracy difference \+0.00 points \(target within 0.1: met\)' \
  "ratio to 3 decimals, both targets met" "$md"
expect_match '2 runs each\); runs written ' "the date line is the CSV's" "$md"
sed -i 's/^2,pcg,3,3.6/2,pcg,3,4.0/' "$R/solver.csv"
expect_exit 0 "RENDER_ONLY renders again" -- env RENDER_ONLY=1 RESULTS="$R" bash "$here/tools/bench_solver.sh" "$FSVC"
expect_match '\*\*0.336\*\* \(target <= 0.35: met\)' "median of pcg runs" "$(cat "$R/solver.md")"
sed -i 's/^1,pcg,3,3.4/1,pcg,3,4.6/' "$R/solver.csv"
expect_exit 0 "RENDER_ONLY renders a miss" -- env RENDER_ONLY=1 RESULTS="$R" bash "$here/tools/bench_solver.sh" "$FSVC"
expect_match '\*\*0.391\*\* \(target <= 0.35: not met\)' "a ratio over 0.35 says not met" "$(cat "$R/solver.md")"
expect_exit 0 "--summary of a solver.csv" -- bash "$here/tools/bench_solver.sh" --summary "$R/solver.csv"
expect_match '^Training time ratio pcg / direct: \*\*0.391\*\* \(target <= 0.35: not met\); accuracy difference' \
  "--summary: the verdict line of solver.md" "$OUT"
grep -v ',direct,' "$R/solver.csv" > "$TMP/pcg-only.csv"
expect_exit 1 "--summary without a direct run" -- bash "$here/tools/bench_solver.sh" --summary "$TMP/pcg-only.csv"
expect_match "needs a solver.csv with pcg and direct runs" "says why" "$ERR"
