#!/usr/bin/env bash
# `perfring script`'s perf habits against `perf script` on files perf records here (call
# chains of shells, ls and sym_target; a tracepoint beside cpu-clock): the filters --comm,
# --pid, --tid, -S/--symbols (the sample's own function), the times --ns, --reltime and
# --deltatime (counted from the samples shown, after the filters), -f; every line equals
# perf's. Bad values are usage errors, and none of them goes with --dump.
. "$(dirname "$0")/lib.sh"

. "$T_ROOT/tests/helpers/perf_oracle.sh"

G="$T_TMP/g.data" M="$T_TMP/mixed.data"
perf_record -q -g -e cpu-clock -c 100000 -o "$G" -- sh -c "ls / >/dev/null; $TARGET spin 1" >/dev/null \
	2>"$T_TMP/rec.err" || fail record_g "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
perf_record_mixed "$M"

# same NAME FILE ARGS...: perfring script ARGS and perf script ARGS print the same lines (some).
same() {
	local name=$1 f=$2
	shift 2
	[ -s "$f" ] || return 0
	perf script -i "$f" "$@" >"$T_TMP/perf.out" 2>/dev/null
	t_run "$T_TMP/pr.out" "$T_TMP/pr.err" "$PERFRING" script -i "$f" "$@"
	t_same_output "$name" "script $*" "$T_TMP/perf.out" "$T_TMP/pr.out" "$T_TMP/pr.err"
}

for f in G M; do
	file=${!f}
	[ -s "$file" ] || continue
	pid=$(perf script -i "$file" -F comm,pid 2>/dev/null | awk '$1 == "sym_target" { print $2; exit }')
	# sym_target's hottest named function, as perf report names it
	sym=$(perf report -i "$file" --stdio -q --no-children -g none --comm sym_target --sort sym 2>/dev/null |
		awk '$2 == "[.]" && $3 !~ /^0x/ { print $3; exit }')
	t_check "${f}_found" "sym_target's pid '$pid', a function '$sym'" [ -n "$pid" -a -n "$sym" ]
	same "${f}_ns" "$file" --ns
	same "${f}_comm_reltime_ns" "$file" --comm sym_target --reltime --ns
	same "${f}_symbols" "$file" -S "$sym"
	# the rest on the call-chain file alone (the tracepoint file's lines add no case)
	[ "$f" = G ] || continue
	same "${f}_reltime" "$file" --reltime
	same "${f}_deltatime" "$file" --deltatime
	same "${f}_comm" "$file" --comm ls,sh
	same "${f}_pid" "$file" --pid "$pid"
	same "${f}_tid_deltatime" "$file" --tid "$pid" --deltatime
	same "${f}_symbols_long" "$file" --symbols "$sym,main"
	same "${f}_force" "$file" -f --comm ls
	# the filters keep something, and not everything
	all=$(perf script -i "$file" -F comm 2>/dev/null | wc -l)
	some=$("$PERFRING" script -i "$file" -F comm --comm ls 2>/dev/null | wc -l)
	t_check "${f}_filter_keeps_some" "--comm ls: $some of $all lines" [ "$some" -gt 0 -a "$some" -lt "$all" ]
done

if [ -s "$G" ]; then
	# The exports take the samples the filters keep.
	"$PERFRING" script -i "$G" --comm ls --folded - >"$T_TMP/ls.folded" 2>/dev/null
	n=$(grep -vc '^ls;' "$T_TMP/ls.folded")
	m=$(awk '{ s += $NF } END { print s + 0 }' "$T_TMP/ls.folded")
	want=$(perf script -i "$G" -F comm --comm ls 2>/dev/null | wc -l)
	t_check export_filtered "folded: $n stacks of other commands, $m samples (perf script: $want of ls)" \
		[ "$n" -eq 0 -a "$m" -eq "$want" -a "$want" -gt 0 ]
	t_usage_error bad_pid "is not a comma-separated list of numbers" script -i "$G" --pid 1x
	t_usage_error bad_tid "is not a comma-separated list of numbers" script -i "$G" --tid 1,
	t_usage_error rel_delta "do not go together" script -i "$G" --reltime --deltatime
	t_usage_error dump_filter "do not go with --dump" script -i "$G" --dump --comm ls
	t_usage_error dump_ns "do not go with --dump" script -i "$G" --dump --ns
fi
t_finish
