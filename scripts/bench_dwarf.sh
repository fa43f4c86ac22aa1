#!/usr/bin/env bash
# perfring report / script against perf report / perf script on a DWARF
# recording (perf record --call-graph dwarf), side by side in one run, user
# CPU (perf's includes its addr2line children, which it waits for):
#   RATIO report_dwarf perfring/perf_report   perfring report vs perf report --stdio
#                                             (default sort and call graphs on both)
#   RATIO script_dwarf perfring/perf_script   perfring script vs perf script (default output)
#   bench_dwarf.sh [BUILD_DIR]     (default build; called by scripts/bench.sh)
# The program is bench/dwarf/inline_heavy.c, built here -O2 -g without frame
# pointers (the compiler's default at -O2), so that every user frame is
# unwound from the stack copy with the binaries' CFI and named with their
# inlined functions; it is recorded once into BUILD_DIR/bench/dwarf/ and the
# file reused while the binary is the same (its build id).
# Knobs: BENCH_DWARF_ROUNDS (120: about 9,600 samples), BENCH_DWARF_REPS (5)
# passes each, alternating, medians; the two tools' outputs are checked to be
# the same samples (script byte for byte, report's header counts).
set -uo pipefail
cd "$(dirname "$0")/.."

O=${1:-build}
dir=$O/bench/dwarf
prog=$dir/inline_heavy
file=$dir/inline_heavy.perf.data
rounds=${BENCH_DWARF_ROUNDS:-120}
reps=${BENCH_DWARF_REPS:-5}
tool=$O/perfring
tmp=$(mktemp -d /tmp/perfring-bench-dwarf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
status=0

echo
echo "== dwarf: perfring report / script against perf report --stdio / perf script on a --call-graph dwarf recording"
if [ ! -x "$tool" ] || ! command -v perf >/dev/null; then
	echo "dwarf FAILED: $tool or perf is missing (make O=$O $tool; apt-get install linux-perf)"
	exit 1
fi
mkdir -p "$dir"
# Built each time (a second): the recording is made again only when the
# binary changed, which its build id tells.
if ! ${CC:-cc} -O2 -g -o "$prog.new" bench/dwarf/inline_heavy.c 2>"$tmp/cc.err"; then
	echo "dwarf FAILED: building bench/dwarf/inline_heavy.c: $(head -c 300 "$tmp/cc.err")"
	exit 1
fi
bid() { readelf -n "$1" 2>/dev/null | awk '/Build ID/ {print $3}'; }
if [ -x "$prog" ] && [ "$(bid "$prog")" = "$(bid "$prog.new")" ]; then
	rm -f "$prog.new"
else
	mv "$prog.new" "$prog"
	rm -f "$file"
fi
if [ ! -s "$file" ]; then
	echo "dwarf: recording $file ($prog $rounds, perf record --call-graph dwarf)"
	if ! perf record --call-graph dwarf -o "$file.tmp" -- "$prog" "$rounds" >"$dir/record.log" 2>&1; then
		echo "dwarf FAILED: perf record (see $dir/record.log)"
		rm -f "$file.tmp"
		exit 1
	fi
	mv "$file.tmp" "$file"
fi
echo "dwarf file: $file, $(stat -c %s "$file") bytes, $(perf report --stdio -i "$file" --header-only 2>/dev/null |
	awk '/sample duration|^# (captured|cmdline)/' | tr -s ' ' | tr '\n' ';')"
echo "dwarf: $reps passes each, median; $(perf --version)"
cat "$file" >/dev/null

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# timed NAME CMD...: one pass; appends "wall user" to $tmp/NAME: seconds to the
# microsecond (getrusage of the child and what it waited for: perf's addr2line).
timed() {
	local name=$1
	shift
	if ! python3 - "$tmp/t" "$@" >/dev/null 2>"$tmp/$name.err" <<'PY'; then
import resource, subprocess, sys, time
t0, u0 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
t1, u1 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
open(sys.argv[1], "w").write("%.3f %.4f\n" % (t1 - t0, u1 - u0))
sys.exit(rc)
PY
		echo "dwarf $name FAILED: $* ($(head -c 200 "$tmp/$name.err"))"
		status=1
		return 1
	fi
	cat "$tmp/t" >>"$tmp/$name"
	echo "dwarf_pass $name wall_s $(cut -d' ' -f1 "$tmp/t") user_s $(cut -d' ' -f2 "$tmp/t")"
}

for i in $(seq "$reps"); do
	timed report_perfring "$tool" report -i "$file"
	timed report_perf perf report --stdio -i "$file"
	timed script_perfring "$tool" script -i "$file"
	timed script_perf perf script -i "$file"
done

# The same samples on both sides: script's text is perf's byte for byte on
# this file (names of inlined functions included); report's counts.
"$tool" script -i "$file" >"$tmp/script.pr" 2>/dev/null
perf script -i "$file" >"$tmp/script.perf" 2>/dev/null
if ! cmp -s "$tmp/script.pr" "$tmp/script.perf"; then
	echo "dwarf MISMATCH: perfring script differs from perf script on $(diff "$tmp/script.pr" "$tmp/script.perf" |
		grep -c '^<') lines of $(wc -l <"$tmp/script.perf")"
	status=1
fi
"$tool" report -i "$file" >"$tmp/report.pr" 2>/dev/null
perf report --stdio -i "$file" >"$tmp/report.perf" 2>/dev/null
a=$(grep -E '^# (Samples|Event count)' "$tmp/report.pr")
b=$(grep -E '^# (Samples|Event count)' "$tmp/report.perf")
[ "$a" = "$b" ] || { echo "dwarf MISMATCH: report headers differ: perfring '$a', perf '$b'"; status=1; }

for n in report_perfring report_perf script_perfring script_perf; do
	[ -s "$tmp/$n" ] || continue
	w=$(cut -d' ' -f1 "$tmp/$n" | median)
	u=$(cut -d' ' -f2 "$tmp/$n" | median)
	echo "dwarf $n wall_s $w user_s $u (median)"
	eval "w_$n=$w u_$n=$u"
done
ratio() { # name a b note
	[[ "$2" =~ ^[0-9.]+$ && "$3" =~ ^[0-9.]+$ ]] && awk -v b="$3" 'BEGIN { exit !(b > 0) }' || return 0
	awk -v n="$1" -v a="$2" -v b="$3" -v note="$4" 'BEGIN { printf "RATIO %s %.3f%s\n", n, a / b, note }'
}
ratio "report_dwarf perfring/perf_report" "${u_report_perfring:-}" "${u_report_perf:-}" " (user CPU; target <= 0.5)"
ratio "script_dwarf perfring/perf_script" "${u_script_perfring:-}" "${u_script_perf:-}" " (user CPU; target <= 0.5)"
ratio "report_dwarf_wall perfring/perf_report" "${w_report_perfring:-}" "${w_report_perf:-}" " (wall)"
ratio "script_dwarf_wall perfring/perf_script" "${w_script_perfring:-}" "${w_script_perf:-}" " (wall)"
exit $status
