#!/usr/bin/env bash
# Run the test binaries of one build and add up their results.
#   run-tests.sh --build DIR --suite NAME [--filter GLOB] [--no-cli] [--wrap "CMD ARGS"]
# Every test program prints "N passed, N failed, N skipped" as its last
# line; a program that dies without it (crash, sanitizer report) counts as
# one failure. Appends "passed failed skipped" to DIR/.totals and prints the
# suite's line.
set -uo pipefail

build=build suite=plain filter='*' cli=1 wrap=()
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=$2; shift 2 ;;
	--suite) suite=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--no-cli) cli=0; shift ;;
	--wrap) read -r -a wrap <<<"$2"; shift 2 ;; # e.g. "valgrind --error-exitcode=99"
	*) echo "run-tests.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# The perf.data corpus of the corpus tests (files of many perf versions; not in the repository):
# PERFRING_PERFDATA_CORPUS, else shared/corpus/perf.data beside the checkout or, for a git
# worktree, beside the main checkout (tests/cli/lib.sh's t_find_corpus looks the same way).
if [ -z "${PERFRING_PERFDATA_CORPUS:-}" ]; then
	for top in "$(git rev-parse --show-toplevel 2>/dev/null)" "$(cd "$(git rev-parse --git-common-dir 2>/dev/null || echo .)/.." && pwd)"; do
		c="$top/../shared/corpus/perf.data"
		if [ -n "$top" ] && [ -d "$c/quipper" ]; then
			export PERFRING_PERFDATA_CORPUS
			PERFRING_PERFDATA_CORPUS=$(cd "$c" && pwd)
			break
		fi
	done
fi

logdir="$build/test-logs/$suite"
# Every failing line is also appended here, so that make check can repeat them just before its
# last line (CI shows only the end of the output).
failures=${FAILURES_FILE:-$build/.failures}
mkdir -p "$logdir"
P=0 F=0 S=0

run_one() { # name, command...
	local name=$1; shift
	local log="$logdir/$name.log"
	mkdir -p "$(dirname "$log")"
	local start end
	start=$(date +%s.%N)
	"$@" >"$log" 2>&1
	local rc=$?
	end=$(date +%s.%N)
	grep -E '^(ok|FAIL|skip|     )' "$log" | sed "s|^|[$suite] $name: |"
	grep -E '^FAIL' "$log" | sed "s|^|[$suite] $name: |" >>"$failures"
	local last
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
	if [ -z "$last" ]; then
		echo "[$suite] $name: FAIL: exited $rc without a summary line; log: $log" | tee -a "$failures"
		tail -n 20 "$log" | sed "s|^|    |"
		F=$((F + 1))
		return
	fi
	local p f s
	p=$(echo "$last" | awk '{print $1}')
	f=$(echo "$last" | awk '{print $3}')
	s=$(echo "$last" | awk '{print $5}')
	s=${s:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "[$suite] $name: FAIL: exited $rc; log: $log" | tee -a "$failures"
		tail -n 20 "$log" | sed "s|^|    |"
		f=1
	fi
	P=$((P + p)) F=$((F + f)) S=$((S + s))
	printf '[%s] %s: %s (%ss)\n' "$suite" "$name" "$last" "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b - a}')"
}

for kind in unit kernel; do
	for t in "$build"/tests/$kind/*; do
		[ -x "$t" ] && [ -f "$t" ] || continue
		n="$kind/$(basename "$t")"
		# shellcheck disable=SC2053
		[[ $n == $filter ]] || continue
		run_one "$n" "${wrap[@]}" "$t"
	done
done
# Fuzz targets' seeds, replayed by the target built with this build's compiler and sanitizers
# (tests/fuzz/standalone_main.c); the record target's are in unit/fuzz_replay.
for t in "$build"/fuzz/*_replay; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	name=$(basename "$t" _replay)
	[ "$name" = record ] && continue
	n="fuzz/$name"
	[[ $n == $filter ]] || continue
	run_one "$n" "${wrap[@]}" "$t" "tests/fuzz/corpus/$name"
done
if [ "$cli" -eq 1 ]; then
	for t in tests/cli/*.sh; do
		[ -f "$t" ] || continue
		[ "$(basename "$t")" = lib.sh ] && continue # helpers, sourced by the tests
		n="cli/$(basename "$t" .sh)"
		[[ $n == $filter ]] || continue
		run_one "$n" env PERFRING_BUILD="$build" bash "$t"
	done
fi

echo "$P $F $S" >>"$build/.totals"
echo "[$suite] $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
