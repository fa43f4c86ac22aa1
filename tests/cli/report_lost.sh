#!/usr/bin/env bash
# What a recording lost, said as perf says it: perf report and perf script warn on stderr
# after reading a file (perf_session__warn_about_errors()) "Processed N events and lost M
# chunks!" when it has LOST records (M of them; N every record read), and "Processed N
# samples and lost P%!" when its LOST_SAMPLES records count more than 5% of the samples
# (recorded and lost, N). perfring report and script print the same words on one line each
# ("perfring CMD: warning: FILE: ..."); report -q says nothing, as perf's. report --stats
# counts an event's lost samples (the LOST_SAMPLES records' sum), as perf's.
# The file: perf record with a one-page ring, cpu-clock samples (4 kHz) carrying 8 KiB of user stack
# (none fits: all lost, LOST records and LOST_SAMPLES counts) beside page faults without call
# chains (they fit); the figures are compared with perf's reading of the same file.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/export_lib.sh"

export_need report_lost "$PERFRING"

cat >"$T_TMP/busy.c" <<'C'
#include <stdlib.h>
#include <string.h>
volatile unsigned long sink;
int main(void)
{
	for (int k = 0; k < 300; k++) { /* page faults, and time for cpu-clock */
		char *p = malloc(1 << 20);
		memset(p, k, 1 << 20);
		for (unsigned long i = 0; i < 200000; i++)
			sink += i ^ (unsigned long)p[i & 0xfffff];
		free(p);
	}
	return 0;
}
C
if ! ${CC:-cc} -O2 -o "$T_TMP/busy" "$T_TMP/busy.c"; then
	fail build "${CC:-cc} could not build the test program"
	t_finish
	exit 1
fi
L="$T_TMP/lost.data"
export_record report_lost "$L" -m 1 -e cpu-clock/period=250000,call-graph=dwarf,stack-size=8192/ \
	-e page-faults/period=1,call-graph=no/ "$T_TMP/busy"
# perf's warnings as perfring words them: each paragraph after "Warning:" on one line
perf_warnings() { awk '/^Warning:$/ { if (t != "") print t; t = ""; next } /./ { t = t == "" ? $0 : t " " $0 }
	END { if (t != "") print t }' "$1"; }
ours_warnings() { sed -n "s/^perfring [a-z]*: warning: [^:]*: \(Processed .*\)$/\1/p" "$1"; }

perf report -i "$L" --stdio >/dev/null 2>"$T_TMP/perf.err"
perf_warnings "$T_TMP/perf.err" >"$T_TMP/perf.w"
t_check perf_warns_chunks "perf report printed no lost-chunks warning: $(head -n 3 "$T_TMP/perf.err" | tr '\n' ' ')" \
	grep -q '^Processed [0-9]* events and lost [1-9][0-9]* chunks! Check IO/CPU overload!$' "$T_TMP/perf.w"
t_check perf_warns_samples "perf report printed no lost-samples warning: $(head -n 8 "$T_TMP/perf.err" | tr '\n' ' ')" \
	grep -q '^Processed [0-9]* samples and lost [0-9.]*%!$' "$T_TMP/perf.w"

# same_warnings NAME WHAT ERR PERF-ERR: perfring's warnings in ERR are perf's in PERF-ERR.
same_warnings() {
	local name=$1 what=$2
	perf_warnings "$4" >"$T_TMP/perf.w"
	ours_warnings "$3" >"$T_TMP/ours.w"
	if [ "$T_RC" -ne 0 ]; then
		fail "$name" "perfring $what exited $T_RC: $(head -n 1 "$3")"
	elif cmp -s "$T_TMP/perf.w" "$T_TMP/ours.w" &&
		[ "$(grep -c 'warning' "$3")" -eq "$(wc -l <"$T_TMP/perf.w")" ]; then
		ok "$name"
	else
		fail "$name" "perfring $what's warnings are not perf's (- perf, + perfring)"
		diff "$T_TMP/perf.w" "$T_TMP/ours.w" | head -n 6 | sed 's/^/     | /'
		t_show "$3" 4
	fi
}
t_run /dev/null "$T_TMP/ours.err" "$PERFRING" report -i "$L"
same_warnings report_lost_warnings report "$T_TMP/ours.err" "$T_TMP/perf.err"
perf script -i "$L" >/dev/null 2>"$T_TMP/perf.err"
t_run /dev/null "$T_TMP/ours.err" "$PERFRING" script -i "$L"
same_warnings script_lost_warnings script "$T_TMP/ours.err" "$T_TMP/perf.err"
t_run /dev/null "$T_TMP/ours.err" "$PERFRING" report -q -i "$L"
t_check report_quiet_no_warning "perfring report -q printed: $(head -n 2 "$T_TMP/ours.err")" \
	bash -c "[ $T_RC -eq 0 ] && ! [ -s '$T_TMP/ours.err' ]"

# the same in pipe mode (perf record -o -), where perf counts the header's records as events too
if perf record -q -m 1 -o - -e cpu-clock/period=250000,call-graph=dwarf,stack-size=8192/ \
	-e page-faults/period=1,call-graph=no/ "$T_TMP/busy" >"$T_TMP/pipe.data" 2>"$T_TMP/rec.err"; then
	perf report -i - --stdio <"$T_TMP/pipe.data" >/dev/null 2>"$T_TMP/perf.err"
	t_run /dev/null "$T_TMP/ours.err" "$PERFRING" report -i - <"$T_TMP/pipe.data"
	same_warnings pipe_report_lost_warnings "report -i -" "$T_TMP/ours.err" "$T_TMP/perf.err"
else
	fail pipe_report_lost_warnings "perf record -o - failed: $(head -n 1 "$T_TMP/rec.err")"
fi

# --stats: an event's LOST_SAMPLES line is the samples its records say were lost, as perf's
perf report -i "$L" --stats >"$T_TMP/perf.stats" 2>/dev/null
t_run "$T_TMP/ours.stats" "$T_TMP/ours.err" "$PERFRING" report -i "$L" --stats
t_same_output report_stats_lost_samples "report --stats" "$T_TMP/perf.stats" "$T_TMP/ours.stats" "$T_TMP/ours.err" \
	'LOST_SAMPLES events: *[1-9][0-9]*$'

# a file that lost nothing: no warning from either
N="$T_TMP/whole.data"
export_record report_lost "$N" -e page-faults -c 1 "$T_TMP/busy"
perf report -i "$N" --stdio >/dev/null 2>"$T_TMP/perf.err"
t_run /dev/null "$T_TMP/ours.err" "$PERFRING" report -i "$N"
same_warnings report_nothing_lost report "$T_TMP/ours.err" "$T_TMP/perf.err"
t_check report_nothing_lost_silent "perfring report printed: $(head -n 2 "$T_TMP/ours.err")" \
	bash -c "! [ -s '$T_TMP/ours.err' ]"
t_finish
