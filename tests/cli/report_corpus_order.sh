#!/usr/bin/env bash
# `perfring report` entry lines against `perf report --stdio` on perf.data
# files recorded on other machines (the corpus beside the repository; no
# symbols there: most entries are addresses, so many tie): the first 60
# entries equal, in perf's order for equal overhead (with call chains, equal
# children of one thread caller first; then each sort key's order, a named
# symbol before an address, addresses by their difference's sign) and with
# perf's "pid" key (the thread: TID:COMMAND, the thread's command at the end
# of the file), and event groups as perf's group view. Trailing blanks are not
# compared (perf pads a last text column); perf's call-graph lines are not.
. "$(dirname "$0")/lib.sh"

if ! t_find_corpus; then
	skip corpus "$T_CORPUS_WHY"
	t_finish
	exit $?
fi
CORPUS=$T_CORPUS/quipper
command -v perf >/dev/null || { skip perf "perf is not installed"; t_finish; exit $?; }

# The table headers (samples, event count, columns) and the entry lines.
entries() { grep -E '^ +[0-9.]+%|^# (Samples|Event count)|^# +(Overhead|Children)' | sed 's/ *$//' | head -64; }
# same_entries NAME FILE SORT MIN [OPTION...]: perfring's and perf's lines equal, perf's at
# least MIN entries (SORT -: the default keys; the options are given to both).
same_entries() {
	local name=$1 file=$2 srt=(--sort "$3") min=$4 key=$3
	shift 4
	[ "${srt[1]}" = - ] && srt=()
	"$PERFRING" report -i "$CORPUS/$file" "${srt[@]}" "$@" 2>"$T_TMP/err" | entries >"$T_TMP/pr"
	perf report -i "$CORPUS/$file" --stdio "${srt[@]}" "$@" 2>/dev/null | entries >"$T_TMP/perf"
	set -- "$name" "$file" "$key" "$min"
	local n
	n=$(grep -c '%' "$T_TMP/perf")
	t_check "$1" "$n entries; first difference: $(diff "$T_TMP/pr" "$T_TMP/perf" | head -n 4 | tr '\n' ' ')" \
		bash -c "[ $n -ge $4 ] && cmp -s '$T_TMP/pr' '$T_TMP/perf'"
}
for f in perf.data.i686-3.4 perf.data.busy.0-3.4 perf.data.busy.1-3.8 perf.data.forkexit-3.4 \
	perf.data.hw_and_sw-3.4 perf.data.callgraph-3.4; do
	for srt in comm,dso,sym sym dso,sym pid,sym; do
		same_entries "${f#perf.data.}_${srt//,/_}" "$f" "$srt" 4
	done
done

# --children without call chains: perf drops it silently (one Overhead column).
same_entries children_no_chains_busy.0-3.8 perf.data.busy.0-3.8 - 4 --children
same_entries children_no_chains_lost_samples-4.4 perf.data.lost_samples-4.4 sym 4 --children

# Names and widths as perf shows them:
# - kernel modules by their [NAME] (dashes as underscores), not [kernel.kallsyms];
same_entries modules_forkexit-3.8 perf.data.forkexit-3.8 comm,dso 20
same_entries modules_systemwide.5-3.8 perf.data.systemwide.5-3.8 comm,dso 20
# - a JIT's /tmp/perf-PID.map as "[JIT] tid PID";
same_entries jit_map_busy.1-3.8 perf.data.busy.1-3.8 comm,dso 20
# - the pid column 15 wide at least ("    Pid:Command"), else the longest command + 8;
same_entries pid_width_busy.0-3.8 perf.data.busy.0-3.8 pid,sym 4
same_entries pid_width_systemwide.1-3.8 perf.data.systemwide.1-3.8 pid,dso 20
# - the command column as wide as the commands the entries' threads have at the end,
#   longer ones cut ("perf-exec" of a thread that became "sleep": "perf-ex").
same_entries comm_cut_hybrid_topology perf.data.hybrid_topology comm 2
same_entries comm_cut_hybrid_topology_pid perf.data.hybrid_topology comm,pid 2
# - event groups (perf record -e '{a,b}': HEADER_GROUP_DESC) as one table, a column per member,
#   the members' samples and periods together in the header ("of events 'anon group { a, b }'").
for srt in sym comm,dso pid,sym; do
	same_entries "group_desc-4.14_${srt//,/_}" perf.data.group_desc-4.14 "$srt" 3
	same_entries "group_lost_samples-4.4_${srt//,/_}" perf.data.lost_samples-4.4 "$srt" 5
done
# Children mode as perf walks a sample's chain: callers root first, one that no map holds shown
# with the level ([k]/[.]) of the caller before it (else the sample's); an unknown symbol kept by
# its address alone, whatever its binary; a leaf without a symbol in a shared library also a
# children-only entry at its recorded address (perf's chain holds the leaf again).
for srt in - sym comm,dso,sym pid,sym comm,dso; do
	same_entries "children_levels_callgraph-3.8_${srt//,/_}" perf.data.callgraph-3.8 "$srt" 40
done
same_entries children_addr_merge_piped.target-3.8 perf.data.piped.target-3.8 sym 40

# A recording that mapped no kernel (perf record -e cycles:u, piped): its kernel addresses outside
# the running kernel's [_text, _etext), where perf maps that kernel then, are in no map.
for srt in - dso,sym comm,dso; do
	same_entries "no_kernel_map_aligned-6.12_${srt//,/_}" perf.data.piped.header_features_aligned-6.12 "$srt" 2
	same_entries "no_kernel_map_group_desc-6.8_${srt//,/_}" perf.data.piped.header_feautres_group_desc-6.8 "$srt" 2
done

# Branch mode, perf report's view of a file with branch stacks (perf record -b): an entry per
# branch taken, of weight 1, and perf's branch keys by default (comm, dso_from, symbol_from,
# symbol_to, cycles). A branch end is found in the process's maps ([.]), else the kernel's
# ([k]), else none ([H], [unknown]); a module's address counts from the module's start; ties
# come "[unknown]" first, binaries descending, functions by address, cycles the larger first;
# a binary column is as wide as the binaries of ends with a known function (16 for unknown
# ones), longer names cut. sym and dso are the target's, with the sample's own level.
for f in branch-4.14 branch_stack_hw_index branch_stack_spec callgraph_and_branch-3.4 \
	callgraph_and_branch-3.8 raw_callgraph_branch-3.4; do
	for srt in - sym dso,sym comm,dso pid,sym; do
		same_entries "branch_${f}_${srt//,/_}" "perf.data.$f" "$srt" 2
	done
done
# The cycles key alone and after dso_to (perf prints the 16-bit count as signed: %hd).
same_entries branch_cycles_branch-4.14 perf.data.branch-4.14 cycles 8
same_entries branch_dso_to_cycles_branch-4.14 perf.data.branch-4.14 dso_to,cycles 8
# --no-branch-stack: the samples themselves, as perf shows them then.
same_entries no_branch_stack_callgraph_and_branch-3.4 perf.data.callgraph_and_branch-3.4 - 8 --no-branch-stack --no-children
same_entries no_branch_stack_branch-4.14 perf.data.branch-4.14 sym 8 --no-branch-stack
# The whole text, call graphs and headers too (perf's first line and its tip left out):
# same_text NAME FILE [OPTION...].
same_text() {
	local name=$1 file=$2
	shift 2
	norm() { grep -v '^# To display\|^# perfring report of\|(Tip:\|^#$\|^$' | sed 's/ *$//'; }
	"$PERFRING" report -i "$CORPUS/$file" "$@" 2>"$T_TMP/err" | norm >"$T_TMP/pr"
	perf report -i "$CORPUS/$file" --stdio "$@" 2>/dev/null | norm >"$T_TMP/perf"
	t_check "$name" "$(wc -l <"$T_TMP/perf") lines; first difference: $(diff "$T_TMP/pr" "$T_TMP/perf" | head -n 4 | tr '\n' ' ')" \
		bash -c "[ \$(grep -c '%' '$T_TMP/perf') -ge 3 ] && cmp -s '$T_TMP/pr' '$T_TMP/perf'"
}
# call graphs under the entries (children: callers first; --no-children: callees first)
same_text text_graph_callgraph-3.8 perf.data.callgraph-3.8
same_text text_graph_no_children_callgraph-3.8 perf.data.callgraph-3.8 --no-children --sort dso,sym
# -g none: equal children not ordered by call depth (perf does that only with call chains in use)
same_text text_g_none_callgraph-3.8 perf.data.callgraph-3.8 --sort sym -g none
same_text text_g_none_pid_callgraph-3.8 perf.data.callgraph-3.8 --sort dso,sym -g none
# "Total Lost Samples" once, above the first event's table
same_text text_two_events_busy.0-3.4 perf.data.busy.0-3.4 --sort dso
# --percent-limit hides entries, not their width: columns as wide as all entries make them
same_text text_percent_limit_forkexit-3.8 perf.data.forkexit-3.8 --percent-limit 1
same_text text_percent_limit_piped.target-3.8 perf.data.piped.target-3.8 --percent-limit 2
# branch mode
same_text text_branch_callgraph_and_branch-3.8 perf.data.callgraph_and_branch-3.8 --sort sym
# branch ends of one function in two processes (the vDSO, mapped at another address in each) are
# equal for the order, as perf compares the functions' starts in their binary
same_text text_branch_default_callgraph_and_branch-3.4 perf.data.callgraph_and_branch-3.4
same_text text_branch_self_callgraph_and_branch-3.4 perf.data.callgraph_and_branch-3.4 --no-children
# the chains' order (-g caller|callee, -G): graphs, children's sub-chains (callee order: from the
# frame up to the root), equal children by depth (callee order: the shorter first), the level of
# an unmapped frame (the nearest mapped one visited before it)
same_text text_callee_callgraph-3.8 perf.data.callgraph-3.8 -g callee
same_text text_callee_piped.target-3.8 perf.data.piped.target-3.8 -g graph,0.5,callee,function,percent
same_text text_caller_no_children_callgraph-3.8 perf.data.callgraph-3.8 -g caller --no-children
same_text text_inverted_sym_piped.target-3.8 perf.data.piped.target-3.8 -G --sort sym
# --max-stack (default kernel.perf_event_max_stack): perf report walks a chain callers first with
# children (or -g caller), and keeps the functions nearest the root then, else the nearest the
# leaf; a 3.4 kernel's chains of 255 entries are cut so at the default too
same_text text_deep_chains_callgraph-3.4 perf.data.callgraph-3.4
same_text text_deep_chains_sym_callgraph-3.4 perf.data.callgraph-3.4 --sort sym
same_text text_max_stack_2_callgraph-3.8 perf.data.callgraph-3.8 --max-stack 2
same_text text_max_stack_1_callee_callgraph-3.8 perf.data.callgraph-3.8 --max-stack 1 -g callee
same_text text_max_stack_3_no_children_callgraph-3.8 perf.data.callgraph-3.8 --max-stack 3 --no-children
same_text text_max_stack_0_callgraph-3.4 perf.data.callgraph-3.4 --max-stack 0
same_text text_max_stack_int_max_callgraph-3.4 perf.data.callgraph-3.4 --max-stack 2147483647
t_usage_error max_stack_not_a_number "--max-stack: 'x' is not a number of frames" report -i "$CORPUS/perf.data.callgraph-3.8" --max-stack x
t_usage_error graph_mode_fractal "'fractal' is not none or graph" report -i "$CORPUS/perf.data.callgraph-3.8" -g fractal
t_usage_error graph_key_address "'graph,0.5,address' is not none or graph" report -i "$CORPUS/perf.data.callgraph-3.8" -g graph,0.5,address

# Branch keys and options on a file they do not apply to: a one-line error, exit status 1.
t_one_line_error branch_key_without_branches "is a key of branch mode, and the file has no branch stacks" \
	"$PERFRING" report -i "$CORPUS/perf.data.callgraph-3.4" --sort dso_from
t_one_line_error branch_stack_without_branches "--branch-stack: the file has no branch stacks" \
	"$PERFRING" report -i "$CORPUS/perf.data.callgraph-3.4" --branch-stack
t_one_line_error branch_key_no_branch_stack "--sort symbol_to is a key of branch mode, and --no-branch-stack" \
	"$PERFRING" report -i "$CORPUS/perf.data.branch-4.14" --no-branch-stack --sort symbol_to
t_finish
