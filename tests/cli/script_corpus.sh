#!/usr/bin/env bash
# `perfring script` against `perf script` on every perf.data file of the
# other-machine corpus (quipper's: kernels 3.2 to 6.12, pipe and file mode,
# x86, i686 and ARM; linux-perf-data's that perf reads): the whole listing
# byte for byte, sample lines and call chains, binaries and symbols as perf
# names them there:
#   - a kernel module's samples by its file when the recording has its build
#     id, else [NAME] (perf's dso made from the MMAP), not [kernel.kallsyms];
#   - a kernel address no recorded kernel map holds: [unknown]; in a recording
#     that mapped no kernel (cycles:u, piped), one outside the running kernel's
#     [_text, _etext), where perf maps that kernel then;
#   - kernel addresses moved by the recording's _text against the running
#     kernel's (KASLR; a pipe has no build ids, so both name them by this
#     machine's kallsyms, relocated), past the text by its data symbols
#     (__start_rodata+0x80314);
#   - the [vdso] from offset 0 whatever the MMAP's pgoff, named by the running
#     kernel's vDSO when the recording has no build id for it;
#   - the period of a fixed-period event without PERF_SAMPLE_PERIOD;
#   - a raw PMU event's memory fields by default (perf mem: data address, the
#     data source in words, weight, instruction latency);
#   - events named with perf's modifiers when the file has no names
#     (cycles:ppH), padded to the longest name known at the first sample.
# The files perfring lists differently, and why, are below (KNOWN); they are
# still read and listed, and the test fails if one of them starts to agree
# (the list is then out of date).
. "$(dirname "$0")/lib.sh"

if ! t_find_corpus; then
	skip corpus "$T_CORPUS_WHY"
	t_finish
	exit $?
fi
command -v perf >/dev/null || { skip perf "perf is not installed"; t_finish; exit $?; }

declare -A KNOWN=(
	# perf decodes the Intel PT AUX area into samples (psb, cbr, branches); perfring does not.
	[perf.data.intel_pt-4.14]="AUX trace decoding"
	[perf.data.piped.intel_pt-4.14]="AUX trace decoding"
)

n=0
for f in "$T_CORPUS"/quipper/perf.data.* "$T_CORPUS"/linux-perf-data/*.data; do
	name=$(basename "$f")
	case "$name" in *corrupt*) continue ;; esac
	# perf cannot read some of them either: nothing to compare.
	timeout 120 perf script -i "$f" >"$T_TMP/perf" 2>/dev/null || continue
	[ -s "$T_TMP/perf" ] || continue
	t_run "$T_TMP/pr" "$T_TMP/err" timeout 120 "$PERFRING" script -i "$f"
	if [ "$T_RC" -ne 0 ]; then
		fail "$name" "perfring script exited $T_RC"
		t_show "$T_TMP/err"
		continue
	fi
	n=$((n + 1))
	if cmp -s "$T_TMP/pr" "$T_TMP/perf"; then
		if [ -n "${KNOWN[$name]:-}" ]; then
			fail "$name" "listed as differing (${KNOWN[$name]}) but now equal to perf script: update KNOWN"
		else
			ok "$name"
		fi
	elif [ -n "${KNOWN[$name]:-}" ]; then
		ok "${name}_known_difference"
	else
		fail "$name" "differs from perf script (- perf, + perfring):"
		diff "$T_TMP/perf" "$T_TMP/pr" | head -n 8 | sed 's/^/     | /'
	fi
done
t_check files_compared "only $n files were compared (want 40 or more)" test "$n" -ge 40
# --max-stack: the first N frames of each chain (none with 0: the sample line, then an empty one)
for m in 0 1 4; do
	f=$T_CORPUS/quipper/perf.data.callgraph-3.8
	perf script -i "$f" --max-stack $m >"$T_TMP/perf" 2>/dev/null
	"$PERFRING" script -i "$f" --max-stack $m >"$T_TMP/pr" 2>"$T_TMP/err"
	t_check "max_stack_$m" "differs from perf script --max-stack $m: $(diff "$T_TMP/perf" "$T_TMP/pr" | head -n 4 | tr '\n' ' ')" \
		bash -c "[ \$(wc -l <'$T_TMP/perf') -gt 100 ] && cmp -s '$T_TMP/perf' '$T_TMP/pr'"
done
t_finish
