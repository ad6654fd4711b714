#!/usr/bin/env bash
# Model bytes do not depend on --threads (issue 14 point 11): the ridge
# readout's syrk, Cholesky and pcg products run on fixed blocks with one
# single-threaded BLAS call each (layers/chol.c, layers/cpu_hprod.c). Before, the
# direct and pcg models of satimg differed between --threads 1, 2 and 3.
source "$(dirname "$0")/lib.sh"
cd "$TMP"

# same_bytes NAME DATA OPTIONS...: --threads 1, 2, 3 give identical bytes
same_bytes() {
  local name=$1 data=$2; shift 2
  local t
  for t in 1 2 3; do
    rm -f "t$t.fsvc"
    "$FSVC" train -q --threads $t "$@" "$data" "t$t.fsvc" >/dev/null 2>"err$t" \
      || { fail "$name: train --threads $t: $(head -c 200 "err$t")"; return; }
  done
  if cmp -s t1.fsvc t2.fsvc && cmp -s t1.fsvc t3.fsvc; then
    ok "$name: same model bytes with --threads 1, 2, 3"
  else
    fail "$name: model bytes differ with --threads ($(cmp t1.fsvc t2.fsvc | head -c 80); $(cmp t1.fsvc t3.fsvc | head -c 80))"
  fi
}

# satimg (4435 samples): the default is pcg (m = N >= 3000)
same_bytes "satimg default (pcg)" "$UCI/satimg.train"
same_bytes "optd64 pcg" "$UCI/optd64.train" --solver pcg --max-neurons 2000
same_bytes "phoneme direct, class weights" "$UCI/phoneme.train" --solver direct --class-weight balanced
same_bytes "phoneme pcg, class weights" "$UCI/phoneme.train" --solver pcg --class-weight balanced

# MNIST: the first 2000 training images as an IDX pair (header count patched)
idx_head() { # idx_head IN OUT HEADER_BYTES RECORD_BYTES COUNT
  { zcat "$1" | head -c 4; printf "\\x$(printf %02x $(($5 >> 24 & 255)))\\x$(printf %02x $(($5 >> 16 & 255)))\\x$(printf %02x $(($5 >> 8 & 255)))\\x$(printf %02x $(($5 & 255)))"
    zcat "$1" | head -c $(($3 + $4 * $5)) | tail -c +9; } > "$2"
}
mkdir -p mn
idx_head "$MNIST/train-images-idx3-ubyte.gz" mn/train-images-idx3-ubyte 16 784 2000
idx_head "$MNIST/train-labels-idx1-ubyte.gz" mn/train-labels-idx1-ubyte 8 1 2000
same_bytes "mnist 2000 default (direct)" mn/train
same_bytes "mnist 2000 direct f64" mn/train --solver direct --dtype f64 --max-neurons 800
same_bytes "mnist 2000 pcg" mn/train --solver pcg --max-neurons 800
# a bf16 H: its rounding's sum (h_err2) in row order, the fused products per slot
same_bytes "mnist 2000 pcg, bf16 H, shift1" mn/train --solver pcg --max-neurons 800 --pcg-h bf16 \
  --augment shift1


# sparse data (CSR, fsvc/sparse_ridge.c): the same fixed-block kernels
same_bytes "satimg sparse direct" "$UCI/satimg.train" --sparse --solver direct
same_bytes "optd64 sparse pcg" "$UCI/optd64.train" --sparse --solver pcg --max-neurons 2000
