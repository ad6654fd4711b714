# A LIBSVM user's options (issue 27, item 12): svm-train's -c, -g, -t
# and a numeric -s get one line naming the fsvc option to use and the
# README's "Coming from LIBSVM" section, which maps -s -t -c -g -b -w -v.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMP" || exit 1
SEE="see 'Coming from LIBSVM' in README.md"

# hint CMD NAME REGEX -- ARGS...: exit 1, the first line matches and ends with SEE
hint() {
  local name=$1 re=$2; shift 3
  expect_exit 1 "$name: usage error" -- "$FSVC" "$@"
  expect_match "$re" "$name: says what to use" "$(echo "$ERR" | head -n 1)"
  expect_match "$SEE\$" "$name: points to the README" "$(echo "$ERR" | head -n 1)"
}
hint "train -c" "unknown option -c: svm-train's cost C .* -l LAMBDA" -- train -c 10 "$UCI/iris.train"
hint "train -g 0.5" "RBF gamma is the radius -r R .*\(-g 0\.5 is -r 1\)" -- train -g 0.5 "$UCI/iris.train"
hint "train -g 0.02" "\(-g 0\.02 is -r 5\)" -- train -g 0.02 "$UCI/iris.train"
hint "train -t 0" "kernel type; .*-d l2 -k gauss" -- train -t 0 "$UCI/iris.train"
expect_exit 0 "train -b 1 is svm-train's -b 1: a calibrated model" -- "$FSVC" train -q -b 1 "$UCI/iris.train" b.fsvc
hint "train -s 0" "-s 0: that is svm-train's SVM type; fsvc's -s is the centroid selection" -- \
  train -s 0 "$UCI/iris.train"
hint "study -c" "unknown option -c: svm-train's cost C" -- study -c 1 -v 3 "$UCI/iris.train"
hint "study -g" "RBF gamma" -- study -g 1 -v 3 "$UCI/iris.train"
expect_exit 0 "train -s global still trains" -- "$FSVC" train -q -s global -R onehot -r 1 "$UCI/iris.train" g.fsvc

# the README section: a row for each svm-train option the hints name
sec=$(awk '/^### Coming from LIBSVM$/ { f = 1; next } /^### / { f = 0 } f' "$ROOT/README.md")
[ -n "$sec" ] && ok "README has 'Coming from LIBSVM'" || fail "README: no '### Coming from LIBSVM' section"
for o in '-s 0' '-s 3' '-t 2' '-g GAMMA' '-c C' '-b 1' '-w LABEL W' '-v K'; do
  echo "$sec" | grep -q "^| \`$o" && ok "README maps svm-train $o" || fail "README: no row for svm-train $o"
done
# the radius the table gives for gamma: r = 1/sqrt(2 gamma) is the radius
# whose Gaussian exp(-d^2/(2 r^2)) equals LIBSVM's exp(-gamma d^2); same CV
if command -v svm-train >/dev/null; then
  a=$("$FSVC" train -q -r 1 -v 5 "$UCI/iris.train"); b=$(svm-train -g 0.5 -v 5 "$UCI/iris.train" | tail -n 1)
  expect_match "= 9[0-9]" "train -r 1 -v 5 on iris: as accurate as svm-train -g 0.5 ($a; LIBSVM: $b)" "$a"
fi
