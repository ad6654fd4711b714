# Out of memory at every allocation: tests/cli/failmalloc.c (LD_PRELOAD)
# fails the K-th one, for every K a command makes (train in its main
# variants, train -v, train -b 1, predict, eval, eval --png, study and
# show --png; LIBSVM text, gzipped IDX digits, a PNG folder), and names
# the failed call's caller; addr2line says whether that is fsvc's code (a
# file of this repository) or a library's. After a failure in fsvc's own
# call the command must end with one line naming the lack of memory,
# exit 3, and leave no output file behind: never crash, never blame the
# input. A run that still exits 0 must write the clean run's output. A
# library's failure is counted, not judged: libgomp aborts by design,
# OpenBLAS 0.3.21's small-matrix kernels use an unchecked malloc, and
# Debian's oneDNN 2.6 throws std::bad_alloc through its C API (kept out
# here by FSVC_ARCH=scalar).
source "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$TMP" || exit 1
CC=${CC:-cc}
if ! "$CC" -O1 -shared -fPIC -o failmalloc.so "$HERE/failmalloc.c" -ldl 2>cc.err; then
  fail "failmalloc.c does not build: $(head -c 300 cc.err)"; exit 0
fi
export FSVC_ARCH=scalar OMP_NUM_THREADS=2 # every x86-64 has it (an absent tier warns)
gzip -c "$UCI/iris.train" > iris.train.gz
"$FSVC" train -q iris.train.gz model.fsvc >/dev/null 2>&1 || fail "iris: no model to predict with"

# ours: 0 when the failed call's caller (failmalloc's line in err) is a
# file of this repository, or zlib, libpng or libjpeg (which return the
# failure to fsvc as an error)
ours() {
  local who obj off src
  who=$(sed -n 's/^failmalloc: caller //p' err | head -n 1)
  [ -n "$who" ] || return 1
  obj=${who%+*} off=${who##*+}
  case $obj in */libz.so*|*/libpng*|*/libjpeg*) return 0 ;; esac # they return errors
  src=$(addr2line -e "$obj" "$off" 2>/dev/null | head -n 1)
  case $src in "$ROOT"/*) return 0 ;; *) return 1 ;; esac
}
ROOT=$(cd "$HERE/../.." && pwd)

# make test fails every 2nd allocation from an offset that changes daily
# (CI covers each in 2 days; OOM_STRIDE, OOM_OFFSET override), make
# check-full every one
STRIDE=${OOM_STRIDE:-2}
OFFSET=${OOM_OFFSET:-$(( $(date -u +%j | sed 's/^0*//') % STRIDE + 1 ))}
[ "$FULL" = 1 ] && STRIDE=1 OFFSET=1
# sweep NAME OUTFILE CMD...: runs CMD once per allocation it makes;
# SAME=FILE: a run that exits 0 must write OUTFILE equal to FILE
sweep() {
  local name=$1 outf=$2; shift 2
  local n k rc bad=0 oom=0 lib=0 msg
  n=$(OOM_COUNT=1 LD_PRELOAD=$TMP/failmalloc.so "$@" 2>&1 >/dev/null | sed -n 's/^failmalloc calls //p')
  if ! [ "${n:-0}" -gt 10 ]; then fail "$name: the shim counted '${n:-}' allocations"; return; fi
  for ((k = OFFSET; k <= n; k += STRIDE)); do
    rm -f "$outf"
    # (the group's stderr takes bash's "Segmentation fault" line of a library's crash)
    { timeout 60 env OOM_AT=$k LD_PRELOAD="$TMP/failmalloc.so" "$@" >/dev/null 2>err; rc=$?; } 2>/dev/null
    grep -v '^failmalloc: ' err > msg
    if ! ours; then [ "$rc" -ne 0 ] && lib=$((lib + 1)); continue; fi
    if [ "$rc" -eq 0 ]; then
      # a run that succeeds must give the clean run's output: a failure
      # taken for "skip this step" makes a silently different model
      if [ -n "${SAME:-}" ] && ! cmp -s "$outf" "$SAME"; then
        bad=$((bad + 1))
        [ "$bad" -le 3 ] && fail "$name: allocation $k of $n (OOM_OFFSET=$OFFSET OOM_STRIDE=$STRIDE; $(sed -n 's/^failmalloc: caller //p' err)) failed, exit 0, and $outf differs from the clean run's"
      fi
      continue
    fi
    if [ "$rc" -eq 3 ] && [ "$(grep -c '' msg)" -eq 1 ] && ! grep -q -i corrupt msg &&
       grep -q -E '^fsvc: .*(out of memory|Cannot allocate memory)' msg &&
       [ ! -e "$outf" ]; then
      oom=$((oom + 1)); continue
    fi
    bad=$((bad + 1))
    msg=$(head -c 300 msg | tr '\n' ' ')
    [ "$bad" -le 3 ] && fail "$name: allocation $k of $n (OOM_OFFSET=$OFFSET OOM_STRIDE=$STRIDE; $(sed -n 's/^failmalloc: caller //p' err)) failed: exit $rc, $( [ -e "$outf" ] && echo "$outf written, ")$msg"
  done
  if [ "$bad" -eq 0 ] && [ "$oom" -gt 0 ]; then
    ok "$name: allocations $OFFSET, $((OFFSET + STRIDE)), ... of $n failed one by one: $oom of fsvc's ended in exit 3 with one line, the rest succeeded ($lib libraries' ended otherwise)"
  elif [ "$bad" -eq 0 ]; then
    fail "$name: no injected failure reached fsvc's own code ($n allocations)"
  fi
}
sweep "train (gzipped LIBSVM)" out.fsvc "$FSVC" train -q iris.train.gz out.fsvc
sweep "train -v 3" none "$FSVC" train -q -v 3 iris.train.gz
sweep "predict" out.txt "$FSVC" predict model.fsvc "$UCI/iris.test" out.txt
sweep "eval" none "$FSVC" eval model.fsvc "$UCI/iris.test"
# a folder of PNG images, as users train and predict on them
mkdir -p pets/cat pets/dog
python3 -c '
import pngw, random
random.seed(1)
for c in ("cat", "dog"):
    for i in range(4):
        pngw.png("pets/%s/%d.png" % (c, i), [random.randrange(256) for _ in range(64)])'
"$FSVC" train -q pets pets.fsvc >/dev/null 2>&1 || fail "pets: no model to predict with"
sweep "train (PNG folder)" out.fsvc "$FSVC" train -q pets out.fsvc
sweep "predict (PNG folder)" out.csv "$FSVC" predict pets.fsvc pets out.csv
# -b 1: the temperature's fit; gzipped IDX digits: the inflate window and
# preprocess auto's deskew test.
# A step that took its allocation failure for "nothing to do" exited 0
# with another model: the models must equal the clean run's.
"$FSVC" train -q -b 1 iris.train.gz proba.fsvc >/dev/null 2>&1 || fail "iris -b 1: no clean model"
SAME=proba.fsvc sweep "train -b 1" out.fsvc "$FSVC" train -q -b 1 iris.train.gz out.fsvc
mnist_digits 150 d || fail "no 150-digit IDX files"
"$FSVC" train -q d digits.fsvc >/dev/null 2>&1 || fail "150 digits: no clean model"
SAME=digits.fsvc sweep "train (gzipped IDX digits, preprocess auto)" out.fsvc "$FSVC" train -q d out.fsvc
# gnuplot as a child: the file actions of its spawn (one lost left gnuplot
# reading fsvc's stdin) and the memory stream of its program
sweep "eval --png" out.png "$FSVC" eval --png out.png model.fsvc "$UCI/iris.test" </dev/null
# a study's points travel as text in a memory stream
sweep "study" none "$FSVC" study -q --no-plots --vary radius=1rms,2rms -o st "$UCI/iris.train" "$UCI/iris.test"
# the other trainers and readers, each against its clean run: the pcg
# solver, k-means++ seeding, the LMS readout, sparse rows, regression,
# sample weights, prediction through HOG, the centroid montage
for v in "pcg:--solver pcg" "kmeans:-s kmeans++ --max-neurons 20" "lms:-R lms -E 3" \
         "sparse:--sparse" "regression:--regression" "weights:--sample-weights w.txt"; do
  name=${v%%:*} args=${v#*:}
  [ "$name" = weights ] && awk '{print 1 + (NR % 3)}' "$UCI/iris.train" > w.txt
  # shellcheck disable=SC2086 # args: several options
  "$FSVC" train -q $args "$UCI/iris.train" "clean-$name.fsvc" >/dev/null 2>&1 || fail "$name: no clean model"
  # shellcheck disable=SC2086
  SAME=clean-$name.fsvc sweep "train $args" out.fsvc "$FSVC" train -q $args "$UCI/iris.train" out.fsvc
done
"$FSVC" predict -q digits.fsvc d digits.txt >/dev/null 2>&1 || fail "digits: no clean prediction"
SAME=digits.txt sweep "predict (HOG model, gzipped IDX)" out.txt "$FSVC" predict -q digits.fsvc d out.txt
"$FSVC" train -q --features pixels d pixels.fsvc >/dev/null 2>&1 || fail "digits: no pixel model"
"$FSVC" show --png montage.png pixels.fsvc >/dev/null 2>&1 || fail "digits: no clean montage"
SAME=montage.png sweep "show --png" out.png "$FSVC" show --png out.png pixels.fsvc
# the Python estimators' path (fsvc/embed.h: array and CSR views, -b 1's
# calibration, the model as bytes) through tests/cli/oom_embed.c, linked
# to the libfsvc.so next to $FSVC
LIBDIR=$(cd "$(dirname "$FSVC")" && pwd)
if [ ! -e "$LIBDIR/libfsvc.so" ]; then
  fail "no $LIBDIR/libfsvc.so for oom_embed (make builds it)"
elif ! "$CC" -O1 -I"$ROOT" -o oom_embed "$HERE/oom_embed.c" -L"$LIBDIR" -lfsvc \
       -Wl,-rpath,"$LIBDIR" 2>cc.err; then
  fail "oom_embed.c does not build: $(head -c 300 cc.err)"
elif ! ./oom_embed "$UCI/iris.train" embed.txt 2>cc.err; then
  fail "oom_embed: the clean run fails: $(head -c 300 cc.err)"
else
  SAME=embed.txt sweep "embed.h views, calibration, bytes" out.txt ./oom_embed "$UCI/iris.train" out.txt
fi
