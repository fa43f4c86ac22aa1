#!/usr/bin/env bash
# perfring pipe: attached to the perf event array of a program another
# process loaded (tests/helpers/pin_producer, which pins it and runs the
# deterministic producer on command), it prints exactly the samples the
# program wrote, intact, in text, JSON and raw frames, found by pin or by id;
# -C/--cpu, --count, --duration and SIGINT stop or restrict it as documented;
# an overflow shows the lost count, and received + lost == produced; a
# closed stdout ends it cleanly; bad maps, missing privilege and bad command
# lines give one line on stderr and exit 1 or 2.
. "$(dirname "$0")/lib.sh"

t_require_tool
HELPER="$PERFRING_BUILD/tests/helpers/pin_producer"
CHECK="$T_ROOT/tests/helpers/pipe_check.py"


# --- command line (no privilege needed) -----------------------------------------

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" pipe --help
t_check pipe_help "perfring pipe --help: exit $T_RC, or an option or the raw framing is missing" \
	bash -c "[ $T_RC -eq 0 ] && [ ! -s '$T_TMP/err' ] && grep -q -- '--map-id ID' '$T_TMP/out' &&
		 grep -q -- '--pin PATH' '$T_TMP/out' && grep -q -- '-C, --cpu LIST' '$T_TMP/out' &&
		 grep -q 'lost notice' '$T_TMP/out' && grep -q 'pads' '$T_TMP/out'"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" help
t_check pipe_listed "perfring help does not list pipe" grep -q '^  pipe ' "$T_TMP/out"
t_usage_error pipe_no_target "exactly one of --map-id ID and --pin PATH" pipe
t_usage_error pipe_two_targets "exactly one of --map-id ID and --pin PATH" pipe --map-id 1 --pin /sys/fs/bpf/x
t_usage_error pipe_json_raw "not both" pipe --map-id 1 --json --raw
t_usage_error pipe_quiet_json "--quiet" pipe --map-id 1 --json -q
t_usage_error pipe_bad_id "--map-id" pipe --map-id abc
t_usage_error pipe_zero_id "--map-id" pipe --map-id 0
t_usage_error pipe_pages_pow2 "power of two" pipe --map-id 1 -b 3
t_usage_error pipe_two_policies "not both" pipe --map-id 1 --wakeup-bytes 64 --wakeup-events 2
t_usage_error pipe_watermark_too_big "not below the ring size" pipe --map-id 1 -b 1 --wakeup-bytes 999999
t_usage_error pipe_bad_cpus "-C/--cpu wants a CPU list" pipe --map-id 1 --cpu 1-x
t_usage_error pipe_bad_cpus_short "-C/--cpu wants a CPU list" pipe --map-id 1 -C 1-x
# --cpus, the spelling before -C/--cpu, still reads a CPU list
t_usage_error pipe_cpus_alias "-C/--cpu wants a CPU list" pipe --map-id 1 --cpus 1-x
t_usage_error pipe_zero_count "--count" pipe --map-id 1 -c 0
t_usage_error pipe_bad_duration "--duration" pipe --map-id 1 -d soon
t_usage_error pipe_bad_delay "--max-delay-ms" pipe --map-id 1 --max-delay-ms -1
t_usage_error pipe_unknown_option "unknown option '--bogus'" pipe --bogus
t_usage_error pipe_missing_value "needs a value" pipe --pin
t_usage_error pipe_stray_argument "unexpected argument" pipe --map-id 1 extra

# --- with a producer ---------------------------------------------------------------

if ! t_need_root; then
	skip pipe_runs "needs root (loading the producer, perf events, BPF_PROG_TEST_RUN)"
	t_finish
	exit $?
fi
if [ ! -x "$HELPER" ] || ! command -v python3 >/dev/null; then
	fail pipe_helper "$HELPER is not built or python3 is missing"
	t_finish
	exit 1
fi
NCPU=$(nproc)

# Without bpffs, --pin names what is missing and how to mount it (checked in a private mount
# namespace, where /sys/fs/bpf is unmounted whatever the machine has).
if command -v unshare >/dev/null; then
	t_run "$T_TMP/nofs.out" "$T_TMP/nofs.err" unshare -m --propagation private bash -c \
		'while umount /sys/fs/bpf 2>/dev/null; do :; done; exec "$0" pipe --pin /sys/fs/bpf/perfring_x' "$PERFRING"
	if [ "$T_RC" -eq 1 ] && [ "$(wc -l <"$T_TMP/nofs.err")" -eq 1 ] &&
		grep -qF "/sys/fs/bpf is not a BPF file system" "$T_TMP/nofs.err" &&
		grep -qF "mount -t bpf bpf /sys/fs/bpf" "$T_TMP/nofs.err"; then
		ok pipe_pin_without_bpffs
	else
		fail pipe_pin_without_bpffs "exit $T_RC, want 1 and one line naming the missing bpffs"
		t_show "$T_TMP/nofs.err"
	fi
else
	skip pipe_pin_without_bpffs "unshare (util-linux) is missing"
fi

# The producer pins its maps: bpffs must be mounted (a fresh machine has none).
if ! t_ensure_fs bpf /sys/fs/bpf; then
	skip pipe_all "$T_FS_WHY"
	t_finish
	exit 0
fi
# bpffs names may not hold a dot.
PIN="/sys/fs/bpf/perfring_pipe_test_$$"
EV="${PIN}_events" SC="${PIN}_scratch" PG="${PIN}_prog"
PIPE_PID= HELPER_PID=
cleanup() {
	[ -n "$PIPE_PID" ] && kill -KILL "$PIPE_PID" 2>/dev/null
	if [ -n "$HELPER_PID" ] && kill -0 "$HELPER_PID" 2>/dev/null; then
		echo quit >&"$P_IN" 2>/dev/null
		wait_until 5 bash -c "! kill -0 $HELPER_PID 2>/dev/null" || kill -TERM "$HELPER_PID"
	fi
	rm -f "$EV" "$SC" "$PG"
	rm -rf "$T_TMP"
}
trap cleanup EXIT

coproc PROD { exec "$HELPER" --events "$EV" --scratch "$SC" --prog "$PG" 2>"$T_TMP/helper.err"; }
# bash forgets PROD and PROD_PID as soon as the coprocess exits: keep copies.
P_IN=${PROD[1]} P_OUT=${PROD[0]} HELPER_PID=$PROD_PID
read -t 10 -r _ EV_ID <&"$P_OUT"
read -t 10 -r _ SC_ID <&"$P_OUT"
read -t 10 -r ready <&"$P_OUT"
if [ "${ready:-}" != ready ] || [ ! -e "$EV" ]; then
	fail pipe_helper "pin_producer did not start: $(cat "$T_TMP/helper.err")"
	t_finish
	exit 1
fi
ok pipe_helper

# prod CMD...: run a helper command; sets RAN OK ENOSPC ENOENT OTHER (this command's outcomes).
prod() {
	local line w
	echo "$*" >&"$P_IN"
	read -t 30 -r line <&"$P_OUT"
	read -r w RAN _ OK _ ENOSPC _ ENOENT _ OTHER <<<"$line"
	if [ "$w" != ran ]; then
		echo "pin_producer: '$*' -> '$line'" >&2
		RAN=0 OK=0 ENOSPC=0 ENOENT=0 OTHER=0
	fi
}

# wait_until SECONDS COMMAND...: poll COMMAND every 20 ms; false on timeout.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.02
	done
}

# start_pipe NAME ARGS...: perfring pipe ARGS in the background, stdout in
# $T_TMP/NAME.out, stderr in NAME.err; returns once its "attached" line is
# out (its rings are in the map) or it exited.
start_pipe() {
	local name=$1
	shift
	OUTF="$T_TMP/$name.out" ERRF="$T_TMP/$name.err"
	"$PERFRING" pipe "$@" >"$OUTF" 2>"$ERRF" &
	PIPE_PID=$!
	wait_until 10 bash -c "grep -q '^perfring pipe: attached to ' '$ERRF' || ! kill -0 $PIPE_PID 2>/dev/null"
}

# end_pipe [SIGNAL]: send SIGNAL (if given), wait at most 10 s for the exit; sets PIPE_RC (137 if killed).
end_pipe() {
	[ -n "${1:-}" ] && kill "-$1" "$PIPE_PID" 2>/dev/null
	if ! wait_until 10 bash -c "! kill -0 $PIPE_PID 2>/dev/null"; then
		kill -KILL "$PIPE_PID" 2>/dev/null
	fi
	wait "$PIPE_PID"
	PIPE_RC=$?
	PIPE_PID=
}

# check_out FORMAT FILE: sets C_SAMPLES C_LOST C_BAD C_CPU0 C_CPU1 C_LENS C_SIZES C_DUP C_WHY.
check_out() {
	read -r C_SAMPLES C_LOST C_BAD C_CPU0 C_CPU1 C_LENS C_SIZES C_DUP C_WHY < <(python3 "$CHECK" "$1" "$2" 2>&1)
}

# summary FILE: sets S_SAMPLES S_BYTES S_LOST from the summary line.
summary() {
	read -r S_SAMPLES S_BYTES S_LOST < <(sed -n 's/^perfring pipe: \([0-9]*\) samples (\([0-9]*\) bytes), \([0-9]*\) lost, in .*/\1 \2 \3/p' "$1")
}


# --- (1) text, by pin, stopped by SIGINT: every sample, intact, and the summary --------

start_pipe text --pin "$EV"
t_check pipe_attached "no 'attached' line: $(head -c 300 "$ERRF")" grep -q "^perfring pipe: attached to map id $EV_ID \"events\" (pinned at $EV), [0-9]* entries: $NCPU rings" "$ERRF"
prod run 0 5 40
ok0=$OK
ok1=0
if [ "$NCPU" -ge 2 ]; then
	prod run 1 4 100
	ok1=$OK
fi
end_pipe INT
check_out text "$OUTF"
summary "$ERRF"
t_check pipe_text_exit "after SIGINT: exit $PIPE_RC, stderr: $(head -c 400 "$ERRF")" \
	bash -c "[ $PIPE_RC -eq 0 ] && grep -q 'stopped by SIGINT' '$ERRF'"
t_check pipe_text_counts "text: $C_SAMPLES samples ($C_CPU0 on cpu 0, $C_CPU1 on cpu 1), the producer wrote $ok0 + $ok1; bad: $C_BAD $C_WHY" \
	bash -c "[ '$C_BAD' = 0 ] && [ '$C_CPU0' = '$ok0' ] && [ '$C_CPU1' = '$ok1' ] && [ '$ok0' = 5 ] && [ '$C_DUP' = 0 ]"
want_sizes=44
[ "$ok1" -gt 0 ] && want_sizes=44,100
t_check pipe_text_sizes "text: lens $C_LENS, sizes $C_SIZES (want 40(,100) padded to $want_sizes)" \
	bash -c "[ '$C_SIZES' = '$want_sizes' ] && [ '$C_LENS' = '$( [ "$ok1" -gt 0 ] && echo 40,100 || echo 40)' ]"
# The dump of sample 1 as producer.h defines it: seq 0, cpu 0, len 40 (0x28), then
# byte i = i * 7 + 3 from i = 16 (0x73 0x7a 0x81 ...), then the kernel's padding.
t_check pipe_text_dump "sample 1 is not dumped as expected: $(sed -n 1,4p "$OUTF" | tr '\n' '/')" \
	bash -c "sed -n 1,3p '$OUTF' | diff -q - <(printf '%s\n' 'sample 1 cpu 0 size 44' \
		'00000000  00 00 00 00 00 00 00 00  00 00 00 00 28 00 00 00  |............(...|' \
		'00000010  73 7a 81 88 8f 96 9d a4  ab b2 b9 c0 c7 ce d5 dc  |sz..............|') >/dev/null &&
		sed -n 4p '$OUTF' | grep -q '^00000020  e3 ea f1 f8 ff 06 0d 14  .. .. .. ..              |............|\$'"
t_check pipe_text_summary "summary: $S_SAMPLES samples, $S_BYTES bytes, $S_LOST lost (want $((ok0 + ok1)), $((ok0 * 44 + ok1 * 100)), 0)" \
	bash -c "[ '$S_SAMPLES' = $((ok0 + ok1)) ] && [ '$S_BYTES' = $((ok0 * 44 + ok1 * 100)) ] && [ '$S_LOST' = 0 ] &&
		 grep -q '^  cpu 0: $ok0 samples ($((ok0 * 44)) bytes), 0 lost\$' '$ERRF'"

# --- (2) --json, by map id ---------------------------------------------------------

start_pipe json --map-id "$EV_ID" --json --wakeup-events 1
prod run 0 7 64
ok0=$OK
ok1=0
if [ "$NCPU" -ge 2 ]; then
	prod run 1 3 2000
	ok1=$OK
fi
# Delivered within --max-delay-ms (100) while running: wait for them, then stop.
wait_until 10 bash -c "[ \$(wc -l <'$OUTF') -ge $((ok0 + ok1)) ]"
end_pipe TERM
check_out json "$OUTF"
t_check pipe_json "--json by --map-id: exit $PIPE_RC, $C_SAMPLES samples ($C_CPU0 + $C_CPU1) for $ok0 + $ok1, sizes $C_SIZES, bad: $C_BAD $C_WHY" \
	bash -c "[ $PIPE_RC -eq 0 ] && [ '$C_BAD' = 0 ] && [ '$C_CPU0' = '$ok0' ] && [ '$C_CPU1' = '$ok1' ] && [ '$ok0' = 7 ] &&
		 grep -q 'stopped by SIGTERM' '$ERRF' && grep -q \"attached to map id $EV_ID \\\"events\\\", \" '$ERRF'"
t_check pipe_json_line "--json: first line '$(head -n 1 "$OUTF" | head -c 200)'" \
	bash -c "head -n 1 '$OUTF' | grep -qEx '\\{\"cpu\":0,\"size\":68,\"data\":\"[0-9a-f]{16}0000000040000000737a8188[0-9a-f]{96}\"\\}'"

# --- (3) --raw, with payloads that straddle the end of a 1-page ring ------------------

# 1016-byte records in a 4096-byte ring: three per round, read after each;
# rounds 2 and 3 each have a record that wraps (payload in two spans).
start_pipe raw --pin "$EV" --raw -b 1 --wakeup-events 1 -C 0
total=0
for round in 1 2 3; do
	prod run 0 3 1000
	total=$((total + OK))
	wait_until 10 bash -c "[ \$(stat -c %s '$OUTF') -ge $((total * 1012)) ]"
done
end_pipe INT
check_out raw "$OUTF"
t_check pipe_raw "--raw: exit $PIPE_RC, $C_SAMPLES samples for $total, lost $C_LOST, sizes $C_SIZES, $(stat -c %s "$OUTF") bytes; bad: $C_BAD $C_WHY" \
	bash -c "[ $PIPE_RC -eq 0 ] && [ '$total' = 9 ] && [ '$C_SAMPLES' = 9 ] && [ '$C_LOST' = 0 ] && [ '$C_BAD' = 0 ] &&
		 [ '$C_SIZES' = 1004 ] && [ \$(stat -c %s '$OUTF') = $((9 * 1012)) ]"

# --- (4) --cpu restricts the rings ------------------------------------------------

if [ "$NCPU" -ge 2 ]; then
	start_pipe cpus --pin "$EV" --json --cpu 1 --wakeup-events 1
	prod run 0 4 48
	e0=$ENOENT
	prod run 1 6 48
	ok1=$OK
	wait_until 10 bash -c "[ \$(wc -l <'$OUTF') -ge $ok1 ]"
	end_pipe INT
	check_out json "$OUTF"
	t_check pipe_cpus "--cpu 1: $C_CPU0 samples on cpu 0 (want 0; the producer saw $e0 with no ring), $C_CPU1 on cpu 1 (want $ok1 = 6); bad $C_BAD $C_WHY" \
		bash -c "[ $PIPE_RC -eq 0 ] && [ '$C_CPU0' = 0 ] && [ '$e0' = 4 ] && [ '$C_CPU1' = 6 ] && [ '$ok1' = 6 ] &&
			 [ '$C_BAD' = 0 ] && grep -q ': 1 ring (cpu 1) ' '$ERRF'"
else
	skip pipe_cpus "needs 2 CPUs"
fi

# --- (5) overflow: lost counts in the stream and the summary, received + lost == produced --

for fmt in text json raw; do
	args=()
	[ $fmt = json ] && args=(--json)
	[ $fmt = raw ] && args=(--raw)
	# No wakeup before 100000 records: the burst overflows the 1-page ring;
	# the 50 ms delay bound then delivers what fitted.
	start_pipe "lost_$fmt" --pin "$EV" "${args[@]}" -b 1 --wakeup-events 100000 --max-delay-ms 50 -C 0
	prod burst 0 300 1000
	ran=$RAN okb=$OK dropped=$ENOSPC
	wait_until 10 bash -c "python3 '$CHECK' $fmt '$OUTF' | awk '{exit !(\$1 >= $okb)}'"
	# The kernel reports the lost count in front of the next record that fits.
	prod run 0 1 1000
	ran=$((ran + RAN)) okb=$((okb + OK)) dropped=$((dropped + ENOSPC))
	wait_until 10 bash -c "python3 '$CHECK' $fmt '$OUTF' | awk '{exit !(\$2 > 0 && \$1 >= $okb)}'"
	end_pipe INT
	check_out $fmt "$OUTF"
	summary "$ERRF"
	t_check "pipe_lost_$fmt" "$fmt: produced $ran ($okb ok, $dropped dropped); output $C_SAMPLES samples, $C_LOST lost; summary $S_SAMPLES, $S_LOST lost; bad $C_BAD $C_WHY" \
		bash -c "[ $PIPE_RC -eq 0 ] && [ '$dropped' -gt 0 ] && [ '$C_LOST' = '$dropped' ] && [ '$C_SAMPLES' = '$okb' ] &&
			 [ '$S_LOST' = '$dropped' ] && [ '$S_SAMPLES' = '$okb' ] && [ $((C_SAMPLES + C_LOST)) = '$ran' ] && [ '$C_BAD' = 0 ]"
done
t_check pipe_lost_line "no 'LOST $dropped cpu 0' line in the text output" grep -q "^LOST [1-9][0-9]* cpu 0\$" "$T_TMP/lost_text.out"
t_check pipe_lost_json_line "no {\"cpu\":0,\"lost\":N} line in the JSON output" grep -qE '^\{"cpu":0,"lost":[1-9][0-9]*\}$' "$T_TMP/lost_json.out"

# --- (6) --count, --duration, --quiet ------------------------------------------------

start_pipe count --pin "$EV" --count 3 --wakeup-events 1
prod run 0 10 32
end_pipe
check_out text "$OUTF"
t_check pipe_count "--count 3: exit $PIPE_RC, $C_SAMPLES samples printed, stderr: $(head -c 300 "$ERRF")" \
	bash -c "[ $PIPE_RC -eq 0 ] && [ '$C_SAMPLES' = 3 ] && [ '$C_BAD' = 0 ] && grep -q '^perfring pipe: 3 samples (108 bytes), 0 lost, .*--count reached' '$ERRF'"

start=$(date +%s.%N)
start_pipe duration --pin "$EV" --duration 0.5 --wakeup-events 1
prod run 0 2 32
end_pipe
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b - a}')
check_out text "$OUTF"
t_check pipe_duration "--duration 0.5: exit $PIPE_RC after ${secs}s, $C_SAMPLES samples, stderr: $(head -c 300 "$ERRF")" \
	bash -c "[ $PIPE_RC -eq 0 ] && [ '$C_SAMPLES' = 2 ] && awk -v s=$secs 'BEGIN{exit !(s >= 0.5 && s < 3)}' &&
		 grep -q -- '--duration elapsed' '$ERRF'"

start_pipe quiet --pin "$EV" -q
prod run 0 4 24
end_pipe INT
summary "$ERRF"
t_check pipe_quiet "-q: exit $PIPE_RC, stdout $(stat -c %s "$OUTF") bytes (want 0), summary $S_SAMPLES samples (want 4)" \
	bash -c "[ $PIPE_RC -eq 0 ] && [ ! -s '$OUTF' ] && [ '$S_SAMPLES' = 4 ] && [ '$S_BYTES' = 112 ]"

# --- (7) stdout closed early (| head): exit 0, no crash, the summary says so ------------

rm -f "$T_TMP/head.rc"
{ "$PERFRING" pipe --pin "$EV" --wakeup-events 1 2>"$T_TMP/head.err"; echo $? >"$T_TMP/head.rc"; } | head -n 2 >"$T_TMP/head.out" &
head_pid=$!
wait_until 10 grep -qs '^perfring pipe: attached' "$T_TMP/head.err"
for i in $(seq 50); do
	prod run 0 20 200
	[ -s "$T_TMP/head.rc" ] && break
	sleep 0.05
done
wait_until 10 test -s "$T_TMP/head.rc"
t_check pipe_epipe "| head -n 2: exit '$(cat "$T_TMP/head.rc" 2>/dev/null)', $(wc -l <"$T_TMP/head.out") lines, stderr: $(head -c 300 "$T_TMP/head.err")" \
	bash -c "[ \"\$(cat '$T_TMP/head.rc')\" = 0 ] && [ \$(wc -l <'$T_TMP/head.out') = 2 ] &&
		 grep -q 'standard output was closed' '$T_TMP/head.err' && [ \$(wc -l <'$T_TMP/head.err') -le $((NCPU + 2)) ]"
wait "$head_pid"

# --- (8) maps that cannot be used: one line, exit 1 -------------------------------------

t_one_line_error pipe_no_such_id "no BPF map with id 4294967295" "$PERFRING" pipe --map-id 4294967295
t_one_line_error pipe_no_such_pin "${PIN}_nothing: no such file" "$PERFRING" pipe --pin "${PIN}_nothing"
t_one_line_error pipe_not_perf_array_pin "is a BPF_MAP_TYPE_ARRAY, not a BPF_MAP_TYPE_PERF_EVENT_ARRAY or BPF_MAP_TYPE_RINGBUF" "$PERFRING" pipe --pin "$SC"
t_one_line_error pipe_not_perf_array_id "map id $SC_ID (\"scratch\") is a BPF_MAP_TYPE_ARRAY, not a BPF_MAP_TYPE_PERF_EVENT_ARRAY" "$PERFRING" pipe --map-id "$SC_ID"
t_one_line_error pipe_pin_is_prog "is a BPF program, not a map" "$PERFRING" pipe --pin "$PG"
t_one_line_error pipe_pin_not_bpffs "not in a BPF file system" "$PERFRING" pipe --pin "$T_TMP"
t_one_line_error pipe_cpu_offline "CPU 4000 of -C 4000 is not online" "$PERFRING" pipe --pin "$EV" --cpu 4000
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PERFRING"; then
	asnobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
	t_one_line_error pipe_nobody_pin "run as root" "${asnobody[@]}" "$PERFRING" pipe --pin "$EV"
	t_one_line_error pipe_nobody_id "run as root" "${asnobody[@]}" "$PERFRING" pipe --map-id "$EV_ID"
else
	skip pipe_nobody "cannot run $PERFRING as user nobody (setpriv missing or the build directory is not accessible)"
fi

# The helper removes its pins when told to quit.
echo quit >&"$P_IN"
wait_until 10 bash -c "! kill -0 $HELPER_PID 2>/dev/null"
t_check pipe_helper_unpins "pins left behind: $(ls "$EV" "$SC" "$PG" 2>/dev/null)" \
	bash -c "[ ! -e '$EV' ] && [ ! -e '$SC' ] && [ ! -e '$PG' ]"

# --- (9) a BPF ring buffer (BPF_MAP_TYPE_RINGBUF): every record exact, lost counts from ---
# --- perfring_ringbuf.bpf.h's map, a bare ring buffer's losses unknown -------------------

RB="${PIN}_rb" RBARE="${PIN}_bare"
RB_HELPER="$PERFRING_BUILD/tests/helpers/pin_rb_producer"
cleanup_rb() {
	[ -n "${RB_PID:-}" ] && kill -TERM "$RB_PID" 2>/dev/null
	rm -f "$RB" "$RBARE"
	cleanup
}
trap cleanup_rb EXIT
coproc RBPROD { exec "$RB_HELPER" --rb "$RB" --bare "$RBARE" --size 16384 2>"$T_TMP/rbhelper.err"; }
P_IN=${RBPROD[1]} P_OUT=${RBPROD[0]} RB_PID=$RBPROD_PID
read -t 10 -r _ RB_ID <&"$P_OUT"
read -t 10 -r _ LOST_ID <&"$P_OUT"
read -t 10 -r ready <&"$P_OUT"
if [ "${ready:-}" != ready ] || [ ! -e "$RB" ]; then
	fail pipe_rb_helper "pin_rb_producer did not start: $(cat "$T_TMP/rbhelper.err")"
	t_finish
	exit 1
fi
# rbprod CMD...: sets RAN OK FAIL.
rbprod() {
	local line w
	echo "$*" >&"$P_IN"
	read -t 30 -r line <&"$P_OUT"
	read -r w RAN _ OK _ FAIL <<<"$line"
	[ "$w" = ran ] || { echo "pin_rb_producer: '$*' -> '$line'" >&2; RAN=0 OK=0 FAIL=0; }
}
export PIPE_CHECK_RINGBUF=1

start_pipe rb_text --pin "$RB" --max-delay-ms 20
t_check pipe_rb_attached "no ring buffer 'attached' line: $(head -c 300 "$ERRF")" grep -q "^perfring pipe: attached to map id $RB_ID \"rb\" (pinned at $RB), a BPF ring buffer of 16.0 KiB; lost records from map id $LOST_ID \"perfring_rb_lost\"\$" "$ERRF"
rbprod run 0 5 40
ok0=$OK
ok1=0
if [ "$NCPU" -ge 2 ]; then
	rbprod run 1 4 100
	ok1=$OK
fi
wait_until 10 bash -c "python3 '$CHECK' text '$OUTF' | awk '{exit !(\$1 >= $((ok0 + ok1)))}'"
end_pipe INT
check_out text "$OUTF"
summary "$ERRF"
t_check pipe_rb_text "ring buffer, text: exit $PIPE_RC, $C_SAMPLES samples for $ok0 + $ok1, sizes $C_SIZES; summary $S_SAMPLES $S_BYTES $S_LOST; bad: $C_BAD $C_WHY" \
	bash -c "[ $PIPE_RC -eq 0 ] && [ '$C_BAD' = 0 ] && [ '$C_SAMPLES' = $((ok0 + ok1)) ] && [ '$C_DUP' = 0 ] &&
		 [ '$S_SAMPLES' = $((ok0 + ok1)) ] && [ '$S_BYTES' = $((ok0 * 40 + ok1 * 100)) ] && [ '$S_LOST' = 0 ] &&
		 grep -q '^  ring buffer: $((ok0 + ok1)) samples ($((ok0 * 40 + ok1 * 100)) bytes), 0 lost\$' '$ERRF'"
t_check pipe_rb_text_dump "ring buffer sample 1 is not dumped exactly: $(sed -n 1,4p "$OUTF" | tr '\n' '/')" \
	bash -c "sed -n 1,4p '$OUTF' | diff -q - <(printf '%s\n' 'sample 1 cpu -1 size 40' \
		'00000000  00 00 00 00 00 00 00 00  00 00 00 00 28 00 00 00  |............(...|' \
		'00000010  73 7a 81 88 8f 96 9d a4  ab b2 b9 c0 c7 ce d5 dc  |sz..............|' \
		'00000020  e3 ea f1 f8 ff 06 0d 14                           |........|') >/dev/null"

for fmt in json raw; do
	start_pipe "rb_lost_$fmt" --map-id "$RB_ID" --$fmt --max-delay-ms 20
	rbprod burst 0 300 1000
	ran=$RAN okb=$OK dropped=$FAIL
	wait_until 10 bash -c "python3 '$CHECK' $fmt '$OUTF' | awk '{exit !(\$1 >= $okb)}'"
	end_pipe INT
	check_out $fmt "$OUTF"
	summary "$ERRF"
	t_check "pipe_rb_lost_$fmt" "ring buffer, $fmt: produced $ran ($okb ok, $dropped failed); output $C_SAMPLES samples, $C_LOST lost; summary $S_SAMPLES, $S_LOST lost; bad $C_BAD $C_WHY" \
		bash -c "[ $PIPE_RC -eq 0 ] && [ '$dropped' -gt 0 ] && [ '$C_LOST' = '$dropped' ] && [ '$C_SAMPLES' = '$okb' ] &&
			 [ '$S_LOST' = '$dropped' ] && [ $((C_SAMPLES + C_LOST)) = '$ran' ] && [ '$C_BAD' = 0 ]"
done
t_check pipe_rb_lost_json_line "no {\"cpu\":-1,\"lost\":N} line in the JSON output" grep -qE '^\{"cpu":-1,"lost":[1-9][0-9]*\}$' "$T_TMP/rb_lost_json.out"

start_pipe rb_bare --pin "$RBARE" --duration 0.2
end_pipe
t_check pipe_rb_bare_unknown "a bare ring buffer: exit $PIPE_RC, stderr: $(head -c 400 "$ERRF")" \
	bash -c "[ $PIPE_RC -eq 0 ] && grep -q 'a BPF ring buffer of 4.0 KiB; lost records unknown' '$ERRF' &&
		 grep -q '^  ring buffer: 0 samples (0 bytes), 0 lost (unknown: no lost map)\$' '$ERRF'"
t_one_line_error pipe_rb_cpus "-C/--cpu applies to perf event arrays" "$PERFRING" pipe --pin "$RB" -C 0
unset PIPE_CHECK_RINGBUF
echo quit >&"$P_IN"
wait_until 10 bash -c "! kill -0 $RB_PID 2>/dev/null"
t_check pipe_rb_helper_unpins "pins left behind: $(ls "$RB" "$RBARE" 2>/dev/null)" bash -c "[ ! -e '$RB' ] && [ ! -e '$RBARE' ]"

t_finish
