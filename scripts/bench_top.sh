#!/usr/bin/env bash
# perfring top against perf top, side by side in one run: each runs for
# BENCH_TOP_SECONDS (15) with --stdio (a table a second into /dev/null),
# (-d 1), system-wide at BENCH_TOP_HZ (4000, both tools' default) while a CPU-bound
# workload (tests/helpers/prof_work, frame pointers) keeps one CPU busy. The
# figure is the tool's own CPU time (user + system, from /usr/bin/time) and
# its peak RSS, without call chains (perf top's default; perfring top
# --call-graph no) and with them (perf top -g; perfring top's default).
#   RATIO top_cpu perfring/perf_top      CPU seconds, no call chains
#   RATIO top_cpu_g perfring/perf_top    CPU seconds, frame-pointer call chains
#   bench_top.sh [BUILD_DIR]     (default build; called by scripts/bench.sh)
set -uo pipefail
cd "$(dirname "$0")/.."

O=${1:-build}
secs=${BENCH_TOP_SECONDS:-15}
hz=${BENCH_TOP_HZ:-4000}
perfring=$O/perfring
work=$O/tests/helpers/prof_work
tmp=$(mktemp -d /tmp/perfring-bench-top.XXXXXX)
wpid=""
trap '[ -n "$wpid" ] && kill "$wpid" 2>/dev/null; rm -rf "$tmp"' EXIT

echo
echo "== top: perfring top --stdio vs perf top --stdio, system-wide at $hz Hz for $secs s, a CPU-bound workload"
for b in "$perfring" "$work"; do
	if [ ! -x "$b" ]; then
		echo "top FAILED: $b is missing: build it with make O=$O all $work"
		exit 1
	fi
done
if ! command -v perf >/dev/null || [ ! -x /usr/bin/time ]; then
	echo "top_bench SKIPPED (perf or /usr/bin/time is not installed)"
	exit 0
fi

"$work" $(((secs * 4 + 30) * 1000)) &
wpid=$!

# one NAME COMMAND...: run it for secs seconds (SIGINT then), print "cpu_s rss_kb"
one() {
	local name=$1
	shift
	# standard input a pipe that stays open and quiet: perf top reads its keys
	# there, and at end of file (</dev/null) it redraws its key menu flat out
	/usr/bin/time -o "$tmp/$name.time" -f '%U %S %M' timeout -s INT -k 10 "$secs" "$@" \
		< <(sleep $((secs + 20))) >"$tmp/$name.out" 2>"$tmp/$name.err"
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$tmp/$name.time" | tail -n 1
}

declare -A cpu rss
for mode in plain g; do
	if [ $mode = g ]; then
		pr_args=(--call-graph fp) perf_args=(-g)
	else
		pr_args=(--call-graph no) perf_args=()
	fi
	read -r c m <<<"$(one "perfring_$mode" "$perfring" top --stdio -d 1 -F "$hz" "${pr_args[@]}")"
	cpu[perfring_$mode]=$c rss[perfring_$mode]=$m
	read -r c m <<<"$(one "perf_$mode" perf top --stdio -d 1 -F "$hz" "${perf_args[@]}")"
	cpu[perf_$mode]=$c rss[perf_$mode]=$m
	for t in perfring perf; do
		printf 'top_bench %s%s cpu_s %s (%.1f%% of one CPU) peak_rss_kb %s tables %s\n' "$t" \
			"$([ $mode = g ] && echo ' -g' || true)" "${cpu[${t}_$mode]}" \
			"$(awk -v c="${cpu[${t}_$mode]}" -v s="$secs" 'BEGIN { print 100 * c / s }')" \
			"${rss[${t}_$mode]}" "$(grep -c -E '^perfring top: |PerfTop:' "$tmp/${t}_$mode.out")"
	done
done
status=0
for mode in plain g; do
	name=top_cpu
	[ $mode = g ] && name=top_cpu_g
	if awk -v a="${cpu[perfring_$mode]}" -v b="${cpu[perf_$mode]}" 'BEGIN { exit !(b > 0) }'; then
		awk -v n="$name" -v a="${cpu[perfring_$mode]}" -v b="${cpu[perf_$mode]}" -v ra="${rss[perfring_$mode]}" \
			-v rb="${rss[perf_$mode]}" 'BEGIN { printf "RATIO %s perfring/perf_top %.3f (peak RSS %.3f)\n", n, a / b, ra / rb }'
	else
		echo "top_bench perf top used no CPU ($name): see $tmp/perf_$mode.err"
		head -n 3 "$tmp/perf_$mode.err"
		status=1
	fi
done
exit $status
