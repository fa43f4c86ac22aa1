#!/usr/bin/env bash
# perfring trace under a flat-out event storm, side by side with perf trace,
# in one run. bench/syscall_storm calls getppid() as fast as it can on CPU 0
# for BENCH_TRACE_SECONDS (2); the tracer runs on CPU 1 and prints one line
# per syscalls:sys_enter_getppid event into a pipe (wc -l counts them). For
# each tracer: how fast the traced workload still runs, how many events were
# delivered, and how many were not (calls - delivered). Contenders:
#   perfring           perfring trace with its defaults: watermark at a quarter
#                      of the ring, delivery within 100 ms
#   perfring_per_event perfring trace --wakeup-events 1: one wakeup per event,
#                      the policy libbpf's perf_buffer and aya use
#   perfring_quiet     perfring trace -q: decoded and counted, not printed
#   perf_trace         perf trace --no-syscalls -e syscalls:sys_enter_getppid -a
# BENCH_TRACE_REPS (3) runs of each, interleaved; the figures are medians.
#   bench_trace.sh [BUILD_DIR]     (default build; called by scripts/bench.sh)
set -uo pipefail
cd "$(dirname "$0")/.."

O=${1:-build}
secs=${BENCH_TRACE_SECONDS:-2}
reps=${BENCH_TRACE_REPS:-3}
storm=$O/bench/syscall_storm
perfring=$O/perfring
tmp=$(mktemp -d /tmp/perfring-bench-trace.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
status=0

echo
echo "== trace: getppid() flat out on CPU 0 for ${secs} s, the tracer on CPU 1 printing each event into a pipe"
for b in "$storm" "$perfring"; do
	if [ ! -x "$b" ]; then
		echo "trace FAILED: $b is missing: build it with make O=$O"
		exit 1
	fi
done

# one CONTENDER REP: run the storm under the tracer; prints "calls delivered".
one() {
	local c=$1 r=$2 out=$tmp/$1.$2 tpid calls lines
	case $c in
	perf_trace)
		if ! command -v perf >/dev/null; then
			echo "skip"
			return
		fi
		# perf trace writes its lines on stderr.
		(taskset -c 1 perf trace --no-syscalls -e syscalls:sys_enter_getppid -a 2>&1 >/dev/null |
			grep -c 'sys_enter_getppid' >"$out.count") &
		tpid=$!
		sleep 1.5 # perf trace takes a while to set up
		;;
	*)
		local args=(trace -e syscalls:sys_enter_getppid -d $((secs + 3)))
		[ "$c" = perfring_per_event ] && args+=(--wakeup-events 1)
		[ "$c" = perfring_quiet ] && args+=(-q)
		(taskset -c 1 "$perfring" "${args[@]}" 2>"$out.err" | grep -c 'sys_enter_getppid' >"$out.count") &
		tpid=$!
		sleep 1
		;;
	esac
	calls=$("$storm" "$secs" 0 | awk '/^storm_calls/ {print $2}')
	if [ "$c" = perf_trace ]; then
		sleep 0.5
		pkill -INT -f 'perf trace --no-syscalls -e syscalls:sys_enter_getppid' 2>/dev/null
	fi
	wait "$tpid"
	lines=$(cat "$out.count" 2>/dev/null)
	if [ "$c" = perfring_quiet ]; then
		lines=$(sed -n 's/^  syscalls:sys_enter_getppid *\([0-9]*\)$/\1/p' "$out.err")
	fi
	echo "${calls:-0} ${lines:-0}"
}

declare -A calls delivered
for r in $(seq 1 "$reps"); do
	for c in perfring perfring_per_event perfring_quiet perf_trace; do
		read -r a b <<<"$(one "$c" "$r")"
		[ "$a" = skip ] && continue
		calls[$c]+="$a " delivered[$c]+="$b "
	done
done
# Untraced: the workload's own speed.
base=""
for r in $(seq 1 "$reps"); do
	base+="$("$storm" "$secs" 0 | awk '/^storm_calls/ {print $2}') "
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : 0}'; }
b=$(echo "$base" | median)
printf 'trace_bench untraced calls_per_s %.0f\n' "$(awk -v c="$b" -v s="$secs" 'BEGIN {print c / s}')"
for c in perfring perfring_per_event perfring_quiet perf_trace; do
	[ -n "${calls[$c]:-}" ] || { echo "trace_bench $c SKIPPED (perf is not installed)"; continue; }
	k=$(echo "${calls[$c]}" | median)
	d=$(echo "${delivered[$c]}" | median)
	awk -v c="$c" -v k="$k" -v d="$d" -v s="$secs" -v b="$b" 'BEGIN {
		lost = k > d ? k - d : 0
		printf "trace_bench %s calls_per_s %.0f (%.1f%% of untraced) delivered_per_s %.0f not_delivered %.2f%%\n",
			c, k / s, 100 * k / b, d / s, k ? 100 * lost / k : 0 }'
	echo "$c $k $d" >>"$tmp/medians"
done
if grep -q '^perf_trace ' "$tmp/medians" 2>/dev/null; then
	awk '{k[$1] = $2; d[$1] = $3} END {
		if (d["perf_trace"] > 0 && k["perf_trace"] > 0) {
			printf "RATIO trace_delivered_per_s perfring/perf_trace %.2f\n", d["perfring"] / d["perf_trace"]
			printf "RATIO trace_workload_calls_per_s perfring/perf_trace %.2f\n", k["perfring"] / k["perf_trace"]
		}
		if (d["perfring_per_event"] > 0) {
			printf "RATIO trace_delivered_per_s perfring/perfring_per_event %.2f\n", d["perfring"] / d["perfring_per_event"]
			printf "RATIO trace_workload_calls_per_s perfring/perfring_per_event %.2f\n", k["perfring"] / k["perfring_per_event"]
		}
	}' "$tmp/medians"
else
	status=1
fi
exit $status
