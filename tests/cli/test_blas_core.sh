# CLI tests of OpenBLAS's core type (layers/blas_core.c): fsvc info says
# which core runs and why; a core weaker than the CPU (provoked by the
# FSVC_BLAS_CORE_PRETEND hook, as this CPU may be known to OpenBLAS) is
# replaced in the process by the ISA's core (FSVC_BLAS_CORE_WANT picks it
# here, so the switch is visible whatever the CPU); a user's
# OPENBLAS_CORETYPE and FSVC_BLAS_CORE=keep are respected; a failed GEMM
# check puts OpenBLAS's own choice back. The same choice in a Python
# process: tests/python/test_blas_core.py.
source "$(dirname "$0")/lib.sh"

if ! "$FSVC" info | grep -q DYNAMIC_ARCH || ! grep -qw avx2 /proc/cpuinfo; then
  echo "skip - OpenBLAS without DYNAMIC_ARCH or a CPU without AVX2"
  exit 0
fi
unset OPENBLAS_CORETYPE # a machine may set it; each check below sets what it needs
own=$(env FSVC_BLAS_CORE=keep "$FSVC" info | sed -n 's/^blas core: \([A-Za-z0-9]*\) .*/\1/p')
want=Haswell; [ "$own" = Haswell ] && want=Sandybridge # a core OpenBLAS did not choose
expect_exit 0 "info" -- "$FSVC" info
expect_match "^blas core: [A-Za-z0-9]+ \(.*\); GEMM check ok$" "info prints the core and its GEMM check" "$OUT"
expect_exit 0 "info, OpenBLAS's choice pretended weak" -- \
  env FSVC_BLAS_CORE_PRETEND=Prescott FSVC_BLAS_CORE_WANT=$want "$FSVC" info
expect_match "^blas core: $want \(set by fsvc: OpenBLAS chose Prescott on this CPU; GEMM check passed\)" \
  "a weak core: replaced in the process" "$OUT"
expect_match "^blas: OpenBLAS .* $want " "OpenBLAS runs the chosen core" "$OUT"
expect_exit 0 "info with the user's OPENBLAS_CORETYPE" -- \
  env OPENBLAS_CORETYPE=Prescott FSVC_BLAS_CORE_PRETEND=Prescott "$FSVC" info
expect_match "^blas core: Prescott \(OPENBLAS_CORETYPE=Prescott from the environment, respected\)" \
  "the user's OPENBLAS_CORETYPE is respected" "$OUT"
expect_exit 0 "info with FSVC_BLAS_CORE=keep" -- \
  env FSVC_BLAS_CORE=keep FSVC_BLAS_CORE_PRETEND=Prescott FSVC_BLAS_CORE_WANT=$want "$FSVC" info
expect_match "^blas core: $own \(OpenBLAS's choice \(FSVC_BLAS_CORE=keep\)\)" "FSVC_BLAS_CORE=keep is respected" "$OUT"
expect_exit 0 "info, GEMM check failing" -- env FSVC_BLAS_CORE_PRETEND=Prescott \
  FSVC_BLAS_CORE_WANT=$want FSVC_BLAS_CORE_FAILCHECK=1 "$FSVC" info
expect_match "^blas core: $own \(OpenBLAS's choice: fsvc tried $want, whose GEMM check failed\)" \
  "a failed GEMM check: back to OpenBLAS's choice" "$OUT"
if echo "$OUT" | grep -q "^blas: OpenBLAS .* $want "; then fail "the rejected core still runs"
else ok "the rejected core does not run"; fi
# a command that trains runs on the chosen core and keeps its exit code
expect_exit 0 "train on the replaced core" -- env FSVC_BLAS_CORE_PRETEND=Prescott \
  FSVC_BLAS_CORE_WANT=$want "$FSVC" train -q "$UCI/iris.train" "$TMP/i.fsvc"
expect_exit 1 "a command on the replaced core keeps its exit code" -- \
  env FSVC_BLAS_CORE_PRETEND=Prescott "$FSVC" train --bogus x
