#!/usr/bin/env bash
# Porting from libbpf, for both of its readers:
#  - examples/opensnoop_libbpf.c (a libbpf-tools style tool on libbpf's perf_buffer) and
#    examples/opensnoop_perfring.c (its perfring port);
#  - examples/opensnoop_rb_libbpf.c (the same tool on a BPF ring buffer with libbpf's
#    ring_buffer: new, poll, consume, free) and examples/opensnoop_rb_perfring.c (its port).
# For each pair:
#  - the port is mechanical: the libbpf file with the include added and the reader's type and
#    calls renamed IS the perfring file, byte for byte (handlers, arguments, error handling and
#    the loop stay as they are);
#  - both built -Werror (libbpf's handler types are taken unchanged).
# Then all four run side by side on one workload (cat of 20 distinctive paths): they print the
# same lines, every one of the 20, and nothing lost.
. "$(dirname "$0")/lib.sh"

# check_port NAME LIBBPF_SRC PERFRING_SRC LINES SED-EXPRESSIONS...: the perfring file is the
# libbpf file with the include added and the renames applied, LINES lines changed in all.
check_port() {
	local name=$1 src_libbpf=$2 src_perfring=$3 want=$4 changed src n
	shift 4
	sed -e 's|^#include <bpf/libbpf.h>$|&\n#include <perfring/perfring.h>|' "$@" "$src_libbpf" >"$T_TMP/ported.c"
	if cmp -s "$T_TMP/ported.c" "$src_perfring"; then
		ok "${name}_port_is_the_renames"
	else
		fail "${name}_port_is_the_renames" "$(basename "$src_perfring") differs from $(basename "$src_libbpf") beyond the include and the renames"
		diff "$T_TMP/ported.c" "$src_perfring" | t_show /dev/stdin
	fi
	changed=$(diff "$src_libbpf" "$src_perfring" | grep -c '^>')
	t_check "${name}_port_${want}_lines" "the port changes $changed lines, not $want (the include and the renames)" \
		[ "$changed" -eq "$want" ]
	# -Werror with the project's warnings: the handlers keep libbpf's exact types.
	for src in "$src_libbpf" "$src_perfring"; do
		n=$(basename "$src" .c)
		if cc -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -fsyntax-only -I"$T_ROOT/include" \
			-I"$PERFRING_BUILD/bpf" "$src" 2>"$T_TMP/werror.err"; then
			ok "werror_$n"
		else
			fail "werror_$n" "$src does not compile with -Werror"
			t_show "$T_TMP/werror.err"
		fi
	done
}

# --- the source diffs ----------------------------------------------------------------

# perf_buffer: include, type, constructor, poll, free.
check_port perf_buffer "$T_ROOT/examples/opensnoop_libbpf.c" "$T_ROOT/examples/opensnoop_perfring.c" 5 \
	-e 's|struct perf_buffer \*|struct perfring_reader *|' \
	-e 's|perf_buffer__new(|perfring_reader_new_perf_buffer(|' \
	-e 's|perf_buffer__poll(|perfring_reader_poll_ms(|' \
	-e 's|perf_buffer__free(|perfring_reader_free(|'
# ring_buffer: include, type, constructor, poll, consume, free.
check_port ring_buffer "$T_ROOT/examples/opensnoop_rb_libbpf.c" "$T_ROOT/examples/opensnoop_rb_perfring.c" 6 \
	-e 's|struct ring_buffer \*|struct perfring_reader *|' \
	-e 's|ring_buffer__new(|perfring_reader_new_ring_buffer(|' \
	-e 's|ring_buffer__poll(|perfring_reader_poll_ms(|' \
	-e 's|ring_buffer__consume(|perfring_reader_consume_cb(|' \
	-e 's|ring_buffer__free(|perfring_reader_free(|'

# --- the same events from all four ----------------------------------------------------

PROGS="opensnoop_libbpf opensnoop_perfring opensnoop_rb_libbpf opensnoop_rb_perfring"
for p in $PROGS; do
	if [ ! -x "$PERFRING_BUILD/examples/$p" ]; then
		fail examples_built "$PERFRING_BUILD/examples/$p is missing (make builds it)"
		t_finish
		exit 1
	fi
done
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
declare -A pid
for p in $PROGS; do
	"$PERFRING_BUILD/examples/$p" -d 30 -f "$marker" >"$T_TMP/$p.out" 2>"$T_TMP/$p.err" &
	pid[$p]=$!
done
# Ready once each printed its header (attached, reader set up).
for _ in $(seq 100); do
	ready=0
	for p in $PROGS; do [ -s "$T_TMP/$p.out" ] && ready=$((ready + 1)); done
	[ "$ready" -eq 4 ] && break
	sleep 0.1
done
for i in $(seq 20); do
	cat "$marker-$i" 2>/dev/null
done
# They poll every 100 ms with a wakeup per record: give them a second, then SIGINT.
sleep 1
for p in $PROGS; do kill -INT "${pid[$p]}"; done
rcs="" bad_rc=0
for p in $PROGS; do
	wait "${pid[$p]}"
	rc=$?
	rcs="$rcs $p=$rc"
	[ "$rc" -eq 0 ] || bad_rc=1
done
t_check all_exit_0 "exit codes:$rcs" [ "$bad_rc" -eq 0 ]
for p in $PROGS; do
	grep -F -- "$marker" "$T_TMP/$p.out" | sort >"$T_TMP/$p.lines"
done
# The libbpf perf_buffer original is the reference: 20 lines, and the other three print them.
n_ref=$(wc -l <"$T_TMP/opensnoop_libbpf.lines")
t_check reference_20_lines "libbpf's perf_buffer opensnoop printed $n_ref lines, not 20" [ "$n_ref" -eq 20 ]
for p in opensnoop_perfring opensnoop_rb_libbpf opensnoop_rb_perfring; do
	if cmp -s "$T_TMP/opensnoop_libbpf.lines" "$T_TMP/$p.lines"; then
		ok "same_events_$p"
	else
		fail "same_events_$p" "$p printed $(wc -l <"$T_TMP/$p.lines") lines, not opensnoop_libbpf's $n_ref"
		diff "$T_TMP/opensnoop_libbpf.lines" "$T_TMP/$p.lines" | t_show /dev/stdin
		t_show "$T_TMP/$p.err" 5
	fi
done
# Every path, once each, with the pid and comm of its cat, from both ports.
for p in opensnoop_perfring opensnoop_rb_perfring; do
	missing=0
	for i in $(seq 20); do
		[ "$(grep -c -- " cat  *$marker-$i\$" "$T_TMP/$p.lines")" -eq 1 ] || missing=$((missing + 1))
	done
	t_check "every_path_once_$p" "$missing of the 20 paths not printed exactly once by $p" [ "$missing" -eq 0 ]
done
errs=""
for p in $PROGS; do errs="$errs $T_TMP/$p.err"; done
# shellcheck disable=SC2086
t_check nothing_lost "a lost notice or error: $(cat $errs | head -n 2)" bash -c "! grep -qiE 'lost|error' $errs"
t_finish
