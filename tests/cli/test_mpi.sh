# CLI tests of fsvc across Open MPI processes (issue 13): for K ranks
# (1..4 under make check-full, a few per set in make test), train gives a
# model whose predictions on the UCI test sets and on MNIST (a 5000-sample
# training subset, pixels and --features hog) are the one-process predictions;
# the same K twice gives the same model bytes; sharded predict/eval give
# the one-process output file and one Accuracy line; a failing rank stops
# every rank with one message, a non-zero exit and no output file. (pcg and
# study across processes: test_mpi_pcg_study.sh)
# mpirun must exist (make deps installs openmpi-bin): no silent skip.
source "$(dirname "$0")/lib.sh"
README=$(cd "$(dirname "$0")/../.." && pwd)/README.md

if ! command -v mpirun >/dev/null; then
  fail "mpirun not found: install openmpi-bin libopenmpi-dev (make deps)"; exit 1
fi
if ! "$FSVC" info 2>/dev/null | grep -q '^mpi: Open MPI'; then
  fail "$FSVC was built without Open MPI (mpicc missing at build time)"; exit 1
fi
# every run is bounded: a hang (a rank stuck in a collective) fails the check
# instead of stopping the test run
MPIRUN=(timeout -k 5 120 mpirun -q --bind-to none --oversubscribe --allow-run-as-root)
cd "$TMP"

# same_preds NAME "KS" DATA TEST TRAIN-OPTIONS...: one-process model vs K
# ranks for K in KS (make check-full: 1 2 3 4)
same_preds() {
  local name=$1 ks=$2 data=$3 test=$4; shift 4
  [ "$FULL" = 1 ] && ks="1 2 3 4"
  "$FSVC" train -q "$@" "$data" one.fsvc >/dev/null 2>&1 || { fail "$name: one-process train"; return; }
  "$FSVC" predict one.fsvc "$test" one.txt >/dev/null 2>&1
  for K in $ks; do
    rm -f k.fsvc k.txt
    expect_exit 0 "$name: train on $K ranks" -- "${MPIRUN[@]}" -np $K "$FSVC" train -q "$@" "$data" k.fsvc
    "$FSVC" predict k.fsvc "$test" k.txt >/dev/null 2>&1
    cmp -s one.txt k.txt && ok "$name: $K ranks predict as one process" \
      || fail "$name: $K ranks predict as one process ($(cmp one.txt k.txt | head -c 100))"
  done
}

# even and uneven slices (2, 3 ranks), more ranks than cores (4) on iris;
# one rank count per other set
declare -A KS=([iris]="2 3 4" [optd64]=3 [phoneme]=2 [satimg]=3)
for set in iris optd64 phoneme satimg; do
  [ -f "$UCI/$set.train" ] || { fail "$UCI/$set.train missing"; continue; }
  same_preds "$set" "${KS[$set]}" "$UCI/$set.train" "$UCI/$set.test" -r 1rms --solver direct
done

# MNIST: the first 5000 training images as an IDX pair (header count patched)
mkdir -p mn
idx_head() { # idx_head IN OUT HEADER_BYTES RECORD_BYTES COUNT
  { zcat "$1" | head -c 4; printf "\\x$(printf %02x $(($5 >> 24 & 255)))\\x$(printf %02x $(($5 >> 16 & 255)))\\x$(printf %02x $(($5 >> 8 & 255)))\\x$(printf %02x $(($5 & 255)))"
    zcat "$1" | head -c $(($3 + $4 * $5)) | tail -c +9; } > "$2"
}
idx_head "$MNIST/train-images-idx3-ubyte.gz" mn/train-images-idx3-ubyte 16 784 5000
idx_head "$MNIST/train-labels-idx1-ubyte.gz" mn/train-labels-idx1-ubyte 8 1 5000
same_preds "mnist 5000" 3 mn/train "$MNIST/t10k-images-idx3-ubyte.gz" -r 1rms --max-neurons 1000 --solver direct
# --features hog: its scale learned on the same first 2000 global rows
same_preds "mnist 5000 hog" 2 mn/train "$MNIST/t10k-images-idx3-ubyte.gz" -r 1rms --max-neurons 1000 \
  --solver direct --features hog

# the reduction order is fixed: the same K twice gives the same bytes
"${MPIRUN[@]}" -np 3 "$FSVC" train -q -r 1rms "$UCI/optd64.train" a.fsvc >/dev/null 2>&1
"${MPIRUN[@]}" -np 3 "$FSVC" train -q -r 1rms "$UCI/optd64.train" b.fsvc >/dev/null 2>&1
[ -s a.fsvc ] && cmp -s a.fsvc b.fsvc && ok "3 ranks twice: the same model bytes" \
  || fail "3 ranks twice: the same model bytes"

# sharded predict and eval: the one-process file, one Accuracy line
"$FSVC" train -q -r 1rms "$UCI/optd64.train" one.fsvc >/dev/null 2>&1
"$FSVC" predict one.fsvc "$UCI/optd64.test" one.txt >/dev/null 2>&1
for K in 2 3; do
  rm -f k.txt
  expect_exit 0 "predict on $K ranks" -- "${MPIRUN[@]}" -np $K "$FSVC" predict one.fsvc "$UCI/optd64.test" k.txt
  cmp -s one.txt k.txt && ok "predict on $K ranks: the one-process file" || fail "predict on $K ranks: the one-process file"
  [ "$(echo "$OUT" | grep -c '^Accuracy = ')" -eq 1 ] && ok "predict on $K ranks: one Accuracy line" \
    || fail "predict on $K ranks: one Accuracy line: $OUT"
  expect_exit 0 "eval on $K ranks" -- "${MPIRUN[@]}" -np $K "$FSVC" eval one.fsvc "$UCI/optd64.test"
  [ "$(echo "$OUT" | grep -c '^Accuracy = ')" -eq 1 ] && ok "eval on $K ranks: one Accuracy line" \
    || fail "eval on $K ranks: one Accuracy line"
  expect_match "$(tail -n 1 <<< "$("$FSVC" eval one.fsvc "$UCI/optd64.test")" | sed 's/[().%]/./g')" \
    "eval on $K ranks: the one-process accuracy" "$OUT"
done

# failures: one line, non-zero, nothing written
rm -f x.fsvc
expect_exit 2 "missing data on 3 ranks: exit 2" -- "${MPIRUN[@]}" -np 3 "$FSVC" train -r 1rms nonexist x.fsvc
expect_one_line "missing data on 3 ranks: one line" "$ERR"
# rank 1 out of memory: its address-space limit is what one rank needs to
# train iris (found by bisection, each step bounded), plus 40 MB; satimg's
# direct solve then fails on its own allocations (H 28 MB, then G 83 MB)
# while MPI keeps room for its messages (a rank AT its limit can lose one
# inside Open MPI and hang: no test of that). One BLAS thread each, so the
# need does not grow with the machine's cores.
OB1=(env OPENBLAS_NUM_THREADS=1)
vm_lo=0; vm_hi=4000000
while [ $((vm_hi - vm_lo)) -gt 16000 ]; do
  vm_mid=$(((vm_lo + vm_hi) / 2))
  if "${OB1[@]}" timeout -k 5 20 mpirun -q --bind-to none --oversubscribe --allow-run-as-root \
       -x OPENBLAS_NUM_THREADS -np 1 sh -c 'ulimit -v '"$vm_mid"'; exec "$0" train -q --threads 1 -r 1rms --solver direct "$1" y.fsvc' \
       "$FSVC" "$UCI/iris.train" </dev/null >/dev/null 2>&1
  then vm_hi=$vm_mid; else vm_lo=$vm_mid; fi
done
VM_LIMIT=$((vm_hi + 40000))
expect_exit 3 "rank 1 out of memory: every rank stops, exit 3" -- "${OB1[@]}" "${MPIRUN[@]}" \
  -x OPENBLAS_NUM_THREADS -np 2 sh -c \
  'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then ulimit -v '"$VM_LIMIT"'; fi; exec "$0" train -q --threads 1 -r 1rms --solver direct "$1" x.fsvc' \
  "$FSVC" "$UCI/satimg.train" </dev/null
expect_one_line "rank 1 out of memory: one error line" "$(grep '^fsvc' <<< "$ERR")"
expect_match '^fsvc: rank 1 of 2: .*out of memory' "rank 1 out of memory: names the rank" "$ERR"
[ ! -e x.fsvc ] && ok "rank 1 out of memory: no model file" || fail "rank 1 out of memory: no model file"
"${MPIRUN[@]}" -np 2 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then (sleep 0.5; kill -9 $$) & fi; exec "$0" train -q -r 1rms --max-neurons 3000 "$1" x.fsvc' \
  "$FSVC" mn/train >/dev/null 2>&1; rc=$?
[ $rc -ne 0 ] && ok "rank 1 killed: non-zero exit ($rc)" || fail "rank 1 killed: non-zero exit"
[ ! -e x.fsvc ] && ok "rank 1 killed: no model file" || fail "rank 1 killed: no model file"
mkdir -p ro && chmod 500 ro
if [ ! -w ro ]; then
  expect_exit 3 "rank 0 cannot write: exit 3" -- "${MPIRUN[@]}" -np 2 "$FSVC" predict one.fsvc "$UCI/optd64.test" ro/k.txt
  expect_one_line "rank 0 cannot write: one line" "$ERR"
fi
expect_exit 1 "tune refuses several processes" -- "${MPIRUN[@]}" -np 2 "$FSVC" tune --help
# the novelty selections across processes: tests/cli/test_mpi_novelty.sh
expect_exit 1 "LMS readout refused across processes" -- "${MPIRUN[@]}" -np 2 "$FSVC" train -q -s global -R lms -r 1rms "$UCI/iris.train" x.fsvc
expect_match 'LMS readout .* runs as one process' "LMS readout: says why" "$ERR"
# without mpirun the MPI-built fsvc is one process, as before
expect_exit 0 "no mpirun: one process" -- "$FSVC" train -q -r 1rms "$UCI/iris.train" y.fsvc

# the README's mpirun example runs as written (paths from the repository root)
mkdir -p readme/build && ln -sf "$FSVC" readme/build/fsvc && ln -sfn "$(dirname "$README")/data" readme/data
n=0
while read -r line; do
  n=$((n + 1))
  cmd=${line#mpirun }
  (cd readme && eval "${MPIRUN[*]} $cmd") </dev/null >readme.out 2>&1 \
    && ok "README mpirun line $n runs" || fail "README mpirun line $n: $(tail -c 300 readme.out)"
done < <(sed -n '/<!-- mpi-example/,/mpi-example:end/p' "$README" | grep '^mpirun ')
[ "$n" -eq 2 ] && ok "README: two mpirun lines" || fail "README: $n mpirun lines, wanted 2"
grep -q '^Accuracy = ' readme.out && ok "README example prints the accuracy" || fail "README example prints the accuracy"
