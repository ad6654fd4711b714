# CLI tests of the device job (issue 10) that need no device: the on-device
# harness's link line honours LDFLAGS like the top Makefile; the ridge
# readout on a "cuda" context with no usable device trains on the CPU path
# and predicts the same as --backend cpu (one pipeline, two backends).
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$(dirname "$FSVC")" && pwd)
FSVC=$BUILD/$(basename "$FSVC")

if [ -f "$BUILD/libfsvc.a" ]; then
  link=$(make -s -n -B -C "$ROOT/tests/cuda" BUILD="$BUILD" LDFLAGS="-Wl,--fsvc-ldflags-marker" \
         "$BUILD/tests/cuda/check_kernels" 2>&1 | grep -- "-o $BUILD/tests/cuda/check_kernels ")
  expect_match 'fsvc-ldflags-marker' "tests/cuda link line honours LDFLAGS" "$link"
else
  ok "# skip tests/cuda link line: no $BUILD/libfsvc.a"
fi

cd "$TMP"
for i in $(seq 0 59); do
  c=$((i % 3)); echo "$c 1:$((c * 5 + i % 3)) 2:$((i % 4)) 3:$((c * 3)).5 4:0.$((i % 10))"
done > small.libsvm
if "$FSVC" info 2>/dev/null | grep -q -- 'using CPU\|no device\|not compiled in'; then
  expect_exit 0 "train -R ridge --backend cuda without a device" -- \
    "$FSVC" train -q -R ridge -r 3 --backend cuda small.libsvm cuda.fsvc
  expect_exit 0 "train -R ridge --backend cpu" -- \
    "$FSVC" train -q -R ridge -r 3 --backend cpu small.libsvm cpu.fsvc
  "$FSVC" predict --backend cuda cuda.fsvc small.libsvm cuda.txt >/dev/null 2>&1
  "$FSVC" predict --backend cpu cpu.fsvc small.libsvm cpu.txt >/dev/null 2>&1
  if [ -s cpu.txt ] && cmp -s cuda.txt cpu.txt; then ok "cuda fallback predicts as cpu"
  else fail "cuda fallback predicts as cpu: $(head -c 200 cuda.txt) vs $(head -c 200 cpu.txt)"; fi
else
  ok "# skip the no-device half: a CUDA device is usable here"
fi
