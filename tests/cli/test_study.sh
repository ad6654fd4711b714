# CLI tests of `fsvc study` (grid, CSV, plots, CV, resume, auto radius,
# LMS validation curve) and `fsvc show` (centroid montage).
source "$(dirname "$0")/lib.sh"
# the paper's FSVC whatever the defaults: L1, triangular, global pass, raw input
PIN=(-d l1 -k tri -s global --preprocess none)

is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }
rows() { grep -v '^#' "$1" | tail -n +2 | grep -c .; }
# the error lines of a usage error (without the "Try ..." hint)
err_lines() { printf '%s\n' "$1" | grep -v "^Try 'fsvc" | grep -c .; }

expect_exit 0 "study --help" -- "$FSVC" study --help
expect_match "--vary NAME=V1" "help names --vary" "$OUT"
expect_exit 1 "study without DATA" -- "$FSVC" study
expect_exit 1 "study with nothing to measure (no TEST, no -v)" -- "$FSVC" study --vary radius=1,2 "$UCI/iris.train"
for bad in "bogus=1,2" "radius" "radius=1,,2" "radius=-3" "readout=svm" "prag=1,1"; do
  expect_exit 1 "grid error '$bad' is a usage error" -- "$FSVC" study -v 3 --vary "$bad" "$UCI/iris.train"
  if [ "$(err_lines "$ERR")" -eq 1 ]; then ok "grid error '$bad': one line"; else fail "grid error '$bad': $ERR"; fi
done
expect_exit 1 "unknown setting" -- "$FSVC" study -v 3 --vary bogus=1 "$UCI/iris.train"
expect_match "'bogus' is not a setting" "unknown setting named" "$(echo "$ERR" | head -n 1)"
# sparse data (issue 27 item 3): study trains it as fsvc train does, by
# the sparse training (it was loaded dense and failed in the engine); a
# setting the sparse training does not run is refused before any point
awk 'BEGIN { srand(1); for (i = 0; i < 60; i++) { k = i % 2; s = k; f = 0;
  while ((f += 1 + int(rand() * 999)) <= 70000) s = s " " f ":" (f % 2 == k ? 3 : 1);
  print s > (i < 40 ? "/dev/stdout" : "/dev/stderr") } }' > "$TMP/wide.train" 2> "$TMP/wide.test"
echo "1 70001:1 70002:2" >> "$TMP/wide.test" # features DATA lacks: ignored, with a warning
expect_exit 0 "study on sparse data of 70000 features" -- "$FSVC" study --no-plots -q -v 2 --seed 5 \
  -o "$TMP/wide" --vary radius=1rms,2rms "$TMP/wide.train" "$TMP/wide.test"
wcsv=$TMP/wide/study-wide.csv
if [ -f "$wcsv" ] && [ "$(rows "$wcsv")" -eq 2 ]; then ok "sparse study: 2 rows"; else fail "sparse study: rows of $wcsv"; fi
n_ok=$(awk -F, 'NR > 1 && $6 == 70000 && $(NF - 1) == "ok" && $31 > 0 && $33 > 0' "$wcsv" 2>/dev/null | grep -c .)
[ "$n_ok" = 2 ] && ok "sparse study: both points ok, 70000 features, test and CV accuracy" \
  || fail "sparse study: rows $(cat "$wcsv" 2>/dev/null | head -c 600)"
expect_match ';storage=sparse' "sparse study: the settings say sparse" "$(tail -n 1 "$wcsv" 2>/dev/null)"
expect_match 'wide.test: 2 values at features 70001 and above ignored: DATA has 70000 features' \
  "sparse study: TEST's extra features ignored, said once" "$ERR"
if grep -q 'bnl:' <<<"$ERR"; then fail "sparse study: an engine message: $ERR"; else ok "sparse study: no engine message"; fi
# the same CV as fsvc train -v on the same data and seed: the same training
"$FSVC" train -q --seed 5 -v 2 -r 2rms "$TMP/wide.train" > "$TMP/wide.cv" 2>&1
cv_train=$(sed -n 's/^Cross Validation Accuracy = \([0-9.]*\)%$/\1/p' "$TMP/wide.cv")
cv_study=$(awk -F, 'NR > 1 && $1 == "radius=2rms" { print $33 }' "$wcsv" 2>/dev/null)
if [ -n "$cv_train" ] && awk -v a="$cv_train" -v b="$cv_study" 'BEGIN { exit !(a - b < 1e-3 && b - a < 1e-3) }'
then ok "sparse study: CV accuracy $cv_study% = fsvc train -v's"
else fail "sparse study: CV $cv_study% vs fsvc train -v: $(cat "$TMP/wide.cv")"; fi
for bad in "-R lms" "--vary select=random,kmeans++" "--preprocess deskew"; do
  expect_exit 1 "sparse study: $bad refused" -- "$FSVC" study --no-plots -q -v 2 -o "$TMP/wbad" $bad "$TMP/wide.train"
  expect_match "wide.train: sparse data does not support .*too many to read it dense" "sparse study: $bad: says why" "$ERR"
  expect_one_line "sparse study: $bad: one line" "$ERR"
  if [ ! -e "$TMP/wbad/study-wide.csv" ]; then ok "sparse study: $bad: no point ran"; else fail "sparse study: $bad: a CSV"; fi
done
expect_exit 2 "study --dense on 70000 features" -- "$FSVC" study --dense --no-plots -q -v 2 -o "$TMP/wd" "$TMP/wide.train"
expect_match 'wide.train: 70000 features; dense data holds at most 65536 \(read it sparse: --sparse\)' "study --dense: says why" "$ERR"
# --regression (issue 27 item 6): every point scored by R^2 (CSV columns
# r2_test, cv_r2, cv_r2_sd), the test R^2 is fsvc predict's for the same
# settings, the best point is the highest CV R^2
awk 'BEGIN { srand(3); for (i = 0; i < 400; i++) { a = rand() * 4 - 2; b = rand() * 4 - 2;
  printf "%.4f 1:%.4f 2:%.4f\n", sin(a) + 0.5 * b * b, a, b > (i < 300 ? "/dev/stdout" : "/dev/stderr") } }' \
  > "$TMP/wave.train" 2> "$TMP/wave.test"
expect_exit 0 "study --regression" -- "$FSVC" study -q --regression -v 3 --seed 2 -o "$TMP/reg" \
  --vary radius=0.2rms,0.5rms,1rms "$TMP/wave.train" "$TMP/wave.test"
rcsv=$TMP/reg/study-wave.csv
expect_match '^point,.*,r2_test,cv_folds,cv_r2,cv_r2_sd,' "study --regression: R^2 columns" "$(head -n 1 "$rcsv" 2>/dev/null)"
n_ok=$(awk -F, 'NR > 1 && $31 > 0.8 && $31 <= 1 && $33 > 0.8 && $33 <= 1 && $34 >= 0 && $(NF - 1) == "ok"' "$rcsv" 2>/dev/null | grep -c .)
[ "$n_ok" = 3 ] && ok "study --regression: 3 points, test and CV R^2 in (0.8, 1]" || fail "study --regression: $(cat "$rcsv" 2>/dev/null)"
best=$(awk -F, 'NR > 1 && ($33 > b || b == "") { b = $33; p = $1 } END { print p }' "$rcsv" 2>/dev/null)
expect_match "^best by 3-fold CV: $best, CV R\^2 0\.[0-9]+, test R\^2 0\.[0-9]+ \(measured once" \
  "study --regression: the best point is the highest CV R^2 ($best)" "$OUT"
r2_study=$(awk -F, 'NR > 1 && $1 == "radius=0.5rms" { print $31 }' "$rcsv" 2>/dev/null)
"$FSVC" train -q --regression -r 0.5rms --seed 2 "$TMP/wave.train" "$TMP/wave.fsvc" >/dev/null 2>&1
r2_pred=$("$FSVC" predict "$TMP/wave.fsvc" "$TMP/wave.test" "$TMP/wave.out" 2>&1 | sed -n 's/^Coefficient of determination R^2 = \([0-9.]*\) .*/\1/p')
if [ -n "$r2_pred" ] && awk -v a="$r2_study" -v b="$r2_pred" 'BEGIN { exit !(a - b < 2e-6 && b - a < 2e-6) }'
then ok "study --regression: test R^2 $r2_study = fsvc predict's"
else fail "study --regression: test R^2 '$r2_study' vs predict '$r2_pred'"; fi
is_png "$TMP/reg/study-wave-acc-centroids.png" && ok "study --regression: plots drawn" || fail "study --regression: no plot"
expect_exit 2 "a --regression CSV resumed without --regression" -- "$FSVC" study -q -v 3 --seed 2 -o "$TMP/reg" \
  --resume --vary radius=0.2rms,0.5rms,1rms "$TMP/wave.train" "$TMP/wave.test"
expect_match 'a study with --regression; resume it with --regression' "resume: says to give --regression" "$ERR"
expect_exit 0 "study --regression --resume" -- "$FSVC" study -q --regression -v 3 --seed 2 -o "$TMP/reg" \
  --resume --vary radius=0.2rms,0.5rms,1rms "$TMP/wave.train" "$TMP/wave.test"
expect_match '^study: 0 points run, 3 already in' "study --regression --resume: nothing to run" "$OUT"
expect_exit 1 "a regression point without --regression" -- "$FSVC" study -q -v 3 --vary regression=on "$TMP/wave.train"
expect_match 'point regression=on is a regression: give --regression' "says to give --regression" "$ERR"
expect_exit 1 "--regression with a classification point" -- "$FSVC" study -q -v 3 --regression \
  --vary regression=on,off "$TMP/wave.train"
expect_exit 1 "--regression with the onehot readout" -- "$FSVC" study -q -v 3 --regression -R onehot "$TMP/wave.train"
expect_match 'regression needs the ridge readout' "--regression -R onehot: says why" "$ERR"
expect_exit 1 "-v 1 is refused" -- "$FSVC" study -v 1 "$UCI/iris.train"

if [ -e "$UCI/optd64.train" ]; then
  D=$TMP/r
  run_study() {
    expect_exit 0 "$1" -- "$FSVC" study -q "${PIN[@]}" --max-train 800 --max-test 400 --vary radius=6,9 \
      --readout onehot,ridge -v 3 -o "$D" --name t "${@:2}" "$UCI/optd64.train" "$UCI/optd64.test"
  }
  run_study "study on an optd64 subset with CV"
  csv=$D/study-t.csv
  if [ "$(rows "$csv")" -eq 4 ]; then ok "one CSV row per grid point"; else fail "rows: $(cat "$csv")"; fi
  about=$D/study-t-about.txt
  expect_match "^command: fsvc study" "study-t-about.txt records the command" "$(head -n 1 "$about")"
  expect_match "^machine: .*cores" "study-t-about.txt records the machine" "$(sed -n 2p "$about")"
  expect_match "^point,.*acc_test,cv_folds,cv_mean,cv_sd" "CSV header, first line" "$(head -n 1 "$csv")"
  expect_match "^best by 3-fold CV: point=radius=" "best point by CV written" "$(grep '^best' "$about")"
  # issue 27, item 13: the CSV reads with a plain pandas.read_csv (no comment lines)
  if grep -q '^#' "$csv"; then fail "CSV has comment lines: $(grep '^#' "$csv" | head -n 2)"; else ok "CSV: no comment lines"; fi
  if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
    got=$(/usr/bin/python3 -c 'import pandas, sys; d = pandas.read_csv(sys.argv[1]); print(d.shape, d["cv_mean"].notna().all())' "$csv" 2>&1)
    [ "$got" = "(4, 43) True" ] && ok "pandas.read_csv: 4 rows x 43 columns" || fail "pandas.read_csv: $got"
  fi
  expect_match "best by 3-fold CV: .*test accuracy" "best point printed with its test accuracy" "$OUT"
  # a best point at the end of a numeric axis (radius=6,9) is flagged; readout is no order
  expect_match "^study: note: the best point is at the edge of the grid, radius=[69] is the (small|larg)est radius tried" \
    "best on the edge: a note on stderr" "$ERR"
  expect_match "^edge: .*radius=[69] is the" "best on the edge: in study-t-about.txt" "$(cat "$about")"
  expect_match "^# edge: .*radius=[69] is the" "best on the edge: in study-t-best.txt" "$(cat "$D/study-t-best.txt")"
  echo "$ERR" | grep -q 'readout=' && fail "a category flagged as an edge: $ERR" || ok "a category is no edge"
  for p in acc-centroids acc-time tsyn; do
    if is_png "$D/study-t-$p.png"; then ok "plot $p is a PNG"; else fail "plot $p missing"; fi
  done
  ls "$D"/*.tmp* >/dev/null 2>&1 && fail "temporary files left" || ok "no temporary files left"
  # an interrupted study: two finished rows and a half-written third
  head -n -2 "$csv" > "$TMP/part.csv"
  printf 'radius=9;readout=ridge,/x,/y,80' >> "$TMP/part.csv"
  cp "$TMP/part.csv" "$csv"
  run_study "resumed study" --resume
  expect_match "study: 2 points run, 2 already in" "resume runs only the missing points" "$OUT"
  if [ "$(rows "$csv")" -eq 4 ]; then ok "resumed CSV has every point once"; else fail "resumed rows: $(cat "$csv")"; fi
  dup=$(grep -v '^#' "$csv" | cut -d, -f1 | sort | uniq -d)
  if [ -z "$dup" ]; then ok "no duplicate points"; else fail "duplicates: $dup"; fi
  expect_match "^resumed: fsvc study" "resume recorded" "$(grep '^resumed' "$about")"
  grep -q '^#' "$csv" && fail "resumed CSV has comment lines" || ok "resumed CSV: no comment lines"
  run_study "rerun without --resume starts a new CSV"
  if [ "$(rows "$csv")" -eq 4 ] && ! grep -q '^resumed' "$about"; then ok "fresh CSV"; else fail "fresh CSV: $(cat "$csv")"; fi
  # an edited CSV: a cv_mean of 1000, inf or nan is refused on --resume,
  # not made the best point (issue 26)
  cp "$csv" "$TMP/fresh.csv"
  for v in 1000 inf nan; do
    python3 - "$csv" "$v" <<'PY'
import csv, io, sys
path, v = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines(True)
head = next(i for i, l in enumerate(lines) if not l.startswith("#"))
col = next(csv.reader([lines[head]])).index("cv_mean")
row = next(csv.reader([lines[head + 1]]))
row[col] = v
out = io.StringIO()
csv.writer(out, lineterminator="\n").writerow(row)
lines[head + 1] = out.getvalue()
open(path, "w").write("".join(lines))
PY
    expect_exit 2 "resume with cv_mean $v in the CSV" -- "$FSVC" study -q "${PIN[@]}" --max-train 800 \
      --max-test 400 --vary radius=6,9 --readout onehot,ridge -v 3 -o "$D" --name t --resume \
      "$UCI/optd64.train" "$UCI/optd64.test"
    expect_match "study-t.csv:[0-9]+: cv_mean '$v' is not a number in \[0, 100\]" \
      "resume with cv_mean $v: says where" "$ERR"
    cp "$TMP/fresh.csv" "$csv"
  done
  expect_exit 1 "a -v larger than 64 is refused" -- "$FSVC" study -v 65 "$UCI/optd64.train"

  # auto radius, reported step by step
  expect_exit 0 "study --radius auto" -- "$FSVC" study -q "${PIN[@]}" --max-train 600 --radius auto -R onehot \
    -o "$D" --name auto "$UCI/optd64.train" "$UCI/optd64.test"
  # -q: the steps go to their file only (stderr keeps errors)
  expect_match "radius search: r = .* centroids" "search steps in study-auto-radius.txt" \
    "$(cat "$D/study-auto-radius.txt" 2>/dev/null)"
  [ -z "$ERR" ] && ok "study -q --radius auto: stderr empty" || fail "study -q: stderr: $(head -c 200 <<< "$ERR")"
  expect_match "^default: radius search: r = " "search steps in the steps file" "$(head -n 1 "$D/study-auto-radius.txt")"
  expect_match "^default,.*,auto," "CSV says the radius was searched" "$(grep '^default' "$D/study-auto.csv")"

  # the LMS learning curve with a validation split
  expect_exit 0 "study --val for LMS" -- "$FSVC" study -q "${PIN[@]}" --max-train 600 -r 9 -R lms -E 4 \
    --vary eta=0.01,0.05 --val 0.25 -o "$D" --name lms "$UCI/optd64.train" "$UCI/optd64.test"
  n=$(tail -n +2 "$D/study-lms-lms.csv" | grep -c .)
  if [ "$n" -eq 10 ]; then ok "LMS curve: epochs 0..4 for each point"; else fail "LMS curve rows $n"; fi
  if is_png "$D/study-lms-lms.png"; then ok "LMS curve PNG"; else fail "LMS curve PNG missing"; fi
  expect_exit 1 "--keep takes best or last" -- "$FSVC" study -v 3 --keep worst "$UCI/optd64.train"

  # fsvc show: an optd64 model has no geometry until told 8x8
  expect_exit 0 "train a small optd64 model" -- "$FSVC" train -q "${PIN[@]}" -r 9 -R onehot "$UCI/optd64.train" "$TMP/o.fsvc"
  expect_exit 2 "show without geometry is an input error" -- "$FSVC" show "$TMP/o.fsvc" --png "$TMP/o.png"
  expect_one_line "show without geometry: one line" "$ERR"
  [ -e "$TMP/o.png" ] && fail "no PNG on error" || ok "no PNG on error"
  expect_exit 0 "show --size 8x8" -- "$FSVC" show "$TMP/o.fsvc" --png "$TMP/o.png" --size 8x8 --max 5
  if is_png "$TMP/o.png"; then ok "montage is a PNG"; else fail "montage missing"; fi
  expect_match "10 classes, 50 of [0-9]+ centroids shown" "montage summary" "$OUT"
  expect_exit 1 "show --size that does not match n" -- "$FSVC" show "$TMP/o.fsvc" --png "$TMP/o.png" --size 9x9
else echo "ok - uci-dogaru absent, skipped"; fi

# fsvc show on a tiny image model (3 images of 2x3 pixels, 2 classes)
S=$TMP/s; mkdir -p "$S"
printf '\x00\x00\x08\x03\x00\x00\x00\x03\x00\x00\x00\x02\x00\x00\x00\x03\x00\x10\x20\x30\x40\x50\xff\xf0\xe0\xd0\xc0\xb0\x00\x00\x00\xff\xff\xff' > "$S/t-images-idx3-ubyte"
printf '\x00\x00\x08\x01\x00\x00\x00\x03\x00\x01\x00' > "$S/t-labels-idx1-ubyte"
expect_exit 0 "train a tiny image model" -- "$FSVC" train -q "${PIN[@]}" -r 1 -R onehot "$S/t" "$S/t.fsvc"
expect_exit 0 "show a tiny image model" -- "$FSVC" show "$S/t.fsvc" --png "$S/t.png" --zoom 4
if is_png "$S/t.png"; then ok "tiny montage is a PNG"; else fail "tiny montage missing"; fi
expect_match "2 classes, 3 of 3 centroids shown \(2 x 3 images, zoom 4\)" "tiny montage summary" "$OUT"
expect_exit 0 "show without --png describes the model" -- "$FSVC" show "$S/t.fsvc"
expect_exit 2 "show a file that is not a model" -- "$FSVC" show "$S/t-labels-idx1-ubyte" --png "$S/x.png"
expect_one_line "not a model: one line" "$ERR"

# study -q: nothing on stderr (issue 14 point 9: the trainer's "radius:"
# lines came through), while the radius search's steps still reach their file
Q=$TMP/q; mkdir -p "$Q" && (cd "$Q" && "$FSVC" study -q --vary radius=0.5rms,1rms "$UCI/iris.train" "$UCI/iris.test" \
  >out 2>err); rc=$?
[ $rc -eq 0 ] && [ ! -s "$Q"/err ] && ok "study -q: stderr empty" || fail "study -q: exit $rc, stderr: $(head -c 200 "$Q"/err)"
(cd "$Q" && "$FSVC" study -q --radius auto --max-train 300 --name auto "$UCI/optd64.train" "$UCI/optd64.test" \
  >out 2>err)
[ ! -s "$Q"/err ] && grep -q 'radius' "$Q"/fsvc-study-auto/study-auto-radius.txt 2>/dev/null \
  && ok "study -q --radius auto: stderr empty, the steps in study-auto-radius.txt" \
  || fail "study -q --radius auto: stderr $(head -c 200 "$Q"/err), steps file: $(ls "$Q"/fsvc-study-auto)"

# plots join points only along an ordered axis (issue 27, item 13): with
# --vary readout=... first, the lines run along radius, one per readout
if [ -e "$UCI/optd64.train" ]; then
  mkdir -p "$TMP/gp"
  printf '#!/bin/sh\ncat >> "%s/gp/prog.gp"\ncat "%s"\n' "$TMP" "$TMP/r/study-t-tsyn.png" > "$TMP/gp/gnuplot"
  chmod +x "$TMP/gp/gnuplot"
  expect_exit 0 "study with a category first" -- env PATH="$TMP/gp:$PATH" "$FSVC" study -q "${PIN[@]}" \
    --max-train 300 --vary readout=onehot,ridge --vary radius=6,9 -o "$TMP/c" "$UCI/optd64.train" "$UCI/optd64.test"
  P=$(cat "$TMP/gp/prog.gp" 2>/dev/null)
  expect_match "accuracy vs centroids \(lines along radius\)" "plot: lines along the numeric axis" "$P"
  expect_match "title \('test, readout=onehot'\)" "plot: one line per readout" "$P"
  echo "$P" | grep -q "title ('test, radius=" && fail "plot: a line joins the readouts" || ok "plot: no line joins the readouts"
fi
