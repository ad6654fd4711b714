# CLI tests of the PCG readout and of `fsvc study` across Open MPI
# processes (issue 13):
#   - train --solver pcg on K = 1..3 ranks predicts as one process on the
#     UCI test sets and on MNIST (a 5000-sample subset); the same K twice
#     gives the same model bytes; the default solver (auto) picks pcg under
#     mpirun as it does for one process (readout weights: within the
#     tolerance stated in tests/test_comm_pcg.c);
#   - study on 2 and 3 ranks writes the one-process CSV and LMS curve CSV
#     byte for byte, except the measured columns (the t_*_s times, the
#     tsyn_*_ns rates and maxrss_mb, masked before comparing), failed points
#     as failure rows; --resume across ranks, also after a rank was killed;
#   - a rank that fails stops every rank with one line, and no CSV is left.
# mpirun must exist (make deps installs openmpi-bin): no silent skip.
source "$(dirname "$0")/lib.sh"

if ! command -v mpirun >/dev/null; then
  fail "mpirun not found: install openmpi-bin libopenmpi-dev (make deps)"; exit 1
fi
if ! "$FSVC" info 2>/dev/null | grep -q '^mpi: Open MPI'; then
  fail "$FSVC was built without Open MPI (mpicc missing at build time)"; exit 1
fi
MPIRUN=(timeout -k 5 120 mpirun -q --bind-to none --oversubscribe --allow-run-as-root)
cd "$TMP"

# ---- pcg ----

# same_preds "KS" NAME DATA TEST TRAIN-OPTIONS...: one-process model vs K ranks (K in KS)
same_preds() {
  local ks=$1 name=$2 data=$3 test=$4; shift 4
  "$FSVC" train -q "$@" "$data" one.fsvc >/dev/null 2>&1 || { fail "$name: one-process train"; return; }
  "$FSVC" predict one.fsvc "$test" one.txt >/dev/null 2>&1
  for K in $ks; do
    rm -f k.fsvc k.txt
    expect_exit 0 "$name: train on $K ranks" -- "${MPIRUN[@]}" -np $K "$FSVC" train -q "$@" "$data" k.fsvc </dev/null
    "$FSVC" predict k.fsvc "$test" k.txt >/dev/null 2>&1
    cmp -s one.txt k.txt && ok "$name: $K ranks predict as one process" \
      || fail "$name: $K ranks predict as one process ($(cmp one.txt k.txt | head -c 100))"
  done
}

# (1 rank on two sets: enough to show one rank is one process, and keeps
# this script short)
# make test: one rank count per set (1 on optd64; 2, 3 elsewhere)
sets="iris:3 optd64:1 phoneme:2 satimg:3"
[ "$FULL" = 1 ] && sets="iris:2,3 optd64:1,2,3 phoneme:2,3 satimg:1,2,3"
for set in $sets; do
  [ -f "$UCI/${set%:*}.train" ] || { fail "$UCI/${set%:*}.train missing"; continue; }
  same_preds "$(tr , " " <<< "${set#*:}")" "pcg ${set%:*}" "$UCI/${set%:*}.train" "$UCI/${set%:*}.test" -r 1rms --solver pcg
done

# MNIST: the first 5000 training images as an IDX pair (header count patched)
mkdir -p mn
idx_head() { # idx_head IN OUT HEADER_BYTES RECORD_BYTES COUNT
  { zcat "$1" | head -c 4; printf "\\x$(printf %02x $(($5 >> 24 & 255)))\\x$(printf %02x $(($5 >> 16 & 255)))\\x$(printf %02x $(($5 >> 8 & 255)))\\x$(printf %02x $(($5 & 255)))"
    zcat "$1" | head -c $(($3 + $4 * $5)) | tail -c +9; } > "$2"
}
idx_head "$MNIST/train-images-idx3-ubyte.gz" mn/train-images-idx3-ubyte 16 784 5000
idx_head "$MNIST/train-labels-idx1-ubyte.gz" mn/train-labels-idx1-ubyte 8 1 5000
same_preds "$([ "$FULL" = 1 ] && echo 1 2 3 || echo 2)" "pcg mnist 5000" mn/train "$MNIST/t10k-images-idx3-ubyte.gz" -r 1rms --max-neurons 1000 --solver pcg

# the default solver (auto) picks pcg from 3000 centroids (optd64 with
# every sample: 3823; its default is 1911), under mpirun as for one process;
# the reduction order is fixed: the same K twice gives the same bytes
expect_exit 0 "default solver on 2 ranks" -- "${MPIRUN[@]}" -np 2 "$FSVC" train -r 1rms \
  --max-neurons 10000 "$UCI/optd64.train" a.fsvc </dev/null
expect_match 'solver auto chose pcg' "default solver on 2 ranks: auto chose pcg, as one process" "$ERR"
"${MPIRUN[@]}" -np 2 "$FSVC" train -q -r 1rms --max-neurons 10000 "$UCI/optd64.train" b.fsvc \
  </dev/null >/dev/null 2>&1
[ -s a.fsvc ] && cmp -s a.fsvc b.fsvc && ok "pcg, 2 ranks twice: the same model bytes" \
  || fail "pcg, 2 ranks twice: the same model bytes"

# ---- study ----

# masked FILE: the data rows with the measured columns emptied (by header name)
masked() {
  python3 - "$1" <<'EOF'
import csv, re, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1], newline='') if not l.startswith('#'))]
hide = [i for i, h in enumerate(rows[0]) if re.match(r'^(t_.*_s|tsyn_.*_ns|maxrss_mb)$', h)]
w = csv.writer(sys.stdout, lineterminator='\n')
for r in rows:
    w.writerow(['' if i in hide and r is not rows[0] else v for i, v in enumerate(r)])
EOF
}
# same_study NAME DIR1 DIR2: the CSVs (measured columns masked), their
# metadata sidecars (study-iris-about.txt) and the LMS curve CSVs are the same
same_study() {
  local a=$2/r/study-iris.csv b=$3/r/study-iris.csv
  if [ -s "$a" ] && [ -s "$b" ] && diff "${a%.csv}-about.txt" "${b%.csv}-about.txt" >/dev/null &&
     diff <(masked "$a") <(masked "$b") >/dev/null; then ok "$1: the one-process CSV"
  else fail "$1: the one-process CSV: $(diff <(masked "$a") <(masked "$b") 2>&1 | head -c 400)"; fi
  cmp -s "$2/r/study-iris-lms.csv" "$3/r/study-iris-lms.csv" && ok "$1: the one-process LMS curves" \
    || fail "$1: the one-process LMS curves"
}
# 8 points: ridge and lms (with --val curves), one ridge lambda that fails
# (a failure row), 3-fold CV
STUDY=(study --no-plots -o r -v 3 --val 0.2 --vary readout=ridge,lms --vary lambda=1e-3,1e-300
       --vary radius=0.5rms,1rms "$UCI/iris.train" "$UCI/iris.test")
mkdir -p s1 s2 s3
(cd s1 && "$FSVC" "${STUDY[@]}" >out 2>err) || fail "one-process study: $(cat s1/err | head -c 300)"
grep -q '"failed: ' s1/r/study-iris.csv && ok "the grid has a failure row" || fail "the grid has a failure row"
for K in 2 3; do
  cd s$K; expect_exit 0 "study on $K ranks" -- "${MPIRUN[@]}" -np $K "$FSVC" "${STUDY[@]}" </dev/null; cd "$TMP"
  same_study "study on $K ranks" s1 s$K
  expect_match "study: 8 points run, 0 already in r/study-iris.csv" "study on $K ranks: rank 0 reports" "$OUT"
  [ "$(grep -c '^\[8/8\] ' <<< "$ERR")" -eq 2 ] && ok "study on $K ranks: progress once, on rank 0" \
    || fail "study on $K ranks: progress once, on rank 0: $(head -c 300 <<< "$ERR")"
done

# --resume across ranks: half the grid on 2 ranks, the rest resumed on 3;
# the same two steps as one process give the same CSV
HALF=(study --no-plots -o r -v 3 --val 0.2 --vary readout=ridge,lms --vary lambda=1e-3,1e-300
      --vary radius=0.5rms "$UCI/iris.train" "$UCI/iris.test")
mkdir -p h1 h2
(cd h1 && "$FSVC" "${HALF[@]}" && "$FSVC" "${STUDY[@]}" --resume) >/dev/null 2>&1
cd h2
"${MPIRUN[@]}" -np 2 "$FSVC" "${HALF[@]}" </dev/null >/dev/null 2>&1
expect_exit 0 "resume on 3 ranks" -- "${MPIRUN[@]}" -np 3 "$FSVC" "${STUDY[@]}" --resume </dev/null
cd "$TMP"
expect_match "study: 4 points run, 4 already in" "resume on 3 ranks: skips the 4 points in the CSV" "$OUT"
same_study "resume across ranks" h1 h2

# a rank killed in the middle (once rank 0 has written 2 rows): every rank
# stops, the CSV keeps whole rows only, and --resume finishes it as one
# process would have written it
BIG=(study --no-plots -o r --name iris -v 3 --max-neurons 100 --vary radius=0.5rms,1rms,1.5rms
     --vary lambda=1e-4,1e-3,1e-2,1e-1 "$UCI/optd64.train")
mkdir -p k1 k2
(cd k1 && "$FSVC" "${BIG[@]}" >/dev/null 2>&1) || fail "one-process optd64 study"
cd k2
"${MPIRUN[@]}" -np 2 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then
    (for i in $(seq 600); do n=$(grep -vc "^#" r/study-iris.csv 2>/dev/null)
       [ "${n:-0}" -ge 3 ] && break; sleep 0.05; done; kill -9 $$) & fi
  exec "$0" "$@"' "$FSVC" "${BIG[@]}" </dev/null >/dev/null 2>&1; rc=$?
[ $rc -ne 0 ] && ok "rank 1 killed in a study: non-zero exit ($rc)" || fail "rank 1 killed in a study: non-zero exit"
n=$(masked r/study-iris.csv | python3 -c 'import csv,sys; r=list(csv.reader(sys.stdin)); print(sum(len(x) != len(r[0]) for x in r), len(r) - 1)')
[ "${n%% *}" = 0 ] && [ "${n##* }" -ge 2 ] && [ "${n##* }" -lt 12 ] \
  && ok "rank 1 killed: whole rows only (${n##* } of 12)" || fail "rank 1 killed: whole rows only ($n)"
expect_exit 0 "resume after the kill on 2 ranks" -- "${MPIRUN[@]}" -np 2 "$FSVC" "${BIG[@]}" --resume </dev/null
cd "$TMP"
diff <(masked k1/r/study-iris.csv) <(masked k2/r/study-iris.csv) >/dev/null \
  && ok "resume after the kill: the one-process rows" || fail "resume after the kill: the one-process rows"

# one rank cannot read its data: every rank stops, one line naming the
# rank, exit 2, no CSV
mkdir -p f2
cd f2
expect_exit 2 "rank 1 without its data: exit 2" -- "${MPIRUN[@]}" -np 2 sh -c \
  'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then d=nonexist; else d=$1; fi; exec "$0" study --no-plots -o r --name iris -v 3 "$d"' \
  "$FSVC" "$UCI/iris.train" </dev/null
cd "$TMP"
expect_one_line "rank 1 without its data: one line" "$ERR"
expect_match '^fsvc: rank 1 of 2: .*nonexist' "rank 1 without its data: names the rank and the file" "$ERR"
[ ! -e f2/r/study-iris.csv ] && ok "rank 1 without its data: no CSV" || fail "rank 1 without its data: no CSV"
expect_exit 0 "study --help under mpirun" -- "${MPIRUN[@]}" -np 2 "$FSVC" study --help </dev/null
