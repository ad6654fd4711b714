#!/usr/bin/env bash
# pkg-config --static --libs fsvc names every library a static link needs
# (issue 14 point 16): build/fsvc.pc is what `make install` installs; a
# program links against libfsvc.a with it. A CUDA build's libfsvc.a calls
# no CUDA library (the backend is the plugin fsvc-cuda.so, cuda/plugin.h).
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(dirname "$FSVC")
if [ ! -f "$B/fsvc.pc" ]; then fail "no $B/fsvc.pc (make builds it)"; exit 0; fi
if ! command -v pkg-config >/dev/null; then ok "pkg-config missing: not checked"; exit 0; fi
libs=$(PKG_CONFIG_PATH=$B pkg-config --static --libs fsvc)
expect_match '-lfsvc .*-lopenblas .*-llapacke .*-lpng16' "static libs: BLAS, LAPACKE, libpng" "$libs"
if nm "$B/libfsvc.a" 2>/dev/null | grep -q ' U dnnl_'; then
  expect_match '-ldnnl' "oneDNN build: -ldnnl" "$libs"
fi
if nm "$B/libfsvc.a" 2>/dev/null | grep -q ' U cublas'; then
  expect_match '-lcublas' "CUDA build: -lcublas" "$libs"
  if nm "$B/libfsvc.a" 2>/dev/null | grep -q ' U cusolver'; then
    expect_match '-lcusolver' "CUDA build: -lcusolver" "$libs"
  fi
  expect_match '-lcudart' "CUDA build: -lcudart" "$libs"
  expect_match '-lstdc\+\+' "CUDA build: -lstdc++" "$libs"
else
  if echo "$libs" | grep -q cudart; then fail "libfsvc.a calls no CUDA, yet fsvc.pc names it: $libs"; else ok "no CUDA libraries (libfsvc.a calls none)"; fi
fi
# the probe trains (the engine and its backends, CUDA's too, get linked)
cat > "$TMP/p.c" <<'C'
#include "fsvc/fsvc.h"
#include <stdio.h>
int main(void)
{
    double x[8] = {0, 0, 0.1, 0, 1, 1, 1.1, 1}, y[4] = {0, 0, 1, 1}, cv[2] = {0, 1};
    int cls[4] = {0, 0, 1, 1};
    fsvc_dataset d = {0};
    d.N = 4; d.n = 2; d.dtype = FSVC_F64; d.x = x; d.has_labels = 1; d.y = y; d.cls = cls;
    d.K = 2; d.class_values = cv;
    fsvc_param p;
    fsvc_param_default(&p);
    p.threads = 1;
    fsvc_model m;
    if (fsvc_train(&m, NULL, &d, &p, NULL)) return 1;
    printf("%lld\n", (long long)m.m);
    fsvc_free_model(&m);
    return 0;
}
C
rest=$(echo "$libs" | sed 's/-L[^ ]*lib \{1,\}-lfsvc//')
# shellcheck disable=SC2086
if cc -I"$ROOT" -o "$TMP/p" "$TMP/p.c" "$B/libfsvc.a" $rest 2>"$TMP/cc.err" && [ "$("$TMP/p")" = 4 ]; then
  ok "a program links statically with the pkg-config libs and runs"
else fail "static link with '$rest': $(head -c 300 "$TMP/cc.err")"; fi
