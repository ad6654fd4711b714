#!/usr/bin/env bash
# run_unit.sh - runs cmocka unit-test binaries one after the other and ends
# with one line counting the tests cmocka reported:
#
#   unit: N passed, M failed, K skipped (skipped: bin:test ...)
#
# Counts come from each binary's cmocka summary ("[  PASSED  ] N test(s).",
# "[  SKIPPED ] N test(s), listed below:", "[  FAILED  ] N test(s), ...").
# A binary that exits non-zero without reporting a failed test, or ends
# without a cmocka summary (a crash outside a test, an early exit), counts
# as one failed test. Exit status: 0 when nothing failed, else 1.
# Usage: bash tests/run_unit.sh BIN...
set -u
export CMOCKA_MESSAGE_OUTPUT=STDOUT # the format parsed below
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# count REGEX: the number in the first line of $log matching "[ REGEX ] N test(s)"
count() {
  local n
  n=$(grep -o "\[ *$1 *\] [0-9][0-9]* test(s)" "$log" | head -n 1 | grep -o '[0-9][0-9]*' | tail -n 1)
  echo "${n:-0}"
}

passed=0 failed=0 skipped=0 names=""
for t in "$@"; do
  echo "== $t"
  "$t" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  p=$(count PASSED) s=$(count SKIPPED) f=$(count FAILED)
  b=$(basename "$t")
  if ! grep -q '\[==========\] [0-9][0-9]* test(s) run\.' "$log"; then
    echo "FAIL: $b ended (exit $rc) without a cmocka summary"
    f=$((f + 1))
  elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL: $b exited $rc without reporting a failed test"
    f=1
  fi
  # the skipped tests by name: "[  SKIPPED ] name" lines, not the count line
  for n in $(sed -n 's/^\[  SKIPPED \] \([^ ]*\)$/\1/p' "$log" | sort -u); do
    names="$names $b:$n"
  done
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
echo "unit: $passed passed, $failed failed, $skipped skipped${names:+ (skipped:$names)}"
[ "$failed" -eq 0 ]
