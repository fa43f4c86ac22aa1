#!/usr/bin/env bash
# perf report's --sort srcline and the thread key by another name (--sort tid), against perf
# report on files recorded here (a program with an inlined helper and a function both called
# and inlined, -O2 -g; --call-graph dwarf and frame pointers).
# srcline, as perf 6.1 shows it: the sample's own entry at its address's source line
# ("FILE:LINE", the file's last part; the line inside an inlined function), else
# FUNCTION+OFFSET (decimal); a caller's entry (children) of an unwound stack at the line its
# frame is at (an inlined function's, its caller's call site), "??:0" when DWARF has none.
# In branch mode, the target's line as perf finds it: at its address as recorded (a relocated
# one has none there: FUNCTION+OFFSET from that address, or BINARY[ADDRESS]).
# tid: perf 6.1 has no such key; its "pid" is the thread, shown TID:COMMAND, and tid is
# another name of it (compared with perf's pid).
# Accepted differences, normalised or left out:
# - a function defined in an included file: perf (binutils' addr2line) names the compile
#   unit's file, libc-start.c:N for __libc_start_call_main (58 or 74, where the sample
#   returned); perfring the line table's, libc_start_call_main.h:N (as script's srcline
#   field; tests/cli/script_fields.sh);
#   the header's dotted line, as wide as that name, is left out;
# - children with frame-pointer chains: perf 6.1 looks a caller's line up at its address in
#   the process as if in the binary, and shows FUNCTION+OFFSET from there (main+94109353345058,
#   and the leaf again as such a caller); perfring shows the caller's line. Not compared;
# - srcline after other keys (sym,srcline): perf finds the lines as its trees compare entries
#   and sizes the column by the ones found; the lines are the same, the width not always.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/export_lib.sh"

export_need report_srcline "$PERFRING"

cat >"$T_TMP/lines.c" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void leaf(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i ^ (i >> 3); }
static inline __attribute__((always_inline)) void helper(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
	leaf(n);
}
__attribute__((noinline)) void first(void) { helper(200000); }
__attribute__((noinline)) void second(void) { helper(300000); sink++; }
int main(void) { for (int k = 0; k < 300; k++) { first(); second(); } return 0; }
C
for fp in omit no-omit; do
	if ! ${CC:-cc} -O2 -g -f$fp-frame-pointer -o "$T_TMP/lines-$fp" "$T_TMP/lines.c"; then
		fail build "${CC:-cc} could not build the test program"
		t_finish
		exit 1
	fi
done
D="$T_TMP/dwarf.data" F="$T_TMP/fp.data"
export_record report_srcline "$D" --call-graph dwarf -F 999 "$T_TMP/lines-omit"
export_record report_srcline "$F" -g -F 999 "$T_TMP/lines-no-omit"

norm() {
	grep -v '^# To display\|^# perfring report of\|(Tip:\|^#$\|^$\|^# \.\.\.' | sed 's/ *$//; s/libc-start\.c:\([0-9]*\)$/libc_start_call_main.h:\1/'
}
# same NAME FILE PATTERN PERF-OPTIONS -- PERFRING-OPTIONS: the two reports' text (normalised)
# is the same, and perf's has a line matching PATTERN.
same() {
	local name=$1 f=$2 pat=$3 popts=() ropts=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do popts+=("$1") && shift; done
	shift
	ropts=("$@")
	perf report -i "$f" --stdio "${popts[@]}" 2>/dev/null | norm >"$T_TMP/perf.report"
	t_run "$T_TMP/ours.raw" "$T_TMP/err" "$PERFRING" report -i "$f" "${ropts[@]}"
	norm <"$T_TMP/ours.raw" >"$T_TMP/ours.report"
	t_same_output "$name" "report ${ropts[*]}" "$T_TMP/perf.report" "$T_TMP/ours.report" "$T_TMP/err" "$pat"
}
both() { # NAME FILE PATTERN OPTIONS...: the same options to both
	local name=$1 f=$2 pat=$3
	shift 3
	same "$name" "$f" "$pat" "$@" -- "$@"
}
both dwarf_srcline_no_children "$D" '  lines\.c:[0-9]*$' --sort srcline --no-children
both dwarf_srcline_children "$D" '  lines\.c:[0-9]*$' --sort srcline -g none
both dwarf_srcline_children_graphs "$D" '  lines\.c:[0-9]*$' --sort srcline
both dwarf_srcline_unknown_line "$D" '  ??:0$' --sort srcline -g none
both dwarf_srcline_callee "$D" '  lines\.c:[0-9]*$' --sort srcline -g callee
both dwarf_comm_srcline "$D" '  lines\.c:[0-9]*$' --sort comm,srcline --no-children -g none
both dwarf_dso_srcline "$D" '  lines\.c:[0-9]*$' --sort dso,srcline -g none
both fp_srcline_no_children "$F" '  lines\.c:[0-9]*$' --sort srcline --no-children
both fp_srcline_no_children_graphs "$F" '  lines\.c:[0-9]*$' --sort srcline --no-children -g caller
# branch mode: the branch target's line, looked up at its address as recorded (a corpus file's
# kernel targets without symbols: BINARY[ADDRESS])
if t_find_corpus && [ -f "$T_CORPUS/quipper/perf.data.branch_stack_spec" ]; then
	both branch_srcline "$T_CORPUS/quipper/perf.data.branch_stack_spec" '\[kernel.kallsyms\]\[' --sort srcline
	both branch_sym_srcline "$T_CORPUS/quipper/perf.data.branch_stack_spec" '\[kernel.kallsyms\]\[' --sort sym,srcline
else
	skip branch_srcline "${T_CORPUS_WHY:-no perf.data.branch_stack_spec in the corpus}"
fi
# the thread: perf's pid
same tid_as_pid "$D" 'Pid:Command' --sort pid -g none -- --sort tid -g none
same tid_sym_as_pid_sym "$F" 'Pid:Command' --sort pid,sym --no-children -- --sort tid,sym --no-children
t_finish
