#!/usr/bin/env bash
# presets_search.sh [FSVC] DATA 'OPTIONS' ['OPTIONS' ...] - the trials behind
# the 2-core presets (scripts/presets.sh). DATA is mnist or fashion. Each
# OPTIONS (fsvc train options, one string) is trained on the first 50000
# training images and scored on the last 10000 (held-out: what the presets
# are chosen by); with FULL=1 it is then trained on all 60000 and scored on
# the test set (reported, not used to choose). One row per run is appended
# to $RESULTS/presets-search.csv: the training time (the `time:` line's
# total), the process's CPU time (user + sys) and the load average at the
# start and end, since the machine is shared and the wall clock is inflated
# by the others' load.
#   MNIST_DIR, FASHION_DIR  the data folders (as scripts/presets.sh)
#   SPLIT_DIR               where the 50000/10000 split is written (once)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
R=${RESULTS:-results}
MNIST_DIR=${MNIST_DIR:-$here/data/mnist}
FASHION_DIR=${FASHION_DIR:-/usr/share/datasets/fashion-mnist}
SPLIT_DIR=${SPLIT_DIR:-${TMPDIR:-/tmp}/fsvc-presets-split}
FSVC=build/fsvc
case "${1:-}" in mnist|fashion) ;; *) FSVC=$1; shift ;; esac
data=${1:?usage: presets_search.sh [FSVC] mnist|fashion OPTIONS...}
shift
dir=$MNIST_DIR
[ "$data" = fashion ] && dir=$FASHION_DIR
[ "$data" = mnist ] || [ "$data" = fashion ] || { echo "presets_search: data is mnist or fashion, not '$data'" >&2; exit 1; }

# the split: IDX files of the first 50000 (fit) and last 10000 (val) images
split=$SPLIT_DIR/$data
if [ ! -e "$split/val-labels-idx1-ubyte" ]; then
  mkdir -p "$split"
  python3 - "$dir" "$split" <<'EOF' || { echo "presets_search: cannot split $dir" >&2; exit 2; }
import gzip, os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
def read(name):  # IDX, gzipped or not
    p = f"{src}/{name}"
    return open(p, "rb").read() if os.path.exists(p) else gzip.open(p + ".gz").read()
img, lab = read("train-images-idx3-ubyte"), read("train-labels-idx1-ubyte")
assert struct.unpack(">IIII", img[:16]) == (0x803, 60000, 28, 28)
for part, a, b in (("fit", 0, 50000), ("val", 50000, 60000)):
    with open(f"{dst}/{part}-images-idx3-ubyte", "wb") as f:
        f.write(struct.pack(">IIII", 0x803, b - a, 28, 28) + img[16 + 784 * a:16 + 784 * b])
    with open(f"{dst}/{part}-labels-idx1-ubyte", "wb") as f:
        f.write(struct.pack(">II", 0x801, b - a) + lab[8 + a:8 + b])
EOF
fi

csv=$R/presets-search.csv
mkdir -p "$R"
[ -s "$csv" ] || echo "date,data,options,stage,train_n,scored_on,accuracy,train_s,cpu_s,wall_s,load1_start,load1_end,centroids,cg_iterations" > "$csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run STAGE TRAIN EVAL OPTIONS: one training and its score, one CSV row
run() {
  local stage=$1 train=$2 evalset=$3 opts=$4 n=50000 on=heldout l0 l1 t0 t1 c0 c1 tt acc
  [ "$stage" = full ] && { n=60000; on="test"; }
  l0=$(cut -d' ' -f1 /proc/loadavg)
  read -r c0 < <(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086 # the options are words
  if ! "$FSVC" train $opts "$train" "$tmp/m.fsvc" > "$tmp/out" 2>&1; then
    echo "presets_search: $data $opts: train failed:" >&2; cat "$tmp/out" >&2; return 1
  fi
  t1=$(date +%s.%N)
  read -r c1 < <(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  l1=$(cut -d' ' -f1 /proc/loadavg)
  grep -E '^(ridge|time|pcg|preprocess|centroids)' "$tmp/out" | sed 's/^/  /' >&2
  tt=$(sed -n 's/^time: .* total \([0-9.]*\) s$/\1/p' "$tmp/out")
  local m it
  m=$(sed -n 's/^centroids: \([0-9]*\).*/\1/p' "$tmp/out")
  it=$(sed -n 's/^ridge: pcg, .*; \([0-9]*\) iterations, .*$/\1/p' "$tmp/out")
  acc=$("$FSVC" eval "$tmp/m.fsvc" "$evalset" | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
  local cpu wall
  cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) / hz }')
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  echo "presets_search: $data [$opts] $stage: $acc % ($on), training $tt s, cpu $cpu s, load $l0 -> $l1" >&2
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'),$data,$opts,$stage,$n,$on,$acc,$tt,$cpu,$wall,$l0,$l1,$m,$it" >> "$csv"
}

for opts in "$@"; do
  if [ "${FULL:-0}" != only ]; then
    run heldout "$split/fit" "$split/val" "$opts" || exit 1
  fi
  if [ "${FULL:-0}" != 0 ]; then
    run full "$dir/train" "$dir/t10k" "$opts" || exit 1
  fi
done
