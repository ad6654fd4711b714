#!/usr/bin/env bash
# fsvc study lambda paths (issue 11): the points that differ only in lambda
# share their selection and H and solve the lambdas from the largest down,
# warm-started; the same accuracies as the from-scratch grid (--no-warm) to
# the digits written, fewer CG iterations; the best point as a command that
# trains; --resume after an interrupted path; old CSVs refused clearly.
source "$(dirname "$0")/lib.sh"
DATA=$UCI/optd64.train
TEST=$UCI/optd64.test
[ -e "$DATA" ] || { fail "missing $DATA (make test-data, or FSVC_DATA)"; exit 0; }
D=$TMP/w
SET=(--solver pcg --cg-tol 1e-8 --max-train 600 --max-test 300 --vary lambda=1e-2,1e-4,1e-6
     -v 3 --no-plots -o "$D")
GRID=(--vary radius=0.5rms,1rms "${SET[@]}")
rows() { grep -v '^#' "$1" | tail -n +2 | grep -c ''; }
# col CSV NAME: "point value" for every row
col() {
  python3 - "$1" "$2" <<'EOF'
import csv, sys
rows = [l for l in open(sys.argv[1]) if not l.startswith('#')]
for r in csv.DictReader(rows):
    print(r['point'], r[sys.argv[2]])
EOF
}

expect_exit 0 "warm study" -- "$FSVC" study -q "${GRID[@]}" --name warm "$DATA" "$TEST"
W_OUT=$OUT
expect_exit 0 "from-scratch study (--no-warm)" -- "$FSVC" study -q "${GRID[@]}" --no-warm --name cold "$DATA" "$TEST"
C_OUT=$OUT
w=$D/study-warm.csv c=$D/study-cold.csv
if [ "$(rows "$w")" -eq 6 ] && [ "$(rows "$c")" -eq 6 ]; then ok "one row per point"; else fail "rows $(rows "$w") $(rows "$c")"; fi
for k in acc_test cv_mean cv_sd centroids radius; do
  if [ "$(col "$w" $k)" = "$(col "$c" $k)" ]; then ok "$k: warm path = from scratch"
  else fail "$k differs: $(diff <(col "$w" $k) <(col "$c" $k) | tr '\n' ' ')"; fi
done
# the settings strings (what --resume matches) are the same
if [ "$(col "$w" settings)" = "$(col "$c" settings)" ]; then ok "same settings keys"; else fail "settings keys differ"; fi
expect_match "^radius=0.5rms;lambda=1e-4 0.01$" "warm_from: lambda 1e-4 started from 1e-2" "$(col "$w" warm_from)"
expect_match "^radius=1rms;lambda=1e-2 $" "the largest lambda starts from zero" "$(col "$w" warm_from)"
if [ -z "$(col "$c" warm_from | awk '$2 != ""')" ]; then ok "--no-warm: no warm starts"; else fail "cold has warm_from"; fi
sw=$(col "$w" cv_cg_iter | awk '{s += $2} END {print s + 0}')
sc=$(col "$c" cv_cg_iter | awk '{s += $2} END {print s + 0}')
if [ "$sw" -gt 0 ] && [ "$sw" -lt "$sc" ]; then ok "fewer CV CG iterations warm ($sw) than cold ($sc)"
else fail "CV CG iterations warm $sw, cold $sc"; fi
# the best point: the same in both, printed with -q, a command that trains
bw=$(echo "$W_OUT" | grep '^best by'); bc=$(echo "$C_OUT" | grep '^best by')
if [ -n "$bw" ] && [ "$bw" = "$bc" ]; then ok "the same best point"; else fail "best: '$bw' vs '$bc'"; fi
cmd=$(echo "$W_OUT" | sed -n 's/^train it: //p')
expect_match "^fsvc train --radius [0-9.]+rms --lambda [0-9e.-]+ --solver pcg --cg-tol 1e-08 " "train command with every non-default setting" "$cmd"
if [ "$(head -n 1 "$D/study-warm-best.txt")" = "$cmd" ]; then ok "the command written to study-warm-best.txt"; else fail "best.txt: $(head -c 300 "$D/study-warm-best.txt")"; fi
expect_match "^note: the study used the first 600 samples" "the --max-train difference is said" "$W_OUT"
(cd "$TMP" && eval "${cmd/fsvc/\"\$FSVC\"} -q best.fsvc" >/dev/null 2>"$TMP/best.err")
if [ -s "$TMP/best.fsvc" ]; then ok "the best point's command trains a model"; else fail "the command failed: $cmd: $(head -c 300 "$TMP/best.err")"; fi
expect_exit 0 "the trained model predicts" -- "$FSVC" predict "$TMP/best.fsvc" "$TEST"

# --resume after an interrupted path: the first row of the second path, and
# a half-written row; resume solves the rest of that path only
grep -v '^# \(best\|train it\)' "$w" | head -n -2 > "$TMP/part.csv"
printf 'radius=1rms;lambda=1e-6,/x,/y,8' >> "$TMP/part.csv"
cp "$TMP/part.csv" "$w"
expect_exit 0 "resume an interrupted warm grid" -- "$FSVC" study "${GRID[@]}" --name warm --resume "$DATA" "$TEST"
expect_match "study: 2 points run, 4 already in" "only the missing points run" "$OUT"
expect_match "lambda=1e-4 \.\.\. \(lambda path\)" "the missing points run as a path" "$ERR"
if [ "$(col "$w" cv_mean | sort)" = "$(col "$c" cv_mean | sort)" ]; then ok "resumed CSV = the from-scratch accuracies"
else fail "resumed: $(col "$w" cv_mean | tr '\n' ' ')"; fi
if [ "$(col "$w" point | sort | uniq -d)" = "" ] && [ "$(rows "$w")" -eq 6 ]; then ok "every point once"; else fail "rows: $(rows "$w")"; fi
# a killed run: whole rows only, resume completes it
"$FSVC" study -q --vary radius=0.3rms,0.5rms,0.7rms,1rms "${SET[@]}" --name kill "$DATA" "$TEST" \
  >/dev/null 2>&1 </dev/null &
pid=$!
for _ in $(seq 1 200); do
  [ -s "$D/study-kill.csv" ] && [ "$(rows "$D/study-kill.csv")" -ge 3 ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
n=$(rows "$D/study-kill.csv")
expect_exit 0 "resume after a kill" -- "$FSVC" study -q --vary radius=0.3rms,0.5rms,0.7rms,1rms "${SET[@]}" --name kill --resume "$DATA" "$TEST"
if [ "$(rows "$D/study-kill.csv")" -eq 12 ] && [ -z "$(col "$D/study-kill.csv" point | sort | uniq -d)" ]; then
  ok "killed with $n rows, resumed to all 12 once"; else fail "after the kill: $(rows "$D/study-kill.csv") rows"; fi
# a CSV of the version before these columns is refused, naming the problem
python3 - "$c" "$TMP/old.csv" <<'EOF'
import sys
out = open(sys.argv[2], 'w')
for l in open(sys.argv[1]):
    if not l.startswith('#'):
        l = l.replace(',cg_iter,cv_cg_iter,warm_from', '', 1)
    out.write(l)
EOF
cp "$TMP/old.csv" "$D/study-old.csv"
expect_exit 2 "an old CSV is refused by --resume" -- "$FSVC" study -q "${GRID[@]}" --name old --resume "$DATA" "$TEST"
expect_match "study-old.csv: columns differ from this version's" "the refusal names the file and the problem" "$ERR"
expect_one_line "the refusal is one line" "$ERR"

# ties for the best point: the same CV accuracy -> the fewest centroids,
# then the larger lambda (a CSV whose accuracies are made equal; --resume
# runs nothing and picks from the rows)
IRIS=$UCI/iris.train
TIE=(-R onehot -s random --vary max-neurons=30,20,40 --vary lambda=1e-3,1e-1 -v 3 --no-plots -o "$D" --name tie)
expect_exit 0 "tie study" -- "$FSVC" study -q "${TIE[@]}" "$IRIS"
python3 - "$D/study-tie.csv" <<'PY'
import csv, io, sys
lines = open(sys.argv[1]).read().splitlines(True)
out = []
rows = [l for l in lines if not l.startswith('#')]
r = list(csv.reader(rows))
h = r[0]
for row in r[1:]:
    row[h.index('cv_mean')] = '95'
buf = io.StringIO()
csv.writer(buf, lineterminator='\n').writerows(r)
open(sys.argv[1], 'w').write(''.join(l for l in lines if l.startswith('# ') and not l.startswith(('# best', '# train it'))) + buf.getvalue())
PY
expect_exit 0 "tie study resumed" -- "$FSVC" study -q "${TIE[@]}" --resume "$IRIS"
expect_match "^best by 3-fold CV: max-neurons=20;lambda=1e-1, CV accuracy 95%" "a tie goes to the fewest centroids, then the larger lambda" "$OUT"
