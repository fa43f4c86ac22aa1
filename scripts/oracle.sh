#!/usr/bin/env bash
# make oracle: the whole differential test against perf (tests/helpers/oracle_lib.sh): every
# recorder (perf, perfring) x program (C with a shared library, C++, Rust, Go, a JIT, the whole
# machine, a real multi-file program: perfring itself) x call-graph mode (fp, dwarf) x event (cpu-clock, page-faults, a tracepoint, a group),
# each file read by perf and by perfring: script, report (sym, dso,sym, comm,dso,sym, with and
# without children), folded and pprof totals. tests/cli/oracle.sh, in make check, is a part.
#   scripts/oracle.sh [BUILD]      (default build; about 15 minutes on 2 busy cores)
# Ends with "N passed, N failed, N skipped"; exits 1 when a cell differs in a way
# tests/oracle/accepted.txt does not list.
PERFRING_BUILD=${1:-${PERFRING_BUILD:-build}}
export PERFRING_BUILD
. "$(dirname "$0")/../tests/cli/lib.sh"
. "$T_ROOT/tests/helpers/oracle_lib.sh"

oracle_need
oracle_build c cxx rust go node tool system
for rec in perf perfring; do
	for mode in fp dwarf; do
		for prog in c cxx rust go node tool; do
			oracle_cell "$rec" "$prog" "$mode" cpu-clock
		done
		for ev in page-faults tracepoint; do
			oracle_cell "$rec" c "$mode" "$ev"
		done
		oracle_cell "$rec" system "$mode" cpu-clock script report
	done
	oracle_cell "$rec" system fp tracepoint script report
done
# event groups: perf record's -e '{a,b}' (perfring record takes no group: issue 27 point 6)
for mode in fp dwarf; do
	oracle_cell perf c "$mode" group
done
t_finish
