#!/usr/bin/env bash
# demo.sh BIN DATA_DIR - the main job on the default dataset: train FSVC on
# Fashion-MNIST with the 2-core preset (scripts/presets.sh), evaluate on its
# test set, and print accuracy and times. Called by `make demo`.
set -euo pipefail
bin=${1:-build/fsvc}
data=${2:-/usr/share/datasets/fashion-mnist}
if [ ! -e "$data/train-images-idx3-ubyte.gz" ] && [ ! -e "$data/train-images-idx3-ubyte" ]; then
  echo "demo: no dataset at $data (install dataset-fashion-mnist, or DEMO_DATA=DIR)" >&2
  exit 2
fi
out=${DEMO_OUT:-build/demo}
mkdir -p "$out"
"$bin" info | sed -n '1,12p'
echo
"$bin" data "$data/train"
echo
if "$bin" --help | grep -q '^  train'; then
  # the 2-core Fashion-MNIST preset (README, scripts/presets.sh)
  opts=$(bash "$(dirname "$0")/../scripts/presets.sh" --options fashion-2core)
  echo "fsvc train $opts $data/train"
  # shellcheck disable=SC2086 # the options are words
  "$bin" train $opts "$data/train" "$out/fashion.fsvc"
  echo
  "$bin" predict "$out/fashion.fsvc" "$data/t10k" "$out/fashion-t10k.csv"
fi
