#!/bin/bash
# ptxas_report.sh - turns the ptxas reports that the Makefile keeps beside
# each CUDA object (build/obj/cuda/<file>.cu.o.ptxas, from nvcc
# --resource-usage) into results/cuda-ptxas.txt: one line per kernel and
# architecture with registers, shared memory, stack and spills.
#   bash tests/cuda/ptxas_report.sh build/obj/cuda/*.cu.o.ptxas
set -euo pipefail
echo "# ptxas resource usage of the CUDA kernels (nvcc --resource-usage)"
echo "# regenerate: make BUILD=build all && make -C tests/cuda ptxas BUILD=\$PWD/build"
echo "# nvcc: $(nvcc --version 2>/dev/null | tail -1 || echo unknown)"
echo "# registers per thread; smem bytes per block (static); stack and spill bytes per thread"
echo "#"
printf "%-28s %-6s %5s %6s %6s %12s %11s\n" kernel arch regs smem stack spill_stores spill_loads
spills=0
for f in "$@"; do
  awk -v file="$(basename "$f" .o.ptxas)" '
    /Compiling entry function/ {
      match($0, /function .([^'"'"']*)/, m); name = m[1]
      match($0, /for .(sm_[0-9a-z]*)/, a); arch = a[1]; entry = 1; next }
    entry && /bytes stack frame/ {
      stack = $1; sst = $5; sld = $9; next }
    entry && /Used [0-9]+ registers/ {
      match($0, /Used ([0-9]+) registers/, r)
      smem = 0; if (match($0, /([0-9]+) bytes smem/, s)) smem = s[1]
      print name, arch, r[1], smem, stack, sst, sld
      entry = 0 }' "$f"
done | while read -r name arch regs smem stack sst sld; do
  pretty=$(echo "$name" | c++filt | sed -e 's/(.*//' -e 's/unsigned int/u32/g')
  case "$name" in *ILi0E*) pretty="$pretty<U8_L1>";; *ILi1E*) pretty="$pretty<U8_L2>";;
                  *ILi2E*) pretty="$pretty<U8_DOT>";; *ILi3E*) pretty="$pretty<F32_L1>";; esac
  pretty=${pretty/<(bnlc_tile_op)0>/}; pretty=$(echo "$pretty" | sed 's/<[0-9]*>//')
  printf "%-28s %-6s %5s %6s %6s %12s %11s\n" "$pretty" "$arch" "$regs" "$smem" "$stack" "$sst" "$sld"
  if [ "$sst" != 0 ] || [ "$sld" != 0 ]; then echo "SPILL: $pretty $arch" >&2; fi
done
