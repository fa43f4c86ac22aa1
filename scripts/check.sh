#!/usr/bin/env bash
# make check: build and run every test, then again under sanitizers.
#  1. plain build (build/): unit, kernel and CLI tests;
#  2. ASan+UBSan build (build/asan/): unit and kernel tests, and the tool on hostile files
#     (tests/cli/tool_hostile.sh);
#     and the same with clang (build/asan-clang/): its UBSan sees what gcc's does not (e.g.
#     arithmetic on a NULL pointer, "applying zero offset to null pointer");
#  3. TSan build (build/tsan/): the threaded tests (names containing "thread");
# and, after the plain suite, the unit tests, two kernel tests and the kernel fault-injection tests
# (tests/kernel/fault_*) under valgrind;
# then every fuzz target for FUZZ_SECONDS each (libFuzzer, clang; scripts/fuzz.sh).
# Ends with the line "N passed, N failed, N skipped" over all of them.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
rm -f build/.totals build/asan/.totals build/asan-clang/.totals build/tsan/.totals
mkdir -p build
# Every suite appends its failing lines here; they are repeated before the last line.
export FAILURES_FILE=$PWD/build/.failures
: >"$FAILURES_FILE"
status=0

step() { echo "== $*"; }

step "build (plain)"
if make -s -j"$jobs" all >build/make-plain.log 2>&1; then
	bash scripts/run-tests.sh --build build --suite plain || status=1
else
	cat build/make-plain.log; echo "build failed: build/make-plain.log" >>"$FAILURES_FILE"; echo "0 1 0" >>build/.totals; status=1
fi

step "valgrind (plain build): unit tests, two kernel tests and the kernel fault-injection tests"
if [ -x build/tests/unit/ring_basic ] && command -v valgrind >/dev/null; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=scripts/valgrind.supp"
	for f in 'unit/*' 'kernel/reader_basic' 'kernel/reader_lost' 'kernel/fault_*'; do
		HARNESS_TIMEOUT=600 bash scripts/run-tests.sh --build build --suite valgrind --no-cli --filter "$f" \
			--wrap "$vg" || status=1
	done
fi

step "build (asan+ubsan)"
if make -s -j"$jobs" O=build/asan SANITIZE=address,undefined all >build/make-asan.log 2>&1; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		bash scripts/run-tests.sh --build build/asan --suite asan --no-cli || status=1
	# The tool itself under the sanitizers, on hostile files (tests/cli/tool_hostile.sh): its
	# error paths are not in the unit tests valgrind runs.
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		bash scripts/run-tests.sh --build build/asan --suite asan-cli --filter 'cli/tool_hostile' || status=1
	cat build/asan/.totals >>build/.totals
else
	cat build/make-asan.log; echo "build failed: build/make-asan.log" >>"$FAILURES_FILE"; echo "0 1 0" >>build/.totals; status=1
fi

step "build (asan+ubsan, clang)"
if make -s -j"$jobs" O=build/asan-clang CC=clang SANITIZE=address,undefined all >build/make-asan-clang.log 2>&1; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		bash scripts/run-tests.sh --build build/asan-clang --suite asan-clang --no-cli || status=1
	cat build/asan-clang/.totals >>build/.totals
else
	cat build/make-asan-clang.log; echo "build failed: build/make-asan-clang.log" >>"$FAILURES_FILE"; echo "0 1 0" >>build/.totals; status=1
fi

step "build (tsan)"
if make -s -j"$jobs" O=build/tsan SANITIZE=thread OPT="-O1 -g" all >build/make-tsan.log 2>&1; then
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		bash scripts/run-tests.sh --build build/tsan --suite tsan --no-cli --filter '*thread*' || status=1
	cat build/tsan/.totals >>build/.totals
else
	cat build/make-tsan.log; echo "build failed: build/make-tsan.log" >>"$FAILURES_FILE"; echo "0 1 0" >>build/.totals; status=1
fi

step "fuzz (libFuzzer, every target, FUZZ_SECONDS each)"
# Every parser of outside bytes under libFuzzer + ASan + UBSan (tests/fuzz/NAME_fuzz.c), each
# from a copy of its seeds (scripts/fuzz.sh). make fuzz-long runs them longer.
if make -s -j"$jobs" O=build fuzz >build/make-fuzz.log 2>&1; then
	FUZZ_SECONDS=${FUZZ_SECONDS:-12} bash scripts/fuzz.sh build || status=1
else
	cat build/make-fuzz.log; echo "build failed: build/make-fuzz.log" >>"$FAILURES_FILE"; echo "0 1 0" >>build/.totals; status=1
fi

if [ -s "$FAILURES_FILE" ]; then
	echo "== failures ($(wc -l <"$FAILURES_FILE"))"
	head -n 40 "$FAILURES_FILE"
fi
awk '{p += $1; f += $2; s += $3} END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' build/.totals
exit $status
