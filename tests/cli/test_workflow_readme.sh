#!/usr/bin/env bash
# Every example in README.md runs as written (issue 14 point 17): the lines
# of its ```sh blocks, in order, from a scratch folder that links the
# repository's data/ (as the README runs from the repository root), with
# the fsvc under test first on PATH. A line runs unless SKIP below names
# it (the whole line, comment dropped) with the reason: only lines that need a GPU, minutes of
# CPU, the user's own files, or that are this test suite itself. A SKIP
# entry that matches no README line fails (the list stays true).
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
README=$ROOT/README.md
declare -A SKIP=(
  ["make demo"]="installs packages (apt-get, as root) and trains on Fashion-MNIST: minutes"
  ["make test"]="the test suite itself, this script included"
  ["make check-full"]="make test, its full matrices and the portability runs: tens of minutes"
  ["make python-test"]="part of make test"
  ["make fuzz"]="libFuzzer (clang) for FUZZ_SECONDS per target: minutes"
  ["make fuzz-replay"]="part of make test"
  ["make results"]="regenerates results/: tens of minutes of CPU"
  ["make test-cuda"]="needs a GPU"
  ["make install PREFIX=/usr/local"]="writes into /usr/local"
  ["make install PREFIX=\"\$HOME/.local\""]="writes into ~/.local (tests/cli/test_first_steps.sh installs into a scratch folder)"
  ["make"]="the build, done before this test runs"
  ["PYTHONPATH=python /usr/bin/python3 example.py"]="the python block is run as written by tests/python/test_interop.py"
  ["fsvc train data/mnist/train"]="60000 samples x 10000 centroids: about a minute on an idle 2-core machine, minutes under load"
  ["fsvc train pets/ pets.fsvc"]="needs your own folder of PNG images"
  ["fsvc predict pets.fsvc photos/ out.csv"]="needs your own PNG folders (pets.fsvc, photos/)"
  ["fsvc train --resize 64x64 --channels 3 pets/ pets.fsvc"]="needs your own folder of images (tests/cli/test_jpeg.sh runs --resize and --channels 3)"
  ["fsvc predict pets.fsvc a.png b.jpg"]="needs your own images (tests/cli/test_no_overwrite.sh and test_jpeg.sh run such lines)"
  ["fsvc show pets.fsvc --png centroids.png"]="needs pets.fsvc, trained on your own images"
  ["fsvc train --max-neurons 20000 -l 1e-6 --features hog --preprocess deskew+sqrt --precision bf16 data/mnist/train mnist-2core.fsvc"]="a preset: about a minute of 2-core CPU (scripts/presets.sh runs it)"
  ["fsvc train --max-neurons 20000 -l 1e-6 --features hog --preprocess sqrt --precision bf16 /usr/share/datasets/fashion-mnist/train fashion-2core.fsvc"]="a preset: about a minute of 2-core CPU (scripts/presets.sh runs it)"
  ["fsvc bench --paper"]="the paper's tables: about 90 s of CPU, minutes under load"
  ["fsvc tune --backend cuda"]="needs a GPU"
)
W=$TMP/work
mkdir -p "$W"
ln -s "$ROOT/data" "$W/data"
# the venv lines write ~/fsvc-env: HOME is a scratch folder; pip builds
# ./python in place, so a copy of it, beside the build under test
export HOME=$TMP/home PIP_DISABLE_PIP_VERSION_CHECK=1
mkdir -p "$HOME"
cp -r "$ROOT/python" "$W/python" && ln -s "$(dirname "$FSVC")" "$W/build"
export PATH="$(dirname "$FSVC"):$PATH"
[ "$(command -v fsvc)" = "$FSVC" ] || { fail "fsvc on PATH is not $FSVC"; exit 0; }
declare -A used=()
n_run=0
# the lines of the ```sh blocks, comments after '#' dropped
mapfile -t lines < <(awk '/^```sh$/ { f = 1; next } /^```/ { f = 0 } f' "$README")
for raw in "${lines[@]}"; do
  line=$(printf '%s' "$raw" | sed 's/[[:space:]]*#.*$//; s/[[:space:]]*$//')
  [ -n "$line" ] || continue
  skipped=""
  if [ -n "${SKIP[$line]+set}" ]; then skipped=$line; used[$line]=1; fi
  if [ -n "$skipped" ]; then
    ok "README: skipped '$line': ${SKIP[$skipped]}"
    continue
  fi
  if [[ $line =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*$ ]]; then  # an assignment for later lines
    eval "export $line"
    continue
  fi
  n_run=$((n_run + 1))
  (cd "$W" && eval "$line") >"$TMP/out" 2>"$TMP/err"; rc=$?
  if [ $rc -eq 0 ]; then ok "README runs: $line"
  else fail "README: '$line' exited $rc: $(head -c 300 "$TMP/err")"; fi
done
for k in "${!SKIP[@]}"; do
  [ -n "${used[$k]:-}" ] || fail "SKIP entry '$k' matches no README line (stale)"
done
if [ $n_run -ge 10 ]; then ok "README: $n_run example lines ran"; else fail "README: only $n_run example lines ran"; fi
# what the examples promise
[ -s "$W/t10k.libsvm" ] && ok "README: t10k.libsvm written" || fail "README: no t10k.libsvm"
[ -s "$W/optd64.train.fsvc" ] && ok "README: the default model name" || fail "README: no optd64.train.fsvc"
[ -s "$W/conf.png" ] && ok "README: conf.png written" || fail "README: no conf.png"
out=$(cd / && "$HOME/fsvc-env/bin/python" -c 'import fsvc; print(fsvc.library_path)' 2>&1)
expect_match "^$HOME/fsvc-env/lib/python3[.0-9]*/site-packages/fsvc/libfsvc.so.0$" \
  "README: the venv's fsvc imports from elsewhere, with its own libfsvc.so.0" "$out"
