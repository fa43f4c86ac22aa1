#!/usr/bin/env bash
# Porting from libbpf: examples/opensnoop_libbpf.c (a libbpf-tools style tool on libbpf's
# perf_buffer) and examples/opensnoop_perfring.c (its perfring port).
#  - the port is mechanical: the libbpf file with the include added and the reader's type,
#    constructor, poll call and free renamed IS the perfring file, byte for byte (handlers,
#    arguments, error handling and the loop stay as they are);
#  - both built -Werror (libbpf's handler types are taken unchanged);
#  - run side by side on one workload (cat of 20 distinctive paths), both print the same lines,
#    every one of the 20, and nothing lost.
. "$(dirname "$0")/lib.sh"

SRC_LIBBPF="$T_ROOT/examples/opensnoop_libbpf.c"
SRC_PERFRING="$T_ROOT/examples/opensnoop_perfring.c"
BIN_LIBBPF="$PERFRING_BUILD/examples/opensnoop_libbpf"
BIN_PERFRING="$PERFRING_BUILD/examples/opensnoop_perfring"

# --- the source diff ---------------------------------------------------------------

sed -e 's|^#include <bpf/libbpf.h>$|&\n#include <perfring/perfring.h>|' \
	-e 's|struct perf_buffer \*|struct perfring_reader *|' \
	-e 's|perf_buffer__new(|perfring_reader_new_perf_buffer(|' \
	-e 's|perf_buffer__poll(|perfring_reader_poll_ms(|' \
	-e 's|perf_buffer__free(|perfring_reader_free(|' "$SRC_LIBBPF" >"$T_TMP/ported.c"
if cmp -s "$T_TMP/ported.c" "$SRC_PERFRING"; then
	ok port_is_the_renames
else
	fail port_is_the_renames "opensnoop_perfring.c differs from opensnoop_libbpf.c beyond the include, type, constructor, poll and free"
	diff "$T_TMP/ported.c" "$SRC_PERFRING" | t_show /dev/stdin
fi
changed=$(diff "$SRC_LIBBPF" "$SRC_PERFRING" | grep -c '^>')
t_check port_five_lines "the port changes $changed lines, not 5 (include, type, constructor, poll, free)" \
	[ "$changed" -eq 5 ]

# -Werror with the project's warnings: the handlers keep libbpf's exact types.
for src in "$SRC_LIBBPF" "$SRC_PERFRING"; do
	n=$(basename "$src" .c)
	if cc -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -fsyntax-only -I"$T_ROOT/include" \
		-I"$PERFRING_BUILD/bpf" "$src" 2>"$T_TMP/werror.err"; then
		ok "werror_$n"
	else
		fail "werror_$n" "$src does not compile with -Werror"
		t_show "$T_TMP/werror.err"
	fi
done

# --- the same events from both -------------------------------------------------------

if [ ! -x "$BIN_LIBBPF" ] || [ ! -x "$BIN_PERFRING" ]; then
	fail examples_built "$BIN_LIBBPF or $BIN_PERFRING is missing (make builds them)"
	t_finish
	exit 1
fi
if ! t_need_root; then
	skip same_events "needs root (BPF programs, tracepoints)"
	t_finish
	exit $?
fi
# libbpf attaches the tracepoint by its id under tracefs (or debugfs/tracing when that exists).
if [ ! -d /sys/kernel/debug/tracing/events ] && ! t_ensure_fs tracefs /sys/kernel/tracing; then
	skip same_events "$T_FS_WHY"
	t_finish
	exit $?
fi

marker="$T_TMP/opensnoop-port"
"$BIN_LIBBPF" -d 30 -f "$marker" >"$T_TMP/libbpf.out" 2>"$T_TMP/libbpf.err" &
pid_libbpf=$!
"$BIN_PERFRING" -d 30 -f "$marker" >"$T_TMP/perfring.out" 2>"$T_TMP/perfring.err" &
pid_perfring=$!
# Ready once each printed its header (attached, reader set up).
for _ in $(seq 100); do
	[ -s "$T_TMP/libbpf.out" ] && [ -s "$T_TMP/perfring.out" ] && break
	sleep 0.1
done
for i in $(seq 20); do
	cat "$marker-$i" 2>/dev/null
done
# Both poll every 100 ms with a wakeup per record: give them a second, then SIGINT.
sleep 1
kill -INT "$pid_libbpf" "$pid_perfring"
wait "$pid_libbpf"
rc_libbpf=$?
wait "$pid_perfring"
rc_perfring=$?

t_check both_exit_0 "exit codes: libbpf $rc_libbpf, perfring $rc_perfring" \
	bash -c "[ $rc_libbpf -eq 0 ] && [ $rc_perfring -eq 0 ]"
grep -F -- "$marker" "$T_TMP/libbpf.out" | sort >"$T_TMP/libbpf.lines"
grep -F -- "$marker" "$T_TMP/perfring.out" | sort >"$T_TMP/perfring.lines"
n_libbpf=$(wc -l <"$T_TMP/libbpf.lines")
n_perfring=$(wc -l <"$T_TMP/perfring.lines")
if [ "$n_libbpf" -eq 20 ] && cmp -s "$T_TMP/libbpf.lines" "$T_TMP/perfring.lines"; then
	ok same_events
else
	fail same_events "libbpf printed $n_libbpf lines, perfring $n_perfring (want the same 20)"
	diff "$T_TMP/libbpf.lines" "$T_TMP/perfring.lines" | t_show /dev/stdin
	t_show "$T_TMP/libbpf.err" 5
	t_show "$T_TMP/perfring.err" 5
fi
# Every path, once each, with the pid and comm of its cat.
missing=0
for i in $(seq 20); do
	[ "$(grep -c -- " cat  *$marker-$i\$" "$T_TMP/perfring.lines")" -eq 1 ] || missing=$((missing + 1))
done
t_check every_path_once "$missing of the 20 paths not printed exactly once by the port" [ "$missing" -eq 0 ]
t_check nothing_lost "a lost notice: $(cat "$T_TMP/libbpf.err" "$T_TMP/perfring.err" | head -n 2)" \
	bash -c "! grep -q lost '$T_TMP/libbpf.err' '$T_TMP/perfring.err'"
t_finish
