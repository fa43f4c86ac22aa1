#!/usr/bin/env bash
# `perfring trace --ringbuf`: the same program sends its events through one
# BPF ring buffer instead of the perf event array, and the output is the
# same: the same workload traced both ways gives the same events with the
# same fields (times, pids and temporary names aside), the CPU column a real
# CPU (the program appends it to each ring buffer sample), in text and JSON;
# the summary names the ring buffer and its losses (0 here).
. "$(dirname "$0")/lib.sh"

t_require_tool
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" trace --help
t_check trace_rb_help "perfring trace --help does not document --ringbuf" grep -q -- '--ringbuf' "$T_TMP/out"
if ! t_need_root; then
	skip trace_rb_runs "perfring trace needs root (run the suite as root)"
	t_finish
	exit $?
fi

# A workload whose every event is known: two processes, a file opened by name.
MARK="$T_TMP/ringbuf-mark-file"
echo hi >"$MARK"
work=(sh -c "cat '$MARK' >/dev/null; /bin/true a b c")
events=(-e sched:sched_process_exec -e sched:sched_process_exit -e syscalls:sys_enter_openat)

# normalize FILE: the events without time, pids and pointers, cpu as "C" (checked
# apart), sorted: a perf event array delivers ring by ring, not in time order
# across CPUs, so the two runs are compared as sets of events.
normalize() {
	awk '$1 ~ /^[0-9]/ { $1 = ""; $2 = "C"; $4 = "P"; print }' "$1" |
		sed -E 's/(pid|old_pid|parent_pid|child_pid)=[0-9]+/\1=P/g; s/0x[0-9a-f]+/0xX/g; s/ \([0-9]+ strings? unread\)$//' |
		sed -E "/ringbuf-mark-file/! s/ filename=[^ ]+/ filename=F/" | sort
}
# (A user string is read at the tracepoint, if its page is present: whether a
# library's path or ? (unread) is printed varies from run to run; the
# marker file's name, opened by cat after it was written, is always read.)
for mode in perf ringbuf; do
	args=()
	[ $mode = ringbuf ] && args=(--ringbuf)
	t_run "$T_TMP/$mode.txt" "$T_TMP/$mode.err" "$PERFRING" trace "${args[@]}" "${events[@]}" -- "${work[@]}"
	t_check "trace_rb_${mode}_exit" "$mode: exit $T_RC, stderr $(head -c 300 "$T_TMP/$mode.err")" [ "$T_RC" -eq 0 ]
	t_run "$T_TMP/$mode.json" "$T_TMP/$mode.jerr" "$PERFRING" trace --json "${args[@]}" "${events[@]}" -- "${work[@]}"
done
normalize "$T_TMP/perf.txt" >"$T_TMP/perf.norm"
normalize "$T_TMP/ringbuf.txt" >"$T_TMP/ringbuf.norm"
t_check trace_rb_same_text "text differs between the perf event array and the ring buffer: $(diff "$T_TMP/perf.norm" "$T_TMP/ringbuf.norm" | head -n 6 | tr '\n' '/')" \
	bash -c "[ -s '$T_TMP/perf.norm' ] && diff -q '$T_TMP/perf.norm' '$T_TMP/ringbuf.norm' >/dev/null"
t_check trace_rb_marker "the marker file's open is missing from the ring buffer run" grep -q "filename=$MARK" "$T_TMP/ringbuf.txt"
ncpu=$(nproc)
t_check trace_rb_cpu_column "a ring buffer event without a real CPU: $(awk -v n="$ncpu" '$2 < 0 || $2 >= n' "$T_TMP/ringbuf.txt" | head -n 2)" \
	bash -c "[ -z \"\$(awk -v n=$ncpu '\$1 ~ /^[0-9]/ && (\$2 !~ /^[0-9]+\$/ || \$2 >= n)' '$T_TMP/ringbuf.txt')\" ]"
# JSON: the same keys and values but for times, cpu, pids, pointers (as sets, as above).
jnorm() {
	python3 -c '
import json, re, sys
for ln in open(sys.argv[1]):
    o = json.loads(ln)
    for k in list(o):
        if k == "unread":  # a page not yet faulted in: either run may meet one
            del o[k]
        elif k == "cpu" or "time" in k or "pid" in k or "tid" in k:
            o[k] = "X"
        elif isinstance(o[k], str):
            o[k] = re.sub(r"0x[0-9a-f]+", "0xX", o[k])
        elif isinstance(o[k], dict):
            for f in list(o[k]):
                if "pid" in f or f == "envp":
                    o[k][f] = "X"
                elif f == "filename" and "ringbuf-mark-file" not in str(o[k][f]):
                    o[k][f] = "F"
    print(json.dumps(o, sort_keys=True))' "$1" | sort
}
jnorm "$T_TMP/perf.json" >"$T_TMP/perf.jnorm" 2>"$T_TMP/jerr1"
jnorm "$T_TMP/ringbuf.json" >"$T_TMP/ringbuf.jnorm" 2>"$T_TMP/jerr2"
t_check trace_rb_same_json "JSON differs: $(cat "$T_TMP/jerr1" "$T_TMP/jerr2" | head -c 200) $(diff "$T_TMP/perf.jnorm" "$T_TMP/ringbuf.jnorm" | head -n 4 | tr '\n' '/')" \
	bash -c "[ -s '$T_TMP/perf.jnorm' ] && diff -q '$T_TMP/perf.jnorm' '$T_TMP/ringbuf.jnorm' >/dev/null"
t_check trace_rb_summary "no ring buffer lines in the summary: $(grep -E 'traced:|reader:' "$T_TMP/ringbuf.err" | tr '\n' '/')" \
	bash -c "grep -qE '^  traced: ([1-9][0-9]*) events = \\1 received \\+ 0 lost\$' '$T_TMP/ringbuf.err' && grep -q '^  reader: a BPF ring buffer of ' '$T_TMP/ringbuf.err'"
t_finish
