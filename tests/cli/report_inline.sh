#!/usr/bin/env bash
# Call graphs through inlined functions (perf record --call-graph dwarf, -O2 -g, no frame
# pointers), against perf report's on the same file. perf's call-graph nodes match a frame to
# a kid by name when either is an inlined function (its match_chain(), key "function"), by
# binary and function start otherwise; so an inlined function reached through two copies (in
# two callers, or a recursive function inlined into itself and into its clone) is one node,
# and so is a function called out of line in one place and inlined in another. Programs:
# - glibc's qsort (msort_with_tmp inlined into msort_with_tmp.part.0 and __qsort_r): perf
#   shows one path of "msort_with_tmp (inlined)" where nodes apart by address showed sibling
#   branches of the same text;
# - an always_inline helper in two callers, a function called by one and inlined into another
#   (flatten), each calling one leaf: its entry's graph has one node for each.
# Compared: perf report --stdio's whole text (its header lines and tip aside) with perfring
# report's, children (caller and callee graphs) and not (callee and caller graphs, --sort
# sym), on files recorded by perf and by perfring record.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/export_lib.sh"

export_need report_inline "$PERFRING"

cat >"$T_TMP/qsort.c" <<'C'
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; return (x > y) - (x < y); }
int main(void)
{
	enum { N = 100000 };
	int *v = malloc(N * sizeof(*v)), *w = malloc(N * sizeof(*w));
	unsigned s = 1;
	for (int i = 0; i < N; i++) { s = s * 1103515245u + 12345u; w[i] = (int)(s >> 8); }
	for (int k = 0; k < 25; k++) { memcpy(v, w, N * sizeof(*v)); qsort(v, N, sizeof(*v), cmp); }
	return v[0] == 42;
}
C
cat >"$T_TMP/inlined.c" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void leaf(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i ^ (i >> 3); }
/* inlined into first (twice) and second: one node to perf, whichever copy */
static inline __attribute__((always_inline)) void helper(unsigned long n) { sink++; leaf(n); sink--; }
__attribute__((noinline)) void first(void) { helper(120000); sink++; helper(80000); }
__attribute__((noinline)) void second(void) { helper(300000); }
/* called out of line by third, inlined into fourth: one node, "step" or "step (inlined)" */
void step(unsigned long n) { sink += 3; leaf(n); sink -= 3; }
void (*volatile step_call)(unsigned long) = step;
__attribute__((noinline)) void third(void) { step_call(250000); sink++; }
__attribute__((noinline, flatten)) void fourth(void) { step(150000); }
int main(void) { for (int k = 0; k < 400; k++) { first(); second(); third(); fourth(); } return 0; }
C
for p in qsort inlined; do
	if ! ${CC:-cc} -O2 -g -fomit-frame-pointer -o "$T_TMP/$p" "$T_TMP/$p.c"; then
		fail "build_$p" "${CC:-cc} could not build the test program"
		t_finish
		exit 1
	fi
done

norm() { grep -v '^# To display\|^# perfring report of\|(Tip:\|^#$\|^$' | sed 's/ *$//'; }
# graph_same NAME FILE PATTERN OPTION...: perf report --stdio OPTION... and perfring report
# OPTION... print the same text, and perf's has a line matching PATTERN (the case under test).
graph_same() {
	local name=$1 f=$2 pat=$3
	shift 3
	perf report -i "$f" --stdio "$@" 2>/dev/null | norm >"$T_TMP/perf.report"
	# perf names inlined frames through an addr2line child, whose answers a loaded
	# machine has seen missing (no "(inlined)" line at all): perf is asked once more then
	grep -q -- "$pat" "$T_TMP/perf.report" ||
		perf report -i "$f" --stdio "$@" 2>/dev/null | norm >"$T_TMP/perf.report"
	t_run "$T_TMP/ours.raw" "$T_TMP/err" "$PERFRING" report -i "$f" "$@"
	norm <"$T_TMP/ours.raw" >"$T_TMP/ours.report"
	t_same_output "$name" "report $*" "$T_TMP/perf.report" "$T_TMP/ours.report" "$T_TMP/err" "$pat"
}

# every_graph TAG FILE: the comparisons, on FILE.
every_graph() {
	local tag=$1 f=$2
	# qsort: msort's recursion, one path to perf
	graph_same "${tag}_qsort_no_children" "$f.qsort" '^ *|--[0-9.]*%--msort_with_tmp (inlined)' --no-children
	graph_same "${tag}_qsort_sym_no_children" "$f.qsort" 'msort_with_tmp (inlined)' --no-children --sort sym
	graph_same "${tag}_qsort_children" "$f.qsort" 'msort_with_tmp (inlined)' --children
	graph_same "${tag}_qsort_children_callee" "$f.qsort" 'msort_with_tmp (inlined)' -g callee
	graph_same "${tag}_qsort_caller_no_children" "$f.qsort" 'msort_with_tmp (inlined)' -g caller --no-children
	# leaf's callers: one helper node (first, second below), one step node (third, fourth below)
	graph_same "${tag}_inlined_no_children" "$f.inlined" '--helper (inlined)$' --no-children
	graph_same "${tag}_inlined_sym_no_children" "$f.inlined" '--step\( (inlined)\)\?$' --no-children --sort sym
	graph_same "${tag}_inlined_children" "$f.inlined" 'helper (inlined)' --children
	graph_same "${tag}_inlined_children_callee" "$f.inlined" '--helper (inlined)$' -g callee
	graph_same "${tag}_inlined_caller_no_children" "$f.inlined" 'helper (inlined)' -g caller --no-children
}

# files perf recorded
for p in qsort inlined; do
	export_record report_inline "$T_TMP/perf.data.$p" --call-graph dwarf -F 999 "$T_TMP/$p"
done
every_graph perf_recorded "$T_TMP/perf.data"

# files perfring recorded (perf reads them; they carry call chains since issue 27's point 1)
chains=yes
for p in qsort inlined; do
	if ! "$PERFRING" record -o "$T_TMP/ours.data.$p" --call-graph dwarf -F 999 -- "$T_TMP/$p" >"$T_TMP/rec.out" 2>&1; then
		fail "perfring_record_$p" "perfring record --call-graph dwarf failed: $(head -n 1 "$T_TMP/rec.out")"
		chains=
	elif ! perf evlist -v -i "$T_TMP/ours.data.$p" 2>/dev/null | grep -q CALLCHAIN; then
		chains=
	fi
done
if [ -n "$chains" ]; then
	every_graph perfring_recorded "$T_TMP/ours.data"
else
	skip perfring_recorded "perfring record --call-graph dwarf wrote no call chains (issue 27 point 1)"
fi
t_finish
