# CLI tests of OpenBLAS's core type (tools/blas_core.c, issue 11): fsvc
# info says which core runs and why; a core weaker than the CPU (provoked
# by the FSVC_BLAS_CORE_PRETEND hook, as this CPU is known to OpenBLAS)
# makes fsvc re-execute itself with OPENBLAS_CORETYPE, which OpenBLAS
# honours at load time (FSVC_BLAS_CORE_WANT=Haswell shows it: OpenBLAS
# reports Haswell on an AVX-512 CPU); a user's OPENBLAS_CORETYPE is kept;
# a failed GEMM check falls back to OpenBLAS's own choice.
source "$(dirname "$0")/lib.sh"

if ! "$FSVC" info | grep -q DYNAMIC_ARCH || ! grep -qw avx2 /proc/cpuinfo; then
  echo "skip - OpenBLAS without DYNAMIC_ARCH or a CPU without AVX2"
  exit 0
fi
expect_exit 0 "info" -- "$FSVC" info
expect_match "^blas core: [A-Za-z0-9]+ \(.*\); GEMM check ok$" "info prints the core and its GEMM check" "$OUT"
expect_exit 0 "info, OpenBLAS's choice pretended weak" -- \
  env FSVC_BLAS_CORE_PRETEND=Prescott FSVC_BLAS_CORE_WANT=Haswell "$FSVC" info
expect_match "^blas core: Haswell \(set by fsvc \(OPENBLAS_CORETYPE\): OpenBLAS chose Prescott on this CPU; GEMM check passed\)" \
  "a weak core: re-executed with OPENBLAS_CORETYPE, taken at load time" "$OUT"
expect_match "^blas: OpenBLAS .* Haswell " "the re-executed OpenBLAS runs the chosen core" "$OUT"
expect_exit 0 "info with the user's OPENBLAS_CORETYPE" -- \
  env OPENBLAS_CORETYPE=Prescott FSVC_BLAS_CORE_PRETEND=Prescott "$FSVC" info
expect_match "^blas core: Prescott \(OPENBLAS_CORETYPE=Prescott from the environment, respected\)" \
  "the user's OPENBLAS_CORETYPE is respected" "$OUT"
expect_exit 0 "info, GEMM check failing" -- env FSVC_BLAS_CORE_PRETEND=Prescott \
  FSVC_BLAS_CORE_WANT=Haswell FSVC_BLAS_CORE_FAILCHECK=1 "$FSVC" info
expect_match "^blas core: [A-Za-z0-9]+ \(OpenBLAS's choice: fsvc tried Haswell, whose GEMM check failed\)" \
  "a failed GEMM check: back to OpenBLAS's choice" "$OUT"
if echo "$OUT" | grep -q "^blas: OpenBLAS .* Haswell "; then fail "the rejected core still runs"
else ok "the rejected core does not run"; fi
# the re-exec keeps the arguments and the exit code of the command
expect_exit 1 "a re-executed command keeps its exit code" -- \
  env FSVC_BLAS_CORE_PRETEND=Prescott "$FSVC" train --bogus x
