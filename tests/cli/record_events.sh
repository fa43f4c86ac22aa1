#!/usr/bin/env bash
# perfring record -e takes the event names perf record -e takes, with perf
# 6.1 as the oracle on the same spec: tracepoint globs (one event per match,
# in perf's order and with perf's names; a glob matching nothing is one line
# naming it), breakpoints mem:ADDR[/LEN][:rwx] (bp_type, bp_addr, bp_len and
# the name perf gives them, and the hits of a program writing a known
# global, perf script on both recordings), and every modifier perf accepts
# (the attr bits and the name perf evlist -v shows), the others refused with
# one line naming the letter. Tracepoints and breakpoints sample every hit
# (period 1) unless -c/-F is given, as perf's. A recording with S (the
# counter read into each sample) is read as perf reads it: script and report
# weigh each sample by its counter's growth since the previous one.
. "$(dirname "$0")/lib.sh"

t_require_tool
t_require_perf record_events
if ! t_need_root; then
	skip record_events "needs root: tracepoints and breakpoints"
	t_finish
	exit $?
fi
TARGET="$PERFRING_BUILD/tests/helpers/bp_target"
if [ ! -x "$TARGET" ]; then
	fail target_built "$TARGET does not exist (make $TARGET)"
	t_finish
	exit 1
fi
cd "$T_TMP" || exit 1

# rec_both NAME SPEC CMD...: record CMD with -e SPEC by perfring (NAME.r) and
# by perf (NAME.p); 1 when either fails (the reason shown).
rec_both() {
	local name=$1 spec=$2
	shift 2
	if ! "$PERFRING" record -e "$spec" -o "$name.r" -- "$@" >/dev/null 2>"$name.rerr"; then
		fail "$name" "perfring record -e '$spec' failed: $(head -n 1 "$name.rerr")"
		return 1
	fi
	# -N -B: no build-id cache or build ids (perf 6.1 aborts now and then in
	# util/build-id.c while other perf processes run; once more if it does)
	if ! perf record -N -B -e "$spec" -o "$name.p" -- "$@" >/dev/null 2>"$name.perr" &&
		! perf record -N -B -e "$spec" -o "$name.p" -- "$@" >/dev/null 2>"$name.perr"; then
		fail "$name" "perf record -e '$spec' failed: $(grep -v '^\[' "$name.perr" | head -n 1)"
		return 1
	fi
}

# attr_bits FILE: per event, its name and the attr fields the event name sets
# (perf evlist -v): type, config, the exclude_* bits, precise_ip, pinned,
# exclusive, PERF_SAMPLE_READ, the breakpoint's fields. The fields the
# recording options set (sample_type's other bits, freq, watermark...) are
# left out: they are record's, not the name's.
attr_bits() {
	perf evlist -v -i "$1" 2>/dev/null | grep -v '^#' | awk -F', ' '{
		out = ""
		for (i = 1; i <= NF; i++) {
			f = $i
			if (i == 1) { sub(/: type:/, " type:", f); out = f; continue }
			if (f ~ /^(config|exclude_[a-z]+|precise_ip|pinned|exclusive|bp_type): / ||
			    f ~ /^\{ bp_(addr|len)/)
				out = out ", " f
			if (f ~ /^sample_type: / && f ~ /READ/)
				out = out ", READ"
		}
		print out
	}'
}

# same_attrs NAME: NAME.r and NAME.p have the same events with the same bits.
same_attrs() {
	local name=$1
	attr_bits "$name.r" >"$name.rattr"
	attr_bits "$name.p" >"$name.pattr"
	if [ ! -s "$name.pattr" ]; then
		fail "$name" "perf evlist -v listed no event of perf's recording"
	elif cmp -s "$name.rattr" "$name.pattr"; then
		ok "$name"
	else
		fail "$name" "events differ from perf's recording of the same -e (- perf, + perfring)"
		diff "$name.pattr" "$name.rattr" | head -n 8 | sed 's/^/     | /'
	fi
}

# --- tracepoint globs -------------------------------------------------------
if rec_both glob_events 'sched:sched_process_*' true; then
	same_attrs glob_events
	n=$(perf evlist -i glob_events.r | grep -c '^sched:sched_process_')
	want=$(ls -d /sys/kernel/tracing/events/sched/sched_process_*/ 2>/dev/null | wc -l)
	t_check glob_one_event_per_tracepoint "$n events in the file, $want sched_process_* tracepoints" \
		[ "$n" -eq "$want" -a "$want" -ge 4 ]
	# period 1: the one exec of `true` is one sample, as in perf's file
	perf script -i glob_events.r -F comm,event 2>/dev/null | awk '$2 == "sched:sched_process_exec:"' >exec.r
	perf script -i glob_events.p -F comm,event 2>/dev/null | awk '$2 == "sched:sched_process_exec:"' >exec.p
	t_check glob_every_hit "exec samples: perfring $(wc -l <exec.r), perf $(wc -l <exec.p) (want 1 each)" \
		[ "$(wc -l <exec.r)" -eq 1 -a "$(wc -l <exec.p)" -eq 1 ]
	perf evlist -v -i glob_events.r 2>/dev/null | grep -c 'freq: 1' >freq.r
	t_check glob_period_one "perfring's tracepoints sample at a frequency, not every hit" \
		[ "$(cat freq.r)" -eq 0 ]
	t_run script.r script.rerr "$PERFRING" script -i glob_events.r
	perf script -i glob_events.r >script.p 2>/dev/null
	t_same_output glob_script "script of the glob recording" script.p script.r script.rerr
fi
rec_both glob_modifiers 'sched:sched_process_e*:k' true && same_attrs glob_modifiers
# a glob of systems too (perf 6.1's parser refuses a leading '*'; perfring trace takes it)
if "$PERFRING" record -e '*:sched_process_exec' -o glob_system.r -- true >/dev/null 2>&1; then
	t_check glob_system "perf evlist of -e '*:sched_process_exec': $(perf evlist -i glob_system.r 2>&1 | head -n 3 | tr '\n' ' ')" \
		[ "$(perf evlist -i glob_system.r 2>/dev/null | grep -v '^#')" = sched:sched_process_exec ]
else
	fail glob_system "perfring record -e '*:sched_process_exec' failed"
fi
if "$PERFRING" record -e 'sched:sched_process_exec' -F 100 -o freq.data -- true >/dev/null 2>&1; then
	t_check tracepoint_freq_given "-F 100 on a tracepoint: not sampled at 100 Hz" \
		[ "$(perf evlist -v -i freq.data 2>/dev/null | grep -c 'sample_freq }: 100,.*freq: 1')" -eq 1 ]
else
	fail tracepoint_freq_given "perfring record -e sched:sched_process_exec -F 100 failed"
fi
t_one_line_error glob_matches_nothing "no tracepoint matches 'sched:nope*'" \
	"$PERFRING" record -e 'sched:nope*' -o none.data -- true
t_check glob_matches_nothing_perf_too "perf accepts -e 'sched:nope*'" \
	bash -c "! perf record -e 'sched:nope*' -o none.p -- true >/dev/null 2>&1"

# --- modifiers ----------------------------------------------------------------
for m in u k h G H I p pp ppp P S D W e b uk GH up Gu uH ukhGHpppPSDIWeb; do
	rec_both "modifier_$m" "cpu-clock:$m" true && same_attrs "modifier_$m"
done
# S: each sample reads its counter; perf's period is the counter's growth
# since the previous sample of that id, which script and report show
if rec_both modifier_read_script 'cpu-clock:S' "$TARGET" 20000000; then
	for f in r p; do
		t_run "read.$f.rs" "read.$f.err" "$PERFRING" script -i "modifier_read_script.$f"
		perf script -i "modifier_read_script.$f" >"read.$f.ps" 2>/dev/null
		t_same_output "modifier_read_script_$f" "script of a cpu-clock:S recording" "read.$f.ps" "read.$f.rs" "read.$f.err"
		t_run "read.$f.rr" "read.$f.err" "$PERFRING" report -i "modifier_read_script.$f" --stdio --sort comm,dso,sym
		perf report -i "modifier_read_script.$f" --stdio --sort comm,dso,sym 2>/dev/null |
			grep -v '^#' | sed 's/ *$//' | grep . >"read.$f.pr"
		grep -v '^#' "read.$f.rr" | grep . >"read.$f.rr2"
		t_same_output "modifier_read_report_$f" "report of a cpu-clock:S recording" "read.$f.pr" "read.$f.rr2" "read.$f.err" %
	done
fi
rec_both modifier_tracepoint 'sched:sched_process_exec:u' true && same_attrs modifier_tracepoint
rec_both modifier_pmu 'software/config=0/k' true && same_attrs modifier_pmu
# MODIFIERS|TEXT: perf refuses cpu-clock:MODIFIERS; perfring too, in one line with TEXT
for bad in "q|unknown modifier 'q'" "uu|modifier 'u' given twice" "pppp|4 p modifiers" "u:k|unknown modifier ':'"; do
	m=${bad%%|*}
	t_one_line_error "modifier_refused_${m/:/_}" "${bad#*|}" "$PERFRING" record -e "cpu-clock:$m" -o bad.data -- true
	t_check "modifier_refused_${m/:/_}_perf_too" "perf accepts cpu-clock:$m" \
		bash -c "! perf record -e 'cpu-clock:$m' -o bad.p -- true >/dev/null 2>&1"
done

# Without privilege (perf_event_paranoid 2) an event counting in the kernel is
# retried in user space, its modifiers kept: cpu-clock:p as cpu-clock:pu
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
	mkdir -m 777 "$T_TMP/nobody"
	chmod 755 "$T_TMP"
	t_run unpriv.out unpriv.err setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PERFRING" record -e cpu-clock:p -o "$T_TMP/nobody/u.data" -- "$TARGET" 10
	t_check unpriv_modifiers_kept "exit $T_RC: $(head -n 1 unpriv.err)" \
		bash -c "[ $T_RC -eq 0 ] && grep -q 'refused cpu-clock:p (perf_event_paranoid); recording cpu-clock:pu' unpriv.err &&
			perf evlist -f -v -i '$T_TMP/nobody/u.data' 2>/dev/null | grep -c 'exclude_kernel: 1.*precise_ip: 1' >/dev/null"
	# one that excludes user space is not retried (perf's rule): the kernel's refusal
	t_one_line_error unpriv_kernel_only "perf_event_paranoid is" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$PERFRING" record -e cpu-clock:k -o "$T_TMP/nobody/k.data" -- "$TARGET" 10
else
	skip unpriv_modifiers_kept "setpriv missing or perf_event_paranoid below 2"
fi

# --- breakpoints --------------------------------------------------------------
addr=0x$(nm "$TARGET" | awk '$3 == "bp_target_var" { print $1 }')
func=0x$(nm "$TARGET" | awk '$3 == "bp_target_write" { print $1 }')
if [ "$addr" = "0x" ] || [ "$func" = "0x" ]; then
	fail bp_address "no bp_target_var or bp_target_write in nm $TARGET"
else
	i=0
	for spec in "mem:$addr:w" "mem:$addr/8:w" "mem:$addr:wu" "mem:$addr" "mem:$addr/8:w:u" "mem:$func:x"; do
		i=$((i + 1))
		rec_both "bp_$i" "$spec" "$TARGET" 100 || continue
		same_attrs "bp_$i"
		# the same hits in both recordings (the program's 100 writes or
		# calls, the kernel's writes at exec), named as perf names them
		perf script -i "bp_$i.r" -F comm,event,ip,sym,dso 2>/dev/null >"bp_$i.rs"
		perf script -i "bp_$i.p" -F comm,event,ip,sym,dso 2>/dev/null >"bp_$i.ps"
		T_RC=0
		t_same_output "bp_${i}_hits" "recording of -e $spec (perf script)" "bp_$i.ps" "bp_$i.rs" /dev/null
		t_run "bp_$i.rss" "bp_$i.rerr2" "$PERFRING" script -i "bp_$i.r"
		perf script -i "bp_$i.r" >"bp_$i.pss" 2>/dev/null
		t_same_output "bp_${i}_script" "script of -e $spec" "bp_$i.pss" "bp_$i.rss" "bp_$i.rerr2"
	done
	n=$(grep -c 'bp_target_write' bp_3.rs 2>/dev/null)
	t_check bp_user_writes "$n user-space hits of -e mem:$addr:wu in bp_target_write, want 100" [ "${n:-0}" -eq 100 ]
fi
t_one_line_error bp_bad_access "access 'w' given twice" "$PERFRING" record -e 'mem:0x1000:ww' -o bad.data -- true
t_one_line_error bp_bad_address "bad breakpoint 'mem:zz'" "$PERFRING" record -e 'mem:zz' -o bad.data -- true

t_finish
