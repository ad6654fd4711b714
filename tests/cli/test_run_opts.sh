# --backend, --threads, --strict and --batch are parsed in one place
# (tools/run_opts.c): every command that takes one accepts the same values
# (both --opt V and --opt=V) and refuses the same bad ones with the same
# message, exit 1, before it reads any file. Each command's answer is
# compared with predict's, and predict's with the expected text.
source "$(dirname "$0")/lib.sh"
ENGINE="predict eval bench train study"
msg() { # CMD ARGS...: M = the first stderr line without "fsvc CMD: ", RC = the exit
  local c=$1; shift
  "$FSVC" "$c" "$@" >/dev/null 2>"$TMP/err"; RC=$?
  M=$(head -n 1 "$TMP/err" | sed "s/^fsvc $c: //")
}
same() { # NAME REGEX CMDS -- ARGS...: exit 1 and predict's message for each
  local name=$1 re=$2 cmds=$3; shift 4
  msg predict "$@"
  local ref=$M
  [ "$RC" = 1 ] && ok "$name: predict exits 1" || fail "$name: predict exits $RC"
  expect_match "$re" "$name: predict's message" "$ref"
  for c in $cmds; do
    msg "$c" "$@"
    if [ "$RC" = 1 ] && [ "$M" = "$ref" ]; then ok "$name: $c refuses it the same way"
    else fail "$name: $c: exit $RC, '$M' (predict: '$ref')"; fi
  done
}
same "--threads x" "^--threads: 'x' is not an integer in \[0, 4096\]$" "$ENGINE" -- --threads x none.fsvc none.txt
same "--threads 4097" "^--threads: '4097' is not an integer in \[0, 4096\]$" "$ENGINE" -- --threads=4097 none.fsvc none.txt
same "--threads -1" "^--threads: '-1' is not an integer" "$ENGINE" -- --threads -1 none.fsvc none.txt
same "--backend gpu" "^--backend: 'gpu' is not ref, cpu or cuda$" "$ENGINE tune" -- --backend gpu none.fsvc none.txt
same "--backend=" "^--backend: '' is not ref, cpu or cuda$" "$ENGINE tune" -- --backend= none.fsvc none.txt
same "--strict=1" "^option --strict takes no value$" "$ENGINE" -- --strict=1 none.fsvc none.txt
same "--threads last" "^option --threads needs a value$" "$ENGINE" -- --threads
same "--backend last" "^option --backend needs a value$" "$ENGINE tune" -- --backend
same "--batch x" "^--batch: 'x' is not an integer in \[0, 1073741824\]$" "eval" -- --batch x none.fsvc none.txt
same "--batch -1" "^--batch: '-1' is not an integer" "eval" -- --batch -1 none.fsvc none.txt
# --batch is for PNG folders: the commands without one do not know it
for c in bench train study tune; do
  msg "$c" --batch 8 none.fsvc none.txt
  if [ "$RC" = 1 ] && [ "$M" = "unknown or ambiguous option '--batch'" ]; then ok "$c: no --batch"
  else fail "$c --batch: exit $RC, '$M'"; fi
done
# accepted, both forms, then --help: exit 0 (nothing runs)
for c in $ENGINE; do
  expect_exit 0 "$c takes --backend ref --threads 4096 --strict" -- \
    "$FSVC" "$c" --backend ref --threads 4096 --strict --help
  expect_exit 0 "$c takes --backend=cuda --threads=0" -- "$FSVC" "$c" --backend=cuda --threads=0 --help
done
for c in predict eval; do
  expect_exit 0 "$c takes --batch 0 and --batch=1073741824" -- "$FSVC" "$c" --batch 0 --batch=1073741824 --help
done
expect_exit 0 "tune takes --backend=cuda" -- "$FSVC" tune --backend=cuda --help
# the defaults the help shows are the shared ones
for c in predict eval bench; do
  h=$("$FSVC" "$c" --help)
  expect_match '^  --backend ref\|cpu\|cuda  engine backend \(cpu\)' "$c --help: backend cpu" "$h"
  expect_match '^  --threads T     CPU threads \(0, 0: all cores\)$' "$c --help: threads 0" "$h"
done
# the value reaches the command: bench reports the threads it ran with
expect_exit 0 "bench --threads=1 runs" -- "$FSVC" bench -m 16 -N 16 -n 8 -r 1 --no-ref --threads=1 --backend=cpu
expect_match 'backend=cpu .*threads=1$' "bench ran with --threads=1" "$(head -n 1 <<<"$OUT")"
