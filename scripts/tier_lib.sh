# tier_lib.sh - helpers shared by the tier scripts (onednn_tier.sh, bf16_job.sh,
# tier_targets.sh, act_intrinsics.sh, train_ab.sh), sourced: best wall and
# CPU seconds per key over interleaved rounds (every value kept in
# runs[KEY], in order), timing one command, and the head of an A/B
# report. The caller declares `declare -A wall cpu` and sets $work (a
# scratch folder).
declare -A runs
best() { # best KEY VALUE: keep the minimum wall seconds
  local k=$1 v=$2
  runs[$k]="${runs[$k]:-}${runs[$k]:+ }$v"
  if [ -z "${wall[$k]:-}" ] || awk "BEGIN{exit !($v < ${wall[$k]})}"; then wall[$k]=$v; fi
}
bestc() { # bestc KEY VALUE: keep the minimum CPU seconds
  local k=$1 v=$2
  if [ -z "${cpu[$k]:-}" ] || awk "BEGIN{exit !($v < ${cpu[$k]})}"; then cpu[$k]=$v; fi
}
# timed KEY CMD...: runs CMD (its output in $work/o), keeps its best wall
# and user + system seconds (/usr/bin/time); a failure ends the script
timed() {
  local k=$1; shift
  /usr/bin/time -f '%e %U %S' -o "$work/t" "$@" >"$work/o" 2>&1 ||
    { echo "${0##*/}: $k failed: $(tail -n 3 "$work/o")" >&2; exit 1; }
  read -r e u s <"$work/t"
  best "$k" "$e"
  bestc "$k" "$(awk "BEGIN{print $u + $s}")"
  echo "${0##*/}: $k: $e s wall, $u + $s s CPU" >&2
}
# ab_head TITLE SCRIPT COMMAND LOAD0: a report's title, who wrote it, the
# command, date and commit, the machine and its load at the start and now
ab_head() {
  echo "# $1"
  echo
  echo "Written by \`scripts/$2\`; do not edit."
  echo
  echo "- command: \`$3\`"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD)"
  echo "- machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
    "$(nproc) cores; load average $4 at the start," \
    "$(cut -d' ' -f1-3 /proc/loadavg) at the end (shared: compare the ratios)"
}
# ab_ratio A B: A / B as "1.23x" ("n/a" when B is not positive)
ab_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "n/a" }'; }
