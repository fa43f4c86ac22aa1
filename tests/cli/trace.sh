#!/usr/bin/env bash
# `perfring trace`: real tracepoints through the generic BPF program and a
# perf event array. A known workload (a command with distinctive arguments
# that opens a distinctive file) must appear with the right pid, comm, file
# name and exec arguments, in text and JSON; filters exclude what they
# should; --duration ends on time; SIGINT leaves a complete summary; bad
# input gives one line and a non-zero exit. Also the tool's command line.
. "$(dirname "$0")/lib.sh"

t_require_tool

# --- command line --------------------------------------------------------

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" --help
t_check help_exit0 "perfring --help exited $T_RC" [ "$T_RC" -eq 0 ]
t_check help_lists_trace "perfring --help does not list trace and pipe" \
	bash -c "grep -q '^  trace ' '$T_TMP/out' && grep -q '^  pipe ' '$T_TMP/out'"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" help trace
t_check help_trace "perfring help trace: exit $T_RC, or no --duration in it" \
	bash -c "[ $T_RC -eq 0 ] && grep -q -- '--duration SEC' '$T_TMP/out'"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" trace --help
t_check trace_help "perfring trace --help: exit $T_RC, or options missing" \
	bash -c "[ $T_RC -eq 0 ] && grep -q -- '--wakeup-bytes' '$T_TMP/out' && grep -q -- '--comm NAME' '$T_TMP/out' && [ ! -s '$T_TMP/err' ]"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" --version
t_check version "perfring --version: exit $T_RC, output '$(head -c 100 "$T_TMP/out")'" \
	bash -c "[ $T_RC -eq 0 ] && grep -Eq '^perfring [0-9]+\.[0-9]+\.[0-9]+ \(libperfring [0-9]+\.[0-9]+\.[0-9]+\)$' '$T_TMP/out'"

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING"
t_check no_args_exit2 "perfring without arguments: exit $T_RC (want 2), or no usage on stderr" \
	bash -c "[ $T_RC -eq 2 ] && grep -q '^Usage: ' '$T_TMP/err' && [ ! -s '$T_TMP/out' ]"
t_usage_error bad_option_exit2 "unknown option '--bogus'" trace --bogus
t_usage_error bad_short_option_exit2 "unknown option '-Z'" trace -Z
t_usage_error bad_top_option_exit2 "unknown option '--frob'" --frob
t_usage_error bad_command_exit2 "unknown command 'frobnicate'" frobnicate
t_usage_error bad_duration_exit2 "--duration" trace --duration abc
t_usage_error negative_count_exit2 "--wakeup-events" trace --wakeup-events -5
t_usage_error missing_value_exit2 "needs a value" trace --duration
t_usage_error two_policies_exit2 "not both" trace --wakeup-bytes 4096 --wakeup-events 8
t_usage_error stray_argument_exit2 "unexpected argument" trace extra
t_usage_error bad_pid_exit2 "--pid wants process ids" trace --pid abc
t_usage_error dead_pid_exit2 "no such process" trace --pid 999999999
t_usage_error bad_cpu_exit2 "--cpu wants a CPU list" trace --cpu x-y
t_usage_error long_comm_exit2 "--comm wants a command name" trace --comm abcdefghijklmnopqrstuvwxyz
t_usage_error bad_pages_exit2 "power of two" trace --buffer-pages 3
t_usage_error pid_and_command_exit2 "not both" trace --pid 1 -- /bin/true
t_usage_error list_and_command_exit2 "--list takes no command" trace --list -- /bin/true

if ! t_need_root; then
	skip trace_runs "perfring trace needs root (run the suite as root)"
	t_finish
	exit $?
fi

# --- the built-in default (the README's first command) --------------------

start=$(date +%s.%N)
t_run "$T_TMP/d.out" "$T_TMP/d.err" timeout 30 "$PERFRING" trace --duration 2
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
out="$T_TMP/d.out" err="$T_TMP/d.err"
if [ "$T_RC" -ne 0 ]; then
	fail default_runs "perfring trace --duration 2 exited $T_RC"
	t_show "$err"
else
	ok default_runs
fi
t_check default_fast "perfring trace --duration 2 took ${secs}s" awk -v s="$secs" 'BEGIN{exit !(s < 6)}'
t_check default_header "no column header line" grep -qE '^ +TIME\(s\) CPU COMM +PID EVENT +FIELDS$' "$out"
# exec_seen NAME FILE: a sched_process_exec of FILE whose pid field is the event's pid.
exec_seen() {
	if awk -v f="filename=$2" '$5 == "sched_process_exec" && $6 == f && $7 == "pid=" $4 {found = 1} END {exit !found}' "$out"; then
		ok "$1"
	else
		fail "$1" "no sched_process_exec line of $2 with a matching pid"
		t_show "$out" 12
	fi
}
exec_seen default_exec_true /bin/true
exec_seen default_exec_cat /bin/cat
exec_seen default_exec_sh /bin/sh
exec_seen default_exec_ls /bin/ls
t_check default_open_file "no sys_enter_openat of cat opening the workload's hello.txt" \
	grep -qE '^ +[0-9.]+ +[0-9]+ cat +[0-9]+ sys_enter_openat +.* filename=/tmp/perfring-demo\.[^/ ]+/hello\.txt ' "$out"
t_check default_exec_args "no sys_enter_execve with argv=[/bin/sh,-c,\"exit 3\"]" \
	grep -qF 'filename=/bin/sh argv=[/bin/sh,-c,"exit 3"]' "$out"
t_check default_no_self "perfring's own events were traced" \
	bash -c "! grep -qE '^ +[0-9.]+ +[0-9]+ perfring +[0-9]+ sys_enter_openat .*filename=/sys/' '$out'"
t_check default_times_ordered_per_cpu "event times go backwards within a CPU's ring" \
	awk '$1 ~ /^[0-9]+\.[0-9]+$/ { if (($2 in last) && $1 < last[$2]) bad = 1; last[$2] = $1 } END {exit bad}' "$out"
summary=$(grep '^summary: ' "$err")
events=$(echo "$summary" | sed -n 's/^summary: \([0-9]*\) events, .*/\1/p')
lost=$(echo "$summary" | sed -n 's/^summary: [0-9]* events, \([0-9]*\) lost, .*/\1/p')
lines=$(grep -cE '^ +[0-9]+\.[0-9]+ +[0-9]+ ' "$out")
t_check default_summary_events "summary '$summary': events should be > 0" [ "${events:-0}" -gt 0 ]
t_check default_summary_lost0 "summary '$summary': lost should be 0" [ "${lost:-x}" = 0 ]
t_check default_one_line_per_event "$lines event lines but $events events in the summary" [ "$lines" = "${events:-x}" ]
per_tp=$(awk '/^  [a-z_]+:[a-z_0-9]+ +[0-9]+$/ {s += $2} END {print s + 0}' "$err")
t_check default_per_tracepoint_sum "per-tracepoint counts add up to $per_tp, not $events" [ "$per_tp" = "${events:-x}" ]
percpu=$(awk '/^  cpu [0-9]+: [0-9]+ traced = [0-9]+ received \+ / {s += $6} END {print s + 0}' "$err")
t_check default_per_cpu_sum "per-CPU events received add up to $percpu, not $events" [ "$percpu" = "${events:-x}" ]
t_check default_traced_all "traced line: $(grep '^  traced:' "$err")" \
	grep -qx "  traced: ${events:-x} events = ${events:-x} received + 0 lost" "$err"
t_check default_program_sent_all "program line: $(grep '^  program:' "$err")" \
	grep -qx "  program: ${events:-x} sent, 0 not sent (ring full), 0 truncated" "$err"
t_check default_policy "no reader policy line with the watermark and the delay bound" \
	grep -q '^  reader: [0-9]* rings of 1.0 MiB (256 pages); woken when 256.0 KiB wait in a ring or 100 ms after an event at the latest$' "$err"
t_check default_delay_percentiles "no delay percentiles: $(grep '^  delivery:' "$err")" \
	grep -qE '^  delivery: [0-9]+ wakeups, .*; delay p50 [0-9.]+ ms, p90 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms$' "$err"
read -r n e x <<<"$(grep '^  workload: ' "$err" | grep -oE '[0-9]+' | tr '\n' ' ')"
t_check default_workload_complete "$(grep '^  workload:' "$err")" \
	bash -c "[ '${n:-0}' -gt 4 ] && [ '$e' = '$n' ] && [ '$x' = '$n' ]"

# --- a known command: pid, comm, file name, exec arguments ----------------

marker="$T_TMP/perfring-marker-$$-file.txt"
echo hello >"$marker"
argtag="distinctive-arg-$$"
t_run "$T_TMP/c.out" "$T_TMP/c.err" timeout 30 "$PERFRING" trace -- /bin/sh -c "exec /bin/cat \"\$0\" \"\$1\"" "$marker" "$argtag"
cpid=$(sed -n 's/^  command: \/bin\/sh (pid \([0-9]*\)) exited with status .*/\1/p' "$T_TMP/c.err")
t_check cmd_runs "trace -- sh -c cat: exit $T_RC (want 1: cat fails on the second argument), command line: $(grep '^  command:' "$T_TMP/c.err")" \
	bash -c "[ $T_RC -eq 0 ] && [ -n '$cpid' ] && grep -q 'exited with status 1' '$T_TMP/c.err'"
t_check cmd_output_passes "the command's own output is not on stdout" grep -qx hello "$T_TMP/c.out"
t_check cmd_exec_args "no sys_enter_execve by pid $cpid with argv=[/bin/cat,$marker,$argtag]" \
	grep -qE "^ +[0-9.]+ +[0-9]+ sh +$cpid sys_enter_execve +__syscall_nr=59 filename=/bin/cat argv=\[/bin/cat,$marker,$argtag\] envp=0x" "$T_TMP/c.out"
t_check cmd_exec "no sched_process_exec of /bin/cat by pid $cpid with comm cat" \
	grep -qE "^ +[0-9.]+ +[0-9]+ cat +$cpid sched_process_exec +filename=/bin/cat pid=$cpid old_pid=$cpid$" "$T_TMP/c.out"
t_check cmd_open "no sys_enter_openat of $marker by cat, pid $cpid" \
	grep -qE "^ +[0-9.]+ +[0-9]+ cat +$cpid sys_enter_openat +__syscall_nr=257 dfd=-100 filename=$marker flags=0 mode=0$" "$T_TMP/c.out"
t_check cmd_exit "no sched_process_exit of cat, pid $cpid" \
	grep -qE "^ +[0-9.]+ +[0-9]+ cat +$cpid sched_process_exit +comm=cat pid=$cpid " "$T_TMP/c.out"
t_check cmd_only_its_pids "events of processes other than $cpid" \
	awk -v p="$cpid" '$1 ~ /^[0-9]+\.[0-9]+$/ && $4 != p {bad = 1} END {exit bad}' "$T_TMP/c.out"

# The same in JSON: every line valid JSON, typed fields.
t_run "$T_TMP/j.out" "$T_TMP/j.err" timeout 30 "$PERFRING" trace --json -- /bin/sh -c "exec /bin/cat \"\$0\" \"\$1\"" "$marker" "$argtag"
jmsg=$(python3 - "$T_TMP/j.out" "$marker" "$argtag" <<'PY'
import json, sys
path, marker, tag = sys.argv[1:4]
evs = []
for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
    if line.strip() == "hello":
        continue  # the command's own output
    try:
        evs.append(json.loads(line))
    except ValueError as e:
        print("line %d is not JSON: %s: %r" % (n, e, line[:100])); sys.exit(1)
if not evs:
    print("no events"); sys.exit(1)
for e in evs:
    for k, t in (("time_ns", int), ("ktime_ns", int), ("cpu", int), ("comm", str), ("pid", int), ("tid", int), ("event", str), ("fields", dict)):
        if not isinstance(e.get(k), t):
            print("event without a %s %s: %r" % (t.__name__, k, e)); sys.exit(1)
ex = [e for e in evs if e["event"] == "syscalls:sys_enter_execve" and e["fields"].get("argv") == ["/bin/cat", marker, tag]]
if len(ex) != 1:
    print("want one execve of cat with its argv, got %d" % len(ex)); sys.exit(1)
pid = ex[0]["pid"]
f = ex[0]["fields"]
if f["filename"] != "/bin/cat" or f["__syscall_nr"] != 59 or not f["envp"].startswith("0x"):
    print("execve fields wrong: %r" % f); sys.exit(1)
op = [e for e in evs if e["event"] == "syscalls:sys_enter_openat" and e["fields"]["filename"] == marker]
if len(op) != 1 or op[0]["pid"] != pid or op[0]["comm"] != "cat" or op[0]["fields"]["dfd"] != -100 or op[0]["fields"]["flags"] != 0:
    print("openat of the marker: %r" % op); sys.exit(1)
sx = [e for e in evs if e["event"] == "sched:sched_process_exec" and e["pid"] == pid and e["comm"] == "cat"]
if len(sx) != 1 or sx[0]["fields"] != {"filename": "/bin/cat", "pid": pid, "old_pid": pid}:
    print("sched_process_exec: %r" % sx); sys.exit(1)
sy = [e for e in evs if e["event"] == "sched:sched_process_exit" and e["pid"] == pid]
if len(sy) != 1 or sy[0]["fields"]["comm"] != "cat" or sy[0]["fields"]["pid"] != pid:
    print("sched_process_exit: %r" % sy); sys.exit(1)
if any(e["pid"] != pid for e in evs):
    print("events of another process"); sys.exit(1)
print("ok %d" % len(evs))
PY
)
t_check json_events "$jmsg" bash -c "[ $T_RC -eq 0 ] && [ '${jmsg%% *}' = ok ]"
t_check json_summary_on_stderr "the summary is not on stderr" grep -q '^summary: ' "$T_TMP/j.err"

# A command that does not exist: one line, exit 1.
t_run "$T_TMP/n.out" "$T_TMP/n.err" timeout 30 "$PERFRING" trace -- /nonexistent/command
t_check cmd_missing "trace -- /nonexistent: exit $T_RC, stderr: $(head -c 200 "$T_TMP/n.err")" \
	bash -c "[ $T_RC -eq 1 ] && grep -q \"cannot run '/nonexistent/command': No such file or directory\" '$T_TMP/n.err' && [ \$(grep -c 'perfring trace:' '$T_TMP/n.err') -eq 1 ]"

# --- filters ---------------------------------------------------------------

# Two processes that open their own file every 20 ms; each says when it has
# its name and opens (FILE.ready), so that tracing starts only then (python
# takes a while to start on a busy machine).
opener() { # FILE COMM
	python3 -c '
import sys, time, ctypes
ctypes.CDLL(None).prctl(15, sys.argv[2].encode(), 0, 0, 0)
open(sys.argv[1]).close()
open(sys.argv[1] + ".ready", "w").close()
while True:
    open(sys.argv[1]).close()
    time.sleep(0.02)' "$1" "$2" &
}
echo a >"$T_TMP/file-a"
echo b >"$T_TMP/file-b"
opener "$T_TMP/file-a" opener-a
pa=$!
opener "$T_TMP/file-b" opener-b
pb=$!
for _ in $(seq 600); do
	[ -e "$T_TMP/file-a.ready" ] && [ -e "$T_TMP/file-b.ready" ] && break
	sleep 0.05
done

t_run "$T_TMP/p.out" "$T_TMP/p.err" timeout 30 "$PERFRING" trace -e syscalls:sys_enter_openat --pid "$pa" -d 0.6
na=$(grep -c "filename=$T_TMP/file-a " "$T_TMP/p.out")
nb=$(grep -c "filename=$T_TMP/file-b " "$T_TMP/p.out")
t_check filter_pid "--pid $pa: $na opens of file-a (want > 5), $nb of file-b (want 0), exit $T_RC" \
	bash -c "[ $T_RC -eq 0 ] && [ $na -gt 5 ] && [ $nb -eq 0 ] && awk -v p=$pa '\$1 ~ /^[0-9]+\\.[0-9]+\$/ && \$4 != p {bad = 1} END {exit bad}' '$T_TMP/p.out'"

t_run "$T_TMP/m.out" "$T_TMP/m.err" timeout 30 "$PERFRING" trace -e 'syscalls:sys_enter_open*' --comm opener-b -d 0.6
na=$(grep -c "filename=$T_TMP/file-a " "$T_TMP/m.out")
nb=$(grep -c "filename=$T_TMP/file-b " "$T_TMP/m.out")
t_check filter_comm "--comm opener-b: $nb opens of file-b (want > 5), $na of file-a (want 0), exit $T_RC" \
	bash -c "[ $T_RC -eq 0 ] && [ $nb -gt 5 ] && [ $na -eq 0 ] && awk '\$1 ~ /^[0-9]+\\.[0-9]+\$/ && \$3 != \"opener-b\" {bad = 1} END {exit bad}' '$T_TMP/m.out'"
t_check glob_events "-e 'syscalls:sys_enter_open*' did not add openat and open_by_handle_at" \
	bash -c "grep -q '^  syscalls:sys_enter_openat ' '$T_TMP/m.err' && grep -q '^  syscalls:sys_enter_open_by_handle_at ' '$T_TMP/m.err'"

# A command's children only: the openers are not its children.
t_run "$T_TMP/k.out" "$T_TMP/k.err" timeout 30 "$PERFRING" trace -e syscalls:sys_enter_openat -- /bin/sh -c "sleep 0.3; /bin/cat '$marker' >/dev/null"
t_check filter_children "-- sh: cat's open missing, or the openers' opens present" \
	bash -c "[ $T_RC -eq 0 ] && grep -qE ' cat +[0-9]+ sys_enter_openat .*filename=$marker ' '$T_TMP/k.out' && ! grep -q 'filename=$T_TMP/file-' '$T_TMP/k.out'"

for cpu in 0 1; do
	t_run "$T_TMP/cpu.out" "$T_TMP/cpu.err" timeout 30 "$PERFRING" trace -e sched:sched_switch --cpu $cpu -d 0.5
	n=$(grep -cE '^ +[0-9]+\.[0-9]+ ' "$T_TMP/cpu.out")
	t_check "filter_cpu$cpu" "--cpu $cpu: $n events, or some on another CPU; rings: $(grep -c '^  cpu ' "$T_TMP/cpu.err")" \
		bash -c "[ $T_RC -eq 0 ] && [ $n -gt 0 ] && awk -v c=$cpu '\$1 ~ /^[0-9]+\\.[0-9]+\$/ && \$2 != c {bad = 1} END {exit bad}' '$T_TMP/cpu.out' && [ \$(grep -c '^  cpu ' '$T_TMP/cpu.err') -eq 1 ]"
done

# --duration ends on time.
start=$(date +%s.%N)
t_run "$T_TMP/t.out" "$T_TMP/t.err" timeout 30 "$PERFRING" trace -e sched:sched_switch -d 1 -q
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b - a}')
t_check duration "-d 1 took ${secs}s (want 1 to 3), exit $T_RC; summary: $(grep '^summary' "$T_TMP/t.err")" \
	bash -c "[ $T_RC -eq 0 ] && awk -v s=$secs 'BEGIN{exit !(s >= 1 && s < 3)}' && grep -qE '^summary: [1-9][0-9]* events, 0 lost, in 1\.0[0-9] s' '$T_TMP/t.err' && [ ! -s '$T_TMP/t.out' ]"

# Time order across CPUs: sched_switch happens on every CPU. By default
# times never go back, except for events the summary counts as late; with
# --no-order the rings come out one after the other and times go back.
if [ "$(nproc)" -ge 2 ]; then
	order_inv() { awk '$1 ~ /^[0-9]+\.[0-9]+$/ { if (n && $1 < last) bad++; else last = $1; n++; c[$2] = 1 } END {print bad + 0, length(c)}' "$1"; }
	t_run "$T_TMP/o.out" "$T_TMP/o.err" timeout 30 "$PERFRING" trace -e sched:sched_switch -d 1
	read -r inv ncpu <<<"$(order_inv "$T_TMP/o.out")"
	late=$(sed -n 's/^  order: all CPUs in time order, window 10 ms; \([0-9]*\) events late, .*/\1/p' "$T_TMP/o.err")
	t_check order_default "exit $T_RC, $inv times going back, '$late' counted late, events of $ncpu CPUs" \
		bash -c "[ $T_RC -eq 0 ] && [ -n '$late' ] && [ $inv -le '${late:-0}' ] && [ $ncpu -ge 2 ]"
	t_run "$T_TMP/o2.out" "$T_TMP/o2.err" timeout 30 "$PERFRING" trace -e sched:sched_switch -d 1 --no-order
	read -r inv ncpu <<<"$(order_inv "$T_TMP/o2.out")"
	t_check order_off "--no-order: exit $T_RC, $inv times going back (want > 0), $(grep '^  order' "$T_TMP/o2.err")" \
		bash -c "[ $T_RC -eq 0 ] && [ $inv -gt 0 ] && grep -q '^  order: each CPU.s events in turn' '$T_TMP/o2.err'"
else
	skip order_default "needs 2 online CPUs"
	skip order_off "needs 2 online CPUs"
fi
t_usage_error bad_order_window_exit2 "--order-window-ms" trace --order-window-ms 0

# Ctrl-C: stops at once, drains, and the summary is complete.
"$PERFRING" trace -e syscalls:sys_enter_openat --pid "$pa,$pb" >"$T_TMP/int.out" 2>"$T_TMP/int.err" &
tpid=$!
sleep 1
kill -INT "$tpid"
start=$(date +%s.%N)
wait "$tpid"
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
events=$(sed -n 's/^summary: \([0-9]*\) events, 0 lost, .*/\1/p' "$T_TMP/int.err")
lines=$(grep -cE '^ +[0-9]+\.[0-9]+ +[0-9]+ ' "$T_TMP/int.out")
t_check sigint "after SIGINT: exit $rc in ${secs}s, $lines lines, summary: $(grep '^summary' "$T_TMP/int.err")" \
	bash -c "[ $rc -eq 0 ] && awk -v s=$secs 'BEGIN{exit !(s < 3)}' && grep -q '^(interrupted)' '$T_TMP/int.err' && [ '${events:-0}' -gt 10 ] && [ '$lines' = '$events' ]"
t_check sigint_summary_complete "the summary after SIGINT lacks a part" \
	bash -c "grep -q '^  syscalls:sys_enter_openat ' '$T_TMP/int.err' && grep -q '^  program: ' '$T_TMP/int.err' && grep -q '^  reader: ' '$T_TMP/int.err' && grep -q '^  delivery: .* p99 ' '$T_TMP/int.err'"
kill "$pa" "$pb" 2>/dev/null
wait "$pa" "$pb" 2>/dev/null

# The status line, on a terminal (script(1) gives the tool one).
if command -v script >/dev/null; then
	script -qec "'$PERFRING' trace -e sched:sched_switch -d 2.5 >/dev/null" "$T_TMP/tty.log" >/dev/null 2>&1
	t_check status_line "no live status line on the terminal: $(tr '\r' '\n' <"$T_TMP/tty.log" | grep -m1 'events/s' | head -c 200)" \
		bash -c "tr '\r' '\n' <'$T_TMP/tty.log' | grep -qE '^(.\[K)?[0-9]+ events, [0-9]+/s, 0 lost; backlog: cpu0 [0-9.]+ [KMG]?i?B cpu1 '"
else
	fail status_line "script(1) is not installed (util-linux)"
fi

# Standard output closed early (| head): it stops at once, exit 0.
start=$(date +%s.%N)
timeout 20 "$PERFRING" trace -e sched:sched_switch 2>"$T_TMP/head.err" | head -n 3 >"$T_TMP/head.out"
rc=${PIPESTATUS[0]}
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
t_check stdout_closed "| head -n 3: exit $rc after ${secs}s (want 0, under 5 s), $(wc -l <"$T_TMP/head.out") lines" \
	bash -c "[ $rc -eq 0 ] && awk -v s=$secs 'BEGIN{exit !(s < 5)}' && [ \$(wc -l <'$T_TMP/head.out') -eq 3 ] && grep -q '^summary: ' '$T_TMP/head.err'"

# Another policy: one wakeup per event and no delay bound, 8 pages.
t_run "$T_TMP/pol.out" "$T_TMP/pol.err" timeout 30 "$PERFRING" trace -q --wakeup-events 1 --max-delay-ms 0 --buffer-pages 8 -d 0.5
t_check policy_events "--wakeup-events 1: exit $T_RC, or the policy line is wrong: $(grep '^  reader' "$T_TMP/pol.err")" \
	bash -c "[ $T_RC -eq 0 ] && grep -q '^  reader: [0-9]* rings of 32.0 KiB (8 pages); woken every 1 events, with no bound on the delay$' '$T_TMP/pol.err'"

# The whole tool under valgrind: no invalid access, nothing lost on the heap.
if command -v valgrind >/dev/null; then
	t_run "$T_TMP/vg.out" "$T_TMP/vg.err" timeout 120 valgrind --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --suppressions="$T_ROOT/scripts/valgrind.supp" \
		"$PERFRING" trace -d 1 -j
	t_check valgrind_clean "valgrind perfring trace: exit $T_RC; $(grep -m1 'ERROR SUMMARY' "$T_TMP/vg.err")" \
		bash -c "[ $T_RC -eq 0 ] && grep -q 'ERROR SUMMARY: 0 errors' '$T_TMP/vg.err' && grep -c '\"event\":\"sched:sched_process_exec\"' '$T_TMP/vg.out' >/dev/null"
else
	fail valgrind_clean "valgrind is not installed"
fi

# --list: the names a glob matches, as tracefs has them.
t_run "$T_TMP/l.out" "$T_TMP/l.err" timeout 30 "$PERFRING" trace --list -e 'sched:sched_process_*' -e syscalls:sys_enter_openat
want=$( (cd /sys/kernel/tracing/events && ls -d sched/sched_process_* && echo syscalls/sys_enter_openat) | tr / : | sort)
t_check list_glob "--list: exit $T_RC, got $(sort "$T_TMP/l.out" | tr '\n' ' ') want $(echo "$want" | tr '\n' ' ')" \
	bash -c "[ $T_RC -eq 0 ] && [ \"\$(sort '$T_TMP/l.out')\" = \"$want\" ] && [ ! -s '$T_TMP/l.err' ]"
t_run "$T_TMP/l.out" "$T_TMP/l.err" timeout 30 "$PERFRING" trace --list
n=$(wc -l <"$T_TMP/l.out")
t_check list_all "--list: exit $T_RC, $n tracepoints listed (want > 500, sched:sched_switch among them)" \
	bash -c "[ $T_RC -eq 0 ] && [ $n -gt 500 ] && grep -qx 'sched:sched_switch' '$T_TMP/l.out'"

# --wakeup-events N is the policy the reader gets (not one per event).
t_run "$T_TMP/pol8.out" "$T_TMP/pol8.err" timeout 30 "$PERFRING" trace -q --wakeup-events 8 -d 0.3
t_check policy_events8 "--wakeup-events 8: exit $T_RC, policy line: $(grep '^  reader' "$T_TMP/pol8.err")" \
	bash -c "[ $T_RC -eq 0 ] && grep -q '^  reader: [0-9]* rings of 1.0 MiB (256 pages); woken every 8 events or 100 ms after an event at the latest$' '$T_TMP/pol8.err'"

# --- bad input ---------------------------------------------------------------

t_one_line_error unknown_tracepoint "unknown tracepoint 'sched:no_such_event'" "$PERFRING" trace -e sched:no_such_event -d 0.1
t_one_line_error unknown_system "unknown tracepoint 'nosuchsys:foo'" "$PERFRING" trace -e nosuchsys:foo -d 0.1
t_one_line_error glob_matches_nothing "no tracepoint matches 'sched:zz*'" "$PERFRING" trace -e 'sched:zz*' -d 0.1
t_one_line_error list_matches_nothing "no tracepoint matches 'zz:*'" "$PERFRING" trace --list -e 'zz:*'
t_one_line_error not_a_tracepoint "is not a tracepoint: want SYSTEM:EVENT" "$PERFRING" trace -e sched_switch -d 0.1
t_one_line_error ring_too_small "creating the reader failed: " "$PERFRING" trace -b 1 -d 0.1

# Without root: one line saying what is needed, exit 1.
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PERFRING"; then
	t_one_line_error needs_root "run as root" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$PERFRING" trace -d 0.5
else
	fail needs_root "cannot run $PERFRING as user nobody (setpriv missing or the build directory is not accessible)"
fi

# tracefs not mounted: trace mounts it (in a private mount namespace here, so
# that the machine's own mount stays as it is) and says so.
if command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
	t_run "$T_TMP/mt.out" "$T_TMP/mt.err" unshare -m --propagation private bash -c \
		"umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null;
		 [ ! -e /sys/kernel/tracing/events ] || exit 99; exec '$PERFRING' trace --duration 0.5"
	t_check mounts_tracefs "without tracefs: exit $T_RC, or no 'mounted tracefs' note or no exec events" \
		bash -c "[ $T_RC -eq 0 ] && grep -q '^note: mounted tracefs at /sys/kernel/tracing' '$T_TMP/mt.err' && grep -q ' sched_process_exec ' '$T_TMP/mt.out'"
else
	fail mounts_tracefs "unshare -m is not available to make a mount namespace without tracefs"
fi

t_finish
