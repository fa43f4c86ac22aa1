#!/usr/bin/env bash
# The perfring tool: `perfring demo` really traces its workload through a
# BPF perf event array, and the command line behaves (help, version, usage
# errors with exit status 2, a one-line error and exit 1 without root).
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PERFRING" ]; then
	fail tool_built "$PERFRING does not exist (build it with make O=...)"
	t_finish
	exit 1
fi

# --- command line --------------------------------------------------------

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" --help
t_check help_exit0 "perfring --help exited $T_RC" [ "$T_RC" -eq 0 ]
t_check help_lists_demo "perfring --help does not list the demo command" grep -q '^  demo ' "$T_TMP/out"

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" help demo
t_check help_demo "perfring help demo: exit $T_RC, or no --duration in it" \
	bash -c "[ $T_RC -eq 0 ] && grep -q -- '--duration SEC' '$T_TMP/out'"

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" demo --help
t_check demo_help "perfring demo --help: exit $T_RC, or options missing" \
	bash -c "[ $T_RC -eq 0 ] && grep -q -- '--wakeup-bytes' '$T_TMP/out' && grep -q -- '--max-delay-ms' '$T_TMP/out' && [ ! -s '$T_TMP/err' ]"

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" --version
t_check version "perfring --version: exit $T_RC, output '$(head -c 100 "$T_TMP/out")'" \
	bash -c "[ $T_RC -eq 0 ] && grep -Eq '^perfring [0-9]+\.[0-9]+\.[0-9]+ \(libperfring [0-9]+\.[0-9]+\.[0-9]+\)$' '$T_TMP/out'"

# usage_error NAME EXPECTED-TEXT ARGS...: exit 2, one line on stderr that
# contains the text and a hint to --help, nothing on stdout.
usage_error() {
	local name=$1 text=$2
	shift 2
	t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" "$@"
	if [ "$T_RC" -ne 2 ]; then
		fail "$name" "perfring $* exited $T_RC, not 2"
	elif [ "$(wc -l <"$T_TMP/err")" -ne 1 ] || ! grep -qF -- "$text" "$T_TMP/err" || ! grep -q -- '--help' "$T_TMP/err"; then
		fail "$name" "perfring $*: stderr should be one line with '$text' and a --help hint"
		t_show "$T_TMP/err"
	elif [ -s "$T_TMP/out" ]; then
		fail "$name" "perfring $* printed on stdout"
	else
		ok "$name"
	fi
}
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING"
t_check no_args_exit2 "perfring without arguments: exit $T_RC (want 2), or no usage on stderr" \
	bash -c "[ $T_RC -eq 2 ] && grep -q '^Usage: ' '$T_TMP/err' && [ ! -s '$T_TMP/out' ]"
usage_error bad_option_exit2 "unknown option '--bogus'" demo --bogus
usage_error bad_short_option_exit2 "unknown option '-Z'" demo -Z
usage_error bad_top_option_exit2 "unknown option '--frob'" --frob
usage_error bad_command_exit2 "unknown command 'frobnicate'" frobnicate
usage_error bad_duration_exit2 "--duration" demo --duration abc
usage_error negative_count_exit2 "--wakeup-events" demo --wakeup-events -5
usage_error missing_value_exit2 "needs a value" demo --duration
usage_error two_policies_exit2 "not both" demo --wakeup-bytes 4096 --wakeup-events 8
usage_error stray_argument_exit2 "unexpected argument" demo extra

# --- the demonstration -----------------------------------------------------

if ! t_need_root; then
	skip demo_runs "perfring demo needs root (run the suite as root)"
	t_finish
	exit $?
fi

start=$(date +%s.%N)
t_run "$T_TMP/demo.out" "$T_TMP/demo.err" timeout 30 "$PERFRING" demo --duration 2
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
out="$T_TMP/demo.out"
if [ "$T_RC" -ne 0 ]; then
	fail demo_runs "perfring demo --duration 2 exited $T_RC"
	t_show "$T_TMP/demo.err"
	t_show "$out"
else
	ok demo_runs
fi
t_check demo_fast "perfring demo --duration 2 took ${secs}s" awk -v s="$secs" 'BEGIN{exit !(s < 6)}'
t_check demo_quiet_stderr "perfring demo wrote to stderr: $(head -c 200 "$T_TMP/demo.err")" [ ! -s "$T_TMP/demo.err" ]
t_check demo_prints_policy "no 'policy:' line naming the watermark and the delay bound" \
	grep -q '^policy: wake the reader when 4096 bytes wait in a ring (watermark), or 100 ms after' "$out"

wpid=$(sed -n 's/^workload (pid \([0-9]*\)).*/\1/p' "$out")
# exec_seen NAME FILE: an EXEC line for FILE from a child of the workload.
exec_seen() {
	local name=$1 file=$2
	if [ -z "$wpid" ]; then
		fail "$name" "no 'workload (pid N)' line in the demo's output"
	elif awk -v f="$file" -v w="$wpid" '$3 == "EXEC" && $7 == f && $4 > 1 && $4 != w && $5 == w {found = 1}
	     END {exit !found}' "$out"; then
		ok "$name"
	else
		fail "$name" "no EXEC line of $file with a pid > 1 and ppid $wpid"
		t_show "$out" 12
	fi
}
exec_seen demo_exec_true /bin/true
exec_seen demo_exec_cat /bin/cat
exec_seen demo_exec_sh /bin/sh
exec_seen demo_exec_ls /bin/ls

t_check demo_open_file "no OPEN line of cat opening the demo's hello.txt" \
	awk '$3 == "OPEN" && $6 == "cat" && $7 ~ /^\/tmp\/perfring-demo\.[^\/]+\/hello\.txt$/ {f = 1} END {exit !f}' "$out"
t_check demo_exit_status "no EXIT line of sh with 'exit 3'" \
	awk '$3 == "EXIT" && $6 == "sh" && $7 == "exit" && $8 == "3" {f = 1} END {exit !f}' "$out"
t_check demo_times_ordered_per_cpu "event times go backwards within a CPU's ring" \
	awk '$3 ~ /^(EXEC|EXIT|OPEN)$/ { if (($2 in last) && $1 < last[$2]) bad = 1; last[$2] = $1 } END {exit bad}' "$out"

summary=$(grep '^summary: ' "$out")
records=$(echo "$summary" | sed -n 's/^summary: \([0-9]*\) records .*/\1/p')
lost=$(echo "$summary" | sed -n 's/^summary: .*, \([0-9]*\) lost, .*/\1/p')
lines=$(grep -cE '^ *[0-9]+\.[0-9]+ +[0-9]+  (EXEC|EXIT|OPEN) ' "$out")
t_check demo_summary_records "summary '$summary': records should be > 0" [ "${records:-0}" -gt 0 ]
t_check demo_summary_lost0 "summary '$summary': lost should be 0" [ "${lost:-x}" = 0 ]
t_check demo_one_line_per_record "$lines event lines but $records records in the summary" [ "$lines" = "$records" ]
percpu=$(awk '/^  cpu [0-9]+: / {s += $3} END {print s + 0}' "$out")
t_check demo_per_cpu_sum "per-CPU records add up to $percpu, not $records" [ "$percpu" = "${records:-x}" ]
sent=$(sed -n 's/^  program: \([0-9]*\) events sent, 0 failed.*/\1/p' "$out")
t_check demo_program_sent_all "the program sent '${sent:-?}' events (with 0 failed), the reader got $records" \
	[ "${sent:-x}" = "${records:-y}" ]
# workload_counts FILE: the numbers of the "  workload:" line: commands, exec
# seen, exit seen, exit status matching.
workload_counts() { grep '^  workload: ' "$1" | grep -oE '[0-9]+' | tr '\n' ' '; }
# Every command of the workload was seen to exec and exit, with the status waitpid() reported.
read -r n e x m <<<"$(workload_counts "$out")"
t_check demo_workload_complete "$(grep '^  workload:' "$out")" \
	bash -c "[ '${n:-0}' -gt 4 ] && [ '$e' = '$n' ] && [ '$x' = '$n' ] && [ '$m' = '$n' ]"

# --quiet: the summary and nothing else.
t_run "$T_TMP/q.out" "$T_TMP/q.err" timeout 30 "$PERFRING" demo --duration 0.5 --quiet
t_check demo_quiet "--quiet: exit $T_RC, or event lines / no summary" \
	bash -c "[ $T_RC -eq 0 ] && head -n 1 '$T_TMP/q.out' | grep -q '^summary: ' && ! grep -qE ' (EXEC|OPEN|EXIT) ' '$T_TMP/q.out'"

# Another policy: one wakeup per record and no delay bound.
t_run "$T_TMP/p.out" "$T_TMP/p.err" timeout 30 "$PERFRING" demo --duration 0.5 --wakeup-events 1 --max-delay-ms 0 --buffer-pages 8
t_check demo_policy_events "--wakeup-events 1: exit $T_RC, or the policy line or page count is wrong" \
	bash -c "[ $T_RC -eq 0 ] && grep -q '^policy: wake the reader every 1 records, with no bound on the delay' '$T_TMP/p.out' && grep -q ', 8 pages = ' '$T_TMP/p.out' && grep -q ', 0 lost, ' '$T_TMP/p.out'"

# A ring size the library refuses: exit 1 with the library's one-line reason.
t_run "$T_TMP/b.out" "$T_TMP/b.err" timeout 30 "$PERFRING" demo --duration 0.5 --buffer-pages 3
t_check demo_bad_ring_size "--buffer-pages 3: exit $T_RC (want 1), stderr '$(head -c 200 "$T_TMP/b.err")'" \
	bash -c "[ $T_RC -eq 1 ] && [ \$(wc -l <'$T_TMP/b.err') -eq 1 ] && grep -q 'perfring demo: creating the reader failed: ' '$T_TMP/b.err'"

# Ctrl-C: stops at once, still drains and prints the summary, exit 0.
"$PERFRING" demo --duration 30 >"$T_TMP/int.out" 2>"$T_TMP/int.err" &
pid=$!
sleep 1
kill -INT "$pid"
start=$(date +%s.%N)
wait "$pid"
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
t_check demo_sigint "after SIGINT: exit $rc in ${secs}s, summary: $(grep '^summary' "$T_TMP/int.out")" \
	bash -c "[ $rc -eq 0 ] && awk -v s=$secs 'BEGIN{exit !(s < 3)}' && grep -q '^(interrupted)' '$T_TMP/int.out' && grep -q '^summary: [1-9][0-9]* records .*, 0 lost, ' '$T_TMP/int.out'"
read -r n e x m <<<"$(workload_counts "$T_TMP/int.out")"
t_check demo_sigint_complete "after SIGINT, not every command's exec and exit arrived: $(grep '^  workload:' "$T_TMP/int.out")" \
	bash -c "[ '${n:-0}' -gt 0 ] && [ '$e' = '$n' ] && [ '$x' = '$n' ]"

# tracefs not mounted: the demo mounts it (in a private mount namespace here,
# so that the machine's own mount stays as it is) and says so.
if command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
	t_run "$T_TMP/m.out" "$T_TMP/m.err" unshare -m --propagation private bash -c \
		"umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null;
		 [ ! -e /sys/kernel/tracing/events ] || exit 99; exec '$PERFRING' demo --duration 0.5"
	t_check demo_mounts_tracefs "without tracefs: exit $T_RC, or no 'mounted tracefs' note or no exec events" \
		bash -c "[ $T_RC -eq 0 ] && grep -q '^note: mounted tracefs at /sys/kernel/tracing' '$T_TMP/m.out' && grep -q ' EXEC ' '$T_TMP/m.out'"
else
	skip demo_mounts_tracefs "unshare -m is not available to make a mount namespace without tracefs"
fi

# Without root: one line saying what is needed, exit 1.
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PERFRING"; then
	t_run "$T_TMP/u.out" "$T_TMP/u.err" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$PERFRING" demo --duration 0.5
	t_check demo_needs_root "as nobody: exit $T_RC (want 1), stderr: $(head -c 300 "$T_TMP/u.err")" \
		bash -c "[ $T_RC -eq 1 ] && [ \$(wc -l <'$T_TMP/u.err') -eq 1 ] && grep -q 'needs root' '$T_TMP/u.err'"
else
	skip demo_needs_root "cannot run $PERFRING as user nobody (setpriv missing or the build directory is not accessible)"
fi

t_finish
