# A new user's first steps (issue 27, item 7): `make install` puts fsvc in
# reach; study and bench --paper write into a folder of their own in the
# working directory, never over the repository's tracked results/ (run
# from the root, a study once replaced results/study-optd64.* and deleted
# results/study-optd64-radius.txt); `pip install ./python` works offline.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(dirname "$FSVC")

# ---- study and bench: their own folders -----------------------------------
mkdir -p "$TMP/root/results" && cd "$TMP/root" || exit 1
echo tracked > results/study-iris.csv
echo tracked > results/study-iris-radius.txt
echo tracked > results/bnl-cpu.csv
expect_exit 0 "study with the default output folder" -- \
  "$FSVC" study -q --no-plots -R onehot --radius 0.5rms,auto -v 3 "$UCI/iris.train"
expect_match "already in fsvc-study-iris/study-iris.csv" "study: names fsvc-study-iris/" "$OUT"
[ -s fsvc-study-iris/study-iris.csv ] && [ -s fsvc-study-iris/study-iris-radius.txt ] \
  && ok "study: CSV and radius steps in fsvc-study-iris/" || fail "study: $(ls -R)"
kept=$(cat results/study-iris.csv results/study-iris-radius.txt | sort -u)
[ "$kept" = tracked ] && ok "study: results/ untouched" || fail "study: results/ changed: $(ls results)"
expect_exit 0 "study --resume finds its folder" -- \
  "$FSVC" study -q --no-plots -R onehot --radius 0.5rms,auto -v 3 --resume "$UCI/iris.train"
expect_match "0 points run, 2 already in fsvc-study-iris/study-iris.csv" "resume: nothing rerun" "$OUT"
# bench: a file where its folder would go stops it at once, naming the path
touch fsvc-bench
expect_exit 3 "bench --paper: default csv in fsvc-bench/" -- "$FSVC" bench --paper
expect_match '^fsvc: fsvc-bench/bnl-cpu.csv: fsvc-bench is not a folder$' "bench --paper: names it" "$ERR"
expect_exit 3 "bench --targets: default csv in fsvc-bench/" -- "$FSVC" bench --targets
expect_match 'fsvc-bench/bnl-cpu-targets.csv' "bench --targets: names it" "$ERR"
[ "$(cat results/bnl-cpu.csv)" = tracked ] && ok "bench: results/ untouched" || fail "bench: results/bnl-cpu.csv changed"

# ---- make install: fsvc in reach ----------------------------------------------
# -o all: install what this build holds, never remake it (a make without
# its switches, NO_CUDA=1 or SAN=1, would rebuild it otherwise, fsvc.pc too)
make -s --no-print-directory -o all -C "$ROOT" BUILD="$B" DESTDIR="$TMP/inst" PREFIX=/usr/local \
  install >"$TMP/make.log" 2>&1 && ok "make install DESTDIR" || fail "make install: $(tail -3 "$TMP/make.log")"
expect_exit 0 "the installed fsvc runs from PATH" -- env PATH="$TMP/inst/usr/local/bin:$PATH" fsvc data "$UCI/iris.test"
expect_match '^size: 50 x 4' "the installed fsvc reads data" "$OUT"
# the MPI plugin (tools/mpi_plugin.c) in PREFIX/lib/fsvc, found from PREFIX/bin
if "$FSVC" info 2>/dev/null | grep -q '^mpi: Open MPI'; then
  expect_exit 0 "the installed fsvc info" -- env PATH="$TMP/inst/usr/local/bin:$PATH" fsvc info
  expect_match '^mpi: Open MPI' "the installed fsvc finds its MPI plugin" "$OUT"
fi

# ---- pip install ./python, offline, then import from elsewhere -------------
PY=/usr/bin/python3
if ! $PY -c 'import setuptools, numpy, sklearn' 2>/dev/null; then
  fail "pip install: $PY lacks setuptools, numpy or scikit-learn (make deps installs them)"
else
  # a copy of python/ beside the build, as in the tree: pip builds in place
  mkdir -p "$TMP/src" && cp -r "$ROOT/python" "$TMP/src/" && ln -s "$B" "$TMP/src/build"
  PIP_DISABLE_PIP_VERSION_CHECK=1 $PY -m pip install -q --no-build-isolation --no-index \
    --no-deps --target "$TMP/site" "$TMP/src/python" >"$TMP/pip.log" 2>&1 \
    && ok "pip install ./python, offline" || fail "pip install: $(grep -v WARNING "$TMP/pip.log" | tail -3)"
  out=$(cd / && PYTHONPATH="$TMP/site" $PY -c 'import fsvc, numpy as np
X = np.array([[0, 0], [0, 1], [5, 5], [5, 6]], float); y = [0, 0, 1, 1]
print(fsvc.library_path); print(fsvc.FSVCClassifier().fit(X, y).score(X, y))' 2>&1)
  expect_match "^$TMP/site/fsvc/libfsvc.so.0$" "the package uses its own libfsvc.so.0" "$out"
  expect_match '^1\.0$' "the installed package trains and predicts" "$out"
fi
