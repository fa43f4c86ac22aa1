#!/usr/bin/env bash
# make check: build and run every test, then again under sanitizers.
#  - plain build (build/): unit, kernel and CLI tests;
#  - valgrind (plain build): the unit tests, two kernel tests and the kernel fault-injection tests
#    (tests/kernel/fault_*);
#  - ASan+UBSan build (build/asan/): unit and kernel tests, and the tool on hostile files
#    (tests/cli/tool_hostile.sh);
#  - the same with clang (build/asan-clang/): its UBSan sees what gcc's does not (e.g.
#    arithmetic on a NULL pointer, "applying zero offset to null pointer");
#  - TSan build (build/tsan/): the threaded tests (names containing "thread");
#  - every fuzz target for FUZZ_SECONDS each (libFuzzer, clang; scripts/fuzz.sh).
# Two lanes run side by side, so that both CPUs of a small machine stay busy:
#   A: plain suite, valgrind suite, TSan suite
#   B: the ASan, clang ASan, TSan and fuzz builds, then the ASan suites and the fuzz targets
#      (not niced: on a machine others share, a niced lane waited behind their work, 12 minutes
#      for the ASan build alone at a load of 18)
# Unit tests, seed replays and the CLI tests that only read files run CHECK_JOBS (default: the
# CPUs) at a time; kernel tests and the other CLI tests, which time wakeups, pin and unplug CPUs
# and count the samples of recorded workloads, run with no other test of any suite
# (scripts/run-tests.sh, SERIAL_LOCK), only beside the builds and fuzz targets. Lane B's
# output is printed when it ends. Every suite's wall time (and the load average then) is printed, and the whole
# ends with the line "N passed, N failed, N skipped" over all of them.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}
rm -f build/.totals build/asan/.totals build/asan-clang/.totals build/tsan/.totals
mkdir -p build
# Every suite appends its failing lines here; they are repeated before the last line.
export FAILURES_FILE=$PWD/build/.failures
: >"$FAILURES_FILE"
export SERIAL_LOCK=$PWD/build/.check-serial.lock
: >"$SERIAL_LOCK"
check_start=$(date +%s)
times=build/.check-times
: >"$times"

now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# timed NAME CMD...: run CMD, print and record its wall time; CMD's status is returned.
timed() {
	local name=$1 start rc line
	shift
	start=$(now)
	"$@"
	rc=$?
	line=$(awk -v n="$name" -v a="$start" -v b="$(now)" -v l="$(load)" -v rc="$rc" \
		'BEGIN { printf "%-34s %5.0fs  (load %s)%s", n, b - a, l, rc ? "  FAILED" : "" }')
	echo "== time: $line"
	echo "$line" >>"$times"
	return $rc
}
logged() { # LOG CMD...: CMD's output to LOG
	local log=$1
	shift
	"$@" >"$log" 2>&1
}
# build NAME LOG MAKEARGS...: a make; on failure its log is shown and counted as a failure.

build() {
	local name=$1 log=$2
	shift 2
	if ! timed "build ($name)" logged "$log" make -s "$@"; then
		cat "$log"
		echo "build failed: $log" >>"$FAILURES_FILE"
		echo "0 1 0" >>build/.totals
		return 1
	fi
}
san_env=(env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)

lane_b() {
	local st=0 asan=0 asan_clang=0 tsan=0 fuzz=0
	build asan build/make-asan.log -j"$jobs" O=build/asan SANITIZE=address,undefined all || asan=1
	build "asan, clang" build/make-asan-clang.log -j"$jobs" O=build/asan-clang CC=clang \
		SANITIZE=address,undefined all || asan_clang=1
	build tsan build/make-tsan.log -j"$jobs" O=build/tsan SANITIZE=thread OPT="-O1 -g" all || tsan=1
	echo $tsan >build/.check-tsan-built
	build fuzz build/make-fuzz.log -j"$jobs" O=build fuzz || fuzz=1
	st=$((asan | asan_clang | tsan | fuzz))
	if [ $asan = 0 ]; then
		timed "suite asan" "${san_env[@]}" bash scripts/run-tests.sh --build build/asan --suite asan \
			--no-cli --jobs "$jobs" || st=1
		# The tool itself under the sanitizers, on hostile files (tests/cli/tool_hostile.sh): its
		# error paths are not in the unit tests valgrind runs.
		timed "suite asan-cli" "${san_env[@]}" bash scripts/run-tests.sh --build build/asan \
			--suite asan-cli --filter 'cli/tool_hostile' || st=1
		cat build/asan/.totals >>build/.totals
	fi
	if [ $asan_clang = 0 ]; then
		timed "suite asan-clang" "${san_env[@]}" bash scripts/run-tests.sh --build build/asan-clang \
			--suite asan-clang --no-cli --jobs "$jobs" || st=1
		cat build/asan-clang/.totals >>build/.totals
	fi
	# Every parser of outside bytes under libFuzzer + ASan + UBSan (tests/fuzz/NAME_fuzz.c), each
	# from a copy of its seeds (scripts/fuzz.sh). make fuzz-long runs them longer.
	if [ $fuzz = 0 ]; then
		FUZZ_SECONDS=${FUZZ_SECONDS:-12} FUZZ_JOBS=$jobs timed "fuzz (every target)" \
			bash scripts/fuzz.sh build || st=1
	fi
	return $st
}

status=0
echo "== build (plain)"
build plain build/make-plain.log -j"$jobs" all || status=1

echo "== lane B (sanitizer and fuzz builds, then the ASan suites and fuzz targets) starts; its output follows lane A's"
rm -f build/.check-tsan-built
(
	lane_b >build/check-lane-b.log 2>&1
	echo $? >build/.check-lane-b-rc
) &
lane_b_pid=$!

if [ -x build/tests/unit/ring_basic ]; then
	echo "== plain suite"
	timed "suite plain" bash scripts/run-tests.sh --build build --suite plain --jobs "$jobs" || status=1
fi

echo "== valgrind (plain build): unit tests, two kernel tests and the kernel fault-injection tests"
if [ -x build/tests/unit/ring_basic ] && command -v valgrind >/dev/null; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=scripts/valgrind.supp"
	vg_suite() {
		local f st=0
		for f in 'unit/*' 'kernel/reader_basic' 'kernel/reader_lost' 'kernel/fault_*'; do
			HARNESS_TIMEOUT=600 bash scripts/run-tests.sh --build build --suite valgrind --no-cli --filter "$f" \
				--wrap "$vg" --jobs "$jobs" || st=1
		done
		return $st
	}
	timed "suite valgrind" vg_suite || status=1
fi

echo "== tsan suite (waits for lane B's TSan build)"
while [ ! -e build/.check-tsan-built ] && kill -0 $lane_b_pid 2>/dev/null; do
	sleep 2
done
if [ "$(cat build/.check-tsan-built 2>/dev/null)" = 0 ]; then
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		timed "suite tsan" bash scripts/run-tests.sh --build build/tsan --suite tsan --no-cli \
		--filter '*thread*' --jobs "$jobs" || status=1
	cat build/tsan/.totals >>build/.totals
fi

echo "== lane B: waiting for it to end"
wait $lane_b_pid
cat build/check-lane-b.log
[ "$(cat build/.check-lane-b-rc 2>/dev/null)" = 0 ] || status=1

echo "== wall times (two lanes side by side; total $(( $(date +%s) - check_start ))s, load $(load))"
cat "$times"
if [ -s "$FAILURES_FILE" ]; then
	echo "== failures ($(wc -l <"$FAILURES_FILE"))"
	head -n 40 "$FAILURES_FILE"
fi
awk '{p += $1; f += $2; s += $3} END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' build/.totals
exit $status
