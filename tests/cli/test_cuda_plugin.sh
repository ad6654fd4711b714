# CLI tests of the CUDA backend as a plugin (issue 27, small data: loading
# cuBLAS, cuSOLVER and cudart took 85 ms per process). Built with nvcc, the
# backend is fsvc-cuda.so (cuda/plugin.h), which cuda/load.c loads only when
# a run asks for the CUDA backend: fsvc, libfsvc.so and fsvc.pc name no
# CUDA library; a CPU job loads none; --backend cuda loads the plugin and,
# without a device, says so in one line and trains on the CPU (--strict:
# exit 3); a plugin that is missing, not fsvc's or of another build gives
# one line naming it; make install puts it in PREFIX/lib/fsvc, where the
# installed fsvc finds it; libfsvc.so under Python (build/, or the package
# of `pip install ./python`) loads the one beside it. A build without nvcc
# keeps "not compiled in".
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(dirname "$FSVC")
IRIS=$UCI/iris.train
PLUGIN=$B/fsvc-cuda.so
cd "$TMP"
[ -e "$IRIS" ] || { fail "no $IRIS (make test-data)"; exit 0; }

# loaded REGEX CMD...: the shared objects CMD loads (ld.so's own list)
loaded() { local re=$1; shift; LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -E "file=[^ ]*$re" | head -n 1; }
CUDA_RE='lib(cudart|cublas|cublasLt|cusolver|cusparse|nvJitLink)[.]'

# ---- nothing of CUDA in fsvc, libfsvc.so, fsvc.pc; the plugin exports one entry
for f in "$FSVC" "$B/libfsvc.so"; do
  [ -e "$f" ] || continue
  n=$(readelf -d "$f" 2>/dev/null | grep NEEDED)
  if [ -z "$n" ]; then fail "readelf -d $f lists nothing (binutils?)"
  elif echo "$n" | grep -Eq "$CUDA_RE"; then
    fail "$(basename "$f") links CUDA: $(echo "$n" | grep -Eo '\[lib(cu|nv)[^]]*\]' | tr '\n' ' ')"
  else ok "$(basename "$f") has no NEEDED CUDA library"; fi
done
if [ -e "$B/fsvc.pc" ]; then
  if grep -Eq 'cuda|cublas|cusolver|cudart' "$B/fsvc.pc"; then fail "fsvc.pc names CUDA: $(grep Libs "$B/fsvc.pc")"
  else ok "fsvc.pc names no CUDA library"; fi
fi

if "$FSVC" info 2>/dev/null | grep -q '^cuda: not compiled in'; then
  expect_exit 0 "no nvcc: --backend cuda" -- "$FSVC" train -q --backend cuda "$IRIS" n.fsvc
  expect_match '^cuda: not compiled in \(nvcc was not found at build time\) — using CPU$' \
    "no nvcc: the one line of before" "$ERR"
  ok "built without nvcc: the plugin's checks skipped"
  exit 0
fi
[ -e "$PLUGIN" ] || { fail "a CUDA build without $PLUGIN"; exit 0; }
syms=$(nm -D --defined-only "$PLUGIN" | awk '$2 != "A" { print $3 }' | tr '\n' ' ')
if [ "$syms" = "fsvc_cuda_plugin@@FSVC_CUDA_1 " ]; then ok "the plugin exports its versioned entry only"
else fail "the plugin exports: $syms"; fi
n=$(readelf -d "$PLUGIN" | grep NEEDED)
expect_match 'libcudart' "the plugin links cudart" "$n"

# ---- a CPU job loads no CUDA library, not even the plugin
l=$(loaded "($CUDA_RE|fsvc-cuda)" "$FSVC" train -q -v 5 "$IRIS")
if [ -z "$l" ]; then ok "train -v 5 loads no CUDA library and no plugin"; else fail "train -v 5 loads: $l"; fi
l=$(loaded "($CUDA_RE|fsvc-cuda)" "$FSVC" --version)
if [ -z "$l" ]; then ok "--version loads no CUDA library"; else fail "--version loads: $l"; fi

# ---- --backend cuda loads the plugin next to fsvc; no device here: one line, CPU
expect_exit 0 "train --backend cpu" -- "$FSVC" train -q --backend cpu "$IRIS" cpu.fsvc
l=$(loaded 'fsvc-cuda[.]so' "$FSVC" train -q --backend cuda "$IRIS" x.fsvc)
expect_match "file=$B/fsvc-cuda[.]so" "--backend cuda loads the plugin next to fsvc" "$l"
l=$(loaded 'libcudart' "$FSVC" train -q --backend cuda "$IRIS" x.fsvc)
expect_match 'libcudart' "--backend cuda loads cudart (through the plugin)" "$l"
if "$FSVC" info 2>/dev/null | grep -q '^cuda: no device'; then
  expect_exit 0 "--backend cuda, no device" -- "$FSVC" train -q --backend cuda "$IRIS" cuda.fsvc
  expect_match '^cuda: no device \(.*\) — using CPU$' "no device: says so" "$ERR"
  expect_one_line "no device: one line" "$ERR"
  if cmp -s cpu.fsvc cuda.fsvc; then ok "no device: the CPU's model, byte for byte"
  else fail "no device: the model differs from --backend cpu's"; fi
  expect_exit 3 "--backend cuda --strict, no device: exit 3" -- \
    "$FSVC" train -q --backend cuda --strict "$IRIS" s.fsvc
  expect_match '^fsvc: --backend cuda --strict: no usable CUDA device \(cuda: no device' \
    "--strict: says why" "$ERR"
  expect_one_line "--strict: one line" "$ERR"
  [ ! -e s.fsvc ] && ok "--strict: no model" || fail "--strict: a model was written"
  expect_exit 0 "info" -- "$FSVC" info
  expect_match '^cuda: no device \(driver not found\) — using CPU$' "info describes the CUDA backend" "$OUT"
else
  expect_exit 0 "info" -- "$FSVC" info
  expect_match '^cuda: .*Compute capability' "info describes the device" "$OUT"
fi

# ---- FSVC_CUDA_PLUGIN: a missing file, a library that is not the plugin
expect_exit 0 "FSVC_CUDA_PLUGIN=/nonexistent" -- env FSVC_CUDA_PLUGIN=/nonexistent/fsvc-cuda.so \
  "$FSVC" train -q --backend cuda "$IRIS" none.fsvc
expect_match '^cuda: cannot load FSVC_CUDA_PLUGIN=/nonexistent/fsvc-cuda.so: .*No such file.* — using CPU$' \
  "a missing plugin: names the path" "$ERR"
expect_one_line "a missing plugin: one line" "$ERR"
cmp -s cpu.fsvc none.fsvc && ok "a missing plugin: the CPU's model" || fail "a missing plugin: another model"
expect_exit 3 "a missing plugin, --strict: exit 3" -- env FSVC_CUDA_PLUGIN=/nonexistent/fsvc-cuda.so \
  "$FSVC" train -q --backend cuda --strict "$IRIS" none2.fsvc
expect_match 'cuda: cannot load FSVC_CUDA_PLUGIN=/nonexistent/fsvc-cuda.so' "--strict: names the path" "$ERR"
expect_one_line "a missing plugin, --strict: one line" "$ERR"
expect_exit 0 "info, a missing plugin" -- env FSVC_CUDA_PLUGIN=/nonexistent/fsvc-cuda.so "$FSVC" info
expect_match '^cuda: cannot load FSVC_CUDA_PLUGIN=/nonexistent/fsvc-cuda.so: .* — using CPU$' \
  "info: why the plugin did not load" "$OUT"
other=$B/fsvc-mpi.so
[ -e "$other" ] || other=libz.so.1
expect_exit 0 "FSVC_CUDA_PLUGIN=$(basename "$other")" -- env FSVC_CUDA_PLUGIN="$other" \
  "$FSVC" train -q --backend cuda "$IRIS" other.fsvc
expect_match "^cuda: FSVC_CUDA_PLUGIN=$other is not an fsvc CUDA plugin \(no fsvc_cuda_plugin\) — using CPU$" \
  "a library that is not the plugin: refused" "$ERR"
expect_one_line "a library that is not the plugin: one line" "$ERR"
# plugins of another build: their entry answers another ABI number, or
# the right one with a table of another size
if command -v cc >/dev/null; then
  for k in abi size; do
    cat > $k.c <<C
#include "cuda/plugin.h"
static const bnl_backend_ops fake = {.name = "fake"};
const bnl_cuda_plugin *fsvc_cuda_plugin(void)
{
    static const bnl_cuda_plugin p = {BNL_CUDA_PLUGIN_ABI + ("$k"[0] == 'a'), sizeof(bnl_backend_ops)
        + 8 * ("$k"[0] == 's'), sizeof(bnl_ctx), sizeof(bnl_op), sizeof(fsvc_error), &fake};
    return &p;
}
C
    cc -shared -fPIC -I"$ROOT" -D_GNU_SOURCE -o $k.so $k.c || fail "cc -shared $k.c"
  done
  expect_exit 3 "a plugin of another ABI, --strict: exit 3" -- env FSVC_CUDA_PLUGIN="$TMP/abi.so" \
    "$FSVC" train -q --backend cuda --strict "$IRIS" abi.fsvc
  expect_match "cuda: FSVC_CUDA_PLUGIN=$TMP/abi.so is an fsvc CUDA plugin of another build \(ABI [0-9]+, this fsvc needs [0-9]+\)\)$" \
    "a plugin of another ABI: refused" "$ERR"
  expect_one_line "a plugin of another ABI: one line" "$ERR"
  expect_exit 0 "a plugin whose table has another size" -- env FSVC_CUDA_PLUGIN="$TMP/size.so" \
    "$FSVC" train -q --backend cuda "$IRIS" size.fsvc
  expect_match "^cuda: FSVC_CUDA_PLUGIN=$TMP/size.so is an fsvc CUDA plugin of another build \(its tables differ from this fsvc's\) — using CPU$" \
    "a plugin whose table has another size: refused" "$ERR"
  expect_one_line "a plugin whose table has another size: one line" "$ERR"
fi

# ---- where it is looked for: not next to a copy of fsvc; PREFIX/lib/fsvc
mkdir -p alone && cp "$FSVC" alone/fsvc
expect_exit 0 "a copy of fsvc without the plugin" -- alone/fsvc train -q --backend cuda "$IRIS" alone.fsvc
expect_match "^cuda: no fsvc-cuda.so next to $TMP/alone/fsvc nor in $TMP/alone/../lib/fsvc .* — using CPU$" \
  "no plugin: names where it looked" "$ERR"
expect_one_line "no plugin: one line" "$ERR"
if make -s --no-print-directory -o all -C "$ROOT" BUILD="$B" DESTDIR="$TMP/inst" PREFIX=/opt/f \
     install >make.log 2>&1; then
  [ -e inst/opt/f/lib/fsvc/fsvc-cuda.so ] && ok "make install: PREFIX/lib/fsvc/fsvc-cuda.so" \
    || fail "make install: no PREFIX/lib/fsvc/fsvc-cuda.so"
  l=$(loaded 'fsvc-cuda[.]so' inst/opt/f/bin/fsvc train -q --backend cuda "$IRIS" i.fsvc)
  expect_match "file=$TMP/inst/opt/f/bin/../lib/fsvc/fsvc-cuda[.]so" "the installed fsvc loads the installed plugin" "$l"
  make -s --no-print-directory -o all -C "$ROOT" BUILD="$B" DESTDIR="$TMP/inst" PREFIX=/opt/f \
    uninstall >make.log 2>&1
  [ ! -e inst/opt/f/lib/fsvc/fsvc-cuda.so ] && ok "make uninstall removes the plugin" \
    || fail "make uninstall left the plugin"
else fail "make install: $(tail -3 make.log)"; fi

# ---- Python: libfsvc.so of build/ loads the plugin beside it
PY=/usr/bin/python3
if $PY -c 'import numpy, sklearn' 2>/dev/null; then
  out=$(cd "$TMP" && LD_DEBUG=files PYTHONPATH="$ROOT/python" FSVC_LIBRARY="$B/libfsvc.so" $PY -W ignore -c '
import fsvc, numpy as np
X = np.array([[0, 0], [0, 1], [5, 5], [5, 6]], float); y = [0, 0, 1, 1]
print("score", fsvc.FSVCClassifier(backend="cuda").fit(X, y).score(X, y))' 2>&1)
  expect_match "file=$B/fsvc-cuda[.]so .*dynamically loaded by $B/libfsvc[.]so" \
    "Python, backend=\"cuda\": libfsvc.so loads the plugin beside it" "$out"
  expect_match '^score 1[.]0$' "Python, backend=\"cuda\": trains" "$out"
  # pip install ./python: the package takes the plugin beside its libfsvc.so.0
  if $PY -c 'import setuptools' 2>/dev/null; then
    mkdir -p src && cp -r "$ROOT/python" src/ && ln -s "$B" src/build
    if PIP_DISABLE_PIP_VERSION_CHECK=1 $PY -m pip install -q --no-build-isolation --no-index \
         --no-deps --target "$TMP/site" src/python >pip.log 2>&1; then
      out=$(cd / && LD_DEBUG=files PYTHONPATH="$TMP/site" $PY -W ignore -c '
import fsvc, numpy as np
X = np.array([[0, 0], [0, 1], [5, 5], [5, 6]], float); y = [0, 0, 1, 1]
print("score", fsvc.FSVCClassifier(backend="cuda").fit(X, y).score(X, y))' 2>&1)
      expect_match "file=$TMP/site/fsvc/fsvc-cuda[.]so .*dynamically loaded by $TMP/site/fsvc/libfsvc[.]so[.]0" \
        "pip install ./python: the package loads its own plugin" "$out"
      expect_match '^score 1[.]0$' "pip install ./python, backend=\"cuda\": trains" "$out"
    else fail "pip install ./python: $(grep -v WARNING pip.log | tail -3)"; fi
  fi
fi
