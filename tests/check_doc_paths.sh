#!/usr/bin/env bash
# Every file a document names exists: each `quoted` word of the given
# markdown files that looks like a path (ends in .c .h .cu .sh .py .md or
# /) must match a file or folder from the repository root, or, a bare file
# name, one somewhere in the source folders. --self-test: a made-up name
# must fail. Usage: tests/check_doc_paths.sh [--self-test] FILE.md...
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ "${1:-}" = --self-test ]; then
  t=$(mktemp); trap 'rm -f "$t"' EXIT
  printf 'see `layers/no_such_file.c` and `nowhere.h`\n' >"$t"
  out=$(bash "$0" "$t") && { echo "check_doc_paths: a missing path passed"; exit 1; }
  grep -q 'layers/no_such_file.c' <<<"$out" && grep -q 'nowhere.h' <<<"$out" || {
    echo "check_doc_paths: the missing paths are not named: $out"; exit 1; }
  exit 0
fi
bad=0
for doc in "$@"; do
  while read -r p; do
    if [[ $p == */* ]]; then
      compgen -G "${p%/}" >/dev/null && continue
    elif [ -e "$p" ] || [ -n "$(find base datasets layers cuda fsvc tools tests python scripts -name "$p" -print -quit 2>/dev/null)" ]; then
      continue
    fi
    echo "$doc names $p, which does not exist"; bad=1
  done < <(grep -o '`[^` ]*`' "$doc" | tr -d '`' | grep -E '^[A-Za-z0-9_.*/-]+(\.(c|h|cu|sh|py|md)|/)$' | grep -Ev '^(/|include/|build/)' | sort -u)
done
exit $bad
