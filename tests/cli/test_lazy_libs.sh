# CLI tests of fsvc's start-up (issue 27, small data): the fsvc executable
# links OpenBLAS and LAPACKE statically where Debian's archives exist (the
# Makefile's STATIC_BLAS), and loads oneDNN (layers/dnnl_load.c) and MPI
# (tools/comm_mpi.c, the plugin fsvc-mpi.so) only when a run uses them: a
# one-process job on small data loads neither; a large f32 job on the
# onednn tier loads libdnnl and runs on it; a missing libdnnl gives one
# line and the avx512bf16 tier's model; mpirun without a plugin that loads
# stops with one line (exit 3), no model. (mpirun runs: test_mpi*.sh)
source "$(dirname "$0")/lib.sh"
BUILD_DIR=$(dirname "$FSVC")
IRIS=$UCI/iris.train
cd "$TMP"

# loaded LIB-REGEX CMD...: the shared objects CMD loads (ld.so's own list)
loaded() { local re=$1; shift; LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -E "file=[^ ]*$re" | head -n 1; }

needed=$(readelf -d "$FSVC" 2>/dev/null | grep NEEDED)
if [ -z "$needed" ]; then fail "readelf -d $FSVC lists nothing (binutils?)"; fi
if echo "$needed" | grep -Eq 'libdnnl|libmpi|open-rte|open-pal'; then
  fail "fsvc links oneDNN or MPI: $(echo "$needed" | grep -Eo '\[lib(dnnl|mpi|open-rte|open-pal)[^]]*\]' | tr '\n' ' ')"
else ok "fsvc has no NEEDED libdnnl, libmpi"; fi
so=$BUILD_DIR/libfsvc.so
if [ -e "$so" ]; then
  bad=$( { readelf -d "$so" | grep NEEDED | grep -E 'libdnnl|libmpi'; nm -D --undefined-only "$so" | grep -E ' (dnnl_|MPI_)'; } 2>/dev/null)
  if [ -z "$bad" ]; then ok "libfsvc.so needs no oneDNN or MPI symbol"; else fail "libfsvc.so: $bad"; fi
fi
# the static archives of Debian's libopenblas-dev / liblapacke-dev: the
# default links them (STATIC_BLAS=auto)
obl=$(pkg-config --variable=libdir openblas 2>/dev/null)
if [ -e "$obl/libopenblas.a" ] && [ -e "$(pkg-config --variable=libdir lapacke)/liblapacke.a" ]; then
  if echo "$needed" | grep -Eq 'libopenblas|liblapack|libblas'; then
    fail "fsvc links OpenBLAS/LAPACKE shared although the archives are there"
  else ok "fsvc has OpenBLAS and LAPACKE linked in"; fi
fi
expect_exit 0 "info" -- "$FSVC" info
expect_match "^blas: OpenBLAS [0-9.]+ .*DYNAMIC_ARCH" "info: the same DYNAMIC_ARCH OpenBLAS" "$OUT"
expect_exit 0 "info, OPENBLAS_CORETYPE=Haswell" -- env OPENBLAS_CORETYPE=Haswell "$FSVC" info
expect_match "^blas core: Haswell \(OPENBLAS_CORETYPE=Haswell" "OPENBLAS_CORETYPE still chooses the core" "$OUT"

# a small one-process job loads neither
if [ -e "$IRIS" ]; then
  expect_exit 0 "iris -v 5" -- "$FSVC" train -v 5 "$IRIS"
  l=$(loaded 'lib(dnnl|mpi)' "$FSVC" train -v 5 "$IRIS")
  if [ -z "$l" ]; then ok "iris -v 5 loads no libdnnl, no libmpi"; else fail "iris -v 5 loads: $l"; fi
else fail "no $IRIS (make test-data)"; fi

# the onednn tier: a large f32 job loads libdnnl and runs on it; without
# the library: one line, and the model of the tier below
MN=$MNIST/t10k
if "$FSVC" info 2>/dev/null | grep -Eq '^  f32 l2, dot +onednn-f32 \(onednn\)'; then
  job=(train -q --dtype f32 --scale 01 --preprocess none -s random --max-neurons 600 --threads 2)
  l=$(loaded 'libdnnl' env FSVC_ARCH=onednn "$FSVC" "${job[@]}" "$MN" d.fsvc)
  if [ -n "$l" ]; then ok "an f32 job on the onednn tier loads libdnnl"; else fail "no libdnnl loaded"; fi
  expect_exit 0 "bench on the onednn tier" -- "$FSVC" bench --op rbf-l2 --dtype f32 \
    -m 1024 -N 512 -n 784 -v -r 1
  expect_match "plan: path=onednn" "the product runs on oneDNN" "$OUT"
  expect_exit 0 "train, onednn" -- env FSVC_ARCH=onednn "$FSVC" "${job[@]}" "$MN" d.fsvc
  expect_exit 0 "train, avx512bf16" -- env FSVC_ARCH=avx512bf16 "$FSVC" "${job[@]}" "$MN" b.fsvc
  expect_exit 0 "train, onednn without libdnnl" -- env FSVC_ARCH=onednn \
    FSVC_DNNL_LIB=libfsvc-none.so.2 "$FSVC" "${job[@]}" "$MN" n.fsvc
  expect_match "^onednn: cannot load libfsvc-none.so.2 \(.*\); its products run on the avx512bf16 tier$" \
    "missing libdnnl: says so" "$ERR"
  expect_one_line "missing libdnnl: one line" "$ERR"
  if cmp -s n.fsvc b.fsvc; then ok "missing libdnnl: the avx512bf16 tier's model"
  else fail "missing libdnnl: not the avx512bf16 model"; fi
  if ! cmp -s d.fsvc b.fsvc; then ok "the onednn model is oneDNN's (differs from avx512bf16's)"
  else fail "onednn and avx512bf16 gave the same bytes: oneDNN did not run"; fi
  expect_exit 0 "info without libdnnl" -- env FSVC_DNNL_LIB=libz.so.1 "$FSVC" info
  expect_match "^onednn: libz.so.1 has no dnnl_engine_create; its products run on the avx512bf16 tier$" \
    "info: a library that is not oneDNN, one line" "$ERR"
  expect_match "^  f32 l2, dot +openblas-sgemm \(gemm\)" "info: f32 L2 then on GEMM" "$OUT"
else
  ok "no onednn tier here (no libdnnl-dev at build time or no AVX-512 BF16): its checks skipped"
fi

# MPI: loaded under mpirun only; a plugin that does not load stops the run
if "$FSVC" info 2>/dev/null | grep -q '^mpi: Open MPI'; then
  l=$(loaded 'libmpi' "$FSVC" train -q "$IRIS" one.fsvc)
  if [ -z "$l" ]; then ok "one process: no libmpi loaded"; else fail "one process loads $l"; fi
  expect_exit 0 "info, no plugin" -- env FSVC_MPI_PLUGIN=$TMP/none.so "$FSVC" info
  expect_match "^mpi: not available: .*none.so" "info: MPI not available, why" "$OUT"
  expect_exit 3 "under mpirun, no plugin: exit 3" -- env OMPI_COMM_WORLD_SIZE=2 \
    FSVC_MPI_PLUGIN=$TMP/none.so "$FSVC" train -q "$IRIS" m.fsvc
  expect_match "^fsvc: mpirun started this process, but MPI did not load: .*none.so" \
    "under mpirun, no plugin: says so" "$ERR"
  expect_one_line "under mpirun, no plugin: one line" "$ERR"
  if [ ! -e m.fsvc ]; then ok "under mpirun, no plugin: no model"; else fail "a model was written"; fi
  expect_exit 3 "under mpirun, a plugin that is not fsvc's" -- env PMIX_RANK=0 \
    FSVC_MPI_PLUGIN=libz.so.1 "$FSVC" train -q "$IRIS" m.fsvc
  expect_match "not an fsvc MPI plugin" "a library that is not the plugin: says so" "$ERR"
  if command -v mpirun >/dev/null; then
    expect_exit 0 "mpirun -np 2 finds the plugin next to fsvc" -- timeout -k 5 120 mpirun -q \
      --bind-to none --oversubscribe --allow-run-as-root -np 2 "$FSVC" train "$IRIS" k2.fsvc
    expect_match "^processes: 2," "mpirun -np 2 trains on 2 processes" "$OUT$ERR"
  fi
fi
