#!/usr/bin/env bash
# perfring record: the perf.data files it writes are complete and read by
# perf 6.1 without a warning, with the same counts as perfring report and
# perfring script; a command with children, -a stopped by SIGINT, two
# events with call chains, and the command-line errors.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PERFRING" ]; then
	fail tool_built "$PERFRING does not exist (build it with make O=...)"
	t_finish
	exit 1
fi
if ! command -v perf >/dev/null; then
	skip record "perf (linux-perf) is not installed: it is the oracle of these tests"
	t_finish
	exit $?
fi

# stat_of FILE NAME: the "NAME events: N" count of the Aggregated stats block (0 if absent).
stat_of() {
	awk -v n="$2" '/^Aggregated stats/ { a = 1; next }
		       a && / stats:$/ { exit }
		       a && $1 == n && $2 == "events:" { print $3; f = 1 }
		       END { if (!f) print 0 }' "$1"
}

# event_samples FILE EVENT: the SAMPLE count of "EVENT stats:" (0 if absent).
event_samples() {
	awk -v e="$2 stats:" '$0 == e { a = 1; next }
			      a && $1 == "SAMPLE" { print $3; f = 1; exit }
			      a && / stats:$/ { exit }
			      END { if (!f) print 0 }' "$1"
}

# perf_reads NAME FILE: perf report --stats and perf script read FILE, exit 0, and
# print nothing on stderr (perf prints its warnings there).
perf_reads() {
	local name=$1 f=$2 rc1 rc2
	perf report --stats -i "$f" >"$f.pstats" 2>"$f.perr1"
	rc1=$?
	perf script -i "$f" >"$f.pscript" 2>"$f.perr2"
	rc2=$?
	if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ ! -s "$f.perr1" ] && [ ! -s "$f.perr2" ]; then
		ok "$name"
	else
		fail "$name" "perf report exit $rc1, perf script exit $rc2, stderr:"
		cat "$f.perr1" "$f.perr2" | t_show /dev/stdin
	fi
}

# --- (1) a command with children ---------------------------------------------

f="$T_TMP/cmd.data"
busy='i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done'
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" record -o "$f" -- /bin/sh -c "($busy); $busy; /bin/true"
t_check record_cmd_exit "perfring record -- sh: exit $T_RC, stderr: $(head -c 300 "$T_TMP/err")" \
	bash -c "[ $T_RC -eq 0 ] && grep -q '^perfring record: [0-9]* records ([0-9]* bytes), 0 lost, written to $f\$' '$T_TMP/err' &&
		 grep -q \"'/bin/sh' exited with status 0\" '$T_TMP/err'"
perf_reads record_cmd_perf_reads "$f"
"$PERFRING" report --stats -i "$f" >"$T_TMP/rstats" 2>&1
psamples=$(stat_of "$f.pstats" SAMPLE)
rsamples=$(stat_of "$T_TMP/rstats" SAMPLE)
t_check record_cmd_samples "perf counts $psamples samples, perfring report $rsamples (want equal and > 50)" \
	bash -c "[ '$psamples' -eq '$rsamples' ] && [ '$psamples' -gt 50 ]"
ptotal=$(stat_of "$f.pstats" TOTAL)
"$PERFRING" script --dump --json -i "$f" >"$T_TMP/json" 2>"$T_TMP/jerr"
jrc=$?
jlines=$(wc -l <"$T_TMP/json")
jsamples=$(grep -c '"type_name":"SAMPLE"' "$T_TMP/json")
t_check record_cmd_script_json "perfring script --json: exit $jrc, $jlines records ($jsamples samples), perf: $ptotal ($psamples)" \
	bash -c "[ $jrc -eq 0 ] && [ '$jlines' -eq '$ptotal' ] && [ '$jsamples' -eq '$psamples' ]"
# The subshell and /bin/true are children of sh: samples with at least two pids.
npids=$(awk '{ print $2 }' "$f.pscript" | sort -u | wc -l)
nforks=$(stat_of "$f.pstats" FORK)
t_check record_cmd_children "samples from $npids pids, $nforks FORK records (want >= 2 and >= 2)" \
	bash -c "[ '$npids' -ge 2 ] && [ '$nforks' -ge 2 ]"

# --- (2) -a, stopped by SIGINT -------------------------------------------------

f="$T_TMP/all.data"
"$PERFRING" record -a -o "$f" >"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
t_check record_all_sigint "perfring record -a after SIGINT: exit $rc, stderr: $(head -c 300 "$T_TMP/err")" \
	bash -c "[ $rc -eq 0 ] && grep -q '^perfring record: [0-9]* records ([0-9]* bytes), [0-9]* lost, written to $f\$' '$T_TMP/err'"
perf_reads record_all_perf_reads "$f"
n=$(stat_of "$f.pstats" SAMPLE)
t_check record_all_samples "perf counts $n samples in 0.5 s system-wide (want > 100)" [ "$n" -gt 100 ]

# --- (3) two events with call chains -------------------------------------------

f="$T_TMP/two.data"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" record -e cpu-clock -e task-clock -g -o "$f" -- /bin/sh -c "$busy"
t_check record_two_exit "perfring record -e cpu-clock -e task-clock -g: exit $T_RC, stderr: $(head -c 300 "$T_TMP/err")" \
	[ "$T_RC" -eq 0 ]
perf_reads record_two_perf_reads "$f"
c1=$(event_samples "$f.pstats" cpu-clock)
c2=$(event_samples "$f.pstats" task-clock)
t_check record_two_events "per-event samples: cpu-clock $c1, task-clock $c2 (want both > 20)" \
	bash -c "[ '$c1' -gt 20 ] && [ '$c2' -gt 20 ]"
# perf script prints a call chain as indented "ADDR SYMBOL (DSO)" lines under each sample.
frames=$(grep -cE '^[[:space:]]+[0-9a-f]+ .*\(' "$f.pscript")
heads=$(grep -cE ' (cpu|task)-clock: *$' "$f.pscript")
t_check record_two_callchains "perf script: $frames call-chain frames under $heads samples (want more frames than samples)" \
	bash -c "[ '$heads' -gt 40 ] && [ '$frames' -gt '$heads' ]"

# --- (4) errors -----------------------------------------------------------------

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" record -e no-such-event -o "$T_TMP/bad.data" -- /bin/true
t_check record_bad_event "bad event: exit $T_RC (want 1), stderr '$(head -c 300 "$T_TMP/err")'" \
	bash -c "[ $T_RC -ne 0 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q 'no-such-event' '$T_TMP/err'"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" record --bogus
t_check record_bad_option "perfring record --bogus: exit $T_RC (want 2) or no --help hint" \
	bash -c "[ $T_RC -eq 2 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q -- '--help' '$T_TMP/err'"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" record -o "$T_TMP/none.data"
t_check record_no_target "no target: exit $T_RC (want 2)" [ "$T_RC" -eq 2 ]
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" record -c 1000 -F 100 -a
t_check record_period_and_freq "-c with -F: exit $T_RC (want 2)" [ "$T_RC" -eq 2 ]
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" help record
t_check help_record "perfring help record: exit $T_RC or no -o, --output" \
	bash -c "[ $T_RC -eq 0 ] && grep -q -- '-o, --output FILE' '$T_TMP/out'"

t_finish
