#!/usr/bin/env bash
# The differential test against perf, the part that fits make check (about 90 s of wall time on 2
# cores; `make oracle` runs every cell: scripts/oracle.sh). Each cell records one file, by perf or
# by perfring, and compares perf's reading of it with perfring's: script, report (--sort sym,
# dso,sym, comm,dso,sym, with and without --children), and the folded and pprof totals
# (tests/helpers/oracle_lib.sh). A cell passes when the outputs are the same but for what
# tests/oracle/accepted.txt lists, each difference once with its cause; it prints what differs.
# Nothing compared depends on which samples were taken: both read the same file.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/oracle_lib.sh"

oracle_need

# The comparison itself, on texts written here: two equal branches, one inlined, in the other
# order are accepted (dwarf_names/report-*: issue 27 point 2); equal entries of a table without
# children in the other order are not, nor branches of different percentages.
graph_text() { # FIRST-PCT FIRST SECOND-PCT SECOND
	printf '%s\n' '# Overhead  Symbol' '     9.00%  [k] irqentry_exit_to_user_mode' '            |' \
		'            ---irqentry_exit_to_user_mode' '               |' "               |--$1--$2" \
		'               |          names::spin<names::Mixer>' '               |' \
		"                --$3--$4" '                          names::spin<names::Mixer>'
}
graph_text 2.18% names::Mixer::run 2.18% '__GI_names_asm_loop (inlined)' >"$T_TMP/g.perf"
graph_text 2.18% '__GI_names_asm_loop (inlined)' 2.18% names::Mixer::run >"$T_TMP/g.ours"
graph_text 2.18% names::Mixer::run 1.00% '__GI_names_asm_loop (inlined)' >"$T_TMP/g.perf2"
graph_text 1.00% '__GI_names_asm_loop (inlined)' 2.18% names::Mixer::run >"$T_TMP/g.ours2"
printf '%s\n' '# Overhead  Symbol' '     5.00%  [.] alpha' '     5.00%  [.] beta' >"$T_TMP/t.perf"
printf '%s\n' '# Overhead  Symbol' '     5.00%  [.] beta' '     5.00%  [.] alpha' >"$T_TMP/t.ours"
cmp_says() { # CELL PERF OURS: oracle_cmp.py's first word and exit status
	python3 "$T_ROOT/tests/helpers/oracle_cmp.py" "$1" "$2" "$3" "$O_ACCEPTED" | head -n 1 | cut -d' ' -f1
}
t_check cmp_tie_inlined_accepted "not accepted: $(cmp_says dwarf_names/report-x "$T_TMP/g.perf" "$T_TMP/g.ours")" \
	[ "$(cmp_says dwarf_names/report-x "$T_TMP/g.perf" "$T_TMP/g.ours")" = accepted: ]
t_check cmp_entry_tie_differs "equal entries in the other order accepted without children" \
	[ "$(cmp_says perf/c/fp/cpu-clock/report-sym-no-children "$T_TMP/t.perf" "$T_TMP/t.ours")" = differs: ]
t_check cmp_order_differs "branches of different percentages in another order accepted" \
	[ "$(cmp_says dwarf_names/report-x "$T_TMP/g.perf2" "$T_TMP/g.ours2")" = differs: ]
t_check cmp_same "the same text not 'same'" [ "$(cmp_says x/report "$T_TMP/g.perf" "$T_TMP/g.perf")" = same ]
# An entry perf's --sort sym splits (its comparison is not transitive: accepted.txt) is accepted
# when perf's parts add up to perfring's entry, column by column, and not otherwise.
split_text() { # CHILDREN-SELF-LINES...: a children table of __cxa_throw entries and main
	printf '%s\n' '# Children      Self  Symbol'
	printf '    %s  [.] __cxa_throw\n' "$@"
	printf '%s\n' '     0.40%     0.40%  [.] main'
}
split_text '0.77%     0.00%' '0.51%     0.26%' >"$T_TMP/s.perf"
split_text '1.28%     0.26%' >"$T_TMP/s.ours"
split_text '1.30%     0.26%' >"$T_TMP/s.ours2"
cmp_expect() { # NAME WHY CELL PERF OURS WORD: oracle_cmp.py's first word on the two texts is WORD
	local got
	got=$(cmp_says "$3" "$4" "$5")
	t_check "$1" "$2 (oracle_cmp.py: $got)" [ "$got" = "$6" ]
}
cmp_expect cmp_split_accepted "perf's split entry not accepted" perf/cxx/fp/cpu-clock/report-sym-children \
	"$T_TMP/s.perf" "$T_TMP/s.ours" accepted:
cmp_expect cmp_split_sum_differs "a split entry whose parts do not add up accepted" \
	perf/cxx/fp/cpu-clock/report-sym-children "$T_TMP/s.perf" "$T_TMP/s.ours2" differs:
cmp_expect cmp_split_dso_differs "a split entry accepted in a dso,sym table (its binary key comes first)" \
	perf/cxx/fp/cpu-clock/report-dso_sym-children "$T_TMP/s.perf" "$T_TMP/s.ours" differs:
# 'unwound': perf's libunwind giving up ([unknown]) where perfring unwinds on is accepted in a
# DWARF script cell, not when perfring's frames before it differ, nor in a frame-pointer cell.
printf 'a 1: cpu-clock:\n\t1 f (x)\n\t2 [unknown] ([unknown])\n\nb 2: cpu-clock:\n\t1 g (x)\n\n' >"$T_TMP/u.perf"
printf 'a 1: cpu-clock:\n\t1 f (x)\n\t3 main (x)\n\t4 _start (x)\n\nb 2: cpu-clock:\n\t1 g (x)\n\n' >"$T_TMP/u.ours"
printf 'a 1: cpu-clock:\n\t1 h (x)\n\t3 main (x)\n\nb 2: cpu-clock:\n\t1 g (x)\n\n' >"$T_TMP/u.ours2"
cmp_expect cmp_unwound_accepted "perf's [unknown] stop not accepted" perf/c/dwarf/cpu-clock/script \
	"$T_TMP/u.perf" "$T_TMP/u.ours" accepted:
cmp_expect cmp_unwound_other_frames "an [unknown] stop accepted with other frames before it" \
	perf/c/dwarf/cpu-clock/script "$T_TMP/u.perf" "$T_TMP/u.ours2" differs:
cmp_expect cmp_unwound_fp "an [unknown] stop accepted in a frame-pointer cell" perf/c/fp/cpu-clock/script \
	"$T_TMP/u.perf" "$T_TMP/u.ours" differs:
oracle_build c cxx rust go node system
# C with a shared library, callbacks, recursion, always-inline functions and qsort: each recorder,
# each call-graph mode
oracle_cell perf c fp cpu-clock
oracle_cell perfring c fp cpu-clock script report
oracle_cell perf c dwarf cpu-clock
oracle_cell perfring c dwarf cpu-clock script
# C++ (templates, lambdas, exceptions, virtual calls); Rust, Go, a JIT (node's perf map)
# (children tables of C++ by frame pointers: chains through libstdc++, built without them, carry
# garbage addresses, among which perf's --sort sym splits an entry now and then: accepted.txt)
oracle_cell perf cxx fp cpu-clock script report
oracle_cell perf cxx dwarf cpu-clock script
oracle_cell perf rust fp cpu-clock script
oracle_cell perf go fp cpu-clock script report
# Go by DWARF: perf cannot unwind it (accepted whole), perfring's "(inlined)" frames are checked
# against llvm-addr2line (oracle_inlined: runtime.goexit's frame was shown inlined)
oracle_cell perfring go dwarf cpu-clock script
oracle_cell perf node fp cpu-clock script
# the other events: page faults, a tracepoint, a group (perf's -e '{a,b}': its tables with the
# leader's call graphs under the entries)
oracle_cell perfring c fp page-faults script report
oracle_cell perf c fp tracepoint script report
oracle_cell perf c fp group
# the whole machine, short-lived processes coming and going: the listing of the test's own
# processes and the totals (whatever else ran is make oracle's: scripts/oracle.sh)
O_COMMS="sh ls true c_main" oracle_cell perfring system fp cpu-clock script totals
t_finish
