#!/usr/bin/env bash
# Runs every tests/cli/test_*.sh against the fsvc binary in $FSVC.
# Each script is a list of checks using the helpers in lib.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export FSVC=${FSVC:-build/fsvc}
export FSVC=$(cd "$(dirname "$FSVC")" && pwd)/$(basename "$FSVC")
total_pass=0; total_fail=0
for t in "$here"/test_*.sh; do
  [ -e "$t" ] || continue
  echo "== cli: $(basename "$t")"
  # a hung script is a failure, not a hung CI: each has FSVC_CLI_TIMEOUT s
  out=$(timeout -k 10 "${FSVC_CLI_TIMEOUT:-900}" bash "$t" 2>&1 </dev/null); rc=$?
  [ $rc -eq 124 ] && out="$out
FAIL - $(basename "$t") timed out after ${FSVC_CLI_TIMEOUT:-900} s"
  echo "$out" | grep -E '^(FAIL|ok)' | sed 's/^/   /' | grep -v '^   ok' || true
  p=$(echo "$out" | grep -c '^ok'); f=$(echo "$out" | grep -c '^FAIL')
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "   FAIL: script exited $rc"; echo "$out" | tail -5; fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
done
echo "cli: $total_pass passed, $total_fail failed"
[ $total_fail -eq 0 ]
