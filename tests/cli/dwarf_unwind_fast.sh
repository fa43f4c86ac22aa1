#!/usr/bin/env bash
# The unwinder's fast path (tools/shared/unwind_fast.c: each pc's call frame rules
# read once and kept) against libdwfl's unwinding, which it replaces for speed: with
# PERFRING_UNWIND_CHECK set, perfring unwinds every sample both ways and says how many
# the fast path took and how many came out different (a line per difference). On files
# recorded here with perf record --call-graph dwarf:
# - tests/helpers/names_work (C++, asm, the vDSO, a signal handler: its sigreturn
#   trampoline is a signal frame, left to libdwfl; stacks deeper than the copy);
# - a shell pipeline of sort and gzip (glibc's and the tools' own CFI, many short
#   processes);
# each sample's frames are the same both ways, and the fast path takes at least 90% of
# them (the test cannot pass with the fast path off). perfring script's listing is
# the same with and without the check.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/export_lib.sh"

WORK="$PERFRING_BUILD/tests/helpers/names_work"
export_need dwarf_unwind_fast "$PERFRING" "$WORK"
export_record dwarf_unwind_fast "$T_TMP/names.data" --call-graph dwarf -F 999 "$WORK" 600
export_record dwarf_unwind_fast "$T_TMP/pipe.data" --call-graph dwarf -F 999 -- \
	sh -c 'seq 1 200000 | sort -R | gzip -9 | gzip -d | sort -n >/dev/null'

for f in names pipe; do
	if ! PERFRING_UNWIND_CHECK=1 "$PERFRING" script -i "$T_TMP/$f.data" >"$T_TMP/$f.checked" 2>"$T_TMP/$f.err"; then
		fail "${f}_checked" "perfring script exited non-zero: $(head -n 2 "$T_TMP/$f.err")"
		continue
	fi
	line=$(grep 'unwind check:.*samples' "$T_TMP/$f.err" | tail -n 1)
	read -r total fast differ < <(echo "$line" | sed -E 's/.* ([0-9]+) samples, ([0-9]+) by the fast path, ([0-9]+) differ.*/\1 \2 \3/')
	if [ -z "$line" ] || [ -z "${total:-}" ]; then
		fail "${f}_counted" "no 'unwind check' line on stderr: $(head -n 2 "$T_TMP/$f.err")"
		continue
	fi
	t_check "${f}_same_frames" "$differ of $total samples unwound differently: $(grep -m 3 'fast path' "$T_TMP/$f.err")" \
		[ "$differ" -eq 0 ]
	t_check "${f}_fast_path_used" "the fast path took $fast of $total samples (< 90%)" \
		[ "$total" -gt 50 -a $((fast * 10)) -ge $((total * 9)) ]
	"$PERFRING" script -i "$T_TMP/$f.data" >"$T_TMP/$f.plain" 2>/dev/null
	t_check "${f}_listing_unchanged" "perfring script's listing differs with PERFRING_UNWIND_CHECK" \
		cmp -s "$T_TMP/$f.plain" "$T_TMP/$f.checked"
done
t_finish
