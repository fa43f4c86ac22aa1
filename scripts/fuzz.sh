#!/usr/bin/env bash
# Run every fuzz target of a build (BUILD/fuzz/NAME_fuzz, see the Makefile's fuzzing section) for
# FUZZ_SECONDS each, from a copy of its seeds (tests/fuzz/corpus/NAME): new inputs go to
# BUILD/fuzz/corpus/NAME, never to the committed seeds. Any crash, leak, sanitizer report, timeout
# or harness finding fails that target. Appends "passed failed 0" to BUILD/.totals (one test per
# target) and exits non-zero if any failed.
#   fuzz.sh BUILD [NAME...]        (default: every target built)
# FUZZ_JOBS (default 1) targets run at a time (make check: the CPUs), each on one CPU.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}; shift || true
secs=${FUZZ_SECONDS:-20}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for b in "$build"/fuzz/*_fuzz; do
		[ -x "$b" ] && names+=("$(basename "$b" _fuzz)")
	done
fi
jobs=${FUZZ_JOBS:-1}
# One target: its lines on stdout, its result (0 passed, 1 failed) as the exit status.
fuzz_one() {
	local n=$1
	local bin="$build/fuzz/${n}_fuzz" corpus="$build/fuzz/corpus/$n" art="$build/fuzz/artifacts/$n/" log="$build/fuzz/$n.log"
	rm -rf "$corpus" "$art"
	mkdir -p "$corpus" "$art"
	[ -d "tests/fuzz/corpus/$n" ] && cp -r "tests/fuzz/corpus/$n/." "$corpus/"
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art" "$corpus" >"$log" 2>&1; then
		echo "[fuzz] $n: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
			awk '{print $2}') inputs in ${secs} s)"
	else
		echo "[fuzz] $n: FAIL; log: $log, inputs: $art (replay with $build/fuzz/${n}_replay FILE)" |
			tee -a "${FAILURES_FILE:-$build/.failures}"
		grep -E -A3 'FINDING|ERROR|SUMMARY' "$log" | head -n 40 | sed 's|^|    |'
		return 1
	fi
}
# Up to $jobs at a time; the results are read back in order.
for n in "${names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	(fuzz_one "$n" >"$build/fuzz/$n.out"; echo $? >"$build/fuzz/$n.rc") &
done
wait
P=0 F=0
for n in "${names[@]}"; do
	cat "$build/fuzz/$n.out"
	if [ "$(cat "$build/fuzz/$n.rc" 2>/dev/null)" = 0 ]; then
		P=$((P + 1))
	else
		F=$((F + 1))
	fi
done
echo "$P $F 0" >>"$build/.totals"
[ "$F" -eq 0 ]
