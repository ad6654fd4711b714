# CLI tests of `fsvc study` against hostile names, failing plots, full
# disks and mismatched resumes (issue 15 defects 2, 3, 9):
#  - file names with backquotes, $( ), quotes, system("..."), @macros and a
#    newline reach gnuplot only as inert text: nothing runs, PNGs are valid;
#  - a comma in the data path keeps the CSV columns (RFC 4180 quoting);
#  - --resume refuses a CSV made with other data or fixed settings (exit 2,
#    one line naming the setting) and extends one made with the same;
#  - gnuplot missing, failing, or writing no valid PNG: exit 3, one line,
#    no PNG left; a full disk (a small tmpfs) while creating the CSV, while
#    appending a row, or while writing the PNGs: exit 3, one line naming
#    the file, no partial row, no temporary file, nothing claimed written.
source "$(dirname "$0")/lib.sh"
FSVC=$(cd "$(dirname "$FSVC")" && pwd)/$(basename "$FSVC")
PIN=(-d l1 -k tri -s global --preprocess none)
IRIS=$UCI/iris.train

# a whole PNG: signature first, the IEND chunk last
is_png() {
  [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] &&
    [ "$(tail -c 12 "$1" | od -An -tx1 | tr -d ' \n')" = "0000000049454e44ae426082" ]
}
rows() { grep -v '^#' "$1" | tail -n +2 | grep -c .; }

if [ ! -e "$IRIS" ]; then
  echo "FAIL - $IRIS absent: the study fault tests need the uci-dogaru data (make test-data)"
  exit 0
fi

# ---- defect 2: names and texts never run anything in gnuplot ------------------
W=$TMP/inj; mkdir -p "$W"
# one name with every hazard (and a newline), one that a shell-quoting
# escape would still let run
names=($'iris`touch INJ1`$(touch INJ2)\'q"@m system("touch INJ3") `touch INJ4`\nx.train'
       'iris`touch INJ5` system("touch INJ6") @m.train')
for i in 0 1; do
  evil=${names[$i]}
  cp "$IRIS" "$W/$evil"
  ( cd "$W" && "$FSVC" study -q "${PIN[@]}" -v 3 --vary radius=0.5,1 -o out$i "$evil" ) >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ $rc -eq 0 ]; then ok "study on hostile file name $i"; else fail "hostile name $i: exit $rc: $(head -c 300 "$TMP/err")"; fi
  found=$(find "$TMP" -name 'INJ*')
  if [ -z "$found" ]; then ok "no command in file name $i ran"; else fail "injected commands ran: $found"; fi
  n=0
  for p in acc-centroids acc-time tsyn; do
    f=$(find "$W/out$i" -name "*-$p.png")
    if [ -n "$f" ] && is_png "$f"; then n=$((n + 1)); fi
  done
  if [ $n -eq 3 ]; then ok "three valid PNGs for hostile name $i"; else fail "hostile name $i: $n valid PNGs: $(ls "$W/out$i")"; fi
  expect_match "3 plots written" "plots reported for hostile name $i" "$(cat "$TMP/out")"
  # (a quoted path with a newline spans two lines: count the rows' starts)
  if [ "$(grep -c '^radius=' "$(find "$W/out$i" -name '*.csv')")" -eq 2 ]; then ok "hostile name $i: two CSV rows"; else fail "hostile name $i: CSV rows"; fi
  ls "$W/out$i" | grep -q tmp && fail "temporary files left: $(ls "$W/out$i")" || ok "no temporary files left"
done

# ---- defect 9: a comma in the data path; resume keyed on every setting --------
C=$TMP/c; mkdir -p "$C"
cp "$IRIS" "$C/a,b.train"
cp "$UCI/iris.test" "$C/other.train"
base=(study -q "${PIN[@]}" -v 3 --no-plots -o "$C/r" --name t)
expect_exit 0 "study of a data path with a comma" -- "$FSVC" "${base[@]}" --vary radius=0.5,1 "$C/a,b.train"
expect_match "best by 3-fold CV: radius=[0-9.]+, CV accuracy (9[0-9]|100)[.0-9]*%" \
  "the comma does not shift the columns (best CV accuracy read right)" "$OUT"
csv=$C/r/study-t.csv
expect_match "^radius=0.5,\"[^\"]*/a,b.train\"," "the data path is quoted in the CSV" "$(grep '^radius=0.5' "$csv")"
cp "$csv" "$TMP/t.csv"
expect_exit 0 "resume with the same data and settings" -- "$FSVC" "${base[@]}" --vary radius=0.5,1 --resume "$C/a,b.train"
expect_match "study: 0 points run, 2 already in" "resume finds the rows of a quoted path" "$OUT"
# refused: other data, another fixed setting, other folds; the CSV untouched
cp "$csv" "$TMP/t.csv"
expect_exit 2 "resume with other data is refused" -- "$FSVC" "${base[@]}" --vary radius=0.5,1 --resume "$C/other.train"
expect_one_line "other data: one line" "$ERR"
expect_match "made with data=.*a,b.train, this run has data=.*other.train" "other data: says which" "$ERR"
expect_exit 2 "resume with another fixed prag is refused" -- "$FSVC" "${base[@]}" -p 0.5 --vary radius=0.5,1 --resume "$C/a,b.train"
expect_match "made with prag=1, this run has prag=0.5" "other prag: says which" "$ERR"
expect_exit 2 "resume with other folds is refused" -- "$FSVC" study -q "${PIN[@]}" -v 4 --no-plots -o "$C/r" --name t --vary radius=0.5,1 --resume "$C/a,b.train"
expect_match "made with folds=3, this run has folds=4" "other folds: says which" "$ERR"
expect_exit 2 "resume with fewer training samples is refused" -- "$FSVC" "${base[@]}" --max-train 50 --vary radius=0.5,1 --resume "$C/a,b.train"
expect_match "made with max-train=0, this run has max-train=50" "other --max-train: says which" "$ERR"
if cmp -s "$csv" "$TMP/t.csv"; then ok "refused resumes leave the CSV as it was"; else fail "a refused resume changed the CSV"; fi
# an axis added to the same fixed settings: only the new points run
expect_exit 0 "resume with a longer grid" -- "$FSVC" "${base[@]}" --vary radius=0.5,1,2 --resume "$C/a,b.train"
expect_match "study: 1 points run, 2 already in" "only the new point runs" "$OUT"
if [ "$(rows "$csv")" -eq 3 ]; then ok "three rows after the longer grid"; else fail "rows: $(rows "$csv")"; fi

# ---- defect 3: gnuplot missing or failing -------------------------------------
G=$TMP/g; mkdir -p "$G/none" "$G/fake"
expect_exit 3 "no gnuplot on PATH: exit 3 before any work" -- env PATH="$G/none" "$FSVC" study -q "${PIN[@]}" -v 3 -o "$G/r" "$IRIS"
expect_one_line "no gnuplot: one line" "$ERR"
expect_match "gnuplot not found.*--no-plots" "no gnuplot: says what to do" "$ERR"
[ -e "$G/r" ] && fail "no gnuplot: output written anyway" || ok "no gnuplot: nothing written"
expect_exit 0 "no gnuplot with --no-plots" -- env PATH="$G/none" "$FSVC" study -q "${PIN[@]}" -v 3 --no-plots -o "$G/r" "$IRIS"
for mode in fail empty cut; do
  case $mode in
    fail)  body='echo "gnuplot> plot" >&2; echo "         line 0: disk on fire" >&2; exit 1'
           want='gnuplot failed \(exit status 1\): line 0: disk on fire' ;;
    empty) body=':'; want='gnuplot wrote no valid PNG \(no PNG signature, 0 bytes\)' ;;
    cut)   body="$(command -v gnuplot) -d | head -c 500"; want='gnuplot wrote no valid PNG \(a chunk cut short, 500 bytes\)' ;;
  esac
  printf '#!/bin/sh\n%s\n%s\n' "$([ $mode = cut ] || echo 'cat > /dev/null')" "$body" > "$G/fake/gnuplot"
  chmod +x "$G/fake/gnuplot"
  rm -rf "$G/r"
  expect_exit 3 "gnuplot $mode: exit 3" -- env PATH="$G/fake:/usr/bin:/bin" "$FSVC" study -q "${PIN[@]}" -v 3 --vary radius=0.5,1 -o "$G/r" --name g "$IRIS"
  expect_one_line "gnuplot $mode: one line" "$ERR"
  expect_match "study-g-acc-centroids.png: $want" "gnuplot $mode: names the PNG and the cause" "$ERR"
  if ls "$G/r" | grep -q png; then fail "gnuplot $mode: PNG files left: $(ls "$G/r")"; else ok "gnuplot $mode: no PNG left"; fi
  if [ "$(rows "$G/r/study-g.csv")" -eq 2 ]; then ok "gnuplot $mode: the CSV keeps its rows"; else fail "gnuplot $mode: CSV rows"; fi
  if echo "$OUT" | grep -q "plots written"; then fail "gnuplot $mode: plots claimed"; else ok "gnuplot $mode: no plots claimed"; fi
done

# ---- defect 3: a full disk (a small tmpfs) ------------------------------------
M=$TMP/mnt; mkdir -p "$M"
if ! mount -t tmpfs -o size=512k tmpfs "$M" 2>/dev/null; then
  echo "ok - SKIPPED (LOUD): full-disk study tests: mount -t tmpfs refused (needs root)"
  exit 0
fi
trap 'umount "$M" 2>/dev/null; rm -rf "$TMP"' EXIT
fill() { dd if=/dev/zero of="$M/fill" bs=4096 2>/dev/null; sync; }   # until ENOSPC
# 1. no room for the CSV
mkdir -p "$M/a"; fill
expect_exit 3 "full disk before the CSV: exit 3" -- "$FSVC" study -q "${PIN[@]}" -v 3 --vary radius=0.5,1 -o "$M/a" --name f "$IRIS"
expect_one_line "full disk before the CSV: one line" "$ERR"
expect_match "study-f.csv: .*No space left on device" "full disk before the CSV: names the CSV" "$ERR"
if [ -z "$(ls -A "$M/a")" ]; then ok "full disk before the CSV: nothing left"; else fail "left: $(ls -A "$M/a")"; fi
if echo "$OUT" | grep -q "points run"; then fail "points claimed on a full disk"; else ok "no points claimed"; fi
rm -f "$M/fill"
# 2. a row that does not fit: a resumed CSV whose last page has room for a
#    line of the length of the 'resumed' one (now in study-f-about.txt, in
#    a page of its own) but not for the next row
mkdir -p "$M/b"
args=(study -q "${PIN[@]}" -v 3 --no-plots --vary radius=0.5,1,2 -o "$M/b" --name f --resume "$IRIS")
expect_exit 0 "a first study of two points" -- "$FSVC" study -q "${PIN[@]}" -v 3 --no-plots --vary radius=0.5,1 -o "$M/b" --name f "$IRIS"
csv=$M/b/study-f.csv
resumed="# resumed: fsvc ${args[*]}"
room=$(( ${#resumed} + 1 + 40 ))                 # a row is hundreds of bytes
size=$(stat -c %s "$csv")
pad=$(( (4096 - (size + room) % 4096) % 4096 ))
if [ $pad -ge 2 ]; then { printf '#'; head -c $((pad - 2)) /dev/zero | tr '\0' ' '; echo; } >> "$csv"
elif [ $pad -eq 1 ]; then echo >> "$csv"; fi      # an empty line is skipped too
cp "$csv" "$TMP/before.csv"
fill
expect_exit 3 "full disk at a row: exit 3" -- "$FSVC" "${args[@]}"
expect_one_line "full disk at a row: one line" "$ERR"
expect_match "study-f.csv: write error: No space left on device \(study stopped after 0 new rows" "full disk at a row: names the CSV" "$ERR"
if cmp -s "$csv" "$TMP/before.csv"; then ok "no partial row: the CSV is as before"
else fail "the CSV changed: $(tail -c 300 "$csv")"; fi
if echo "$OUT" | grep -q "points run"; then fail "points claimed at a failed row"; else ok "no points claimed at a failed row"; fi
rm -f "$M/fill"
expect_exit 0 "resume after freeing space" -- "$FSVC" "${args[@]}"
expect_match "study: 1 points run, 2 already in" "the missing point runs after space is freed" "$OUT"
# 3. room for the CSV, not for the PNGs
mkdir -p "$M/c"; fill; truncate -s -16384 "$M/fill"
expect_exit 3 "full disk at the PNGs: exit 3" -- "$FSVC" study -q "${PIN[@]}" -v 3 --vary radius=0.5,1 -o "$M/c" --name f "$IRIS"
expect_one_line "full disk at the PNGs: one line" "$ERR"
expect_match "study-f-acc-centroids.png: .*No space left on device" "full disk at the PNGs: names the PNG" "$ERR"
if [ "$(rows "$M/c/study-f.csv")" -eq 2 ]; then ok "full disk at the PNGs: CSV complete"; else fail "CSV rows"; fi
if ls "$M/c" | grep -q -e png -e tmp; then fail "files left: $(ls "$M/c")"; else ok "full disk at the PNGs: no PNG or temporary file left"; fi
if echo "$OUT" | grep -q "plots written"; then fail "plots claimed on a full disk"; else ok "no plots claimed on a full disk"; fi
rm -f "$M/fill"
# 4. room for the CSV and its sidecar (a page each), not for the radius
#    search steps (written while a point searches its radius: a flag of the
#    study, not a match on text)
mkdir -p "$M/d"; fill; truncate -s -8192 "$M/fill"
expect_exit 3 "full disk at the steps file: exit 3" -- "$FSVC" study -q "${PIN[@]}" -v 3 --no-plots --radius auto -o "$M/d" --name f "$IRIS"
expect_match "study-f-radius.txt: write error: No space left on device" "full disk at the steps file: names it" "$(echo "$ERR" | tail -n 1)"
if [ "$(rows "$M/d/study-f.csv")" -eq 0 ]; then ok "full disk at the steps file: no row claimed"; else fail "rows after a failed steps file"; fi
[ -e "$M/d/study-f-radius.txt" ] && fail "an empty steps file left" || ok "no empty steps file left"
rm -f "$M/fill"
expect_exit 0 "radius search steps with room" -- "$FSVC" study -q "${PIN[@]}" -v 3 --no-plots --radius auto -o "$M/d" --name f "$IRIS"
expect_match "^default: radius search: r = " "steps of the searched point in the steps file" "$(head -n 1 "$M/d/study-f-radius.txt")"
expect_match "^default \(cv folds\): radius search: r = " "steps of its CV folds too" "$(grep 'cv folds' "$M/d/study-f-radius.txt" | head -n 1)"
expect_exit 0 "a given radius" -- "$FSVC" study -q "${PIN[@]}" -v 3 --no-plots -r 1 -o "$M/d" --name g "$IRIS"
[ -e "$M/d/study-g-radius.txt" ] && fail "steps file without a radius search" || ok "no steps file without a radius search"
