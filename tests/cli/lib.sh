# Helpers for the CLI tests: each check prints "ok - name" or "FAIL - name".
# Usage in a test script:  source "$(dirname "$0")/lib.sh"
set -u
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# the test data (make test-data expands the repository's data/ there)
TEST_DATA=${FSVC_DATA:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/data}
MNIST=$TEST_DATA/mnist
UCI=$TEST_DATA/uci-dogaru
FASHION=/usr/share/datasets/fashion-mnist
# pngw.py (a PNG writer) for the tests' python3 heredocs
export PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
# 1 under make check-full: the whole matrix of a test (every rank count,
# every data set); make test runs the part that proves each promise
FULL=${FSVC_TEST_FULL:-0}

ok()   { echo "ok - $*"; }
fail() { echo "FAIL - $*"; }

# expect_exit CODE NAME -- CMD...: runs CMD, checks its exit code; the
# output is kept in $OUT (stdout) and $ERR (stderr).
expect_exit() {
  local want=$1 name=$2; shift 3
  "$@" >"$TMP/out" 2>"$TMP/err"; local rc=$?
  OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err")
  if [ "$rc" -eq "$want" ]; then ok "$name"; else
    fail "$name (exit $rc, wanted $want): $(head -c 300 "$TMP/err")"; fi
}

# expect_match REGEX NAME TEXT
expect_match() {
  if echo "$3" | grep -Eq -- "$1"; then ok "$2"; else fail "$2: no match for /$1/ in: $(echo "$3" | head -c 300)"; fi
}

# expect_one_line NAME TEXT: an error is exactly one line
expect_one_line() {
  local n; n=$(printf '%s' "$2" | grep -c '')
  if [ "$n" -eq 1 ]; then ok "$1"; else fail "$1: $n lines: $(echo "$2" | head -c 300)"; fi
}

# vm_startup: the address space (KB, ulimit -v) $FSVC needs to start, by
# bisection (a CUDA build maps ~1.3 GB of libraries, a CPU build ~0.2 GB)
vm_startup() {
  local lo=0 hi=16000000 mid
  while [ $((hi - lo)) -gt 20000 ]; do
    mid=$(((lo + hi) / 2))
    if timeout 5 bash -c "ulimit -v $mid; exec \"\$0\" --version" "$FSVC" >/dev/null 2>&1
    then hi=$mid; else lo=$mid; fi
  done
  echo "$hi"
}

# mnist_digits N PREFIX: the first N MNIST training digits as the gzipped
# IDX pair PREFIX-images-idx3-ubyte.gz, PREFIX-labels-idx1-ubyte.gz
mnist_digits() {
  python3 - "$MNIST" "$1" "$2" <<'EOF'
import gzip, struct, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
im = gzip.open(src + "/train-images-idx3-ubyte.gz").read()
lb = gzip.open(src + "/train-labels-idx1-ubyte.gz").read()
gzip.open(out + "-images-idx3-ubyte.gz", "wb").write(
    struct.pack(">IIII", 0x803, n, 28, 28) + im[16:16 + n * 784])
gzip.open(out + "-labels-idx1-ubyte.gz", "wb").write(struct.pack(">II", 0x801, n) + lb[8:8 + n])
EOF
}
