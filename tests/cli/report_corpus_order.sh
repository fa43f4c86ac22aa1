#!/usr/bin/env bash
# `perfring report` entry lines against `perf report --stdio -g none` on
# perf.data files recorded on other machines (the corpus beside the
# repository; no symbols there: most entries are addresses, so many tie):
# the first 60 entries equal, in perf's order for equal overhead (each sort
# key's order, a named symbol before an address, addresses by their
# difference's sign) and with perf's "pid" key (the thread: TID:COMMAND, the
# thread's command at the end of the file). Trailing blanks are not compared
# (perf pads a last text column).
. "$(dirname "$0")/lib.sh"

if ! t_find_corpus; then
	skip corpus "$T_CORPUS_WHY"
	t_finish
	exit $?
fi
CORPUS=$T_CORPUS/quipper
command -v perf >/dev/null || { skip perf "perf is not installed"; t_finish; exit $?; }

entries() { grep -E '^ +[0-9.]+%' | sed 's/ *$//' | head -60; }
for f in perf.data.i686-3.4 perf.data.busy.0-3.4 perf.data.busy.1-3.8 perf.data.forkexit-3.4 \
	perf.data.hw_and_sw-3.4 perf.data.callgraph-3.4; do
	for srt in comm,dso,sym sym dso,sym pid,sym; do
		name="${f#perf.data.}_${srt//,/_}"
		"$PERFRING" report -i "$CORPUS/$f" --sort "$srt" 2>"$T_TMP/err" | entries >"$T_TMP/pr"
		perf report -i "$CORPUS/$f" --stdio --sort "$srt" -g none 2>/dev/null | entries >"$T_TMP/perf"
		n=$(wc -l <"$T_TMP/perf")
		t_check "$name" "$n entries; first difference: $(diff "$T_TMP/pr" "$T_TMP/perf" | head -n 4 | tr '\n' ' ')" \
			bash -c "[ $n -gt 3 ] && cmp -s '$T_TMP/pr' '$T_TMP/perf'"
	done
done
t_finish
