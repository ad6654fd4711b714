#!/usr/bin/env bash
# Ranks that do not see the same files (issue 26 items 2-4): nodes are
# emulated by per-rank working folders (mpirun -wdir d0 ... : -wdir d1 ...).
# A data file missing on one rank, plain on one and gzipped on another,
# different data under one name, a different model under one name: every
# rank stops, one line naming the file, exit 2, nothing written; before,
# these hung (missing, plain/gz), trained a mixed model (exit 0) or
# corrupted the heap (exit 134).
source "$(dirname "$0")/lib.sh"

if ! command -v mpirun >/dev/null; then
  fail "mpirun not found: install openmpi-bin libopenmpi-dev (make deps)"; exit 1
fi
if ! "$FSVC" info 2>/dev/null | grep -q '^mpi: Open MPI'; then
  fail "$FSVC was built without Open MPI (mpicc missing at build time)"; exit 1
fi
MPI=(timeout -k 5 60 mpirun -q --bind-to none --oversubscribe --allow-run-as-root)
cd "$TMP"
mkdir d0 d1
# two_ranks NAME ARGS...: rank 0 in d0, rank 1 in d1, the same command line
two_ranks() {
  local name=$1; shift
  expect_exit 2 "$name: exit 2, no hang" -- "${MPI[@]}" -np 1 -wdir "$TMP/d0" "$FSVC" "$@" : \
    -np 1 -wdir "$TMP/d1" "$FSVC" "$@"
  expect_one_line "$name: one line" "$ERR"
}

# 2: the data missing on rank 1 (train, predict)
cp "$UCI/iris.train" d0/data.train
two_ranks "train, data missing on rank 1" train -q data.train m.fsvc
expect_match '^fsvc: rank 1 of 2: data.train: no such file' "train, missing on rank 1: names the rank and file" "$ERR"
if [ ! -e d0/m.fsvc ]; then ok "train, missing on rank 1: no model"; else fail "a model was written"; fi
"$FSVC" train -q "$UCI/iris.train" d0/iris.fsvc >/dev/null && cp d0/iris.fsvc d1/iris.fsvc
two_ranks "predict, data missing on rank 1" predict iris.fsvc data.train out.txt
if [ ! -e d0/out.txt ]; then ok "predict, missing on rank 1: no output"; else fail "an output was written"; fi
# 2: plain on rank 0, the same bytes gzipped on rank 1 (one name)
gzip -c "$UCI/iris.train" > d1/data.train
two_ranks "train, plain on rank 0, gzip on rank 1" train -q data.train m.fsvc
expect_match 'rank 1 of 2: data.train: not the data rank 0 reads \(gzipped here, plain on rank 0\)' \
  "plain/gzip: says which" "$ERR"
# 3: different data under one name: iris on rank 0, optd64 on rank 1
cp "$UCI/optd64.train" d1/data.train
two_ranks "train, other data on rank 1" train -q data.train m.fsvc
expect_match 'rank 1 of 2: data.train: not the data rank 0 reads \([0-9]+ bytes here' \
  "other data: says so" "$ERR"
if [ ! -e d0/m.fsvc ]; then ok "other data: no model"; else fail "a model mixing two data sets was written"; fi
# 4: a 10-class model on rank 0, a 3-class one on rank 1 (one name)
"$FSVC" train -q "$UCI/optd64.train" d0/m.fsvc >/dev/null
cp "$UCI/iris.train" d0/data.train; cp "$UCI/iris.train" d1/data.train
cp d0/iris.fsvc d1/m.fsvc
two_ranks "predict, other model on rank 1" predict m.fsvc data.train out.txt
expect_match 'rank 1 of 2: m.fsvc: not the model rank 0 reads \(CRC32 ' "other model: says so" "$ERR"
if [ ! -e d0/out.txt ]; then ok "other model: no output"; else fail "an output was written"; fi
two_ranks "eval, other model on rank 1" eval m.fsvc data.train
expect_match 'rank 1 of 2: m.fsvc: not the model rank 0 reads' "eval, other model: says so" "$ERR"
# study: every rank loads the whole data; other data on rank 1 is refused
# (it ran, each rank on its own data, exit 0)
cp "$UCI/optd64.train" d1/data.train
expect_exit 2 "study, other data on rank 1: exit 2, no hang" -- "${MPI[@]}" -np 1 -wdir "$TMP/d0" \
  "$FSVC" study -q --no-plots -v 2 --vary radius=1rms,2rms -o st data.train : \
  -np 1 -wdir "$TMP/d1" "$FSVC" study -q --no-plots -v 2 --vary radius=1rms,2rms -o st data.train
expect_match 'rank 1 of 2: data.train: not the data rank 0 reads \(CRC32 ' "study, other data: says so" "$ERR"
if [ ! -e d0/st/study-data.csv ]; then ok "study, other data: no CSV"; else fail "study wrote a CSV"; fi
