# CLI tests of --strict (issue 15 defect 12): `--backend cuda --strict` with
# no usable CUDA device exits 3 with one line and writes nothing; without
# --strict the command says so in one line on stderr, runs on the CPU and
# succeeds. On a machine with a working GPU the failure half is skipped.
source "$(dirname "$0")/lib.sh"
cd "$TMP"

for i in $(seq 0 29); do
  c=$((i % 2)); echo "$c 1:$((c * 5 + i % 3)) 2:$((i % 4)) 3:$((c * 3)).5 4:0.$i"
done > small.libsvm
"$FSVC" train -q -R onehot -p 1 -r 2 small.libsvm small.fsvc >/dev/null 2>&1 \
  && ok "fixture model trained" || fail "fixture model trained"

for c in train predict eval bench study; do
  expect_exit 0 "$c --help" -- "$FSVC" $c --help
  expect_match '--strict' "$c --help documents --strict" "$OUT"
done

BENCH="bench -m 16 -N 16 -n 8 -r 1 --no-ref --threads 1"
if "$FSVC" info 2>/dev/null | grep -q -- '—\? *using CPU\|no device\|not compiled in'; then
  # no usable device: strict fails, plain falls back
  strict() { # strict NAME -- CMD...
    local name=$1; shift 2
    expect_exit 3 "$name --strict without a device exits 3" -- "$@"
    expect_one_line "$name --strict: one line" "$ERR"
    expect_match '^fsvc: --backend cuda --strict: no usable CUDA device' "$name --strict: says why" "$ERR"
    [ -z "$OUT" ] && ok "$name --strict: nothing on stdout" || fail "$name --strict: stdout: $OUT"
  }
  strict "train" -- "$FSVC" train -q --backend cuda --strict -R onehot -r 2 small.libsvm strict.fsvc
  [ -e strict.fsvc ] && fail "train --strict wrote no model" || ok "train --strict wrote no model"
  strict "predict" -- "$FSVC" predict --backend cuda --strict small.fsvc small.libsvm
  strict "predict to a file" -- "$FSVC" predict --strict --backend cuda small.fsvc small.libsvm p.txt
  [ -e p.txt ] && fail "predict --strict wrote no OUT" || ok "predict --strict wrote no OUT"
  strict "eval" -- "$FSVC" eval --backend cuda --strict small.fsvc small.libsvm
  strict "bench" -- "$FSVC" $BENCH --backend cuda --strict
  strict "study" -- "$FSVC" study -q --strict --backend cuda -o "$TMP/st" small.libsvm small.libsvm
  strict "study (cuda on one axis)" -- "$FSVC" study -q --strict --vary backend=cpu,cuda -o "$TMP/st" small.libsvm small.libsvm
  [ -e "$TMP/st" ] && fail "study --strict wrote nothing" || ok "study --strict wrote nothing"

  plain() { # plain NAME -- CMD...: exit 0, stderr is one fallback line
    local name=$1; shift 2
    expect_exit 0 "$name --backend cuda without --strict falls back" -- "$@"
    expect_one_line "$name fallback: one line on stderr" "$ERR"
    expect_match '^cuda: .*using CPU' "$name fallback: says the CPU is used" "$ERR"
  }
  plain "train" -- "$FSVC" train -q --backend cuda -R onehot -r 2 small.libsvm plain.fsvc
  [ -f plain.fsvc ] && ok "train fallback wrote the model" || fail "train fallback wrote the model"
  plain "predict" -- "$FSVC" predict --backend cuda small.fsvc small.libsvm
  expect_match '^Accuracy = ' "predict fallback: accuracy printed" "$(echo "$OUT" | tail -n 1)"
  plain "eval" -- "$FSVC" eval --backend cuda small.fsvc small.libsvm
  plain "bench" -- "$FSVC" $BENCH --backend cuda
  expect_match 'backend=cpu' "bench fallback: reports the CPU backend" "$OUT"
else
  expect_exit 0 "train --backend cuda --strict on a GPU" -- \
    "$FSVC" train -q --backend cuda --strict -R onehot -r 2 small.libsvm gpu.fsvc
  expect_exit 0 "predict --backend cuda --strict on a GPU" -- \
    "$FSVC" predict --backend cuda --strict small.fsvc small.libsvm
  expect_exit 0 "bench --backend cuda --strict on a GPU" -- "$FSVC" $BENCH --backend cuda --strict
  expect_match 'backend=cuda' "bench --strict on a GPU ran on cuda" "$OUT"
fi
# --strict with a CPU backend changes nothing
expect_exit 0 "predict --strict --backend cpu" -- "$FSVC" predict --strict --backend cpu small.fsvc small.libsvm
