#!/usr/bin/env bash
# perfring profile's own cost against two continuous-profiling pipelines, at
# 99 Hz on every CPU with a CPU-bound workload on each (tests/helpers/prof_work),
# one after the other over the same length of time:
#   bpftrace  profile:hz:99 { @[ustack, kstack, comm] = count(); } printed and
#             cleared every interval (stacks counted in the kernel, as bcc's and
#             libbpf-tools' profile do)
#   perf      perf record -F 99 -a -g for the interval, then perf script on its
#             file (how gProfiler works); --no-buildid: perf 6.1 asserts in its
#             build-id pass (util/build-id.c:1010) on a busy system-wide run here
# Each tool's user+system CPU (perf: record + script) and peak RSS (GNU time):
#   RATIO profile_cpu perfring/bpftrace, perfring/perf      (below 1: perfring costs less)
#   RATIO profile_rss perfring/bpftrace, perfring/perf
# bpftrace's CPU includes compiling its program (LLVM) once per run, which a
# run of hours spreads thin: its line says how long that took.
#   bench_profile.sh [BUILD_DIR]   BENCH_PROFILE_SECS (60): the interval, one per tool
set -uo pipefail
cd "$(dirname "$0")/.."

O=${1:-build}
secs=${BENCH_PROFILE_SECS:-60}
tool=$O/perfring
work=$O/tests/helpers/prof_work
tmp=$(mktemp -d /tmp/perfring-bench-profile.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

echo
echo "== profile: perfring profile against bpftrace and perf record + perf script, 99 Hz, $(nproc) CPUs, ${secs} s each"
for t in "$tool" "$work" /usr/bin/time; do
	[ -x "$t" ] || { echo "profile FAILED: $t is missing"; exit 1; }
done
for _ in $(seq "$(nproc)"); do
	"$work" 100000000 &
	pids+=($!)
done

# cost FILE: "CPU_SECONDS PEAK_KB" from GNU time's "%U %S %M"
cost() { awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$1"; }

/usr/bin/time -f '%U %S %M' -o "$tmp/pr.time" "$tool" profile -q -F 99 -d "$secs" --count 1 -o "$tmp/pr" 2>"$tmp/pr.err"
read -r pr_cpu pr_rss < <(cost "$tmp/pr.time")
pr_samples=$(go tool pprof -symbolize=none -top -sample_index=samples "$tmp"/pr/*.pb.gz 2>/dev/null | sed -n 's/.*of \([0-9]*\) total.*/\1/p' | head -n 1)
echo "perfring profile: ${pr_cpu} s CPU ($(awk -v c="$pr_cpu" -v s="$secs" 'BEGIN { printf "%.3f", 100 * c / s }')% of one CPU), peak RSS ${pr_rss} KiB, ${pr_samples:-?} samples"

bt_cpu= bt_rss=
if command -v bpftrace >/dev/null; then
	t0=$(date +%s.%N)
	/usr/bin/time -f '%U %S %M' -o "$tmp/bt.time" bpftrace -e "profile:hz:99 { @[ustack, kstack, comm] = count(); } interval:s:$secs { print(@); clear(@); exit(); }" >"$tmp/bt.out" 2>"$tmp/bt.err"
	read -r bt_cpu bt_rss < <(cost "$tmp/bt.time")
	start=$(awk -v t0="$t0" -v s="$secs" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - t0 - s }')
	echo "bpftrace: ${bt_cpu} s CPU, peak RSS ${bt_rss} KiB ($start s of the run was starting: compiling, attaching)"
else
	echo "bpftrace: not installed (apt-get install bpftrace)"
fi

if ! /usr/bin/time -f '%U %S %M' -o "$tmp/rec.time" perf record -q -F 99 -a -g --no-buildid -o "$tmp/perf.data" -- sleep "$secs" 2>"$tmp/rec.err"; then
	echo "profile FAILED: perf record: $(grep -v '^Command' "$tmp/rec.err" | head -n 2 | tr '\n' ' ')"
	exit 1
fi
/usr/bin/time -f '%U %S %M' -o "$tmp/scr.time" perf script -i "$tmp/perf.data" >/dev/null 2>"$tmp/scr.err"
read -r rec_cpu rec_rss < <(cost "$tmp/rec.time")
read -r scr_cpu scr_rss < <(cost "$tmp/scr.time")
pf_cpu=$(awk -v a="$rec_cpu" -v b="$scr_cpu" 'BEGIN { printf "%.2f", a + b }')
pf_rss=$((rec_rss > scr_rss ? rec_rss : scr_rss))
echo "perf record + perf script: ${pf_cpu} s CPU (record $rec_cpu, script $scr_cpu), peak RSS ${pf_rss} KiB"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
[ -n "$bt_cpu" ] && echo "RATIO profile_cpu perfring/bpftrace $(ratio "$pr_cpu" "$bt_cpu")"
echo "RATIO profile_cpu perfring/perf $(ratio "$pr_cpu" "$pf_cpu")"
[ -n "$bt_rss" ] && echo "RATIO profile_rss perfring/bpftrace $(ratio "$pr_rss" "$bt_rss")"
echo "RATIO profile_rss perfring/perf $(ratio "$pr_rss" "$pf_rss")"
