# CLI tests of regression (issue 27 item 6): labels that look continuous
# (many distinct values, few samples each, or fractions) trained as
# classes get one warning naming --regression, and labels of a few classes
# do not; --regression's own defaults (fsvc/params.c, chosen by
# scripts/regression.py) reach at least SVR()'s R^2 on diabetes on a fixed
# split (train_test_split, test 25 %, random_state 0), in the same run; a
# -r or -l given with --regression is kept; -v K on regression reports the
# cross-validated R^2 and RMSE (svm-train -v's "Cross Validation Mean
# squared error" and "Squared correlation coefficient" lines).
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY -c 'import sklearn' 2>/dev/null || { fail "$PY lacks scikit-learn (make deps installs it)"; exit 1; }
cd "$TMP"

svr=$($PY - <<'PY'
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.svm import SVR
X, y = load_diabetes(return_X_y=True)
Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.25, random_state=0)
for fn, XX, yy in (("dia.train", Xa, ya), ("dia.test", Xb, yb)):
    with open(fn, "w") as f:
        for r, t in zip(XX, yy):
            f.write("%.17g " % t + " ".join("%d:%.17g" % (j + 1, v) for j, v in enumerate(r)) + "\n")
with open("frac.train", "w") as f:  # 60 fractional labels
    for i in range(60):
        f.write("%.3f 1:%d 2:%d\n" % (i / 7.0, i % 5, i % 3))
print("%.6f" % SVR().fit(Xa, ya).score(Xb, yb))
PY
) || fail "writing the diabetes split"

# continuous-looking labels warn, with the fix
expect_exit 0 "diabetes as classes" -- "$FSVC" train dia.train cls.fsvc
expect_match "warning: dia.train: [0-9]+ distinct labels .* look like a continuous target; .*give --regression" \
  "integer target with few samples a label: warned" "$ERR"
expect_exit 0 "fractional labels as classes" -- "$FSVC" train frac.train frac.fsvc
expect_match "60 distinct labels \(5[0-9] not integers" "fractional labels: warned" "$ERR"
expect_exit 0 "iris as classes" -- "$FSVC" train "$UCI/iris.train" iris.fsvc
echo "$ERR" | grep -q "continuous" && fail "iris (3 classes) warned" || ok "iris: no warning"
expect_exit 0 "-q silences it" -- "$FSVC" train -q dia.train cls.fsvc
[ -z "$ERR" ] && ok "-q: no warning" || fail "-q: $ERR"

# the regression defaults against SVR() on the same split
expect_exit 0 "train --regression" -- "$FSVC" train -q --regression dia.train reg.fsvc
expect_exit 0 "predict regression" -- "$FSVC" predict reg.fsvc dia.test reg.out
r2=$(echo "$OUT" | sed -n 's/.*R^2 = \([-0-9.e]*\).*/\1/p')
awk -v f="$r2" -v s="$svr" 'BEGIN { exit !(f >= s && f > 0.35) }' \
  && ok "--regression defaults: R^2 $r2 >= SVR() $svr (and > 0.35)" \
  || fail "--regression defaults: R^2 $r2, SVR() $svr"
# a radius given (before or after --regression) is kept
expect_exit 0 "-r before --regression" -- "$FSVC" train -q -r 0.45rms -l 1e-5 --regression dia.train r1.fsvc
expect_exit 0 "-r after --regression" -- "$FSVC" train -q --regression -r 0.45rms -l 1e-5 dia.train r2.fsvc
cmp -s r1.fsvc r2.fsvc && ok "the given -r/-l win in either order" || fail "-r/-l order changes the model"
cmp -s r1.fsvc reg.fsvc && fail "the given -r/-l were replaced by the defaults" || ok "-r/-l differ from the defaults"

# -v K for regression: R^2 and RMSE of the pooled held-out predictions
expect_exit 0 "-v 5 --regression" -- "$FSVC" train -v 5 --regression dia.train
expect_match "Cross Validation Mean squared error = [0-9.e+]+" "-v: the mean squared error" "$OUT"
expect_match "Cross Validation R\^2 = 0\.[3-9]" "-v: R^2 over 0.3" "$OUT"
expect_match "RMSE [0-9.]+ \+- [0-9.]+ over the folds" "-v: RMSE per fold" "$OUT"
