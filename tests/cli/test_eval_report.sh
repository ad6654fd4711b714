# fsvc eval's report a person can read (issue 27, item 8): the --png
# confusion matrix has the class names on its axes, the counts in its
# cells and a colour scale (it was K x K coloured squares, no text); the
# text matrix stays aligned when class names are long.
source "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

# three PNG classes, one name long and one not ASCII
python3 - <<'PY'
import os, struct, zlib
from pngw import png
names = ["cat", "golden_retriever_with_a_very_long_folder_name_indeed", "b\u00e9b\u00e9"]
for k, name in enumerate(names):
    os.makedirs("pets/" + name, exist_ok=True)
    for i in range(5):
        png("pets/%s/%d.png" % (name, i), [(200 if c // 3 == k else 20) + (r + i) % 30 for r in range(8) for c in range(8)])
PY
"$FSVC" train -q -R onehot -r 300 -d l1 -k tri --preprocess none pets pets.fsvc >/dev/null

# ---- the text report: aligned columns ---------------------------------------
expect_exit 0 "eval with long class names" -- "$FSVC" eval pets.fsvc pets
matrix=$(echo "$OUT" | sed -n '/^confusion matrix/,/^Accuracy/p' | sed '1d;$d')
widths=$(echo "$matrix" | while IFS= read -r l; do printf '%s' "$l" | wc -m; done | sort -u)
[ "$(echo "$widths" | wc -l)" = 1 ] && ok "text matrix: every line as wide" \
  || fail "text matrix not aligned (widths $(echo $widths)):
$matrix"
expect_match '^ +#1 +#2 +#3$' "long names: columns by class number" "$matrix"
expect_match '^#3 golden_retriever_with_a_very_long_fol\.\.\. +0 +0 +5$' "long names: rows name them, cut at 40" "$matrix"
expect_match 'classes by number' "long names: the header says so" "$OUT"
report=$(echo "$OUT" | sed -n '/precision/,/^$/p' | sed '$d')
widths=$(echo "$report" | while IFS= read -r l; do printf '%s' "$l" | wc -m; done | sort -u)
[ "$(echo "$widths" | wc -l)" = 1 ] && ok "precision/recall table aligned" || fail "table: $report"
"$FSVC" train -q "$UCI/iris.train" iris.fsvc >/dev/null
expect_exit 0 "eval with short class names" -- "$FSVC" eval iris.fsvc "$UCI/iris.test"
expect_match '^ +1 +2 +3$' "short names head the columns" "$OUT"

# ---- the PNG: what gnuplot is asked to draw (a stand-in records it) ---------
mkdir bin
printf '#!/bin/sh\ncat > "%s/prog.gp"\ncat "%s/good.png"\n' "$TMP" "$TMP" > bin/gnuplot
chmod +x bin/gnuplot
expect_exit 0 "eval --png with the real gnuplot" -- "$FSVC" eval pets.fsvc pets --png good.png
size=$(python3 -c 'import struct,sys; b=open("good.png","rb").read(24); print("%dx%d" % struct.unpack(">II", b[16:24]))')
w=${size%x*}
[ "$w" -ge 400 ] && ok "the PNG is $size, room for names and a scale" || fail "PNG is $size"
expect_exit 0 "eval --png (stand-in gnuplot)" -- env PATH="$TMP/bin:$PATH" "$FSVC" eval pets.fsvc pets --png c.png
P=$(cat prog.gp 2>/dev/null)
expect_match "set xlabel 'predicted class'" "PNG: x axis named" "$P"
expect_match "set ylabel 'true class" "PNG: y axis named" "$P"
expect_match "set cblabel 'share of the true class \(row\), %'" "PNG: a colour scale with its unit" "$P"
expect_match "set xtics \(\('bébé'\) 0, \('cat'\) 1, \('golden_retriever_with\.\.\.'\) 2\)" "PNG: class names on x" "$P"
expect_match "set ytics \(\('bébé \(5\)'\) 0, \('cat \(5\)'\) 1" "PNG: true classes with their counts on y" "$P"
expect_match '^1 1 "5" ' "PNG: counts in the cells" "$P"
expect_match "accuracy 100\.00%" "PNG: the title says the accuracy" "$P"

# ---- no gnuplot: exit 3 before any work ---------------------------------------
mkdir none
expect_exit 3 "eval --png without gnuplot: exit 3" -- env PATH="$TMP/none" "$FSVC" eval pets.fsvc pets --png x.png
expect_one_line "no gnuplot: one line" "$ERR"
expect_match "gnuplot not found.*gnuplot-nox" "no gnuplot: says what to install" "$ERR"
[ -z "$OUT" ] && ok "no gnuplot: nothing evaluated" || fail "no gnuplot: $OUT"
