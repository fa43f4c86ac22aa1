#!/usr/bin/env bash
# Run the test binaries of one build and add up their results.
#   run-tests.sh --build DIR --suite NAME [--filter GLOB] [--no-cli] [--wrap "CMD ARGS"] [--jobs N]
# Every test program prints "N passed, N failed, N skipped" as its last
# line; a program that dies without it (crash, sanitizer report) counts as
# one failure. Appends "passed failed skipped" to DIR/.totals and prints the
# suite's line with its wall time.
# --jobs N: up to N unit tests, fuzz seed replays and PARALLEL_CLI tests (below) at a time: they
# touch no CPU, event or tracefs state of the machine and need no CPU time by the clock (their
# output is printed in order, and first). Kernel tests and the other CLI tests then run one at
# a time: they time wakeups, pin and unplug CPUs, record workloads (counting their samples),
# record system-wide, use tracefs and bpffs. When SERIAL_LOCK names a file (make check, whose
# suites run side by side) those hold it exclusively and the side-by-side ones shared: a test
# of the one-at-a-time kind runs with no other test of any suite.
set -uo pipefail

build=build suite=plain filter='*' cli=1 wrap=() jobs=1
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=$2; shift 2 ;;
	--suite) suite=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--no-cli) cli=0; shift ;;
	--wrap) read -r -a wrap <<<"$2"; shift 2 ;; # e.g. "valgrind --error-exitcode=99"
	--jobs) jobs=$2; shift 2 ;;
	*) echo "run-tests.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
suite_start=$(date +%s.%N)

# The perf.data corpus of the corpus tests, for the unit tests too (tests/helpers/corpus_dir.sh).
PERFRING_PERFDATA_CORPUS=$(bash "$(dirname "$0")/../tests/helpers/corpus_dir.sh" "$(dirname "$0")")
export PERFRING_PERFDATA_CORPUS

logdir="$build/test-logs/$suite"
# Every failing line is also appended here, so that make check can repeat them just before its
# last line (CI shows only the end of the output).
failures=${FAILURES_FILE:-$build/.failures}
mkdir -p "$logdir"

# Run one test; print its lines, and leave "passed failed skipped" in its .sum file.
run_one() { # name, command...
	local name=$1; shift
	local log="$logdir/$name.log"
	mkdir -p "$(dirname "$log")"
	local P=0 F=0 S=0
	local start end
	start=$(date +%s.%N)
	"$@" >"$log" 2>&1 9>&- # the lock's descriptor (run_serial) is not the test's
	local rc=$?
	end=$(date +%s.%N)
	run_one_report "$@"
	echo "$P $F $S" >"$log.sum"
}

run_one_report() {
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

# Tests run in the background (run_bg), up to $jobs at a time, holding SERIAL_LOCK shared, and
# one at a time (run_serial), holding it exclusively, once those are done; collect prints their
# output in the order they were started and adds up their .sum files.
started=()
run_bg() { # name, command...
	started+=("$1")
	mkdir -p "$(dirname "$logdir/$1")"
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	if [ -n "${SERIAL_LOCK:-}" ]; then
		{ flock -s 9 && run_one "$@"; } 9>>"$SERIAL_LOCK" >"$logdir/$1.out" &
	else
		run_one "$@" >"$logdir/$1.out" &
	fi
}
run_serial() { # name, command...
	wait
	started+=("$1")
	mkdir -p "$(dirname "$logdir/$1")"
	if [ -n "${SERIAL_LOCK:-}" ]; then
		{ flock 9 && run_one "$@"; } 9>>"$SERIAL_LOCK" >"$logdir/$1.out"
	else
		run_one "$@" >"$logdir/$1.out"
	fi
	collect
}
P=0 F=0 S=0
collect() {
	wait
	local n p f s
	for n in "${started[@]}"; do
		cat "$logdir/$n.out"
		read -r p f s <"$logdir/$n.log.sum" || { p=0 f=1 s=0; }
		P=$((P + p)) F=$((F + f)) S=$((S + s))
	done
	started=()
}

# CLI tests that only read files and build programs: no recording of a workload (whose sample
# counts would fall with the load), no tracefs, bpffs, CPU pinning or unplugging, no timing.
# They run side by side like the unit tests; every other CLI test, and every kernel test, runs
# alone. A new CLI test runs alone until it is added here.
PARALLEL_CLI=" abi decode_errors install_cmake install_pkgconfig man_pages perfdata_corpus
	perfdata_hostile report_corpus_order script_corpus tool_hostile "

# First what runs side by side: unit tests, the fuzz targets' seed replays and the CLI tests
# above; then, one at a time, the kernel tests and the other CLI tests.
for t in "$build"/tests/unit/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	n="unit/$(basename "$t")"
	# shellcheck disable=SC2053
	[[ $n == $filter ]] || continue
	run_bg "$n" "${wrap[@]}" "$t"
done
# Fuzz targets' seeds, replayed by the target built with this build's compiler and sanitizers
# (tests/fuzz/standalone_main.c); the record target's are in unit/fuzz_replay.
for t in "$build"/fuzz/*_replay; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	name=$(basename "$t" _replay)
	[ "$name" = record ] && continue
	n="fuzz/$name"
	[[ $n == $filter ]] || continue
	run_bg "$n" "${wrap[@]}" "$t" "tests/fuzz/corpus/$name"
done
cli_tests=()
if [ "$cli" -eq 1 ]; then
	for t in tests/cli/*.sh; do
		[ -f "$t" ] || continue
		[ "$(basename "$t")" = lib.sh ] && continue # helpers, sourced by the tests
		n="cli/$(basename "$t" .sh)"
		[[ $n == $filter ]] || continue
		if [[ $PARALLEL_CLI == *[[:space:]]$(basename "$t" .sh)[[:space:]]* ]]; then
			run_bg "$n" env PERFRING_BUILD="$build" bash "$t"
		else
			cli_tests+=("$t")
		fi
	done
fi
for t in "$build"/tests/kernel/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	n="kernel/$(basename "$t")"
	[[ $n == $filter ]] || continue
	run_serial "$n" "${wrap[@]}" "$t"
done
for t in "${cli_tests[@]}"; do
	run_serial "cli/$(basename "$t" .sh)" env PERFRING_BUILD="$build" bash "$t"
done
collect

echo "$P $F $S" >>"$build/.totals"
echo "[$suite] $P passed, $F failed, $S skipped ($(awk -v a="$suite_start" -v b="$(date +%s.%N)" \
	'BEGIN{printf "%.0f", b - a}')s, load $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$F" -eq 0 ]
