#!/usr/bin/env bash
# npm run bench:against -- COMMIT [SECTION ...]: the bench sections (sales and clicks unless named)
# of this checkout and of COMMIT, one after the other, twice, in one run on this machine, so that a
# change is measured against the code before it (docs/benchmarks.md#against-an-older-commit).
# COMMIT is checked out into a temporary worktree that shares node_modules and is removed after.
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:?usage: npm run bench:against -- COMMIT [SECTION ...]}
shift
sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(sales clicks)
old=$(mktemp -d)
trap 'git worktree remove --force "$old" >/dev/null 2>&1 || rm -rf "$old"' EXIT
git worktree add --detach "$old" "$commit" >/dev/null
ln -s "$PWD/node_modules" "$old/node_modules"
npm run build >/dev/null
(cd "$old" && npm run build >/dev/null)
for round in 1 2; do
  for section in "${sections[@]}"; do
    for tree in "$PWD" "$old"; do
      label=$([ "$tree" = "$PWD" ] && echo "this checkout" || echo "$commit")
      echo "== round $round, $section, $label"
      (cd "$tree" && node dist/bench/run.js "$section" | grep -E '^  [a-z]' || true)
    done
  done
done
