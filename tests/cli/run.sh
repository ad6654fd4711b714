#!/usr/bin/env bash
# Runs every tests/cli/test_*.sh against the fsvc binary in $FSVC.
# Each script is a list of checks using the helpers in lib.sh. Scripts run
# FSVC_CLI_JOBS at a time (default: the processor count, at most 2: most
# checks are short processes that wait on start-up and files); those in
# ALONE run afterwards one by one, as they time signals, memory limits or
# several MPI processes. Output is printed in name order, with each
# script's seconds; the last line is "cli: N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
export FSVC=${FSVC:-build/fsvc}
export FSVC=$(cd "$(dirname "$FSVC")" && pwd)/$(basename "$FSVC")
ALONE=" test_files.sh test_memory_limit.sh test_mpi.sh test_mpi_slice.sh test_mpi_novelty.sh \
test_mpi_pcg_study.sh test_threads_bytes.sh "
jobs=${FSVC_CLI_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -gt 2 ] && jobs=2
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT

# one SCRIPT: runs it under its timeout into $res/NAME.{out,rc,s}
one() {
  local t=$1 b s0
  b=$(basename "$t")
  s0=$(date +%s)
  # a hung script is a failure, not a hung CI: each has FSVC_CLI_TIMEOUT s
  timeout -k 10 "${FSVC_CLI_TIMEOUT:-900}" bash "$t" >"$res/$b.out" 2>&1 </dev/null
  echo $? >"$res/$b.rc"
  echo $(($(date +%s) - s0)) >"$res/$b.s"
  echo "   ran $b ($(cat "$res/$b.s") s)" # progress; the checks follow at the end
}

shared=() alone=()
for t in "$here"/test_*.sh; do
  [ -e "$t" ] || continue
  case "$ALONE" in *" $(basename "$t") "*) alone+=("$t") ;; *) shared+=("$t") ;; esac
done
running=0
for t in "${shared[@]}"; do
  one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
for t in "${alone[@]}"; do one "$t"; done

total_pass=0; total_fail=0
for t in "$here"/test_*.sh; do
  b=$(basename "$t")
  [ -e "$res/$b.rc" ] || continue
  out=$(cat "$res/$b.out"); rc=$(cat "$res/$b.rc")
  echo "== cli: $b ($(cat "$res/$b.s") s)"
  [ "$rc" -eq 124 ] && out="$out
FAIL - $b timed out after ${FSVC_CLI_TIMEOUT:-900} s"
  echo "$out" | grep -E '^(FAIL|ok)' | sed 's/^/   /' | grep -v '^   ok' || true
  p=$(echo "$out" | grep -c '^ok'); f=$(echo "$out" | grep -c '^FAIL')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "   FAIL: script exited $rc"; echo "$out" | tail -5; fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
done
echo "cli: $total_pass passed, $total_fail failed"
[ $total_fail -eq 0 ]
