#!/usr/bin/env bash
# perfring script and perfring report against perf script and perf report,
# side by side in one run, symbols included, on the call-chain file
# scripts/bench_perfdata.sh records (133 MB of cpu-clock samples with call
# chains, every CPU, perf bench sched messaging):
#   RATIO script_symbols perfring/perf       perfring script vs perf script (default output)
#   RATIO report perfring/perf_report        perfring report vs perf report --stdio,
#                                            both with --sort comm,dso,sym (perf's default),
#                                            call graphs drawn (the default of both)
#   RATIO report_nograph perfring/perf_report  the same with -g none on both (the table only)
#   bench_report_script.sh [BUILD_DIR]     (default build; called by scripts/bench.sh)
# BENCH_PERFDATA_FILE (build/bench/big.perf.data) is the file; BENCH_REPORT_REPS
# (3) passes each, alternating, wall-clock medians (and user CPU medians), page
# cache warm, output to /dev/null. The two outputs are checked to hold the same
# samples (script: header lines; report: the Samples and Event count lines).
set -uo pipefail
cd "$(dirname "$0")/.."

O=${1:-build}
file=${BENCH_PERFDATA_FILE:-build/bench/big.perf.data}
reps=${BENCH_REPORT_REPS:-3}
tool=$O/perfring
tmp=$(mktemp -d /tmp/perfring-bench-report-script.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
status=0

echo
echo "== report_script: perfring script / report against perf script / perf report --stdio, symbols included"
if [ ! -x "$tool" ] || ! command -v perf >/dev/null; then
	echo "report_script FAILED: $tool or perf is missing (make O=$O $tool; apt-get install linux-perf)"
	exit 1
fi
if [ ! -s "$file" ]; then
	echo "report_script FAILED: $file is missing: scripts/bench_perfdata.sh $O records it (scripts/bench.sh runs it first)"
	exit 1
fi
echo "report_script file: $file, $(stat -c %s "$file") bytes; $reps passes each, median; $(perf --version)"
cat "$file" >/dev/null

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# timed NAME CMD...: one pass; appends "wall user" to $tmp/NAME.
timed() {
	local name=$1
	shift
	if ! /usr/bin/time -o "$tmp/t" -f "%e %U" "$@" >/dev/null 2>"$tmp/$name.err"; then
		echo "report_script $name FAILED: $* ($(head -c 200 "$tmp/$name.err"))"
		status=1
		return 1
	fi
	cat "$tmp/t" >>"$tmp/$name"
	echo "report_script_pass $name wall_s $(cut -d' ' -f1 "$tmp/t") user_s $(cut -d' ' -f2 "$tmp/t")"
}

for i in $(seq "$reps"); do
	timed script_perfring "$tool" script -i "$file"
	timed script_perf perf script -i "$file"
	timed report_perfring "$tool" report -i "$file" --sort comm,dso,sym
	timed report_perf perf report --stdio -i "$file" --sort comm,dso,sym
	timed report_nograph_perfring "$tool" report -i "$file" --sort comm,dso,sym -g none
	timed report_nograph_perf perf report --stdio -i "$file" --sort comm,dso,sym -g none
done

# The same samples on both sides.
a=$("$tool" script -i "$file" 2>/dev/null | grep -c '^[^	]')
b=$(perf script -i "$file" 2>/dev/null | grep -c '^[^	]')
[ "$a" = "$b" ] || { echo "report_script MISMATCH: perfring script prints $a lines that are not frames, perf script $b"; status=1; }
"$tool" report -i "$file" --sort comm,dso,sym >"$tmp/report.pr" 2>/dev/null
perf report --stdio -i "$file" --sort comm,dso,sym >"$tmp/report.perf" 2>/dev/null
a=$(grep -E '^# (Samples|Event count)' "$tmp/report.pr")
b=$(grep -E '^# (Samples|Event count)' "$tmp/report.perf")
[ "$a" = "$b" ] || { echo "report_script MISMATCH: report headers differ: perfring '$a', perf '$b'"; status=1; }
# The same call graphs (every graph perf draws, line for line).
g=$(python3 tests/helpers/perf_graph_cmp.py "$tmp/report.perf" "$tmp/report.pr" | tail -n 1)
echo "report_script report graphs: $g"
case $g in *" bad=0") ;; *) echo "report_script MISMATCH: report's call graphs differ from perf's ($g)"; status=1 ;; esac

for n in script_perfring script_perf report_perfring report_perf report_nograph_perfring report_nograph_perf; do
	[ -s "$tmp/$n" ] || continue
	w=$(cut -d' ' -f1 "$tmp/$n" | median)
	u=$(cut -d' ' -f2 "$tmp/$n" | median)
	echo "report_script $n wall_s $w user_s $u (median)"
	eval "w_$n=$w u_$n=$u"
done
ratio() { # name a b note
	[[ "$2" =~ ^[0-9.]+$ && "$3" =~ ^[0-9.]+$ ]] || return 0
	awk -v n="$1" -v a="$2" -v b="$3" -v note="$4" 'BEGIN { printf "RATIO %s %.3f%s\n", n, a / b, note }'
}
ratio "script_symbols perfring/perf" "${w_script_perfring:-}" "${w_script_perf:-}" " (wall; target <= 0.2)"
ratio "script_symbols_cpu perfring/perf" "${u_script_perfring:-}" "${u_script_perf:-}" " (user CPU)"
ratio "report perfring/perf_report" "${w_report_perfring:-}" "${w_report_perf:-}" " (wall, --sort comm,dso,sym; target <= 0.1)"
ratio "report_cpu perfring/perf_report" "${u_report_perfring:-}" "${u_report_perf:-}" " (user CPU)"
ratio "report_nograph perfring/perf_report" "${w_report_nograph_perfring:-}" "${w_report_nograph_perf:-}" " (wall, -g none on both: the same table without graphs)"
ratio "report_nograph_cpu perfring/perf_report" "${u_report_nograph_perfring:-}" "${u_report_nograph_perf:-}" " (user CPU)"
exit $status
