# CLI tests of how idle threads wait (tools/wait_env.c): fsvc gives libgomp
# the passive wait policy and OpenBLAS a short idle spin before they start,
# unless the user set them; libgomp's own report (OMP_DISPLAY_ENV) shows
# what it read, fsvc info says where each came from, and the programs fsvc
# starts (gnuplot, through a stand-in that records its environment) see
# the user's environment, not fsvc's settings.
source "$(dirname "$0")/lib.sh"
unset OMP_WAIT_POLICY GOMP_SPINCOUNT OPENBLAS_THREAD_TIMEOUT

expect_exit 0 "info" -- "$FSVC" info
expect_match "^idle threads: OpenMP passive \(set by fsvc\), OpenBLAS workers spin 2\^20 cycles \(set by fsvc\)$" \
  "info: fsvc's settings, OpenBLAS read its own" "$OUT"
expect_exit 0 "libgomp's report" -- env OMP_DISPLAY_ENV=verbose "$FSVC" --version
expect_match "OMP_WAIT_POLICY = 'PASSIVE'" "libgomp read the passive policy" "$ERR"
expect_match "GOMP_SPINCOUNT = '0'" "libgomp does not spin" "$ERR"

# the user's settings win
expect_exit 0 "info with the user's settings" -- \
  env OMP_WAIT_POLICY=active OPENBLAS_THREAD_TIMEOUT=24 "$FSVC" info
expect_match "^idle threads: OpenMP OMP_WAIT_POLICY=active \(from the environment\), OpenBLAS workers spin 2\^24 cycles \(from the environment\)$" \
  "info: the user's settings" "$OUT"
expect_exit 0 "libgomp's report, the user's policy" -- \
  env OMP_WAIT_POLICY=active OMP_DISPLAY_ENV=verbose "$FSVC" --version
expect_match "OMP_WAIT_POLICY = 'ACTIVE'" "libgomp read the user's policy" "$ERR"
expect_exit 0 "libgomp's report, the user's spin count" -- \
  env GOMP_SPINCOUNT=1234 OMP_DISPLAY_ENV=verbose "$FSVC" --version
expect_match "GOMP_SPINCOUNT = '1234'" "a user's GOMP_SPINCOUNT is not overridden" "$ERR"
expect_exit 0 "info, the user's spin count" -- env GOMP_SPINCOUNT=1234 "$FSVC" info
expect_match "^idle threads: OpenMP GOMP_SPINCOUNT=1234 \(from the environment\), OpenBLAS workers spin 2\^20 cycles \(set by fsvc\)$" \
  "info: the user's spin count, fsvc's OpenBLAS spin" "$OUT"

# a program fsvc starts sees the user's environment
cd "$TMP" || exit 1
mkdir bin
python3 -c 'import pngw; pngw.png("one.png", [0] * 64)'
printf '#!/bin/sh\nenv > "%s/env.txt"\ncat > /dev/null\ncat "%s/one.png"\n' "$TMP" "$TMP" > bin/gnuplot
chmod +x bin/gnuplot
"$FSVC" train -q "$UCI/iris.train" iris.fsvc >/dev/null
expect_exit 0 "eval --png (stand-in gnuplot)" -- env PATH="$TMP/bin:$PATH" "$FSVC" eval iris.fsvc "$UCI/iris.test" --png c.png
if [ ! -s env.txt ]; then fail "the stand-in gnuplot did not run"
elif grep -Eq '^(OMP_WAIT_POLICY|OPENBLAS_THREAD_TIMEOUT)=' env.txt; then
  fail "gnuplot got fsvc's settings: $(grep -E '^(OMP_WAIT|OPENBLAS_THREAD)' env.txt)"
else ok "gnuplot gets no setting of fsvc's"; fi
rm -f env.txt
expect_exit 0 "eval --png with the user's policy" -- \
  env PATH="$TMP/bin:$PATH" OMP_WAIT_POLICY=active "$FSVC" eval iris.fsvc "$UCI/iris.test" --png c.png
expect_match "^OMP_WAIT_POLICY=active$" "gnuplot gets the user's policy" "$(cat env.txt 2>/dev/null)"
