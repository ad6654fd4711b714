# CLI tests: a run short of address space (ulimit -v) ends, with exit 0 or
# with exit 3 and one line, never hangs. OpenBLAS's buffer allocator retries
# forever when malloc fails, and its workers take their buffers while main
# runs; fsvc takes every buffer it will need before any work
# (tools/blas_reserve.c). Before that, train hung at 150-300 MB above the
# start-up need (a CI run stopped at its time limit on this).
source "$(dirname "$0")/lib.sh"
cd "$TMP"

vm_hi=$(vm_startup) # the address space fsvc needs to start

hung=0; clean=1; both=""
for add in 0 100000 150000 200000 250000 300000 350000 400000 600000 900000; do
  for cmd in train predict; do
    rm -f x.fsvc x.txt
    if [ $cmd = train ]; then
      args=(train -q -r 1rms "$UCI/satimg.train" x.fsvc)
    else
      [ -s m.fsvc ] || "$FSVC" train -q -r 1rms "$UCI/satimg.train" m.fsvc >/dev/null 2>&1
      args=(predict -q m.fsvc "$UCI/satimg.test" x.txt)
    fi
    timeout -k 5 60 bash -c "ulimit -v $((vm_hi + add)); exec \"\$0\" \"\$@\"" "$FSVC" "${args[@]}" \
      </dev/null >out 2>err; rc=$?
    case $rc in
      0) both="$both $cmd:ok" ;;
      3) both="$both $cmd:3"
         [ "$(grep -c '' err)" -eq 1 ] && grep -q '^fsvc: .*out of memory' err || {
           clean=0; fail "$cmd at +$((add / 1000)) MB: exit 3 with $(head -c 200 err)"; }
         { [ ! -e x.fsvc ] && [ ! -e x.txt ]; } || { clean=0; fail "$cmd at +$((add / 1000)) MB: left an output file"; } ;;
      124|137) hung=$((hung + 1)); fail "$cmd at +$((add / 1000)) MB above the start-up need: hung (killed after 60 s)" ;;
      *) clean=0; fail "$cmd at +$((add / 1000)) MB: exit $rc: $(head -c 200 err)" ;;
    esac
  done
done
# The start-up reserve alone (a missing input: nothing else runs), by 2.5 MB
# steps over the limits where the threads' buffers just fit or just miss:
# each thread's first large malloc also maps its malloc arena, and a thread
# whose OpenBLAS buffer then found no room spun forever (1 run in ~30 here).
for add in $(seq 200000 5000 420000) $(seq 202500 5000 420000); do
  timeout -k 5 20 bash -c "ulimit -v $((vm_hi + add)); exec \"\$0\" \"\$@\"" "$FSVC" train -q \
    "$TMP/no-such-file" x.fsvc </dev/null >out 2>err; rc=$?
  case $rc in
    2|3) ;;
    124|137) hung=$((hung + 1)); fail "start-up at +$((add / 1000)) MB above the start-up need: hung (killed after 20 s)" ;;
    *) fail "start-up at +$((add / 1000)) MB: exit $rc: $(head -c 200 err)" ;;
  esac
done
[ $hung -eq 0 ] && ok "train and predict short of address space: no hang at 10 limits, nor the start-up at 89"
[ $clean -eq 1 ] && ok "short of address space: exit 0, or exit 3 with one 'out of memory' line and no output"
case "$both" in *ok*) ok "the largest limits run to the end ($both)" ;; *) fail "no limit ran to the end: $both" ;; esac
case "$both" in *:3*) ok "the smallest limits stop with exit 3" ;; *) fail "no limit stopped with exit 3: $both" ;; esac
