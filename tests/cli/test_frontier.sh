# CLI test of scripts/frontier.sh on a tiny setting (satimg, m = 50 and 150):
# the CSV (header, 4 selections x 2 m, accuracies in (0, 100]), the PNG
# and frontier.md are made; a bad argument is refused.
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)

is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

expect_exit 1 "frontier.sh: unknown argument refused" -- bash "$here/scripts/frontier.sh" --bogus
if [ -f "$UCI/satimg.train" ] && command -v gnuplot >/dev/null; then
  expect_exit 0 "frontier.sh on satimg, 2 values of m" -- env FSVC="$FSVC" \
    bash "$here/scripts/frontier.sh" -o "$TMP/r" -m "50 150" --data "sat=$UCI/satimg.train,$UCI/satimg.test"
  csv=$TMP/r/frontier-sat.csv
  expect_match '^data,select,m_target,m,prag,radius,acc_test,t_train_s,t_select_s,t_predict_s$' \
    "frontier CSV header" "$(head -n 1 "$csv" 2>/dev/null)"
  n=$(tail -n +2 "$csv" | grep -c .)
  [ "$n" -eq 8 ] && ok "frontier CSV: 8 rows" || fail "frontier CSV: $n rows, wanted 8"
  for s in random global per-class kmeans++; do
    k=$(awk -F, -v s="$s" 'NR > 1 && $1 == "sat" && $2 == s && ($3 == 50 || $3 == 150) &&
                           $4 >= 1 && $4 <= $3 && $7 > 0 && $7 <= 100' "$csv" | grep -c .)
    [ "$k" -eq 2 ] && ok "frontier CSV: $s at both m, well-formed" || fail "frontier CSV: $s rows: $k"
  done
  k=$(awk -F, 'NR > 1 && ($2 == "random" || $2 == "kmeans++") && $4 != $3' "$csv" | grep -c .)
  [ "$k" -eq 0 ] && ok "random and kmeans++ take exactly m" || fail "random/kmeans++: $k rows off m"
  is_png "$TMP/r/frontier-sat.png" && ok "frontier PNG written" || fail "frontier PNG missing or not a PNG"
  [ -s "$TMP/r/frontier.md" ] && ok "frontier.md written" || fail "frontier.md missing"
fi
