#!/usr/bin/env bash
# Run every fuzz target of a build (BUILD/fuzz/NAME_fuzz, see the Makefile's fuzzing section) for
# FUZZ_SECONDS each, from a copy of its seeds (tests/fuzz/corpus/NAME): new inputs go to
# BUILD/fuzz/corpus/NAME, never to the committed seeds. Any crash, leak, sanitizer report, timeout
# or harness finding fails that target. Appends "passed failed 0" to BUILD/.totals (one test per
# target) and exits non-zero if any failed.
#   fuzz.sh BUILD [NAME...]        (default: every target built)
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
P=0 F=0
for n in "${names[@]}"; do
	bin="$build/fuzz/${n}_fuzz" corpus="$build/fuzz/corpus/$n" art="$build/fuzz/artifacts/$n/" log="$build/fuzz/$n.log"
	rm -rf "$corpus" "$art"
	mkdir -p "$corpus" "$art"
	[ -d "tests/fuzz/corpus/$n" ] && cp -r "tests/fuzz/corpus/$n/." "$corpus/"
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art" "$corpus" >"$log" 2>&1; then
		echo "[fuzz] $n: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
			awk '{print $2}') inputs in ${secs} s)"
		P=$((P + 1))
	else
		echo "[fuzz] $n: FAIL; log: $log, inputs: $art (replay with $build/fuzz/${n}_replay FILE)" |
			tee -a "${FAILURES_FILE:-$build/.failures}"
		grep -E -A3 'FINDING|ERROR|SUMMARY' "$log" | head -n 40 | sed 's|^|    |'
		F=$((F + 1))
	fi
done
echo "$P $F 0" >>"$build/.totals"
[ "$F" -eq 0 ]
