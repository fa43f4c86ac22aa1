#!/usr/bin/env bash
# `perfring report`'s perf options against `perf report --stdio` on files perf
# records here (a tracepoint beside cpu-clock; cpu-clock of a program without
# call chains): -n (the Samples column), --show-total-period (Period), -f, -q (no header),
# --stdio (accepted),
# --comm/--pid/--tid/--dso/--symbols (only those samples; a one-item list of a
# sort key hides that column and names it in the header, "# comm: sh") and
# --percentage absolute|relative, event groups, --sort cpu, --cpu; the header lines (samples,
# event count, columns) and every entry line equal perf's. --dso and --symbols keep or drop
# whole entries by the sample that made them (its own frame: in children mode the callers'
# entries too), also where the filtered key is no sort key, with and without children, on a
# recording with call chains. The exports take the same samples; bad values are usage errors.
. "$(dirname "$0")/lib.sh"

. "$T_ROOT/tests/helpers/perf_oracle.sh"

M="$T_TMP/mixed.data" C="$T_TMP/plain.data"
perf_record_mixed "$M"
perf_record -q -e cpu-clock -c 100000 -o "$C" -- sh -c "ls / >/dev/null; $TARGET spin 1" >/dev/null 2>"$T_TMP/rec.err" ||
	fail record_plain "perf record failed: $(head -c 300 "$T_TMP/rec.err")"

lines() {
	grep -E '^ +[0-9.]+%|^# (Overhead|Children|Samples|Event|comm:|dso:|symbol:)' | sed 's/ *$//'
}
# same NAME FILE ARGS...: perfring report ARGS and perf report --stdio ARGS print the same lines.
same() {
	local name=$1 f=$2
	shift 2
	[ -s "$f" ] || return 0
	perf report -i "$f" --stdio "$@" 2>/dev/null | lines >"$T_TMP/perf.out"
	t_run "$T_TMP/pr.raw" "$T_TMP/pr.err" "$PERFRING" report -i "$f" "$@"
	lines <"$T_TMP/pr.raw" >"$T_TMP/pr.out"
	t_same_output "$name" "report $*" "$T_TMP/perf.out" "$T_TMP/pr.out" "$T_TMP/pr.err" "${SAME_WANT:-%}"
}

for f in M C; do
	file=${!f}
	same "${f}_stdio" "$file" --stdio --sort comm,dso
	same "${f}_nr_samples" "$file" -n --sort comm,dso,sym
	same "${f}_total_period" "$file" --show-total-period --sort comm,dso
	same "${f}_samples_period_force" "$file" -f -n --show-total-period --sort dso,sym
	same "${f}_comm" "$file" --sort comm,dso --comm sh,ls
	same "${f}_comm_one" "$file" --sort comm,sym --comm ls
	same "${f}_comm_relative" "$file" --sort comm,sym --comm ls --percentage relative
	same "${f}_comm_absolute" "$file" --sort comm,sym --comm sh,ls --percentage absolute
	same "${f}_dso" "$file" --sort comm,dso --dso '[kernel.kallsyms]'
	same "${f}_dso_two" "$file" --sort dso,sym --dso '[kernel.kallsyms],libc.so.6'
	same "${f}_symbols" "$file" --sort dso,sym --symbols symt_alpha,symt_cmp
	# --sort cpu: "%3.3d" in a column of the header's width, -001 where the event records no CPU
	same "${f}_cpu" "$file" --sort cpu
	same "${f}_cpu_comm" "$file" --sort cpu,comm -n
	same "${f}_comm_cpu_sym" "$file" --sort comm,cpu,sym
done
# --dso, --symbols on call chains: every sample counts in the entries it reaches; an entry
# is shown when the sample that made it passes (perf's al->filtered, hists__add_entry()),
# children mode's callers' entries taking the mark of the sample's own frame.
G="$T_TMP/graph.data"
if perf_record -q -g -e cpu-clock -c 100000 -o "$G" -- "$TARGET" spin 1 >/dev/null 2>"$T_TMP/rec.err"; then
	same G_children_dso "$G" --children --sort comm,dso,sym -g none --dso '[kernel.kallsyms]'
	same G_children_dso_nokey "$G" --children --sort comm,sym -g none --dso libc.so.6
	same G_children_symbols "$G" --children --sort dso,sym -g none --symbols symt_alpha,symt_cmp
	# the filtered key no sort key: whether the one entry of a binary shows depends on the first
	# sample made in it, which the run decides (perf may show no entry: its header then)
	SAME_WANT='^# Samples' same G_children_symbols_nokey "$G" --children --sort comm,dso -g none --symbols symt_alpha
	same G_children_symbol_one "$G" --children --sort sym -g none --symbols symt_cmp
	SAME_WANT='^# Samples' same G_symbols_nokey "$G" --no-children --sort comm,dso --symbols symt_alpha
	same G_dso_nokey "$G" --no-children --sort sym --dso sym_target
	# --percentage relative: of the shown entries' own samples (perf's hists__inc_filter_stats())
	same G_dso_relative "$G" --no-children --sort comm,sym --dso libc.so.6 --percentage relative
	SAME_WANT='^# Samples' same G_symbols_nokey_relative "$G" --no-children --sort comm,dso --symbols symt_alpha \
		--percentage relative
else
	fail record_graph "perf record -g failed: $(head -c 300 "$T_TMP/rec.err")"
fi

# --cpu (perf's -C): only the samples taken on those CPUs, as if the others were not
# recorded (the header's counts too), on a system-wide recording (which records the CPU);
# script --cpu lists the same samples as perf script --cpu.
A="$T_TMP/all.data"
if perf_record -q -a -e cpu-clock -c 100000 -o "$A" -- "$TARGET" spin 1 >/dev/null 2>"$T_TMP/rec.err"; then
	same A_cpu0 "$A" --cpu 0 --sort comm,dso
	same A_cpu1 "$A" -C 1 --sort comm,cpu -n
	same A_cpu01 "$A" --cpu 0-1 --sort cpu,comm
	for l in 0 1; do
		perf script -i "$A" --cpu $l >"$T_TMP/perf.out" 2>/dev/null
		t_run "$T_TMP/pr.out" "$T_TMP/pr.err" "$PERFRING" script -i "$A" --cpu $l
		t_same_output "A_script_cpu$l" "script --cpu $l" "$T_TMP/perf.out" "$T_TMP/pr.out" "$T_TMP/pr.err"
	done
else
	fail record_all "perf record -a failed: $(head -c 300 "$T_TMP/rec.err")"
fi

if [ -s "$C" ]; then
	pid=$(perf script -i "$C" -F comm,pid 2>/dev/null | awk '$1 == "sym_target" { print $2; exit }')
	same C_pid "$C" --sort pid,sym --pid "$pid"
	same C_tid "$C" --sort pid,dso --tid "$pid"

	# -q: the entries alone.
	t_run "$T_TMP/q.out" "$T_TMP/q.err" "$PERFRING" report -i "$C" -q --sort comm
	n=$(grep -c '^#' "$T_TMP/q.out")
	t_check quiet_no_header "-q printed $n header lines" [ "$T_RC" -eq 0 -a "$n" -eq 0 ]
	same C_quiet "$C" -q --sort comm,dso

	# The exports take the samples the table counts.
	"$PERFRING" report -i "$C" --comm ls --folded - >"$T_TMP/ls.folded" 2>/dev/null
	n=$(grep -vc '^ls;' "$T_TMP/ls.folded")
	m=$(awk '{ s += $NF } END { print s + 0 }' "$T_TMP/ls.folded")
	want=$(perf script -i "$C" -F comm 2>/dev/null | awk '$1 == "ls"' | wc -l)
	t_check export_filtered "folded: $n stacks of other commands, $m samples (perf script: $want of ls)" \
		[ "$n" -eq 0 -a "$m" -eq "$want" -a "$want" -gt 0 ]

	# -g on a file without call chains: perf says so and prints nothing (exit 0);
	# perfring warns on stderr and prints the table as without -g.
	t_run "$T_TMP/g.out" "$T_TMP/g.err" "$PERFRING" report -i "$C" -g --sort comm,sym
	"$PERFRING" report -i "$C" --sort comm,sym >"$T_TMP/nog.out" 2>/dev/null
	g_warned() {
		[ "$T_RC" -eq 0 ] && grep -q 'warning: .*-g: no event records call chains' "$T_TMP/g.err" &&
			cmp -s "$T_TMP/g.out" "$T_TMP/nog.out" && grep -q '%' "$T_TMP/g.out"
	}
	t_check no_chains_g_warns "exit $T_RC, stderr: $(head -c 200 "$T_TMP/g.err")" g_warned

	# --json names the CPU (-1: none recorded, as in this file)
	t_run "$T_TMP/cpu.json" "$T_TMP/cpu.err" "$PERFRING" report -i "$C" --sort cpu --json
	t_check cpu_json "$(head -c 300 "$T_TMP/cpu.json")" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d = d[0] if isinstance(d, list) else d
cpus = [e["cpu"] for e in d["entries"]]
sys.exit(0 if d["sort"] == ["cpu"] and cpus == [-1] else 1)' "$T_TMP/cpu.json"

	# --cpu on a file whose samples record no CPU: one line naming the event, exit 1 (perf refuses it too)
	t_run "$T_TMP/nocpu.out" "$T_TMP/nocpu.err" "$PERFRING" report -i "$C" --cpu 0
	t_check cpu_filter_no_cpu "exit $T_RC: $(head -c 200 "$T_TMP/nocpu.err")" \
		grep -q "cpu-clock' record no CPU" "$T_TMP/nocpu.err"
	t_usage_error cpu_filter_bad "--cpu: '0-1x' is not a CPU list" report -i "$C" --cpu 0-1x
	t_usage_error cpu_filter_too_big "past the 4096 CPUs" script -i "$C" --cpu 5000

	t_usage_error bad_pid "is not a comma-separated list of numbers" report -i "$C" --pid 12x
	t_usage_error bad_percentage "neither absolute nor relative" report -i "$C" --percentage most
	t_usage_error stats_with_filter "--stats takes no other option" report -i "$C" --stats --comm ls
fi
# Event groups (perf record -e '{a,b}'): one table, a column per member.
GR="$T_TMP/group.data" GRG="$T_TMP/group-g.data"
if perf_record -q -e '{cpu-clock,task-clock}' -o "$GR" -- "$TARGET" spin 0.5 >/dev/null 2>"$T_TMP/rec.err" &&
	perf_record -q -e '{cpu-clock,task-clock}' -g -o "$GRG" -- "$TARGET" spin 0.5 >/dev/null 2>"$T_TMP/rec.err"; then
	same group_sym "$GR" --sort sym
	same group_comm_dso "$GR" --sort comm,dso -n
	# With call chains (children and self, each a column per member): the same lines in the same
	# order (equal children of one thread by call chain length, perf's __hpp__sort_acc(); callers
	# no map holds with the level of the caller before them).
	perf report -i "$GRG" --stdio --sort sym 2>/dev/null | lines >"$T_TMP/perf.out"
	"$PERFRING" report -i "$GRG" --sort sym 2>/dev/null | lines >"$T_TMP/pr.out"
	n=$(grep -c '%' "$T_TMP/perf.out")
	t_check group_children "$n lines from perf; first difference: $(diff "$T_TMP/perf.out" "$T_TMP/pr.out" | head -n 3 | tr '\n' ' ')" \
		bash -c "[ $n -gt 10 ] && cmp -s '$T_TMP/perf.out' '$T_TMP/pr.out'"
else
	fail record_group "perf record of a group failed: $(head -c 300 "$T_TMP/rec.err")"
fi
t_finish
