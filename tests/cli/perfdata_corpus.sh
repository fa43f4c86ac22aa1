#!/usr/bin/env bash
# perfring report/script on the perf.data corpus (../shared/corpus/perf.data
# beside the repository): for every file perf 6.1 reads, `perfring report
# --stats` counts each record type exactly as `perf report --stats` does and
# `perfring script --dump --json` prints one valid JSON object per record; the
# corrupt file gives a one-line error with its offset (exit 1); the
# linux-perf-data files (newer than this perf) are read to the end with
# the counts their own tests expect.
. "$(dirname "$0")/lib.sh"

t_require_tool

if ! t_find_corpus; then
	skip corpus "$T_CORPUS_WHY"
	t_finish
	exit $?
fi
CORPUS=$T_CORPUS

# stats_counts FILE: "NAME N" for each line of the "Aggregated stats" block
# of `perf report --stats` (and perfring's, which prints the same block).
stats_counts() {
	awk '/^Aggregated stats/ { a = 1; next }
	     a && / stats:$/ { exit }
	     a && $2 == "events:" { print $1, $3 }' "$1" | sort
}

# --- command line ------------------------------------------------------------

t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" report --bogus
t_check report_bad_option "perfring report --bogus: exit $T_RC (want 2) or no --help hint" \
	bash -c "[ $T_RC -eq 2 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q -- '--help' '$T_TMP/err'"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" script --bogus
t_check script_bad_option "perfring script --bogus: exit $T_RC (want 2) or no --help hint" \
	bash -c "[ $T_RC -eq 2 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q -- '--help' '$T_TMP/err'"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" report -i "$CORPUS/quipper/perf.data.busy.0-3.8"
t_check report_samples "perfring report without --stats: exit $T_RC (want 0) or no '# Samples: 4  of event' line (perf's spacing)" \
	bash -c "[ $T_RC -eq 0 ] && grep -q '^# Samples: 4  of event' '$T_TMP/out'"
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" report --stats -i "$T_TMP/does-not-exist"
t_check report_missing_file "missing file: exit $T_RC (want 1), stderr '$(head -c 200 "$T_TMP/err")'" \
	bash -c "[ $T_RC -eq 1 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q 'does-not-exist' '$T_TMP/err'"
(cd "$T_TMP" && "$PERFRING" report --stats >"$T_TMP/out" 2>"$T_TMP/err")
rc=$?
t_check report_default_input "no -i and no ./perf.data: exit $rc (want 1), or the error does not name perf.data" \
	bash -c "[ $rc -eq 1 ] && grep -q 'perf.data' '$T_TMP/err'"
for sub in report script; do
	t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" help $sub
	t_check "help_$sub" "perfring help $sub: exit $T_RC or no -i FILE" \
		bash -c "[ $T_RC -eq 0 ] && grep -q -- '-i, --input FILE' '$T_TMP/out'"
done

# --- the corrupt file ----------------------------------------------------------

bad="$CORPUS/quipper/perf.data.piped.corrupted.zero_size_sample-3.2"
if [ -f "$bad" ]; then
	for sub in "report --stats" "script --dump --json"; do
		name="corrupt_${sub%% *}"
		# shellcheck disable=SC2086
		t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" $sub -i "$bad"
		if [ "$T_RC" -ne 1 ]; then
			fail "$name" "perfring $sub on the corrupt file exited $T_RC, not 1"
			t_show "$T_TMP/err"
		elif [ "$(wc -l <"$T_TMP/err")" -ne 1 ] || ! grep -Eq 'offset 0x[0-9a-f]+' "$T_TMP/err"; then
			fail "$name" "perfring $sub: want one line on stderr with 'offset 0x...'"
			t_show "$T_TMP/err"
		else
			ok "$name"
		fi
	done
else
	skip corrupt_file "$bad is missing from the corpus"
fi

# --- every file perf reads: the same counts, valid JSON -------------------------

if ! command -v perf >/dev/null; then
	skip corpus_vs_perf "the perf tool is not installed (the reference reading)"
else
	for f in "$CORPUS"/quipper/perf.data.*; do
		name=$(basename "$f")
		[ "$f" = "$bad" ] && continue
		if ! timeout 60 perf report --stats -i "$f" >"$T_TMP/perf.out" 2>/dev/null ||
			! grep -q '^Aggregated stats' "$T_TMP/perf.out"; then
			# perf 6.1 itself rejects it (perf.data.piped.intel_pt-4.14: "bad event
			# header size"): no reference; perfring must still not crash.
			t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" report --stats -i "$f"
			t_check "nocrash_$name" "perfring report --stats died with status $T_RC" [ "$T_RC" -lt 2 ]
			continue
		fi
		t_run "$T_TMP/pr.out" "$T_TMP/pr.err" "$PERFRING" report --stats -i "$f"
		if [ "$T_RC" -ne 0 ]; then
			fail "stats_$name" "perfring report --stats exited $T_RC"
			t_show "$T_TMP/pr.err"
			continue
		fi
		stats_counts "$T_TMP/perf.out" >"$T_TMP/want"
		stats_counts "$T_TMP/pr.out" >"$T_TMP/got"
		if diff -u "$T_TMP/want" "$T_TMP/got" >"$T_TMP/diff"; then
			ok "stats_$name"
		else
			fail "stats_$name" "counts differ from perf report --stats (- perf, + perfring)"
			t_show "$T_TMP/diff" 30
		fi
		# and the whole text: the AUX area note, the events' names (a pipe's by their attrs)
		if diff -u <(grep -v '^#\|^$' "$T_TMP/perf.out") <(grep -v '^#\|^$' "$T_TMP/pr.out") >"$T_TMP/diff"; then
			ok "stats_text_$name"
		else
			fail "stats_text_$name" "the text differs from perf report --stats (- perf, + perfring)"
			t_show "$T_TMP/diff" 30
		fi

		t_run "$T_TMP/js.out" "$T_TMP/js.err" "$PERFRING" script --dump --json -i "$f"
		total=$(awk '$1 == "TOTAL" { print $2 }' "$T_TMP/want")
		msg=$(python3 - "$T_TMP/js.out" "$total" <<'PY'
import json, sys
n = 0
for i, line in enumerate(open(sys.argv[1], encoding="latin-1")):
    try:
        o = json.loads(line)
    except ValueError as e:
        print("line %d is not JSON: %s" % (i + 1, e)); sys.exit(1)
    for k in ("offset", "size", "type", "type_name", "misc"):
        if k not in o:
            print("line %d lacks %s" % (i + 1, k)); sys.exit(1)
    if "error" in o:
        print("line %d: record at %#x did not decode: %s (%s)" % (i + 1, o["offset"], o["error"], o.get("error_field")))
        sys.exit(1)
    n += 1
if n != int(sys.argv[2]):
    print("%d records, perf counts %s" % (n, sys.argv[2])); sys.exit(1)
PY
)
		if [ "$T_RC" -ne 0 ] || [ -n "$msg" ]; then
			fail "json_$name" "perfring script --dump --json exited $T_RC: $msg"
			t_show "$T_TMP/js.err" 3
		else
			ok "json_$name"
		fi
		t_run "$T_TMP/tx.out" "$T_TMP/tx.err" "$PERFRING" script --dump -i "$f"
		t_check "text_$name" "perfring script --dump (text) exited $T_RC or printed $(wc -l <"$T_TMP/tx.out") lines, not $total" \
			bash -c "[ $T_RC -eq 0 ] && [ \$(wc -l <'$T_TMP/tx.out') -eq $total ] && [ \$(grep -Ecv '^0x[0-9a-f]+ \\[0x[0-9a-f]+\\] [A-Z_0-9]+( |\$)' '$T_TMP/tx.out') -eq 0 ]"
	done
fi

# --- linux-perf-data: newer than perf 6.1, compressed ---------------------------

# Expectations of linux-perf-data's tests (tests/compressed2.rs, compression_e2e.rs,
# uncompressed.rs), which count the records its reader yields, COMPRESSED ones
# excluded: NAME MIN-RECORDS MIN-SAMPLES.
while read -r name min_total min_samples; do
	f="$CORPUS/linux-perf-data/$name"
	if [ ! -f "$f" ]; then
		skip "lpd_$name" "$f is missing from the corpus"
		continue
	fi
	# sleep.compressed2.pipe.data ends with 143 bytes of perf record's own
	# messages ("[ perf record: Woken up 1 times ..."), captured with its
	# output: every record before them must come out, then an error there.
	tail_ok=0
	t_run "$T_TMP/js.out" "$T_TMP/js.err" "$PERFRING" script --dump --json -i "$f"
	if [ "$T_RC" -eq 1 ]; then
		off=$(grep -Eo 'offset 0x[0-9a-f]+' "$T_TMP/js.err" | head -n 1 | cut -d' ' -f2)
		if [ -n "$off" ] && [ "$(tail -c +$((off + 1)) "$f" | head -c 14)" = "[ perf record:" ]; then
			tail_ok=1
			ok "lpd_tail_$name"
		fi
	fi
	if [ "$T_RC" -ne 0 ] && [ "$tail_ok" -eq 0 ]; then
		fail "lpd_$name" "perfring script --dump --json exited $T_RC: $(head -c 300 "$T_TMP/js.err")"
		continue
	fi
	got_total=$(grep -Ecv '"type":(81|83),' "$T_TMP/js.out")
	got_samples=$(grep -Ec '"type":9,' "$T_TMP/js.out")
	t_check "lpd_$name" "$got_total records ($min_total+ expected), $got_samples samples ($min_samples+ expected)" \
		bash -c "[ $got_total -ge $min_total ] && [ $got_samples -ge $min_samples ]"
	if [ "$tail_ok" -eq 0 ]; then
		t_run "$T_TMP/pr.out" "$T_TMP/pr.err" "$PERFRING" report --stats -i "$f"
		stats_counts "$T_TMP/pr.out" >"$T_TMP/got"
		t_check "lpd_stats_$name" "perfring report --stats exited $T_RC or its TOTAL is not the number of records script printed" \
			bash -c "[ $T_RC -eq 0 ] && [ \"\$(awk '\$1 == \"TOTAL\" { print \$2 }' '$T_TMP/got')\" -eq $(wc -l <"$T_TMP/js.out") ]"
	fi
done <<'EOF2'
sleep.data 10 1
sleep.compressed.data 10 1
sleep.compressed2.data 10 1
sleep.compressed.pipe.data 100 1
sleep.compressed2.pipe.data 100 1
fibo.compressed2.pipe.data 1001 501
EOF2

t_finish
