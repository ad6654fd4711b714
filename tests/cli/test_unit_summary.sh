# CLI tests of tests/run_unit.sh, the runner behind `make unit-test`: its
# summary line counts what cmocka reports (passed, failed, skipped), a
# binary that crashes or exits early is a failure, and the exit status
# is 0 only when nothing failed. The probe is a real cmocka program.
source "$(dirname "$0")/lib.sh"
RUN=$(cd "$(dirname "$0")/.." && pwd)/run_unit.sh
cat >"$TMP/probe.c" <<'C'
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
static int mode(const char *m) { const char *e = getenv("PROBE"); return e && strstr(e, m); }
static void passes(void **s) { (void)s; }
static void maybe_skips(void **s) { (void)s; if (mode("skip")) skip(); }
static void maybe_fails(void **s) { (void)s; assert_false(mode("fail")); }
int main(void)
{
    if (mode("abort")) abort();            /* dies before cmocka runs */
    if (mode("exit")) exit(0);             /* leaves early, status 0 */
    const struct CMUnitTest t[] = {cmocka_unit_test(passes), cmocka_unit_test(maybe_skips),
                                   cmocka_unit_test(maybe_fails)};
    return cmocka_run_group_tests(t, NULL, NULL);
}
C
if ! cc -o "$TMP/probe" "$TMP/probe.c" $(pkg-config --cflags --libs cmocka) 2>"$TMP/cc.err"; then
  fail "build the cmocka probe: $(head -c 300 "$TMP/cc.err")"
  exit 0
fi
P=$TMP/probe

PROBE= expect_exit 0 "all pass" -- bash "$RUN" "$P"
expect_match '^unit: 3 passed, 0 failed, 0 skipped$' "all pass: summary" "$(echo "$OUT" | tail -n 1)"

PROBE=skip expect_exit 0 "a skip is not a failure" -- bash "$RUN" "$P"
expect_match '^unit: 2 passed, 0 failed, 1 skipped \(skipped: probe:maybe_skips\)$' \
  "a skip is counted and named" "$(echo "$OUT" | tail -n 1)"

PROBE=skip,fail expect_exit 1 "a failed test fails the run" -- bash "$RUN" "$P"
expect_match '^unit: 1 passed, 1 failed, 1 skipped' "fail and skip counted" "$(echo "$OUT" | tail -n 1)"

PROBE=abort expect_exit 1 "a crash outside any test fails the run" -- bash "$RUN" "$P"
expect_match '^unit: 0 passed, 1 failed, 0 skipped$' "crash counted as one failure" "$(echo "$OUT" | tail -n 1)"
expect_match 'FAIL: probe ended \(exit [0-9]+\) without a cmocka summary' "crash named" "$OUT"

PROBE=exit expect_exit 1 "an early exit 0 without a summary fails the run" -- bash "$RUN" "$P"

PROBE=skip expect_exit 0 "counts add up over binaries" -- bash "$RUN" "$P" "$P"
expect_match '^unit: 4 passed, 0 failed, 2 skipped' "two binaries summed" "$(echo "$OUT" | tail -n 1)"

# the user's cmocka output format does not change the counts
PROBE=fail CMOCKA_MESSAGE_OUTPUT=TAP expect_exit 1 "TAP in the environment still counted" -- bash "$RUN" "$P"
expect_match '^unit: 2 passed, 1 failed, 0 skipped$' "TAP: counts" "$(echo "$OUT" | tail -n 1)"
