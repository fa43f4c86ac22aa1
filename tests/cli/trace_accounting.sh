#!/usr/bin/env bash
# `perfring trace`: its figures agree with each other and with what the
# traced program did.
# - Losses forced (the smallest ring, a reader woken only by the kernel's
#   half-ring watermark, a producer making a known number N of getppid calls
#   as fast as it can): the program traced exactly N; traced = received + lost
#   in all and on each CPU, the per-CPU lines add up to the totals, the lost
#   figure's parts add up to it, the events printed are the events received,
#   and the lost lines of the output (text and JSON) add up to the summary's
#   lost. The same equation through --ringbuf.
# - A file name the program cannot read (in a mapped file page the process
#   never touched, so bpf_probe_read_user_str() fails at sys_enter while the
#   kernel's own copy faults it in): shown as null / ? with the event's unread
#   count, never as an address, and counted in the summary; an ordinary
#   openat's name beside it still decoded.
. "$(dirname "$0")/lib.sh"

t_require_tool
if ! t_need_root; then
	skip trace_accounting "perfring trace needs root (BPF, tracefs)"
	t_finish
	exit $?
fi

cat >"$T_TMP/storm.c" <<'EOF'
/* argv[1] getppid() calls, as fast as possible: a known number of events. */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 0;

	for (i = 0; i < n; i++)
		getppid();
	return 0;
}
EOF
cat >"$T_TMP/unread.c" <<'EOF'
/*
 * openat() of a name the BPF program cannot read: argv[1] is a file holding
 * it; it is mapped and never touched, so its page is not in the page table
 * at sys_enter (bpf_probe_read_user_str() does not fault; the kernel's own
 * copy then does). Then an ordinary openat() of argv[2]. Writes to stderr.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd, a, b;
	const char *name;

	if (argc < 3 || (fd = open(argv[1], O_RDONLY)) < 0)
		return 2;
	name = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (name == MAP_FAILED)
		return 2;
	a = (int)syscall(SYS_openat, AT_FDCWD, name, O_RDONLY);
	b = (int)syscall(SYS_openat, AT_FDCWD, argv[2], O_RDONLY);
	fprintf(stderr, "unread-helper %p %d %d\n", (void *)name, a, b);
	return a < 0 || b < 0;
}
EOF
if ! cc -O2 -o "$T_TMP/storm" "$T_TMP/storm.c" || ! cc -O2 -o "$T_TMP/unread" "$T_TMP/unread.c"; then
	fail helpers_build "cc could not build the helpers"
	t_finish
	exit 1
fi

# check_accounting NAME ERR N: the summary in ERR adds up, and traced is N.
# Sets events and lost (the summary's) for the caller.
check_accounting() {
	local name=$1 err=$2 n=$3 traced recv tlost parts rep end
	events=$(sed -n 's/^summary: \([0-9]*\) events, \([0-9]*\) lost, .*/\1/p' "$err")
	lost=$(sed -n 's/^summary: \([0-9]*\) events, \([0-9]*\) lost, .*/\2/p' "$err")
	read -r traced recv tlost <<<"$(sed -n 's/^  traced: \([0-9]*\) events = \([0-9]*\) received + \([0-9]*\) lost$/\1 \2 \3/p' "$err")"
	t_check "${name}_traced_n" "traced '$traced', want $n (the producer's calls): $(grep -E '^summary|^  traced' "$err" | tr '\n' '/')" \
		[ "${traced:-x}" = "$n" ]
	t_check "${name}_adds_up" "traced $traced != received $recv + lost $tlost, or not the summary's $events and $lost" \
		bash -c "[ -n '$traced' ] && [ \$(($recv + $tlost)) = '$traced' ] && [ '$recv' = '$events' ] && [ '$tlost' = '$lost' ]"
	# lost: L = A ring full [+ B ...]; K reported while tracing (LOST), U counted at the end
	parts=$(sed -n 's/^  lost: [0-9]* = \(.*\); [0-9]* reported while tracing (LOST), [0-9]* counted at the end$/\1/p' "$err" |
		grep -oE '[0-9]+' | awk '{s += $1} END {print s + 0}')
	read -r rep end <<<"$(sed -n 's/^  lost: .*; \([0-9]*\) reported while tracing (LOST), \([0-9]*\) counted at the end$/\1 \2/p' "$err")"
	t_check "${name}_lost_parts" "the causes of the loss add up to $parts, reported $rep + at the end $end, not $lost: $(grep '^  lost:' "$err")" \
		bash -c "[ '$parts' = '$lost' ] && [ \$((${rep:-0} + ${end:-0})) = '$lost' ]"
	# The CPUs: each adds up, and together they are the totals.
	t_check "${name}_per_cpu" "per-CPU lines: $(grep '^  cpu ' "$err" | tr '\n' '/')" \
		awk -v t="$traced" -v r="$recv" -v l="$tlost" '
			/^  cpu [0-9]+: [0-9]+ traced = [0-9]+ received \+ [0-9]+ lost/ {
				n++; st += $3; sr += $6; sl += $9; if ($3 != $6 + $9) bad = 1 }
			END { exit !(n > 0 && !bad && st == t && sr == r && sl == l) }' "$err"
	t_check "${name}_program_sent" "program line: $(grep '^  program:' "$err")" \
		grep -qE "^  program: $events sent, [0-9]+ not sent \(ring full\), 0 truncated$" "$err"
}

N=100000
ring=(-b 8 --wakeup-events 1000000 --max-delay-ms 0)

# --- losses forced: text ------------------------------------------------------
t_run "$T_TMP/t.out" "$T_TMP/t.err" timeout 60 "$PERFRING" trace -e syscalls:sys_enter_getppid "${ring[@]}" -- "$T_TMP/storm" "$N"
t_check lost_text_exit "exit $T_RC: $(head -c 300 "$T_TMP/t.err")" [ "$T_RC" -eq 0 ]
check_accounting lost_text "$T_TMP/t.err" "$N"
t_check lost_text_forced "no loss with a 32 KiB ring and $N events: $(grep '^summary' "$T_TMP/t.err")" [ "${lost:-0}" -gt 0 ]
lines=$(grep -cE '^ +[0-9]+\.[0-9]+ +[0-9]+ storm ' "$T_TMP/t.out")
llost=$(awk '$5 == "LOST" {s += $6} END {print s + 0}' "$T_TMP/t.out")
t_check lost_text_lines "$lines event lines and $llost in LOST lines; the summary: $events events, $lost lost" \
	bash -c "[ '$lines' = '$events' ] && [ '$llost' = '$lost' ]"

# --- losses forced: JSON ------------------------------------------------------
t_run "$T_TMP/j.out" "$T_TMP/j.err" timeout 60 "$PERFRING" trace -j -e syscalls:sys_enter_getppid "${ring[@]}" -- "$T_TMP/storm" "$N"
t_check lost_json_exit "exit $T_RC: $(head -c 300 "$T_TMP/j.err")" [ "$T_RC" -eq 0 ]
check_accounting lost_json "$T_TMP/j.err" "$N"
jsum=$(python3 -c '
import json, sys
ev = lost = 0
for ln in open(sys.argv[1]):
    o = json.loads(ln)
    if "lost" in o:
        lost += o["lost"]
    elif o.get("event") == "syscalls:sys_enter_getppid":
        ev += 1
print(ev, lost)' "$T_TMP/j.out" 2>&1)
t_check lost_json_objects "JSON: events and lost '$jsum', the summary: $events $lost" [ "$jsum" = "$events $lost" ]

# --- the same equation through the BPF ring buffer ------------------------------
t_run "$T_TMP/r.out" "$T_TMP/r.err" timeout 60 "$PERFRING" trace -q --ringbuf -b 8 -e syscalls:sys_enter_getppid -- "$T_TMP/storm" "$N"
t_check lost_ringbuf_exit "exit $T_RC: $(head -c 300 "$T_TMP/r.err")" [ "$T_RC" -eq 0 ]
check_accounting lost_ringbuf "$T_TMP/r.err" "$N"

# --- losses no LOST record reports: the reader stopped (SIGSTOP) while the
# producer runs, so its ring fills and stays full to the end; the kernel never
# gets to write a LOST record, and the summary counts all of it at the end.
rm -f "$T_TMP/go" "$T_TMP/done"
"$PERFRING" trace -e syscalls:sys_enter_getppid -b 8 -- sh -c \
	"while [ ! -e '$T_TMP/go' ]; do sleep 0.01; done; '$T_TMP/storm' $N; touch '$T_TMP/done'" \
	>"$T_TMP/s.out" 2>"$T_TMP/s.err" &
tpid=$!
for _ in $(seq 600); do
	grep -q '^perfring trace: ' "$T_TMP/s.err" && break
	sleep 0.05
done
kill -STOP "$tpid"
touch "$T_TMP/go"
for _ in $(seq 1200); do
	[ -e "$T_TMP/done" ] && break
	sleep 0.05
done
kill -CONT "$tpid"
wait "$tpid"
rc=$?
read -r lost rep end <<<"$(sed -n 's/^  lost: \([0-9]*\) = .*; \([0-9]*\) reported while tracing (LOST), \([0-9]*\) counted at the end$/\1 \2 \3/p' "$T_TMP/s.err")"
llost=$(grep -E ' LOST +[0-9]+ events lost \(counted at the end by the program' "$T_TMP/s.out" | awk '{s += $6} END {print s + 0}')
t_check lost_at_end "exit $rc; lost '$lost', reported '$rep', at the end '$end' (want all at the end), in end LOST lines $llost: $(grep -E '^summary|^  (lost|traced|cpu)' "$T_TMP/s.err" | tr '\n' '/')" \
	bash -c "[ $rc -eq 0 ] && [ -e '$T_TMP/done' ] && [ '${lost:-0}' -gt 0 ] && [ '$rep' = 0 ] && [ '$end' = '$lost' ] && [ '$llost' = '$lost' ] &&
		grep -qE '^  traced: [0-9]+ events = [0-9]+ received \+ $lost lost$' '$T_TMP/s.err'"

# --- a user string the program cannot read ---------------------------------------
TARGET="$T_TMP/unread-target"
echo hi >"$TARGET"
printf '%s\0' "$TARGET" >"$T_TMP/name.bin"
for mode in json text; do
	args=()
	[ $mode = json ] && args=(-j)
	t_run "$T_TMP/u.$mode" "$T_TMP/u.$mode.err" timeout 60 "$PERFRING" trace "${args[@]}" -e syscalls:sys_enter_openat -- \
		"$T_TMP/unread" "$T_TMP/name.bin" "$TARGET"
	t_check "unread_${mode}_exit" "exit $T_RC: $(head -c 300 "$T_TMP/u.$mode.err")" \
		bash -c "[ $T_RC -eq 0 ] && grep -q '^unread-helper 0x[0-9a-f]* [0-9]* [0-9]*$' '$T_TMP/u.$mode.err'"
done
# JSON: the helper's two opens of TARGET (by the untouched page, then by
# argv[2]): the first null with "unread":1, the second the name; no string
# field holds an address; the summary counts the unread ones.
res=$(python3 -c '
import json, re, sys
target, path = sys.argv[1], sys.argv[2]
names, unread, ptrs = [], 0, 0
for ln in open(path):
    o = json.loads(ln)
    if o.get("event") != "syscalls:sys_enter_openat":
        continue
    f = o["fields"]["filename"]
    if f is not None and re.fullmatch(r"0x[0-9a-f]+", f):
        ptrs += 1
    unread += o.get("unread", 0)
    if o["comm"] == "unread" and (f is None or f == target):
        names.append("null/%d" % o.get("unread", 0) if f is None else "name")
print(" ".join(names), "|", unread, ptrs)' "$TARGET" "$T_TMP/u.json" 2>&1)
nunread=$(sed -n 's/^  strings: \([0-9]*\) could not be read at the event .*/\1/p' "$T_TMP/u.json.err")
t_check unread_json_null "the two opens of the target: '$res' (want 'null/1 name | U 0')" \
	bash -c "[[ '$res' == 'null/1 name | '[0-9]*' 0' ]]"
t_check unread_json_counted "the summary's unread strings '$nunread', the events' '$res'" \
	bash -c "[ -n '$nunread' ] && [ '$nunread' -ge 1 ] && [[ '$res' == *'| $nunread 0' ]]"
t_check unread_text "text: the unread name is not '?' with '(1 string unread)', or an address is shown: $(grep ' unread ' "$T_TMP/u.text" | grep sys_enter_openat | tail -n 3 | tr '\n' '/')" \
	bash -c "grep -qE ' unread +[0-9]+ sys_enter_openat .* filename=\\? flags=0 mode=[0-9]+ \\(1 string unread\\)$' '$T_TMP/u.text' &&
		grep -qE ' unread +[0-9]+ sys_enter_openat .* filename=$TARGET flags=0 mode=[0-9]+$' '$T_TMP/u.text' &&
		! grep -qE ' filename=0x[0-9a-f]+ ' '$T_TMP/u.text' &&
		grep -qE '^  strings: [1-9][0-9]* could not be read at the event' '$T_TMP/u.text.err'"
t_finish
