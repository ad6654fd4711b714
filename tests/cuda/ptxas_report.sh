#!/bin/bash
# ptxas_report.sh - turns the ptxas reports that the Makefile keeps beside
# each CUDA object (build/obj/cuda/<file>.cu.o.ptxas, from nvcc
# --resource-usage) into results/cuda-ptxas.txt: one line per kernel and
# architecture with registers, shared memory, stack and spills. Exits 1
# if any kernel spills.
#   bash tests/cuda/ptxas_report.sh build/obj/cuda/*.cu.o.ptxas
set -uo pipefail
echo "# ptxas resource usage of the CUDA kernels (nvcc --resource-usage)"
echo "# regenerate: make BUILD=build all && make -C tests/cuda ptxas BUILD=\$PWD/build"
echo "# $(nvcc --version 2>/dev/null | tail -1)"
echo "# regs: registers per thread; smem: static shared bytes per block;"
echo "# stack / spill: bytes per thread"
echo "#"
printf "%-34s %-6s %5s %6s %6s %12s %11s\n" kernel arch regs smem stack spill_stores spill_loads
spilled=0
re_entry="Compiling entry function '([^']*)' for '(sm_[0-9a-z]*)'"
re_stack="([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads"
re_used="Used ([0-9]+) registers"
re_smem="([0-9]+) bytes smem"
for f in "$@"; do
  name=""; arch=""; stack=0; sst=0; sld=0
  while IFS= read -r line; do
    if [[ $line =~ $re_entry ]]; then
      name=${BASH_REMATCH[1]}; arch=${BASH_REMATCH[2]}
    elif [[ -n $name && $line =~ $re_stack ]]; then
      stack=${BASH_REMATCH[1]}; sst=${BASH_REMATCH[2]}; sld=${BASH_REMATCH[3]}
    elif [[ -n $name && $line =~ $re_used ]]; then
      regs=${BASH_REMATCH[1]}; smem=0
      [[ $line =~ $re_smem ]] && smem=${BASH_REMATCH[1]}
      pretty=$(echo "$name" | c++filt | sed -e 's/(.*//' -e 's/^void //' -e 's/, bnlc_actpd*>/>/')
      case "$name" in
        *kernelILi0E*) pretty="bnl_tile_kernel<U8_L1>";;  *kernelILi1E*) pretty="bnl_tile_kernel<U8_L2>";;
        *kernelILi2E*) pretty="bnl_tile_kernel<U8_DOT>";; *kernelILi3E*) pretty="bnl_tile_kernel<F32_L1>";;
        *kernelILi4E*) pretty="bnl_tile_kernel<F64_L1>";;
      esac
      printf "%-34s %-6s %5s %6s %6s %12s %11s\n" "$pretty" "$arch" "$regs" "$smem" "$stack" "$sst" "$sld"
      if [ "$sst" != 0 ] || [ "$sld" != 0 ]; then spilled=1; echo "SPILL: $pretty $arch" >&2; fi
      name=""; stack=0; sst=0; sld=0
    fi
  done < "$f"
done
echo "#"
if [ $spilled = 0 ]; then echo "# no spills"; else echo "# SPILLS (see above)"; fi
exit $spilled
