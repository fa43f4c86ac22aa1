#!/usr/bin/env bash
# The whole text of `perfring report` against `perf report --stdio` on every
# corpus file, for 9 option sets (not part of make check: ~2 minutes). Prints a
# line per output that differs, then the counts. The first line of each (perf's
# "To display..." and perfring's "perfring report of ..."), the tip and blank
# lines are left out.
#   scripts/report_sweep.sh [BUILD_DIR] [CORPUS_DIR]
set -u
build=${1:-build}
corpus=${2:-../shared/corpus/perf.data}
norm() { grep -v '^# To display\|^# perfring report of\|(Tip:\|^# Tip\|^#$\|^$' | sed 's/ *$//'; }
outputs=0 same=0 noperf=0
for f in "$corpus"/quipper/perf.data.* "$corpus"/linux-perf-data/*.data; do
	for s in "" "--sort sym" "--sort dso" "--sort comm" "--sort pid" "--sort dso,sym" "--no-children" "-g none" \
		"--percent-limit 2"; do
		# shellcheck disable=SC2086
		timeout 120 perf report -i "$f" --stdio $s 2>/dev/null | norm >/tmp/report_sweep.perf
		if [ ! -s /tmp/report_sweep.perf ]; then
			noperf=$((noperf + 1))
			continue
		fi
		outputs=$((outputs + 1))
		# shellcheck disable=SC2086
		timeout 120 "$build/perfring" report -i "$f" $s 2>/dev/null | norm >/tmp/report_sweep.pr
		d=$(diff /tmp/report_sweep.pr /tmp/report_sweep.perf | grep -c '^[<>]')
		if [ "$d" = 0 ]; then
			same=$((same + 1))
		else
			echo "$(basename "$f") [$s]: $d lines differ"
		fi
	done
done
rm -f /tmp/report_sweep.perf /tmp/report_sweep.pr
echo "report_sweep: $same of $outputs outputs equal perf's ($noperf that perf does not print left out)"
