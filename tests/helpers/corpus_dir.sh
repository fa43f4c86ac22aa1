#!/usr/bin/env bash
# Print the perf.data corpus folder (the one holding quipper/ and linux-perf-data/; files of
# many perf versions, not in the repository), or nothing: PERFRING_PERFDATA_CORPUS, else a
# shared/corpus/perf.data in a folder above the checkout (or above the main checkout, for a git
# worktree), as the workplace lays it out beside its projects. Used by scripts/run-tests.sh
# (for the unit tests) and tests/cli/lib.sh (t_find_corpus).
#   corpus_dir.sh [DIR-IN-THE-CHECKOUT]
here=${1:-$(dirname "$0")}
if [ -n "${PERFRING_PERFDATA_CORPUS:-}" ]; then
	[ -d "$PERFRING_PERFDATA_CORPUS/quipper" ] && (cd "$PERFRING_PERFDATA_CORPUS" && pwd)
	exit 0
fi
top=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null)
main=$(cd "$here" 2>/dev/null && cd "$(git rev-parse --git-common-dir 2>/dev/null || echo .)/.." 2>/dev/null && pwd)
for start in "$top" "$main"; do
	d=$start
	while [ -n "$d" ]; do
		if [ -d "$d/shared/corpus/perf.data/quipper" ]; then
			(cd "$d/shared/corpus/perf.data" && pwd)
			exit 0
		fi
		[ "$d" = / ] && break
		d=$(dirname "$d")
	done
done
exit 0
