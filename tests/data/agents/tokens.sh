#!/bin/sh
# A scripted agent: resolves the unmerged files with the project's own `tokens`
# resolver, through the command line (`mergeforge resolve`), then runs the tests once.
set -u
cd "$MERGEFORGE_REPO"
files=$(git diff --name-only --diff-filter=U)
[ -n "$files" ] || { echo "nothing conflicted"; exit 0; }
# shellcheck disable=SC2086
mergeforge resolve --resolver tokens $files
status=$?
echo "mergeforge resolve exited $status"
sh -c "$MERGEFORGE_TEST_CMD" >/dev/null 2>&1 && echo "tests pass" || echo "tests fail"
exit 0
